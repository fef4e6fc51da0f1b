"""MkDocs hook: ``::: {taskik.solve_posture}.METHODS`` in a page, for names whose module moves.

An mkdocstrings block names an object by its full path, but some documented objects (the
module constants that ``solve_posture``'s docstring refers to, for instance) are not
re-exported anywhere stable. In a page, ``{dotted.object}.NAME`` stands for ``NAME`` as seen
from the module that defines ``dotted.object``: the same scope in which that object's
docstring roles (``:data:`METHODS```) are resolved. The hook imports the object when the
site is built and writes its module's path in place of the braces, so the page keeps working
when the code moves to another module.

Use from mkdocs.yml::

    hooks:
      - docs/_hooks/api_paths.py
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from mkdocs.exceptions import PluginError

_BLOCK_RE = re.compile(r"^(?P<lead>\s*:::\s+)\{(?P<anchor>[\w.]+)\}(?P<rest>(?:\.\w+)+)", re.M)


def defining_module(dotted: str) -> str:
    """The ``__module__`` of the object at import path ``dotted`` (``taskik.solve_posture``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError as error:
            raise PluginError(f"api_paths: no object {dotted!r} ({error})") from error
        module = getattr(obj, "__module__", None)
        if not module:
            raise PluginError(f"api_paths: {dotted!r} has no __module__")
        return module
    raise PluginError(f"api_paths: cannot import any part of {dotted!r}")


def expand(markdown: str) -> str:
    """``markdown`` with every ``::: {dotted}.rest`` block target made a plain path."""
    return _BLOCK_RE.sub(
        lambda m: f"{m.group('lead')}{defining_module(m.group('anchor'))}{m.group('rest')}",
        markdown,
    )


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return expand(markdown)
