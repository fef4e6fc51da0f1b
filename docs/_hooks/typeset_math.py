"""MkDocs hook: the pages' LaTeX formulas typeset as MathML when the site is built, offline.

``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` in the pages; this hook
converts each marked formula with latex2mathml (pure Python) into MathML, which browsers draw
themselves: no script and no download when a page is read. A formula latex2mathml cannot
convert, or with a command it does not know, fails the build.

Use from mkdocs.yml::

    markdown_extensions:
      - pymdownx.arithmatex:
          generic: true
    hooks:
      - docs/_hooks/typeset_math.py
"""

from __future__ import annotations

import html
import re
from typing import Any

from mkdocs.exceptions import PluginError

# arithmatex's generic output: <span class="arithmatex">\(...\)</span> inline,
# <div class="arithmatex">\[...\]</div> for display formulas
_MATH_RE = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\(?P<open>[(\[])(?P<tex>.*?)\\[)\]]\s*</(?P=tag)>',
    re.S,
)


def to_mathml(tex: str, display: bool) -> str:
    """The MathML of one LaTeX formula (``display``: a block of its own)."""
    from latex2mathml.converter import convert

    try:
        mathml = convert(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises its own exception types
        raise PluginError(f"cannot typeset the formula {tex!r}: {exc!r}") from exc
    unknown = re.findall(r">(\\[A-Za-z]+)<", mathml)  # a command it passed through as text
    if unknown:
        raise PluginError(f"cannot typeset the formula {tex!r}: unknown {', '.join(unknown)}")
    return mathml


def typeset(page_html: str) -> str:
    """``page_html`` with every arithmatex formula replaced by its MathML."""

    def one(m: re.Match[str]) -> str:
        display = m["open"] == "["
        mathml = to_mathml(html.unescape(m["tex"]).strip(), display)
        return f'<div class="math">{mathml}</div>' if display else mathml

    return _MATH_RE.sub(one, page_html)


def on_page_content(page_html: str, **kwargs: Any) -> str:
    return typeset(page_html)
