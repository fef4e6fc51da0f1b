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


def test_lm_damping_scales_with_the_gain_squared_as_in_pink(ur5):
    """μ = λ ‖W Kp e‖²: the error the step corrects (pink's Task.compute_qp_objective)."""
    conf = ur5.configuration()
    task = PositionTask("tool0", cost=2.0, gain=0.4, lm_damping=0.7)
    p = conf.get_transform_frame_to_world("tool0").translation
    task.set_target(p + np.array([0.03, 0.0, 0.04]))
    _, c, mu = task.compute_term(conf, 0.01)
    assert mu == pytest.approx(0.7 * (0.4 * 2.0 * 0.05) ** 2)
    assert np.allclose(c, 0.4 * 2.0 * (task.target - p) / 0.01)
    problem = taskik.build_ik(conf, [task], 0.01, limits=[])
    assert problem.mu == pytest.approx(mu)


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
    for bad in (float("inf"), float("nan"), True, "1", None):
        with pytest.raises(InvalidInput, match="position_cost"):
            FrameTask("tool0", bad, 1.0)
        with pytest.raises(InvalidInput, match="orientation_cost"):
            taskik.RelativeFrameTask("tool0", "base_link", 1.0, bad)
    # (None is a cost in no constructor; in set_costs it leaves that cost unchanged)
    task = FrameTask("tool0", [1.0, 2.0, 3.0], 0.5)
    task.set_costs(orientation_cost=0.25)
    assert task.cost.tolist() == [1.0, 2.0, 3.0, 0.25, 0.25, 0.25]


def test_frame_task_scalar_costs_fill_three_rows_each():
    # plain numbers take a shortcut past the array checks: the same weights as arrays give
    for pc, oc in ((2, 0.5), (0.0, 3.0), (1e50, 0)):
        fast = FrameTask("tool0", pc, oc)
        checked = FrameTask("tool0", np.array([pc] * 3, float), np.array([oc] * 3, float))
        assert fast.cost.tolist() == [float(pc)] * 3 + [float(oc)] * 3 == checked.cost.tolist()
        assert fast.cost.dtype == np.float64 and (fast.gain, fast.lm_damping) == (1.0, 0.0)


def test_finite_check_of_a_float_vector_is_exact():
    from taskik.exceptions import check_finite_array

    big = np.array([1e308, 1e308, -1e308])  # finite, though their sum overflows
    assert check_finite_array(big, "x") is big
    for bad, index in (([1.0, np.nan, 2.0], 1), ([np.inf, 0.0], 0), ([0.0, -np.inf], 1)):
        with pytest.raises(InvalidInput, match=rf"x contains NaN or inf at index \[{index}\]"):
            check_finite_array(np.array(bad), "x")
    with pytest.raises(InvalidInput, match="shape"):
        check_finite_array(np.zeros(3), "x", (4,))


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


def lie_group_chain(joints, free_flyer=False):
    """A serial chain of the given pinocchio joints, on a free-flyer base or fixed."""
    model = pin.Model()
    parent = 0
    if free_flyer:
        parent = model.addJoint(parent, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    offset = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.3]))
    for k, joint in enumerate(joints):
        parent = model.addJoint(parent, joint, offset, f"joint{k}")
        model.appendBodyToJoint(parent, pin.Inertia.FromSphere(1.0, 0.05), pin.SE3.Identity())
    model.addFrame(pin.Frame("tip", parent, 0, offset, pin.FrameType.OP_FRAME))
    return model


