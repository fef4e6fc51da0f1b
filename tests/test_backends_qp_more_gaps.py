"""QP backend, more: the warm DAQP workspace against a cold solve when only the bounds change
or after a set-up DAQP refused, which inequality rows a failed solve names (and how many),
the caller's own DAQP options on the retry, and the number of solver names suggested."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import qpsolvers

import taskik
from taskik import InvalidInput, Limit, NoSolutionFound, PostureTask
from taskik.backends import qp
from taskik.backends.qp import DaqpWorkspace, check_solver, solve_qp, solve_qp_arrays


class Rows(Limit):
    """Inequality rows ``G v ≤ h`` with a name per row."""

    def __init__(self, name, G, h, names=None):
        self.name = name
        self.G, self.h = np.atleast_2d(np.asarray(G, dtype=float)), np.asarray(h, dtype=float)
        self.names = names

    def compute_inequalities(self, configuration, dt):
        return self.G, self.h

    def row_names(self):
        return list(self.names) if self.names is not None else []


def strictly_convex(n, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n + 3, n))
    return M.T @ M + 0.5 * np.eye(n), rng.standard_normal(n)


def failure(P, r, G, h, lb, ub, limits, solver="quadprog"):
    """The message of the NoSolutionFound of an infeasible QP."""
    with pytest.raises(NoSolutionFound) as info:
        solve_qp_arrays(P, r, G, h, lb, ub, solver, (), limits)
    return str(info.value)


# ------------------------------------------------------------------ the warm workspace
def test_a_warm_workspace_follows_new_lower_and_upper_bounds():
    """Bounds given as new arrays at every solve (not updated in place) reach DAQP: each
    warm solve equals a cold solve of the same QP."""
    P, r = strictly_convex(4, 1)
    free = np.linalg.solve(P, -r)
    ws = DaqpWorkspace()
    wide = np.full(4, 10.0)
    boxes = [
        (-wide, wide),
        (free + 0.3, wide),  # every lower bound above the free minimiser
        (-wide, free - 0.2),  # every upper bound below it
        (np.full(4, -10.0), np.full(4, 10.0)),
    ]
    for lower, upper in boxes:
        x = ws.solve(P, r, lower.copy(), upper.copy())
        cold = solve_qp_arrays(P, r, None, None, lower, upper, "quadprog")
        assert x is not None and np.allclose(x, cold, atol=1e-8)


def test_after_a_refused_set_up_the_workspace_sets_up_anew():
    """Crossed bounds make DAQP refuse its set-up: that solve fails (None) and the next one,
    of the same size, is solved from scratch."""
    P, r = strictly_convex(3, 2)
    ws = DaqpWorkspace()
    assert ws.solve(P, r, np.full(3, 2.5), np.full(3, 2.0)) is None
    x = ws.solve(P, r, np.full(3, -10.0), np.full(3, 10.0))
    assert x is not None and np.allclose(x, np.linalg.solve(P, -r), atol=1e-9)
    assert ws.lam is not None and not np.any(ws.lam)


# ------------------------------------------------------------------ naming the rows
BOX = (np.array([-0.5, -0.5]), np.array([2.0, 2.0]))  # neither bound is ±1: G·lo ≠ G/lo


def test_rows_that_no_velocity_in_the_box_meets_are_named():
    """v0 ≤ −2 and −v1 ≤ −3 (v1 ≥ 3) cannot hold for v in [−0.5, 2]²; v0 + v1 ≤ 1 can.
    The message names the two rows, by the names their limits give, across limits."""
    P, r = np.eye(2), np.zeros(2)
    limits = [
        Rows("first", [[1.0, 0.0], [1.0, 1.0]], [-2.0, 1.0], ["low v0", "sum"]),
        Rows("second", [[0.0, -1.0]], [-3.0], ["high v1"]),
    ]
    G = np.vstack([lim.G for lim in limits])
    h = np.concatenate([lim.h for lim in limits])
    message = failure(P, r, G, h, *BOX, limits)
    assert "2 inequality rows cannot hold within the velocity box: low v0, high v1" in message
    assert "no two limits conflict" not in message and "out of range" not in message


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_each_bound_of_the_box_counts_in_naming_a_row(side):
    """v0 ≥ 3 cannot hold under ub = 2, v0 ≤ −1 cannot hold over lb = −0.5: each is named
    only through its side of the box (without that side, some v would meet it)."""
    P, r = np.eye(2), np.zeros(2)
    row, h = ([1.0, 0.0], -1.0) if side == "lower" else ([-1.0, 0.0], -3.0)
    other = Rows("other", [[0.0, 1.0]], [-1.0], ["v1 low"])  # conflicts with lb too
    limits = [Rows("mine", [row], [h], ["the row"]), other]
    G, hs = np.vstack([limits[0].G, other.G]), np.array([h, -1.0])
    message = failure(P, r, G, hs, *BOX, limits)
    assert "2 inequality rows cannot hold within the velocity box: the row, v1 low" in message


def test_an_unbounded_velocity_makes_no_row_impossible_and_no_warning():
    """Without a box (or with v1 free), no row is impossible alone: the message lists every
    row's limit as conflicting. A zero coefficient on an unbounded v (0 × inf) is no number
    and raises no warning."""
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])  # v0 ≤ −1, v0 ≥ 1
    limits = [Rows("pair", G, h, ["v0 below", "v0 above"])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = failure(P, r, G, h, None, None, limits)
    assert "the inequality rows of v0 below, v0 above conflict with each other" in message
    assert "cannot hold" not in message
    # a box on v0 only: the rows still conflict, neither is impossible alone
    lb, ub = np.array([-5.0, -np.inf]), np.array([5.0, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = failure(P, r, G, h, lb, ub, limits)
    assert "the inequality rows of v0 below, v0 above conflict" in message


def test_a_row_the_box_meets_only_at_its_corner_is_not_impossible():
    """v0 ≤ −0.5 holds at v0 = lb exactly: it is not named as impossible; v0 ≥ 0.25 with
    it is a conflict between rows."""
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-0.5, -0.25])
    limits = [Rows("pair", G, h, ["at the corner", "above"])]
    message = failure(P, r, G, h, *BOX, limits)
    assert "the inequality rows of at the corner, above conflict" in message


def test_a_row_missed_by_less_than_one_is_impossible_too():
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0]]), np.array([-0.9])  # v0 ≤ −0.9 with v0 ≥ −0.5: by 0.4
    message = failure(P, r, G, h, *BOX, [Rows("one", G, h, ["v0 ≤ −0.9"])])
    assert "1 inequality rows cannot hold within the velocity box: v0 ≤ −0.9" in message


def test_at_most_five_rows_are_listed():
    """Six impossible rows: the count says six, the first five are named. Six conflicting
    rows: five named and an ellipsis; five: no ellipsis."""
    P, r = np.eye(2), np.zeros(2)
    G = np.tile([[1.0, 0.0]], (6, 1))
    h = -1.0 - np.arange(6.0)
    names = [f"r{k}" for k in range(6)]
    message = failure(P, r, G, h, *BOX, [Rows("six", G, h, names)])
    listed = "6 inequality rows cannot hold within the velocity box: r0, r1, r2, r3, r4"
    assert message.endswith(listed)

    def conflicting(n):
        G = np.vstack([[[1.0, 0.0]], np.tile([[-1.0, 0.0]], (n - 1, 1))])
        h = np.concatenate([[-0.25], np.full(n - 1, -0.5)])  # v0 ≤ −0.25 and v0 ≥ 0.5
        return failure(P, r, G, h, *BOX, [Rows("many", G, h, names[:n])])

    assert "the inequality rows of r0, r1, r2, r3, r4 … conflict" in conflicting(6)
    assert "the inequality rows of r0, r1, r2, r3, r4 conflict" in conflicting(5)


def test_rows_without_names_name_their_limits():
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0]]), np.array([-3.0])
    message = failure(P, r, G, h, *BOX, [Rows("unnamed", G, h)])
    assert "inequality rows from limits ['unnamed'] may be infeasible" in message


def test_solve_qp_names_the_problems_limits(ur5):
    """solve_qp passes the problem's limits on: the impossible row is named."""
    conf = ur5.configuration()
    posture = PostureTask()
    posture.set_target(ur5.q0 + 0.1)
    G = np.zeros((1, conf.nv))
    G[0, 0] = 1.0
    limit = Rows("wall", G, [-50.0], ["pan too slow"])  # v0 ≤ −50 under a finite box
    limits = [taskik.VelocityLimit(ur5.model), limit]
    problem = taskik.build_ik(conf, [posture], 0.01, limits=limits)
    with pytest.raises(NoSolutionFound, match="cannot hold within the velocity box: pan too slow"):
        solve_qp(problem, solver="quadprog")


