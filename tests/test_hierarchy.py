"""Strict task priorities (taskik.hierarchy): cascade of QPs and null-space path."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pinocchio as pin
import pytest
import qpsolvers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import taskik
from taskik import (
    ComTask,
    FrameTask,
    InvalidInput,
    PositionTask,
    PostureTask,
    VelocityLimit,
)
from taskik.hierarchy import LevelSplit, check_levels, hierarchy_report, null_basis

DT = 0.05
FEET = ("lleg_effector_body", "rleg_effector_body")
HANDS = ("larm_effector_body", "rarm_effector_body")


# ----------------------------------------------------------------------------- helpers
def level_rows(conf, tasks, dt):
    """Stacked ``A = W J``, ``c = W Kp e / dt`` and ``μ = Σ lm ‖W e‖²`` of a level."""
    terms = [t.compute_term(conf, dt) for t in tasks]
    A = np.vstack([a for a, _, _ in terms])
    c = np.concatenate([cc for _, cc, _ in terms])
    return A, c, sum(mu for _, _, mu in terms)


def residuals(conf, levels, dt, v):
    """``‖A_k v − c_k‖`` per level."""
    out = []
    for tasks in levels:
        A, c, _ = level_rows(conf, tasks, dt)
        out.append(float(np.linalg.norm(A @ v - c)))
    return out


def textbook_nullspace(conf, levels, dt, damping):
    """Siciliano–Slotine recursion with damped inverses, written with explicit projectors:

    v_k = v_{k−1} + (A_k N_{k−1})^{#λ} (c_k − A_k v_{k−1}),  N_k = N_{k−1} − X⁺ X,
    X^{#λ} = Xᵀ (X Xᵀ + λ I)⁻¹ = V diag(s / (s² + λ)) Uᵀ (SVD, zero singular values dropped).
    """
    nv = conf.nv
    v = np.zeros(nv)
    N = np.eye(nv)
    for tasks in levels:
        A, c, mu = level_rows(conf, tasks, dt)
        X = A @ N
        lam = mu + damping
        U, s, Vt = np.linalg.svd(X, full_matrices=False)
        keep = s > 1e-10 * s[0]
        U, s, Vt = U[:, keep], s[keep], Vt[keep]
        v = v + Vt.T @ ((s / (s**2 + lam)) * (U.T @ (c - A @ v)))
        N = N - Vt.T @ Vt
    return v


def frame_task(conf, frame, offset, rng=None, **kwargs):
    task = FrameTask(frame, **kwargs)
    T = conf.get_transform_frame_to_world(frame)
    T.translation = T.translation + np.asarray(offset)
    if rng is not None:
        T.rotation = T.rotation @ pin.exp3(rng.uniform(-0.2, 0.2, 3))
    task.set_target(T)
    return task


def three_contacts(conf, hand_target, lm_damping=1.0):
    """Seed 001's example: both feet stay where they are, a hand reaches a far point."""
    feet = [FrameTask(f) for f in FEET]
    for t in feet:
        t.set_target_from_configuration(conf)
    hand = PositionTask(HANDS[0], lm_damping=lm_damping)
    hand.set_target(hand_target)
    return feet[0], feet[1], hand


def run(conf, tasks, steps, dt=DT, limits=None, **kwargs):
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, dt, limits=limits, **kwargs)
        conf.integrate_inplace(v, dt)
    return v


# --------------------------------------------------------------- seed 001's example
def test_three_contacts_weighted_reaches_none_prioritized_reaches_two(humanoid):
    """Seed 001: a humanoid asked for three contacts of which only two can be made."""
    target = np.array([8.0, 0.3, 0.0])  # far beyond the hand's reach with the feet in place

    conf_w = humanoid.configuration()
    lf, rf, hand = three_contacts(conf_w, target)
    run(conf_w, [lf, rf, hand], 300)
    errors_w = [np.linalg.norm(t.compute_error(conf_w)) for t in (lf, rf, hand)]
    assert min(errors_w) > 0.1, errors_w  # "in the middle": no contact is made

    conf = humanoid.configuration()
    lf, rf, hand = three_contacts(conf, target)
    levels = [[lf], [rf], [hand]]
    q_min, q_max = humanoid.model.lowerPositionLimit[7:], humanoid.model.upperPositionLimit[7:]
    for _ in range(300):
        v = taskik.solve_ik(conf, levels, DT)
        conf.integrate_inplace(v, DT)
        assert np.all(conf.q[7:] >= q_min - 1e-9) and np.all(conf.q[7:] <= q_max + 1e-9)
    assert np.linalg.norm(lf.compute_error(conf)) < 1e-6
    assert np.linalg.norm(rf.compute_error(conf)) < 1e-6
    e_hand = hand.compute_error(conf)
    assert np.linalg.norm(e_hand) > 2.0  # still far: the target is out of reach

    # "as close as the feet allow": first-order optimality of min ‖e_hand‖² subject to the
    # feet poses and the joints at a position limit (KKT, independent of the solver).
    J_feet = np.vstack([lf.compute_jacobian(conf), rf.compute_jacobian(conf)])
    J_hand = hand.compute_jacobian(conf)
    limit = taskik.ConfigurationLimit(humanoid.model)
    q = conf.q[limit.q_indices]
    at_upper = limit.indices[q > limit.q_max - 1e-3]
    at_lower = limit.indices[q < limit.q_min + 1e-3]
    active = np.concatenate([at_upper, at_lower])
    E = np.eye(conf.nv)[active]
    grad = J_hand.T @ e_hand  # direction in which ‖e_hand‖² decreases fastest
    K = np.vstack([J_feet, E])
    mult, *_ = np.linalg.lstsq(K.T, grad, rcond=None)
    stationarity = np.linalg.norm(grad - K.T @ mult) / (
        np.linalg.norm(J_hand) * np.linalg.norm(e_hand)
    )
    assert stationarity < 2e-3
    beta = mult[len(J_feet) :]
    # the hand pulls the joints at their limits outward (positive at an upper limit)
    assert np.all(beta[: len(at_upper)] > -1e-6) and np.all(beta[len(at_upper) :] < 1e-6)

    # and the prioritized step there asks for nothing more of the feet
    v = taskik.solve_ik(conf, levels, DT)
    rep = hierarchy_report(conf, levels, DT, v)
    assert rep.levels[0].satisfied and rep.levels[1].satisfied and not rep.levels[2].satisfied


# ------------------------------------------------------------ lower levels are invisible
def vectors(lo, hi, n=3):
    """Vectors of ``n`` floats in ``[lo, hi]`` (``lo``, ``hi`` scalars or per component)."""
    lo, hi = np.broadcast_to(lo, n), np.broadcast_to(hi, n)
    return st.tuples(*(st.floats(a, b) for a, b in zip(lo, hi, strict=True))).map(np.array)


def humanoid_configurations(robot, margin=1e-6):
    """Joints anywhere within their limits but ``margin`` (rad), drawn as offsets from
    ``q0`` (so they shrink towards the reference posture); the base within 0.1 m of ``q0``'s
    position and turned by ``exp3(ω)``, ``|ω_i| ≤ 0.3`` rad.

    The margin keeps out of the 1e-8 test below a joint exactly on its bound, where a lower
    level can move the top level's residual by ~1e-8 with DAQP (1e-12 with quadprog)."""
    model, q0 = robot.model, robot.q0

    def build(drawn):
        dp, omega, offsets = drawn
        q = q0.copy()
        q[:3] += dp
        q[3:7] = pin.Quaternion(pin.exp3(omega)).coeffs()
        q[7:] += offsets
        return q

    lo = model.lowerPositionLimit[7:] + margin - q0[7:]
    hi = model.upperPositionLimit[7:] - margin - q0[7:]
    offsets = vectors(lo, hi, model.nq - 7)
    return st.tuples(vectors(-0.1, 0.1), vectors(-0.3, 0.3), offsets).map(build)


def task_specs(frames, robot):
    """What a task is, as plain values (shown as drawn when the test fails)."""
    frame = st.sampled_from(frames)
    return st.one_of(
        st.tuples(st.just("frame"), frame, vectors(-0.1, 0.1), vectors(-0.2, 0.2),
                  st.floats(0.2, 1.0)),
        st.tuples(st.just("position"), frame, vectors(-1.0, 1.0), st.floats(0.1, 2.0),
                  st.sampled_from([0.0, 1e-2])),
        st.tuples(st.just("com"), vectors(-0.05, 0.05), st.floats(0.1, 2.0)),
        st.tuples(st.just("posture"), humanoid_configurations(robot), st.floats(1e-3, 1.0),
                  st.floats(0.1, 1.0)),
    )  # fmt: skip


def make_task(conf, spec):
    """The task of a spec, its target relative to the current configuration."""
    kind, *values = spec
    if kind == "frame":
        frame, offset, rotation, gain = values
        task = FrameTask(frame, gain=gain)
        T = conf.get_transform_frame_to_world(frame)
        T.translation = T.translation + offset
        T.rotation = T.rotation @ pin.exp3(rotation)
        task.set_target(T)
    elif kind == "position":
        frame, offset, cost, lm_damping = values
        task = PositionTask(frame, cost=cost, lm_damping=lm_damping)
        task.set_target(conf.get_transform_frame_to_world(frame).translation + offset)
    elif kind == "com":
        offset, cost = values
        task = ComTask(cost)
        task.set_target(conf.com + offset)
    else:
        q_target, cost, gain = values
        task = PostureTask(cost, gain=gain)
        task.set_target(q_target)
    return task


# Left out: velocity limits of 0.3 rad/s that bind at the top level. There a lower level
# moves the top level's residual by up to ~2e-6 with DAQP (quadprog: < 5e-9), e.g. the left
# hand's FrameTask turned 0.125 rad about z over a PositionTask holding the right hand, at
# q0 with larm_shoulder2_joint at 1 rad: 5.0e-8 against 3.9e-9 for the top level alone.
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    n_levels=st.integers(2, 4),
    change=st.sampled_from(["remove", "add", "reweight", "drop_level"]),
    limits=st.sampled_from(["default", "none"]),
)
def test_lower_levels_never_change_what_higher_levels_achieve(
    humanoid, data, n_levels, change, limits
):
    conf = humanoid.configuration(data.draw(humanoid_configurations(humanoid), label="q"))
    frames = list(humanoid.end_effectors) + ["chest2_body", "head2_body"]
    frames = [f for f in frames if f in conf._frame_ids]
    specs = task_specs(frames, humanoid)
    level_specs = data.draw(
        st.lists(st.lists(specs, min_size=1, max_size=2), min_size=n_levels, max_size=n_levels),
        label="levels",
    )
    levels = [[make_task(conf, spec) for spec in level] for level in level_specs]
    k = data.draw(st.integers(1, n_levels - 1), label="k")  # levels k.. change, < k must not
    changed = [list(level) for level in levels]
    if change == "remove" and len(changed[k]) == 1:
        del changed[k]  # no empty level: solve_ik([[a], [], [b]]) can divide by zero rows
    elif change == "remove":
        changed[k].pop(data.draw(st.integers(0, len(changed[k]) - 1), label="removed"))
    elif change == "add":
        changed[k].append(make_task(conf, data.draw(specs, label="added")))
    elif change == "reweight":
        i = data.draw(st.integers(0, len(changed[k]) - 1), label="reweighted")
        reweighted = copy.copy(changed[k][i])
        reweighted.cost = reweighted.cost * data.draw(st.floats(0.01, 100.0), label="factor")
        changed[k][i] = reweighted
    else:
        changed = changed[:k]
    lim = {"default": None, "none": []}[limits]
    v = taskik.solve_ik(conf, levels, DT, limits=lim)
    v_changed = taskik.solve_ik(conf, changed, DT, limits=lim)
    r = residuals(conf, levels[:k], DT, v)
    r_changed = residuals(conf, levels[:k], DT, v_changed)
    assert np.allclose(r, r_changed, rtol=0, atol=1e-8), (r, r_changed)


