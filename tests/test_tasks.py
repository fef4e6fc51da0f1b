"""Tasks: every Jacobian against finite differences, error signs, costs, bad input."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import (
    ComTask,
    DampingTask,
    FrameTask,
    InvalidInput,
    OrientationTask,
    PositionTask,
    PostureTask,
    RelativeFrameTask,
    TargetNotSet,
    UnknownName,
)

FRAMES = {
    "ur5": ("tool0", "shoulder_lift_joint"),
    "panda": ("panda_hand", "panda_link8"),
    "humanoid": ("larm_effector_body", "rleg_effector_body"),
}


def make_tasks(robot):
    frame, other = FRAMES[robot.name]
    return [
        FrameTask(frame, position_cost=1.0, orientation_cost=0.5),
        PositionTask(frame, cost=1.0),
        PositionTask(frame, cost=[1.0, 2.0, 3.0], offset=[0.05, -0.02, 0.1]),
        OrientationTask(frame, cost=1.0),
        RelativeFrameTask(frame, other),
        ComTask(cost=1.0),
        PostureTask(cost=0.1),
    ]  # DampingTask's value is v itself, not a function of q: see its own test


def task_value(task, conf):
    """The task value x(q) whose rate J v must be: recovered as x* ⊖ e."""
    return -task.compute_error(conf)


@pytest.mark.parametrize("robot_name", ["ur5", "panda", "humanoid"])
def test_every_task_jacobian_matches_finite_differences(robot_name, rng):
    robot = taskik.robots.load(robot_name)
    model = robot.model
    for trial in range(3):
        q = robot.random_configuration(rng)
        conf = robot.configuration(q)
        q_target = pin.integrate(model, q, 0.2 * rng.standard_normal(model.nv))
        target_conf = robot.configuration(q_target)
        for task in make_tasks(robot):
            task.set_target_from_configuration(target_conf)
            J = task.compute_jacobian(conf)
            v = rng.standard_normal(model.nv)
            eps = 1e-6
            plus = robot.configuration(pin.integrate(model, q, eps * v))
            minus = robot.configuration(pin.integrate(model, q, -eps * v))
            # e = x* ⊖ x(q): its rate is −J v
            fd = -(task.compute_error(plus) - task.compute_error(minus)) / (2 * eps)
            assert np.allclose(J @ v, fd, atol=1e-5), (robot_name, trial, task)


def test_frame_task_error_is_zero_on_target_and_points_toward_it(ur5):
    conf = ur5.configuration()
    task = FrameTask("tool0")
    task.set_target_from_configuration(conf)
    assert np.allclose(task.compute_error(conf), 0.0)
    target = task.target.copy()
    target.translation = target.translation + np.array([0.0, 0.0, 0.05])
    task.set_target(target)
    e = task.compute_error(conf)
    # target 5 cm above in the world: the error's linear part, in the target frame, is R*ᵀ·Δp
    assert np.allclose(e[:3], target.rotation.T @ np.array([0.0, 0.0, 0.05]), atol=1e-12)
    assert np.allclose(e[3:], 0.0)


def test_position_task_error_is_target_minus_point(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0", offset=[0.0, 0.0, 0.1])
    p = conf.get_transform_frame_to_world("tool0").act(np.array([0.0, 0.0, 0.1]))
    task.set_target(p + np.array([0.01, -0.02, 0.03]))
    assert np.allclose(task.compute_error(conf), [0.01, -0.02, 0.03])


def test_orientation_task_error_is_the_rotation_to_the_target(ur5):
    conf = ur5.configuration()
    task = OrientationTask("tool0")
    R = conf.get_transform_frame_to_world("tool0").rotation
    task.set_target(R @ pin.exp3(np.array([0.0, 0.0, 0.3])))
    assert np.allclose(task.compute_error(conf), [0.0, 0.0, 0.3])


def test_com_task_error(humanoid):
    conf = humanoid.configuration()
    task = ComTask()
    task.set_target(conf.com + np.array([0.1, 0.0, 0.0]))
    assert np.allclose(task.compute_error(conf), [0.1, 0.0, 0.0])


def test_posture_task_excludes_floating_base(humanoid):
    conf = humanoid.configuration()
    task = PostureTask()
    task.set_target_from_configuration(conf)
    J = task.compute_jacobian(conf)
    assert J.shape == (humanoid.model.nv - 6, humanoid.model.nv)
    assert np.allclose(J[:, :6], 0.0)


def test_posture_task_error_on_an_arm(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    target = ur5.q0 + 0.1
    task.set_target(target)
    assert np.allclose(task.compute_error(conf), 0.1)


def test_posture_cost_vector_is_checked_against_the_model(humanoid):
    conf = humanoid.configuration()
    task = PostureTask(cost=np.ones(5))
    task.set_target_from_configuration(conf)
    with pytest.raises(InvalidInput, match=r"shape \(28,\)"):
        task.compute_error(conf)


def test_damping_task_term_is_cost_times_identity(ur5):
    conf = ur5.configuration()
    A, c, mu = DampingTask(cost=0.3).compute_term(conf, 0.01)
    assert np.allclose(A, 0.3 * np.eye(6)) and np.allclose(c, 0.0) and mu == 0.0


def test_term_weights_gain_and_dt(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0", cost=[1.0, 2.0, 3.0], gain=0.5)
    p = conf.get_transform_frame_to_world("tool0").translation
    task.set_target(p + np.array([0.01, 0.01, 0.01]))
    A, c, _ = task.compute_term(conf, dt=0.1)
    assert np.allclose(A, np.diag([1.0, 2.0, 3.0]) @ task.compute_jacobian(conf))
    assert np.allclose(c, np.array([1.0, 2.0, 3.0]) * 0.5 * 0.01 / 0.1)


def test_lm_damping_is_lambda_times_weighted_error_squared(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0", cost=2.0, lm_damping=0.7)
    p = conf.get_transform_frame_to_world("tool0").translation
    task.set_target(p + np.array([0.03, 0.0, 0.04]))
    _, _, mu = task.compute_term(conf, 0.01)
    assert mu == pytest.approx(0.7 * (2.0 * 0.05) ** 2)


def test_cost_is_read_only(ur5):
    task = FrameTask("tool0")
    with pytest.raises(ValueError):
        task.cost[0] = 3.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"cost": -1.0}, ">= 0"),
        ({"cost": [1.0, 1.0]}, r"shape \(3,\)"),
        ({"cost": np.nan}, "NaN"),
        ({"gain": 0.0}, r"gain must be in \(0, 1\]"),
        ({"gain": 1.5}, r"gain must be in \(0, 1\]"),
        ({"lm_damping": -1.0}, "lm_damping"),
    ],
)
def test_bad_parameters_are_rejected(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        PositionTask("tool0", **kwargs)


def test_frame_task_costs_are_checked():
    with pytest.raises(InvalidInput, match="orientation_cost must be >= 0"):
        FrameTask("tool0", orientation_cost=-1.0)


def test_unknown_frame_lists_close_matches(ur5):
    task = FrameTask("tool_0")
    task.set_target(np.eye(4))
    with pytest.raises(UnknownName, match="did you mean 'tool0'"):
        task.compute_error(ur5.configuration())


def test_evaluating_without_target_says_so(ur5):
    with pytest.raises(TargetNotSet, match="set_target"):
        FrameTask("tool0").compute_error(ur5.configuration())


@pytest.mark.parametrize(
    "target, message",
    [
        (np.full((4, 4), np.nan), "NaN"),
        (np.eye(3), r"shape \(4, 4\)"),
        (np.diag([1.0, 1.0, -1.0, 1.0]), "not a rotation"),
    ],
)
def test_bad_pose_targets_are_rejected(target, message):
    with pytest.raises(InvalidInput, match=message):
        FrameTask("tool0").set_target(target)


def test_bad_point_targets_are_rejected():
    with pytest.raises(InvalidInput, match="NaN"):
        PositionTask("tool0").set_target([0.0, np.inf, 0.0])
    with pytest.raises(InvalidInput, match="NaN"):
        ComTask().set_target([np.nan, 0.0, 0.0])
    with pytest.raises(InvalidInput, match="rotation"):
        OrientationTask("tool0").set_target(2 * np.eye(3))


def test_bad_posture_target_is_rejected(ur5):
    with pytest.raises(InvalidInput, match="NaN"):
        PostureTask().set_target(np.full(6, np.nan))
    with pytest.raises(taskik.InvalidConfiguration, match="shape"):
        PostureTask().set_target(np.zeros(3), ur5.configuration())
