"""Strict task priorities (taskik.hierarchy, taskik.nullspace): behaviours the other tests
left open (the solver paths of a lower level's QP, options and failures there, rows of G
kept by a level, the default scale of null_basis)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taskik
from taskik import InvalidInput, NoSolutionFound, PositionTask, PostureTask, VelocityLimit
from taskik.hierarchy import LevelSplit, null_basis, solve_hierarchy

DT = 0.05


def ur5_levels(conf, ur5, reach=(0.002, 0.0, 0.001), posture_offset=-0.5):
    """A small tool step (met without touching a limit) over a posture that is far away."""
    tool = PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + np.asarray(reach))
    posture = PostureTask(1.0)
    posture.set_target(ur5.q0 + posture_offset)
    return [[tool], [posture]]


def slow_ur5(ur5, cap=0.4):
    return [VelocityLimit(ur5.model, {n: cap for n in ur5.model.names[1:]})]


class Rows(taskik.Limit):
    """Inequality rows ``G v ≤ h`` given as arrays (not a box)."""

    def __init__(self, G, h, name="rows"):
        self.G, self.h = np.asarray(G, dtype=float), np.asarray(h, dtype=float)
        self.name = name

    def compute_inequalities(self, configuration, dt):
        return self.G.copy(), self.h.copy()


# ------------------------------------------------------------------ null_basis's scale
def test_null_basis_without_a_scale_counts_the_rank_of_a_tiny_matrix(rng):
    """Without ``scale`` the rank is relative to the matrix alone: a full-rank matrix of
    entries around 1e-13 keeps its full rank (no absolute floor)."""
    B = 1e-13 * rng.normal(size=(3, 5))
    Z, rank = null_basis(B)
    assert rank == 3
    assert Z.shape == (5, 2)
    assert np.allclose(B @ Z, 0.0, atol=1e-25)
    assert LevelSplit(B).rank == 3  # the same default for the factorisation itself
    # on the scale of a level whose own rows are of unit size, it is rounding noise
    Z, rank = null_basis(B, 1.0)
    assert rank == 0 and Z.shape == (5, 5)


def test_a_zero_matrix_has_rank_zero_and_leaves_every_direction_free():
    """All of R-diagonal is 0 (and so is the tolerance): nothing counts as rank."""
    Z, rank = null_basis(np.zeros((2, 3)))
    assert rank == 0
    np.testing.assert_allclose(Z.T @ Z, np.eye(3), atol=1e-15)
    assert LevelSplit(np.zeros((2, 3))).rank == 0


# -------------------------------------------------- a lower level's QP with solver options
def test_cold_daqp_meets_the_lower_bounds_of_a_lower_level(ur5):
    """With solver options (each level's QP a cold DAQP call), a lower level that runs into
    lower bounds, from a higher solution that touches none, gets the same step as the warm
    workspaces: every bound holds and the bound joints sit on -cap."""
    conf = ur5.configuration()
    limits = slow_ur5(ur5)
    warm = taskik.solve_ik(conf, ur5_levels(conf, ur5), DT, limits=limits)
    assert np.count_nonzero(warm <= -0.4 + 1e-12) >= 2  # the posture level is capped
    top = taskik.solve_ik(conf, ur5_levels(conf, ur5)[:1], DT, limits=limits)
    assert np.abs(top).max() < 0.3  # nothing is at a bound before the lower level
    cold = taskik.solve_ik(
        conf, ur5_levels(conf, ur5), DT, limits=limits, solver="daqp", primal_tol=1e-6
    )
    assert np.abs(cold - warm).max() < 1e-9


def test_an_option_daqp_does_not_know_is_refused_at_a_lower_level(ur5):
    """The top level needs no QP (its optimum is within the limits); the posture level's QP
    gets the option and refuses it as InvalidInput naming it, not as a TypeError."""
    conf = ur5.configuration()
    with pytest.raises(InvalidInput, match="bogus"):
        taskik.solve_ik(
            conf, ur5_levels(conf, ur5), DT, limits=slow_ur5(ur5), solver="daqp", bogus=1
        )


def test_options_reach_every_level_of_another_solver(ur5):
    """Tight tolerances passed to OSQP reach the top level's QP and the lower level's (the
    cascade solves both): the step is the exact one (quadprog's) to 1e-9, where OSQP's
    default tolerances give it to about 1e-5 only."""
    conf = ur5.configuration()
    limits = slow_ur5(ur5)
    levels = ur5_levels(conf, ur5, reach=(0.0, 0.03, 0.0))
    exact = taskik.solve_ik(conf, levels, DT, limits=limits, method="cascade", solver="quadprog")
    assert np.count_nonzero(np.abs(exact) >= 0.4 - 1e-12) >= 2  # bounds bind at the top
    kwargs = dict(limits=limits, method="cascade", solver="osqp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # qpsolvers warns that OSQP converts dense matrices
        v = taskik.solve_ik(conf, levels, DT, eps_abs=1e-10, eps_rel=0.0, **kwargs)
        loose = taskik.solve_ik(conf, levels, DT, **kwargs)
    assert np.abs(v - exact).max() < 1e-9
    assert np.abs(loose - exact).max() > 1e-7  # the options are what makes it exact


def test_cascade_without_limits_with_a_solver_of_qpsolvers(ur5):
    """``method="cascade"`` with no limit at all hands each level an unconstrained QP: with
    quadprog (through qpsolvers) the step is the null-space step."""
    conf = ur5.configuration()
    levels = ur5_levels(conf, ur5)
    v_ns = taskik.solve_ik(conf, levels, DT, limits=[], method="nullspace")
    v = taskik.solve_ik(conf, levels, DT, limits=[], method="cascade", solver="quadprog")
    assert np.abs(v - v_ns).max() < 1e-9


def elbow_at_its_upper_limit(ur5):
    """The UR5 with its elbow on its upper position limit, a top level that says nothing
    about the elbow (its step leaves it at 0, on the bound) and a tool level below that
    needs the elbow at its velocity cap: the lower level's QP starts on an active bound."""
    model = ur5.model.copy()
    q = ur5.q0.copy()
    model.upperPositionLimit[2] = q[2]
    conf = taskik.Configuration(model, q)
    top = PostureTask([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])
    top.set_target(q + np.array([0.01, -0.01, 0.0, 0.01, 0.0, -0.01]))
    tool = PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.0, 0.05])
    limits = [taskik.ConfigurationLimit(model), slow_ur5(ur5)[0]]
    return conf, [[top], [tool]], limits


