"""JointCouplingTask: A (q ⊖ q_ref)[joints] = b over named joints."""

import numpy as np
import pinocchio as pin
import pytest
from task_checks import ROBOTS, assert_jacobian_matches, closed_loop, configurations, robot

import taskik
from taskik import InvalidInput, PostureTask, UnknownName
from taskik.tasks import JointCouplingTask


def joint_names(model, count):
    """The first ``count`` joints (the free flyer included on floating robots)."""
    names = list(model.names[1 : 1 + count])
    nv = sum(model.joints[model.getJointId(n)].nv for n in names)
    return names, nv


@pytest.mark.parametrize("name", ROBOTS)
def test_jacobian_matches_finite_differences(name, rng):
    for conf in configurations(name, rng, 2):
        names, nv = joint_names(conf.model, 3)  # Talos, humanoid: the free flyer's 6 columns
        q_ref = robot(name).random_configuration(rng)
        task = JointCouplingTask(names, rng.standard_normal((2, nv)), [0.1, -0.2], q_ref)
        assert_jacobian_matches(task, conf, rng)


def test_error_is_b_minus_the_coupling_value(ur5):
    conf = ur5.configuration()
    q = conf.q
    # mimic: elbow = 2 × shoulder_lift + 0.1
    task = JointCouplingTask(["shoulder_lift_joint", "elbow_joint"], [[-2.0, 1.0]], [0.1])
    expected = 0.1 - (q[2] - 2.0 * q[1])
    assert task.compute_error(conf) == pytest.approx([expected])
    J = task.compute_jacobian(conf)
    assert np.array_equal(J, [[0.0, -2.0, 1.0, 0.0, 0.0, 0.0]])


def test_reference_configuration_shifts_the_relation(ur5):
    conf = ur5.configuration()
    q_ref = ur5.q0 + 0.3
    task = JointCouplingTask(["elbow_joint"], [[1.0]], q_ref=q_ref)
    assert task.compute_error(conf) == pytest.approx([0.3])  # e = b − (q − q_ref)


def test_target_from_configuration_holds_the_relation(panda):
    conf = panda.configuration()
    task = JointCouplingTask(["panda_joint2", "panda_joint4"], [[1.0, 0.5]])
    task.set_target_from_configuration(conf)
    assert np.allclose(task.compute_error(conf), 0.0)


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_meets_a_gear_ratio(panda, levels):
    conf = panda.configuration()
    names = ["panda_joint1", "panda_joint3"]
    task = JointCouplingTask(names, [[-1.5, 1.0]])  # joint3 = 1.5 × joint1
    posture = PostureTask(cost=1e-2)
    posture.set_target(panda.q0 + 0.3)
    tasks = [[task], [posture]] if levels else [task, posture]
    closed_loop(conf, tasks, 30, limits=[])
    i1, i3 = (conf.get_joint_id(n) - 1 for n in names)
    assert abs(conf.q[i3] - 1.5 * conf.q[i1]) < 1e-4
    assert abs(conf.q[i1] - panda.q0[i1]) > 0.05  # the posture moved the pair together


def test_unknown_joint_lists_close_matches(ur5):
    task = JointCouplingTask(["elbow_jiont"], [[1.0]])
    with pytest.raises(UnknownName, match="elbow_joint"):
        task.compute_error(ur5.configuration())


def test_columns_must_match_the_joints_velocities(humanoid):
    task = JointCouplingTask(["root_joint"], [[1.0]])
    with pytest.raises(InvalidInput, match=r"A has 1 columns.*6 velocity coordinates"):
        task.compute_error(humanoid.configuration())


@pytest.mark.parametrize(
    "args, message",
    [
        (("elbow_joint", [[1.0]]), "list of joint names"),
        (([], np.zeros((1, 0))), "not empty"),
        ((["a", "a"], [[1.0, 1.0]]), "distinct"),
        ((["a"], [1.0]), r"matrix \(m × k\)"),
        ((["a"], [[np.nan]]), "NaN"),
        ((["a"], [[1.0]], [1.0, 2.0]), r"b must have shape \(1,\)"),
    ],
)
def test_bad_input_is_named(args, message):
    with pytest.raises(InvalidInput, match=message):
        JointCouplingTask(*args)


