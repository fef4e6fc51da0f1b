"""Backends: the tolerances of the regularized Jacobian's joint geometry at their exact
threshold, the work the regularized and DAQP paths save (no SVD or generic rank for a
regular block, a warm DAQP model reused, the free minimiser on the box accepted without
DAQP), a row of the QP at exactly the tolerance of being impossible, and the plan the
unconstrained backends share."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from test_backends_regularized_gaps import planar_block

import taskik
from taskik import Limit, NoSolutionFound
from taskik.backends import regularized, unconstrained
from taskik.backends.qp import DaqpWorkspace, solve_qp_arrays
from taskik.backends.regularized import (
    RegularizedBlock,
    RegularizedJacobian,
    correction,
    generic_rank,
    regularization_direction,
)

DT = 0.01


def block(kind: str, angular, linear=None) -> RegularizedBlock:
    """A 3-row block with the given world Jacobians (columns: joints)."""
    return RegularizedBlock(
        kind,
        slice(0, 3),
        np.eye(3),
        np.asarray(angular, dtype=float),
        None if linear is None else np.asarray(linear, dtype=float),
    )


def column(*x: float) -> np.ndarray:
    return np.array(x, dtype=float).reshape(3, 1)


NONE = np.zeros((3, 1))


# ------------------------------------------------------------ joint columns that count
@pytest.mark.parametrize(("length", "rank"), [(1e-9, 0), (1.5e-9, 1), (2.5e-9, 1)])
def test_a_joint_turns_when_its_angular_column_exceeds_1e_9(length, rank):
    """A column counts as a revolute joint when it is longer than 1e-9 (relative to the
    longest column, absolute below 1): exactly 1e-9 does not, 1.5e-9 does."""
    assert generic_rank(block("orientation", column(length, 0.0, 0.0))) == rank


@pytest.mark.parametrize(("length", "rank"), [(1e-9, 0), (1.5e-9, 1), (2.5e-9, 1)])
def test_a_joint_slides_when_its_linear_column_exceeds_1e_9(length, rank):
    """A joint with no angular column moves the point (prismatic) when its linear column
    is longer than 1e-9: exactly 1e-9 does not count, 1.5e-9 does."""
    assert generic_rank(block("position", NONE, column(length, 0.0, 0.0))) == rank


def two_directions(b: float) -> np.ndarray:
    """Unit columns ``(a, ±b, 0)``, whose Gram matrix is ``diag(2a², 2b², 0)``."""
    a = math.sqrt(1.0 - b * b)
    return np.array([[a, a], [b, -b], [0.0, 0.0]])


def test_prismatic_directions_count_above_an_eigenvalue_of_1e_6():
    """Two sliding joints 1.4e-3 rad apart (the Gram eigenvalue of their difference exactly
    1e-6, the tolerance) span one direction; 1.7e-3 rad apart (1.5e-6) they span two."""
    b = 0.0007071067811865475  # 2 b² == 1e-6 and a² + b² == 1 in floating point
    P = two_directions(b)
    if not (2 * b * b == 1e-6 and 1e-6 in np.linalg.eigvalsh(P @ P.T)):
        pytest.skip("this platform's arithmetic does not reach the exact tie")
    assert generic_rank(block("position", np.zeros((3, 2)), P)) == 1
    wider = two_directions(math.sqrt(7.5e-7))
    assert generic_rank(block("position", np.zeros((3, 2)), wider)) == 2


def test_the_eigenvalue_tolerance_grows_with_the_number_of_turning_joints():
    """Three revolute axes, two of them 1.4e-3 rad apart around the third: the Gram
    eigenvalue 1e-6 is under the tolerance 1e-6 · 3, so the axes span two directions."""
    b = math.sqrt(5e-7)
    a = math.sqrt(1.0 - b * b)
    axes = np.array([[a, a, 1.0], [b, -b, 0.0], [0.0, 0.0, 0.0]])
    assert generic_rank(block("position", axes, np.ones((3, 3)))) == 2


# ------------------------------------------------------------ the regularization direction
def test_a_point_moved_by_no_joint_longer_than_1e_9_has_no_direction():
    assert regularization_direction(block("position", NONE, column(1e-9, 0.0, 0.0))) is None
    r, k = regularization_direction(block("position", NONE, column(1.5e-9, 0.0, 0.0)))
    assert np.allclose(r, [1.0, 0.0, 0.0]) and k == -1


def test_an_orientation_needs_two_joints_longer_than_1e_9():
    """A second angular column of exactly 1e-9 is no joint: one joint, no direction."""
    assert (
        regularization_direction(
            block("orientation", np.hstack([column(0, 0, 1), column(1e-9, 0, 0)]))
        )
        is None
    )
    r, k = regularization_direction(
        block("orientation", np.hstack([column(0, 0, 1), column(2e-9, 0, 0)]))
    )
    assert k == 1 and np.allclose(np.abs(r), [0.0, 1.0, 0.0])


def test_axes_exactly_1e_6_from_parallel_give_no_direction():
    """``ω_j × ω_r`` must be longer than 1e-6: at exactly 1e-6 the axes are parallel."""
    x = 1e-6
    z = 0.9999999999995001  # x² + z² == 1 in floating point: the column is unit as given
    assert math.sqrt(x * x + z * z) == 1.0
    tilted = np.hstack([column(x, 0.0, z), column(0.0, 0.0, 1.0)])
    assert np.linalg.norm(np.cross(tilted[:, 0], tilted[:, 1])) == 1e-6
    assert regularization_direction(block("orientation", tilted)) is None
    wider = np.hstack([column(2e-6, 0.0, math.sqrt(1 - 4e-12)), column(0.0, 0.0, 1.0)])
    r, k = regularization_direction(block("orientation", wider))
    assert k == 1 and np.allclose(np.abs(r), [0.0, 1.0, 0.0])


# ------------------------------------------------------------ the work of a regular block
def regular_blocks():
    """A full-rank, regular position block (singular values 1, 1, 1) and its system."""
    b = RegularizedBlock("position", slice(0, 3), np.eye(3), np.eye(3), np.eye(3), key="p")
    return np.eye(3), b


def test_a_regular_full_rank_block_skips_the_generic_rank(monkeypatch):
    """A block with three singular values above σ_thr is regular: γ = 0 without looking at
    its joint geometry."""
    calls = []
    monkeypatch.setattr(regularized, "generic_rank", lambda b: calls.append(b) or 3)
    _, b = regular_blocks()
    gamma, dJ = RegularizedJacobian().block_gamma(b, np.ones(3))
    assert (gamma, dJ) == (0.0, None)
    assert calls == []


def test_regularize_takes_the_singular_values_of_all_blocks_at_once(monkeypatch):
    """The singular values of every block come from one batched eigen-decomposition: no
    SVD per block (the regular block here needs none)."""
    A, b = regular_blocks()
    calls = []
    real = np.linalg.svd

    def counting(*args, **kwargs):
        calls.append(args[0].shape)
        return real(*args, **kwargs)

    monkeypatch.setattr(np.linalg, "svd", counting)
    reg = RegularizedJacobian()
    assert reg.regularize(A, [b]) is A
    assert reg.gammas == {"p": 0.0}
    assert calls == []


# ------------------------------------------------------------ the DAQP workspace
def test_a_bound_of_zero_width_is_solved_by_the_warm_workspace():
    """``lower == upper`` fixes an entry (a frozen joint): the workspace solves it, and keeps
    its DAQP model for the next solve."""
    P, r = np.diag([2.0, 1.0, 1.0]), np.array([-1.0, 0.5, 0.0])
    lower, upper = np.array([0.25, -1.0, -1.0]), np.array([0.25, 1.0, 1.0])
    ws = DaqpWorkspace()
    x = ws.solve(P, r, lower, upper)
    assert x is not None
    np.testing.assert_allclose(x, [0.25, -0.5, 0.0], atol=1e-9)
    assert ws.model is not None


def test_a_warm_workspace_reuses_its_daqp_model():
    """A second QP of the same size updates the DAQP model set up by the first (warm start)
    instead of setting up a new one."""
    P, r = np.diag([1.0, 2.0]), np.array([1.0, -1.0])
    lower, upper = np.full(2, -0.2), np.full(2, 0.2)
    ws = DaqpWorkspace()
    first = ws.solve(P, r, lower, upper)
    model = ws.model
    second = ws.solve(P, -r, lower, upper)
    assert model is not None and ws.model is model
    np.testing.assert_allclose(first, [-0.2, 0.2], atol=1e-9)
    np.testing.assert_allclose(second, [0.2, -0.2], atol=1e-9)


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_a_free_minimiser_on_the_box_is_taken_without_daqp(side):
    """``x = −P⁻¹r`` lying exactly on a bound is in the box: solve_box returns it without
    setting DAQP up (no bound is active)."""
    P, r = np.eye(3), np.array([-0.5, 0.25, 0.0])  # x = (0.5, −0.25, 0) exactly
    lower, upper = np.full(3, -1.0), np.full(3, 1.0)
    if side == "lower":
        lower[1] = -0.25
    else:
        upper[0] = 0.5
    ws = DaqpWorkspace()
    x = ws.solve_box(P, r, lower, upper)
    assert np.array_equal(x, [0.5, -0.25, 0.0])
    assert ws.model is None and ws.bound is False


# ------------------------------------------------------------ naming impossible rows
class Rows(Limit):
    """Inequality rows ``G v ≤ h`` with a name per row."""

    def __init__(self, name, G, h, names):
        self.name = name
        self.G, self.h, self.names = np.asarray(G, float), np.asarray(h, float), names

    def compute_inequalities(self, configuration, dt):
        return self.G, self.h

    def row_names(self):
        return list(self.names)


def test_a_row_missed_by_exactly_the_tolerance_is_not_impossible_alone():
    """v0 ≤ 0 with v0 ≥ 1e-9 misses by exactly the tolerance 1e-9: it is not named as a
    row no velocity in the box meets; the two rows on v1 conflict with each other."""
    P, r = np.eye(2), np.zeros(2)
    G = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    h = np.array([0.0, 0.1, -0.2])  # v0 ≤ 0, v1 ≤ 0.1, v1 ≥ 0.2
    limits = [Rows("rows", G, h, ["v0 at the tolerance", "v1 low", "v1 high"])]
    lb, ub = np.array([1e-9, -0.5]), np.array([1.0, 2.0])
    with pytest.raises(NoSolutionFound) as info:
        solve_qp_arrays(P, r, G, h, lb, ub, "quadprog", (), limits)
    message = str(info.value)
    assert "the inequality rows of v0 at the tolerance, v1 low, v1 high conflict" in message
    assert "cannot hold" not in message


# ------------------------------------------------------------ the unconstrained plan
def test_the_unconstrained_backends_share_the_plan_of_a_step_without_limits(ur5):
    """The pseudoinverse and DLS backends read no limit of the assembler: their plan is
    the one of the same tasks with no limits (``limits=[]``), built once."""
    conf = ur5.configuration()
    task = taskik.PostureTask(1.0)
    task.set_target(ur5.q0 + 0.1)
    tasks = [task]
    taskik.solve_ik(conf, tasks, DT, [])
    assert len(conf.plans) == 1
    for backend in ("dls", "pinv"):
        taskik.solve_ik(conf, tasks, DT, [], backend=backend)
    assert len(conf.plans) == 1


# ------------------------------------------------------------ the tie on entry
def branch_sigmas(q2: float, reg: RegularizedJacobian) -> tuple[float, float]:
    """σ (index rank − 1) of ``J ± |γ| ΔJ`` for the planar arm's end point at ``(0, q2)``."""
    b = planar_block(q2)
    rank = generic_rank(b)
    sigma = np.linalg.svd(b.linear, compute_uv=False)[rank - 1]
    magnitude = abs(reg.gamma0) * (1.0 - sigma / reg.sigma_thr) ** 2
    dJ = correction(b, *regularization_direction(b))
    s = [np.linalg.svd(b.linear + k * magnitude * dJ, compute_uv=False)[rank - 1] for k in (1, -1)]
    return float(s[0]), float(s[1])


