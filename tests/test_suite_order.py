"""The suite's own scheduling (tests/conftest.py): the long files are collected first, so that
with ``--dist loadfile`` no worker is left alone with a long file at the end of the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import FILE_SECONDS

TESTS = Path(__file__).resolve().parent


def test_every_timed_file_exists():
    """A renamed or deleted file would silently lose its place at the front."""
    missing = sorted(name for name in FILE_SECONDS if not (TESTS / name).is_file())
    assert not missing, f"conftest.FILE_SECONDS names files that do not exist: {missing}"


def test_collection_puts_the_longest_files_first_and_runs_without_xdist():
    """Collected longest first; and ``-p no:xdist`` works (no xdist option in addopts).
    (``-q`` twice, with addopts': one line per file, "path: count".)"""
    names = ["test_solve.py", "test_lint.py", "test_settling.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q",
         *(str(TESTS / n) for n in names)],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    files = [line.split(":")[0].rsplit("/", 1)[-1] for line in done.stdout.splitlines()]
    order = list(dict.fromkeys(f for f in files if f in names))
    assert order == sorted(names, key=lambda n: -FILE_SECONDS.get(n, 0.0)), order
