"""When a search of solve_posture gives up: one stagnation rule for every search loop."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.posture.stagnation import Stagnation


def feed(rule: Stagnation, values) -> list[bool]:
    return [rule(E) for E in values]


def test_the_first_value_is_progress():
    assert feed(Stagnation(1e-3, 1), [5.0]) == [False]


def test_stagnates_after_patience_values_without_a_significant_drop():
    # 10 % required: 9.5 and 9.2 are not enough below 10; the third miss stops the search
    assert feed(Stagnation(0.1, 3), [10.0, 9.5, 9.2, 9.1]) == [False, False, False, True]
    # patience 1: the first miss stops it
    assert feed(Stagnation(0.1, 1), [10.0, 9.5]) == [False, True]


def test_a_significant_drop_resets_the_count():
    rule = Stagnation(0.1, 2)
    assert feed(rule, [10.0, 9.5, 8.9, 8.5, 8.4]) == [False, False, False, False, True]


def test_small_drops_count_once_they_add_up_to_the_fraction():
    """The reference is the E of the last significant drop, not the last E: a steady
    descent of 4 % per step (each step less than the 10 % asked) keeps the search alive."""
    values = [10.0 * 0.96**k for k in range(12)]
    assert not any(feed(Stagnation(0.1, 3), values))
    # measured against the last value instead, the same descent would stop at the 4th value
    last, misses, stops = values[0], 0, []
    for E in values[1:]:
        misses = 0 if last * 0.9 > E else misses + 1
        last = E
        stops.append(misses >= 3)
    assert any(stops)


def test_fraction_zero_asks_only_for_a_strict_drop():
    assert feed(Stagnation(0.0, 2), [1.0, 0.999, 0.999, 0.999]) == [False, False, False, True]


def test_scale_free():
    values = [10.0, 9.5, 8.9, 8.5, 8.4, 8.39]
    assert feed(Stagnation(0.1, 2), values) == feed(Stagnation(0.1, 2), [2 * v for v in values])


class _GeneralFrameTask(taskik.FrameTask):
    """A FrameTask subclass: solve_posture takes its general loop."""


def test_the_general_loop_uses_the_rule(ur5, monkeypatch):
    calls = []
    inner = Stagnation.__call__

    def counted(self, E):
        calls.append(E)
        return inner(self, E)

    monkeypatch.setattr(Stagnation, "__call__", counted)
    task = _GeneralFrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))  # out of reach
    result = taskik.solve_posture(
        ur5.model, [task], q0=ur5.q0, max_searches=1, max_iterations=500, stagnation=0.01,
        patience=2,
    )  # fmt: skip
    assert not result.success
    assert "stagnated" in result.reason
    # the search stopped on the rule's verdict: the last two values were misses
    assert 3 <= len(calls) < 499
    assert min(calls[-2:]) >= 0.99 * min(calls[:-2])


@pytest.mark.parametrize(("fraction", "patience"), [(0.01, 2), (1e-3, 3), (0.1, 1), (0.05, 4)])
def test_the_single_pose_loop_applies_the_rule(ur5, monkeypatch, fraction, patience):
    """The single-pose loop applies the rule inline (no call per iteration): fed the errors
    of the loop's iterations, Stagnation says "stop" at the last one and only there."""
    from taskik.posture.context import context

    runner = context(ur5.model).fast_pose(ur5.model.getFrameId("tool0"), "log6")
    errors: list[np.ndarray] = []
    inner = runner.difference

    def recorded(x, xt):
        e = inner(x, xt)
        errors.append(e)
        return e

    monkeypatch.setattr(runner, "difference", recorded)
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.5])))  # out of reach
    result = taskik.solve_posture(
        ur5.model, [task], q0=ur5.q0, max_searches=1, max_iterations=500,
        stagnation=fraction, patience=patience,
    )  # fmt: skip
    assert not result.success
    assert "stagnated" in result.reason
    assert len(errors) == result.iterations < 499
    verdicts = feed(Stagnation(fraction, patience), [0.5 * float(e @ e) for e in errors])
    assert verdicts[-1] and not any(verdicts[:-1])
