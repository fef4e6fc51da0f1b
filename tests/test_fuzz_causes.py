"""Defects the input fuzzer found (tests/fuzz.py): each test fails on the code before its fix."""

from __future__ import annotations

import contextlib
import math
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


# ---- entry points that arrived after the fuzzer's last run (tests/fuzz.py: gen_later_entries,
# gen_array_entries)


@pytest.mark.parametrize("bad", [None, "abc", 1, [0.0]])
def test_last_relaxation_names_what_is_not_a_configuration(bad):
    """Before: a bare TypeError from the weak-key lookup (None, a str), or an empty
    Relaxation for a model or a list, as if it were a configuration that never stepped."""
    with pytest.raises(InvalidInput, match="last_relaxation needs a taskik.Configuration"):
        taskik.last_relaxation(bad)
    model = taskik.robots.load("ur5").model
    with pytest.raises(InvalidInput, match="wrap the model"):
        taskik.last_relaxation(model)


@pytest.mark.parametrize(
    "change",
    ["none", "text", "short", "long", "column", "nan", "complex", "bools"],
)
def test_configuration_limit_check_refuses_what_is_not_a_q(change):
    """Before: a bare IndexError (None, a string), a TypeError, or None, i.e. "within the
    limits", for a q one coordinate too long, a column, NaN, complex or bools."""
    model = taskik.robots.load("ur5").model
    limit = taskik.ConfigurationLimit(model)
    q = np.zeros(model.nq)
    q[2] = math.nan
    bad = {
        "none": None,
        "text": "abc",
        "short": np.zeros(model.nq - 1),
        "long": np.zeros(model.nq + 1),
        "column": np.zeros((model.nq, 1)),
        "nan": q,
        "complex": np.zeros(model.nq, dtype=complex) + 1j,
        "bools": np.ones(model.nq, dtype=bool),
    }[change]
    with pytest.raises(InvalidInput, match="q"):
        limit.check(bad)
    limit.check(np.zeros(model.nq))  # (a valid q within the limits passes)
    with pytest.raises(taskik.NotWithinConfigurationLimits, match="outside"):
        limit.check(np.full(model.nq, 7.0))


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"p_min": [[-1.0, -1.0, -1.0]]}, "p_min must have one value per index"),
        ({"p_max": np.ones((3, 1))}, "p_max must have one value per index"),
        ({"gain": [[1.0]]}, "gain must be a scalar or a vector"),
        ({"indices": [True], "p_min": None, "p_max": [1.0]}, "indices must be distinct axes"),
    ],
)
def test_position_barrier_refuses_columns_nested_bounds_and_bool_indices(kw, message):
    """Before: a column or a nested list was flattened and ``indices=[True]`` read as the y
    axis, silently."""
    args = {"frame": "ee_link", "p_min": [-1.0, -1.0, -1.0], "p_max": [1.0, 1.0, 1.0], **kw}
    with pytest.raises(InvalidInput, match=message):
        taskik.limits.PositionBarrier(**args)
    # a scalar still bounds a single index, and one gain serves every row
    lim = taskik.limits.PositionBarrier("ee_link", indices=[2], p_min=0.1, gain=[2.0])
    assert lim.p_min.tolist() == [0.1] and lim.gain.tolist() == [2.0]


@pytest.mark.parametrize(
    "B, scale, message",
    [
        (None, 0.0, "B must be real numbers"),
        (np.ones(3), 0.0, "B must be a matrix"),
        (np.full((2, 3), np.nan), 0.0, "B contains NaN"),
        (np.ones((2, 3)), None, "scale"),
        (np.ones((2, 3)), -1.0, "scale"),
    ],
)
def test_null_basis_names_a_bad_matrix_or_scale(B, scale, message):
    """Before: bare AttributeError / ValueError / TypeError from numpy, or a basis of NaN."""
    from taskik.hierarchy import null_basis

    with pytest.raises(InvalidInput, match=message):
        null_basis(B, scale)
    N, rank = null_basis(np.array([[1.0, 0.0, 0.0]]))
    assert rank == 1 and N.shape == (3, 2) and np.allclose(np.array([[1.0, 0.0, 0.0]]) @ N, 0)


