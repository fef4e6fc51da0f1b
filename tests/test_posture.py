"""Solve to a configuration (taskik.solve_posture): step formulas, convergence, restarts,
joint-limit policies, posture generation on the humanoid, unreachable targets."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.limits import ConfigurationLimit
from taskik.posture import METHODS, damping_matrix, solve_posture, step_direction


class _GeneralFrameTask(taskik.FrameTask):
    """A FrameTask that solve_posture cannot route to its single-pose fast loop."""


def _pose_target(robot, frame, rng, task_cls=taskik.FrameTask):
    q_star = robot.random_configuration(rng)
    task = task_cls(frame)
    task.set_target_from_configuration(robot.configuration(q_star))
    return task


def _world_error(model, frame, q, target: pin.SE3) -> np.ndarray:
    """Haviland & Corke eq. 37, computed independently: [p* − p; θ·axis of R* Rᵀ]."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    M = data.oMf[model.getFrameId(frame)]
    R = target.rotation @ M.rotation.T
    angle = math.acos(max(-1.0, min(1.0, (np.trace(R) - 1.0) / 2.0)))
    axis_times_2sin = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    rot = angle / (2.0 * math.sin(angle)) * axis_times_2sin if angle > 1e-12 else np.zeros(3)
    return np.concatenate([target.translation - M.translation, rot])


# ----------------------------------------------------------------- damping and steps
# A tiny weighted system A Δq ≈ c: A = [[2, 0], [1, 1]], c = [1, 2], so E = ½‖c‖² = 2.5,
# AᵀA = [[5, 1], [1, 1]] and g = Aᵀc = [4, 2].
A2 = np.array([[2.0, 0.0], [1.0, 1.0]])
C2 = np.array([1.0, 2.0])
E2 = 2.5


def test_damping_matrices_by_hand():
    np.testing.assert_allclose(damping_matrix("lm-wampler", E2, 2, 0.5), 0.5 * np.eye(2))
    # Chan & Lawrence: λ E I = 0.2 · 2.5 I
    np.testing.assert_allclose(damping_matrix("lm-chan", E2, 2, 0.2), 0.5 * np.eye(2))
    # Sugihara: E I + diag(w̄)
    np.testing.assert_allclose(
        damping_matrix("lm-sugihara", E2, 2, np.array([0.1, 0.3])), np.diag([2.6, 2.8])
    )
    np.testing.assert_allclose(damping_matrix("gn", E2, 2, 0.0), np.zeros((2, 2)))


def test_steps_by_hand():
    # Wampler λ = 0.5: [[5.5, 1], [1, 1.5]] Δq = [4, 2]  →  Δq = [4, 7] / 7.25
    np.testing.assert_allclose(step_direction("lm-wampler", A2, C2, E2, 0.5), [4 / 7.25, 7 / 7.25])
    # Chan λ = 0.2 gives the same W_n = 0.5 I here
    np.testing.assert_allclose(step_direction("lm-chan", A2, C2, E2, 0.2), [4 / 7.25, 7 / 7.25])
    # Sugihara w̄ = [0.1, 0.3]: [[7.6, 1], [1, 3.8]] Δq = [4, 2]  →  [13.2, 11.2] / 27.88
    np.testing.assert_allclose(
        step_direction("lm-sugihara", A2, C2, E2, np.array([0.1, 0.3])),
        [13.2 / 27.88, 11.2 / 27.88],
    )
    # GN: [[5, 1], [1, 1]] Δq = [4, 2] → [0.5, 1.5]; NR: A Δq = c has the same solution
    for method in ("gn", "gn-pinv", "nr", "nr-pinv"):
        np.testing.assert_allclose(step_direction(method, A2, C2, E2, 0.0), [0.5, 1.5])
    # Larger damping must shorten the step (a sign error on W_n would lengthen it)
    short = step_direction("lm-wampler", A2, C2, E2, 10.0)
    assert np.linalg.norm(short) < np.linalg.norm([0.5, 1.5])


def test_nr_needs_square_jacobian():
    with pytest.raises(taskik.InvalidInput, match="square"):
        step_direction("nr", np.ones((3, 2)), np.ones(3), 1.0, 0.0)


