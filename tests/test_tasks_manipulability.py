"""ManipulabilityTask: m = √det(J Jᵀ) of a frame, raised toward a target."""

import numpy as np
import pinocchio as pin
import pytest
from task_checks import ROBOTS, configurations, fd_rate

import taskik
from taskik import DampingTask, FrameTask, InvalidInput, PostureTask, TargetNotSet
from taskik.tasks import ManipulabilityTask


@pytest.mark.parametrize("name", ROBOTS)
@pytest.mark.parametrize("rows", ["all", "position", "orientation"])
def test_gradient_matches_finite_differences_of_the_manipulability(name, rows, rng):
    frame = ROBOTS[name][0]
    for conf in configurations(name, rng, 2):
        task = ManipulabilityTask(frame, rows=rows)
        m, grad = task.gradient(conf)
        assert m == pytest.approx(task.manipulability(conf)) and m > 1e-6
        for _ in range(2):
            v = rng.standard_normal(conf.nv)
            fd = fd_rate(task.manipulability, conf, v)
            assert abs(grad[0] @ v - fd) <= 1e-6 * abs(fd) + 1e-12


def test_manipulability_is_sqrt_det(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    J = conf.get_frame_jacobian("panda_hand")
    task = ManipulabilityTask("panda_hand", rows="position")
    assert task.manipulability(conf) == pytest.approx(np.sqrt(np.linalg.det(J[:3] @ J[:3].T)))
    # the axes the rows are expressed in do not matter
    Jw = conf.get_frame_jacobian("panda_hand", taskik.configuration.pin.LOCAL_WORLD_ALIGNED)
    assert task.manipulability(conf) == pytest.approx(np.sqrt(np.linalg.det(Jw[:3] @ Jw[:3].T)))


def test_error_and_jacobian_are_one_sided(ur5):
    conf = ur5.configuration()
    task = ManipulabilityTask("tool0")
    m, grad = task.gradient(conf)
    task.set_target(m + 0.01)
    e, J = task.compute_error_and_jacobian(conf)
    assert e == pytest.approx([0.01]) and np.array_equal(J, grad)
    task.set_target_from_configuration(conf)  # m* = m: nothing to do
    e, J = task.compute_error_and_jacobian(conf)
    assert np.array_equal(e, [0.0]) and np.array_equal(J, np.zeros((1, 6)))


@pytest.mark.parametrize("levels", [False, True])
def test_closed_loop_leaves_a_near_singular_pose(ur5, levels):
    conf = ur5.configuration()
    q = ur5.q0.copy()
    q[2] = 0.05  # elbow almost straight: near the elbow singularity
    conf.update(q)
    task = ManipulabilityTask("tool0", rows="position", cost=10.0)
    m0 = task.manipulability(conf)
    task.set_target(4 * m0)
    posture = PostureTask(cost=1e-3)  # pulls back toward the near-singular pose
    posture.set_target_from_configuration(conf)
    tasks = [[task], [DampingTask(1e-3)]] if levels else [task, posture]
    for _ in range(30):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.05), 0.05)
    assert task.manipulability(conf) > 3.9 * m0


def test_in_the_null_space_of_a_pose_task_it_climbs_to_the_self_motion_maximum(panda, rng):
    """The Panda's hand held (6 rows, 7 joints): the self-motion raises m until the
    gradient projected on the null space of the hand vanishes (a local maximum)."""
    conf = panda.configuration(panda.random_configuration(rng))
    hand = FrameTask("panda_hand", 1.0, 1.0)
    hand.set_target_from_configuration(conf)
    task = ManipulabilityTask("panda_hand")

    def projected_gradient():
        J = hand.compute_jacobian(conf)
        return np.linalg.norm(task.gradient(conf)[1] @ (np.eye(7) - np.linalg.pinv(J) @ J))

    m0, g0 = task.manipulability(conf), projected_gradient()
    task.set_target(2 * m0)  # above what the self-motion can reach
    for _ in range(30):
        conf.integrate_inplace(taskik.solve_ik(conf, [[hand], [task]], 0.05), 0.05)
    assert task.manipulability(conf) > 1.01 * m0  # measured 1.022
    assert projected_gradient() < 1e-3 * g0
    assert np.linalg.norm(hand.compute_error(conf)) < 1e-9