@pytest.mark.parametrize(
    "joints, free_flyer",
    [
        (["spherical", "continuous", "revolute"], False),
        (["spherical", "continuous", "revolute"], True),
        (["continuous", "continuous"], False),  # nq = 2 per joint, nv = 1: not a vector space
    ],
)
def test_posture_task_on_spherical_and_continuous_joints(joints, free_flyer, rng):
    make = {
        "spherical": pin.JointModelSpherical,
        "continuous": pin.JointModelRUBZ,
        "revolute": pin.JointModelRY,
    }
    model = lie_group_chain([make[j]() for j in joints], free_flyer)
    rows = np.arange(6 if free_flyer else 0, model.nv)
    for _ in range(3):
        q = pin.integrate(model, pin.neutral(model), rng.normal(size=model.nv))
        target = pin.integrate(model, q, 0.7 * rng.normal(size=model.nv))
        conf = taskik.Configuration(model, q)
        task = PostureTask(cost=1.0, include_base=False)  # (the base is named "base")
        task.set_target(target)
        e, J = task.compute_error_and_jacobian(conf)
        assert e.shape == (len(rows),) and J.shape == (len(rows), model.nv)
        assert np.linalg.norm(e) > 0.1
        # e = −(q ⊖ q*): integrating −e from q* lands on q (joint by joint, base excluded)
        step = np.zeros(model.nv)
        step[rows] = -e
        back = pin.integrate(model, target, step)
        assert np.allclose(pin.difference(model, back, q)[rows], 0.0, atol=1e-9)
        # its rate along pin.integrate is −J v
        v = rng.normal(size=model.nv)
        eps = 1e-6
        plus = taskik.Configuration(model, pin.integrate(model, q, eps * v))
        minus = taskik.Configuration(model, pin.integrate(model, q, -eps * v))
        fd = -(task.compute_error(plus) - task.compute_error(minus)) / (2 * eps)
        assert np.allclose(J @ v, fd, atol=1e-6)
        if free_flyer:
            assert np.allclose(J[:, :6], 0.0)
    # a posture-only closed loop reaches the target on the manifold
    for _ in range(30):
        conf.integrate_inplace(taskik.solve_ik(conf, [task], 0.1, limits=[]), 0.1)
    assert np.allclose(pin.difference(model, target, conf.q)[rows], 0.0, atol=1e-6)


@pytest.mark.parametrize(
    "make, cost",
    [
        (lambda **kw: FrameTask("tool0", 2.0, 3.0, **kw), [2, 2, 2, 3, 3, 3]),
        (
            lambda **kw: RelativeFrameTask("tool0", "shoulder_link", 2.0, 3.0, **kw),
            [2, 2, 2, 3, 3, 3],
        ),
        (lambda **kw: PositionTask("tool0", 2.0, **kw), [2, 2, 2]),
        (lambda **kw: OrientationTask("tool0", 2.0, **kw), [2, 2, 2]),
        (lambda **kw: ComTask(2.0, **kw), [2, 2, 2]),
        (lambda **kw: PostureTask(2.0, **kw), 2.0),
    ],
)
def test_constructor_arguments_reach_the_task(make, cost):
    task = make(gain=0.3, lm_damping=0.2)
    assert np.array_equal(task.cost, cost)
    assert task.gain == 0.3 and task.lm_damping == 0.2


@pytest.mark.parametrize(
    "make, cost",
    [
        (lambda: FrameTask("tool0"), [1.0] * 6),
        (lambda: RelativeFrameTask("tool0", "shoulder_link"), [1.0] * 6),
        (lambda: PositionTask("tool0"), [1.0] * 3),
        (lambda: OrientationTask("tool0"), [1.0] * 3),
        (lambda: ComTask(), [1.0] * 3),
        (lambda: PostureTask(), 1.0),
        (lambda: DampingTask(), 1.0),
    ],
)
def test_default_cost_gain_and_lm_damping(make, cost):
    task = make()  # built in the test, not at collection
    assert np.array_equal(task.cost, cost)
    assert task.gain == 1.0 and task.lm_damping == 0.0


#: Builders of the tasks that take a target (on the ur5), built in each test.
TARGET_TASKS = [
    lambda: FrameTask("tool0"),
    lambda: RelativeFrameTask("tool0", "shoulder_link"),
    lambda: PositionTask("tool0"),
    lambda: OrientationTask("tool0"),
    lambda: ComTask(),
    lambda: PostureTask(),
]


@pytest.mark.parametrize("make", TARGET_TASKS)
def test_a_task_without_target_is_named(ur5, make):
    task = make()
    with pytest.raises(TargetNotSet, match=f"^{type(task).__name__} has no target"):
        task.compute_error(ur5.configuration())


