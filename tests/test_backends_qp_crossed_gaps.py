"""A warm DAQP workspace given crossed bounds (lower > upper) reports a failure, and is
usable again afterwards.

A warm DAQP takes a crossed pair of bounds as inactive, so its answer may lie outside both
bounds, above both, or below both: each case must come back as a failure (None), never as
a point clipped into an empty box."""

from __future__ import annotations

import numpy as np
import pytest

from taskik.backends.qp import DaqpWorkspace

P = np.eye(2)
R = -np.array([2.0, 0.5])  # unconstrained minimiser x = (2, 0.5)


def warm_workspace() -> DaqpWorkspace:
    """A workspace whose last solve had an active bound (the DAQP path, warm)."""
    ws = DaqpWorkspace()
    x = ws.solve_box(P, R, np.array([-1.0, -1.0]), np.array([1.0, 1.0]))
    assert x is not None and x[0] == pytest.approx(1.0) and ws.bound
    return ws


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ((1.5, -1.0), (1.0, 1.0)),  # x0 = 2 above both crossed bounds of coordinate 0
        ((3.0, -1.0), (2.5, 1.0)),  # x0 = 2 below both
        ((2.5, -1.0), (1.5, 1.0)),  # x0 = 2 between them
    ],
)
def test_crossed_bounds_are_a_failure_not_a_clipped_point(lower, upper):
    ws = warm_workspace()
    assert ws.solve_box(P, R, np.array(lower), np.array(upper)) is None


def test_the_workspace_solves_again_after_crossed_bounds():
    ws = warm_workspace()
    assert ws.solve_box(P, R, np.array([1.5, -1.0]), np.array([1.0, 1.0])) is None
    x = ws.solve_box(P, R, np.array([-1.0, -1.0]), np.array([1.0, 1.0]))
    assert x is not None
    assert x == pytest.approx([1.0, 0.5])
