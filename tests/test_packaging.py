"""What `python -m build` makes: an sdist and a wheel that carry the licence, the typed marker
and every subpackage, whose metadata renders, and whose wheel installs into a fresh virtual
environment, where ``import taskik`` is the installed copy and the README's first loop runs.

Also: the extras are named in one place (pyproject.toml) and README.md and docs/index.md show
the same table of them.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import tomllib
from pages import python_blocks

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel) built by ``python -m build`` from a copy of the files an sdist starts
    from (the wheel is built from the unpacked sdist, so a file missing from the sdist shows)."""
    tmp = tmp_path_factory.mktemp("build")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "taskik", src / "taskik", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp / "dist"
    done = subprocess.run(
        # --no-isolation: the build tools of this environment (the dev extra), no download
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    (sdist,) = out.glob("taskik-*.tar.gz")
    (wheel,) = out.glob("taskik-*.whl")
    return sdist, wheel


def test_sdist_and_wheel_carry_the_licence_and_every_subpackage(dist):
    sdist, wheel = dist
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert f"{top}/LICENSE" in names
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "License-Expression: Apache-2.0" in metadata
    assert "taskik/py.typed" in names
    packages = {
        p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "taskik").rglob("__init__.py")
    }
    for package in packages:
        assert f"{package}/__init__.py" in names, f"{package} missing from the wheel"
    # package data the code reads at run time (the retargeting sample clip and mappings)
    for data in (ROOT / "taskik").rglob("data/*"):
        if data.suffix in (".npz", ".json"):
            assert data.relative_to(ROOT).as_posix() in names, data


def test_metadata_is_ready_for_publishing(dist):
    sdist, wheel = dist
    with zipfile.ZipFile(wheel) as whl:
        metadata = whl.read(
            next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        ).decode()
    assert "Description-Content-Type: text/markdown" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    assert "# taskik" in metadata  # the README is the long description
    # twine's own check: the long description renders (as PyPI would show it)
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


# The modules the wheel's required dependencies provide (numpy, pin, qpsolvers with DAQP and
# OSQP, scipy, tqdm): the fresh environment finds them where this one has them, as plain path
# entries after its own site-packages, so that no .pth file of this environment (its editable
# install of taskik) runs and the installed wheel comes first.
DEPENDENCY_MODULES = (
    "numpy",
    "pinocchio",
    "qpsolvers",
    "daqp",
    "osqp",
    "scipy",
    "threadpoolctl",
    "tqdm",
)

SMOKE = """
import sys
import taskik
print(taskik.__file__)
exec(compile(sys.stdin.read(), "README first loop", "exec"), {})
"""


def first_loop_snippet() -> str:
    snippets = python_blocks("README.md")
    (snippet,) = [s for s in snippets if "taskik.report(configuration, [tool, posture]" in s]
    return snippet


def test_wheel_installs_into_a_fresh_venv_and_the_first_loop_runs(dist, tmp_path):
    _, wheel = dist
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    site = subprocess.run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    roots = set()
    for name in DEPENDENCY_MODULES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        roots.add(str(Path(spec.origin).parents[1]))
    (Path(site) / "dependencies.pth").write_text("".join(f"{r}\n" for r in sorted(roots)))

    run = subprocess.run(
        # -I: neither PYTHONPATH nor the current folder; cwd outside the source tree
        [python, "-I", "-c", SMOKE],
        input=first_loop_snippet(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    where, _, report = run.stdout.partition("\n")
    assert Path(where).resolve().is_relative_to(Path(site).resolve()), where
    assert "FrameTask('tool0'" in report and "PostureTask" in report, report
    # the console script is installed too
    cli = subprocess.run(
        [venv / "bin" / "taskik", "robots"], capture_output=True, text=True, timeout=120
    )
    assert cli.returncode == 0 and "ur5" in cli.stdout, cli.stderr[-2000:]


def extras_table(path: Path) -> list[tuple[str, str]]:
    """The rows ``| `name` | what it brings |`` of the table headed ``| extra |`` in a page."""
    text = path.read_text()
    start = text.index("| extra |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((cells[0].strip("`"), cells[1]))
    return rows


def test_readme_and_docs_show_the_same_extras_as_pyproject():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    readme = extras_table(ROOT / "README.md")
    docs = extras_table(ROOT / "docs" / "index.md")
    assert readme == docs
    assert [name for name, _ in readme] == list(extras)
    for page in (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))):
        # not published: "pip install taskik[...]" would fail; from a clone it is
        # pip install -e '.[...]'
        text = page.read_text()
        assert not re.search(r"pip install '?taskik\[", text), page
