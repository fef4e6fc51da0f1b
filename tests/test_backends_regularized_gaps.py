"""Regularized Jacobian: rules of the design note that the worked cases of
``test_backends_regularized.py`` do not reach — the branch memory on every way out of the
singular region, blocks of generic rank 1, the tie rule for long arms, the regularization
direction for any number and length of joint columns, and the argument checks."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import solve_ik
from taskik.backends.regularized import (
    RegularizedBlock,
    RegularizedJacobian,
    correction,
    generic_rank,
    regularization_direction,
)
from taskik.backends.unconstrained import regularization_blocks

DT = 0.01
L1, L2 = 1.0, 0.7
X, Y, Z = np.eye(3)


def planar_block(q2: float, key="ee", scale=1.0, prismatic=False) -> RegularizedBlock:
    """The point block of the planar 2R arm's end effector at ``(0, q2)``.

    ``scale`` multiplies the link lengths (the linear velocities); ``prismatic`` adds a
    first joint sliding along z, so the block has three columns and full rank 3 away from
    the stretched pose.
    """
    conf = taskik.robots.load("planar_2r").configuration(np.array([0.0, q2]))
    task = taskik.PositionTask("ee")
    task.set_target(np.zeros(3))
    (_, L, J, Jw) = regularization_blocks(task, conf)[0]
    J = scale * J
    if prismatic:
        J = np.column_stack([Z, J])
        Jw = np.column_stack([np.zeros(3), Jw])
    return RegularizedBlock("position", slice(0, 3), L, Jw, J, key=key)


def block(kind, angular, linear=None, key=None) -> RegularizedBlock:
    angular = np.asarray(angular, dtype=float)
    linear = None if linear is None else np.asarray(linear, dtype=float)
    return RegularizedBlock(kind, slice(0, 3), np.eye(3), angular, linear, key=key)


def about_x(angle: float) -> np.ndarray:
    """z rotated by ``angle`` about x."""
    return np.array([0.0, -np.sin(angle), np.cos(angle)])


# ------------------------------------------------------------------ branch memory
def test_a_held_branch_is_forgotten_when_a_full_rank_block_is_regular_again():
    """The sign is held "until γ returns to 0": also when γ returns to 0 because the block
    has full rank 3 and its smallest singular value is above σ_thr."""
    reg = RegularizedJacobian(gamma0=-0.5, sigma_thr=0.2)
    entering = planar_block(0.05, prismatic=True)
    assert np.linalg.svd(entering.linear, compute_uv=False)[2] < 0.2
    assert reg.block_gamma(entering)[0] > 0  # the better-conditioned branch
    regular = planar_block(1.2, prismatic=True)
    assert np.linalg.svd(regular.linear, compute_uv=False)[2] > 0.2
    gamma, dJ = reg.block_gamma(regular)
    assert gamma == 0.0 and dJ is None  # regular: no correction, γ = 0
    # back at the singularity, a tie: the sign of γ0, not the branch held before
    assert reg.block_gamma(planar_block(0.0, prismatic=True))[0] == pytest.approx(-0.5)


def test_a_held_branch_is_forgotten_when_the_block_leaves_the_singular_region():
    """Leaving the singular region (``σ ≥ σ_thr``, γ = 0) on the side of the branch held, then
    coming back exactly to the singularity: a tie, decided by the sign of γ0 again."""
    reg = RegularizedJacobian(gamma0=-0.5, sigma_thr=0.2)
    assert reg.block_gamma(planar_block(0.05))[0] > 0  # the branch of the elbow's side
    regular = planar_block(1.2)
    assert np.linalg.svd(regular.linear, compute_uv=False)[1] > 0.2
    assert reg.block_gamma(regular) == (0.0, None)
    assert reg.block_gamma(planar_block(0.0))[0] == pytest.approx(-0.5)


def test_a_held_branch_is_forgotten_when_nothing_moves_the_point():
    reg = RegularizedJacobian(gamma0=-0.5, sigma_thr=0.2)
    assert reg.block_gamma(planar_block(0.05))[0] > 0
    still = block("position", np.zeros((3, 2)), np.zeros((3, 2)), key="ee")
    assert reg.block_gamma(still) == (0.0, None)  # generic rank 0: nothing to regularize
    assert reg.block_gamma(planar_block(0.0))[0] == pytest.approx(-0.5)


def test_a_block_without_regularization_direction_gets_no_correction_and_no_branch():
    """An orientation block driven by one joint has no direction ``ω_{n−1} × ω_r``: inside
    the singular region its γ is 0 (no correction), which also ends a held branch."""
    reg = RegularizedJacobian(gamma0=-0.5, sigma_thr=2.0)
    one_axis = block("orientation", np.array([Z]).T, key="wrist")
    assert np.linalg.svd(one_axis.angular, compute_uv=False)[0] < 2.0  # singular region
    assert reg.block_gamma(one_axis) == (0.0, None)  # never seen before
    assert reg.block_gamma(planar_block(0.05))[0] > 0
    assert reg.block_gamma(block("orientation", np.array([Z]).T, key="ee")) == (0.0, None)
    assert reg.block_gamma(planar_block(0.0))[0] == pytest.approx(-0.5)
    reg.regularize(np.zeros((3, 1)), [one_axis])
    assert reg.gammas == {"wrist": 0.0}


def test_gammas_report_zero_for_a_regular_full_rank_block():
    reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.2)
    regular = planar_block(1.2, prismatic=True)
    A = np.ones((3, 3))
    assert reg.regularize(A, [regular]) is A  # no block regularized: A itself
    assert reg.gammas == {"ee": 0.0}


def test_gamma_schedule_holds_on_the_branch_chosen_on_entry_from_either_side():
    """``|γ| = |γ0| (1 − σ/σ_thr)²`` whichever sign the branch selection gives."""
    for q2 in (0.05, -0.05):
        reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.2)
        b = planar_block(q2)
        sigma = np.linalg.svd(b.linear, compute_uv=False)[1]
        gamma, _ = reg.block_gamma(b)
        assert np.sign(gamma) == np.sign(q2)  # the side the elbow is on
        assert abs(gamma) == pytest.approx(0.5 * (1 - sigma / 0.2) ** 2, rel=1e-12)


def test_a_block_of_generic_rank_one_is_regularized():
    """A point moved by one revolute joint only (generic rank 1) is singular when it comes
    near the joint's axis: ``σ`` is its distance to the axis, γ follows the schedule, and the
    correction is ``ω × r`` with ``r`` the point's unit velocity."""
    reg = RegularizedJacobian(gamma0=0.8, sigma_thr=0.2, branch="fixed")
    near_axis = block("position", np.array([Z]).T, 0.1 * np.array([Y]).T)  # 0.1 m from z
    gamma, dJ = reg.block_gamma(near_axis)
    assert gamma == pytest.approx(0.8 * (1 - 0.1 / 0.2) ** 2, rel=1e-12)
    assert np.allclose(dJ, np.array([np.cross(Z, Y)]).T, atol=1e-15)