def test_task_label_refuses_what_is_not_a_task_and_vector_space_takes_numpy_ints():
    """Before: task_label(None) was "NoneType" (a label for a non-task); VectorSpace refused
    np.int64(3), a valid dimension."""
    from taskik.plots import task_label
    from taskik.utils import VectorSpace

    with pytest.raises(InvalidInput, match="task_label needs a taskik.Task"):
        task_label(None)
    assert task_label(taskik.FrameTask("tool")) == "FrameTask(tool)"
    assert VectorSpace(np.int64(3)).zeros.shape == (3,)
    with pytest.raises(InvalidInput, match="dim"):
        VectorSpace(np.bool_(True))


# ---- findings in modules other branches own: each test fails until the owner's fix lands


def test_collision_check_step_refuses_a_nan_step_whatever_the_order():
    model = taskik.robots.load("ur5").model
    limit = taskik.CollisionLimit(model, geometry.fit_capsules(model, 0.03))
    conf = taskik.Configuration(model, taskik.robots.load("ur5").q0)
    v = np.full(model.nv, np.nan)
    with pytest.raises(InvalidInput, match="v"):
        limit.check_step(conf, v, 0.01)


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"v": "nan"}, "v"),
        ({"v": "one nan"}, "v"),
        ({"v": "1e300"}, "beyond 1e\\+100"),
        ({"v": None}, "v"),
        ({"v": "column"}, "v"),
        ({"v": "row"}, "v"),
        ({"dt": -1.0}, "dt"),
        ({"dt": "0.01"}, "dt"),
        ({"configuration": None}, "Configuration"),
        ({"configuration": "ur5"}, "nv"),
    ],
)
@pytest.mark.parametrize("announced", [False, True])
def test_check_step_refuses_bad_arguments_whatever_the_limits_state(bad, match, announced, talos):
    """Both limits that check the solved step name a bad argument, announced or not."""
    conf = talos.configuration()
    feet = taskik.contacts.both_feet(talos, conf)
    limits = [
        taskik.BalanceLimit(feet),
        taskik.CollisionLimit(talos.model, geometry.fit_capsules(talos.model, 0.03)),
    ]
    ur5 = taskik.robots.load("ur5")
    args = {"configuration": conf, "v": np.zeros(talos.model.nv), "dt": 0.01}
    if "configuration" in bad and bad["configuration"] == "ur5":
        bad = {"configuration": taskik.Configuration(ur5.model, ur5.q0)}
    if "v" in bad and bad["v"] in ("column", "row"):  # (nv entries, not the shape (nv,))
        bad = {"v": np.zeros((talos.model.nv, 1) if bad["v"] == "column" else (1, talos.model.nv))}
    if "v" in bad and isinstance(bad["v"], str):  # (one NaN: min and max may skip it)
        v = np.zeros(talos.model.nv)
        fill = {"nan": slice(None), "one nan": 3, "1e300": 5}[bad["v"]]
        v[fill] = 1e300 if bad["v"] == "1e300" else np.nan
        bad = {"v": v}
    for limit in limits:
        for _ in range(2 if announced else 0):  # (the second call: the common step's path)
            limit.expect_check()
            limit.compute_inequalities(conf, 0.01)
        # (BalanceLimit holds no model: it names v's size against the configuration's)
        if isinstance(limit, taskik.BalanceLimit) and match == "nv":
            match_here = "v must have shape"
        else:
            match_here = match
        with pytest.raises(InvalidInput, match=match_here):
            limit.check_step(**{**args, **bad})


def test_a_failed_assembly_withdraws_the_announcement_of_a_checked_step(talos):
    """An announcement left standing (a limit before it raised during the assembly) gave
    the next, unannounced caller only the near edges' rows, with nothing to check the rest."""
    conf = talos.configuration()
    feet = taskik.contacts.both_feet(talos, conf)
    balance = taskik.BalanceLimit(feet)
    every_edge = balance.compute_inequalities(conf, 0.01)
    assert every_edge is not None and len(every_edge[1]) >= 4

    class Failing(taskik.limits.Limit):
        def compute_inequalities(self, configuration, dt):
            raise InvalidInput("this limit fails on purpose")

    hand = taskik.PositionTask(talos.end_effectors[3])
    hand.set_target(conf.get_transform_frame_to_world(talos.end_effectors[3]).translation)
    with pytest.raises(InvalidInput, match="on purpose"):
        taskik.solve_ik(conf, [hand], 0.01, limits=[Failing(), balance])
    rows = balance.compute_inequalities(conf, 0.01)  # (a caller solving the rows itself)
    assert rows is not None and len(rows[1]) == len(every_edge[1])