# ------------------------------------------------------------------ options and names
def test_the_callers_own_proximal_option_is_not_retried_with_another(monkeypatch):
    """DAQP fails: it is retried with eps_prox unless the caller set eps_prox, whose
    failure is reported as it is."""
    calls = []

    def fail(P, f, rows, upper, lower, kwargs):
        calls.append(dict(kwargs))
        return None, "DAQP exit flag -1", None

    monkeypatch.setattr(qp, "daqp_solve", fail)
    P, r = np.eye(2), np.zeros(2)
    lb, ub = -np.ones(2), np.ones(2)
    with pytest.raises(NoSolutionFound, match="exit flag -1"):
        solve_qp_arrays(P, r, None, None, lb, ub, "daqp", eps_prox=1e-3)
    assert calls == [{"eps_prox": 1e-3}]
    calls.clear()
    with pytest.raises(NoSolutionFound):
        solve_qp_arrays(P, r, None, None, lb, ub, "daqp")
    assert calls == [{}, {"eps_prox": qp.PROXIMAL_EPS}]


def test_an_unknown_solver_gets_at_most_three_suggestions(monkeypatch):
    monkeypatch.setattr(qpsolvers, "available_solvers", ["osqp1", "osqp2", "osqp3", "osqp4"])
    with pytest.raises(InvalidInput, match=r"did you mean 'osqp\d', 'osqp\d', 'osqp\d'\?\)") as e:
        check_solver("osqp")
    assert len(re.findall(r"'osqp\d'", str(e.value))) == 3  # (the installed list is unquoted)


