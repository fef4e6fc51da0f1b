"""solve_posture refuses a target so far away that its squared error overflows a float
(before: numpy's overflow warnings from the search loops and ``success=False`` with
``E = inf``); a far target that stays representable is searched without a warning."""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.posture.solve import MAX_TARGET


def far_pose(x: float) -> pin.SE3:
    return pin.SE3(np.eye(3), np.array([x, 0.0, 0.0]))


def frame(x: float) -> taskik.FrameTask:
    task = taskik.FrameTask("tool0")
    task.set_target(far_pose(x))
    return task


def posture(ur5) -> taskik.PostureTask:
    task = taskik.PostureTask(0.01)
    task.set_target(ur5.q0)
    return task


def far_position() -> taskik.PositionTask:
    position = taskik.PositionTask("tool0")
    position.set_target([0.0, -1e300, 0.0])  # (refused here: a point target, as a pose's)
    return position


def calls(ur5):
    """Each case builds its tasks when called (a frame or point target beyond the bound is
    refused when set, by the same words as solve_posture's check of the other targets)."""
    conf = ur5.configuration(ur5.q0)
    com = taskik.ComTask()
    com.set_target([0.0, 0.0, 1e200])
    huge_q = ur5.q0.copy()
    huge_q[0] = 1e300
    far_posture = taskik.PostureTask(1.0)
    far_posture.set_target(huge_q)
    return {
        "one frame task (the fast loop)": lambda: taskik.solve_posture(conf, [frame(1e300)]),
        "from a model": lambda: taskik.solve_posture(ur5.model, [frame(-1e300)], rng=0),
        "world error": lambda: taskik.solve_posture(conf, frame(1e300), pose_error="world"),
        "qp": lambda: taskik.solve_posture(conf, [frame(1e300)], method="qp"),
        "with a posture": lambda: taskik.solve_posture(conf, [frame(1e300), posture(ur5)]),
        "levels": lambda: taskik.solve_posture(conf, [[frame(1e300)], [posture(ur5)]]),
        "position": lambda: taskik.solve_posture(conf, [far_position()]),
        "com": lambda: taskik.solve_posture(conf, [com]),
        "a regularization": lambda: taskik.solve_posture(
            conf, [frame(0.3)], regularization=[far_posture]
        ),
    }


CASES = [
    "one frame task (the fast loop)",
    "from a model",
    "world error",
    "qp",
    "with a posture",
    "levels",
    "position",
    "com",
    "a regularization",
]


@pytest.mark.parametrize("case", CASES)
def test_a_target_whose_squared_error_overflows_is_refused_without_a_warning(ur5, case):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning fails the test
        with pytest.raises(taskik.InvalidInput, match=r"target has an entry of .*overflows"):
            calls(ur5)[case]()


def test_a_far_target_within_range_is_searched_without_a_warning(ur5):
    """At 1e100 m (and at the bound itself) E is finite: the search runs, fails honestly
    with a finite E, and numpy says nothing."""
    conf = ur5.configuration(ur5.q0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in (1e100, MAX_TARGET):
            result = taskik.solve_posture(conf, [frame(x)], max_searches=2)
            assert not result.success and np.isfinite(result.error)
            assert result.error > 0.25 * x**2  # ½ ‖e‖², e ≈ the distance to the target