def test_collision_check_step_names_a_configuration_that_is_not_one():
    # (before: check_step(None, v, dt) after an announced compute_inequalities raised a bare
    # AttributeError; unannounced, a NaN step, None or another model passed as "fine")
    model = taskik.robots.load("ur5").model
    limit = taskik.CollisionLimit(model, geometry.fit_capsules(model, 0.03))
    conf = taskik.Configuration(model, taskik.robots.load("ur5").q0)
    limit.expect_check()
    limit.compute_inequalities(conf, 0.01)
    with pytest.raises(InvalidInput, match="Configuration"):
        limit.check_step(None, np.zeros(model.nv), 0.01)


@pytest.mark.parametrize("e_out", ["long", "int", "float32", "none", "read-only"])
def test_posture_write_error_refuses_an_output_array_of_the_wrong_kind(e_out):
    model = taskik.robots.load("ur5").model
    task = taskik.PostureTask(1e-2)
    task.set_target(np.zeros(model.nq))
    conf = taskik.Configuration(model, np.full(model.nq, 0.1))
    out = {
        "long": np.zeros(model.nv + 1),
        "int": np.zeros(model.nv, dtype=int),
        "float32": np.zeros(model.nv, dtype=np.float32),
        "none": None,
        "read-only": np.zeros(model.nv),
    }[e_out]
    if e_out == "read-only":
        out.flags.writeable = False
    with pytest.raises(InvalidInput, match="e_out"):
        task.write_error(conf, out)


@pytest.mark.parametrize("method", ["set_position_cost", "set_orientation_cost"])
def test_frame_task_cost_setters_refuse_none(method):
    task = taskik.FrameTask("tool")
    with pytest.raises(InvalidInput, match="cost"):
        getattr(task, method)(None)


@pytest.mark.parametrize("point", [None, "abc", [0.0], [0.0 + 1j, 0.0], [math.nan, 0.0]])
def test_support_region_refuses_a_point_that_is_not_xy(point):
    from taskik.contacts import Contact, ContactSet, support_region

    model = taskik.robots.load("ur5").model
    conf = taskik.Configuration(model, taskik.robots.load("ur5").q0)
    region = support_region(ContactSet.of(conf, [Contact.rectangle("tool0", 0.2, 0.1)]))
    with pytest.raises(InvalidInput, match="point"):
        region.signed_distance(point)


@pytest.mark.parametrize(
    "call",
    ["contains margin None", "contains margin NaN", "hull (k, 3)", "hull flat", "hull NaN",
     "hull complex", "hull None", "hull 1e300", "generators normal not unit",
     "generators friction NaN"],
)  # fmt: skip
def test_contains_convex_hull_and_generators_name_a_bad_argument(call):
    """Before: contains(p, None) was a bare TypeError and a NaN margin False; convex_hull_2d
    read (k, 3) points as pairs, accepted NaN and complex, and was a bare error for None;
    friction_generators gave a cone of the wrong angle for a normal of length 2 and NaN
    generators for a NaN friction."""
    from taskik.contacts import Contact, ContactSet, convex_hull_2d, friction_generators

    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    region = support_region_of(conf, Contact, ContactSet)
    pts = np.random.default_rng(0).uniform(-1.0, 1.0, (12, 2))
    up = np.array([0.0, 0.0, 1.0])
    action, message = {
        "contains margin None": (lambda: region.contains([0.0, 0.0], None), "margin"),
        "contains margin NaN": (lambda: region.contains([0.0, 0.0], math.nan), "margin"),
        "hull (k, 3)": (lambda: convex_hull_2d(np.c_[pts, pts[:, :1]]), "points"),
        "hull flat": (lambda: convex_hull_2d(pts.ravel()), "points"),
        "hull NaN": (lambda: convex_hull_2d(np.vstack([pts, [math.nan, 0.0]])), "points"),
        "hull complex": (lambda: convex_hull_2d(pts.astype(complex)), "points"),
        "hull None": (lambda: convex_hull_2d(None), "points"),
        "hull 1e300": (lambda: convex_hull_2d(np.vstack([pts, [1e300, 0.0]])), "points"),
        "generators normal not unit": (lambda: friction_generators(2 * up, 0.5, 8), "normal"),
        "generators friction NaN": (lambda: friction_generators(up, math.nan, 8), "friction"),
    }[call]
    with pytest.raises(InvalidInput, match=message):
        action()
    # valid calls still answer: a hull holding every point, unit-axis generators
    H = convex_hull_2d(pts)
    for a, b in zip(H, np.roll(H, -1, axis=0), strict=True):
        assert (
            (b[0] - a[0]) * (pts[:, 1] - a[1]) - (b[1] - a[1]) * (pts[:, 0] - a[0])
        ).min() > -1e-9
    assert np.allclose(friction_generators(up, 0.5, 8) @ up, 1.0)


