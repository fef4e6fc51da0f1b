"""Griffe extension: Sphinx cross-reference roles in docstrings become site links.

taskik's docstrings use Sphinx roles (``:func:`solve_ik```, ``:class:`~taskik.problem.Assembler```,
``:meth:`Configuration.update``` ...) because they read well in ``help()``. mkdocstrings renders
docstrings as Markdown, where a role would show as literal text. Once the whole package is loaded,
this extension rewrites every role into a mkdocs-autorefs cross-reference,
``[`name`][taskik.full.path]``, which autorefs turns into a link to the object's anchor.

Names are resolved when the site is built, against the loaded object tree, so nothing here
depends on which module currently defines what:

* a dotted name whose first part is a loaded package (``taskik.robots.load``) is looked up from
  the top;
* any other name is looked up in the scope of the documented object, then in each enclosing
  scope (class, module, parent packages, the top-level ``taskik`` namespace), the first hit wins;
* the identifier written into the link is the top-level re-export (``taskik.FrameTask``) when
  the top-level package re-exports that very object, otherwise its canonical path.

A role that names nothing in the tree is logged as a warning (which fails ``mkdocs build
--strict``) and left as inline code. A role that resolves to an object absent from the rendered
pages fails the strict build too, through autorefs' "could not find cross-reference target".

Sphinx role forms handled: ``:role:`name```, ``:py:role:`name```, ``~`` (show only the last
part), ``title <target>`` and ``!name`` (no link).

Use from mkdocs.yml, under the python handler's options::

    extensions:
      - docs/_hooks/sphinx_roles.py
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from griffe import AliasResolutionError, CyclicAliasError, Extension, Module, Object

try:  # mkdocs counts warnings of its own logger tree when building with --strict
    from mkdocs.plugins import get_plugin_logger

    _logger: logging.Logger | logging.LoggerAdapter = get_plugin_logger("sphinx_roles")
except ImportError:  # pragma: no cover - used without mkdocs
    _logger = logging.getLogger("sphinx_roles")

ROLES = ("func", "class", "meth", "data", "mod", "attr", "exc", "obj", "const", "type")
ROLE_RE = re.compile(r":(?:py:)?(?P<role>" + "|".join(ROLES) + r"):`(?P<body>[^`]+)`")
_TITLED_RE = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")
_LOOKUP_ERRORS = (KeyError, ValueError, AliasResolutionError, CyclicAliasError)


def _lookup(scope: Any, name: str) -> Object | None:
    try:
        found = scope[name]
    except _LOOKUP_ERRORS:
        return None
    try:
        return found.final_target if found.is_alias else found
    except _LOOKUP_ERRORS:
        return None


def _scopes(obj: Object) -> Iterator[Object]:
    """The documented object, then every enclosing object up to the top-level package."""
    scope: Object | None = obj
    while scope is not None:
        yield scope
        scope = scope.parent


def resolve(name: str, obj: Object) -> str | None:
    """The autorefs identifier for ``name`` as written in a docstring of ``obj``, or None."""
    name = name.strip().lstrip(".")
    collection = obj.modules_collection
    target: Object | None = None
    head = name.split(".", 1)[0]
    if "." in name and head in collection.members:
        target = _lookup(collection, name)
    if target is None:
        for scope in _scopes(obj):
            target = _lookup(scope, name)
            if target is not None:
                break
    if target is None:
        return None
    try:
        canonical = target.canonical_path
    except _LOOKUP_ERRORS:  # pragma: no cover - defensive
        canonical = target.path
    top = canonical.split(".", 1)[0]
    if top in collection.members and "." in canonical:
        # Prefer the public, top-level spelling (taskik.FrameTask) when it is the same object.
        short = f"{top}.{target.name}"
        again = _lookup(collection, short)
        if again is not None and again.canonical_path == canonical:
            return short
    return canonical


def rewrite(text: str, obj: Object) -> tuple[str, list[str]]:
    """``text`` with its roles rewritten into autorefs links, and the roles that did not resolve."""
    unresolved: list[str] = []

    def replace(match: re.Match[str]) -> str:
        body = match.group("body").strip()
        titled = _TITLED_RE.match(body)
        title = None
        if titled:
            title, body = titled.group("title"), titled.group("target").strip()
        if body.startswith("!"):
            return f"`{title or body[1:]}`"
        short = body.startswith("~")
        body = body.lstrip("~")
        shown = title or (body.rsplit(".", 1)[-1] if short else body)
        identifier = resolve(body, obj)
        if identifier is None:
            unresolved.append(match.group(0))
            return f"`{shown}`"
        return f"[`{shown}`][{identifier}]"

    return ROLE_RE.sub(replace, text), unresolved


def _documented(obj: Object) -> Iterator[Object]:
    """``obj`` and every object defined under it (aliases, i.e. imports, are skipped)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _documented(member)


class SphinxRoles(Extension):
    """Rewrite Sphinx roles in every docstring of a loaded package into autorefs links."""

    def __init__(self) -> None:
        super().__init__()
        self.rewritten = 0
        self.unresolved: list[tuple[str, str]] = []

    def on_package(self, *, pkg: Module, **kwargs: Any) -> None:
        for obj in _documented(pkg):
            docstring = obj.docstring
            if docstring is None or ":" not in docstring.value:
                continue
            text, unresolved = rewrite(docstring.value, obj)
            if text == docstring.value:
                continue
            self.rewritten += len(ROLE_RE.findall(docstring.value)) - len(unresolved)
            docstring.value = text
            docstring.__dict__.pop("parsed", None)  # parsed lazily: drop a stale parse
            for role in unresolved:
                self.unresolved.append((obj.path, role))
                _logger.warning("%s: cannot resolve %s to a documented object", obj.path, role)

    # Older griffe releases name the same event on_package_loaded; the rewrite is idempotent.
    on_package_loaded = on_package
