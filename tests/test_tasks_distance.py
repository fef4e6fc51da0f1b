"""DistanceTask: the distance between two frame origins."""

import numpy as np
import pytest
from task_checks import ROBOTS, assert_jacobian_matches, closed_loop, configurations

from taskik import InvalidInput, PostureTask, TargetNotSet
from taskik.tasks import DistanceTask


@pytest.mark.parametrize("name", ROBOTS)
def test_jacobian_matches_finite_differences(name, rng):
    frame, other = ROBOTS[name]
    for conf in configurations(name, rng, 3):
        assert_jacobian_matches(DistanceTask(frame, other, 0.3), conf, rng)


def test_error_is_target_minus_distance(ur5):
    conf = ur5.configuration()
    p = conf.get_transform_frame_to_world("tool0").translation
    q = conf.get_transform_frame_to_world("shoulder_lift_joint").translation
    task = DistanceTask("tool0", "shoulder_lift_joint", 0.2)
    assert task.compute_error(conf) == pytest.approx([0.2 - np.linalg.norm(p - q)])
    task.set_target_from_configuration(conf)
    assert task.target == pytest.approx(np.linalg.norm(p - q))
    assert task.compute_error(conf) == pytest.approx([0.0])


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_reaches_the_distance(panda, levels):
    conf = panda.configuration()
    task = DistanceTask("panda_hand", "panda_link3", 0.35)
    assert abs(task.distance(conf) - 0.35) > 0.05
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    closed_loop(conf, [[task], [posture]] if levels else [task, posture], 30)
    assert task.distance(conf) == pytest.approx(0.35, abs=1e-5)


def test_bad_input_is_named(ur5):
    with pytest.raises(InvalidInput, match="two different frames"):
        DistanceTask("tool0", "tool0")
    with pytest.raises(InvalidInput, match="distance must be finite and >= 0"):
        DistanceTask("tool0", "shoulder_lift_joint", -0.1)
    with pytest.raises(TargetNotSet, match="DistanceTask has no target"):
        DistanceTask("tool0", "shoulder_lift_joint").compute_error(ur5.configuration())
    # the shoulder_pan_joint frame sits at the world origin on the bundled UR5
    with pytest.raises(InvalidInput, match="at the same point"):
        DistanceTask("shoulder_pan_joint", "universe", 0.1).compute_error(ur5.configuration())
