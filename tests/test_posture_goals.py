"""solve_posture: which tasks are goals (judged by E) and which regularize; priority levels."""

from __future__ import annotations

import numpy as np
import pytest
from recipes import humanoid_com

import taskik
from taskik.exceptions import InvalidInput


@pytest.fixture(scope="module")
def humanoid():
    return taskik.robots.load("humanoid")


def _recipe(robot):
    """The recipe of a pink user: feet held, CoM lowered, a posture, from straight knees."""
    return humanoid_com(robot, "neutral")


def _goal_errors(robot, q, feet, com):
    conf = taskik.Configuration(robot.model, q)
    foot = max(np.linalg.norm(f.compute_error(conf)) for f in feet)
    return foot, np.linalg.norm(com.compute_error(conf))


def test_the_natural_recipe_succeeds_with_the_posture_as_regularization(humanoid):
    """Issue: 100 searches and success=False although feet and CoM were met."""
    conf, feet, com, posture = _recipe(humanoid)
    result = taskik.solve_posture(conf, [*feet, com, posture], rng=0)
    assert result.success
    assert result.searches == 1
    assert len(result.residuals) == 3  # feet and CoM: the posture is not a goal
    foot, c = _goal_errors(humanoid, result.q, feet, com)
    # E = ½ Σ ‖W e‖² < tol = 1e-6 bounds every goal error by √(2 tol)
    assert foot < np.sqrt(2e-6) and c < np.sqrt(2e-6)
    assert result.error == pytest.approx(sum(result.residuals))


def test_the_posture_is_a_goal_when_asked_or_alone(humanoid):
    conf, feet, com, posture = _recipe(humanoid)
    as_goal = taskik.solve_posture(
        conf, [*feet, com, posture], regularization=[], rng=0, max_searches=3
    )
    assert len(as_goal.residuals) == 4
    assert not as_goal.success  # the start posture is far from a lowered CoM: E stays large
    alone = taskik.solve_posture(conf, [posture], rng=0)
    assert alone.success and len(alone.residuals) == 1


@pytest.mark.parametrize(
    "shape", ["[[feet, com], [posture]]", "[feet, [com], [posture]]"], ids=["two", "three"]
)
def test_levels_as_for_solve_ik(humanoid, shape):
    conf, feet, com, posture = _recipe(humanoid)
    levels = [[*feet, com], [posture]] if shape.startswith("[[") else [feet, [com], [posture]]
    result = taskik.solve_posture(conf, levels, rng=0)
    assert result.success
    assert len(result.residuals) == 3  # a level of posture only is regularization
    foot, c = _goal_errors(humanoid, result.q, feet, com)
    assert foot < np.sqrt(2e-6) and c < np.sqrt(2e-6)


def test_levels_keep_the_higher_level_when_a_lower_one_cannot_be_met(humanoid):
    """An out-of-reach hand below the feet: the feet stay met (to tol: a weighted list trades
    them against the hand), the hand comes as close as it can, and success is False."""
    conf, feet, _, posture = _recipe(humanoid)
    hand = taskik.PositionTask("rarm_effector_body")
    hand.set_target([5.0, -1.0, 1.0])
    prioritized = taskik.solve_posture(conf, [feet, [hand], [posture]], rng=0, max_searches=2)
    weighted = taskik.solve_posture(conf, [*feet, hand, posture], rng=0, max_searches=2)
    assert not prioritized.success and not weighted.success
    assert max(prioritized.residuals[:2]) < 1e-6  # each foot's E = ½ ‖W e‖² below tol
    assert max(weighted.residuals[:2]) > 1e-3  # the weighted feet give way to the hand
    start_distance = np.linalg.norm(hand.compute_error(conf))
    c = taskik.Configuration(humanoid.model, prioritized.q)
    assert np.linalg.norm(hand.compute_error(c)) < start_distance - 0.1


def test_levels_accept_only_the_level_methods(humanoid):
    conf, feet, com, posture = _recipe(humanoid)
    with pytest.raises(InvalidInput, match="with priority levels, method must be one of"):
        taskik.solve_posture(conf, [[*feet, com], [posture]], method="nr")
    result = taskik.solve_posture(conf, [[*feet, com], [posture]], method="qp", rng=0)
    assert result.success
    assert taskik.solve_posture(conf, [[*feet, com]], method="gn", rng=0).success
