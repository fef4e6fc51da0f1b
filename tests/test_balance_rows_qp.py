"""The warm DAQP path of a step with inequality rows (the balance limit's rows past balance):
``DaqpWorkspace.solve_rows`` writes ``[lower, −inf]`` and ``[upper, h]`` into arrays it keeps
from one solve to the next, and tests crossed bounds with one comparison read as bytes.

Each warm solve must equal a cold solve of the same QP whatever came before (row counts that
change, bounds that move), leave the caller's arrays as they were, and answer crossed bounds
with a failure (None), never a point clipped into an empty box."""

from __future__ import annotations

import numpy as np
import pytest

from taskik.backends.qp import DaqpWorkspace, solve_qp_arrays


def strictly_convex(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n + 3, n))
    return M.T @ M + 0.5 * np.eye(n), 3.0 * rng.standard_normal(n)


def cold(P, r, G, h, lower, upper):
    return solve_qp_arrays(P, r, G, h, lower, upper, "quadprog")


def test_warm_solves_with_changing_rows_equal_cold_solves():
    """Row counts 3, 5, 3, 0 (no rows), 4 and boxes that move: every warm answer is the cold
    one (to the solvers' tolerance), meets its rows and box, and the caller's lower, upper
    and h are unchanged (the kept arrays are the workspace's own)."""
    n = 6
    rng = np.random.default_rng(5)
    ws = DaqpWorkspace()
    active_rows = 0
    for k, m in enumerate([3, 5, 3, 0, 4, 4, 5]):
        P, r = strictly_convex(n, k)
        G = rng.standard_normal((m, n))
        h = 0.2 * rng.standard_normal(m) - 0.1  # (rows the free minimiser breaks, mostly)
        lower = -0.5 - rng.random(n)
        upper = 0.5 + rng.random(n)
        kept = (lower.copy(), upper.copy(), h.copy())
        x = ws.solve_rows(P, r, G, h, lower, upper)
        ref = cold(P, r, G if m else None, h if m else None, lower, upper)
        assert x is not None
        np.testing.assert_allclose(x, ref, atol=1e-6)
        assert (x >= lower).all() and (x <= upper).all()
        assert (G @ x <= h + 1e-6).all()
        active_rows += int((G @ x > h - 1e-6).sum())
        for before, after in zip(kept, (lower, upper, h), strict=True):
            assert np.array_equal(before, after)
    assert active_rows >= 5  # (the rows mattered: the answers are not the box's alone)


def test_the_answer_is_not_overwritten_by_the_next_solve():
    """The step returned by one solve is the caller's: a later solve of other bounds and
    rows of the same sizes (the same kept arrays) does not change it."""
    P, r = strictly_convex(4, 1)
    ws = DaqpWorkspace()
    G = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    first = ws.solve_rows(P, r, G, np.array([0.1, 0.2]), np.full(4, -1.0), np.full(4, 1.0))
    assert first is not None
    copy = first.copy()
    second = ws.solve_rows(P, -r, G, np.array([-0.3, 0.0]), np.full(4, -0.5), np.full(4, 0.7))
    assert second is not None and not np.allclose(second, copy)
    assert np.array_equal(first, copy)


@pytest.mark.parametrize("where", [0, 3])
def test_crossed_box_bounds_with_rows_are_a_failure_then_solved_again(where):
    """A crossed box bound (lower > upper) with rows present fails (None) on a warm
    workspace, and the same workspace then solves a consistent QP as a cold solve does."""
    P, r = strictly_convex(4, 2)
    G, h = np.array([[1.0, -1.0, 0.5, 0.0]]), np.array([0.05])
    ws = DaqpWorkspace()
    assert ws.solve_rows(P, r, G, h, np.full(4, -1.0), np.full(4, 1.0)) is not None
    lower, upper = np.full(4, -1.0), np.full(4, 1.0)
    lower[where], upper[where] = 0.6, 0.4
    assert ws.solve_rows(P, r, G, h, lower, upper) is None
    assert ws.model is None
    x = ws.solve_rows(P, r, G, h, np.full(4, -1.0), np.full(4, 1.0))
    ref = cold(P, r, G, h, np.full(4, -1.0), np.full(4, 1.0))
    assert x is not None
    np.testing.assert_allclose(x, ref, atol=1e-6)


def test_rows_with_a_lower_bound_of_minus_infinity_h_are_not_crossed_bounds():
    """Only the box can cross: a row ``G v ≤ h`` with h very negative is a hard row, not a
    crossed pair (its lower side is −inf); here it is infeasible within the box, and DAQP
    says so (None), while a reachable one is met."""
    P, r = strictly_convex(3, 3)
    G = np.array([[1.0, 0.0, 0.0]])
    lower, upper = np.full(3, -1.0), np.full(3, 1.0)
    ws = DaqpWorkspace()
    assert ws.solve_rows(P, r, G, np.array([-5.0]), lower, upper) is None
    x = ws.solve_rows(P, r, G, np.array([-0.5]), lower, upper)
    assert x is not None and x[0] <= -0.5 + 1e-6
