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
    # the table's shortest, middle and longest files (whatever its latest measure says) and
    # a file it does not list
    listed = sorted(FILE_SECONDS, key=FILE_SECONDS.__getitem__)
    short, middle, longest = listed[0], listed[len(listed) // 2], listed[-1]
    assert FILE_SECONDS[short] < FILE_SECONDS[middle] < FILE_SECONDS[longest]
    names = [short, longest, "test_new.py", middle, longest]
    items = [SimpleNamespace(path=TESTS / n, k=k) for k, n in enumerate(names)]
    conftest.pytest_collection_modifyitems(None, items)
    files = [item.path.name for item in items]
    assert files == [longest, longest, middle, short, "test_new.py"]  # unlisted: last
    assert [item.k for item in items if item.path.name == longest] == [1, 4]


def test_pytest_runs_without_xdist():
    """``pytest -p no:xdist`` parses the settings' addopts (no xdist option left in them):
    exit code 5, nothing collected, instead of 4, a usage error."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--noconftest", "--collect-only",
         "-q", str(TESTS / "pages.py")],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 5, done.stdout[-2000:] + done.stderr[-2000:]
