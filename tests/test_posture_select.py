"""solve_posture(select="nearest"): of the solutions every search finds, the one a motion
within the velocity limits reaches soonest from the start (``max_i |Δq_i| / v_max,i``)."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.posture import SELECTS, solve_posture
from taskik.posture.joint_limits import JointLimits
from taskik.posture.select import time_from


def _planar_2r(vmax: tuple[float, float]) -> pin.Model:
    model = pin.Model(taskik.robots.load("planar_2r").model)  # a copy: its own limits
    model.velocityLimit = np.array(vmax)
    return model


def _elbows(model: pin.Model, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two solutions (elbow one way and the other) of a planar 2R, by solve_posture
    from starts on either side."""
    out = []
    for q0 in (np.array([0.0, 1.0]), np.array([0.0, -1.0])):
        task = taskik.PositionTask("ee")
        task.set_target(target)
        r = solve_posture(model, [task], q0=q0, tol=1e-14, max_searches=1)
        assert r.success
        out.append(r.q)
    assert abs(out[0][1] + out[1][1]) < 1e-6 and abs(out[0][1]) > 0.5  # mirror elbows
    return out[0], out[1]


def _hand_time(model: pin.Model, q_start: np.ndarray, q: np.ndarray) -> float:
    return float(np.max(np.abs(pin.difference(model, q_start, q)) / model.velocityLimit))


@pytest.mark.parametrize("fast_joint", [0, 1])
def test_the_velocity_limits_decide_which_elbow_is_nearest(fast_joint):
    """From a start near one elbow's shoulder angle but nearer the other's elbow angle: with
    the shoulder slow the first solution is soonest reached, with the elbow slow the
    other. Dividing by v_max (not multiplying, not ignoring it) is what picks the right one."""
    target = np.array([1.2, 0.6, 0.0])
    up, down = _elbows(_planar_2r((10.0, 10.0)), target)
    q_start = np.array([down[0], 0.3 * up[1]])  # shoulder as `down`, elbow nearer `up`
    vmax = (1.0, 100.0) if fast_joint == 1 else (100.0, 1.0)
    model = _planar_2r(vmax)
    task = taskik.PositionTask("ee")
    task.set_target(target)
    conf = taskik.Configuration(model, q_start)
    r = solve_posture(conf, [task], tol=1e-14, select="nearest", max_searches=30, rng=0)
    assert r.success and r.searches == 30
    expected = min((up, down), key=lambda q: _hand_time(model, q_start, q))
    assert (expected is down) == (fast_joint == 1)  # the set-up separates the two cases
    assert np.allclose(r.q, expected, atol=1e-6)
    assert "nearest of" in r.reason and f"{_hand_time(model, q_start, r.q):.3g} s" in r.reason


def test_nearest_is_never_farther_than_first_from_the_same_start():
    """The first search and the restarts are the same for both (same seed): the first
    solution is one of the candidates, so the nearest is at least as near (UR5, 8 targets)."""
    robot = taskik.robots.load("ur5")
    rng = np.random.default_rng(7)
    for i in range(8):
        conf = robot.configuration(robot.random_configuration(rng))
        hand = taskik.FrameTask("tool0")
        hand.set_target_from_configuration(robot.configuration(robot.random_configuration(rng)))
        first = solve_posture(conf, [hand], tol=1e-12, rng=i)
        near = solve_posture(conf, [hand], tol=1e-12, rng=i, select="nearest", max_searches=20)
        assert first.success and near.success
        assert np.linalg.norm(hand.compute_error(robot.configuration(near.q))) < 2e-6
        t_first = _hand_time(robot.model, conf.q, first.q)
        t_near = _hand_time(robot.model, conf.q, near.q)
        assert t_near <= t_first + 1e-12