@pytest.mark.parametrize(("q2", "sign"), [(1.25e-9, -1.0), (2.2e-9, 1.0)])
def test_two_branches_within_1e_9_times_1_plus_sigma_are_a_tie(q2, sign):
    """Entering the singular region, the branches' σ must differ by more than
    ``1e-9 (1 + σ)`` (here 1.256e-9) for the better one to be chosen: 1.0e-9 apart is a
    tie (the sign of γ0, negative here), 1.75e-9 apart the better branch (+)."""
    reg = RegularizedJacobian(gamma0=-0.5)
    s_plus, s_minus = branch_sigmas(q2, reg)
    gap, tolerance = s_plus - s_minus, 1e-9 * (1.0 + max(s_plus, s_minus))
    assert 0.0 < gap < tolerance if sign < 0 else tolerance < gap < 1.5 * tolerance
    gamma, _ = reg.block_gamma(planar_block(q2))
    assert np.sign(gamma) == sign


# ------------------------------------------------------------ joints held at their limits
def planar_chain(lengths, lower, upper) -> pin.Model:
    """A planar chain of revolute z joints with these link lengths and position ranges,
    and a frame ``tip`` at the end of the last link."""
    model = pin.Model()
    parent = 0
    for k in range(len(lengths)):
        offset = np.array([0.0 if k == 0 else lengths[k - 1], 0.0, 0.0])
        parent = model.addJoint(
            parent,
            pin.JointModelRZ(),
            pin.SE3(np.eye(3), offset),
            f"j{k}",
            np.array([1e3]),
            np.array([10.0]),
            np.array([lower[k]]),
            np.array([upper[k]]),
        )
        model.appendBodyToJoint(parent, pin.Inertia.FromSphere(1.0, 0.05), pin.SE3.Identity())
    tip = pin.SE3(np.eye(3), np.array([lengths[-1], 0.0, 0.0]))
    model.addFrame(pin.Frame("tip", parent, 0, tip, pin.FrameType.OP_FRAME))
    return model


