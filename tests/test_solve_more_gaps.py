"""solve_ik: pink's keywords that taskik accepts only when they ask for what it does."""

from __future__ import annotations

import numpy as np
import pytest
import qpsolvers

import taskik
from taskik import InvalidInput


@pytest.mark.parametrize("value", [None, [], ()])
def test_safety_break_is_accepted_only_as_a_flag_not_as_an_empty_value(ur5, value):
    """``safety_break`` is a flag: None or an empty list is not ``False`` (unlike
    ``constraints``/``barriers``, for which empty means none)."""
    conf = ur5.configuration()
    task = taskik.PositionTask("tool0")
    task.set_target_from_configuration(conf)
    with pytest.raises(InvalidInput, match=r"safety_break must be True or False"):
        taskik.solve_ik(conf, [task], 0.01, safety_break=value)


def _posture(ur5, offset=0.1):
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + offset)
    return task


def test_a_bad_dt_is_named_with_its_unit(ur5):
    with pytest.raises(InvalidInput, match=r"^dt \(s\) must be finite and > 0, got 0\.0"):
        taskik.solve_ik(ur5.configuration(), [_posture(ur5)], 0.0)


def test_damping_given_as_a_one_element_array_is_refused(ur5):
    """The damping is a number; an array holding the default value is not one."""
    with pytest.raises(InvalidInput, match=r"^damping must be a real number, got ndarray"):
        taskik.solve_ik(ur5.configuration(), [_posture(ur5)], 0.01, damping=np.array([1e-12]))


def test_a_qpsolvers_solver_named_for_a_box_only_step_is_the_one_that_solves_it(ur5, monkeypatch):
    """``solver=`` names the solver of the step, also in the common case of a box and no
    inequality rows (where DAQP has a warm-started path of its own)."""
    calls = []
    solve_problem = qpsolvers.solve_problem

    def spy(problem, solver, **kwargs):
        calls.append(solver)
        return solve_problem(problem, solver=solver, **kwargs)

    monkeypatch.setattr(qpsolvers, "solve_problem", spy)
    conf = ur5.configuration()
    limits = [taskik.VelocityLimit(ur5.model)]
    v = taskik.solve_ik(conf, [_posture(ur5, 0.5)], 0.01, limits=limits, solver="quadprog")
    assert calls == ["quadprog"]
    assert np.allclose(v, np.pi, atol=1e-9)  # every joint at its 3.14 rad/s cap


def _far_reach_loop(planar_2r, order, adaptive=True, steps=60):
    """Closed loop of the planar arm reaching a point out of reach (the plain step overshoots
    and the adaptive damping takes over), with a light damping task; the steps taken."""
    ee = taskik.PositionTask("ee")
    ee.set_target([2.5, 1.0, 0.0])
    damping = taskik.DampingTask(1e-3)
    tasks = [ee, damping] if order == "reach first" else [damping, ee]
    conf = planar_2r.configuration(np.array([0.3, 0.4]))
    steps_taken = []
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=[], adaptive=adaptive)
        conf.integrate_inplace(v, 0.01)
        steps_taken.append(v.copy())
    return np.array(steps_taken)


def test_the_adaptive_damping_of_a_weighted_list_does_not_depend_on_its_order(planar_2r):
    """ν ‖W e‖² counts every row of the list: the same tasks in another order take the
    same steps, and those differ from the plain ones (the damping is at work)."""
    first = _far_reach_loop(planar_2r, "reach first")
    last = _far_reach_loop(planar_2r, "reach last")
    plain = _far_reach_loop(planar_2r, "reach first", adaptive=False)
    # equal to rounding: the rows are summed in another order, and the loop carries the
    # difference (1.3e-8 rad/s on steps up to 2,000 rad/s with one OpenBLAS kernel, 1.8e-9
    # with another): relative to the largest step, far below any damping effect
    assert np.allclose(first, last, rtol=1e-8, atol=1e-9 * np.abs(first).max())
    assert np.abs(first - plain).max() > 1.0
    assert np.abs(first[-1]).max() < 1e-6  # at rest


def test_a_numpy_true_for_adaptive_is_true(planar_2r):
    adaptive = _far_reach_loop(planar_2r, "reach first")
    assert np.array_equal(_far_reach_loop(planar_2r, "reach first", np.True_), adaptive)
    plain = _far_reach_loop(planar_2r, "reach first", adaptive=False)
    assert np.array_equal(_far_reach_loop(planar_2r, "reach first", np.False_), plain)


@pytest.mark.parametrize("dt", [0.01, 1.0])
def test_the_first_damped_step_adds_two_times_the_squared_weighted_error(planar_2r, dt):
    """trust_region: after the first step that fails (ν = max(0, 1)·2), the step is the
    plain one with the damping ``2 ‖W e‖²``, ``W e`` in the task's error units (m): not
    scaled by the gain or by dt."""
    ee = taskik.PositionTask("ee", gain=0.5)
    ee.set_target([2.5, 1.0, 0.0])  # out of reach: the plain step overshoots
    conf = planar_2r.configuration(np.array([0.3, 0.4]))
    for _ in range(10):
        at = planar_2r.configuration(conf.q.copy())  # no cached plan: a plain step
        plain = taskik.solve_ik(at, [ee], dt, limits=[], adaptive=False)
        v = taskik.solve_ik(conf, [ee], dt, limits=[])
        if not np.allclose(v, plain, rtol=1e-9, atol=1e-12):
            merit = float(np.sum(ee.compute_error(conf) ** 2))
            damped = taskik.solve_ik(at, [ee], dt, limits=[], adaptive=False, damping=2 * merit)
            assert np.allclose(v, damped, rtol=1e-9, atol=1e-12)
            return
        conf.integrate_inplace(v, dt)
    pytest.fail("the adaptive loop never damped its step")