def test_relative_frame_target_as_se3_or_matrix(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    T = conf.get_transform("tool0", "shoulder_link")
    for target in (T, T.homogeneous):
        task = RelativeFrameTask("tool0", "shoulder_link")
        task.set_target(target)
        assert isinstance(task.target, pin.SE3) and task.target.isApprox(T)
        assert np.allclose(task.compute_error(conf), 0.0, atol=1e-12)


def test_orientation_target_as_matrix_se3_or_quaternion(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    R = conf.get_transform_frame_to_world("tool0").rotation
    for target in (R, pin.SE3(R, np.ones(3)), pin.Quaternion(R)):
        task = OrientationTask("tool0")
        task.set_target(target)
        assert np.allclose(task.target, R, atol=1e-12)
        assert np.allclose(task.compute_error(conf), 0.0, atol=1e-9)


@pytest.mark.parametrize(
    "set_target, value, message",
    [
        (lambda v: OrientationTask("f").set_target(v), np.eye(4), r"^target must have shape"),
        (
            lambda v: OrientationTask("f").set_target(v),
            np.full((3, 3), np.nan),
            r"^target contains",
        ),
        (
            lambda v: OrientationTask("f").set_target(v),
            np.diag([1.2, 1, 1]),
            r"^target rotation is",
        ),
        (lambda v: ComTask().set_target(v), np.zeros(4), r"^target must have shape \(3,\)"),
        (lambda v: ComTask().set_target(v), [0, np.inf, 0], r"^target contains"),
        (lambda v: PositionTask("f").set_target(v), np.zeros(2), r"^target must have shape \(3,\)"),
        (lambda v: FrameTask("f").set_target(v), np.eye(3), r"^target must have shape \(4, 4\)"),
        (
            lambda v: FrameTask("f").set_target(v),
            pin.SE3(np.eye(3), np.array([np.nan, 0, 0])),
            r"^target translation contains",
        ),
        (
            lambda v: FrameTask("f").set_target(v),
            pin.SE3(np.diag([1.0, 1.0, np.nan]), np.zeros(3)),
            r"^target rotation contains",
        ),
        (
            lambda v: RelativeFrameTask("f", "g").set_target(v),
            np.diag([1.0, 1.0, -1.0, 1.0]),
            r"^target rotation is not a rotation",
        ),
        (lambda v: PostureTask().set_target(v), [0.0, np.nan], r"^posture target contains"),
        (
            lambda v: PostureTask().set_target(v),
            np.zeros((2, 2)),
            r"^posture target must be a 1-D vector",
        ),
    ],
)
def test_bad_targets_are_named(set_target, value, message):
    with pytest.raises(InvalidInput, match=message):
        set_target(value)


def test_posture_target_validated_against_the_configuration(ur5, rng):
    conf = ur5.configuration()
    q = ur5.random_configuration(rng)
    task = PostureTask()
    task.set_target(list(q), conf)
    assert task.target.dtype == float and np.array_equal(task.target, q)
    task.set_target([0, 0, 0, 0, 0, 0])  # integers become floats
    assert task.target.dtype == float


def test_position_task_offset_moves_the_point(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    T = conf.get_transform_frame_to_world("tool0")
    offset = np.array([0.1, -0.05, 0.2])
    task = PositionTask("tool0", offset=offset)
    assert np.allclose(task.point(conf), T.act(offset))
    task.set_target(T.act(offset))
    assert np.allclose(task.compute_error(conf), 0.0, atol=1e-12)


def test_damping_task_cost_vector_and_size_follow_the_model(ur5, panda):
    task = DampingTask(cost=np.arange(1.0, 7.0))
    A, c, _ = task.compute_term(ur5.configuration(), 0.01)
    assert np.array_equal(A, np.diag(np.arange(1.0, 7.0))) and task.dim == 6
    with pytest.raises(InvalidInput, match="DampingTask cost"):
        task.compute_error(panda.configuration())
    task.cost = 2.0
    for robot in (ur5, panda, ur5):
        e, J = task.compute_error_and_jacobian(robot.configuration())
        nv = robot.model.nv
        assert np.array_equal(J, np.eye(nv)) and task.dim == nv and np.array_equal(e, np.zeros(nv))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: FrameTask("f", position_cost=-1.0), r"^position_cost must be >= 0"),
        (lambda: FrameTask("f", position_cost=[1.0, 2.0]), r"^position_cost must be a scalar"),
        (lambda: FrameTask("f", orientation_cost=[1.0, 2.0]), r"^orientation_cost must be a"),
        (lambda: PositionTask("f", cost="heavy"), r"^cost must be a number"),
        (lambda: PostureTask(cost=np.ones((2, 2))), r"^cost must be a scalar or have shape"),
        (lambda: DampingTask(cost=np.ones((2, 2))), r"^cost must be a scalar or have shape"),
    ],
)
def test_bad_costs_are_named(make, message):
    with pytest.raises(InvalidInput, match=message):
        make()