def test_joints_driven_into_their_limits_are_re_solved_without_at_most_three_times(
    monkeypatch,
):
    """Six joints at a limit, each re-solve driving one more into its limit: the step is
    solved again without the held joints three times (the held set growing), not more, and
    stays within the position limits."""
    lower = [-0.52, -1.25, -1.45, -1.16, -1.53, -1.27]
    upper = [1.2, 0.79, 0.68, 1.95, 1.13, 1.94]
    model = planar_chain([0.63, 0.17, 0.56, 0.63, 0.41, 0.78], lower, upper)
    q = np.array(lower[:4] + upper[4:])
    conf = taskik.Configuration(model, q)
    task = taskik.PositionTask("tip")
    task.set_target(np.array([0.7, -1.35, 0.0]))
    kept = []
    real = unconstrained._dispatch

    def recording(*args):
        kept.append(args[-1])
        return real(*args)

    monkeypatch.setattr(unconstrained, "_dispatch", recording)
    v = taskik.solve_ik(conf, [task], DT, [taskik.ConfigurationLimit(model)], backend="dls")
    assert kept[0] is None and len(kept) == 4
    free = [int(k.sum()) for k in kept[1:]]
    assert free == sorted(free, reverse=True) and len(set(free)) == 3
    after = q + v * DT
    assert np.all(after >= np.array(lower) - 1e-12) and np.all(after <= np.array(upper) + 1e-12)


