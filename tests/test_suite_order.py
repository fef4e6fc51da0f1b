"""The suite's own scheduling (tests/conftest.py): the long files are collected first, so that
with ``--dist loadfile`` no worker is left alone with a long file at the end of the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import conftest
from conftest import FILE_SECONDS

TESTS = Path(__file__).resolve().parent


def test_every_timed_file_exists():
    """A renamed or deleted file would silently lose its place at the front."""
    missing = sorted(name for name in FILE_SECONDS if not (TESTS / name).is_file())
    assert not missing, f"conftest.FILE_SECONDS names files that do not exist: {missing}"


def test_collection_puts_the_longest_files_first_and_keeps_the_order_within_a_file():
    names = ["test_solve.py", "test_lint.py", "test_new.py", "test_settling.py", "test_lint.py"]
    items = [SimpleNamespace(path=TESTS / n, k=k) for k, n in enumerate(names)]
    conftest.pytest_collection_modifyitems(None, items)
    files = [item.path.name for item in items]
    assert files == sorted(names, key=lambda n: -FILE_SECONDS.get(n, 0.0))
    assert files[0] == "test_lint.py" and files[-1] == "test_new.py"  # unlisted: last
    assert [item.k for item in items if item.path.name == "test_lint.py"] == [1, 4]


def test_pytest_runs_without_xdist():
    """``pytest -p no:xdist`` parses the settings' addopts (no xdist option left in them):
    exit code 5, nothing collected, instead of 4, a usage error."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--noconftest", "--collect-only",
         "-q", str(TESTS / "pages.py")],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 5, done.stdout[-2000:] + done.stderr[-2000:]