def test_task_repr_names_the_class():
    assert repr(ComTask(cost=2.0)) == "ComTask(cost=[2.0, 2.0, 2.0], gain=1.0, lm_damping=0.0)"
    assert repr(PostureTask(gain=0.5)).startswith("PostureTask(cost=1.0, gain=0.5")


def test_posture_task_on_a_free_floating_body_alone_has_no_rows():
    model = lie_group_chain([], free_flyer=True)
    task = PostureTask(include_base=False)  # (the base is named "base", not root_joint)
    task.set_target(pin.neutral(model))
    e, J = task.compute_error_and_jacobian(taskik.Configuration(model, pin.neutral(model)))
    assert e.shape == (0,) and J.shape == (0, 6)


def test_position_offset_is_checked():
    with pytest.raises(InvalidInput, match=r"^offset must have shape \(3,\)"):
        PositionTask("f", offset=[0.1, 0.2])
    with pytest.raises(InvalidInput, match=r"^offset contains NaN"):
        PositionTask("f", offset=[0.1, np.nan, 0.0])


def test_base_task_defaults():
    task = taskik.Task()
    assert task.cost == 1.0 and task.gain == 1.0 and task.lm_damping == 0.0


@pytest.mark.parametrize("make", TARGET_TASKS)
def test_set_target_from_a_model_says_to_wrap_it(ur5, make):
    with pytest.raises(
        InvalidInput,
        match=r"^set_target_from_configuration needs a taskik\.Configuration, got Model "
        r"\(wrap the model",
    ):
        make().set_target_from_configuration(ur5.model)


def test_orientation_target_quaternion_must_be_unit():
    task = OrientationTask("tool0")
    task.set_target(pin.Quaternion(1.0 + 1e-7, 0.0, 0.0, 0.0))  # within 1e-6
    for q in (pin.Quaternion(2.0, 0.0, 0.0, 0.0), pin.Quaternion(1.0 + 1e-5, 0.0, 0.0, 0.0)):
        with pytest.raises(InvalidInput, match=r"^target quaternion has norm"):
            task.set_target(q)


# ------------------------------------------------------------------ pink's ways
def test_a_task_frame_is_its_name(ur5):
    """pink stores the frame as a string: taskik's FrameRef is one (compares, hashes, looks up)."""
    conf = ur5.configuration()
    task = FrameTask("tool0")
    relative = RelativeFrameTask("tool0", "shoulder_lift_joint")
    assert task.frame == "tool0" and task.frame in ["tool0"] and {task.frame: 1}["tool0"] == 1
    assert isinstance(task.frame, str) and f"{task.frame}" == "tool0"
    assert relative.root in ("shoulder_lift_joint",)
    M = conf.get_transform_frame_to_world(task.frame)
    assert M.isApprox(conf.get_transform_frame_to_world("tool0"))
    assert conf.get_transform(relative.frame, relative.root).isApprox(
        conf.get_transform("tool0", "shoulder_lift_joint")
    )
    assert conf.get_frame_jacobian(task.frame) is conf.get_frame_jacobian("tool0")
    task.frame = "wrist_3_joint"  # a new name, resolved anew
    task.set_target_from_configuration(conf)
    assert task.target.isApprox(conf.get_transform_frame_to_world("wrist_3_joint"))
    task.frame = "tool1"
    with pytest.raises(UnknownName, match="did you mean 'tool0'"):
        task.compute_error(conf)


