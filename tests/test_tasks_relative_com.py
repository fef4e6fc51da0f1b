"""RelativeComTask: the centre of mass in a frame of the robot."""

import numpy as np
import pytest
from task_checks import ROBOTS, assert_jacobian_matches, closed_loop, configurations

from taskik import FrameTask, InvalidInput, PostureTask, TargetNotSet, UnknownName
from taskik.tasks import RelativeComTask


@pytest.mark.parametrize("name", ROBOTS)
def test_jacobian_matches_finite_differences(name, rng):
    frame, other = ROBOTS[name]
    for conf in configurations(name, rng, 2):
        for f in (frame, other):
            task = RelativeComTask(f)
            task.set_target([0.1, -0.2, 0.3])
            assert_jacobian_matches(task, conf, rng)


def test_error_is_target_minus_com_in_frame_coordinates(humanoid):
    conf = humanoid.configuration()
    T = conf.get_transform_frame_to_world("lleg_effector_body")
    task = RelativeComTask("lleg_effector_body")
    task.set_target([0.0, 0.1, 0.5])
    c_f = T.rotation.T @ (conf.com - T.translation)
    assert np.allclose(task.compute_error(conf), [0.0, 0.1, 0.5] - c_f)
    task.set_target_from_configuration(conf)
    assert np.allclose(task.compute_error(conf), 0.0)


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_puts_the_com_over_the_left_foot(humanoid, levels):
    conf = humanoid.configuration()
    feet = [FrameTask(f, 1.0, 1.0) for f in ("lleg_effector_body", "rleg_effector_body")]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    com = RelativeComTask("lleg_effector_body", cost=[1.0, 1.0, 0.0])
    com.set_target([0.0, 0.0, 0.0])  # over the sole's origin, height free
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    tasks = [feet, [com], [posture]] if levels else [*feet, com, posture]
    assert np.linalg.norm(com.com_in_frame(conf)[:2]) > 0.05
    closed_loop(conf, tasks, 40)
    assert np.linalg.norm(com.com_in_frame(conf)[:2]) < 1e-4
    foot = conf.get_transform_frame_to_world("rleg_effector_body")
    assert np.linalg.norm(foot.translation - feet[1].target.translation) < 1e-3


def test_bad_input_is_named(ur5):
    with pytest.raises(InvalidInput, match=r"target must have shape \(3,\)"):
        RelativeComTask("tool0").set_target([1.0, 2.0])
    with pytest.raises(TargetNotSet, match="RelativeComTask has no target"):
        RelativeComTask("tool0").compute_error(ur5.configuration())
    task = RelativeComTask("tol0")
    task.set_target([0.0, 0.0, 0.0])
    with pytest.raises(UnknownName, match="did you mean 'tool0'"):
        task.compute_error(ur5.configuration())