# ------------------------------------------------------------------------------ limits
def test_higher_level_under_joint_limits(panda, rng):
    """Limits hold, and the top level does as well as the one-level QP with it alone."""
    conf = panda.configuration()
    tool = frame_task(conf, "panda_hand", [0.3, -0.2, 0.2])
    elbow = PositionTask("panda_link4")
    elbow.set_target(conf.get_transform_frame_to_world("panda_link4").translation + [0, 0.3, 0])
    posture = PostureTask(1.0)
    posture.set_target(panda.q0 + rng.uniform(-1, 1, panda.model.nq))
    levels = [[tool], [elbow], [posture]]
    vmax = VelocityLimit(panda.model, {n: 0.5 for n in panda.model.names[1:]})
    limits = [taskik.ConfigurationLimit(panda.model), vmax]
    saturated = 0
    for _ in range(60):
        # one step's exactness: the plain step (the loop's adaptive damping damps an unmet level)
        v = taskik.solve_ik(conf, levels, DT, limits=limits, adaptive=False)
        v_alone = taskik.solve_ik(conf, [tool], DT, limits=limits, adaptive=False)
        r = residuals(conf, [[tool]], DT, v)[0]
        r_alone = residuals(conf, [[tool]], DT, v_alone)[0]
        assert r <= r_alone + 1e-9 * max(1.0, r_alone)
        assert np.all(np.abs(v) <= 0.5 + 1e-9)
        saturated += np.any(np.abs(v) > 0.5 - 1e-9)
        conf.integrate_inplace(v, DT)
        lo, hi = panda.model.lowerPositionLimit, panda.model.upperPositionLimit
        assert np.all(conf.q >= lo - 1e-9) and np.all(conf.q <= hi + 1e-9)
    assert saturated > 10  # the limits were binding, not decorative


