"""`taskik batch` (an .npz of poses in, the result .npz out). examples/batch_poses.py:
tests/test_examples.py (its script run)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_batch import assert_same, reachable_targets

from taskik import cli
from taskik.batch import BatchResult, solve_poses

ROOT = Path(__file__).resolve().parent.parent


def test_batch_command_writes_the_solve_poses_result(ur5, tmp_path, capsys):
    targets = reachable_targets(ur5, "tool0", 30, seed=9)
    np.savez(tmp_path / "in.npz", targets=targets, other=np.zeros(3))
    out = tmp_path / "out.npz"
    code = cli.main(
        ["batch", "ur5", "tool0", str(tmp_path / "in.npz"), "-o", str(out), "--workers", "2",
         "--chunk-size", "7", "--seed", "4", "--max-searches", "5", "-q"]
    )  # fmt: skip
    assert code == 0
    assert "30 problems, 30 solved" in capsys.readouterr().out
    expected = solve_poses(ur5, "tool0", targets, workers=1, seed=4, max_searches=5)
    assert_same(BatchResult.load(out), expected)


def test_batch_command_takes_the_only_array_or_a_named_one(ur5, tmp_path, capsys):
    targets = reachable_targets(ur5, "tool0", 5, seed=10)
    np.savez(tmp_path / "one.npz", poses=targets)
    assert cli.main(["batch", "ur5", "tool0", str(tmp_path / "one.npz"), "-o",
                     str(tmp_path / "a.npz"), "-q"]) == 0  # fmt: skip
    np.savez(tmp_path / "two.npz", poses=targets, q=np.zeros((5, 6)))
    assert cli.main(["batch", "ur5", "tool0", str(tmp_path / "two.npz"), "-o",
                     str(tmp_path / "b.npz"), "--key", "poses", "-q"]) == 0  # fmt: skip
    assert_same(BatchResult.load(tmp_path / "a.npz"), BatchResult.load(tmp_path / "b.npz"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: np.savez(p, poses=np.zeros((2, 4, 4)), q=np.zeros(2)), "has no array 'targets'"),
        (lambda p: p.write_text("not an npz"), "cannot read .* as an .npz file"),
        (lambda p: np.savez(p, targets=np.zeros((2, 3, 3))), r"got shape \(2, 3, 3\)"),
    ],
)
def test_batch_command_names_bad_input(tmp_path, capsys, make, message):
    path = tmp_path / "in.npz"
    make(path)
    code = cli.main(["batch", "ur5", "tool0", str(path), "-o", str(tmp_path / "o.npz"), "-q"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("taskik batch: ")
    assert re.search(message, err), err
    assert not (tmp_path / "o.npz").exists()
