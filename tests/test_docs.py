"""The documentation builds (mkdocs --strict), works from disk and links its cross-references.

The site is built once (a couple of seconds) into a temporary folder; the tests then read the
HTML it wrote.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import taskik

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "docs" / "_hooks"

PAGES = (
    "index",
    "concepts/tasks",
    "concepts/limits",
    "concepts/backends",
    "concepts/priorities",
    "concepts/solve_to_pose",
    "concepts/collisions",
    "coming_from_pink",
    "coming_from_mink",
    "viewer",
    "plots",
    "api",
)


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(config),
            "--site-dir",
            str(site),
        ],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("docs") / "site"
    result = mkdocs_build(ROOT / "mkdocs.yml", site)
    assert result.returncode == 0, result.stderr[-3000:]
    return site


class _Links(HTMLParser):
    """Collects the link targets (href, src) and the element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src"):
                self.links.append(value)
            elif name in ("id", "name"):
                self.ids.add(value)


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_api_page_has_every_public_name(site):
    api = (site / "api.html").read_text()
    public = [n for n in taskik.__all__ if n[0].isupper() or n.startswith(("solve", "build"))]
    missing = [name for name in public if f'id="taskik.{name}"' not in api]
    assert not missing, f"not in docs/api.md: {missing}"


def test_pages_are_files_not_folders(site):
    # use_directory_urls: false -> concepts/tasks.html, which a browser opens from disk
    for page in PAGES:
        assert (site / f"{page}.html").is_file(), page
    assert not (site / "api" / "index.html").exists()