def test_revolute_angles_come_back_at_the_representative_nearest_the_start():
    """UR5 joints range over ±2π: a start at +5.5 rad on the shoulder pan gets its solution
    within π of 5.5, not wrapped into (−π, π]."""
    robot = taskik.robots.load("ur5")
    q_start = robot.q0.copy()
    q_start[0] = 5.5
    conf = robot.configuration(q_start)
    hand = taskik.FrameTask("tool0")
    target = conf.get_transform_frame_to_world("tool0")
    target.translation += np.array([0.05, -0.05, 0.05])
    hand.set_target(target)
    r = solve_posture(conf, [hand], tol=1e-12, rng=0, select="nearest", max_searches=10)
    assert r.success
    assert abs(r.q[0] - 5.5) <= math.pi
    assert _hand_time(robot.model, q_start, r.q) < 0.1  # a 7 cm move


def test_nearest_with_priority_levels_and_a_time_budget():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    hand = taskik.FrameTask("tool0")
    hand.set_target_from_configuration(
        robot.configuration(robot.random_configuration(np.random.default_rng(1)))
    )
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    r = solve_posture(conf, [[hand], [posture]], select="nearest", max_searches=6, rng=0)
    assert r.success and r.searches == 6
    # The budget, not max_searches, ends the call: 0.5 s is long enough for the first search on
    # a loaded machine and far too short for 100,000 of them (about 100 µs each at best).
    budget = solve_posture(
        conf, [hand], select="nearest", max_searches=100_000, time_budget=0.5, rng=0
    )
    assert budget.success and budget.searches < 100_000


def test_nearest_out_of_reach_reports_failure_like_first():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    hand = taskik.PositionTask("tool0")
    hand.set_target([5.0, 0.0, 0.0])
    r = solve_posture(conf, [hand], select="nearest", max_searches=3, rng=0)
    assert not r.success and r.reason.startswith("no solution after 3 search(es)")


def test_select_is_checked_and_nearest_needs_a_start():
    robot = taskik.robots.load("ur5")
    hand = taskik.FrameTask("tool0")
    hand.set_target_from_configuration(robot.configuration())
    assert SELECTS == ("first", "nearest")
    with pytest.raises(taskik.InvalidInput, match="select must be one of first, nearest"):
        solve_posture(robot.configuration(), [hand], select="closest")
    with pytest.raises(taskik.InvalidInput, match="give a Configuration or q0"):
        solve_posture(robot.model, [hand], select="nearest")
    r = solve_posture(robot.model, [hand], select="nearest", q0=robot.q0, max_searches=2)
    assert r.success


# ----------------------------------------------------------------- the pieces
def test_time_from_divides_by_the_velocity_limits_and_skips_unlimited_joints():
    model = _planar_2r((2.0, 0.5))
    limits = JointLimits(model)
    q_start = np.array([0.1, -0.2])
    assert time_from(model, limits, q_start)(q_start + [1.0, 1.0]) == pytest.approx(2.0)
    assert time_from(model, limits, q_start)(q_start + [3.0, 0.0]) == pytest.approx(1.5)
    model.velocityLimit = np.array([np.inf, 0.5])  # joint 1 unlimited: not counted
    assert time_from(model, limits, q_start)(q_start + [3.0, 0.25]) == pytest.approx(0.5)
    model.velocityLimit = np.array([np.inf, np.inf])  # none limited: |Δq| in rad
    assert time_from(model, limits, q_start)(q_start + [0.3, -0.7]) == pytest.approx(0.7)


def test_nearest_to_moves_angles_by_whole_turns_within_their_ranges():
    model = pin.Model(taskik.robots.load("ur5").model)  # six revolute joints, ±2π
    model.lowerPositionLimit[1] = -1.0
    model.upperPositionLimit[1] = 1.0
    limits = JointLimits(model)
    q = np.array([-3.0, 0.5, 6.0, 0.0, 1.0, -6.0])
    ref = np.array([3.0, 0.5 + 2 * math.pi, 0.1, 0.0, 1.0 - 2 * math.pi, 6.0])
    limits.nearest_to(q, ref)
    two_pi = 2 * math.pi
    expected = [-3.0 + two_pi, 0.5, 6.0 - two_pi, 0.0, 1.0 - two_pi, -6.0 + two_pi]
    assert np.allclose(q, expected)
    # joint 1's range [−1, 1] holds no other representative; joint 5: −6 + 4π is out of range
