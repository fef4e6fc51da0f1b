"""Task and limit lists built anew at every step: the plan is found by what the lists hold
(task types and frames, limit values), never by which objects they are; values changed in
place select the plan of the new values; the common constructors skip no check."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from recipes import FEET, humanoid_com

import taskik
from taskik.problem import get_assembler


def _hand_task(conf: taskik.Configuration, shift: tuple[float, float, float]) -> taskik.FrameTask:
    target = conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array(shift)
    hand = taskik.FrameTask("tool0", 1.0, 1.0)
    hand.set_target(target)
    return hand


def test_velocity_caps_changed_are_obeyed(ur5):
    """A step after new caps are assigned, or edited in place, obeys them, weighted or with
    levels (the plan works the static box out once: it was keyed by the limit's identity,
    and the old caps held); a bad cap is refused whichever way it was given."""
    conf = ur5.configuration()
    hand = _hand_task(conf, (0.3, 0.3, 0.3))
    limit = taskik.VelocityLimit(ur5.model)
    for tasks in ([hand], [[hand]]):
        for change in ("assigned", "in place"):
            limit.v_max = ur5.model.velocityLimit
            v_fast = taskik.solve_ik(conf, tasks, 0.01, limits=[limit], adaptive=False)
            assert np.abs(v_fast).max() > 0.5  # (the model's caps let it move fast)
            if change == "assigned":
                limit.v_max = 0.01
            else:
                limit.v_max[:] = 0.01
            v = taskik.solve_ik(conf, tasks, 0.01, limits=[limit], adaptive=False)
            assert np.abs(v).max() <= 0.01 + 1e-9, (tasks, change)
    for bad in (-1.0, math.nan):
        limit.v_max = 0.01
        taskik.solve_ik(conf, [hand], 0.01, limits=[limit], adaptive=False)
        limit.v_max[1] = bad
        with pytest.raises(taskik.InvalidInput, match="v_max|velocity limits"):
            taskik.solve_ik(conf, [hand], 0.01, limits=[limit], adaptive=False)
    with pytest.raises(taskik.InvalidInput):
        limit.v_max = np.full(ur5.model.nv, -1.0)
    with pytest.raises(taskik.InvalidInput):
        limit.v_max = np.ones(3)


def test_limits_built_anew_each_step_find_one_plan_and_step_alike(ur5):
    """Position and velocity limits built anew at every step (equal in value) reuse the plan
    of the last ones (one plan, not one per step) and give the reused list's steps."""
    reused_conf, fresh_conf = ur5.configuration(), ur5.configuration()
    hand = _hand_task(reused_conf, (0.3, -0.2, 0.1))
    reused = [taskik.ConfigurationLimit(ur5.model), taskik.VelocityLimit(ur5.model)]
    for _ in range(20):
        v_reused = taskik.solve_ik(reused_conf, [hand], 0.01, limits=reused)
        fresh = [taskik.ConfigurationLimit(ur5.model), taskik.VelocityLimit(ur5.model)]
        v_fresh = taskik.solve_ik(fresh_conf, [hand], 0.01, limits=fresh)
        assert np.allclose(v_fresh, v_reused, rtol=0, atol=1e-12)
        reused_conf.integrate_inplace(v_reused, 0.01)
        fresh_conf.integrate_inplace(v_fresh, 0.01)
    assert len(fresh_conf.plans) == 1


def test_a_plan_found_for_equal_limits_reads_the_new_objects(ur5):
    """The plan found for a new position limit of equal structure steps with the new
    limit's gain, at once and after the gain is changed on the new object."""
    conf = ur5.configuration()
    conf.update(np.array([0.0, -1.2, 1.5, -1.6, -1.5, 6.2]))  # wrist 3 near its upper limit
    hand = _hand_task(conf, (0.0, 0.0, 0.0))
    hand.set_target(hand.target * pin.SE3(pin.exp3(np.array([0.0, 0.0, 0.5])), np.zeros(3)))
    asm = get_assembler(conf, [hand], [taskik.ConfigurationLimit(ur5.model, gain=0.5)])
    for gain in (0.05, 0.2):
        limit = taskik.ConfigurationLimit(ur5.model, gain=gain)
        v = taskik.solve_ik(conf, [hand], 0.01, limits=[limit], adaptive=False)
        alone = taskik.solve_ik(
            ur5.configuration(conf.q), [hand], 0.01, limits=[limit], adaptive=False
        )
        assert np.allclose(v, alone, rtol=0, atol=1e-12)
        limit.gain = 0.9 * gain
        v = taskik.solve_ik(conf, [hand], 0.01, limits=[limit], adaptive=False)
        alone = taskik.solve_ik(
            ur5.configuration(conf.q), [hand], 0.01, limits=[limit], adaptive=False
        )
        assert np.allclose(v, alone, rtol=0, atol=1e-12)
    assert get_assembler(conf, [hand], [limit]) is asm