def test_bad_input_is_named(ur5):
    with pytest.raises(InvalidInput, match="rows must be 'all', 'position' or 'orientation'"):
        ManipulabilityTask("tool0", rows="linear")
    with pytest.raises(InvalidInput, match="target must be finite and >= 0"):
        ManipulabilityTask("tool0", target=-1.0)
    with pytest.raises(TargetNotSet, match="ManipulabilityTask has no target"):
        ManipulabilityTask("tool0").compute_error(ur5.configuration())


def test_the_kinematics_cache_is_left_as_it_was(humanoid, rng):
    conf = humanoid.configuration(humanoid.random_configuration(rng))
    J = conf.get_frame_jacobian("rarm_effector_body").copy()
    oMf = conf.get_transform_frame_to_world("rarm_effector_body").homogeneous
    ManipulabilityTask("larm_effector_body").gradient(conf)
    conf._frame_jacobians.clear()  # read the Jacobian again from data
    assert np.array_equal(conf.get_frame_jacobian("rarm_effector_body"), J)
    assert np.array_equal(conf.get_transform_frame_to_world("rarm_effector_body").homogeneous, oMf)


def test_the_gradient_follows_a_change_of_rows_or_frame_at_the_same_configuration(panda, rng):
    """The cached (m, ∇m) of a configuration is not reused after ``rows`` or ``frame``
    changed: it is the value a new task with those rows and frame gives."""
    conf = panda.configuration(panda.random_configuration(rng))
    task = ManipulabilityTask("panda_hand")
    task.gradient(conf)
    for rows, frame in (("position", "panda_hand"), ("position", "panda_link5")):
        task.rows, task.frame = rows, frame
        m, grad = task.gradient(conf)
        fresh = ManipulabilityTask(frame, rows=rows)
        assert m == fresh.manipulability(conf)
        np.testing.assert_array_equal(grad, fresh.gradient(conf)[1])


def singular_ur5(ur5, joint):
    """The UR5 exactly singular: the wrist (joint 4 at 0: joints 3 and 5 aligned, one
    vanishing singular value) or the elbow straight (joint 2 at 0: two vanish there)."""
    q = ur5.q0.copy()
    q[joint] = 0.0
    return ur5.configuration(q)


def one_sided_rate(task, conf, v, eps=1e-6):
    moved = taskik.Configuration(conf.model, pin.integrate(conf.model, conf.q, eps * v))
    return (task.manipulability(moved) - task.manipulability(conf)) / eps


def test_at_an_exact_singularity_the_gradient_is_the_steepest_one_sided_rate(ur5, rng):
    conf = singular_ur5(ur5, 4)
    task = ManipulabilityTask("tool0")
    J = conf.get_frame_jacobian("tool0")
    sigma = np.linalg.svd(J, compute_uv=False)
    assert sigma[-1] < 1e-15 and sigma[-2] > 0.1  # one vanishing singular value
    m, grad = task.gradient(conf)
    assert m == 0.0 and np.linalg.norm(grad) > 0.01  # measured 0.081
    w = grad[0] / np.linalg.norm(grad)
    # m(q ⊕ t w) = t ‖∇m‖ + O(t²), and no direction rises faster
    assert one_sided_rate(task, conf, w) == pytest.approx(np.linalg.norm(grad), rel=1e-4)
    assert one_sided_rate(task, conf, -w) == pytest.approx(np.linalg.norm(grad), rel=1e-4)
    for _ in range(50):
        d = rng.standard_normal(conf.nv)
        assert one_sided_rate(task, conf, d / np.linalg.norm(d)) <= np.linalg.norm(grad) * 1.0001


@pytest.mark.parametrize("joint", [4, 2])
@pytest.mark.parametrize("levels", [False, True])
def test_an_arm_started_exactly_singular_leaves_the_singularity(ur5, joint, levels):
    conf = singular_ur5(ur5, joint)
    task = ManipulabilityTask("tool0", target=0.05, cost=10.0)
    assert task.manipulability(conf) < 1e-15
    assert np.linalg.norm(task.gradient(conf)[1]) > 0.01  # old formula: 0 (m · ...)
    posture = PostureTask(cost=1e-3)  # pulls back toward the singular pose
    posture.set_target_from_configuration(conf)
    tasks = [[task], [DampingTask(1e-3)]] if levels else [task, posture]
    for _ in range(40):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.05), 0.05)
    assert task.manipulability(conf) > 0.04


@pytest.mark.parametrize("rows", [["all"], ("position",), None, 3, b"all"])
def test_rows_that_are_not_a_name_are_refused(rows):
    with pytest.raises(InvalidInput, match="rows must be 'all', 'position' or 'orientation'"):
        ManipulabilityTask("tool0", rows=rows)
