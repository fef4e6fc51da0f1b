"""Unconstrained backends through solve_ik: pinv vs QP, DLS forms and dampings, transpose
step, step controls as options, and the errors of the dispatch."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import InvalidInput, solve_ik
from taskik.backends.dls import solve_dls, solve_dls_svd
from taskik.backends.pseudoinverse import solve_pinv
from taskik.backends.transpose import solve_transpose, transpose_step_size

DT = 0.01


def frame_task_near(robot, conf, rng, frame, gain=1.0, lm_damping=0.0):
    task = taskik.FrameTask(frame, 1.0, 0.5, gain=gain, lm_damping=lm_damping)
    T = conf.get_transform_frame_to_world(frame)
    task.set_target(T * pin.exp6(rng.normal(scale=0.1, size=6)))
    return task


def test_pinv_equals_qp_without_limits_full_rank(ur5, panda, rng):
    for robot, frame, extra in ((ur5, "tool0", []), (panda, "panda_hand", ["posture"])):
        for _ in range(5):
            conf = robot.configuration(robot.random_configuration(rng))
            tasks = [frame_task_near(robot, conf, rng, frame)]
            if extra:
                posture = taskik.PostureTask(cost=0.1)
                posture.set_target(robot.random_configuration(rng))
                tasks.append(posture)
            v_pinv = solve_ik(conf, tasks, DT, backend="pinv")
            v_qp = solve_ik(conf, tasks, DT, limits=[])
            A = taskik.build_ik(conf, tasks, DT, limits=[]).A
            assert np.linalg.matrix_rank(A) == min(A.shape)  # full rank
            assert np.allclose(v_pinv, v_qp, rtol=0, atol=1e-8 * max(1.0, np.abs(v_qp).max()))


def test_dls_tends_to_pinv_as_lambda_goes_to_zero(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    tasks = [frame_task_near(panda, conf, rng, "panda_hand")]
    v_pinv = solve_ik(conf, tasks, DT, backend="pinv")
    gaps = [
        np.linalg.norm(solve_ik(conf, tasks, DT, backend="dls", lam=lam, damping=0.0) - v_pinv)
        for lam in (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)
    ]
    assert all(b < a for a, b in zip(gaps, gaps[1:], strict=False))
    assert gaps[0] > 1e-3 * np.linalg.norm(v_pinv)  # λ = 0.1 really damps
    assert gaps[-1] < 1e-7 * np.linalg.norm(v_pinv)


@pytest.mark.parametrize("shape", [(6, 7), (6, 6), (9, 4), (12, 16)])
def test_dls_svd_form_equals_normal_equations(rng, shape):
    A = rng.normal(size=shape)
    A[-1] = 1e-4 * A[0] + 1e-6 * A[-1]  # nearly rank deficient
    c = rng.normal(size=shape[0])
    for lam in (1e-3, 0.1, 1.0):
        v_normal = solve_dls(A, c, lam * lam)
        v_explicit = np.linalg.solve(A.T @ A + lam * lam * np.eye(shape[1]), A.T @ c)
        v_svd = solve_dls_svd(A, c, lam)
        # equal to the rounding of a backward-stable solve: a few hundred ulps times the
        # condition number of AᵀA + λ²I (up to 1e7 here with λ = 1e-3; the BLAS kernel
        # moves the last digits: 2e-9 apart under one kernel, 1e-10 under another)
        cond = np.linalg.cond(A.T @ A + lam * lam * np.eye(shape[1]))
        tol = 1e3 * np.finfo(float).eps * cond * np.linalg.norm(v_explicit)
        assert np.linalg.norm(v_normal - v_explicit) <= tol
        assert np.linalg.norm(v_svd - v_normal) <= tol


def test_dls_svd_option_equals_normal_option(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    tasks = [frame_task_near(ur5, conf, rng, "tool0", lm_damping=1e-2)]
    v_normal = solve_ik(conf, tasks, DT, backend="dls", lam=0.3, form="normal")
    v_svd = solve_ik(conf, tasks, DT, backend="dls", lam=0.3, form="svd")
    assert np.allclose(v_normal, v_svd, atol=1e-9)


def test_dls_error_dependent_dampings_match_haviland_corke(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    task = frame_task_near(panda, conf, rng, "panda_hand", gain=0.5)
    prob = taskik.build_ik(conf, [task], DT, limits=[], damping=0.0)
    A, c = prob.A, prob.c
    we = task.cost * task.compute_error(conf)
    E = 0.5 * float(we @ we)  # E = ½ eᵀ W_e e with W_e = W²
    n = A.shape[1]
    w_bar = rng.uniform(1e-3, 1e-2, n)
    expected = {
        "constant": np.linalg.solve(A.T @ A + 0.2**2 * np.eye(n), A.T @ c),
        "chan": np.linalg.solve(A.T @ A + 0.2 * E * np.eye(n), A.T @ c),
        "sugihara": np.linalg.solve(A.T @ A + np.diag(E + w_bar), A.T @ c),
    }
    for kind, v_expected in expected.items():
        v = solve_ik(
            conf, [task], DT, backend="dls", lam=0.2, damping_kind=kind, w_bar=w_bar, damping=0
        )
        assert np.allclose(v, v_expected, atol=1e-10), kind


def test_dls_adds_task_lm_damping_and_damping_like_the_qp(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    tasks = [frame_task_near(ur5, conf, rng, "tool0", lm_damping=0.5)]
    v_dls = solve_ik(conf, tasks, DT, backend="dls", lam=0.0, damping=1e-3)
    v_qp = solve_ik(conf, tasks, DT, limits=[], damping=1e-3)
    assert np.allclose(v_dls, v_qp, atol=1e-8)


def test_transpose_step_is_the_closed_form_and_decreases_linearised_error(panda, rng):
    for _ in range(5):
        conf = panda.configuration(panda.random_configuration(rng))
        tasks = [frame_task_near(panda, conf, rng, "panda_hand")]
        prob = taskik.build_ik(conf, tasks, DT, limits=[])
        A, c = prob.A, prob.c
        AAc = A @ A.T @ c
        alpha = float(c @ AAc) / float(AAc @ AAc)  # Williams, Theorem 2
        assert transpose_step_size(A, c) == pytest.approx(alpha, rel=1e-12)
        v = solve_ik(conf, tasks, DT, backend="transpose")
        assert np.allclose(v, alpha * A.T @ c, rtol=1e-12, atol=1e-12)
        res = [np.linalg.norm(a * AAc - c) for a in (alpha, 1.01 * alpha, 0.99 * alpha)]
        assert res[0] < res[1] and res[0] < res[2]
        assert np.linalg.norm(c - A @ v) < np.linalg.norm(c)


def test_transpose_and_pinv_of_zero_system_are_zero():
    A = np.zeros((3, 4))
    assert np.array_equal(solve_transpose(A, np.ones(3)), np.zeros(4))
    assert np.array_equal(solve_pinv(A, np.ones(3)), np.zeros(4))


def test_pinv_cutoff_drops_small_singular_values(rng):
    U, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    V, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    A = U @ np.diag([2.0, 1.0, 1e-6]) @ V[:3]
    c = U[:, 2]  # along the smallest direction
    assert np.linalg.norm(solve_pinv(A, c, rcond=1e-9)) == pytest.approx(1e6, rel=1e-6)
    assert np.linalg.norm(solve_pinv(A, c, rcond=1e-3)) < 1e-9


def test_max_task_error_is_clampmag_of_the_task_error(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    p = conf.get_transform_frame_to_world("tool0").translation
    far = taskik.PositionTask("tool0", gain=0.5)
    far.set_target(p + np.array([0.3, -0.4, 0.0]))  # ‖e‖ = 0.5
    near = taskik.PositionTask("tool0", gain=0.5)
    near.set_target(p + 0.1 * np.array([0.6, -0.8, 0.0]))  # the same error clamped to 0.1
    for backend in ("pinv", "dls", "transpose", "sdls"):
        v_clamped = solve_ik(conf, [far], DT, backend=backend, max_task_error=0.1)
        v_near = solve_ik(conf, [near], DT, backend=backend)
        assert np.allclose(v_clamped, v_near, atol=1e-9), backend
        v_dict = solve_ik(conf, [far], DT, backend=backend, max_task_error={far: 0.1})
        assert np.allclose(v_dict, v_near, atol=1e-9), backend
    # an error already shorter than D_max is unchanged
    assert np.allclose(
        solve_ik(conf, [near], DT, backend="pinv", max_task_error=1.0),
        solve_ik(conf, [near], DT, backend="pinv"),
    )


def test_max_joint_step_scales_the_whole_step(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    tasks = [frame_task_near(ur5, conf, rng, "tool0")]
    v = solve_ik(conf, tasks, DT, backend="pinv")
    d = 0.25 * np.abs(v).max() * DT
    v_c = solve_ik(conf, tasks, DT, backend="pinv", max_joint_step=d)
    assert np.abs(v_c).max() * DT == pytest.approx(d)
    assert np.allclose(v_c, v * 0.25)  # Williams eq. 31: same direction


def test_errors_name_the_problem(ur5, rng):
    conf = ur5.configuration()
    task = frame_task_near(ur5, conf, rng, "tool0")
    with pytest.raises(InvalidInput, match="unknown backend 'lu'.*'qp'.*'dls'"):
        solve_ik(conf, [task], DT, backend="lu")
    with pytest.raises(InvalidInput, match="honours ConfigurationLimit"):
        limit = taskik.limits.AccelerationLimit(conf.model, 1.0)
        solve_ik(conf, [task], DT, limits=[limit], backend="pinv")
    with pytest.raises(InvalidInput, match="unknown option 'lambda' for backend 'dls'.*lam"):
        solve_ik(conf, [task], DT, backend="dls", **{"lambda": 0.1})
    with pytest.raises(InvalidInput, match="unknown option 'lam' for backend 'pinv'"):
        solve_ik(conf, [task], DT, backend="pinv", lam=0.1)
    with pytest.raises(InvalidInput, match="damping_kind"):
        solve_ik(conf, [task], DT, backend="dls", damping_kind="wampler")
    with pytest.raises(InvalidInput, match="gamma_max must be finite and > 0"):
        solve_ik(conf, [task], DT, backend="sdls", gamma_max=-1.0)
    with pytest.raises(InvalidInput, match="backend 'pinv' has no damping term"):
        solve_ik(conf, [task], DT, backend="pinv", damping=1e-3)
    lm = frame_task_near(ur5, conf, rng, "tool0", lm_damping=1.0)
    with pytest.raises(InvalidInput, match="'transpose' has no damping term.*lm_damping"):
        solve_ik(conf, [lm], DT, backend="transpose")
    with pytest.raises(InvalidInput, match="strict priorities.*backend='qp'"):
        solve_ik(conf, [[task]], DT, backend="dls")
    other = taskik.PositionTask("tool0")
    with pytest.raises(InvalidInput, match="not in the list"):
        solve_ik(conf, [task], DT, backend="pinv", max_task_error={other: 0.1})
    # limits=None and [] both mean "no limits" here
    v0 = solve_ik(conf, [task], DT, backend="pinv")
    assert np.array_equal(v0, solve_ik(conf, [task], DT, limits=[], backend="pinv"))


def test_buss_y_and_double_y_shapes(rng):
    for name, n_joints, n_eff in (("buss_y", 7, 2), ("buss_double_y", 16, 4)):
        robot = taskik.robots.load(name)
        conf = robot.configuration(robot.random_configuration(rng))
        assert robot.model.nv == n_joints and len(robot.end_effectors) == n_eff
        tasks = []
        for frame in robot.end_effectors:
            task = taskik.PositionTask(frame)
            task.set_target_from_configuration(conf)
            tasks.append(task)
        A = taskik.build_ik(conf, tasks, DT, limits=[]).A
        assert A.shape == (3 * n_eff, n_joints)  # Buss: 6 × 7 and 12 × 16
        assert np.linalg.matrix_rank(A) == 3 * n_eff  # generic configuration


def test_frame_task_rows_are_clamped_and_grouped_as_position_then_orientation(ur5, rng):
    """ClampMag and SDLS treat a FrameTask's 6 rows as a point (3) and an orientation (3)."""
    from taskik.backends.sdls import solve_sdls

    conf = ur5.configuration(ur5.random_configuration(rng))
    task = taskik.FrameTask("tool0", position_cost=[1.0, 2.0, 1.5], orientation_cost=0.5, gain=0.8)
    T = conf.get_transform_frame_to_world("tool0")
    task.set_target(
        pin.SE3(T.rotation @ pin.exp3(np.array([0.02, -0.03, 0.01])), T.translation + 0.4)
    )
    prob = taskik.build_ik(conf, [task], DT, limits=[])
    e = task.compute_error(conf)
    assert np.linalg.norm(e[:3]) > 0.5 and np.linalg.norm(e[3:]) < 0.05

    def pinv_of_clamped(d):
        clamped = e.copy()
        for part in (slice(0, 3), slice(3, 6)):
            n = np.linalg.norm(clamped[part])
            if n > d:
                clamped[part] *= d / n
        return solve_pinv(prob.A, task.cost * task.gain * clamped / DT)

    for d in (0.1, 0.02):  # the position part only, then both parts
        v = solve_ik(conf, [task], DT, backend="pinv", max_task_error=d)
        assert np.allclose(v, pinv_of_clamped(d), atol=1e-9)
    assert not np.allclose(pinv_of_clamped(0.1), pinv_of_clamped(0.02))
    # SDLS groups: the tool point (rows 0–2), then its orientation (rows 3–5)
    v = solve_ik(conf, [task], DT, backend="sdls", gamma_max=0.05)
    by_parts = solve_sdls(prob.A, prob.c * DT, np.array([0, 3]), 0.05) / DT
    as_one = solve_sdls(prob.A, prob.c * DT, np.array([0]), 0.05) / DT
    assert np.allclose(v, by_parts, atol=1e-12) and not np.allclose(v, as_one, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 7), (7, 7), (9, 4)])
