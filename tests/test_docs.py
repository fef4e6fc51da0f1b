"""The documentation builds (mkdocs --strict), works from disk and links its cross-references.

The site is built once (a couple of seconds) into a temporary folder; the tests then read the
HTML it wrote.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
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
    "concepts/settling",
    "coming_from_pink",
    "peers",
    "coming_from_mink",
    "concepts/balance",
    "viewer",
    "plots",
    "benchmarks",
    "api",
)

#: The pictures of the documentation (made by scripts/docs_images.py, `make images`) and the
#: page each appears on.
IMAGES = {
    "first_loop.png": "index",
    "first_loop_joints.png": "plots",
    "priorities.png": "concepts/priorities",
    "settling.png": "concepts/settling",
    "collision_scene.png": "concepts/collisions",
    "viewer.png": "viewer",
}

#: Contributor pages: in the nav's last section, "Contributors", and nowhere else.
CONTRIBUTOR_PAGES = {"architecture.md", "mutation.md", "mutation_survivors.md"}


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


# -- the site a reader sees ---------------------------------------------------------------
def test_every_picture_is_made_and_shown(site):
    assert len(IMAGES) >= 5
    for name, page in IMAGES.items():
        path = ROOT / "docs" / "images" / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert path.stat().st_size > 10_000, name  # a real picture, not a placeholder
        assert (site / "images" / name).is_file(), name
        html = (site / f"{page}.html").read_text()
        assert re.search(rf'<img alt="[^"]{{20,}}" src="[./]*images/{re.escape(name)}"', html), (
            f"{page} does not show {name} with a description"
        )
    script = (ROOT / "scripts" / "docs_images.py").read_text()
    for name in IMAGES:
        assert f'"{name}"' in script, f"scripts/docs_images.py does not make {name}"


def test_pages_need_nothing_from_the_network(site):
    """Scripts, stylesheets, fonts and formulas come with the site: a page reads offline."""
    for page in site.rglob("*.html"):
        html = page.read_text()
        remote = [
            tag
            for tag in re.findall(r"<(?:script|link|img)\b[^>]*>", html)
            if re.search(r'(?:src|href)="(?:https?:)?//', tag) and "canonical" not in tag
        ]
        assert not remote, f"{page.relative_to(site)}: {remote[:3]}"
        assert "fonts.googleapis" not in html and "cdn." not in html, page


def test_code_is_highlighted_at_build_time(site):
    html = (site / "index.html").read_text()
    # Pygments' token classes: the keyword "import", a string, a number
    assert '<span class="kn">import</span>' in html
    assert '<span class="s2">"ur5"</span>' in html
    assert '<span class="mf">0.01</span>' in html


def test_formulas_are_typeset_as_mathml(site):
    for page in ("concepts/tasks", "concepts/limits", "concepts/priorities",
                 "concepts/collisions", "concepts/settling"):  # fmt: skip
        html = (site / f"{page}.html").read_text()
        assert "<math" in html, page
        assert 'class="arithmatex"' not in html and "\\(" not in html, page
    tasks = (site / "concepts" / "tasks.html").read_text()
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in tasks
    assert "<mfrac>" in tasks  # e / Δt as a fraction


def test_math_hook_refuses_a_formula_it_cannot_typeset():
    from mkdocs.exceptions import PluginError

    hook = _load_hook("typeset_math")
    out = hook.typeset('<p><span class="arithmatex">\\(a &lt; b\\)</span></p>')
    assert "<mo>&#x0003C;</mo>" in out and "arithmatex" not in out
    with pytest.raises(PluginError, match="cannot typeset"):
        hook.typeset('<span class="arithmatex">\\(\\left( a\\)</span>')
    with pytest.raises(PluginError, match=r"unknown \\lVetr"):  # a misspelt command
        hook.typeset('<div class="arithmatex">\\[\\lVetr v \\rVert\\]</div>')


def _load_hook(name: str):
    spec = importlib.util.spec_from_file_location(f"taskik_docs_{name}", HOOKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmarks_page_is_the_results_files(site):
    hook = _load_hook("benchmarks_page")
    results = ROOT / "benchmarks" / "results"
    assert hook.missing_sections(results) == []
    html = (site / "benchmarks.html").read_text()
    text = HTMLParserText.of(html)
    for path in sorted(results.glob("*.txt")):
        # every results file is on the page, line for line (codes replaced by names)
        for line in hook.plain_words(path.read_text()).splitlines():
            assert line.strip() in text, (path.name, line)
    assert not re.search(r"\bB[0-9]+\b|seed 0\d\d", text)
    # the summary table: the medians of step_vs_pink.txt and their ratios
    rows = hook.step_table((results / "step_vs_pink.txt").read_text())
    assert {r["robot"] for r in rows} >= {"ur5", "panda", "talos", "g1"}
    for r in rows:
        ratio = r["pink"][0] / r["taskik"][0]
        assert f"| {r['robot']} ({r['nv']}) | {r['taskik'][0]:.1f} / " in hook.render(results)
        assert f"{ratio:.1f}×" in text


def test_benchmarks_page_fails_on_a_results_file_it_does_not_describe(tmp_path):
    hook = _load_hook("benchmarks_page")
    results = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", results)
    (results / "new_benchmark.txt").write_text("figures\n")
    assert hook.missing_sections(results) == ["new_benchmark"]
    with pytest.raises(ValueError, match="new_benchmark"):
        hook.render(results)


class HTMLParserText(HTMLParser):
    """The text of a page, entities decoded, tags dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)

    @classmethod
    def of(cls, html: str) -> str:
        parser = cls()
        parser.feed(html)
        return "".join(parser.parts)


