"""A model whose joint limits are edited in place is read again: what taskik keeps between
calls follows the model's values, not the model object."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.exceptions import NotWithinConfigurationLimits


@pytest.fixture
def ur5_model():
    return taskik.robots.load("ur5").model.copy()  # (this test edits it)


def test_check_limits_sees_a_range_narrowed_after_a_first_check(ur5_model):
    configuration = taskik.Configuration(ur5_model, np.full(6, 0.5))
    configuration.check_limits()  # within the ranges as loaded
    ur5_model.upperPositionLimit[0] = 0.2
    with pytest.raises(NotWithinConfigurationLimits, match="shoulder_pan_joint"):
        configuration.check_limits()
    ur5_model.upperPositionLimit[0] = 1.0  # widened again: within once more
    configuration.check_limits()


def test_solve_posture_honours_a_range_narrowed_after_a_first_solve(ur5_model):
    frame = ur5_model.frames[-1].name
    data = ur5_model.createData()
    pin.framesForwardKinematics(ur5_model, data, np.array([0.5, -1.0, 1.2, -0.3, 0.8, 0.2]))
    task = taskik.FrameTask(frame, position_cost=1.0, orientation_cost=1.0)
    task.set_target(data.oMf[ur5_model.getFrameId(frame)].copy())
    first = taskik.solve_posture(ur5_model, [task], rng=0)
    assert first.success
    pan = first.q[0]
    # the first answer's shoulder angle is now out of range
    ur5_model.lowerPositionLimit[0] = pan + 0.5 if pan < 0 else -6.0
    ur5_model.upperPositionLimit[0] = 6.0 if pan < 0 else pan - 0.5
    again = taskik.solve_posture(ur5_model, [task], rng=0)
    low, high = ur5_model.lowerPositionLimit[0], ur5_model.upperPositionLimit[0]
    assert low - 1e-9 <= again.q[0] <= high + 1e-9
    assert abs(again.q[0] - pan) >= 0.5 - 1e-9


def test_a_posture_task_covers_a_joint_added_to_the_model_after_a_first_use(ur5_model):
    first = taskik.PostureTask(cost=1.0)
    first.set_target(np.zeros(ur5_model.nq))
    assert first.compute_jacobian(taskik.Configuration(ur5_model, np.zeros(6))).shape == (6, 6)
    ur5_model.addJoint(ur5_model.njoints - 1, pin.JointModelRZ(), pin.SE3.Identity(), "extra")
    configuration = taskik.Configuration(ur5_model, np.zeros(7))
    task = taskik.PostureTask(cost=1.0)
    task.set_target(np.full(7, 0.1))
    assert task.compute_jacobian(configuration).shape == (7, 7)
    assert task.compute_error(configuration) == pytest.approx(np.full(7, 0.1))  # (q* ⊖ q)


@pytest.mark.parametrize("way", ["set_target", "target attribute", "with configuration"])
def test_the_same_posture_task_follows_a_joint_added_once_given_a_target_of_the_new_size(
    ur5_model, way
):
    task = taskik.PostureTask(cost=1.0)
    task.set_target(np.zeros(6))
    assert task.compute_jacobian(taskik.Configuration(ur5_model, np.zeros(6))).shape == (6, 6)
    ur5_model.addJoint(ur5_model.njoints - 1, pin.JointModelRZ(), pin.SE3.Identity(), "extra")
    configuration = taskik.Configuration(ur5_model, np.zeros(7))
    with pytest.raises(taskik.exceptions.InvalidInput, match="nq = 7"):
        task.compute_jacobian(configuration)  # the old target: said, not padded
    target = np.full(7, 0.1)
    if way == "set_target":
        task.set_target(target)
    elif way == "target attribute":
        task.target = target
    else:
        task.set_target(target, configuration)
    assert task.compute_jacobian(configuration).shape == (7, 7)
    assert task.compute_error(configuration) == pytest.approx(target)