def test_joint_limit_at_the_top_is_kept_by_every_level(planar_2r):
    """A joint at its position limit: no level may push it further, even the lowest."""
    model = planar_2r.model.copy()
    model.upperPositionLimit[:] = [0.3, 3.0]
    conf = taskik.Configuration(model, np.array([0.3, 0.6]))
    reach = PositionTask("ee", cost=[1.0, 1.0, 0.0])
    T = conf.get_transform_frame_to_world("ee")
    reach.set_target(T.translation + [-0.3, 0.3, 0.0])  # needs q0 beyond its upper limit
    posture = PostureTask(1.0)
    posture.set_target(np.array([2.0, 2.0]))
    v = taskik.solve_ik(conf, [[reach], [posture]], DT)
    assert v[0] <= 1e-12


def binding_humanoid_levels(conf, rng):
    """Feet and CoM / both hands / posture, targets far enough for velocity limits to bind."""
    feet = [FrameTask(f) for f in FEET]
    for t in feet:
        t.set_target_from_configuration(conf)
    com = ComTask()
    com.set_target(conf.com + rng.normal(0.0, 0.015, 3))
    hands = [frame_task(conf, f, rng.normal(0.0, 0.05, 3), rng=rng) for f in HANDS]
    posture = PostureTask(1e-2)
    posture.set_target(conf.q)
    return [[*feet, com], hands, [posture]]