def point_beside_an_axis(x: float) -> RegularizedBlock:
    """A hand-made block: a z joint whose linear column is ``(x, 0, 0)`` and a prismatic
    joint along y of speed 10 (singular values ``|x|`` and 10, generic rank 2); its
    correction is ``−1`` on the first entry per unit γ."""
    linear = np.array([[x, 0.0], [0.0, 10.0], [0.0, 0.0]])
    angular = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    return RegularizedBlock("position", slice(0, 3), np.eye(3), angular, linear, key="p")


def test_a_held_branch_switches_only_below_half_the_other_branch():
    """With ``|γ| = 0.125`` (σ_thr = 0.75, γ0 = 0.5, σ = 0.375): on the − side of the axis
    the + branch is better (0.5 against 0.25) and is taken; across the axis it gives exactly
    half the other branch's σ (0.25 against 0.5) and is still held; further across, less
    than half (0.12 against 0.48), the sign follows the arm."""
    reg = RegularizedJacobian(gamma0=0.5, sigma_thr=0.75)
    gamma, dJ = reg.block_gamma(point_beside_an_axis(-0.375))
    assert gamma == 0.125
    crossed = point_beside_an_axis(0.375)
    s_plus, s_minus = (
        np.linalg.svd(crossed.linear + k * 0.125 * dJ, compute_uv=False)[1] for k in (1, -1)
    )
    assert (s_plus, s_minus) == (0.25, 0.5)
    assert reg.block_gamma(crossed)[0] == 0.125
    assert reg.block_gamma(point_beside_an_axis(0.3))[0] == pytest.approx(-0.18)


def test_branches_exactly_1e_9_times_1_plus_sigma_apart_are_a_tie():
    """The better branch must be better by more than ``1e-9 (1 + σ)``: the point of
    :func:`point_beside_an_axis` 3.7e-9 from the axis, whose two branches differ by exactly
    that much, enters on the sign of γ0 (+), not on the better branch (−)."""
    reg = RegularizedJacobian(gamma0=2.0**-10, sigma_thr=2.0**-20)
    near = point_beside_an_axis(2.0**-28 + 2.0**-38)
    near.angular[2, 0] = 5.160275147604508e-07  # |γ| ΔJ = 2.4e-10 on the first entry
    rank = generic_rank(near)
    sigma = np.linalg.svd(near.linear, compute_uv=False)[rank - 1]
    magnitude = reg.gamma0 * (1.0 - sigma / reg.sigma_thr) ** 2
    dJ = correction(near, *regularization_direction(near))
    s_plus, s_minus = (
        np.linalg.svd(near.linear + k * magnitude * dJ, compute_uv=False)[rank - 1] for k in (1, -1)
    )
    if abs(s_plus - s_minus) != 1e-9 * (1.0 + max(s_plus, s_minus)):
        pytest.skip("this platform's arithmetic does not reach the exact tie")
    assert s_minus > s_plus
    gamma, _ = reg.block_gamma(near)
    assert gamma == magnitude > 0.0