def test_too_few_iterations_at_a_lower_level_is_a_no_solution_naming_the_level(ur5):
    """DAQP stopped after one iteration on the lower level's QP (the top level needs none):
    the failure, retried without the warm start, is a NoSolutionFound that names the level,
    whatever the retry does; with enough iterations the step is the default one."""
    conf, levels, limits = elbow_at_its_upper_limit(ur5)
    v = taskik.solve_ik(conf, levels, DT, limits=limits)
    top = taskik.solve_ik(conf, levels[:1], DT, limits=limits)
    assert top[2] == 0.0 and v[2] == pytest.approx(-0.4)  # the elbow is the tool's
    with pytest.raises(NoSolutionFound, match="level 1"):
        taskik.solve_ik(conf, levels, DT, limits=limits, solver="daqp", iter_limit=1)
    enough = taskik.solve_ik(conf, levels, DT, limits=limits, solver="daqp", iter_limit=100)
    assert np.abs(enough - v).max() < 1e-9


def test_rows_a_higher_level_holds_stay_held_while_a_lower_level_meets_other_rows(ur5):
    """Inequality rows and no box: the top level (joints 0 and 1) is capped by the row
    v0 + v1 ≤ 0.1, which the lower level keeps; the lower level (every joint) is capped by
    v2 + v3 ≤ 0.1. The step is the exact cascade's (quadprog at every level)."""
    conf = ur5.configuration()
    G = np.zeros((2, 6))
    G[0, [0, 1]] = G[1, [2, 3]] = 1.0
    rows = Rows(G, [0.1, 0.1])
    top = PostureTask([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    top.set_target(ur5.q0 + 0.01)  # asks 0.2 rad/s of joints 0 and 1
    low = PostureTask(1.0)
    low.set_target(ur5.q0 + 0.02)  # asks 0.4 rad/s of every joint
    levels = [[top], [low]]
    v = taskik.solve_ik(conf, levels, DT, limits=[rows])
    np.testing.assert_allclose(G @ v, [0.1, 0.1], atol=1e-12)
    np.testing.assert_allclose(v, [0.05, 0.05, 0.05, 0.05, 0.4, 0.4], atol=1e-9)
    exact = taskik.solve_ik(conf, levels, DT, limits=[rows], method="cascade", solver="quadprog")
    assert np.abs(v - exact).max() < 1e-9


def test_rows_that_cannot_hold_at_the_top_level_are_named_in_the_error(ur5):
    """v0 ≤ -0.1 and v0 ≥ 0.1 together: the top level's QP fails and the error names the
    limit whose rows conflict."""
    conf = ur5.configuration()
    G = np.zeros((2, 6))
    G[0, 0], G[1, 0] = 1.0, -1.0
    wall = Rows(G, [-0.1, -0.1], name="wall")
    with pytest.raises(NoSolutionFound, match=r"limits \['wall'\]"):
        taskik.solve_ik(conf, ur5_levels(conf, ur5), DT, limits=[wall], strict=True)


# ------------------------------------------ LevelSplit when Cholesky cannot factor the system
def nearly_dependent(shape):
    """Exactly rank-2 matrices whose second singular value is ~1e-9 of the first: the
    normal matrix of the independent rows (or columns) rounds to a singular one."""
    tiny = 1e-9
    if shape == "rows":  # 2 × 5, independent rows
        return np.array([[1.0, 0, 0, 0, 0], [1.0, tiny, 0, 0, 0]])
    if shape == "columns":  # 5 × 2, independent columns
        return np.array([[1.0, 1.0], [0, tiny], [0, 0], [0, 0], [0, 0]])
    # 3 × 4 of rank 2: neither rows nor columns independent (the third row is the sum)
    return np.array([[1.0, 0, 0, 0], [1.0, tiny, 0, 0], [2.0, tiny, 0, 0]])


@pytest.mark.parametrize("shape", ["rows", "columns", "general"])
def test_level_split_without_damping_of_nearly_dependent_rows_is_least_squares(shape):
    """λ = 0 on a matrix that counts as rank 2 but whose normal matrix rounds to singular:
    the step is still the least-squares, least-norm one (pinv B · d), to the accuracy the
    conditioning (1e9) allows."""
    B = nearly_dependent(shape)
    d = np.linspace(0.5, -0.3, B.shape[0])
    split = LevelSplit(B)
    assert split.rank == 2
    z = split.solve(d, 0.0, None)
    expected = np.linalg.pinv(B, rcond=1e-12) @ d
    assert z.shape == expected.shape
    assert np.abs(z - expected).max() <= 1e-5 * np.abs(expected).max()


# ------------------------------------------------------- solve_hierarchy called directly
def test_solve_hierarchy_called_directly_has_solve_ik_defaults_and_checks(ur5):
    """taskik.hierarchy.solve_hierarchy is public: its defaults give solve_ik's step, and it
    refuses a step duration of 0 (naming dt) and a negative damping itself."""
    conf = ur5.configuration()
    levels = ur5_levels(conf, ur5)
    v = solve_hierarchy(conf, levels, DT, limits=[])
    assert np.array_equal(v, taskik.solve_ik(conf, levels, DT, limits=[]))
    with pytest.raises(InvalidInput, match=r"^dt\b"):
        solve_hierarchy(conf, levels, 0.0, limits=[])
    with pytest.raises(InvalidInput, match="damping"):
        solve_hierarchy(conf, levels, DT, limits=[], damping=-1.0)


# --------------------------------------------- a level with no direction of its own
@pytest.mark.parametrize("limits", ["none", "default", "slow"])
def test_a_level_repeating_a_higher_one_takes_no_freedom_from_the_levels_below(ur5, limits):
    """The same tool point asked again at level 1: what is left of its rows in the freedom of
    level 0 is rounding noise, which must not count as rank (on the level's own scale). The
    posture level below gets exactly the freedom it had without the repeated level."""
    conf = ur5.configuration()
    (tool,), (posture,) = ur5_levels(conf, ur5)
    again = PositionTask("tool0")
    again.set_target(tool.target)
    lim = {"none": [], "default": None, "slow": slow_ur5(ur5)}[limits]
    v = taskik.solve_ik(conf, [[tool], [posture]], DT, limits=lim)
    v_again = taskik.solve_ik(conf, [[tool], [again], [posture]], DT, limits=lim)
    assert np.abs(v_again - v).max() < 1e-9


def test_a_third_level_under_a_bound_fixed_at_the_top_keeps_both_levels_above(ur5):
    """Joint 0 is driven to its cap by the top level (the bound binds: it leaves the lower
    levels' QPs); the tool level leaves the wrist at -0.045 rad/s; a posture level pulling
    every joint down then meets the lower bounds measured from that step: it changes neither
    the top level's residual nor the tool level's."""
    conf = ur5.configuration()
    limits = slow_ur5(ur5)
    top = PostureTask([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    top.set_target(ur5.q0 + np.array([0.5, 0.0, 0.0, 0.0, 0.0, 0.0]))
    tool = PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.02, 0.0])
    down = PostureTask(1.0)
    down.set_target(ur5.q0 - 0.5)
    levels = [[top], [tool], [down]]
    v2 = taskik.solve_ik(conf, levels[:2], DT, limits=limits)
    v3 = taskik.solve_ik(conf, levels, DT, limits=limits)
    assert v2[0] == pytest.approx(0.4) and v2[3] < 0.0
    assert np.count_nonzero(v3 <= -0.4 + 1e-12) >= 3  # the posture level is capped
    for task in (top, tool):
        A, c, _ = task.compute_term(conf, DT)
        assert np.linalg.norm(A @ v3 - c) == pytest.approx(np.linalg.norm(A @ v2 - c), abs=1e-9)