def test_nav_puts_user_pages_first_and_contributor_pages_apart():
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    titles = [next(iter(entry)) for entry in nav]
    assert titles[-1] == "Contributors"
    assert len(titles) <= 7  # one row of tabs at 1280 px (checked in Chromium for the report)

    def files(entry) -> set[str]:
        if isinstance(entry, str):
            return {entry}
        if isinstance(entry, list):
            return set().union(*(files(e) for e in entry))
        return set().union(*(files(v) for v in entry.values()))

    assert files(nav[-1]) == CONTRIBUTOR_PAGES
    assert not files(nav[:-1]) & CONTRIBUTOR_PAGES


# -- the printed reports -----------------------------------------------------------------
def test_printed_reports_fit_100_columns_with_whole_names_and_a_legend():
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = [
        taskik.FrameTask(f, [1.0, 1.0, 1.0], [0.5, 0.5, 0.5])
        for f in ("lleg_effector_body", "rleg_effector_body")
    ]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    hand = taskik.PositionTask("rarm_effector_body", cost=[1.0, 1.0, 1.0])
    hand.set_target([0.5, -0.3, 1.0])
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    tasks = [*feet, hand, posture]
    v = taskik.solve_ik(conf, tasks, 0.01)
    for text in (
        str(taskik.report(conf, tasks, 0.01, v)),
        str(taskik.hierarchy_report(conf, [feet, [hand], [posture]], 0.01,
                                    taskik.solve_ik(conf, [feet, [hand], [posture]], 0.01))),
    ):  # fmt: skip
        lines = text.splitlines()
        assert max(map(len, lines)) <= 100, text
        for name in ("FrameTask('lleg_effector_body')", "FrameTask('rleg_effector_body')",
                     "PositionTask('rarm_effector_body')", "PostureTask"):  # fmt: skip
            assert name in text, (name, text)
        assert "cost=[" not in text  # the parameters are the task's repr, not the table's
        assert "reducible: share of W e" in text  # the legend says what the columns are
    # a name longer than its column is cut with a visible ellipsis, the table still fits
    from taskik.report import StepReport, TaskStatus

    long = StepReport([TaskStatus("FrameTask('" + "x" * 120 + "', cost=1.0)", 1.0, 1.0, 1.0)], [])
    assert max(map(len, str(long).splitlines())) <= 100
    assert "…" in str(long)


_PROBE = """<script>
window.addEventListener("load", () => {
  const tabs = [...document.querySelectorAll(".md-tabs__item")];
  const boxes = tabs.map((tab) => tab.getBoundingClientRect());
  const rows = new Set(boxes.map((box) => Math.round(box.top))).size;
  const right = Math.max(...boxes.map((box) => box.right));
  const math = [...document.querySelectorAll("math")];
  const mathml = math.filter((m) => m.getBoundingClientRect().width > 0).length;
  document.title = `tabs=${tabs.length} rows=${rows} right=${Math.round(right)} math=${mathml}`;
});
</script>"""


def test_nav_tabs_fit_one_row_at_1280_px_in_chromium(site, tmp_path):
    """The site as Chromium lays it out at 1280 px: every tab on one row, inside the window,
    and the formulas drawn (MathML with a width)."""
    browser = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    if browser is None:
        reason = "no headless Chromium: `sudo apt-get install chromium` to run the layout test"
        if os.environ.get("TASKIK_REQUIRE_CHROMIUM") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    page = site / "concepts" / "tasks_probe.html"
    html = (site / "concepts" / "tasks.html").read_text()
    page.write_text(html.replace("</body>", _PROBE + "</body>"))
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    page.unlink()
    found = re.search(r"<title>tabs=(\d+) rows=(\d+) right=(\d+) math=(\d+)</title>", done.stdout)
    assert found, done.stdout[-1000:] + done.stderr[-1000:]
    tabs, rows, right, math = map(int, found.groups())
    assert tabs >= 5 and rows == 1 and right <= 1280, found[0]
    assert math >= 2, found[0]
