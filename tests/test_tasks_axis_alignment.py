"""AxisAlignmentTask and LookAtTask: a frame axis along a world direction / at a point."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from task_checks import ROBOTS, assert_jacobian_matches, closed_loop, configurations

from taskik import FrameTask, InvalidInput, PostureTask, TargetNotSet
from taskik.tasks import AxisAlignmentTask, LookAtTask


@pytest.mark.parametrize("name", ROBOTS)
def test_jacobians_match_finite_differences(name, rng):
    frame = ROBOTS[name][0]
    for conf in configurations(name, rng, 2):
        align = AxisAlignmentTask(frame, axis=[1.0, 0.2, 0.0], direction=[0.0, 0.3, 1.0])
        look = LookAtTask(frame, axis=[0.0, 1.0, 0.0], target=[1.0, 0.5, 0.3])
        assert_jacobian_matches(align, conf, rng)
        assert_jacobian_matches(look, conf, rng)


def test_alignment_error_is_direction_minus_axis(ur5):
    conf = ur5.configuration()
    R = conf.get_transform_frame_to_world("tool0").rotation
    task = AxisAlignmentTask("tool0", axis=[0.0, 0.0, 2.0], direction=[0.0, 0.0, 5.0])
    assert np.allclose(task.compute_error(conf), [0.0, 0.0, 1.0] - R[:, 2])
    task.set_target_from_configuration(conf)
    assert np.allclose(task.compute_error(conf), 0.0)


def test_look_at_error_is_line_of_sight_minus_axis(ur5):
    conf = ur5.configuration()
    T = conf.get_transform_frame_to_world("tool0")
    target = T.translation + np.array([0.3, 0.0, 0.4])
    task = LookAtTask("tool0", axis=[1.0, 0.0, 0.0], target=target)
    assert np.allclose(task.compute_error(conf), [0.6, 0.0, 0.8] - T.rotation[:, 0])
    task.set_target_from_configuration(conf)  # 1 m along the axis
    assert np.allclose(task.target, T.translation + T.rotation[:, 0])
    assert np.allclose(task.compute_error(conf), 0.0)


def angle(a, b):
    return float(np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1, 1)))


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_aligns_the_tool_axis(panda, levels):
    conf = panda.configuration()
    direction = np.array([0.3, -0.2, -1.0])
    task = AxisAlignmentTask("panda_hand", direction=direction)
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    assert angle(conf.get_transform_frame_to_world("panda_hand").rotation[:, 2], direction) > 0.3
    closed_loop(conf, [[task], [posture]] if levels else [task, posture], 40)
    z = conf.get_transform_frame_to_world("panda_hand").rotation[:, 2]
    assert angle(z, direction) < 1e-3


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_looks_at_a_point_while_the_hand_stays(panda, levels):
    conf = panda.configuration()
    hand = FrameTask("panda_hand", position_cost=1.0, orientation_cost=0.0)
    hand.set_target_from_configuration(conf)
    point = np.array([0.8, 0.4, 0.0])
    look = LookAtTask("panda_hand", axis=[0.0, 0.0, 1.0], target=point)
    tasks = [[hand], [look]] if levels else [hand, look]
    closed_loop(conf, tasks, 40)
    T = conf.get_transform_frame_to_world("panda_hand")
    assert angle(T.rotation[:, 2], point - T.translation) < 1e-3
    assert np.linalg.norm(T.translation - hand.target.translation) < 1e-3


def test_bad_input_is_named(ur5):
    with pytest.raises(InvalidInput, match="axis must be a non-zero 3-vector"):
        AxisAlignmentTask("tool0", axis=[0.0, 0.0, 0.0])
    with pytest.raises(InvalidInput, match=r"direction must have shape \(3,\)"):
        AxisAlignmentTask("tool0", direction=[1.0, 0.0])
    with pytest.raises(InvalidInput, match="target contains NaN"):
        LookAtTask("tool0", target=[np.nan, 0.0, 0.0])
    with pytest.raises(TargetNotSet, match="LookAtTask has no target"):
        LookAtTask("tool0").compute_error(ur5.configuration())
    conf = ur5.configuration()
    on_eye = LookAtTask("tool0", target=conf.get_transform_frame_to_world("tool0").translation)
    with pytest.raises(InvalidInput, match="at the origin of frame 'tool0'"):
        on_eye.compute_error(conf)


vectors = st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3).filter(
    lambda x: np.linalg.norm(x) > 0.1
)


@settings(max_examples=40, deadline=None)
@given(axis=vectors, direction=vectors, point=vectors, seed=st.integers(0, 2**16))
def test_any_axis_direction_and_point_have_exact_jacobians(axis, direction, point, seed):
    rng = np.random.default_rng(seed)
    conf = configurations("panda", rng, 1)[0]
    hand = conf.get_transform_frame_to_world("panda_hand").translation
    assert_jacobian_matches(AxisAlignmentTask("panda_hand", axis, direction), conf, rng, trials=1)
    look = LookAtTask("panda_hand", axis, hand + 0.5 * np.asarray(point))  # 5 cm to 0.9 m away
    assert_jacobian_matches(look, conf, rng, trials=1)