@pytest.mark.parametrize("gamma0", [5.0, -5.0])
def test_tie_on_entry_takes_the_sign_of_gamma0_for_a_long_arm_too(gamma0):
    """Exactly at the singularity both signs condition the block alike (a tie): the branch is
    the sign of γ0, also when the regularized singular values exceed 1 (10 m links)."""
    reg = RegularizedJacobian(gamma0=gamma0, sigma_thr=0.2)
    long_arm = planar_block(0.0, scale=10.0)
    dJ = correction(long_arm, *regularization_direction(long_arm))
    s_plus = np.linalg.svd(long_arm.linear + 5.0 * dJ, compute_uv=False)[1]
    assert s_plus > 1.0  # a tie between singular values above 1
    assert reg.block_gamma(long_arm)[0] == pytest.approx(gamma0)


def test_each_regularized_block_of_a_task_holds_its_own_branch(planar_2r):
    """A frame task has a position and an orientation block; the orientation block of the
    planar arm is regular (γ = 0), which must not end the position block's held branch."""
    conf = planar_2r.configuration(np.array([0.0, 0.05]))
    frame = taskik.FrameTask("ee", position_cost=1.0, orientation_cost=1.0)
    T = conf.get_transform_frame_to_world("ee")
    frame.set_target(pin.SE3(T.rotation, np.array([L1 + L2 - 0.01, 0.0, 0.0])))
    assert [kind for kind, *_ in regularization_blocks(frame, conf)] == [
        "position",
        "orientation",
    ]
    tasks = [frame]
    opts = {"backend": "regularized", "gamma0": -0.5, "sigma_thr": 0.2}
    solve_ik(conf, tasks, DT, **opts)  # enters the singular region on the θ2 > 0 side
    conf.update(np.zeros(2))
    held = solve_ik(conf, tasks, DT, **opts)  # exactly singular: the held branch (γ > 0)
    at_zero = planar_2r.configuration(np.zeros(2))
    fresh = solve_ik(at_zero, [frame], DT, **opts)  # a tie on entry: the sign of γ0
    positive = solve_ik(at_zero, [frame], DT, **{**opts, "gamma0": 0.5})
    assert np.abs(held).max() > 0.1
    assert np.allclose(held, positive, rtol=1e-9) and not np.allclose(held, fresh)


