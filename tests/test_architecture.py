"""The layout of the package (docs/architecture.md): imports point one way, module sizes.

The import graph is read from the source with ``ast``: every ``import`` and ``from ...
import`` of a taskik module, at module level or inside a function (a lazy import that
hides a cycle is still a cycle), except those under ``if TYPE_CHECKING:``. Importing
``taskik.a.b`` from outside ``taskik.a`` also runs the package ``taskik.a``: that edge is
counted too (the root package ``taskik``, the public API, is left out: it imports
everything by design).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "taskik"

#: The layers of docs/architecture.md, lowest first: a unit (a top-level module or
#: subpackage of taskik) imports only units of its own layer or of the layers before it.
LAYERS = [
    ["exceptions", "plan_cache"],
    ["configuration"],
    [
        "tasks",
        "limits",
        "contacts",
        "robots",
        "mjcf",
        "geometry",
        "metrics",
        "steps",
        "nullspace",
        "trust_region",
        "utils",
    ],
    ["validation", "problem"],
    ["report", "backends", "relax"],
    ["hierarchy"],
    ["solve"],
    ["posture"],
    ["batch", "retarget"],
    ["plots", "viewer", "cli"],
]
RANK = {unit: k for k, layer in enumerate(LAYERS) for unit in layer}

#: Modules allowed over MAX_LINES, each with the reason written at its top.
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = ["taskik", *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _walk(node: ast.AST):
    """Every node under ``node``, skipping ``if TYPE_CHECKING:`` bodies."""
    for child in ast.iter_child_nodes(node):
        if _type_checking_block(child):
            yield from (n for orelse in child.orelse for n in _walk_with(orelse))
            continue
        yield child
        yield from _walk(child)


def _walk_with(node: ast.AST):
    yield node
    yield from _walk(node)


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The taskik modules ``name`` imports (with the packages that importing them runs)."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names if a.name.startswith("taskik"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("taskik"):
                module = node.module
            else:
                continue
            targets.add(module)
            # ``from package import submodule`` imports the submodule
            targets.update(
                f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in known
            )
    edges = set()
    for target in targets:
        parts = target.split(".")
        # the target and every package above it (but taskik), except the packages that
        # contain the importer: Python is already running those when it imports
        for k in range(2, len(parts) + 1):
            candidate = ".".join(parts[:k])
            if candidate in known and candidate != name and not name.startswith(candidate + "."):
                edges.add(candidate)
    return edges


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph as a list of modules (first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def unit(module: str) -> str:
    return module.split(".")[1] if "." in module else module


# ------------------------------------------------------------------------------ tests
def test_the_graph_reader_sees_lazy_imports_and_skips_type_checking_blocks(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import problem\n"
        "if TYPE_CHECKING:\n"
        "    from .solve import solve_ik\n"
        "def f():\n"
        "    from .hierarchy import solve_hierarchy\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(source)
    known = {"taskik.problem", "taskik.solve", "taskik.hierarchy", "taskik.mod"}
    assert imports_of("taskik.mod", path, known) == {"taskik.problem", "taskik.hierarchy"}


def test_the_cycle_finder_finds_a_lazy_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The package's import graph, read once for the tests below (which only read it)."""
    return import_graph()


def test_no_import_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_unit_has_a_layer():
    units = {unit(m) for m in modules() if m != "taskik"}
    assert units <= set(RANK), f"add to LAYERS (and docs/architecture.md): {units - set(RANK)}"


def test_imports_point_down_the_layers(graph):
    wrong = []
    for module, targets in graph.items():
        if module == "taskik":
            continue
        for target in targets:
            if RANK[unit(target)] > RANK[unit(module)]:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "imports against the layers: " + "; ".join(sorted(wrong))


def test_the_layers_are_those_of_the_architecture_page():
    page = (ROOT.parent / "docs" / "architecture.md").read_text()
    for layer in LAYERS:
        for name in layer:
            assert f"`{name}" in page, f"docs/architecture.md does not mention {name}"


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: module_name(p))
def test_modules_stay_small_or_say_why(path):
    lines = path.read_text().count("\n")
    if lines > MAX_LINES:
        head = path.read_text()[:3000].lower()
        assert "longer than" in head, (
            f"{module_name(path)} has {lines} lines (> {MAX_LINES}): split it, or say at its "
            "top why it is longer than that"
        )