@pytest.mark.parametrize("method", ["lm-chan", "lm-wampler", "lm-sugihara", "gn", "nr"])
def test_first_fast_step_matches_hand_formula(ur5, method):
    """One step of the single-pose loop equals q0 + (JᵀJ + W_n)⁻¹ Jᵀ e with e = log6(T⁻¹T*)
    and J the LOCAL frame Jacobian (NR: J⁻¹ e)."""
    rng = np.random.default_rng(3)
    task = _pose_target(ur5, "tool0", rng)
    q0 = ur5.q0 + 0.3
    conf = ur5.configuration(q0)
    M = conf.get_transform_frame_to_world("tool0")
    e = pin.log6(M.actInv(task.target)).vector
    J = conf.get_frame_jacobian("tool0")
    E = 0.5 * e @ e
    lam = {"lm-chan": 0.1, "lm-wampler": 1e-4, "lm-sugihara": 1e-3}.get(method, 0.0)
    Wn = {
        "lm-chan": lam * E * np.eye(6),
        "lm-wampler": lam * np.eye(6),
        "lm-sugihara": (E + lam) * np.eye(6),
    }.get(method, np.zeros((6, 6)))
    dq = np.linalg.solve(J, e) if method == "nr" else np.linalg.solve(J.T @ J + Wn, J.T @ e)
    q1 = q0 + dq
    data = ur5.model.createData()
    pin.framesForwardKinematics(ur5.model, data, q1)
    e1 = pin.log6(data.oMf[ur5.model.getFrameId("tool0")].actInv(task.target)).vector
    assert e1 @ e1 < e @ e  # the step improves, so the best of two iterates is q1
    res = solve_posture(
        conf, [task], method=method, max_iterations=2, max_searches=1, joint_limits="ignore"
    )
    assert res.iterations == 2
    # compare modulo 2π (the result has its angles wrapped)
    np.testing.assert_allclose(np.angle(np.exp(1j * (res.q - q1))), 0.0, atol=1e-10)
    assert res.error == pytest.approx(0.5 * e1 @ e1, rel=1e-9)


def test_first_general_step_matches_hand_formula(ur5):
    """With any other task set the step uses the task terms: A = W J, c = W Kp e."""
    rng = np.random.default_rng(4)
    task = _pose_target(ur5, "tool0", rng, _GeneralFrameTask)
    task.set_costs(position_cost=2.0, orientation_cost=0.5)
    q0 = ur5.q0 + 0.2
    conf = ur5.configuration(q0)
    e, J = task.compute_error_and_jacobian(conf)
    w = np.array([2.0] * 3 + [0.5] * 3)
    A, c = w[:, None] * J, w * e
    E = 0.5 * c @ c
    q1 = q0 + np.linalg.solve(A.T @ A + 0.1 * E * np.eye(6), A.T @ c)
    res = solve_posture(conf, [task], max_iterations=2, max_searches=1, joint_limits="ignore")
    np.testing.assert_allclose(np.angle(np.exp(1j * (res.q - q1))), 0.0, atol=1e-10)
    e1, _ = task.compute_error_and_jacobian(ur5.configuration(q1))
    assert res.error == pytest.approx(0.5 * np.sum((w * e1) ** 2), rel=1e-9)
    assert res.residuals == pytest.approx((res.error,))


def test_world_error_is_haviland_corke_eq37(ur5):
    """pose_error='world': E of the result equals ½‖[p* − p; α(R*Rᵀ)]‖², computed here
    independently from the rotation matrix (eq. 38)."""
    rng = np.random.default_rng(5)
    task = _pose_target(ur5, "tool0", rng)
    q0 = ur5.random_configuration(rng)
    res = solve_posture(
        ur5.model, [task], q0=q0, pose_error="world", max_iterations=1, max_searches=1
    )
    e = _world_error(ur5.model, "tool0", q0, task.target)
    assert res.error == pytest.approx(0.5 * e @ e, rel=1e-9)
    assert not res.success


# ------------------------------------------------------------------------- convergence
@pytest.mark.parametrize("method", METHODS)
def test_methods_converge_on_ur5(ur5, method):
    rng = np.random.default_rng(11)
    for k in range(4):
        task = _pose_target(ur5, "tool0", rng)
        res = solve_posture(
            ur5.model, [task], method=method, q0=ur5.random_configuration(rng), rng=k,
            max_iterations=40, max_searches=30,
        )  # fmt: skip
        assert res.success, (method, res)
        assert res.error < 1e-6
        conf = ur5.configuration(res.q)
        M = conf.get_transform_frame_to_world("tool0")
        assert np.linalg.norm(M.translation - task.target.translation) < 2e-3
        ConfigurationLimit(ur5.model).check(res.q)