# ------------------------------------------------------------ regularization direction
def test_position_direction_is_that_of_the_last_of_several_moving_joints():
    r, k = regularization_direction(
        block("position", np.zeros((3, 3)), np.array([X, 2.0 * Y, 3.0 * Z]).T)
    )
    assert np.allclose(r, Z) and k == -1


def test_orientation_direction_with_exactly_two_axes():
    r, k = regularization_direction(block("orientation", np.array([Y, Z]).T))
    assert np.allclose(r, np.cross(Y, Z)) and k == 1


def test_orientation_direction_is_a_unit_vector_for_oblique_axes():
    """``r = normalize(ω_{n−1} × ω_r)``: unit length also when the axes are not orthogonal."""
    u = about_x(np.pi / 3)
    r, k = regularization_direction(block("orientation", np.array([u, Z]).T))
    assert np.linalg.norm(r) == pytest.approx(1.0, rel=1e-12)
    assert np.allclose(r, np.cross(u, Z) / np.linalg.norm(np.cross(u, Z))) and k == 1


def test_orientation_direction_uses_the_nearest_non_parallel_axis_below_the_last():
    """With five axes ``[z, z, x, y, z]`` the last one not parallel to ω_r = z is the fourth
    (y): ``r = y × z``, not one further up the chain."""
    r, k = regularization_direction(block("orientation", np.array([Z, Z, X, Y, Z]).T))
    assert np.allclose(r, np.cross(Y, Z)) and k == 4


@pytest.mark.parametrize("lengths", [(1.0, 1.0, 1.0), (1.0, 1e-2, 1.0), (1.0, 1.0, 1e-2),
                                     (3.0, 100.0, 0.5)])  # fmt: skip
def test_parallel_axes_are_judged_on_directions_not_column_lengths(lengths):
    """Axes 1e-4 rad apart are distinct (``r = normalize(ω_2 × ω_3)``); axes 1e-8 rad apart
    are parallel (the axis before them is used) — whatever the lengths of their columns."""
    lengths = np.asarray(lengths)
    distinct = block("orientation", np.array([Y, about_x(1e-4), Z]).T * lengths)
    r, k = regularization_direction(distinct)
    assert np.allclose(r, -X) and k == 2  # about_x(a) × z = (−sin a, 0, 0)
    parallel = block("orientation", np.array([Y, about_x(1e-8), Z]).T * lengths)
    r, k = regularization_direction(parallel)
    assert np.allclose(r, np.cross(Y, Z)) and k == 2


def test_orientation_correction_follows_the_design_note_for_columns_of_any_length():
    """``ΔJ = Mᵀ P⊥ [ω_1×r, …, ω_{n−1}×r, 0]`` with the *unit* last axis ``ω_r``
    (``M = ω_rω_rᵀ − ω̂_r``, ``P⊥ = I − ω_rω_rᵀ``). Scaling the joint velocities
    (``J → J D``) scales the columns of ``ΔJ`` alike and leaves ``r`` as it was."""
    axes = np.array([Y, about_x(0.4), Z]).T
    D = np.diag([0.5, 3.0, 2.0])
    unit, scaled = block("orientation", axes), block("orientation", axes @ D)
    r, k = regularization_direction(unit)
    r_s, k_s = regularization_direction(scaled)
    assert np.allclose(r_s, r, atol=1e-15) and k_s == k == 2
    w_r = Z
    M = np.outer(w_r, w_r) - pin.skew(w_r)
    P_perp = np.eye(3) - np.outer(w_r, w_r)
    C = np.column_stack([np.cross(axes[:, 0], r), np.cross(axes[:, 1], r), np.zeros(3)])
    expected = M.T @ P_perp @ C
    assert np.allclose(correction(unit, r, k), expected, atol=1e-15)
    assert np.allclose(correction(scaled, r_s, k_s), expected @ D, atol=1e-14)


