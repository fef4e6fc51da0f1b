"""Priority levels in a closed loop that comes to rest (taskik.trust_region): solved again at
the same q it stays at rest, a limit that v = 0 would break wakes it, and a new task list of
the same structure steps toward its own targets."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from test_trust_region import panda_hands_apart_at_a_joint_limit

import taskik

DT = 0.01


class MovableBox(taskik.Limit):
    """A limit of one's own on joint 0 that the test sets: ``v_0 ≥ lower``, ``v_0 ≤ upper``
    (a box) or ``v_0 ≤ row`` (an inequality row); None: nothing."""

    name = "movable"

    def __init__(self):
        self.kind, self.value = None, 0.0

    def compute_box(self, configuration, dt):
        if self.kind == "lower":
            return np.array([0]), np.array([self.value]), np.array([np.inf])
        if self.kind == "upper":
            return np.array([0]), np.array([-np.inf]), np.array([self.value])
        return None

    def compute_inequalities(self, configuration, dt):
        if self.kind == "row":
            G = np.zeros((1, configuration.nv))
            G[0, 0] = 1.0
            return G, np.array([self.value])
        return None


def resting_loop(panda, limit):
    """The B5 Panda episode of test_trust_region (hand A blocked by a joint limit, hand B
    0.2 m away on the level below, a posture last) with ``limit`` too, run until it rests."""
    conf, levels = panda_hands_apart_at_a_joint_limit(panda)
    limits = [taskik.ConfigurationLimit(panda.model), taskik.VelocityLimit(panda.model), limit]
    for _ in range(1000):
        v = taskik.solve_ik(conf, levels, DT, limits=limits)
        conf.integrate_inplace(v, DT)
    assert not v.any()  # at rest
    return conf, levels, limits


def test_levels_solved_again_at_the_same_q_stay_at_rest(panda):
    conf, levels, limits = resting_loop(panda, MovableBox())
    for _ in range(3):
        assert not taskik.solve_ik(conf, levels, DT, limits=limits).any()


@pytest.mark.parametrize(
    ("kind", "value"), [("lower", 0.05), ("upper", -0.05), ("row", -0.05), ("lower", -1.0)]
)
def test_a_limit_that_excludes_zero_wakes_levels_at_rest(panda, kind, value):
    """At rest, joint 0 is then asked to move (v_0 >= 0.05, v_0 <= -0.05 by the box or by a
    row G v <= h): v = 0 would break the limit, so the levels are solved again and the limit
    holds. A limit changed in any way ends the rest, even to a box that contains 0 (it may
    free what held the loop): the step after it is the plain one."""
    limit = MovableBox()
    conf, levels, limits = resting_loop(panda, limit)
    limit.kind, limit.value = kind, value
    v = taskik.solve_ik(conf, levels, DT, limits=limits)
    if value < -0.5:
        assert v.any() and v[0] >= value - 1e-12
        plain = taskik.solve_ik(conf, levels, DT, limits=limits, adaptive=False)
        assert np.abs(v - plain).max() < 1e-9
    elif kind == "lower":
        assert v[0] >= value - 1e-12
    else:
        assert v[0] <= value + 1e-9


def test_a_new_level_list_of_the_same_structure_steps_toward_its_own_target(panda):
    """The plan of [[FrameTask(hand)]] is reused by a list built anew with another target:
    the step heads for the new target, as a first step on a fresh configuration does."""
    conf = panda.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    steps = []
    for dz in (0.05, -0.05):
        task = taskik.FrameTask("panda_hand", 1.0, 1.0)
        task.set_target(pin.SE3(hand.rotation, hand.translation + np.array([0.0, 0.0, dz])))
        v = taskik.solve_ik(conf, [[task]], DT, limits=[])
        fresh = taskik.solve_ik(panda.configuration(), [[task]], DT, limits=[])
        np.testing.assert_allclose(v, fresh, atol=1e-12)
        steps.append(v)
    assert not np.allclose(steps[0], steps[1])


@pytest.mark.parametrize(
    ("options", "named"),
    [({"solver": "nosuch"}, "'nosuch' is not available"), ({"bogus": 1}, r"options \['bogus'\]")],
)
def test_a_cascade_without_limits_still_checks_its_solver_and_options(ur5, options, named):
    """method='cascade' solves every level as a QP even with limits=[]: a solver that does
    not exist, or an option the solver does not take, is refused as for any QP step."""
    conf = ur5.configuration()
    tool = taskik.PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + 0.01)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(ur5.q0)
    with pytest.raises(taskik.InvalidInput, match=named):
        taskik.solve_ik(conf, [[tool], [posture]], DT, limits=[], method="cascade", **options)


def test_a_cascade_whose_top_level_is_met_exactly_leaves_the_lower_levels_free(ur5):
    """The tool point already at its target (error exactly 0): the top level's QP has
    nothing to do and no bound is active, so none becomes an equality for the posture level,
    which moves in the point's null space exactly as without the cascade."""
    conf = ur5.configuration()
    tool = taskik.PositionTask("tool0")
    tool.set_target_from_configuration(conf)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(ur5.q0 + 0.1)
    levels = [[tool], [posture]]
    v = taskik.solve_ik(conf, levels, DT, method="cascade")
    assert np.linalg.norm(v) > 1.0  # the posture level moves (3 free directions)
    np.testing.assert_allclose(v, taskik.solve_ik(conf, levels, DT), atol=1e-9)
    assert np.abs(tool.compute_jacobian(conf) @ v).max() < 1e-9