@pytest.mark.parametrize("method", ["nr-pinv", "gn-pinv", "lm-wampler", "lm-chan", "qp"])
def test_methods_converge_on_panda(panda, method):
    rng = np.random.default_rng(12)
    for k in range(3):
        task = _pose_target(panda, "panda_hand", rng)
        res = solve_posture(
            panda.model, [task], method=method, q0=panda.random_configuration(rng), rng=k,
            max_iterations=40, max_searches=50,
        )  # fmt: skip
        assert res.success, (method, res)
        ConfigurationLimit(panda.model).check(res.q)  # default policy "clip"


def test_plain_gauss_newton_on_a_redundant_arm_answers_honestly(panda):
    """On the 7-joint Panda, GN's step matrix JᵀJ (7 × 7) has rank 6 at most: whether its
    Cholesky factorisation fails, returns a wild step or converges depends on the rounding
    of the BLAS kernel (a Prescott kernel failed where others converged). Whatever the
    kernel the answer is honest: finite, within the limits, success exactly when E < tol,
    and a failure says why."""
    rng = np.random.default_rng(12)
    for k in range(3):
        task = _pose_target(panda, "panda_hand", rng)
        res = solve_posture(
            panda.model, [task], method="gn", q0=panda.random_configuration(rng), rng=k,
            max_iterations=40, max_searches=50,
        )  # fmt: skip
        assert np.isfinite(res.q).all() and np.isfinite(res.error)
        ConfigurationLimit(panda.model).check(res.q)
        assert res.success == (res.error < 1e-6), res
        if not res.success:
            assert "no solution after" in res.reason and "tol" in res.reason, res.reason


def test_nr_on_redundant_arm_is_rejected(panda):
    task = _pose_target(panda, "panda_hand", np.random.default_rng(0))
    with pytest.raises(taskik.InvalidInput, match="square"):
        solve_posture(panda.model, [task], method="nr", q0=panda.q0)


@pytest.mark.parametrize("method", ["nr-pinv", "gn", "gn-pinv", "lm-wampler", "lm-chan"])
def test_methods_converge_on_planar_arms(method):
    rng = np.random.default_rng(13)
    for name in ("planar_2r", "planar_3r"):
        robot = taskik.robots.load(name)
        for k in range(3):
            q_star = robot.random_configuration(rng)
            task = taskik.PositionTask("ee")
            task.set_target_from_configuration(robot.configuration(q_star))
            res = solve_posture(
                robot.model, [task], method=method, q0=robot.random_configuration(rng),
                rng=k, max_iterations=40,
            )  # fmt: skip
            assert res.success, (name, method, res)
            p = robot.configuration(res.q).get_transform_frame_to_world("ee").translation
            assert np.linalg.norm(p - task.target) < 2e-3


def test_tol_is_respected(ur5):
    rng = np.random.default_rng(14)
    task = _pose_target(ur5, "tool0", rng)
    for tol in (1e-4, 1e-10):
        res = solve_posture(ur5.model, [task], q0=ur5.q0, tol=tol, rng=0)
        assert res.success and res.error < tol
        assert res.residuals[0] == pytest.approx(res.error)


# ----------------------------------------------------------------------------- restarts
def test_unlucky_start_needs_restarts(planar_2r):
    """From the stretched posture q = 0 toward a target on the same line, the error lies in
    the left null space of J (Jᵀe = 0): q = 0 is a stationary point of E, every step is zero
    and the search stagnates. One search fails; with restarts the solve succeeds."""
    task = taskik.PositionTask("ee")
    task.set_target(np.array([1.5, 0.0, 0.0]))  # reach is 1.7 m, along the x axis
    q0 = np.zeros(2)
    one = solve_posture(planar_2r.model, [task], q0=q0, max_searches=1)
    assert not one.success
    assert "stagnated" in one.reason
    assert one.searches == 1
    assert one.error == pytest.approx(0.5 * 0.2**2)
    np.testing.assert_allclose(one.q, q0)
    more = solve_posture(planar_2r.model, [task], q0=q0, max_searches=10, rng=1)
    assert more.success
    assert more.searches >= 2
    assert more.iterations > one.iterations  # the failed search's iterations are counted
    p = planar_2r.configuration(more.q).get_transform_frame_to_world("ee").translation
    np.testing.assert_allclose(p, task.target, atol=2e-3)