def test_reference_configuration_is_checked(ur5):
    task = JointCouplingTask(["elbow_joint"], [[1.0]], q_ref=np.zeros(3))
    with pytest.raises(taskik.InvalidConfiguration, match=r"shape \(6,\)"):
        task.compute_error(ur5.configuration())


def test_continuous_and_spherical_joints_use_the_tangent_difference(rng):
    """A continuous joint (q = cos, sin) and a ball joint (a quaternion): d = q ⊖ q_ref on
    their velocity coordinates (1 and 3 columns), Jacobian through pin.dDifference."""
    model = pin.Model()
    wheel = model.addJoint(0, pin.JointModelRUBZ(), pin.SE3.Identity(), "wheel")
    offset = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.3]))
    ball = model.addJoint(wheel, pin.JointModelSpherical(), offset, "ball")
    model.addJoint(ball, pin.JointModelRX(), offset, "hinge")
    q_ref = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    task = JointCouplingTask(["hinge", "wheel", "ball"], rng.standard_normal((3, 5)), q_ref=q_ref)
    for _ in range(3):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        conf = taskik.Configuration(model, q)
        assert_jacobian_matches(task, conf, rng)
        d = pin.difference(model, q_ref, q)
        assert np.allclose(task.value(conf), task.A @ d[[4, 0, 1, 2, 3]])


def test_continuous_joints_alone_use_their_angle_not_their_cosine():
    """Two continuous joints (nq = 2, nv = 1 each): d is their angle from q_ref."""
    model = pin.Model()
    wheel = model.addJoint(0, pin.JointModelRUBZ(), pin.SE3.Identity(), "left")
    model.addJoint(wheel, pin.JointModelRUBZ(), pin.SE3.Identity(), "right")
    left, right = 0.4, -0.9
    q = np.array([np.cos(left), np.sin(left), np.cos(right), np.sin(right)])
    conf = taskik.Configuration(model, q)
    task = JointCouplingTask(["left", "right"], [[1.0, -1.0], [2.0, 0.0]])
    assert task.value(conf) == pytest.approx([left - right, 2.0 * left])
    assert task.compute_jacobian(conf) == pytest.approx(np.array([[1.0, -1.0], [2.0, 0.0]]))


def test_a_new_matrix_reference_or_joint_list_after_first_use_takes_effect(ur5, rng):
    """A, q_ref and joints assigned after the task was used are read at the next use, in the
    error and in the Jacobian alike (both checked against finite differences); in-place
    edits of A or q_ref are refused rather than ignored."""
    conf = ur5.configuration(rng.uniform(-1.0, 1.0, 6))
    task = JointCouplingTask(["shoulder_pan_joint", "shoulder_lift_joint"], [[1.0, -1.0]])
    task.compute_error_and_jacobian(conf)  # bound to the model
    q = conf.q
    task.A = [[2.0, -1.0]]
    e, J = task.compute_error_and_jacobian(conf)
    assert e[0] == pytest.approx(-(2.0 * q[0] - q[1]))
    assert np.array_equal(J[0], [2.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    task.q_ref = np.full(6, 0.25)
    e, J = task.compute_error_and_jacobian(conf)
    assert e[0] == pytest.approx(-(2.0 * (q[0] - 0.25) - (q[1] - 0.25)))
    task.joints = ["elbow_joint", "wrist_1_joint"]
    e, J = task.compute_error_and_jacobian(conf)
    assert e[0] == pytest.approx(-(2.0 * (q[2] - 0.25) - (q[3] - 0.25)))
    assert np.array_equal(J[0], [0.0, 0.0, 2.0, -1.0, 0.0, 0.0])
    assert_jacobian_matches(task, conf, rng)
    with pytest.raises(ValueError, match="read-only"):
        task.A[0, 0] = 3.0
    with pytest.raises(ValueError, match="read-only"):
        task.q_ref[0] = 3.0
    with pytest.raises(InvalidInput, match="A must be a matrix of 1 rows"):
        task.A = [[1.0, 1.0], [1.0, -1.0]]