def support_region_of(conf, Contact, ContactSet):
    from taskik.contacts import support_region

    return support_region(ContactSet.of(conf, [Contact.rectangle("tool0", 0.2, 0.1)]))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (numpy's cross of 2-vectors)
@pytest.mark.parametrize(
    "args", [(None, 0.5, 8), (np.ones(2), 0.5, 8), (np.array([0, 0, 1.0]), None, 8),
             (np.array([0, 0, 1.0]), 0.5, 10**6)],
    ids=["normal None", "normal of 2", "friction None", "edges 10**6"],
)  # fmt: skip
def test_friction_generators_checks_its_arguments(args):
    from taskik.contacts import friction_generators

    with pytest.raises(InvalidInput, match="normal|friction|edges"):
        friction_generators(*args)


@pytest.mark.parametrize("case", ["none", "mismatch", "empty"])
def test_contact_set_from_points_names_mismatched_inputs(case):
    from taskik.contacts import Contact, ContactSet

    contact = Contact.rectangle("tool", 0.2, 0.1)
    pts = [np.zeros((4, 3))]
    points, contacts = {
        "none": (None, [contact]),
        "mismatch": (pts, [contact, contact]),
        "empty": ([], []),
    }[case]
    with pytest.raises(InvalidInput, match="points|contact"):
        ContactSet.from_points(points, contacts)


@pytest.mark.parametrize("name", ["solve_pinv", "solve_dls", "solve_sdls", "solve_transpose"])
def test_backend_kernels_name_a_bad_matrix(name):
    from taskik import backends

    A = np.ones((3, 5))
    args = (A.T, np.ones(3)) if name != "solve_dls" else (A.T, np.ones(3), 1e-3)
    with pytest.raises(InvalidInput, match="A|shape"):
        getattr(backends, name)(*args)


@pytest.mark.parametrize(
    "kw", [{"gamma0": None}, {"sigma_thr": "abc"}, {"rcond": [1e-10]}, {"rcond": 1.5}]
)
def test_regularized_jacobian_names_a_bad_parameter(kw):
    from taskik import backends

    with pytest.raises(InvalidInput, match=next(iter(kw))):
        backends.RegularizedJacobian(**kw)


def test_relax_helpers_check_their_arguments():
    """Before: relax_rank(None) was 20.0 (the default rank of a limit); least_violation gave
    bare numpy errors for a missing G or mismatched shapes, NaN slacks for NaN in h, and None
    ("no solution") for a box of the wrong size."""
    from taskik.relax import least_violation, relax_rank

    with pytest.raises(InvalidInput, match="relax_rank needs a taskik.Limit"):
        relax_rank(None)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])  # (v0 <= -1, v0 >= 1)
    for args, message in (
        ((None, h, None, None, np.zeros(2)), "G must be real numbers"),
        ((G, h[:1], None, None, np.zeros(2)), "h must have shape"),
        ((G, np.array([np.nan, 1.0]), None, None, np.zeros(2)), "h contains NaN"),
        ((G, h, None, None, np.zeros(3)), "ranks must be 2 numbers"),
        ((G, h, np.zeros(3), None, np.zeros(2)), "lb must be 2 numbers"),
    ):
        with pytest.raises(InvalidInput, match=message):
            least_violation(*args)
    # the conflict itself: both rows give way by the same slack, their sum 2 (the gap)
    s, v = least_violation(G, h, [-np.inf, -np.inf], [np.inf, np.inf], np.zeros(2))
    assert s.sum() == pytest.approx(2.0, abs=1e-6) and np.all(G @ v <= h + s + 1e-6)