def test_restarts_count_iterations_across_searches(ur5):
    rng = np.random.default_rng(15)
    task = _pose_target(ur5, "tool0", rng)
    res = solve_posture(
        ur5.model, [task], q0=ur5.random_configuration(rng), max_iterations=6,
        max_searches=500, rng=2, patience=100,
    )  # fmt: skip
    assert res.success
    assert res.searches > 1
    assert (res.searches - 1) * 6 < res.iterations <= res.searches * 6


def test_seeded_rng_is_reproducible(ur5):
    rng = np.random.default_rng(16)
    task = _pose_target(ur5, "tool0", rng)
    opts = dict(max_iterations=4, max_searches=200, starts="random")
    runs = [solve_posture(ur5.model, [task], rng=123, **opts) for _ in range(2)]
    assert runs[0].iterations == runs[1].iterations
    np.testing.assert_array_equal(runs[0].q, runs[1].q)
    other = solve_posture(ur5.model, [task], rng=124, **opts)
    assert not np.array_equal(other.q, runs[0].q) or other.iterations != runs[0].iterations


def test_configuration_is_first_start_and_untouched(ur5):
    rng = np.random.default_rng(17)
    conf = ur5.configuration(ur5.random_configuration(rng))
    q_before = conf.q.copy()
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    res = solve_posture(conf, [task])
    assert res.success and res.iterations == 1 and res.searches == 1
    np.testing.assert_array_equal(conf.q, q_before)


# ------------------------------------------------------------------------ joint limits
@pytest.mark.parametrize("policy", ["clip", "reject"])
def test_panda_limits_policies(panda, policy):
    rng = np.random.default_rng(18)
    limit = ConfigurationLimit(panda.model)
    for k in range(5):
        task = _pose_target(panda, "panda_hand", rng)
        res = solve_posture(
            panda.model, [task], q0=panda.random_configuration(rng), joint_limits=policy, rng=k
        )
        assert res.success, res
        limit.check(res.q)


def test_reject_policy_rejects_out_of_range_solutions(panda):
    """Shrink joint 4's range so that the only solutions near the start are outside it: with
    'reject' every converged q is discarded and the reason says so."""
    model = pin.Model(panda.model)
    q_star = panda.q0.copy()
    task = taskik.FrameTask("panda_hand")
    task.set_target_from_configuration(taskik.Configuration(model, q_star))
    model.lowerPositionLimit[3] = -0.5  # q_star[3] = −2.356 is now out of range
    res = solve_posture(model, [task], q0=q_star, joint_limits="reject", max_searches=1)
    assert not res.success
    assert "rejected for joint limits" in res.reason
    ignored = solve_posture(model, [task], q0=q_star, joint_limits="ignore", max_searches=1)
    assert ignored.success and ignored.iterations == 1


def test_wrapped_angles_stay_in_range(ur5):
    rng = np.random.default_rng(19)
    task = _pose_target(ur5, "tool0", rng)
    res = solve_posture(ur5.model, [task], q0=ur5.q0 + 5.0, joint_limits="clip", rng=0)
    assert res.success
    assert np.all(np.abs(res.q) <= np.pi + 1e-12)


# -------------------------------------------------------------- posture generation
def _humanoid_tasks(humanoid):
    conf = humanoid.configuration()
    feet = []
    for name, dy in (("lleg_effector_body", 0.05), ("rleg_effector_body", -0.05)):
        t = taskik.FrameTask(name)
        M = conf.get_transform_frame_to_world(name)
        M.translation = M.translation + np.array([0.1, dy, 0.0])
        t.set_target(M)
        feet.append(t)
    support = 0.5 * sum(t.target.translation for t in feet)
    com = taskik.ComTask(cost=[1.0, 1.0, 0.0])
    com.set_target(np.array([support[0], support[1], 0.0]))
    hand = taskik.PositionTask("rarm_effector_body")
    hand.set_target(conf.get_transform_frame_to_world("rarm_effector_body").translation
                    + np.array([0.25, 0.1, 0.2]))  # fmt: skip
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    return conf, feet, com, hand, posture


