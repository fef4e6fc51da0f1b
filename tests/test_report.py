"""Reports say why a task is not met: its descent, ‖Aᵀc‖ / (σ_max(A) ‖c‖) of its weighted
rows, is 0 when no joint motion reduces its error to first order."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik.report import descent

DT = 0.01


def expected_descent(A: np.ndarray, we: np.ndarray) -> float:
    """The formula, computed independently: cosine of Aᵀ(We) against σ_max(A) ‖We‖."""
    sigma = np.linalg.svd(A, compute_uv=False)[0]
    return float(np.linalg.norm(A.T @ we) / (sigma * np.linalg.norm(we)))


def ee_task(planar_2r, q, target, cost=1.0, gain=1.0):
    conf = taskik.Configuration(planar_2r.model, q)
    task = taskik.PositionTask("ee", cost=cost, gain=gain)
    task.set_target(target)
    return conf, task


def test_a_stretched_arm_asked_to_reach_farther_has_no_descent(planar_2r):
    # links 1.0 and 0.7 along x at q = 0: every joint moves the tip along y only
    conf, task = ee_task(planar_2r, np.zeros(2), [2.0, 0.0, 0.0])
    v = taskik.solve_ik(conf, [task], DT)
    status = taskik.report(conf, [task], DT, v).tasks[0]
    assert status.error_norm == pytest.approx(0.3)
    assert status.descent == pytest.approx(0.0, abs=1e-12)


def test_an_error_along_the_best_direction_has_descent_one(planar_2r):
    conf, task = ee_task(planar_2r, np.zeros(2), [1.7, 0.1, 0.0])
    v = taskik.solve_ik(conf, [task], DT)
    assert taskik.report(conf, [task], DT, v).tasks[0].descent == pytest.approx(1.0)


@pytest.mark.parametrize("gain", [1.0, 0.3])
def test_descent_weights_rows_and_error_by_the_costs_and_ignores_gain_and_dt(planar_2r, gain):
    q = np.array([0.4, 1.1])
    cost = np.array([2.0, 0.5, 1.0])
    conf, task = ee_task(planar_2r, q, [0.9, 1.0, 0.05], cost=cost, gain=gain)
    e, J = task.compute_error_and_jacobian(conf)
    want = expected_descent(cost[:, None] * J, cost * e)
    assert 0.05 < want < 0.999  # a case where a wrong weighting would show
    for dt in (DT, 0.1):
        v = taskik.solve_ik(conf, [task], dt)
        got = taskik.report(conf, [task], dt, v).tasks[0].descent
        assert got == pytest.approx(want, rel=1e-12)
    # unweighted, the value differs: the costs are part of the formula
    assert expected_descent(J, e) != pytest.approx(want, rel=1e-3)


def test_a_met_task_has_no_descent_to_report(planar_2r):
    q = np.array([0.3, 0.6])
    conf = taskik.Configuration(planar_2r.model, q)
    posture = taskik.PostureTask()
    posture.set_target(q)
    v = taskik.solve_ik(conf, [posture], DT)
    rep = taskik.report(conf, [posture], DT, v)
    assert rep.tasks[0].descent is None
    assert "—" in str(rep) and "descent" in str(rep)


def test_descent_of_rows_that_move_nothing_is_zero():
    assert descent(np.zeros((3, 2)), np.ones(3)) == 0.0
    assert descent(np.zeros((0, 2)), np.zeros(0)) is None


def test_descent_is_none_rather_than_a_made_up_value_when_rows_are_not_finite():
    assert descent(np.array([[np.inf, 0.0]]), np.ones(1)) is None


def test_descent_does_not_overflow_on_large_rows():
    A = np.array([[3e200, 0.0], [0.0, 1e200]])
    assert descent(A, np.array([1e200, 0.0])) == pytest.approx(1.0)
    assert descent(A, np.array([0.0, 1e200])) == pytest.approx(1.0 / 3.0)


def test_a_level_descent_counts_only_what_the_levels_above_leave_free(planar_2r):
    q = np.array([0.4, 1.1])
    conf = taskik.Configuration(planar_2r.model, q)
    hold_first = taskik.PostureTask(cost=np.array([1.0, 0.0]))  # a level on joint 1 alone
    hold_first.set_target(q)
    _, tip = ee_task(planar_2r, q, [0.9, 1.0, 0.05])
    levels = [[hold_first], [tip]]
    v = taskik.solve_ik(conf, levels, DT)
    rep = taskik.hierarchy_report(conf, levels, DT, v)
    e, J = tip.compute_error_and_jacobian(conf)
    # joint 1 is taken: the tip level keeps the direction of joint 2 only
    assert rep.levels[1].descent == pytest.approx(expected_descent(J[:, 1:], e), rel=1e-9)
    assert rep.levels[1].descent != pytest.approx(expected_descent(J, e), rel=1e-3)
    assert rep.levels[0].descent is None  # the posture is at its target
    assert "descent" in str(rep)
