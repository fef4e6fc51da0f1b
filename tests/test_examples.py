"""Smoke test: every examples/*.py runs to the end (TASKIK_SMOKE=1 shortens the loops of
the examples that support it) and writes its plots outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))

# PNGs that the examples with plots must write into $TASKIK_OUTPUT.
EXPECTED_PLOTS = {
    "manipulator_servoing": [
        "ur5_servoing_errors.png",
        "ur5_servoing_joints.png",
        "panda_servoing_errors.png",
        "panda_servoing_joints.png",
    ],
    "humanoid_posture": ["*_posture_errors.png"],
}


def repo_pngs() -> set[Path]:
    found = set()
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in (".venv", ".git", "site")]
        found.update(Path(folder, f) for f in files if f.endswith(".png"))
    return found


def test_the_examples_are_found():
    names = {p.stem for p in EXAMPLES}
    assert {"manipulator_servoing", "humanoid_posture", "control_loop", "demo"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(example, tmp_path):
    output = tmp_path / "out"
    env = {**os.environ, "TASKIK_SMOKE": "1", "TASKIK_OUTPUT": str(output), "MPLBACKEND": "Agg"}
    before = repo_pngs()
    result = subprocess.run(
        [sys.executable, str(example)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, f"{example.name} failed:\n{result.stderr[-3000:]}"
    assert result.stdout.strip(), f"{example.name} printed nothing"
    assert repo_pngs() == before, f"{example.name} wrote a PNG into the repository"
    for pattern in EXPECTED_PLOTS.get(example.stem, []):
        written = list(output.glob(pattern))
        assert written and all(p.stat().st_size > 10_000 for p in written), (pattern, written)