@pytest.mark.parametrize("seed", range(12))
def test_binding_limits_lower_levels_keep_the_top_level_optimal(humanoid, seed):
    """With velocity limits binding at every level, the final step is still an optimum of
    the top level (KKT of ``min ‖A₀v − c₀‖²`` over the box): a lower level never buys its
    own progress with a sliver of the top level's. Stationarity: the top level's gradient
    vanishes on the coordinates strictly inside their bounds and points outwards at a bound.
    """
    rng = np.random.default_rng(seed)
    q = humanoid.q0.copy()
    if seed % 2:
        q[7:] += rng.normal(0.0, 0.2, humanoid.model.nq - 7)
    conf = humanoid.configuration(q)
    levels = binding_humanoid_levels(conf, rng)
    slow = VelocityLimit(humanoid.model, {name: 0.5 for name in humanoid.model.names[2:]})
    limits = [taskik.ConfigurationLimit(humanoid.model), slow]
    v = taskik.solve_ik(conf, levels, 0.01, limits=limits)
    plan = taskik.build_ik(conf, [t for level in levels for t in level], 0.01, limits=limits)
    lb, ub = plan.lb, plan.ub
    A0, c0, _ = level_rows(conf, levels[0], 0.01)
    grad = A0.T @ (A0 @ v - c0)
    at_lower, at_upper = v <= lb + 1e-9, v >= ub - 1e-9
    inside = ~(at_lower | at_upper)
    assert (at_lower | at_upper).sum() >= 5  # the limits bind, not decorative
    scale = np.abs(A0.T @ c0).max()
    assert np.abs(grad).max() > 1e-3 * scale  # the limits keep the top level from its target
    tol = 1e-4 * np.abs(grad).max()
    assert np.abs(grad[inside]).max() <= tol
    assert grad[at_lower].min(initial=0.0) >= -tol  # decreasing v_i would lower the cost
    assert grad[at_upper].max(initial=0.0) <= tol
    assert np.all(v >= lb) and np.all(v <= ub)


# ------------------------------------------------------ cascade vs null-space vs textbook
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("damping", [1e-12, 1e-3])
def test_cascade_nullspace_and_textbook_agree_without_inequalities(humanoid, seed, damping):
    rng = np.random.default_rng(seed)
    conf = humanoid.configuration(humanoid.random_configuration(rng))
    lf = frame_task(conf, FEET[0], rng.uniform(-0.05, 0.05, 3))
    com = ComTask()
    com.set_target(conf.com + rng.uniform(-0.05, 0.05, 3))
    hand = frame_task(conf, HANDS[1], rng.uniform(-0.2, 0.2, 3), rng, lm_damping=0.5)
    other = PositionTask(HANDS[0], lm_damping=1e-2, gain=0.5)
    other.set_target(rng.uniform(-1, 1, 3))
    posture = PostureTask(0.1)
    posture.set_target(humanoid.random_configuration(rng))
    levels = [[lf, com], [hand, other], [posture]]
    kw = dict(limits=[], damping=damping)
    v_ns = taskik.solve_ik(conf, levels, DT, method="nullspace", **kw)
    v_cascade = taskik.solve_ik(conf, levels, DT, method="cascade", **kw)
    v_auto = taskik.solve_ik(conf, levels, DT, **kw)
    v_book = textbook_nullspace(conf, levels, DT, damping)
    scale = max(1.0, np.linalg.norm(v_book))
    assert np.array_equal(v_auto, v_ns)
    assert np.linalg.norm(v_ns - v_book) < 1e-7 * scale
    assert np.linalg.norm(v_cascade - v_book) < 1e-6 * scale
    # and a velocity limit that no step reaches changes nothing (cascade path, no QP bound)
    wide = [VelocityLimit(humanoid.model, {n: 1e6 for n in humanoid.model.names[2:]})]
    v_wide = taskik.solve_ik(conf, levels, DT, limits=wide, damping=damping)
    assert np.linalg.norm(v_wide - v_ns) < 1e-9 * scale