def test_every_internal_link_resolves_on_disk(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= len(PAGES)
    parsed = {page: _parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:", "javascript:")):
                continue  # external
            if not parts.path:
                continue  # "#anchor" on this page
            if parts.path.startswith("/"):
                # 404.html is only ever served (by a web server, for a missing page at any
                # depth), so it links from the site root; a page opened from disk cannot.
                if page.name != "404.html":
                    broken.append(f"{page.relative_to(site)}: {link} (absolute: breaks from disk)")
                    continue
                target = (site / unquote(parts.path).lstrip("/")).resolve()
            else:
                target = (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                broken.append(f"{page.relative_to(site)}: {link} (a folder: needs a server)")
                continue
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {link} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert not broken, "\n".join(broken[:40])


def _section(html: str, identifier: str) -> str:
    """The HTML of one documented object, from its heading to the next heading of its level."""
    start = html.index(f'id="{identifier}"')
    level = html.rfind("<h", 0, start)
    tag = html[level : level + 3]
    end = html.find(tag, start)
    return html[start : end if end != -1 else len(html)]


def _link_targets(html: str) -> set[str]:
    return set(re.findall(r'<a [^>]*class="autorefs autorefs-internal"[^>]*href="([^"]*)"', html))


def test_docstring_roles_became_links(site):
    api = (site / "api.html").read_text()
    # no role is left as text anywhere on the site
    for page in site.rglob("*.html"):
        text = page.read_text()
        leftover = re.findall(
            r":(?:py:)?(?:func|class|meth|data|mod|attr|exc|obj|const):(?:`|<code>)", text
        )
        assert not leftover, f"{page.relative_to(site)}: {leftover[:5]}"
    # solve_ik: its parameters link to the Configuration class, its ":mod:`taskik.backends`" too
    solve_ik = _section(api, "taskik.solve_ik")
    assert "#taskik.Configuration" in _link_targets(solve_ik)
    assert re.search(r'href="#taskik\.backends"[^>]*><code>taskik.backends</code></a>', solve_ik)
    # short names resolve in the object's own scope: ":meth:`update`" inside a class
    convergence = _section(api, "taskik.steps.PoseChangeConvergence")
    assert "#taskik.steps.PoseChangeConvergence.update" in _link_targets(convergence)
    # ... in the module, as top-level re-exports when there are some, and as module constants
    posture = _section(api, "taskik.solve_posture")
    targets = _link_targets(posture)
    assert {"#taskik.Configuration", "#taskik.FrameTask", "#taskik.PostureResult"} <= targets
    module = taskik.solve_posture.__module__
    assert {f"#{module}.METHODS", f"#{module}.STARTS"} <= targets


def test_concept_pages_link_into_the_api_reference(site):
    page = (site / "concepts" / "solve_to_pose.html").read_text()
    targets = _link_targets(page)
    assert {"../api.html#taskik.solve_ik", "../api.html#taskik.solve_posture"} <= targets
    pink = (site / "coming_from_pink.html").read_text()
    assert "api.html#taskik.Configuration" in _link_targets(pink)


def test_every_role_in_the_package_resolves():
    """Every role of every docstring (rendered or not) names an object of the package."""
    griffe = pytest.importorskip("griffe")
    sys.path.insert(0, str(HOOKS))
    try:
        from sphinx_roles import ROLE_RE, SphinxRoles
    finally:
        sys.path.remove(str(HOOKS))
    roles = SphinxRoles()
    package = griffe.load(
        "taskik",
        search_paths=[str(ROOT)],
        extensions=griffe.load_extensions(roles),
        resolve_aliases=True,
    )
    assert roles.unresolved == []
    assert roles.rewritten >= 40
    leftover = [
        obj.path
        for obj in _objects(package)
        if obj.docstring and ROLE_RE.search(obj.docstring.value)
    ]
    assert leftover == []


def _objects(obj):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def test_role_resolution_rules(tmp_path):
    """Scopes, ~, titles and !; unknown names are reported, not silently kept."""
    griffe = pytest.importorskip("griffe")
    sys.path.insert(0, str(HOOKS))
    try:
        from sphinx_roles import SphinxRoles
    finally:
        sys.path.remove(str(HOOKS))
    package = tmp_path / "rolepkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .sub.mod import Thing\n\n__all__ = ['Thing']\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text(
        textwrap.dedent(
            '''
            LIMIT = 3

            class Thing:
                """:meth:`go`, :data:`LIMIT`, :class:`~rolepkg.sub.mod.Other`,
                :func:`helper`, :class:`the thing <Thing>`, :func:`!nowhere`,
                :py:meth:`Thing.go`, :func:`missing_name`."""

                def go(self):
                    """:class:`Thing`"""

            class Other:
                pass

            def helper():
                pass
            '''
        )
    )
    roles = SphinxRoles()
    loaded = griffe.load(
        "rolepkg", search_paths=[str(tmp_path)], extensions=griffe.load_extensions(roles)
    )
    text = loaded["sub.mod.Thing"].docstring.value
    assert "[`go`][rolepkg.sub.mod.Thing.go]" in text
    assert "[`LIMIT`][rolepkg.sub.mod.LIMIT]" in text
    assert "[`Other`][rolepkg.sub.mod.Other]" in text  # ~: last part shown
    assert "[`helper`][rolepkg.sub.mod.helper]" in text
    assert "[`the thing`][rolepkg.Thing]" in text  # re-exported at the top: the public path
    assert "`nowhere`" in text and "[`nowhere`]" not in text  # "!": no link
    assert "[`Thing.go`][rolepkg.sub.mod.Thing.go]" in text
    assert loaded["sub.mod.Thing.go"].docstring.value == "[`Thing`][rolepkg.Thing]"
    assert roles.unresolved == [("rolepkg.sub.mod.Thing", ":func:`missing_name`")]


@pytest.mark.parametrize(
    ("role", "message"),
    [
        (":func:`no_such_function`", "cannot resolve :func:`no_such_function`"),
        # resolves in the code, but no page documents it: autorefs has no target
        (":func:`undocumented`", "Could not find cross-reference target"),
    ],
)
def test_strict_build_fails_on_a_role_it_cannot_link(tmp_path, role, message):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        f'def documented():\n    """See {role}."""\n\n\ndef undocumented():\n    pass\n'
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# API\n\n::: pkg.documented\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        textwrap.dedent(
            f"""
            site_name: t
            use_directory_urls: false
            plugins:
              - mkdocstrings:
                  handlers:
                    python:
                      paths: [{tmp_path}]
                      options:
                        extensions: [{HOOKS / "sphinx_roles.py"}]
            """
        )
    )
    result = mkdocs_build(config, tmp_path / "site")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr[-2000:]


def test_api_paths_hook_follows_the_defining_module():
    sys.path.insert(0, str(HOOKS))
    try:
        from api_paths import expand
    finally:
        sys.path.remove(str(HOOKS))
    module = taskik.solve_posture.__module__
    page = "intro\n\n::: {taskik.solve_posture}.METHODS\n    options: {}\n::: taskik.Task\n"
    assert expand(page) == f"intro\n\n::: {module}.METHODS\n    options: {{}}\n::: taskik.Task\n"
    assert sys.modules[module].METHODS  # the constant is there
