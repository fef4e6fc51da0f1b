"""Reports say why a task is not met: its ``reducible`` fraction, the part of its weighted
error in the task directions the joints can move it in, is 0 at a singular configuration or
a local minimum of the task, and 1 when only limits or other tasks hold it."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik.report import REDUCIBLE_RCOND, reducible

DT = 0.01


def tip_task(planar_2r, q, target, cost=1.0, gain=1.0):
    conf = taskik.Configuration(planar_2r.model, q)
    task = taskik.PositionTask("ee", cost=cost, gain=gain)
    task.set_target(target)
    return conf, task


def test_a_stretched_arm_asked_to_reach_farther_can_reduce_none_of_its_error(planar_2r):
    # links 1.0 and 0.7 along x at q = 0: every joint moves the tip along y only
    conf, task = tip_task(planar_2r, np.zeros(2), [2.0, 0.0, 0.0])
    v = taskik.solve_ik(conf, [task], DT)
    status = taskik.report(conf, [task], DT, v).tasks[0]
    assert status.error_norm == pytest.approx(0.3)
    assert status.reducible == pytest.approx(0.0, abs=1e-12)


def test_an_error_across_the_arm_is_all_reducible(planar_2r):
    conf, task = tip_task(planar_2r, np.zeros(2), [1.7, 0.1, 0.0])
    v = taskik.solve_ik(conf, [task], DT)
    assert taskik.report(conf, [task], DT, v).tasks[0].reducible == pytest.approx(1.0)


@pytest.mark.parametrize("gain", [1.0, 0.3])
def test_the_fraction_is_of_the_weighted_error_whatever_the_gain_and_dt(planar_2r, gain):
    # a planar arm away from its singularity moves its tip in the x-y plane, never along z
    q = np.array([0.4, 1.1])
    cost = np.array([2.0, 0.5, 3.0])
    conf, task = tip_task(planar_2r, q, [0.9, 1.0, 0.05], cost=cost, gain=gain)
    we = cost * task.compute_error(conf)
    want = np.linalg.norm(we[:2]) / np.linalg.norm(we)
    assert 0.05 < want < 0.95
    for dt in (DT, 0.1):
        v = taskik.solve_ik(conf, [task], dt)
        assert taskik.report(conf, [task], dt, v).tasks[0].reducible == pytest.approx(want)
    e = task.compute_error(conf)  # unweighted, the fraction differs: the costs count
    assert np.linalg.norm(e[:2]) / np.linalg.norm(e) != pytest.approx(want, rel=1e-3)


def test_directions_weaker_than_rcond_count_as_none():
    A = np.diag([1.0, 0.5 * REDUCIBLE_RCOND])
    assert reducible(A, np.array([0.0, 1.0])) == 0.0
    assert reducible(A, np.array([1.0, 1.0])) == pytest.approx(np.sqrt(0.5))
    assert reducible(np.diag([1.0, 2.0 * REDUCIBLE_RCOND]), np.array([0.0, 1.0])) == 1.0


def test_a_met_task_has_nothing_to_reduce(planar_2r):
    q = np.array([0.3, 0.6])
    conf = taskik.Configuration(planar_2r.model, q)
    posture = taskik.PostureTask()
    posture.set_target(q)
    v = taskik.solve_ik(conf, [posture], DT)
    rep = taskik.report(conf, [posture], DT, v)
    assert rep.tasks[0].reducible is None
    assert "—" in str(rep) and "reducible" in str(rep)


def test_rows_that_move_nothing_reduce_nothing():
    assert reducible(np.zeros((3, 2)), np.ones(3)) == 0.0
    assert reducible(np.zeros((3, 0)), np.ones(3)) == 0.0  # no direction left to a level
    assert reducible(np.zeros((0, 2)), np.zeros(0)) is None


def test_non_finite_rows_give_none_rather_than_a_made_up_value():
    assert reducible(np.array([[np.inf, 0.0]]), np.ones(1)) is None
    assert reducible(np.eye(2), np.array([np.nan, 1.0])) is None


def test_large_rows_and_errors_do_not_overflow():
    A = np.array([[3e200, 0.0], [0.0, 1e200], [0.0, 0.0]])
    assert reducible(A, np.array([1e300, 1e300, 0.0])) == pytest.approx(1.0)
    assert reducible(A, np.array([0.0, 1e300, 1e300])) == pytest.approx(np.sqrt(0.5))


def test_a_level_counts_only_what_the_levels_above_leave_free(planar_2r):
    q = np.array([0.4, 1.1])
    conf = taskik.Configuration(planar_2r.model, q)
    hold_first = taskik.PostureTask(cost=np.array([1.0, 0.0]))  # a level on joint 1 alone
    hold_first.set_target(q)
    _, tip = tip_task(planar_2r, q, [0.9, 1.0, 0.0])
    levels = [[hold_first], [tip]]
    v = taskik.solve_ik(conf, levels, DT)
    rep = taskik.hierarchy_report(conf, levels, DT, v)
    e, J = tip.compute_error_and_jacobian(conf)
    # joint 1 is taken: the tip level keeps the direction joint 2 moves it in
    j2 = J[:, 1] / np.linalg.norm(J[:, 1])
    want = abs(j2 @ e) / np.linalg.norm(e)
    assert 0.05 < want < 0.95
    assert rep.levels[1].reducible == pytest.approx(want)
    # alone, the tip's planar error would be all reducible
    assert taskik.report(conf, [tip], DT, v).tasks[0].reducible == pytest.approx(1.0)
    assert rep.levels[0].reducible is None  # the posture is at its target
    assert "reducible" in str(rep)