# ------------------------------------------------------------------ what a failure says
def test_the_status_of_a_failure_without_details_or_with_a_non_finite_step():
    """quadprog gives no details on an infeasible QP; a solver that returns inf or NaN
    (an infinite gradient) has failed too, and says so."""
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])
    message = failure(P, r, G, h, None, None, [Rows("pair", G, h)])
    assert "(status: not found (no details))" in message
    for solver in ("daqp", "quadprog"):
        with pytest.raises(NoSolutionFound, match=r"\(status: non-finite solution\)") as info:
            solve_qp_arrays(P, np.array([np.inf, 0.0]), None, None, None, None, solver)
        assert str(info.value).endswith(
            "; no two limits conflict and there are no inequality rows: the QP is not finite; "
            "check the task targets, costs and dt"
        )


@pytest.mark.parametrize("side", ["lb", "ub"])
def test_a_nan_bound_on_either_side_is_named_as_the_cause(side):
    """v1's bounds cross (the solve fails); a NaN in lb alone, or in ub alone, is named."""
    P, r = np.eye(2), np.zeros(2)
    lb, ub = np.array([-1.0, 2.0]), np.array([1.0, 1.0])
    (lb if side == "lb" else ub)[0] = np.nan
    with pytest.raises(NoSolutionFound, match="; the limits gave NaN bounds$"):
        solve_qp_arrays(P, r, None, None, lb, ub, "daqp")


def test_bounds_on_rows_without_rows_are_ignored_by_the_failure_report():
    """h without G (no rows to bound) adds nothing: a failed solve names the box."""
    P, r = 0.5 * np.eye(2), np.array([0.25, 0.0])  # (both below 1: the maxima are named)
    with pytest.raises(NoSolutionFound) as info:
        solve_qp_arrays(P, r, None, np.ones(1), np.ones(2), -np.ones(2), "daqp")
    assert str(info.value).endswith(
        "; no two limits conflict and there are no inequality rows: the QP is numerically out "
        "of range (max |P| = 0.5, max |r| = 0.25); check the task targets, costs and dt"
    )


@pytest.mark.parametrize("solver", ["daqp", "quadprog"])
def test_a_nan_bound_the_solver_ignores_is_never_returned_as_a_velocity(solver):
    """A NaN lower bound on an otherwise feasible box: whatever the solver makes of it, the
    call raises naming the NaN bounds instead of returning a velocity with NaN in it."""
    P, r = np.eye(3), -np.ones(3)
    lb, ub = np.array([np.nan, -1.0, -1.0]), np.full(3, 2.0)
    with pytest.raises(NoSolutionFound, match="the limits gave NaN bounds"):
        solve_qp_arrays(P, r, None, None, lb, ub, solver)


def test_a_warm_workspace_refuses_crossed_bounds_like_a_cold_one():
    """Once set up, DAQP would take a crossed pair (lower > upper) as an inactive bound and
    return the unconstrained minimiser: the workspace refuses it (None, so the checked path
    names the conflict), for solve and solve_box alike, and then solves from scratch."""
    P, r = np.eye(3), -np.ones(3)
    crossed_lo, crossed_hi = np.array([1.0, 0.0, 0.0]), np.array([0.5, 1.0, 1.0])
    for bound in (False, True):
        ws = DaqpWorkspace()
        ws.bound = bound
        assert np.allclose(ws.solve_box(P, r, np.full(3, -1.0), np.full(3, 0.5)), 0.5)
        assert ws.solve(P, r, crossed_lo, crossed_hi) is None
        assert ws.solve_box(P, r, crossed_lo, crossed_hi) is None
        assert np.allclose(ws.solve(P, r, np.full(3, -1.0), np.full(3, 0.25)), 0.25)
