"""Defects the input fuzzer found (tests/fuzz.py): each test fails on the code before its fix."""

from __future__ import annotations

import warnings

import coal
import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import geometry
from taskik.batch.problems import as_targets
from taskik.exceptions import InvalidInput
from taskik.limits.acceleration import braking_speed
from taskik.posture import damping_matrix, step_direction

# ---- configuration


@pytest.mark.parametrize("values", ["abc", [0.1], 3])
def test_custom_configuration_vector_names_values_that_are_not_a_mapping(values):
    model = taskik.robots.load("ur5").model
    with pytest.raises(InvalidInput, match="mapping"):
        taskik.custom_configuration_vector(model, values)


# ---- posture formulas


def _system(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.standard_normal((6, 6)), rng.standard_normal(6)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"method": "x"}, "method must be one of"),
        ({"A": None}, "A \\(weighted task Jacobian\\)"),
        ({"A": "nan"}, "A \\(weighted task Jacobian\\) contains NaN"),
        ({"c": "short"}, "c \\(weighted task error\\) must have shape \\(6,\\)"),
        ({"damping": "a"}, "damping"),
        ({"damping": None}, "damping of method 'lm-chan' must be given"),
        ({"E": -1.0}, "E \\(weighted error\\)"),
    ],
)
def test_step_direction_names_each_bad_input(change, message):
    A, c = _system(np.random.default_rng(0))
    args = {"method": "lm-chan", "A": A, "c": c, "E": 0.5, "damping": 1e-3, **change}
    if isinstance(args["A"], str):
        args["A"] = A * np.nan
    if isinstance(args["c"], str):
        args["c"] = c[:3]
    with pytest.raises(InvalidInput, match=message):
        step_direction(args["method"], args["A"], args["c"], args["E"], args["damping"])


@pytest.mark.parametrize(
    "args, message",
    [
        (("x", 0.5, 6, 1e-3), "method must be one of"),
        (("lm-chan", 0.5, -1, 1e-3), "nv \\(number of velocity coordinates\\)"),
        (("lm-chan", 0.5, 6, None), "damping of method 'lm-chan' must be given"),
    ],
)
def test_damping_matrix_names_each_bad_input(args, message):
    with pytest.raises(InvalidInput, match=message):
        damping_matrix(*args)


def test_the_checked_formulas_still_give_the_levenberg_marquardt_step():
    """Chan's step solves (AᵀA + λ E I) Δq = Aᵀc: the residual of that system is ~0."""
    A, c = _system(np.random.default_rng(1))
    E, lam = 0.7, 0.1
    dq = step_direction("lm-chan", A, c, E, lam)
    assert np.allclose((A.T @ A + lam * E * np.eye(6)) @ dq, A.T @ c, atol=1e-9)
    assert np.allclose(damping_matrix("lm-sugihara", E, 6, 1e-3), (E + 1e-3) * np.eye(6))


def test_solve_posture_accepts_select_as_a_numpy_string():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    result = taskik.solve_posture(conf, [task], select=np.str_("first"), rng=0)
    assert result.success


# ---- geometry


def test_self_collision_pairs_refuse_a_missing_reference_and_a_negative_contact_distance():
    robot = taskik.robots.load("ur5")
    gm = robot.collision_model
    with pytest.raises(InvalidInput, match="q_reference must be the configuration"):
        geometry.self_collision_pairs(robot.model, gm, None)
    with pytest.raises(InvalidInput, match="contact_distance"):
        geometry.self_collision_pairs(robot.model, gm, robot.q0, None, -1.0)


def _one_joint() -> tuple[pin.Model, pin.GeometryModel]:
    model = pin.Model()
    j = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "joint1")
    model.appendBodyToJoint(
        j, pin.Inertia(1.0, np.array([0.5, 0.0, 0.0]), np.eye(3) * 0.01), pin.SE3.Identity()
    )
    gm = pin.GeometryModel()
    along_x = pin.SE3(pin.rpy.rpyToMatrix(0.0, np.pi / 2, 0.0), np.array([0.5, 0.0, 0.0]))
    gm.addGeometryObject(pin.GeometryObject("link", j, along_x, coal.Capsule(0.05, 1.0)))
    return model, gm


