"""The documentation builds (mkdocs --strict) and its API reference covers the public API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import taskik

ROOT = Path(__file__).resolve().parent.parent


def test_docs_build_strict_with_every_public_name(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    api = (site / "api" / "index.html").read_text()
    public = [n for n in taskik.__all__ if n[0].isupper() or n.startswith(("solve", "build"))]
    missing = [name for name in public if f'id="taskik.{name}"' not in api]
    assert not missing, f"not in docs/api.md: {missing}"
    for page in (
        "concepts/tasks",
        "concepts/limits",
        "concepts/backends",
        "concepts/priorities",
        "concepts/solve_to_pose",
        "coming_from_pink",
        "viewer",
    ):
        assert (site / page / "index.html").is_file(), page