@pytest.mark.parametrize("method", ["lm-chan", "qp"])
def test_humanoid_posture_generation(humanoid, method):
    conf, feet, com, hand, posture = _humanoid_tasks(humanoid)
    tasks = [*feet, com, hand]
    tol = 1e-10
    res = solve_posture(
        conf, tasks, method=method, regularization=[posture], tol=tol, max_iterations=60,
        max_searches=3, rng=0,
    )  # fmt: skip
    assert res.success, res
    assert len(res.residuals) == 4
    assert all(r < tol for r in res.residuals)
    assert sum(res.residuals) == pytest.approx(res.error)
    sol = humanoid.configuration(res.q)  # validates the quaternion (|q| = 1 ± 1e-6)
    quat = res.q[3:7]
    assert abs(np.linalg.norm(quat) - 1.0) < 1e-9
    for t in feet:
        M = sol.get_transform_frame_to_world(t.frame.name)
        assert np.linalg.norm(M.translation - t.target.translation) < 1e-4
        assert np.linalg.norm(pin.log3(M.rotation.T @ t.target.rotation)) < 1e-4
    support = 0.5 * (feet[0].target.translation + feet[1].target.translation)
    assert np.linalg.norm(sol.com[:2] - support[:2]) < 1e-4
    p = sol.get_transform_frame_to_world("rarm_effector_body").translation
    assert np.linalg.norm(p - hand.target) < 1e-4
    ConfigurationLimit(humanoid.model).check(res.q)


def test_humanoid_restarts_keep_the_base_near_the_start(humanoid):
    """Restarts of a floating-base model sample the joints and keep the base near q0."""
    conf, feet, com, hand, posture = _humanoid_tasks(humanoid)
    res = solve_posture(conf, [*feet, com, hand], max_iterations=2, max_searches=3, rng=0)
    assert not res.success and res.searches == 3
    assert abs(np.linalg.norm(res.q[3:7]) - 1.0) < 1e-9


# ------------------------------------------------------------------- unreachable, budget
def test_unreachable_target_returns_best_q_and_reason(ur5):
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))  # UR5 reach < 1 m
    res = solve_posture(ur5.model, [task], q0=ur5.q0, max_searches=4, rng=0)
    assert not res.success
    assert res.searches == 4
    assert "no solution" in res.reason and "best E" in res.reason
    assert np.isfinite(res.error) and res.error > 1.0
    # the best q is close to the best one can do: the arm stretched toward the target
    p = ur5.configuration(res.q).get_transform_frame_to_world("tool0").translation
    assert np.linalg.norm(p - task.target.translation) < 3.0 - 0.8
    assert res.error == pytest.approx(
        solve_posture(ur5.model, [task], q0=res.q, max_iterations=1, max_searches=1).error
    )


def test_unreachable_general_path_stagnates(panda):
    task = _GeneralFrameTask("panda_hand")
    task.set_target(pin.SE3(np.eye(3), np.array([2.0, 0.0, 0.5])))
    res = solve_posture(panda.model, [task], q0=panda.q0, max_iterations=500, max_searches=2)
    assert not res.success
    assert res.iterations < 2 * 500  # stagnation ends the searches early
    assert "stagnated" in res.reason


def test_time_budget_stops_the_solve(ur5):
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))
    res = solve_posture(
        ur5.model, [task], q0=ur5.q0, max_iterations=10**6, max_searches=10**6,
        stagnation=0.0, patience=10**9, time_budget=0.02,
    )  # fmt: skip
    assert not res.success
    assert "time budget" in res.reason
    assert res.time < 0.5


def test_tiny_time_budget_still_returns_a_result(ur5):
    """A budget spent before the first search (here: by building the seed memory of a new
    model) still gives one evaluation and a result, never an exception."""
    model = pin.Model(ur5.model)  # a new model object: its memory is built in this call
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))
    res = solve_posture(model, [task], time_budget=1e-9)
    assert not res.success and res.searches == 1 and res.iterations >= 1
    assert "time budget" in res.reason