def test_distance_gradient_of_a_one_joint_model_is_k_by_nv_and_matches_finite_differences():
    """Pinocchio gives data.J as a vector of 6 when nv = 1: the gradient broadcast to k × k."""
    model, gm = _one_joint()
    obstacles = [
        geometry.sphere("s1", 0.05, [0.6, 0.4, 0.0]),
        geometry.sphere("s2", 0.05, [0.3, -0.5, 0.1]),
        geometry.box("b", [0.1, 0.1, 0.1], [-0.2, 0.6, 0.0]),
    ]
    scene = geometry.CollisionScene(model, gm, [], obstacles)
    q = np.array([0.3])
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    near = scene.distances(data, 10.0, all_pairs=True)
    assert near.gradient.shape == (3, 1)
    assert near.turn.shape == (3, 2, 1)
    eps = 1e-6
    d = []
    for s in (1.0, -1.0):
        pin.computeJointJacobians(model, data, q + s * eps)
        d.append(scene.distances(data, 10.0, all_pairs=True).distance)
    assert np.allclose(near.gradient[:, 0], (d[0] - d[1]) / (2 * eps), atol=1e-4)


# ---- tasks and limits: no overflow at 1e300


@pytest.mark.parametrize("height", [1e300, -1e300])
def test_look_at_a_far_target_computes_without_overflow(height):
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    task = taskik.LookAtTask("tool0", target=[0.0, 0.0, height])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e, J = task.compute_error_and_jacobian(conf)
    a = conf.get_transform_frame_to_world("tool0").rotation[:, 2]
    assert np.allclose(e, [0.0, 0.0, np.sign(height)] - a, atol=1e-9)  # line of sight ±z
    assert np.isfinite(J).all()


def test_braking_speed_with_a_cap_of_1e300_is_d_over_dt_without_overflow():
    d, dt = np.array([0.05, 0.0, -0.1]), 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u = braking_speed(d, np.full(3, 1e300), dt)
    assert np.allclose(u, [0.05 / dt, 0.0, 0.0], rtol=1e-12)
    a = np.array([4.0])  # and the closed form u dt + u²/(2a) = d still holds
    u = braking_speed(np.array([0.05]), a, dt)
    assert u[0] * dt + u[0] ** 2 / (2 * a[0]) == pytest.approx(0.05, rel=1e-12)


def test_collision_rows_of_a_free_flyer_compute_without_overflow():
    robot = taskik.robots.load("humanoid")
    assert np.max(robot.model.velocityLimit) > 1e300  # the free flyer's "unbounded" limit
    conf = robot.configuration()
    centre = conf.get_transform_frame_to_world(robot.model.frames[-1].name).translation
    limit = taskik.CollisionLimit(
        robot, self_collision=False, detection_distance=1.0,
        obstacles=[geometry.sphere("s", 0.1, centre + [0.2, 0, 0])],
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = limit.compute_inequalities(conf, 0.01)
        limit.report(conf, np.zeros(robot.model.nv), 0.01)
    assert rows is not None
    G, h = rows
    assert G.shape[0] > 0 and np.isfinite(G).all() and np.isfinite(h).all()


# ---- batch, retarget


def test_batch_targets_refuse_complex_numbers_and_translations_no_robot_reaches():
    T = np.eye(4)[None].repeat(2, axis=0)
    with pytest.raises(InvalidInput, match="complex"):
        as_targets(T.astype(complex))
    far = T.copy()
    far[1, 0, 3] = 1e300
    with pytest.raises(InvalidInput, match="targets \\[1\\] have a translation beyond"):
        as_targets(far)
    assert as_targets(T).shape == (2, 4, 4)


def test_retarget_refuses_a_q_start_outside_the_joint_limits():
    """A joint at 2e14 rad never came back: the trajectory left the robot's range."""
    from taskik.retarget import clip_from_arrays, retarget

    robot = taskik.robots.load("ur5")
    hand = robot.configuration().get_transform_frame_to_world("tool0").translation
    clip = clip_from_arrays(("hand",), np.tile(hand, (2, 1, 1)), 25.0)
    mapping = {"tasks": [{"keypoint": "hand", "frame": "tool0"}], "scale": 1.0}
    q = robot.q0.copy()
    q[2] = 2e14
    with pytest.raises(InvalidInput, match="q_start is outside the joint limits"):
        retarget(robot, clip, mapping, q_start=q)
    result = retarget(robot, clip, mapping, q_start=robot.q0, steps=2, first_steps=2)
    lo, hi = robot.model.lowerPositionLimit, robot.model.upperPositionLimit
    assert ((result.q >= lo - 1e-6) & (result.q <= hi + 1e-6)).all()