def test_cascade_with_other_qp_solvers(ur5):
    conf = ur5.configuration()
    tool = PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.3, 0.0, 0.1])
    posture = PostureTask(1.0)
    posture.set_target(ur5.q0 + 0.5)
    limits = [VelocityLimit(ur5.model, {n: 0.4 for n in ur5.model.names[1:]})]
    levels = [[tool], [posture]]
    v = taskik.solve_ik(conf, levels, DT, limits=limits, method="cascade")
    assert np.max(np.abs(v)) == pytest.approx(0.4)  # a bound is active
    # exact solvers installed alongside: quadprog is an optional GPL extra of the library
    # and a test dependency (the dev extra), so the comparison never runs on an empty set
    exact = sorted({"quadprog"} & set(qpsolvers.available_solvers))
    assert exact, "quadprog is not installed: pip install -e '.[dev]'"
    for solver in exact:
        v_exact = taskik.solve_ik(conf, levels, DT, limits=limits, solver=solver)
        assert np.allclose(v_exact, v, atol=1e-9), solver
    with warnings.catch_warnings():  # OSQP gets sparse matrices: nothing to convert or warn
        warnings.simplefilter("error")
        v_osqp = taskik.solve_ik(conf, levels, DT, limits=limits, solver="osqp", method="cascade")
    assert np.allclose(v_osqp, v, atol=1e-3)  # OSQP is a first-order method


def test_strict_priority_differs_from_weighting_in_the_expected_direction(planar_2r):
    """Two conflicting one-row tasks on a 2-DoF arm with a 2-D point: the top one is exact."""
    conf = planar_2r.configuration()
    x_task = PositionTask("ee", cost=[1.0, 0.0, 0.0])
    y_task = PositionTask("ee", cost=[0.0, 1.0, 0.0])
    p = conf.get_transform_frame_to_world("ee").translation
    x_task.set_target(p + [0.1, 0, 0])
    y_task.set_target(p + [0, 0.1, 0])
    xy = PositionTask("ee", cost=[1.0, 1.0, 0.0])
    xy.set_target(p + [0.1, 0.1, 0])
    # both rows are achievable (2 DoF): priorities change nothing, each is exact
    v = taskik.solve_ik(conf, [[x_task], [y_task]], DT, limits=[])
    r = residuals(conf, [[x_task], [y_task]], DT, v)
    assert max(r) < 1e-9
    # same point asked for two different x: the top level wins exactly, the lower gets 0
    x2 = PositionTask("ee", cost=[1.0, 0.0, 0.0])
    x2.set_target(p - [0.1, 0, 0])
    v = taskik.solve_ik(conf, [[x_task], [x2, y_task]], DT, limits=[])
    rx, _ = residuals(conf, [[x_task], [x2, y_task]], DT, v)
    assert rx < 1e-9
    J = x_task.compute_jacobian(conf)
    assert (J @ v)[0] == pytest.approx(0.1 / DT)


# ----------------------------------------------------------------------- linear algebra
def test_level_step_formula(rng):
    """``argmin ‖B z − d‖² + λ ‖w + z‖²`` against the normal equations, in the three forms
    (independent rows, independent columns, neither)."""
    for rows, cols, rank in ((4, 7, 4), (6, 5, 5), (5, 8, 3), (9, 4, 2)):
        B = rng.normal(size=(rows, rank)) @ rng.normal(size=(rank, cols))
        d, w = rng.normal(size=rows), rng.normal(size=cols)
        split = LevelSplit(B)
        assert split.rank == rank
        for lam in (1e-3, 1.0):
            expected = np.linalg.solve(B.T @ B + lam * np.eye(cols), B.T @ d - lam * w)
            assert np.allclose(split.solve(d, lam, w), expected, atol=1e-9)
            expected = np.linalg.solve(B.T @ B + lam * np.eye(cols), B.T @ d)
            assert np.allclose(split.solve(d, lam, None), expected, atol=1e-9)
        # λ → 0⁺: least squares, then the least ‖w + z‖
        pinv = np.linalg.pinv(B)
        expected = pinv @ d - (np.eye(cols) - pinv @ B) @ w
        assert np.allclose(split.solve(d, 0.0, w), expected, atol=1e-8)
        assert np.allclose(split.solve(d, 0.0, None), pinv @ d, atol=1e-8)


def test_null_basis(rng):
    for rows, cols, rank in ((4, 7, 4), (6, 5, 5), (5, 8, 3), (0, 3, 0)):
        B = rng.normal(size=(rows, rank)) @ rng.normal(size=(rank, cols))
        Z, r = null_basis(B)
        assert r == rank
        assert Z.shape == (cols, cols - rank)
        assert np.allclose(Z.T @ Z, np.eye(cols - rank))
        assert np.allclose(B @ Z, 0, atol=1e-12)


# ------------------------------------------------------------------------------ report
def test_report_ranks_free_directions_and_satisfaction(humanoid):
    conf = humanoid.configuration()
    lf, rf, hand = three_contacts(conf, np.array([0.4, 0.3, 1.0]), lm_damping=0.0)
    levels = [[lf], [rf], [hand]]
    v = taskik.solve_ik(conf, levels, DT, limits=[])
    rep = hierarchy_report(conf, levels, DT, v, limits=[])
    # 34 DoF: each foot pose takes 6, the hand point 3
    assert [s.rank for s in rep.levels] == [6, 6, 3]
    assert [s.free_dofs for s in rep.levels] == [28, 22, 19]
    assert all(s.satisfied for s in rep.levels)
    assert rep.levels[2].requested == pytest.approx(np.linalg.norm(hand.compute_error(conf)) / DT)
    text = str(rep)
    assert "PositionTask" in text and "active bounds: none" in text
    # a level that conflicts with a higher one gets no direction and is not satisfied: the
    # hand moves as level 2 asks, so level 3's residual is the difference of the requests
    other = PositionTask(HANDS[0])
    other.set_target(hand.target + [0.0, 0.1, 0.0])
    levels.append([other])
    v = taskik.solve_ik(conf, levels, DT, limits=[])
    rep = hierarchy_report(conf, levels, DT, v, limits=[])
    assert [s.satisfied for s in rep.levels] == [True, True, True, False]
    assert rep.levels[3].rank == 0 and rep.levels[3].free_dofs == 19
    assert rep.levels[3].residual == pytest.approx(0.1 / DT)


