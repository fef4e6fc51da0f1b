"""The solver checks the step it solved without checking its own arguments again: the balance
and collision limits' ``check_step`` validates ``(configuration, v, dt)`` and then runs
``_check_solved``, which ``solve_ik`` calls directly. The steps are the same bit for bit, and a
subclass that overrides ``check_step`` is still called."""

from __future__ import annotations

import numpy as np
from test_limits_collision import DT, arm_and_ball

import taskik
from taskik.contacts import both_feet
from taskik.limits import BalanceLimit
from taskik.limits.collision import CollisionLimit


class CountedBalance(BalanceLimit):
    """A subclass with its own ``check_step`` (counting its calls)."""

    calls = 0

    def check_step(self, configuration, v, dt):
        CountedBalance.calls += 1
        return super().check_step(configuration, v, dt)


class CountedCollision(CollisionLimit):
    calls = 0

    def check_step(self, configuration, v, dt):
        CountedCollision.calls += 1
        return super().check_step(configuration, v, dt)


def counted(limit):
    """``limit`` with its instance's ``check_step`` and ``_check_solved`` counted."""
    calls = {"check_step": 0, "_check_solved": 0}
    for name in calls:
        method = getattr(limit, name)

        def wrapper(*args, method=method, name=name):
            calls[name] += 1
            return method(*args)

        setattr(limit, name, wrapper)
    return calls


def balance_loop(limit_class, steps=60):
    """The bundled humanoid reaching 0.6 m forward with both feet held: its velocities."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = both_feet(robot, conf)
    hand = taskik.PositionTask(robot.end_effectors[3], cost=1.0, lm_damping=1.0)
    hand.set_target(
        conf.get_transform_frame_to_world(robot.end_effectors[3]).translation + [0.6, 0.0, -0.2]
    )
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    limit = limit_class(feet)
    calls = counted(limit) if limit_class is BalanceLimit else None
    limits = [*taskik.limits.default_limits(robot.model), limit]
    tasks = [*(c.task(conf) for c in feet), hand, posture]
    vs = []
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
        vs.append(v.copy())
        conf.integrate_inplace(v, 0.01)
    return np.array(vs), limit, calls


def test_balance_steps_are_the_same_checked_directly_or_through_check_step():
    CountedBalance.calls = 0
    direct, _, calls = balance_loop(BalanceLimit)
    through, _, _ = balance_loop(CountedBalance)
    assert np.array_equal(direct, through)
    assert calls["_check_solved"] >= 60 and calls["check_step"] == 0
    assert CountedBalance.calls >= 60  # (the subclass's own check_step is honoured)


def test_collision_steps_are_the_same_checked_directly_or_through_check_step():
    CountedCollision.calls = 0
    runs = []
    for limit_class in (CollisionLimit, CountedCollision):
        robot, conf, ball, _, tasks, _ = arm_and_ball(offset=(0.0, 0.13, 0.0))
        limit = limit_class(robot, obstacles=[ball])
        calls = counted(limit) if limit_class is CollisionLimit else None
        box = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
        vs = []
        for _ in range(40):
            v = taskik.solve_ik(conf, tasks, DT, [*box, limit], solver="daqp")
            vs.append(v.copy())
            conf.integrate_inplace(v, DT)
        runs.append((np.array(vs), calls))
    (direct, calls), (through, _) = runs
    assert np.array_equal(direct, through)
    assert calls["_check_solved"] >= 40 and calls["check_step"] == 0
    assert CountedCollision.calls >= 40