# ------------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "newton"}, "unknown method"),
        ({"tol": 0.0}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"max_iterations": 0}, "max_iterations"),
        ({"max_searches": 1.5}, "max_searches"),
        ({"joint_limits": "soft"}, "joint_limits"),
        ({"damping": -1.0, "method": "lm-wampler"}, "damping"),
        ({"damping": [1.0, 2.0], "method": "lm-sugihara"}, "w̄"),
        ({"time_budget": -1.0}, "time_budget"),
        ({"q0": np.full(6, np.nan)}, "NaN"),
        ({"q0": np.zeros(5)}, "shape"),
        ({"pose_error": "local"}, "pose_error"),
        ({"rng": "seed"}, "rng"),
        ({"starts": "nearest"}, "starts must be one of memory, random, got 'nearest'"),
        ({"starts": None}, "starts must be one of memory, random"),
    ],
)
def test_bad_options_raise(ur5, kwargs, match):
    task = _pose_target(ur5, "tool0", np.random.default_rng(0))
    with pytest.raises(taskik.InvalidInput, match=match):
        solve_posture(ur5.model, [task], **kwargs)


def test_bad_tasks_raise(ur5):
    with pytest.raises(taskik.InvalidInput, match="tasks"):
        solve_posture(ur5.model, [])
    with pytest.raises(taskik.InvalidInput, match="tasks"):
        solve_posture(ur5.model, ["tool0"])
    with pytest.raises(taskik.InvalidInput, match="conf_or_model"):
        solve_posture("ur5", [taskik.FrameTask("tool0")])
    with pytest.raises(taskik.TargetNotSet):
        solve_posture(ur5.model, [taskik.FrameTask("tool0")])
    with pytest.raises(taskik.InvalidInput, match="single FrameTask"):
        solve_posture(ur5.model, [taskik.PositionTask("tool0")], pose_error="world")


# ------------------------------------------------------ Haviland & Corke Table 1, small
def test_table1_lm_chan_statistics(ur5):
    """LM Chan λ = 0.1 with the tutorial's error and loop (31 evaluations per search, new
    random q0 per search) on 2000 targets: the mean and median iterations and the one-search
    failure rate agree with Table 1 (15.33 / 9 with restarts; one search of 500: 9.43 / 9,
    9.63 % infeasible) within sampling noise. A wrong sign or factor in the step or the
    error moves these far outside the bands, and so does a wrong λ: the mean iterations of
    the single searches that converge are the most sensitive figure (λ sits near its best
    value there). Measured on 6 target sets of 2000 (seeds 20–25): λ = 0.1 gives
    9.08–9.28; λ = 0.3 gives 10.06–10.54 and λ = 0.01 10.15–10.74 (λ = 0.05, 0.2: 9.1–9.3,
    9.5–9.9). Restarts: mean 14.6–16.8 and median 9 at λ = 0.1, median 10 at λ = 0.3;
    one-search failures 8.7–11.2 % at every λ (they depend little on it)."""
    rng = np.random.default_rng(20)
    model = ur5.model
    restart_its, single_its, single_fail = [], [], 0
    task = taskik.FrameTask("tool0")
    n = 2000
    for k in range(n):
        task.set_target_from_configuration(ur5.configuration(rng.uniform(-np.pi, np.pi, 6)))
        opts = dict(pose_error="world", joint_limits="ignore", stagnation=0.0, patience=10**9)
        res = solve_posture(
            model, [task], q0=rng.uniform(-np.pi, np.pi, 6), max_iterations=31,
            max_searches=100, rng=k, **opts,
        )  # fmt: skip
        assert res.success
        restart_its.append(res.iterations)
        one = solve_posture(
            model, [task], q0=rng.uniform(-np.pi, np.pi, 6), max_iterations=101,
            max_searches=1, **opts,
        )  # fmt: skip
        single_fail += not one.success
        if one.success:
            single_its.append(one.iterations)
    # (101 evaluations per single search, not 500: a few slow convergers fewer, published 9.43)
    assert 8.8 < np.mean(single_its) < 9.7, np.mean(single_its)
    assert 13.5 < np.mean(restart_its) < 17.5, np.mean(restart_its)
    assert np.median(restart_its) == 9
    assert 0.07 < single_fail / n < 0.13, single_fail / n


def test_wrap_keeps_values_on_the_bounds_inside(panda):
    """Regression: the 2π arithmetic of the final wrap must not push a joint that sits on its
    bound (where 'clip' leaves it) an ulp outside."""
    from taskik.posture.joint_limits import JointLimits

    limits = JointLimits(panda.model)
    q = panda.q0.copy()
    q[:] = panda.model.upperPositionLimit
    q[3] = panda.model.lowerPositionLimit[3]
    limits.wrap(q)
    ConfigurationLimit(panda.model).check(q, tol=0.0)
    q = panda.model.lowerPositionLimit.copy()
    limits.wrap(q)
    ConfigurationLimit(panda.model).check(q, tol=0.0)