# ------------------------------------------------------------------------------ errors
def test_bad_levels_and_options(ur5):
    conf = ur5.configuration()
    tool = PositionTask("tool0")
    tool.set_target_from_configuration(conf)
    with pytest.raises(InvalidInput, match="method"):
        taskik.solve_ik(conf, [[tool]], DT, method="fast")
    with pytest.raises(InvalidInput, match="nullspace"):
        taskik.solve_ik(conf, [[tool]], DT, method="nullspace")  # default limits: boxes
    with pytest.raises(InvalidInput, match="level 1"):
        check_levels([[tool], [tool, "posture"]])
    with pytest.raises(InvalidInput, match="non-empty"):
        check_levels([])
    with pytest.raises(InvalidInput, match="dt"):
        taskik.solve_ik(conf, [[tool]], 0.0)
    with pytest.raises(InvalidInput, match="damping"):
        taskik.solve_ik(conf, [[tool]], DT, damping=-1.0)
    with pytest.raises(InvalidInput, match="not available"):
        taskik.solve_ik(conf, [[tool]], DT, solver="nope")


def test_one_level_equals_the_weighted_step(ur5):
    conf = ur5.configuration()
    tool = frame_task(conf, "tool0", [0.05, 0.0, 0.02])
    posture = PostureTask(1e-2)
    posture.set_target(ur5.q0 + 0.3)
    v_weighted = taskik.solve_ik(conf, [tool, posture], DT)
    v_level = taskik.solve_ik(conf, [[tool, posture]], DT)
    assert np.allclose(v_level, v_weighted, atol=1e-9)


# ---------------------------------------------------------------------------- examples
@pytest.mark.parametrize("seed", range(6))
def test_a_lower_level_keeps_what_every_higher_level_achieves_under_binding_limits(humanoid, seed):
    """Limits strongly active at level 1 (in the null space of level 0) are kept by level 2:
    adding a posture level changes neither level 0's nor level 1's residual, to rounding."""
    rng = np.random.default_rng(seed)
    q = humanoid.q0.copy()
    if seed % 2:
        q[7:] += rng.normal(0.0, 0.2, humanoid.model.nq - 7)
    conf = humanoid.configuration(q)
    feet = [FrameTask(f) for f in FEET]
    for t in feet:
        t.set_target_from_configuration(conf)
    com = ComTask()
    com.set_target(conf.com + rng.normal(0.0, 0.015, 3))
    hand = PositionTask(HANDS[0])
    hand.set_target(
        conf.get_transform_frame_to_world(HANDS[0]).translation + rng.normal(0, 0.05, 3)
    )
    posture = PostureTask(1e-2)
    posture.set_target(humanoid.random_configuration(rng))
    levels = [[*feet, com], [hand], [posture]]
    slow = VelocityLimit(humanoid.model, {name: 0.5 for name in humanoid.model.names[2:]})
    limits = [taskik.ConfigurationLimit(humanoid.model), slow]
    v2 = taskik.solve_ik(conf, levels[:2], 0.01, limits=limits)
    v3 = taskik.solve_ik(conf, levels, 0.01, limits=limits)
    assert np.abs(v3 - v2).max() > 0.1  # the posture level does move v
    for tasks in levels[:2]:
        A, c, _ = level_rows(conf, tasks, 0.01)
        r2, r3 = np.linalg.norm(A @ v2 - c), np.linalg.norm(A @ v3 - c)
        assert r3 == pytest.approx(r2, rel=1e-10, abs=1e-12)


def test_daqp_with_options_solves_each_level_cold_with_the_same_step(humanoid):
    """Solver options turn the warm-started DAQP workspaces off (each level's QP is then a
    cold daqp.solve call): the step is the same."""
    rng = np.random.default_rng(3)
    conf = humanoid.configuration(humanoid.q0)
    levels = binding_humanoid_levels(conf, rng)
    slow = VelocityLimit(humanoid.model, {name: 0.5 for name in humanoid.model.names[2:]})
    limits = [taskik.ConfigurationLimit(humanoid.model), slow]
    warm = taskik.solve_ik(conf, levels, 0.01, limits=limits)
    for method in ("auto", "cascade"):
        cold = taskik.solve_ik(
            conf, levels, 0.01, limits=limits, method=method, solver="daqp", primal_tol=1e-6
        )
        assert np.allclose(cold, warm, atol=1e-7)
    with pytest.raises(taskik.NoSolutionFound, match="daqp"):
        taskik.solve_ik(conf, levels, 0.01, limits=limits, solver="daqp", iter_limit=1)