@pytest.mark.parametrize("case", ["configuration None", "adaptive None"])
def test_solve_hierarchy_checks_the_configuration_and_adaptive(case):
    from taskik.hierarchy import solve_hierarchy

    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    task = taskik.PostureTask(1.0)
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match="Configuration|adaptive"):
        if case == "configuration None":
            solve_hierarchy(None, [[task]], 0.01)
        else:
            solve_hierarchy(conf, [[task]], 0.01, adaptive=None)


@pytest.mark.parametrize("i", [6, -1, 1.5, True, None])
def test_velocity_index_name_refuses_an_index_out_of_range(i):
    from taskik.limits.limit import velocity_index_name

    with pytest.raises(InvalidInput, match="index"):
        velocity_index_name(taskik.robots.load("ur5").model, i)


def _a_step_with_1e300_in_v():
    """(configuration, a posture task at its target, a step with 1e300 in v) on the UR5:
    what a report of that step overflows on."""
    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    task = taskik.PostureTask(1.0)
    task.set_target(ur5.q0)
    v = np.zeros(ur5.model.nv)
    v[2] = 1e300
    return conf, task, v


def test_report_and_manipulability_refuse_overflow_without_numpy_warnings():
    """Before: the refusal came after numpy's RuntimeWarning "overflow encountered in matmul"
    (report of a step with 1e300 in v) and "in reduce" (manipulability of a 1e300 J)."""
    from taskik import metrics

    conf, task, v = _a_step_with_1e300_in_v()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInput, match="the report overflows"):
            taskik.report(conf, [task], 0.01, v)
        with pytest.raises(InvalidInput, match="manipulability of J overflows"):
            metrics.manipulability(np.full((6, 6), 1e300) * np.eye(6))


@pytest.mark.parametrize("case", ["target 1e154 m", "position_cost 1e300"])
def test_costs_and_targets_whose_rows_overflow_are_refused_without_numpy_warnings(case):
    # (the QP squares the weighted rows: a cost of 1e300 or a target 1e154 m away overflowed
    # in the assembly's products, with numpy's warning, before DAQP gave up)
    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(taskik.InvalidInput, match="at most|overflows a float"):
            if case == "target 1e154 m":
                task = taskik.FrameTask("tool0")
                task.set_target(pin.SE3(np.eye(3), np.array([1e154, 0.0, 0.0])))
            else:
                task = taskik.FrameTask("tool0", position_cost=1e300)
                task.set_target(pin.SE3(np.eye(3), np.array([0.3, 0.2, 0.1])))
            taskik.solve_ik(conf, [task], 0.01)


