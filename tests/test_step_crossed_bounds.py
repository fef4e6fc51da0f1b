"""The step's crossed-bounds tests (lower > upper) find a crossing at any coordinate, by
any margin down to one ulp: the merged hard boxes of the limits recomputed every step, the
merged soft boxes, and the warm DAQP workspace's box. NaN bounds from a limit are refused
with the limit's name, as before these tests were written as a comparison read as bytes."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik.backends.qp import DaqpWorkspace
from taskik.problem import get_assembler


class _Box(taskik.Limit):
    """A box on every coordinate of v, recomputed every step (not static)."""

    def __init__(self, name: str, lower: np.ndarray, upper: np.ndarray, hard: bool) -> None:
        self.name, self.hard = name, hard
        self.lower, self.upper = np.array(lower, float), np.array(upper, float)

    def compute_box(self, configuration, dt):
        return np.arange(len(self.lower)), self.lower, self.upper


def _crossing(nv: int, k: int, margin: str) -> tuple[np.ndarray, np.ndarray]:
    """A box on ``[-1, 1]`` except coordinate ``k``, whose lower bound is above 1 (by one
    ulp, or by 1): crosses ``[-1, 1]`` at ``k`` alone, non-empty itself."""
    lower, upper = np.full(nv, -1.0), np.full(nv, 1.0)
    lower[k] = np.nextafter(1.0, 2.0) if margin == "ulp" else 2.0
    upper[k] = 3.0
    return lower, upper


def _posture(robot, conf):
    task = taskik.PostureTask()
    task.set_target(robot.q0)
    return [task]


@pytest.mark.parametrize("margin", ["ulp", "one"])
@pytest.mark.parametrize("hard", [True, False], ids=["hard", "soft"])
def test_two_recomputed_boxes_crossed_at_any_coordinate_are_found(ur5, hard, margin):
    """Two boxes of limits recomputed every step that cross at one coordinate, whichever it
    is: build_ik refuses them (hard: ``inconsistent hard bounds``, soft: ``inconsistent
    bounds``) naming that coordinate; assembled with crossings resolved, that coordinate
    alone is set to the bound nearest 0 (1) and the crossing is recorded."""
    nv = ur5.model.nv
    status = "inconsistent hard bounds" if hard else "inconsistent bounds"
    for k in range(nv):
        conf = ur5.configuration()
        tasks = _posture(ur5, conf)
        lower, upper = _crossing(nv, k, margin)
        limits = [
            _Box("wide", np.full(nv, -1.0), np.full(nv, 1.0), hard),
            _Box("high", lower, upper, hard),
        ]
        with pytest.raises(taskik.NoSolutionFound) as info:
            taskik.build_ik(conf, tasks, 0.01, limits=limits)
        assert info.value.status == status
        assert any(f"v[{k}]" in c for c in info.value.conflicts), info.value.conflicts
        asm = get_assembler(conf, tasks, limits)
        _, _, _, _, lb, ub = asm.assemble(conf, 0.01, 0.0, True, True)
        assert asm.resolved and lb is not None and ub is not None
        assert lb[k] == ub[k] == 1.0
        others = np.arange(nv) != k
        assert np.all(lb[others] == -1.0) and np.all(ub[others] == 1.0)


@pytest.mark.parametrize("hard", [True, False], ids=["hard", "soft"])
def test_boxes_that_touch_are_not_crossed(ur5, hard):
    """Bounds equal at a coordinate (lower == upper) are not crossed: the step is built,
    that coordinate pinned to the common value."""
    nv = ur5.model.nv
    conf = ur5.configuration()
    tasks = _posture(ur5, conf)
    lower = np.full(nv, -1.0)
    lower[nv - 1] = 1.0
    limits = [
        _Box("wide", np.full(nv, -1.0), np.full(nv, 1.0), hard),
        _Box("touch", lower, np.full(nv, 3.0), hard),
    ]
    problem = taskik.build_ik(conf, tasks, 0.01, limits=limits)
    assert problem.lb is not None and problem.ub is not None
    assert problem.lb[nv - 1] == problem.ub[nv - 1] == 1.0


@pytest.mark.parametrize("hard", [True, False], ids=["hard", "soft"])
@pytest.mark.parametrize("side", ["lower", "upper"])
def test_nan_bounds_of_a_recomputed_box_are_refused_with_the_limit_named(ur5, hard, side):
    nv = ur5.model.nv
    conf = ur5.configuration()
    lower, upper = np.full(nv, -1.0), np.full(nv, 1.0)
    (lower if side == "lower" else upper)[2] = np.nan
    limits = [
        _Box("wide", np.full(nv, -1.0), np.full(nv, 1.0), hard),
        _Box("nan", lower, upper, hard),
    ]
    with pytest.raises(taskik.InvalidInput, match="limit 'nan' .* gave NaN bounds"):
        taskik.build_ik(conf, _posture(ur5, conf), 0.01, limits=limits)


@pytest.mark.parametrize("margin", ["ulp", "one"])
@pytest.mark.parametrize("bound", [False, True], ids=["free", "bound"])
def test_a_warm_workspace_refuses_a_crossing_at_any_coordinate(bound, margin):
    """DaqpWorkspace.solve, set up and warm (its last answer free or on a bound), given
    bounds crossed at one coordinate, whichever: None (the checked path names the
    conflict), then solves a consistent box again."""
    n = 6
    P, r = np.eye(n), -np.ones(n)
    for k in range(n):
        ws = DaqpWorkspace()
        ws.bound = bound
        x = ws.solve_box(P, r, np.full(n, -1.0), np.full(n, 0.5))
        assert x is not None and np.allclose(x, 0.5)
        lower, upper = _crossing(n, k, margin)
        upper[k] = 1.0  # (the box itself crossed at k: above 1 below, 1 above)
        assert ws.solve(P, r, lower, upper) is None
        assert ws.model is None  # (the next solve sets DAQP up again)
        x = ws.solve(P, r, np.full(n, -1.0), np.full(n, 0.25))
        assert x is not None and np.allclose(x, 0.25, atol=1e-9)