class PairSums(taskik.Limit):
    """Inequality rows v_i + v_j ≤ h (not a box) for pairs of joints."""

    name = "pairs"

    def __init__(self, pairs, h):
        self.pairs, self.h = pairs, h

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((len(self.pairs), configuration.nv))
        for k, (i, j) in enumerate(self.pairs):
            G[k, i] = G[k, j] = 1.0
        return G, np.full(len(self.pairs), self.h)


@pytest.mark.parametrize("with_box", ["velocity", "position", "none"])
def test_inequality_rows_at_every_level_with_every_solver_path(humanoid, with_box):
    conf = humanoid.configuration(humanoid.q0)
    levels = binding_humanoid_levels(conf, np.random.default_rng(1))
    rows = PairSums([(6, 7), (8, 9), (20, 21), (25, 26), (30, 31)], 0.05)
    boxes = {
        "velocity": [VelocityLimit(humanoid.model, {n: 0.5 for n in humanoid.model.names[2:]})],
        "position": [taskik.ConfigurationLimit(humanoid.model)],
        "none": [],
    }[with_box]
    limits = [*boxes, rows]
    G, h = rows.compute_inequalities(conf, 0.01)
    warm = taskik.solve_ik(conf, levels, 0.01, limits=limits)
    assert (G @ warm).max() == pytest.approx(0.05, abs=1e-9)  # the rows bind
    for options, tol in (
        ({"solver": "daqp", "primal_tol": 1e-6}, 1e-9),  # cold DAQP calls
        ({"solver": "quadprog"}, 1e-4),
        ({"method": "cascade"}, 1e-4),
    ):
        v = taskik.solve_ik(conf, levels, 0.01, limits=limits, **options)
        assert (G @ v).max() <= 0.05 + 1e-9
        assert np.abs(v - warm).max() < tol, options
    # the rows are kept: without them the step is another one
    free = taskik.solve_ik(conf, levels, 0.01, limits=boxes)
    assert (G @ free).max() > 0.06


@pytest.mark.parametrize("seed", [2, 3, 22, 35])
def test_coordinates_strongly_bound_at_the_top_are_not_moved_by_lower_levels(humanoid, seed):
    """A bound with a nonzero multiplier at level 0 fixes its coordinate for the lower levels
    (it leaves their basis): their steps leave it bit for bit, not just within the QP
    solver's tolerance."""
    rng = np.random.default_rng(seed)
    q = humanoid.q0.copy()
    if seed % 2:
        q[7:] += rng.normal(0.0, 0.2, humanoid.model.nq - 7)
    conf = humanoid.configuration(q)
    levels = binding_humanoid_levels(conf, rng)
    if seed % 4 >= 2:
        extra = PostureTask(1e-2)
        extra.set_target(humanoid.random_configuration(rng))
        levels = [levels[0], [levels[1][0]], [extra]]
    slow = VelocityLimit(humanoid.model, {name: 0.5 for name in humanoid.model.names[2:]})
    limits = [taskik.ConfigurationLimit(humanoid.model), slow]
    top = taskik.solve_ik(conf, levels[:1], 0.01, limits=limits)
    v = taskik.solve_ik(conf, levels, 0.01, limits=limits)
    problem = taskik.build_ik(conf, [t for level in levels for t in level], 0.01, limits=limits)
    A0, c0, _ = level_rows(conf, levels[0], 0.01)
    grad = A0.T @ (A0 @ top - c0)  # minus the bound multipliers at the top level's optimum
    bound = (top <= problem.lb) | (top >= problem.ub)
    strong = bound & (np.abs(grad) > 1e-6 * np.abs(grad).max())
    assert strong.sum() >= 10 and not np.allclose(v, top)
    assert np.array_equal(v[strong], top[strong])


def reference_cascade(conf, levels, dt, limits, damping):
    """Level by level, ``min ‖A_k v − c_k‖² + λ_k ‖v‖²`` over the box with ``A_j v = A_j v_j*``
    for every higher level j, as one QP with equality rows (ProxQP, tight tolerance)."""
    flat = [t for level in levels for t in level]
    box = taskik.build_ik(conf, flat, dt, limits=limits)
    A_eq, b_eq, v = [], [], None
    for tasks in levels:
        A, c, mu = level_rows(conf, tasks, dt)
        P = A.T @ A + (mu + damping) * np.eye(conf.nv)
        eq = {"A": np.vstack(A_eq), "b": np.concatenate(b_eq)} if A_eq else {}
        v = qpsolvers.solve_qp(
            P,
            -A.T @ c,
            lb=box.lb,
            ub=box.ub,
            solver="proxqp",
            eps_abs=1e-12,
            eps_rel=0,
            max_iter=100000,
            **eq,
        )
        A_eq.append(A)
        b_eq.append(A @ v)
    return v