def test_lean_lm_chan_loop_takes_the_same_iterates_as_the_general_loop(ur5):
    """A time budget (checked at every iteration) must not change the iterates of the
    single-pose loop."""
    rng = np.random.default_rng(21)
    for _ in range(20):
        task = _pose_target(ur5, "tool0", rng)
        q0 = ur5.random_configuration(rng)
        lean = solve_posture(ur5.model, [task], q0=q0, rng=3, joint_limits="ignore")
        # a time budget routes the same search through the general loop
        general = solve_posture(
            ur5.model, [task], q0=q0, rng=3, joint_limits="ignore", time_budget=1e6
        )
        assert lean.iterations == general.iterations
        assert lean.searches == general.searches
        assert lean.success == general.success
        assert np.array_equal(lean.q, general.q)


# ------------------------------------------------------------------------ seed memory
def _nearest_entries(model, frame, target: pin.SE3) -> np.ndarray:
    """Indices of the seed-memory entries by the documented distance, computed here from
    the stored configurations: |p_i − p*|² + 0.1 (3 − tr(R_iᵀR*)), nearest first."""
    from taskik.posture.context import context

    fid = model.getFrameId(frame)
    Q = context(model).memory(fid).Q
    data = model.createData()
    d = []
    for q in Q:
        pin.framesForwardKinematics(model, data, q)
        M = data.oMf[fid]
        dp = M.translation - target.translation
        d.append(dp @ dp + 0.1 * (3.0 - np.trace(M.rotation.T @ target.rotation)))
    return Q, np.argsort(d, kind="stable")


class _StartSpy:
    """Records the start of every search of the single-pose loop."""

    def __init__(self, monkeypatch):
        from taskik.posture.fast_pose import FastPose

        self.starts = []
        inner = FastPose.search

        def spy(runner, q, *args, **kwargs):
            self.starts.append(np.array(q))
            return inner(runner, q, *args, **kwargs)

        monkeypatch.setattr(FastPose, "search", spy)


def test_memory_is_the_first_start_without_a_given_start(ur5, monkeypatch):
    rng = np.random.default_rng(30)
    task = _pose_target(ur5, "tool0", rng)
    Q, order = _nearest_entries(ur5.model, "tool0", task.target)
    spy = _StartSpy(monkeypatch)
    res = solve_posture(ur5.model, [task], max_iterations=1, max_searches=1)
    np.testing.assert_array_equal(spy.starts[0], Q[order[0]])
    np.testing.assert_array_equal(res.q, Q[order[0]])  # the only iterate: the start
    assert res.searches == 1 and res.iterations == 1
    # and the solve itself converges from there, whatever the rng
    a = solve_posture(ur5.model, [task], rng=1)
    b = solve_posture(ur5.model, [task], rng=2)
    assert a.success and b.success
    np.testing.assert_array_equal(a.q, b.q)


def test_given_start_is_the_first_start_and_restarts_are_random(ur5, monkeypatch):
    rng = np.random.default_rng(31)
    task = _pose_target(ur5, "tool0", rng)
    q0 = ur5.random_configuration(rng)
    spy = _StartSpy(monkeypatch)
    res = solve_posture(ur5.model, [task], q0=q0, max_iterations=1, max_searches=1)
    np.testing.assert_array_equal(spy.starts[0], q0)
    assert res.iterations == 1
    conf = ur5.configuration(q0)
    spy.starts.clear()
    solve_posture(conf, [task], max_iterations=1, max_searches=3, rng=5)
    np.testing.assert_array_equal(spy.starts[0], q0)
    Q, _ = _nearest_entries(ur5.model, "tool0", task.target)
    for q in spy.starts[1:]:  # random restarts, not memory entries
        assert not any(np.array_equal(q, entry) for entry in Q)


def test_restarts_take_the_next_nearest_entries_then_random(ur5, monkeypatch):
    from taskik.posture.starts import NearestStarts

    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))  # unreachable: all fail
    Q, order = _nearest_entries(ur5.model, "tool0", task.target)
    spy = _StartSpy(monkeypatch)
    n = NearestStarts.NEXT
    res = solve_posture(ur5.model, [task], max_iterations=1, max_searches=n + 3, rng=0)
    assert not res.success and res.searches == n + 3
    for k in range(n + 1):
        np.testing.assert_array_equal(spy.starts[k], Q[order[k]])
    for q in spy.starts[n + 1 :]:
        assert not any(np.array_equal(q, entry) for entry in Q)


