"""The checks of ``make lint`` as tests, so that ``make test`` keeps the sources clean: ruff's
lint rules and formatting over the Python sources, and mypy over the package (settings in
pyproject.toml's ``[tool.mypy]``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["taskik", "tests", "examples", "benchmarks"]


def _run(tool: str, *args: str, timeout: float = 120.0) -> None:
    # the dev extra installs both tools: a missing one is a broken set-up, not a pass
    assert importlib.util.find_spec(tool) is not None, (
        f"{tool} is not installed (pip install -e '.[dev]')"
    )
    proc = subprocess.run(
        [sys.executable, "-m", tool, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (
        f"`{tool} {' '.join(args)}` exited with {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    )


def test_ruff_check():
    _run("ruff", "check", *SOURCES)


def test_ruff_format():
    _run("ruff", "format", "--check", *SOURCES)


def test_mypy():
    # files, strictness and the untyped libraries come from pyproject.toml
    _run("mypy")