# ------------------------------------------------------------------------ arguments
@pytest.mark.parametrize(
    "kwargs",
    [
        {"gamma0": 0.0},
        {"gamma0": np.inf},
        {"gamma0": np.nan},
        {"sigma_thr": 0.0},
        {"sigma_thr": -0.05},
        {"sigma_thr": np.inf},
        {"sigma_thr": np.nan},
    ],
)
def test_regularized_jacobian_rejects_bad_arguments(kwargs):
    (name,) = kwargs
    with pytest.raises(taskik.InvalidInput, match=name):
        RegularizedJacobian(**kwargs)


def test_regularized_jacobian_defaults_are_those_of_the_backend(planar_2r):
    """``RegularizedJacobian()`` used directly gives the step of ``backend="regularized"``
    with its default options, also where the defaults matter (``0 < σ < σ_thr`` far from
    a larger threshold)."""
    conf = planar_2r.configuration(np.array([0.0, 0.1]))
    task = taskik.PositionTask("ee")
    task.set_target(np.array([L1 + L2 - 0.01, 0.05, 0.0]))
    (kind, L, J, Jw) = regularization_blocks(task, conf)[0]
    assert 0.0 < np.linalg.svd(J, compute_uv=False)[1] < 0.05
    problem = taskik.build_ik(conf, [task], DT, limits=[])
    b = RegularizedBlock(kind, slice(0, 3), L, Jw, J, key=(0, 0))
    direct = RegularizedJacobian().solve(problem.A, problem.c, [b])
    v = solve_ik(conf, [task], DT, backend="regularized")
    assert np.allclose(direct, v, rtol=1e-12)
    larger = RegularizedJacobian(sigma_thr=0.5).solve(problem.A, problem.c, [b])
    assert not np.allclose(larger, v)


# ------------------------------------------------------------- inputs and reports
def test_regularize_leaves_the_stacked_matrix_it_is_given_as_it_was():
    reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.2)
    A = np.arange(6.0).reshape(3, 2)
    before = A.copy()
    singular = planar_block(0.0)
    A_reg = reg.regularize(A, [singular])
    assert not np.allclose(A_reg, before)  # a singular block: rows changed in a copy
    np.testing.assert_array_equal(A, before)
    reg.solve(A, np.ones(3), [singular])
    np.testing.assert_array_equal(A, before)


def test_gammas_are_emptied_by_a_solve_without_blocks():
    """``gammas`` is γ of each block at the *last* solve: none when it had no block."""
    reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.2)
    reg.regularize(np.zeros((3, 2)), [planar_block(0.0)])
    assert reg.gammas == {"ee": pytest.approx(0.5)}
    A = np.ones((3, 2))
    assert reg.regularize(A, []) is A
    assert reg.gammas == {}


# ------------------------------------------------------------------- generic rank
def test_generic_rank_counts_axes_parallel_within_the_tolerance_as_one():
    """Axes 1e-8 rad apart are parallel (generic rank 1, as for the regularization
    direction); 1e-4 rad apart they are not."""
    assert generic_rank(block("orientation", np.array([Z, about_x(1e-8)]).T)) == 1
    assert generic_rank(block("orientation", np.array([Z, about_x(1e-4)]).T)) == 2


@pytest.mark.parametrize("kind", ["position", "orientation"])
def test_a_block_without_joint_columns_has_rank_zero_and_no_direction(kind):
    empty = block(kind, np.zeros((3, 0)), np.zeros((3, 0)))
    assert generic_rank(empty) == 0
    assert regularization_direction(empty) is None


@pytest.mark.parametrize("unit", [1.0, 1e3])
def test_which_joints_move_the_point_does_not_depend_on_the_length_unit(unit):
    """A joint whose linear column is below 1e-9 of the longest one does not move the point,
    also when lengths are given in millimetres (every linear column × 1000)."""
    crawl = 5e-10  # relative length of the last joint's column
    # a revolute joint about z moving the point along y, then a near-still prismatic joint
    b = block("position", np.array([Z, np.zeros(3)]).T, unit * np.array([Y, crawl * Z]).T)
    assert generic_rank(b) == 1
    r, k = regularization_direction(b)
    assert np.allclose(r, Y) and k == -1