def test_memory_starts_are_reproducible(ur5):
    """The memory is built with a fixed seed: rebuilding it (a new process, or the cache
    dropped) gives the same entries and the same solutions."""
    from taskik.posture import context as contexts

    rng = np.random.default_rng(32)
    tasks = [_pose_target(ur5, "tool0", rng) for _ in range(5)]
    before = [solve_posture(ur5.model, [t], rng=0) for t in tasks]
    Q = contexts.context(ur5.model).memory(ur5.model.getFrameId("tool0")).Q.copy()
    contexts.CONTEXTS.clear()
    after = [solve_posture(ur5.model, [t], rng=0) for t in tasks]
    np.testing.assert_array_equal(
        contexts.context(ur5.model).memory(ur5.model.getFrameId("tool0")).Q, Q
    )
    for a, b in zip(before, after, strict=True):
        assert a.success and b.success
        assert a.iterations == b.iterations and a.searches == b.searches
        np.testing.assert_array_equal(a.q, b.q)


def test_starts_random_switches_the_memory_off(ur5, monkeypatch):
    rng = np.random.default_rng(33)
    task = _pose_target(ur5, "tool0", rng)
    Q, _ = _nearest_entries(ur5.model, "tool0", task.target)
    spy = _StartSpy(monkeypatch)
    a = solve_posture(ur5.model, [task], starts="random", rng=7, max_iterations=1)
    b = solve_posture(ur5.model, [task], starts="random", rng=7, max_iterations=1)
    c = solve_posture(ur5.model, [task], starts="random", rng=8, max_iterations=1)
    np.testing.assert_array_equal(a.q, b.q)
    assert not np.array_equal(a.q, c.q)
    assert not any(np.array_equal(q, entry) for q in spy.starts for entry in Q)
    ok = solve_posture(ur5.model, [task], starts="random", rng=7)
    assert ok.success


def test_memory_on_the_general_path(ur5):
    """A FrameTask the single-pose loop does not take (a subclass, other costs) starts from
    the memory too; with an orientation cost of zero only the positions are compared."""
    rng = np.random.default_rng(34)
    task = _pose_target(ur5, "tool0", rng, _GeneralFrameTask)
    Q, order = _nearest_entries(ur5.model, "tool0", task.target)
    res = solve_posture(ur5.model, [task], max_iterations=1, max_searches=1)
    np.testing.assert_array_equal(res.q, Q[order[0]])
    task.set_costs(orientation_cost=0.0)
    data = ur5.model.createData()
    fid = ur5.model.getFrameId("tool0")
    dist = []
    for q in Q:
        pin.framesForwardKinematics(ur5.model, data, q)
        dist.append(np.sum((data.oMf[fid].translation - task.target.translation) ** 2))
    res = solve_posture(ur5.model, [task], max_iterations=1, max_searches=1)
    np.testing.assert_array_equal(res.q, Q[int(np.argmin(dist))])
    full = solve_posture(ur5.model, [task], rng=0)
    assert full.success


def test_memory_start_takes_the_same_iterates_as_the_general_loop(ur5):
    """The first search from a memory entry reuses the stored pose and Jacobian: it must
    walk through the iterates the general loop computes from the same entry."""
    rng = np.random.default_rng(35)
    for _ in range(10):
        task = _pose_target(ur5, "tool0", rng)
        lean = solve_posture(ur5.model, [task], rng=3, joint_limits="ignore")
        general = solve_posture(ur5.model, [task], rng=3, joint_limits="ignore", time_budget=1e6)
        assert lean.iterations == general.iterations
        assert lean.searches == general.searches
        assert np.array_equal(lean.q, general.q)


def test_memory_entries_are_within_the_limits(panda):
    from taskik.posture import context as contexts

    memory = contexts.context(panda.model).memory(panda.model.getFrameId("panda_hand"))
    limit = ConfigurationLimit(panda.model)
    for q in memory.Q:
        limit.check(q, tol=0.0)
    task = _pose_target(panda, "panda_hand", np.random.default_rng(36))
    res = solve_posture(panda.model, [task], rng=0)
    assert res.success
    limit.check(res.q)
