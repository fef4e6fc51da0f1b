"""A mobile manipulator: the bundled UR5 on a planar base (a ``JointModelPlanar`` root joint:
x, y in m, yaw in rad; q stores x, y, cos θ, sin θ) works end to end: configuration,
integration, tasks and their Jacobians, the posture task (which leaves the base alone),
limits (the base's own velocity caps) and solve_ik."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.configuration import base_velocity_count, custom_configuration_vector
from taskik.tasks.posture import actuated_velocity_indices

BASE_CAPS = np.array([0.5, 0.4, 1.0])  # vx, vy (m/s), yaw rate (rad/s)
DT = 0.01


@pytest.fixture(scope="module")
def mobile():
    """The UR5 mounted 0.3 m above a 20 kg planar base named root_joint."""
    arm = taskik.robots.load("ur5").model
    base = pin.Model()
    joint = base.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "root_joint")
    base.appendBodyToJoint(joint, pin.Inertia.FromBox(20.0, 0.6, 0.4, 0.3), pin.SE3.Identity())
    frame = base.addBodyFrame("base_link", joint, pin.SE3.Identity(), 0)
    model = pin.appendModel(base, arm, frame, pin.SE3(np.eye(3), np.array([0.1, 0.0, 0.3])))
    model.name = "ur5_on_planar_base"
    return model


def start_q(model, x=0.2, y=-0.1, yaw=0.4):
    arm = dict(shoulder_lift_joint=-1.2, elbow_joint=1.4, wrist_1_joint=-1.7, wrist_2_joint=-1.5)
    return custom_configuration_vector(model, root_joint=[x, y, yaw], **arm)


def test_the_planar_root_is_the_base(mobile, ur5, humanoid):
    assert mobile.joints[1].shortname() == "JointModelPlanar"
    assert base_velocity_count(mobile) == 3
    assert base_velocity_count(humanoid.model) == 6
    assert base_velocity_count(ur5.model) == 0  # an arm's first joint is not a base
    for joint, name, nv in (
        (pin.JointModelTranslation(), "slider", 3),  # a 3-D translation is a base
        (pin.JointModelRZ(), "root_joint", 1),  # pink's rule: the joint named root_joint
        (pin.JointModelRZ(), "turntable", 0),
    ):
        model = pin.Model()
        model.addJoint(0, joint, pin.SE3.Identity(), name)
        assert base_velocity_count(model) == nv, name
    assert base_velocity_count(pin.Model()) == 0
    assert actuated_velocity_indices(mobile).tolist() == list(range(3, 9))
    assert actuated_velocity_indices(mobile, include_base=True).tolist() == list(range(9))


def test_configuration_stores_the_yaw_as_a_unit_complex_number(mobile):
    q = start_q(mobile, yaw=0.4)
    assert np.allclose(q[:4], [0.2, -0.1, np.cos(0.4), np.sin(0.4)])
    conf = taskik.Configuration(mobile, q)
    assert np.allclose(conf.get_transform_frame_to_world("base_link").translation, [0.2, -0.1, 0])
    bad = q.copy()
    bad[2:4] = [1.0, 0.5]
    with pytest.raises(taskik.InvalidConfiguration, match=r"unit complex q\[2:4\]"):
        taskik.Configuration(mobile, bad)


def test_integration_drives_the_base_in_its_own_frame(mobile):
    """v = (vx, vy, ω) is a body twist of the base: a forward velocity at yaw θ moves along
    (cos θ, sin θ) in the world; a pure yaw rate turns the heading by ω dt."""
    conf = taskik.Configuration(mobile, start_q(mobile, yaw=0.4))
    v = np.zeros(mobile.nv)
    v[0] = 0.5
    conf.integrate_inplace(v, 0.2)
    assert np.allclose(conf.q[:2], [0.2 + 0.1 * np.cos(0.4), -0.1 + 0.1 * np.sin(0.4)])
    v[:] = 0.0
    v[2] = 1.0
    conf.integrate_inplace(v, 0.3)
    assert np.isclose(np.arctan2(conf.q[3], conf.q[2]), 0.7)
    assert np.isclose(np.linalg.norm(conf.q[2:4]), 1.0, atol=1e-15)


def make_tasks(conf):
    target = conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array([0.2, -0.1, 0.05])
    frame = taskik.FrameTask("tool0", 1.0, 0.5)
    frame.set_target(target)
    relative = taskik.RelativeFrameTask("tool0", "base_link")
    relative.set_target(conf.get_transform("tool0", "base_link"))
    posture = taskik.PostureTask(0.1, include_base=True)
    posture.set_target(start_q(conf.model, x=0.5, yaw=-0.3))
    com = taskik.ComTask()
    com.set_target(conf.com + 0.05)
    return [
        frame,
        relative,
        posture,
        com,
        taskik.PositionTask("tool0"),
        taskik.OrientationTask("tool0"),
    ]


def test_task_jacobians_match_finite_differences_through_the_base(mobile, rng):
    q = start_q(mobile)
    conf = taskik.Configuration(mobile, q)
    for task in make_tasks(conf):
        if task.target is None:
            task.set_target_from_configuration(
                taskik.Configuration(mobile, pin.integrate(mobile, q, 0.2 * rng.standard_normal(9)))
            )
        J = task.compute_jacobian(conf)
        for _ in range(3):
            v = rng.standard_normal(mobile.nv)
            eps = 1e-6
            plus = taskik.Configuration(mobile, pin.integrate(mobile, q, eps * v))
            minus = taskik.Configuration(mobile, pin.integrate(mobile, q, -eps * v))
            # e = x* ⊖ x(q): its rate is −J v
            fd = -(task.compute_error(plus) - task.compute_error(minus)) / (2 * eps)
            assert np.allclose(J @ v, fd, atol=1e-6), task


def test_posture_leaves_the_base_alone_by_default(mobile):
    """Base 0.3 m and 0.5 rad off the posture target, arm on it: the posture step is zero
    (pink excludes the root joint too); with include_base=True it drives the base back."""
    conf = taskik.Configuration(mobile, start_q(mobile, x=0.2, yaw=0.4))
    posture = taskik.PostureTask(1.0)
    posture.set_target(start_q(mobile, x=0.5, yaw=-0.1))
    assert posture.compute_error(conf).shape == (6,)
    v = taskik.solve_ik(conf, [posture], DT, limits=[], adaptive=False)
    assert np.allclose(v, 0.0, atol=1e-9)
    with_base = taskik.PostureTask(1.0, include_base=True)
    with_base.set_target(posture.target_q)
    assert with_base.compute_error(conf).shape == (9,)
    v = taskik.solve_ik(conf, [with_base], DT, limits=[], adaptive=False)
    conf.integrate_inplace(v, DT)  # gain 1: the target in one step
    assert np.allclose(conf.q, posture.target, atol=1e-9)
    assert with_base.include_base and not posture.include_base


def test_velocity_limit_caps_the_three_base_velocities(mobile):
    by_name = taskik.VelocityLimit(mobile, {"root_joint": BASE_CAPS})
    as_vector = taskik.VelocityLimit(mobile, np.concatenate([BASE_CAPS, np.full(6, np.inf)]))
    for limit in (by_name, as_vector):
        idx, lo, hi = limit.compute_box(taskik.Configuration(mobile, start_q(mobile)), DT)
        assert idx.tolist() == [0, 1, 2]
        assert np.array_equal(hi, BASE_CAPS) and np.array_equal(lo, -BASE_CAPS)
    with pytest.raises(taskik.InvalidInput, match="scalar or 3 values"):
        taskik.VelocityLimit(mobile, {"root_joint": [0.5, 0.5]})
    # the model's own limits leave the base unbounded and the position range skips it
    assert taskik.VelocityLimit(mobile).indices.tolist() == list(range(3, 9))
    assert taskik.ConfigurationLimit(mobile).indices.tolist() == list(range(3, 9))


def test_reaching_beyond_the_arm_drives_the_base_within_its_caps(mobile):
    """A target 1.5 m away (the UR5 reaches 0.85 m): the base carries the arm there, every
    step within the base's caps and the arm's joint limits."""
    conf = taskik.Configuration(mobile, start_q(mobile))
    hand = taskik.FrameTask("tool0", 1.0, 0.1)
    goal = conf.get_transform_frame_to_world("tool0")
    goal.translation = goal.translation + np.array([1.5, 0.6, 0.0])
    hand.set_target(goal)
    posture = taskik.PostureTask(1e-2)
    posture.set_target_from_configuration(conf)
    limits = [
        taskik.ConfigurationLimit(mobile),
        taskik.VelocityLimit(mobile),
        taskik.VelocityLimit(mobile, {"root_joint": BASE_CAPS}),
    ]
    fastest = np.zeros(3)
    for _ in range(800):
        v = taskik.solve_ik(conf, [hand, posture], 0.02, limits=limits)
        fastest = np.maximum(fastest, np.abs(v[:3]))
        conf.integrate_inplace(v, 0.02)
    assert np.all(fastest <= BASE_CAPS + 1e-12)
    assert np.isclose(fastest[0], BASE_CAPS[0])  # the base ran at its cap on the way
    assert np.linalg.norm(hand.compute_error(conf)[:3]) < 1e-4
    assert np.linalg.norm(conf.q[:2] - start_q(mobile)[:2]) > 0.6  # the base moved
    conf.check_limits()


def test_the_viewer_drives_a_planar_base(mobile):
    """The viewer's loop on the mobile manipulator: a tool target 1 m away is reached by
    moving the base, which stays within its caps."""
    import socket

    from taskik.robots import Robot
    from taskik.viewer import Viewer

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    robot = Robot("ur5_on_planar_base", mobile, start_q(mobile), ("tool0",))
    caps = taskik.VelocityLimit(mobile, {"root_joint": BASE_CAPS})
    viewer = Viewer(robot, host="127.0.0.1", port=port, dt=DT, limits=[caps])
    try:
        start = viewer.configuration.get_transform_frame_to_world("tool0")
        target = pin.SE3(start.rotation, start.translation + np.array([1.0, 0.0, 0.0]))
        viewer.set_target("tool0", target)
        base = []
        for _ in range(600):
            viewer.step()
            base.append(viewer.configuration.q[:2].copy())
        reached = viewer.configuration.get_transform_frame_to_world("tool0").translation
        assert np.linalg.norm(reached - target.translation) < 1e-3
        # the caps hold in the base's frame: in the world, |v_xy| ≤ |(cap_x, cap_y)|
        speed = np.linalg.norm(np.diff(np.array(base), axis=0), axis=1).max() / DT
        assert speed <= np.hypot(*BASE_CAPS[:2]) + 1e-9 and base[-1][0] - base[0][0] > 0.3
    finally:
        viewer.stop()