def test_pink_target_names_read_and_set_the_target(ur5, humanoid):
    conf = ur5.configuration()
    frame = FrameTask("tool0")
    assert frame.transform_target_to_world is None
    T = conf.get_transform_frame_to_world("tool0")
    frame.transform_target_to_world = T
    assert frame.target is frame.transform_target_to_world and frame.target.isApprox(T)
    relative = RelativeFrameTask("tool0", "shoulder_lift_joint")
    relative.set_target_from_configuration(conf)
    assert relative.transform_target_to_root is relative.target
    with pytest.raises(AttributeError, match="transform_target_to_root"):
        _ = relative.transform_target_to_world
    posture = PostureTask()
    posture.target_q = ur5.q0
    assert np.array_equal(posture.target, ur5.q0) and posture.target_q is posture.target
    com = ComTask()
    com.set_target_from_configuration(humanoid.configuration())
    assert com.target_com is com.target
    com.target_com = None
    assert com.target is None
    with pytest.raises(InvalidInput, match="shape"):
        com.target_com = [1.0, 2.0]  # set through set_target: checked


def test_set_position_and_orientation_cost_as_in_pink():
    task = FrameTask("tool0", 1.0, 1.0)
    task.set_position_cost([1.0, 2.0, 3.0])
    task.set_orientation_cost(0.5)
    assert task.cost.tolist() == [1.0, 2.0, 3.0, 0.5, 0.5, 0.5]
    assert task.position_cost.tolist() == [1.0, 2.0, 3.0]
    assert task.orientation_cost.tolist() == [0.5, 0.5, 0.5]
    with pytest.raises(ValueError):
        task.position_cost[0] = 9.0  # read-only, as cost
    with pytest.raises(InvalidInput, match="position_cost must be >= 0"):
        task.set_position_cost(-1.0)


class PinkStylePositionTask(taskik.Task):
    """A position task written pink's way: e_p = p − p*, J_p = ∂e_p/∂q, J_p Δq = −Kp e_p."""

    def __init__(self, frame, cost, gain=1.0, lm_damping=0.0):
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)
        self.frame = frame
        self.target = None

    def compute_error(self, configuration):
        return configuration.get_transform_frame_to_world(self.frame).translation - self.target

    def compute_jacobian(self, configuration):
        J = configuration.get_frame_jacobian(self.frame, pin.LOCAL_WORLD_ALIGNED)
        return J[:3]


