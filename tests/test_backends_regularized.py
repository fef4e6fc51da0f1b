"""Regularized Jacobian: the worked cases of the design note (planar 2R at full stretch,
Euler wrist), the branch selection, and the task adapters."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import solve_ik
from taskik.backends.regularized import RegularizedBlock, RegularizedJacobian
from taskik.backends.unconstrained import regularization_blocks

DT = 0.01
L1, L2 = 1.0, 0.7


def stretched(planar_2r, target):
    conf = planar_2r.configuration(np.zeros(2))
    task = taskik.PositionTask("ee")
    task.set_target(np.asarray(target, dtype=float))
    return conf, task


def test_toward_the_base_pinv_and_dls_do_not_move_regularized_does(planar_2r):
    delta = 0.01
    conf, task = stretched(planar_2r, [L1 + L2 - delta, 0.0, 0.0])  # ẋ_d = (−δ/dt, 0)
    speed = delta / DT
    assert np.abs(solve_ik(conf, [task], DT, backend="pinv")).max() < 1e-12
    for lam in (1e-3, 0.1, 1.0, 10.0):
        assert np.abs(solve_ik(conf, [task], DT, backend="dls", lam=lam)).max() < 1e-12
    for gamma in (0.25, 0.5, 1.0, 2.0):
        v = solve_ik(conf, [task], DT, backend="regularized", gamma0=gamma, sigma_thr=0.1)
        expected = speed * np.array([-L2, L1 + L2]) / (gamma * L1)  # finite, ∝ 1/|γ|
        assert np.allclose(v, expected, rtol=1e-9)


def test_regular_direction_does_not_depend_on_gamma(planar_2r):
    delta = 0.01
    conf, task = stretched(planar_2r, [L1 + L2, delta, 0.0])  # ẋ_d = (0, δ/dt)
    for gamma in (0.25, 0.5, -1.0):
        v = solve_ik(conf, [task], DT, backend="regularized", gamma0=gamma, sigma_thr=0.1)
        assert np.allclose(v, delta / DT * np.array([1.0, -1.0]) / L1, rtol=1e-9)


def test_sign_of_gamma_selects_the_elbow_branch(planar_2r):
    # Kp = 10 /s with dt = 0.01 s: gain 0.1; target from (1.7, 0) to (1.2, 0) in 1 s
    c2 = (1.2**2 - L1**2 - L2**2) / (2 * L1 * L2)
    elbow = np.arccos(c2)
    finals = {}
    for backend, opts in (
        ("pinv", {}),
        ("dls", {"lam": 0.1}),
        ("regularized", {"gamma0": 0.5}),
        ("regularized", {"gamma0": -0.5}),
    ):
        conf = planar_2r.configuration(np.zeros(2))
        task = taskik.PositionTask("ee", gain=0.1)
        for k in range(1, 201):
            task.set_target(np.array([1.7 - 0.5 * min(k * DT, 1.0), 0.0, 0.0]))
            conf.integrate_inplace(solve_ik(conf, [task], DT, backend=backend, **opts), DT)
        finals[(backend, opts.get("gamma0"))] = (conf.q.copy(), task.compute_error(conf))
    for key in (("pinv", None), ("dls", None)):
        q, e = finals[key]
        assert np.abs(q).max() < 1e-12 and np.linalg.norm(e) == pytest.approx(0.5)
    q_up, e_up = finals[("regularized", 0.5)]
    q_down, e_down = finals[("regularized", -0.5)]
    assert np.linalg.norm(e_up) < 1e-4 and np.linalg.norm(e_down) < 1e-4
    assert q_up[1] == pytest.approx(elbow, abs=1e-4)  # γ > 0: θ2 > 0
    assert q_down[1] == pytest.approx(-elbow, abs=1e-4)  # γ < 0: θ2 < 0


def euler_wrist() -> taskik.Configuration:
    model = pin.Model()
    parent = 0
    for name, joint in (("z1", pin.JointModelRZ()), ("x2", pin.JointModelRX())):
        parent = model.addJoint(parent, joint, pin.SE3.Identity(), name)
    parent = model.addJoint(parent, pin.JointModelRZ(), pin.SE3.Identity(), "z3")
    model.addFrame(pin.Frame("tool", parent, 0, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    return taskik.Configuration(model, np.zeros(3))


def test_euler_wrist_orientation_regularized():
    conf = euler_wrist()
    task = taskik.OrientationTask("tool")
    task.set_target(pin.exp3(np.array([0.0, 0.02, 0.0])))  # a rotation about y: singular
    assert np.abs(solve_ik(conf, [task], DT, backend="pinv")).max() < 1e-9
    gamma = 0.5
    v = solve_ik(conf, [task], DT, backend="regularized", gamma0=gamma, sigma_thr=0.1)
    # design note: ω_r = z, r = (0, −1, 0), J_S^reg = [[γ, 0, 0], [0, −1, 0], [1, 0, 1]]
    A = taskik.build_ik(conf, [task], DT, limits=[])
    R = np.eye(3)
    L = pin.Jlog3(task.target.T @ R) @ R.T
    o_d = np.linalg.solve(L, A.c)  # desired world angular velocity
    z = np.array([0.0, 0.0, 1.0])
    s = (np.outer(z, z) - pin.skew(z)) @ o_d  # s_d = P_r o_d + o_d × ω_r
    expected = np.array([s[0] / gamma, -s[1], s[2] - s[0] / gamma])
    assert abs(s[0]) > 1.0  # the singular direction is really commanded
    assert np.allclose(v, expected, rtol=1e-9, atol=1e-12)


def test_away_from_singularities_regularized_is_the_pseudoinverse(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    task = taskik.FrameTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0") * pin.exp6(np.full(6, 0.05)))
    v_reg = solve_ik(conf, [task], DT, backend="regularized", sigma_thr=1e-3)
    assert np.allclose(v_reg, solve_ik(conf, [task], DT, backend="pinv"), atol=1e-12)


def test_tasks_without_adapter_keep_their_rows(humanoid):
    conf = humanoid.configuration()
    com = taskik.ComTask()
    com.set_target(conf.com + 0.01)
    assert regularization_blocks(com, conf) is None
    v_reg = solve_ik(conf, [com], DT, backend="regularized", sigma_thr=1e3)
    assert np.allclose(v_reg, solve_ik(conf, [com], DT, backend="pinv"), atol=1e-12)


def test_adapters_reproduce_the_task_jacobian(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    T = conf.get_transform_frame_to_world("tool0") * pin.exp6(rng.normal(scale=0.3, size=6))
    position = taskik.PositionTask("tool0", offset=np.array([0.02, -0.03, 0.1]))
    orientation = taskik.OrientationTask("tool0")
    frame = taskik.FrameTask("tool0")
    position.set_target(T.translation)
    orientation.set_target(T.rotation)
    frame.set_target(T)
    for task in (position, orientation, frame):
        blocks = regularization_blocks(task, conf)
        J = sum(L @ Jb for _, L, Jb, _ in blocks)
        assert np.allclose(J, task.compute_jacobian(conf), atol=1e-12), task


def planar_block(q2: float) -> RegularizedBlock:
    conf = taskik.robots.load("planar_2r").configuration(np.array([0.0, q2]))
    task = taskik.PositionTask("ee")
    task.set_target(np.zeros(3))
    (_, L, J, Jw) = regularization_blocks(task, conf)[0]
    return RegularizedBlock("position", slice(0, 3), L, Jw, J, key="ee")


def test_branch_is_held_inside_the_singular_region_and_follows_a_crossing():
    reg = RegularizedJacobian(gamma0=-0.5, sigma_thr=0.2, branch="auto")
    g_enter, _ = reg.block_gamma(planar_block(0.05))  # entering on the θ2 > 0 side
    assert g_enter > 0  # the better-conditioned branch, not the sign of γ0
    g_tie, _ = reg.block_gamma(planar_block(0.0))  # exactly singular: a tie
    assert g_tie == pytest.approx(0.5)  # held, |γ| = |γ0| at σ = 0
    g_crossed, _ = reg.block_gamma(planar_block(-0.25))  # the arm went to the other side
    assert g_crossed < 0
    g_out, _ = reg.block_gamma(planar_block(1.2))  # regular again: γ = 0, branch forgotten
    assert g_out == 0.0
    g_new, _ = reg.block_gamma(planar_block(0.0))
    assert g_new == pytest.approx(-0.5)  # tie on entry: the sign of γ0
    fixed = RegularizedJacobian(gamma0=-0.5, sigma_thr=0.2, branch="fixed")
    assert fixed.block_gamma(planar_block(0.05))[0] < 0


def test_gamma_schedule_is_quadratic_in_sigma():
    reg = RegularizedJacobian(gamma0=0.8, sigma_thr=0.2, branch="fixed")
    block = planar_block(0.1)
    sigma = np.linalg.svd(block.linear, compute_uv=False)[1]
    assert 0 < sigma < 0.2
    gamma, _ = reg.block_gamma(block)
    assert gamma == pytest.approx(0.8 * (1 - sigma / 0.2) ** 2, rel=1e-12)


def _block(kind, angular, linear=None):
    angular = np.asarray(angular, dtype=float)
    linear = None if linear is None else np.asarray(linear, dtype=float)
    return RegularizedBlock(kind, slice(0, 3), np.eye(3), angular, linear)


def test_skew_is_the_cross_product(rng):
    from taskik.backends.regularized import skew

    for _ in range(3):
        x, y = rng.normal(size=3), rng.normal(size=3)
        assert np.allclose(skew(x) @ y, np.cross(x, y), atol=1e-15)


def test_generic_rank_from_the_joint_geometry():
    from taskik.backends.regularized import generic_rank

    z, y, x = [0, 0, 1.0], [0, 1.0, 0], [1.0, 0, 0]
    ex, ey = [1.0, 0, 0], [0, 1.0, 0]
    cases = [
        # orientation: no revolute joint, parallel axes, two or more axes
        (_block("orientation", np.zeros((3, 2))), 0),
        (_block("orientation", np.array([z, z, z]).T * [1.0, 2.0, 0.5]), 1),
        (_block("orientation", 1e-4 * np.array([z, y]).T), 2),  # small but non-parallel
        (_block("orientation", np.array([z, y]).T), 2),
        (_block("orientation", np.array([z, y, x, z]).T), 3),
        # position: a planar arm (parallel axes), a spatial arm, prismatic joints
        (_block("position", np.array([z, z, z]).T, np.array([ey, ey, ey]).T), 2),
        (_block("position", np.array([z, y, y]).T, np.array([ey, ex, ex]).T), 3),
        (_block("position", np.array([z]).T, np.array([ey]).T), 1),
        (_block("position", np.zeros((3, 1)), np.array([ex]).T), 1),  # one prismatic joint
        (_block("position", np.zeros((3, 2)), 3.0 * np.array([ex, ey]).T), 2),
        (_block("position", np.array([z, [0, 0, 0]]).T, np.array([ey, [0, 0, 2.0]]).T), 2),
        (_block("position", np.zeros((3, 2)), np.zeros((3, 2))), 0),  # nothing moves
    ]
    for block, rank in cases:
        assert generic_rank(block) == rank, (block, rank)


def test_regularization_direction_and_joint():
    from taskik.backends.regularized import regularization_direction

    z, y = np.array([0, 0, 1.0]), np.array([0, 1.0, 0])
    # position: the unit linear velocity of the last moving joint
    r, k = regularization_direction(
        _block("position", np.zeros((3, 3)), np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 0]]).T)
    )
    assert np.allclose(r, [0, 1, 0]) and k == -1
    assert regularization_direction(_block("position", np.zeros((3, 2)), np.zeros((3, 2)))) is None
    # orientation: r = normalize(ω_{n−1} × ω_r) with the last two non-parallel axes
    r, k = regularization_direction(_block("orientation", np.array([y, 2 * z, 3 * z, [0, 0, 0]]).T))
    assert np.allclose(r, np.cross(y, z)) and k == 2
    assert regularization_direction(_block("orientation", np.array([z, 2 * z]).T)) is None
    assert regularization_direction(_block("orientation", np.array([z, [0, 0, 0]]).T)) is None


def test_regularized_options_and_their_defaults(planar_2r):
    task = taskik.PositionTask("ee")
    task.set_target(np.array([L1 + L2 - 0.01, 0.0, 0.0]))
    conf = planar_2r.configuration(np.array([0.0, 0.03]))  # near the singularity: 0 < σ < σ_thr
    default = solve_ik(conf, [task], DT, backend="regularized")
    explicit = solve_ik(
        conf, [task], DT, backend="regularized", gamma0=0.5, sigma_thr=0.05, branch="auto"
    )
    assert np.allclose(default, explicit, rtol=1e-12)
    for other in ({"gamma0": 1.5}, {"sigma_thr": 1.05}):
        assert not np.allclose(solve_ik(conf, [task], DT, backend="regularized", **other), default)
    # rcond is the pseudoinverse's cut-off: a large one drops the regularized direction
    cut = solve_ik(conf, [task], DT, backend="regularized", rcond=0.99)
    assert not np.allclose(cut, default)
    with pytest.raises(taskik.InvalidInput, match="branch"):
        solve_ik(conf, [task], DT, backend="regularized", branch="sometimes")


def test_regularized_blocks_are_found_after_tasks_without_adapter(planar_2r):
    """Rows of a regularized task after a task without adapter (posture) are regularized in
    place: the step does not depend on the order of the tasks."""
    conf, task = stretched(planar_2r, [L1 + L2 - 0.01, 0.0, 0.0])
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(np.zeros(2))
    first = solve_ik(conf, [posture, task], DT, backend="regularized", sigma_thr=0.1)
    last = solve_ik(conf, [task, posture], DT, backend="regularized", sigma_thr=0.1)
    assert np.abs(first).max() > 0.1 and np.allclose(first, last, rtol=1e-12)


def test_frame_task_position_block_is_regularized(planar_2r):
    conf, point = stretched(planar_2r, [L1 + L2 - 0.01, 0.0, 0.0])
    frame = taskik.FrameTask("ee", position_cost=1.0, orientation_cost=0.0)
    T = conf.get_transform_frame_to_world("ee")
    frame.set_target(pin.SE3(T.rotation, point.target))
    assert np.abs(solve_ik(conf, [frame], DT, backend="pinv")).max() < 1e-9
    v = solve_ik(conf, [frame], DT, backend="regularized", sigma_thr=0.1)
    # the position rows of a pose error: L = Jlog6[:, :3] Rᵀ applied to the point velocity
    problem = taskik.build_ik(conf, [frame], DT, limits=[])
    Jl = conf.get_frame_jacobian(conf.get_frame_id("ee"))
    R = T.rotation
    block = RegularizedBlock(
        "position",
        slice(0, 6),
        pin.Jlog6(frame.target.actInv(T))[:, :3] @ R.T,
        R @ Jl[3:],
        R @ Jl[:3],
    )
    expected = RegularizedJacobian(sigma_thr=0.1).solve(problem.A, problem.c, [block])
    assert np.abs(v).max() > 0.1 and np.allclose(v, expected, rtol=1e-9)


def test_a_task_class_opts_in_with_regularization_blocks(planar_2r):
    from taskik.backends.unconstrained import REGULARIZATION_ADAPTERS

    class Point(taskik.PositionTask):  # a subclass: no built-in adapter
        pass

    class RegularizedPoint(taskik.PositionTask):
        def regularization_blocks(self, configuration):
            return REGULARIZATION_ADAPTERS[taskik.PositionTask](self, configuration)

    conf, task = stretched(planar_2r, [L1 + L2 - 0.01, 0.0, 0.0])
    expected = solve_ik(conf, [task], DT, backend="regularized", sigma_thr=0.1)
    for cls, moves in ((Point, False), (RegularizedPoint, True)):
        sub = cls("ee")
        sub.set_target(task.target)
        v = solve_ik(conf, [sub], DT, backend="regularized", sigma_thr=0.1)
        assert np.allclose(v, expected, rtol=1e-9) == moves
        assert (np.abs(v).max() > 0.1) == moves


def test_gammas_report_zero_for_regular_and_unregularizable_blocks():
    reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.2)
    assert reg.gammas == {}
    A = np.zeros((3, 2))
    # regular (σ ≥ σ_thr), no joint moves the point (generic rank 0), then singular
    still = RegularizedBlock("position", slice(0, 3), np.eye(3), np.zeros((3, 2)), np.zeros((3, 2)))
    still.key = "still"
    regular, singular = planar_block(1.2), planar_block(0.0)
    regular.key, singular.key = "regular", "singular"
    reg.regularize(A, [regular, still, singular])
    assert reg.gammas["regular"] == 0.0 and reg.gammas["still"] == 0.0
    assert abs(reg.gammas["singular"]) == pytest.approx(0.5)
    # a held branch is per block: another singular block enters on its own side
    other = planar_block(-0.05)
    other.key = "other"
    reg.regularize(A, [singular, other])
    assert reg.gammas["other"] < 0 < reg.gammas["singular"]


def test_euler_wrist_regularized_rows_follow_the_design_note():
    """J_Ω + γ Mᵀ P⊥ [ω_1×r, ω_2×r, 0] (M = ω_rω_rᵀ − ω̂_r, P⊥ = I − ω_rω_rᵀ), for a target
    that needs all three joints."""
    conf = euler_wrist()
    task = taskik.OrientationTask("tool")
    task.set_target(pin.exp3(np.array([0.01, 0.02, -0.01])))
    gamma = 0.5
    v = solve_ik(conf, [task], DT, backend="regularized", gamma0=gamma, sigma_thr=0.1)
    problem = taskik.build_ik(conf, [task], DT, limits=[])
    Jw = conf.get_frame_jacobian(conf.get_frame_id("tool"))[3:]  # R = I at q = 0
    w_r, r = Jw[:, 2], np.array([0.0, -1.0, 0.0])  # r = normalize(ω_2 × ω_r) = x × z
    M = np.outer(w_r, w_r) - pin.skew(w_r)
    P_perp = np.eye(3) - np.outer(w_r, w_r)
    C = np.column_stack([np.cross(Jw[:, 0], r), np.cross(Jw[:, 1], r), np.zeros(3)])
    L = pin.Jlog3(task.target.T)
    A_reg = L @ (Jw + gamma * M.T @ P_perp @ C)
    expected = np.linalg.solve(A_reg, problem.c)
    assert np.abs(expected[1]) > 0.1  # the middle joint moves
    assert np.allclose(v, expected, rtol=1e-9, atol=1e-12)


def test_regularized_branch_is_held_from_one_step_to_the_next(planar_2r):
    task = taskik.PositionTask("ee")
    task.set_target(np.array([L1 + L2 - 0.01, 0.0, 0.0]))
    tasks = [task]
    opts = {"backend": "regularized", "gamma0": -0.5, "sigma_thr": 0.2}
    conf = planar_2r.configuration(np.array([0.0, 0.05]))
    solve_ik(conf, tasks, DT, **opts)  # enters the singular region on the θ2 > 0 side
    conf.update(np.zeros(2))
    held = solve_ik(conf, tasks, DT, **opts)  # exactly singular: the held branch (γ > 0)
    fresh = solve_ik(planar_2r.configuration(np.zeros(2)), [task], DT, **opts)  # sign of γ0
    positive = solve_ik(planar_2r.configuration(np.zeros(2)), [task], DT, **{**opts, "gamma0": 0.5})
    assert np.allclose(held, positive) and not np.allclose(held, fresh)