def test_dls_with_a_diagonal_or_scalar_damping_solves_the_damped_normal_equations(rng, shape):
    A = rng.normal(size=shape)
    c = rng.normal(size=shape[0])
    n = shape[1]
    diagonal = rng.uniform(0.1, 2.0, size=n)
    ref = np.linalg.solve(A.T @ A + np.diag(diagonal), A.T @ c)
    assert np.allclose(solve_dls(A, c, diagonal), ref, atol=1e-10)
    for lam2 in (0.3, 2.0):
        ref = np.linalg.solve(A.T @ A + lam2 * np.eye(n), A.T @ c)
        assert np.allclose(solve_dls(A, c, lam2), ref, atol=1e-10)


def test_dls_options_and_their_defaults(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    task = frame_task_near(panda, conf, rng, "panda_hand", lm_damping=0.05)
    prob = taskik.build_ik(conf, [task], DT, limits=[], damping=0.0)
    A, c, mu = prob.A, prob.c, prob.mu
    n = A.shape[1]

    def dls(**options):
        return solve_ik(conf, [task], DT, backend="dls", **options)

    assert np.array_equal(dls(), dls(lam=0.1, damping_kind="constant", form="normal"))
    assert np.array_equal(dls(damping_kind="sugihara"), dls(damping_kind="sugihara", w_bar=1e-3))
    # the damping argument and the tasks' μ add to λ² in every form (m < n here: 6 × 7)
    d = 1e-2
    ref = np.linalg.solve(A.T @ A + (0.09 + mu + d) * np.eye(n), A.T @ c)
    for form in ("normal", "svd"):
        assert np.allclose(dls(lam=0.3, damping=d, form=form), ref, atol=1e-9)
    with pytest.raises(InvalidInput, match="form='svd' supports damping_kind='constant' only"):
        dls(damping_kind="chan", form="svd")
    # w̄ is Sugihara's: checked for that damping only, zero allowed
    assert np.all(np.isfinite(dls(damping_kind="sugihara", w_bar=0.0)))
    for bad in (-1.0, np.nan, np.ones(3)):
        with pytest.raises(InvalidInput, match="w_bar"):
            dls(damping_kind="sugihara", w_bar=bad)
    assert np.array_equal(dls(damping_kind="chan", w_bar=-1.0), dls(damping_kind="chan"))


def test_positive_options_reject_zero(ur5, rng):
    conf = ur5.configuration()
    task = frame_task_near(ur5, conf, rng, "tool0")
    for backend, option in (("sdls", "gamma_max"), ("pinv", "max_task_error")):
        with pytest.raises(InvalidInput, match=f"{option} must be finite and > 0"):
            solve_ik(conf, [task], DT, backend=backend, **{option: 0.0})


def test_max_task_error_per_task_and_on_weighted_rows_only(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    p = conf.get_transform_frame_to_world("tool0").translation
    near = taskik.PostureTask(cost=1e-2)
    near.set_target(conf.q + 0.01)
    far = taskik.PositionTask("tool0", cost=[1.0, 1.0, 0.0])  # z unweighted
    far.set_target(p + np.array([0.3, -0.4, 5.0]))  # ‖e_xy‖ = 0.5
    clamped = taskik.PositionTask("tool0", cost=[1.0, 1.0, 0.0])
    clamped.set_target(p + np.array([0.06, -0.08, 1.0]))  # e_xy clamped to 0.1
    # a dict naming only the second task clamps that one (the first is left as is)
    v = solve_ik(conf, [near, far], DT, backend="pinv", max_task_error={far: 0.1})
    assert np.allclose(v, solve_ik(conf, [near, clamped], DT, backend="pinv"), atol=1e-9)
    # the norm is that of the weighted rows (a zero-cost row has no error to clamp)
    v = solve_ik(conf, [far], DT, backend="pinv", max_task_error=0.1)
    assert np.allclose(v, solve_ik(conf, [clamped], DT, backend="pinv"), atol=1e-9)


def test_pinv_edge_cases_and_relative_cutoff(rng):
    # a zero matrix, a single row, singular values of exactly 1
    assert np.array_equal(solve_pinv(np.zeros((3, 4)), np.ones(3)), np.zeros(4))
    row = np.array([[3.0, 4.0]])
    assert np.allclose(solve_pinv(row, np.array([5.0])), [0.6, 0.8])
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    c = rng.normal(size=3)
    assert np.allclose(solve_pinv(Q[:3], c), Q[:3].T @ c)
    # σ = (4, 2, 3e-3) with rcond 1e-3: σ₃ < rcond σ_max is dropped, the others kept
    U, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    V, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    s = np.array([4.0, 2.0, 3e-3])
    A = U @ np.diag(s) @ V[:3]
    expected = V[:2].T @ ((U[:, :2].T @ c) / s[:2])
    assert np.allclose(solve_pinv(A, c, rcond=1e-3), expected, atol=1e-12)
    assert not np.allclose(solve_pinv(A, c, rcond=1e-4), expected, atol=1e-3)


def test_transpose_step_size_is_williams_alpha(rng):
    A = rng.normal(size=(3, 5))
    c = rng.normal(size=3)
    g = A.T @ c
    alpha = (g @ g) / np.linalg.norm(A @ g) ** 2
    assert transpose_step_size(A, c) == pytest.approx(alpha)
    # ‖AAᵀc‖ = 1 exactly: still Williams' α, not the degenerate 0
    A1 = np.eye(2)
    assert transpose_step_size(A1, np.array([0.6, 0.8])) == pytest.approx(1.0)
    assert transpose_step_size(np.zeros((2, 3)), np.ones(2)) == 0.0


def test_row_groups_of_a_mixed_task_list(panda, rng):
    """ClampMag and SDLS groups: a task of dim 3 is one group, a 6-D task two groups of 3,
    any other dimension one group per row; groups start where the task's rows start."""
    from taskik.backends.sdls import solve_sdls

    conf = panda.configuration(panda.random_configuration(rng))
    posture = taskik.PostureTask(cost=0.3)  # 7 rows
    posture.set_target(panda.random_configuration(rng))
    frame = frame_task_near(panda, conf, rng, "panda_hand")
    T = conf.get_transform_frame_to_world("panda_hand")
    frame.set_target(
        pin.SE3(T.rotation @ pin.exp3(np.array([0.1, 0.0, 0.05])), T.translation + 0.5)
    )
    point = taskik.PositionTask("panda_link4")
    point.set_target(conf.get_transform_frame_to_world("panda_link4").translation + 0.3)
    tasks = [posture, frame, point]
    prob = taskik.build_ik(conf, tasks, DT, limits=[])
    starts = np.array([0, 1, 2, 3, 4, 5, 6, 7, 10, 13])
    v = solve_ik(conf, tasks, DT, backend="sdls", gamma_max=0.05)
    assert np.allclose(v, solve_sdls(prob.A, prob.c * DT, starts, 0.05) / DT, atol=1e-12)
    # ClampMag: each group's error clamped to 0.05 on its own
    e = np.concatenate([t.compute_error(conf) for t in tasks])
    groups = [slice(0, 7), slice(7, 10), slice(10, 13), slice(13, 16)]
    assert all(np.linalg.norm(e[g]) > 0.05 for g in groups)
    for g in groups:
        e[g] *= 0.05 / np.linalg.norm(e[g])
    w = np.concatenate(
        [np.broadcast_to(t.cost * t.gain, (len(t.compute_error(conf)),)) for t in tasks]
    )
    v = solve_ik(conf, tasks, DT, backend="pinv", max_task_error=0.05)
    assert np.allclose(v, solve_pinv(prob.A, w * e / DT), atol=1e-9)


def test_unconstrained_options_reach_their_backend(ur5, panda, rng):
    conf = ur5.configuration()
    task = frame_task_near(ur5, conf, rng, "tool0")
    with pytest.raises(InvalidInput, match="honours ConfigurationLimit"):
        limit = taskik.limits.AccelerationLimit(ur5.model, 1.0)
        solve_ik(conf, [task], DT, limits=[limit], backend="pinv")
    with pytest.raises(InvalidInput, match=r"cannot apply the damping=0\.001; use"):
        solve_ik(conf, [task], DT, backend="sdls", damping=1e-3)
    # rcond: a large relative cut-off drops the small singular values
    assert not np.allclose(
        solve_ik(conf, [task], DT, backend="pinv", rcond=0.5),
        solve_ik(conf, [task], DT, backend="pinv"),
    )
    # max_joint_step on a small step (max |v| < 1 rad/s)
    small = taskik.PostureTask()
    small.set_target(ur5.q0 + 1e-4 * np.arange(1, 7))
    v = solve_ik(conf, [small], DT, backend="pinv")
    assert np.abs(v).max() < 1.0
    d = 0.5 * np.abs(v).max() * DT
    assert np.allclose(solve_ik(conf, [small], DT, backend="pinv", max_joint_step=d), 0.5 * v)


def test_damping_diagonals_of_the_three_kinds():
    from taskik.backends.dls import damping_diagonal

    assert damping_diagonal("constant", 0.5, 3.0, 0.1, 4).tolist() == [0.25] * 4
    assert damping_diagonal("chan", 0.5, 3.0, 0.1, 4).tolist() == [1.5] * 4
    assert damping_diagonal("sugihara", 0.5, 3.0, [0, 1, 2, 3], 4).tolist() == [3, 4, 5, 6]
    with pytest.raises(InvalidInput, match="damping_kind"):
        damping_diagonal("wampler", 0.5, 3.0, 0.1, 4)


@pytest.mark.parametrize("backend", ["pinv", "dls", "sdls", "transpose", "regularized"])
def test_an_empty_task_list_is_no_motion_for_every_backend(ur5, backend):
    v = solve_ik(ur5.configuration(), [], DT, backend=backend)
    assert np.array_equal(v, np.zeros(6))


def test_nonnegative_options_reject_negative_values(ur5, rng):
    conf = ur5.configuration()
    task = frame_task_near(ur5, conf, rng, "tool0")
    for backend, option in (("pinv", "rcond"), ("dls", "lam"), ("regularized", "rcond")):
        with pytest.raises(InvalidInput, match=option):
            solve_ik(conf, [task], DT, backend=backend, **{option: -0.1})
        solve_ik(conf, [task], DT, backend=backend, **{option: 0.0})  # zero is allowed