def test_a_task_written_pinks_way_gives_the_builtin_step(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    goal = conf.get_transform_frame_to_world("tool0").translation + [0.05, -0.03, 0.02]
    mine = PinkStylePositionTask("tool0", [1.0, 2.0, 0.5], gain=0.6, lm_damping=0.3)
    mine.target = goal
    builtin = PositionTask("tool0", cost=[1.0, 2.0, 0.5], gain=0.6, lm_damping=0.3)
    builtin.set_target(goal)
    e, J = mine.compute_error_and_jacobian(conf)
    e_ref, J_ref = builtin.compute_error_and_jacobian(conf)
    assert np.allclose(e, -mine.compute_error(conf)) and np.allclose(e, e_ref, atol=1e-15)
    assert np.allclose(J, J_ref, atol=1e-12)
    v = taskik.solve_ik(conf, [mine], 0.01, adaptive=False)
    v_ref = taskik.solve_ik(conf, [builtin], 0.01, adaptive=False)
    assert np.allclose(v, v_ref, rtol=0, atol=1e-12 * np.abs(v_ref).max())
    assert taskik.build_ik(conf, [mine], 0.01).mu == pytest.approx(
        0.3 * np.sum((0.6 * np.array([1.0, 2.0, 0.5]) * e_ref) ** 2)
    )


def test_a_task_without_an_error_says_both_ways_to_write_one(ur5):
    class HalfPink(taskik.Task):
        def compute_error(self, configuration):
            return np.zeros(3)

    with pytest.raises(NotImplementedError, match="nor both of pink's"):
        HalfPink().compute_error_and_jacobian(ur5.configuration())
    with pytest.raises(InvalidInput, match="compute_error_and_jacobian.*nor pink's pair"):
        taskik.solve_ik(ur5.configuration(), [HalfPink()], 0.01)


class PinkStylePostureTask(taskik.Task):
    """pink's PostureTask, as written in pink: e_p = q ⊖ q*, J_p = identity (tangent.eye)."""

    def __init__(self, cost):
        super().__init__(cost=cost)
        self.target_q = None

    def compute_error(self, configuration):
        return pin.difference(configuration.model, self.target_q, configuration.q)

    def compute_jacobian(self, configuration):
        return configuration.tangent.eye


def test_pinks_posture_task_runs_on_configuration_tangent(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    assert conf.tangent.dim == 7 and np.array_equal(conf.tangent.eye, np.eye(7))
    assert np.array_equal(conf.tangent.zeros, np.zeros(7)) and conf.tangent is conf.tangent
    with pytest.raises(ValueError):
        conf.tangent.ones[0] = 2.0  # read-only, shared between steps
    hand = PositionTask("panda_hand")
    hand.set_target(conf.get_transform_frame_to_world("panda_hand").translation + 0.03)
    mine = PinkStylePostureTask(0.1)
    mine.target_q = panda.q0
    builtin = PostureTask(0.1)
    builtin.set_target(panda.q0)
    v = taskik.solve_ik(conf, [hand, mine], 0.01, adaptive=False)
    v_ref = taskik.solve_ik(conf, [hand, builtin], 0.01, adaptive=False)
    assert np.allclose(v, v_ref, rtol=0, atol=1e-10 * np.abs(v_ref).max())


def test_com_task_set_cost_as_in_pink():
    task = ComTask(1.0)
    task.set_cost([1.0, 1.0, 0.0])
    assert task.cost.tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(InvalidInput, match=">= 0"):
        task.set_cost(-1.0)


@pytest.mark.parametrize("task_type", [FrameTask, taskik.RelativeFrameTask])
def test_a_pose_target_that_is_not_a_rigid_transform_is_refused(task_type):
    """A pin.SE3 carries any 3×3 matrix: every entry of R moved by 1e-3 (a row loses its
    unit norm or two rows their orthogonality), a row flipped (a reflection), NaN or inf in
    R or p, is refused by name; an exact rotation (also a pin.SE3 subclass-free copy) is
    taken as it is."""
    task = FrameTask("tool0") if task_type is FrameTask else task_type("tool0", "base_link")
    good = pin.SE3(pin.rpy.rpyToMatrix(0.3, -0.2, 0.5), np.array([0.1, -0.2, 0.3]))
    task.set_target(good)
    assert np.array_equal(task.target.homogeneous, good.homogeneous)
    assert task.target is not good  # a copy: the caller's object stays the caller's
    bad_targets = []
    for i in range(3):
        for j in range(3):
            R = good.rotation.copy()
            R[i, j] += 1e-3
            bad_targets.append(pin.SE3(R, good.translation))
        R = good.rotation.copy()
        R[i] *= -1.0  # orthonormal rows, determinant −1
        bad_targets.append(pin.SE3(R, good.translation))
        for value in (np.nan, np.inf):
            p = good.translation.copy()
            p[i] = value
            bad_targets.append(pin.SE3(good.rotation, p))
            R = good.rotation.copy()
            R[i, 2 - i] = value
            bad_targets.append(pin.SE3(R, good.translation))
    for bad in bad_targets:
        with pytest.raises(InvalidInput):
            task.set_target(bad)
    assert np.array_equal(task.target.homogeneous, good.homogeneous)  # unchanged


def test_an_exact_pose_target_takes_the_fast_check(monkeypatch):
    """A rigid pin.SE3 is checked on plain floats (setting a target every step is cheap):
    the array checks that name a problem are not reached."""
    from taskik.tasks import _frames

    def not_reached(*args, **kwargs):
        raise AssertionError("the slow check ran for a valid pose")

    monkeypatch.setattr(_frames, "check_rotation", not_reached)
    monkeypatch.setattr(_frames, "check_finite_array", not_reached)
    task = FrameTask("tool0")
    rotations = ([0.3, -0.2, 0.5], [np.pi, 0.0, 0.0], [0.0, np.pi / 2, 0.0], [-3.0, 1.5, 2.9])
    for rpy in (*rotations, [0.0, 0.0, np.pi / 2], [0.2, -0.1, -2.0], [1.9, 0.1, 0.2]):
        target = pin.SE3(pin.rpy.rpyToMatrix(*rpy), np.array([0.4, -1e3, 1e-9]))
        task.set_target(target)
        assert np.array_equal(task.target.homogeneous, target.homogeneous)
