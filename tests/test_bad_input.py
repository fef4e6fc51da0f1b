"""Bad input gets a taskik error that names the problem: never a bare exception, never a
silent wrong result (causes found by fuzzing the public entry points)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.exceptions import check_scalar, real_scalar

DT = 0.01


# ------------------------------------------------------------------------------ scalars
@pytest.mark.parametrize("value", [None, "0.5", b"1", True, np.bool_(True), 1j, [0.5], object()])
def test_scalars_must_be_real_numbers(value):
    with pytest.raises(taskik.InvalidInput, match="gain must be a real number"):
        real_scalar(value, "gain")


@pytest.mark.parametrize("value", [0.5, 1, np.float32(0.5), np.int64(1), np.array(0.25)])
def test_real_numbers_of_any_kind_are_accepted(value):
    assert real_scalar(value, "x") == float(value)


def test_check_scalar_names_the_range():
    with pytest.raises(taskik.InvalidInput, match=r"gain must be in \(0, 1\], got 0"):
        check_scalar(0, "gain", 0.0, 1.0, low_open=True)
    with pytest.raises(taskik.InvalidInput, match="damping must be finite and >= 0"):
        check_scalar(-1.0, "damping", 0.0)
    with pytest.raises(taskik.InvalidInput, match="x must be finite and < 2"):
        check_scalar(2.0, "x", high=2.0, high_open=True)
    with pytest.raises(taskik.InvalidInput, match="x must be finite, got nan"):
        check_scalar(float("nan"), "x")
    assert check_scalar(1.0, "gain", 0.0, 1.0, low_open=True) == 1.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: taskik.FrameTask("tool0", gain=None),
        lambda: taskik.FrameTask("tool0", lm_damping="1"),
        lambda: taskik.PostureTask(cost=None),
        lambda: taskik.PostureTask(cost=1j),
        lambda: taskik.ConfigurationLimit(taskik.robots.load("ur5").model, gain=None),
    ],
)
def test_constructors_refuse_non_numbers(make):
    with pytest.raises(taskik.InvalidInput):
        make()


def test_dt_of_any_real_type_is_accepted_and_others_named(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    v64 = taskik.solve_ik(conf, [task], DT)
    v32 = taskik.solve_ik(conf, [task], np.float32(DT))
    assert np.allclose(v32, v64, atol=1e-6)
    for bad in (None, "0.01", 0.0, -1.0, float("inf"), float("nan"), 1j):
        with pytest.raises(taskik.InvalidInput, match="dt"):
            taskik.solve_ik(conf, [task], bad)


# ------------------------------------------------------------------- wrong objects
def test_a_model_instead_of_a_configuration_is_named(ur5):
    task = taskik.FrameTask("tool0")
    with pytest.raises(taskik.InvalidInput, match="wrap the model"):
        taskik.solve_ik(ur5.model, [task], DT)


def test_unknown_solver_options_are_named(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    with pytest.raises(taskik.InvalidInput, match="'daqp' does not accept.*bogus"):
        taskik.solve_ik(conf, [task], DT, bogus=1)


# -------------------------------------------------------------------- silent garbage
def test_a_transposed_homogeneous_target_is_refused(ur5):
    conf = ur5.configuration()
    M = conf.get_transform_frame_to_world("tool0").homogeneous
    task = taskik.FrameTask("tool0")
    task.set_target(M)  # the right way round
    with pytest.raises(taskik.InvalidInput, match="transposed"):
        task.set_target(M.T)


@pytest.mark.parametrize("coeffs", [(0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 2.0)])
def test_non_unit_quaternion_targets_are_refused(coeffs):
    task = taskik.OrientationTask("tool0")
    with pytest.raises(taskik.InvalidInput, match="norm"):
        task.set_target(pin.Quaternion(*coeffs[3:], *coeffs[:3]))
    task.set_target(pin.Quaternion(1.0, 0.0, 0.0, 0.0))  # the identity, unit
    np.testing.assert_array_equal(task.target, np.eye(3))


# ---------------------------------------------------------------- solver failures
class _EmptyBox(taskik.Limit):
    """A user limit whose box is empty (lower > upper) on joint 0."""

    hard = True
    name = "empty"

    def compute_box(self, configuration, dt):
        return np.array([0]), np.array([1.0]), np.array([-1.0])


def test_an_empty_user_box_is_a_named_conflict_not_a_runtime_error(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    with pytest.raises(taskik.NoSolutionFound, match="empty"):
        taskik.solve_ik(conf, [task], DT, limits=[_EmptyBox()])


def test_an_out_of_range_problem_does_not_blame_inequality_rows(ur5):
    conf = ur5.configuration()
    task = taskik.PositionTask("tool0", cost=1e50)  # (the largest cost and a far target)
    task.set_target([1e50, 0.0, 0.0])
    with pytest.raises(taskik.NoSolutionFound, match="no inequality rows") as err:
        taskik.solve_ik(conf, [task], DT, limits=[])
    assert "check the task targets, costs and dt" in str(err.value)


def test_costs_too_large_to_square_are_refused_when_set(ur5):
    """A weight of 1e160 made ‖W J‖² overflow (a priority level returned v = 0 silently, a
    later one warned): costs beyond 1e50 are refused when the task is made or changed."""
    with pytest.raises(taskik.InvalidInput, match="position_cost must be at most 1e\\+50"):
        taskik.FrameTask("tool0", 1e160, 1e160)
    with pytest.raises(taskik.InvalidInput, match="cost must be at most 1e\\+50"):
        taskik.PostureTask(1e160)
    posture = taskik.PostureTask(1.0)
    with pytest.raises(taskik.InvalidInput, match="at most 1e\\+50"):
        posture.cost = np.full(ur5.model.nv, 1e51)


def test_a_level_whose_rows_square_out_of_range_names_the_task():
    """Rows too large to square (a task of one's own with a huge Jacobian) name the task."""
    from taskik.validation import level_overflow

    task = taskik.DampingTask()
    A = np.array([[1e160, 0.0], [0.0, 1.0]])
    err = level_overflow(0, [(task, slice(0, 2))], A, np.zeros(2))
    assert "priority level 0" in str(err) and "DampingTask" in str(err)
    assert "max |W J| = 1e+160" in str(err) and "lower the costs" in str(err)


def test_level_overflow_names_non_finite_rows():
    """A task whose rows hold NaN is named as such (a custom task computing NaN)."""
    from taskik.validation import level_overflow

    task = taskik.DampingTask()
    A = np.array([[np.nan, 0.0], [0.0, 1.0]])
    err = level_overflow(2, [(task, slice(0, 2))], A, np.zeros(2))
    assert "priority level 2" in str(err)
    assert "NaN or inf in its rows" in str(err)


# ---------------------------------------------------------------- configurations
def test_configuration_needs_q_and_a_matching_data(ur5, humanoid):
    # q omitted (None): the neutral configuration (a model without a "qpos0" reference)
    assert np.array_equal(taskik.Configuration(ur5.model, None).q, pin.neutral(ur5.model))
    with pytest.raises(taskik.InvalidInput, match="of another model"):
        taskik.Configuration(ur5.model, ur5.q0, humanoid.model.createData())
    with pytest.raises(taskik.InvalidInput, match="q comes second"):
        taskik.Configuration(ur5.model, ur5.model.createData())  # pink's order, q missing
    with pytest.raises(taskik.InvalidInput, match="q comes second"):
        taskik.Configuration(ur5.model, ur5.q0, ur5.q0)
    pink_order = taskik.Configuration(ur5.model, ur5.model.createData(), ur5.q0)  # accepted
    assert np.array_equal(pink_order.q, ur5.q0)
    taskik.Configuration(ur5.model, ur5.q0, ur5.model.createData())


@pytest.mark.parametrize("frame", [["tool0"], -1, 10**6, True, 2.0, None])
def test_frames_are_names_or_indices_in_range(ur5, frame):
    conf = ur5.configuration()
    with pytest.raises(taskik.InvalidInput, match="frame"):
        conf.get_transform_frame_to_world(frame)
    with pytest.raises(taskik.InvalidInput, match="frame"):
        conf.get_frame_jacobian(frame)


def test_frame_index_and_name_agree(ur5):
    conf = ur5.configuration()
    fid = conf.get_frame_id("tool0")
    for frame in (fid, np.int64(fid)):
        assert conf.get_transform_frame_to_world(frame).isApprox(
            conf.get_transform_frame_to_world("tool0")
        )
    with pytest.raises(taskik.InvalidInput, match="joint name must be a string"):
        conf.get_joint_id(["elbow_joint"])


def test_reference_frames_are_pinocchio_reference_frames(ur5):
    conf = ur5.configuration()
    with pytest.raises(taskik.InvalidInput, match="pinocchio.ReferenceFrame"):
        conf.get_frame_jacobian("tool0", "WORLD")
    world = conf.get_frame_jacobian("tool0", pin.WORLD)
    assert world.shape == (6, 6)


def test_integrating_an_overflowing_step_is_refused(ur5):
    conf = ur5.configuration()
    q = conf.q.copy()
    with pytest.raises(taskik.InvalidInput, match="not finite"):
        conf.integrate_inplace(np.full(6, 1e300), 1e10)
    np.testing.assert_array_equal(conf.q, q)  # unchanged


def one_joint_robot() -> pin.Model:
    """A single revolute joint about z, 1 kg at 0.5 m, a frame 'ee' at 1 m."""
    model = pin.Model()
    model.name = "one_joint"
    joint = model.addJoint(
        0, pin.JointModelRZ(), pin.SE3.Identity(), "j",
        np.array([1e3]), np.array([10.0]), np.array([-2.0]), np.array([2.0]),
    )  # fmt: skip
    inertia = pin.Inertia(1.0, np.array([0.5, 0.0, 0.0]), 0.01 * np.eye(3))
    model.appendBodyToJoint(joint, inertia, pin.SE3.Identity())
    frame = pin.Frame(
        "ee", joint, 0, pin.SE3(np.eye(3), np.array([1.0, 0, 0])), pin.FrameType.OP_FRAME
    )
    model.addFrame(frame)
    return model


def test_one_joint_robots_work_with_every_task():
    """Pinocchio returns the 6 × 1 Jacobian of a one-joint robot as a vector."""
    model = one_joint_robot()
    angle = 0.5
    pose = pin.SE3(
        pin.exp3(np.array([0.0, 0.0, angle])), np.array([np.cos(angle), np.sin(angle), 0])
    )
    frame, position, orientation = (
        taskik.FrameTask("ee"), taskik.PositionTask("ee"), taskik.OrientationTask("ee"),
    )  # fmt: skip
    frame.set_target(pose)
    position.set_target(pose.translation)
    orientation.set_target(pose.rotation)
    com = taskik.ComTask()
    com.set_target(0.5 * pose.translation)
    posture = taskik.PostureTask()
    posture.set_target(np.array([angle]))
    for task in (frame, position, orientation, com, posture):
        conf = taskik.Configuration(model, np.zeros(1))
        assert task.compute_jacobian(conf).shape[1] == 1
        for _ in range(200):
            conf.integrate_inplace(taskik.solve_ik(conf, [task], DT), DT)
        assert abs(conf.q[0] - angle) < 1e-6, type(task).__name__
    result = taskik.solve_posture(model, [frame], rng=0)
    assert result.success and abs(result.q[0] - angle) < 1e-3


# ------------------------------------------------------------------ limits and tasks
def test_limits_need_a_model_and_fit_the_configuration(ur5, humanoid):
    for make in (taskik.ConfigurationLimit, taskik.VelocityLimit):
        with pytest.raises(taskik.InvalidInput, match="needs a pinocchio.Model"):
            make(None)
    conf = humanoid.configuration()
    task = taskik.PostureTask(1e-3)
    task.set_target(humanoid.q0)
    with pytest.raises(taskik.InvalidInput, match="built for model"):
        taskik.solve_ik(conf, [task], DT, limits=[taskik.VelocityLimit(ur5.model)])
    # the same robot loaded twice is the same model
    again = taskik.robots.load("humanoid").model
    taskik.solve_ik(conf, [task], DT, limits=[taskik.VelocityLimit(again)])


def test_velocity_limit_values_are_checked(ur5):
    with pytest.raises(taskik.InvalidInput, match="velocity limit of elbow_joint"):
        taskik.VelocityLimit(ur5.model, {"elbow_joint": "fast"})
    with pytest.raises(taskik.InvalidInput, match="scalar or 1 values"):
        taskik.VelocityLimit(ur5.model, {"elbow_joint": [1.0, 2.0]})
    with pytest.raises(taskik.UnknownName):
        taskik.VelocityLimit(ur5.model, {("elbow_joint",): 1.0})


class _NaNBox(taskik.Limit):
    name = "nan box"

    def compute_box(self, configuration, dt):
        return np.array([1]), np.array([np.nan]), np.array([1.0])


def test_a_limit_giving_nan_bounds_is_named(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    with pytest.raises(taskik.InvalidInput, match="'nan box'.*NaN bounds"):
        taskik.solve_ik(conf, [task], DT, limits=[_NaNBox(), taskik.VelocityLimit(ur5.model)])


def test_a_task_without_an_error_is_refused_by_name(ur5):
    conf = ur5.configuration()
    with pytest.raises(taskik.InvalidInput, match="Task is not a task taskik can solve"):
        taskik.solve_ik(conf, [taskik.Task()], DT)


def test_report_checks_v(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    v = taskik.solve_ik(conf, [task], DT)
    assert taskik.report(conf, [task], DT, list(v)).tasks[0].error_norm < 1e-12
    for bad in (v[:3], np.full(6, np.nan), "v"):
        with pytest.raises(taskik.InvalidInput, match="v"):
            taskik.report(conf, [task], DT, bad)
        with pytest.raises(taskik.InvalidInput, match="v"):
            taskik.hierarchy_report(conf, [[task]], DT, bad)


def test_backend_names_are_strings(ur5):
    conf = ur5.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    with pytest.raises(taskik.InvalidInput, match="unknown backend"):
        taskik.solve_ik(conf, [task], DT, backend=["pinv"])


def test_an_empty_level_asks_nothing(humanoid):
    """Regression: an empty middle level divided by zero when the level above it had a
    strongly active bound (humanoid, arm against its limit, head turning)."""
    q = pin.neutral(humanoid.model)
    q[21], q[22] = -1.0, -3.125  # a joint on its bound
    conf = humanoid.configuration(q)
    head = taskik.FrameTask("head2_body")
    target = conf.get_transform_frame_to_world("head2_body")
    target.rotation = target.rotation @ pin.exp3(np.array([0.0, 0.0, 0.125]))
    head.set_target(target)
    foot = taskik.FrameTask("lleg_effector_body")
    foot.set_target_from_configuration(conf)
    with_gap = taskik.solve_ik(conf, [[head], [], [foot]], DT)
    without = taskik.solve_ik(conf, [[head], [foot]], DT)
    np.testing.assert_allclose(with_gap, without, atol=1e-12)


def test_step_helpers_refuse_nan():
    with pytest.raises(taskik.InvalidInput, match="w contains NaN"):
        taskik.steps.clamp_mag([np.nan, 1.0], 1.0)
    with pytest.raises(taskik.InvalidInput, match="w contains NaN"):
        taskik.steps.clamp_max_abs([np.nan, 1.0], 1.0)
    with pytest.raises(taskik.InvalidInput, match="dq contains NaN"):
        taskik.steps.clip_joint_step([np.nan, 1.0], 0.5)
    np.testing.assert_array_equal(taskik.steps.clip_joint_step([2.0, -0.1], 0.5), [0.5, -0.1])


def test_load_urdf_floating_base_is_a_bool(tmp_path):
    urdf = tmp_path / "one.urdf"
    urdf.write_text(
        '<robot name="one"><link name="base"/><link name="arm"/>'
        '<joint name="j" type="revolute"><parent link="base"/><child link="arm"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        "</robot>"
    )
    with pytest.raises(taskik.InvalidInput, match="floating_base must be True or False"):
        taskik.robots.load_urdf(urdf, floating_base="no")
    assert taskik.robots.load_urdf(urdf).model.nq == 1
    assert taskik.robots.load_urdf(urdf, floating_base=True).model.nq == 8


def test_complex_or_text_q_is_refused(ur5):
    with pytest.raises(taskik.InvalidConfiguration, match="complex"):
        ur5.configuration(ur5.q0 + 1e-3j)
    with pytest.raises(taskik.InvalidConfiguration, match="boolean"):
        ur5.configuration(np.ones(6, dtype=bool))
    with pytest.raises(taskik.InvalidConfiguration, match="real vector"):
        ur5.configuration("0 0 0 0 0 0")
    conf = ur5.configuration(list(ur5.q0))  # a list of floats is fine
    np.testing.assert_array_equal(conf.q, ur5.q0)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_adaptive_must_be_a_bool(ur5, bad):
    conf = ur5.configuration()
    posture = taskik.PostureTask()
    posture.set_target(ur5.q0)
    with pytest.raises(taskik.InvalidInput, match="adaptive must be True or False"):
        taskik.solve_ik(conf, [posture], 0.01, adaptive=bad)
    v = taskik.solve_ik(conf, [posture], 0.01, adaptive=np.bool_(False))  # numpy's bool is one
    assert np.isfinite(v).all()