def test_limits_of_other_values_get_their_own_plan(ur5):
    conf = ur5.configuration()
    hand = _hand_task(conf, (0.3, 0.3, 0.3))
    for cap in (0.5, 0.05, 0.5):
        limit = taskik.VelocityLimit(ur5.model, np.full(ur5.model.nv, cap))
        v = taskik.solve_ik(conf, [hand], 0.01, limits=[limit], adaptive=False)
        assert np.abs(v).max() <= cap + 1e-9
        assert np.abs(v).max() > 0.9 * cap  # (far target: some joint at its cap)
    assert len(conf.plans) == 2


def test_a_humanoid_list_built_anew_with_its_limits_steps_like_a_reused_one(humanoid):
    """Feet, CoM and posture tasks and the limits, all built anew each step: the reused
    list's closed-loop steps, through one plan."""
    conf, feet, com, posture = humanoid_com(humanoid)
    fresh_conf = taskik.Configuration(humanoid.model, conf.q.copy())
    targets = [f.target for f in feet]
    reused = [*feet, com, posture]
    limits = [taskik.ConfigurationLimit(humanoid.model), taskik.VelocityLimit(humanoid.model)]

    def fresh_lists():
        tasks = []
        for name, target in zip(FEET, targets, strict=True):
            foot = taskik.FrameTask(name, 1.0, 1.0)
            foot.set_target(target)
            tasks.append(foot)
        c = taskik.ComTask(1.0)
        c.set_target(com.target)
        p = taskik.PostureTask(1e-3)
        p.set_target(posture.target)
        limits = [taskik.ConfigurationLimit(humanoid.model), taskik.VelocityLimit(humanoid.model)]
        return [*tasks, c, p], limits

    for _ in range(40):
        v = taskik.solve_ik(conf, reused, 0.01, limits=limits)
        fresh_tasks, fresh_limits = fresh_lists()
        v_fresh = taskik.solve_ik(fresh_conf, fresh_tasks, 0.01, limits=fresh_limits)
        assert np.allclose(v_fresh, v, rtol=0, atol=1e-12)
        conf.integrate_inplace(v, 0.01)
        fresh_conf.integrate_inplace(v_fresh, 0.01)
    assert len(fresh_conf.plans) == 1


def test_tasks_built_with_the_same_costs_do_not_share_a_change(ur5):
    """Costs given as the same numbers are one read-only array; changing one task's costs
    leaves the others' alone."""
    a, b = taskik.FrameTask("tool0", 2.0, 3.0), taskik.FrameTask("tool0", 2.0, 3.0)
    c, d = taskik.ComTask(2.0), taskik.ComTask(2.0)
    p, r = taskik.PostureTask(2.0), taskik.PostureTask(cost=2.0)
    a.set_costs(position_cost=5.0)
    c.cost = 7.0
    p.cost = 9.0
    assert b.cost.tolist() == [2.0, 2.0, 2.0, 3.0, 3.0, 3.0]
    assert a.cost.tolist() == [5.0, 5.0, 5.0, 3.0, 3.0, 3.0]
    assert d.cost.tolist() == [2.0] * 3 and c.cost.tolist() == [7.0] * 3
    assert float(r.cost) == 2.0 and float(p.cost) == 9.0
    with pytest.raises(ValueError, match="read-only"):
        b.cost[0] = 1.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: taskik.FrameTask("tool0", math.nan, 1.0),
        lambda: taskik.FrameTask("tool0", 1.0, -1.0),
        lambda: taskik.FrameTask("tool0", 1.0, 1.0, gain=0.0),
        lambda: taskik.FrameTask("tool0", 1.0, 1.0, lm_damping=math.inf),
        lambda: taskik.FrameTask("tool0", 1e300, 1.0),
        lambda: taskik.ComTask(math.inf),
        lambda: taskik.ComTask(1.0, gain=1.5),
        lambda: taskik.PostureTask(-1.0),
        lambda: taskik.PostureTask(cost=math.nan),
        lambda: taskik.PostureTask(1.0, lm_damping=-1.0),
    ],
)
def test_the_common_constructors_still_refuse_bad_numbers(make):
    with pytest.raises(taskik.InvalidInput):
        make()