def test_the_largest_cost_and_target_give_a_step_or_a_clear_error_without_overflow():
    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    task = taskik.FrameTask("tool0", position_cost=taskik.tasks.task.MAX_COST)
    task.set_target(pin.SE3(np.eye(3), np.array([taskik.tasks._frames.MAX_TRANSLATION, 0, 0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(taskik.NoSolutionFound, match="numerically out of range"):
            taskik.solve_ik(conf, [task], 0.01)
    task.set_target(pin.SE3(np.eye(3), np.array([0.3, 0.2, 0.1])))
    task.set_position_cost(1e6)  # (a large cost in common use: a step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isfinite(taskik.solve_ik(conf, [task], 0.01)).all()


@pytest.mark.parametrize("backend, far", [("dls", 1e30), ("transpose", 1e60)])
def test_classic_backends_refuse_a_far_target_cleanly(backend, far):
    ur5 = taskik.robots.load("ur5")
    conf = taskik.Configuration(ur5.model, ur5.q0)
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([far, 0.0, 0.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            v = taskik.solve_ik(conf, [task], 0.01, backend=backend)
        except taskik.TaskikError:
            return
    assert np.isfinite(v).all()


def test_halfspace_refuses_a_huge_normal_without_numpy_warnings():
    with warnings.catch_warnings(), contextlib.suppress(taskik.TaskikError):
        warnings.simplefilter("error")
        geometry.halfspace("h", [0.0, 0.0, 1e200])


@pytest.mark.parametrize(
    "name, kw, message",
    [
        ("solve_dls", {"damping": -1.0}, "damping must be"),
        ("solve_dls", {"damping": None}, "damping must be a real number"),
        ("solve_dls", {"damping": np.full(6, 1e-3)}, "damping must have shape"),
        ("solve_pinv", {"rcond": math.nan}, "rcond must be"),
        ("solve_dls_svd", {"lam": -0.1}, "lam must be"),
        ("solve_sdls", {"starts": [1]}, "starts must be"),
        ("solve_sdls", {"starts": [0, 0]}, "starts must be"),
        ("solve_sdls", {"starts": [0, 5]}, "starts must be"),
        ("solve_sdls", {"starts": "abc"}, "starts must be"),
        ("solve_sdls", {"gamma_max": -1.0}, "gamma_max must be"),
        ("solve_transpose", {"c": [[1.0, 2.0, 3.0]]}, "c must have shape"),
        ("solve_pinv", {"A": np.where(np.eye(3, 5) > 0, np.nan, 1.0)}, "A contains NaN"),
        ("solve_transpose", {"A": np.ones((3, 5)) * (1 + 1j)}, "A must be real"),
    ],
)
def test_backend_kernels_name_each_bad_argument(name, kw, message):
    """Before: bare numpy errors (LinAlgError, IndexError, TypeError), a zero step for a NaN
    rcond, a 2-D answer for a nested c, starts that are not groups accepted."""
    from taskik import backends

    rng = np.random.default_rng(3)
    args = {"A": rng.standard_normal((3, 5)), "c": rng.standard_normal(3)}
    extra = {"solve_dls": {"damping": 1e-3}, "solve_dls_svd": {"lam": 1e-3}}.get(name, {})
    args.update(extra)
    args.update(kw)
    A, c = args.pop("A"), args.pop("c")
    with pytest.raises(InvalidInput, match=message):
        getattr(backends, name)(A, c, **args)


def test_checked_backend_kernels_answer_as_the_kernels_and_refuse_an_overflow():
    """The exported solvers give the kernels' step on valid input; a singular undamped
    system and an overflowing transpose step are named (were a bare LinAlgError and a
    RuntimeWarning then NaN)."""
    from taskik import backends
    from taskik.backends import dls, pseudoinverse, sdls, transpose

    rng = np.random.default_rng(4)
    A, c = rng.standard_normal((3, 5)), rng.standard_normal(3)
    assert np.allclose(backends.solve_pinv(A, c), pseudoinverse.solve_pinv(A, c), atol=1e-12)
    assert np.allclose(backends.solve_dls(A, c, 1e-2), dls.solve_dls(A, c, 1e-2), atol=1e-12)
    assert np.allclose(backends.solve_sdls(A, c, [0]), sdls.solve_sdls(A, c, [0]), atol=1e-12)
    v = backends.solve_transpose(A.tolist(), c.tolist())
    assert np.allclose(v, transpose.solve_transpose(A, c), atol=1e-12)
    # Williams' step: α Aᵀc with α = ‖Aᵀc‖² / ‖AAᵀc‖² (a factor off changes the residual)
    g = A.T @ c
    assert np.allclose(v, (g @ g) / np.sum((A @ g) ** 2) * g, rtol=1e-12)
    with pytest.raises(InvalidInput, match="singular"):
        backends.solve_dls(np.ones((6, 6)), np.ones(6), 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInput, match="overflows"):
            backends.solve_transpose(np.full((3, 5), 1e300), np.ones(3))


def test_hierarchy_report_refuses_an_overflowing_v_without_numpy_warnings():
    """Before: numpy's "overflow encountered in dot" (the residual's norm) came before the
    refusal of a v with 1e300 in it."""
    conf, task, v = _a_step_with_1e300_in_v()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInput, match="the report overflows"):
            taskik.hierarchy_report(conf, [[task]], 0.01, v)