def damped_panda_levels(panda, seed):
    rng = np.random.default_rng(0)
    for _ in range(seed + 1):
        conf = panda.configuration(panda.random_configuration(rng))
        T = conf.get_transform_frame_to_world("panda_hand")
        point = PositionTask("panda_hand")
        point.set_target(T.translation + rng.normal(0, 0.2, 3))
        turn = taskik.OrientationTask("panda_hand", lm_damping=0.5)
        turn.set_target(T.rotation @ pin.exp3(rng.normal(0, 0.5, 3)))
        posture = PostureTask(0.1, lm_damping=0.1)
        posture.set_target(panda.random_configuration(rng))
    limits = [VelocityLimit(panda.model, {n: 0.4 for n in panda.model.names[1:]})]
    return conf, [[point], [turn], [posture]], limits


@pytest.mark.parametrize(
    "seed",
    # seed 0: every coordinate but one strongly bound at the top level, with a column that
    # is numerically zero (Panda joint 7 for a point task on the hand, norm 5e-18): it must
    # not count as rank, or the lower levels lose that joint
    [1, 0],
)
def test_damped_levels_under_binding_limits_match_a_qp_cascade(panda, seed):
    conf, levels, limits = damped_panda_levels(panda, seed)
    ref = reference_cascade(conf, levels, 0.01, limits, 1e-3)
    for method in ("auto", "cascade"):
        v = taskik.solve_ik(conf, levels, 0.01, limits=limits, damping=1e-3, method=method)
        assert np.abs(v - ref).max() < 1e-6


def test_a_bound_held_only_by_the_damping_does_not_bind_the_lower_levels():
    """A bound whose multiplier comes from the level's damping λ‖v‖² alone (not from its
    tasks) leaves the lower levels free: the result matches a cascade of full QPs where each
    level keeps A_j v of the levels above."""
    import qpsolvers

    panda = taskik.robots.load("panda")
    conf = panda.configuration(panda.random_configuration(np.random.default_rng(3)))

    class Recovery(taskik.Limit):  # a soft box asking joint 4 for 0.5 to 2 rad/s
        hard = False
        name = "recovery"

        def compute_box(self, configuration, dt):
            return np.array([3]), np.array([0.5]), np.array([2.0])

    hand = taskik.PositionTask("panda_hand")
    hand.set_target(conf.get_transform_frame_to_world("panda_hand").translation + 0.002)
    posture = taskik.PostureTask()
    target = conf.q.copy()
    target[3] += 0.1
    posture.set_target(target)
    damping, limits, dt = 0.1, [Recovery()], 0.01
    v = taskik.solve_ik(conf, [[hand], [posture]], dt, limits, damping=damping, adaptive=False)
    box = taskik.build_ik(conf, [hand, posture], dt, limits=limits)
    A_eq: list = []
    b_eq: list = []
    for task in (hand, posture):  # the reference cascade
        p = taskik.build_ik(conf, [task], dt, limits=[])
        eq = {"A": np.vstack(A_eq), "b": np.concatenate(b_eq)} if A_eq else {}
        ref = qpsolvers.solve_qp(
            p.A.T @ p.A + damping * np.eye(conf.nv), -p.A.T @ p.c, lb=box.lb, ub=box.ub,
            solver="proxqp", eps_abs=1e-12, eps_rel=0, max_iter=100000, **eq,
        )  # fmt: skip
        A_eq.append(p.A)
        b_eq.append(p.A @ ref)
    assert v[3] == pytest.approx(ref[3], abs=1e-6)  # off the lower bound 0.5, as the cascade
    p = taskik.build_ik(conf, [posture], dt, limits=[])
    assert np.linalg.norm(p.A @ v - p.c) <= np.linalg.norm(p.A @ ref - p.c) + 1e-6


@pytest.mark.parametrize(
    "cost, low, high", [(1.0, 0.0, 1e-10), (1e-3, 1e-6, 1e-4), (1e-5, 0.05, 0.1), (1e-6, 0.8, 0.9)]
)
@pytest.mark.parametrize("limits", [None, []])
def test_the_damping_is_absolute_at_every_level(ur5, cost, low, high, limits):
    """The figures of docs/concepts/priorities.md: a level's costs count against the step's
    damping (1e-12, absolute, as in a weighted step), so small costs leave a level inexact."""
    conf = ur5.configuration()
    target = conf.get_transform_frame_to_world("tool0")
    target.translation += 0.01
    hand = FrameTask("tool0", cost, cost)
    hand.set_target(target)
    posture = PostureTask(1e-3)
    posture.set_target(conf.q + 0.1)
    v = taskik.solve_ik(conf, [[hand], [posture]], DT, limits=limits, adaptive=False)
    e, J = hand.compute_error_and_jacobian(conf)
    unmet = np.linalg.norm(J @ v - e / DT) / np.linalg.norm(e / DT)
    assert low <= unmet <= high