def test_the_common_target_setters_still_refuse_bad_values(ur5):
    frame, com, posture = taskik.FrameTask("tool0"), taskik.ComTask(), taskik.PostureTask()
    good = pin.SE3.Random()
    frame.set_target(good)  # (kept as the last pose that passed)
    for bad in (
        pin.SE3(np.diag([1.0, 1.0, 2.0]), np.zeros(3)),  # not a rotation
        pin.SE3(good.rotation, np.array([math.nan, 0.0, 0.0])),
        pin.SE3(good.rotation, np.array([1e200, 0.0, 0.0])),  # beyond MAX_TARGET
    ):
        with pytest.raises(taskik.InvalidInput):
            frame.set_target(bad)
    assert frame.target == good  # (the last good target stays)
    with pytest.raises(taskik.InvalidInput):
        com.set_target(np.array([0.0, math.inf, 0.0]))
    with pytest.raises(taskik.InvalidInput):
        com.set_target(np.zeros(4))
    q = ur5.q0.copy()
    q[2] = math.nan
    with pytest.raises(taskik.InvalidInput):
        posture.set_target(q)
    with pytest.raises(taskik.InvalidInput):
        posture.set_target(np.zeros((2, 3)))
    posture.set_target(np.zeros(ur5.model.nq + 1))  # (its size is checked on first use)
    conf = ur5.configuration()
    with pytest.raises(taskik.InvalidInput, match="posture target"):
        taskik.solve_ik(conf, [posture], 0.01)


def _other_tasks(conf: taskik.Configuration) -> dict[str, object]:
    """Makers of a fresh task of each built-in type keyed by its structure, on the UR5."""
    here = conf.get_transform_frame_to_world("tool0").translation

    def axis():
        return taskik.AxisAlignmentTask("tool0", (0.0, 0.0, 1.0), (0.0, 0.0, -1.0), 0.5)

    def look_at():
        return taskik.LookAtTask("tool0", (0.0, 0.0, 1.0), here + np.array([0.3, 0.0, 0.0]))

    def distance():
        return taskik.DistanceTask("tool0", "shoulder_link", 0.5, 0.5)

    def relative_com():
        task = taskik.RelativeComTask("tool0", 0.5)
        task.set_target(np.array([0.1, 0.0, 0.1]))
        return task

    def manipulability():
        return taskik.ManipulabilityTask("tool0", target=0.1, cost=1e-3)

    def coupling():
        return taskik.JointCouplingTask(["elbow_joint", "wrist_1_joint"], [[1.0, 1.0]], cost=0.5)

    return {
        "axis": axis,
        "look_at": look_at,
        "distance": distance,
        "relative_com": relative_com,
        "manipulability": manipulability,
        "coupling": coupling,
        "kinetic_energy": lambda: taskik.KineticEnergyTask(1e-3),
        "low_acceleration": lambda: taskik.LowAccelerationTask(1e-3),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "axis",
        "look_at",
        "distance",
        "relative_com",
        "manipulability",
        "coupling",
        "kinetic_energy",
        "low_acceleration",
    ],
)
def test_other_built_in_tasks_built_anew_find_one_plan(ur5, kind):
    """A list with a built-in task of any type, built anew at every step, finds the plan of
    the last one (they were keyed by identity: a plan per step) and steps as a configuration
    that never saw another list."""
    conf = ur5.configuration()
    make = _other_tasks(conf)[kind]
    for shift in ((0.1, 0.0, 0.0), (0.0, 0.1, 0.0), (0.0, 0.0, 0.1)):
        tasks = [_hand_task(conf, shift), make()]
        v = taskik.solve_ik(conf, tasks, 0.01, adaptive=False)
        alone = taskik.solve_ik(ur5.configuration(), tasks, 0.01, adaptive=False)
        assert np.allclose(v, alone, rtol=0, atol=1e-12)
    assert len(conf.plans) == 1


def test_levels_with_limits_built_anew_find_one_plan(ur5):
    """Priority levels with position and velocity limits built anew at every step (equal in
    value) reuse one plan, and step as the same levels with limits built once."""
    reused_conf, fresh_conf = ur5.configuration(), ur5.configuration()
    hand = _hand_task(reused_conf, (0.3, -0.2, 0.1))
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(ur5.q0)
    reused = [taskik.ConfigurationLimit(ur5.model), taskik.VelocityLimit(ur5.model)]
    for _ in range(20):
        v_reused = taskik.solve_ik(reused_conf, [[hand], [posture]], 0.01, limits=reused)
        fresh = [taskik.ConfigurationLimit(ur5.model), taskik.VelocityLimit(ur5.model)]
        v_fresh = taskik.solve_ik(fresh_conf, [[hand], [posture]], 0.01, limits=fresh)
        assert np.allclose(v_fresh, v_reused, rtol=0, atol=1e-12)
        reused_conf.integrate_inplace(v_reused, 0.01)
        fresh_conf.integrate_inplace(v_fresh, 0.01)
    assert len(fresh_conf.plans) == 1
