"""The plan cache: a task list built anew at every step finds the plan of the last one and
gives the same steps as a list built once."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from recipes import FEET, humanoid_com

import taskik
from taskik.problem import get_assembler


def ur5_tasks(conf, target, cost=1.0, posture_cost=1e-3, q_ref=None):
    hand = taskik.FrameTask("tool0", cost, 1.0)
    hand.set_target(target)
    posture = taskik.PostureTask(posture_cost)
    posture.set_target(conf.q.copy() if q_ref is None else q_ref)
    return [hand, posture]


def test_a_list_built_anew_each_step_steps_like_a_reused_list(ur5):
    """A closed loop (adaptive damping on) with a fresh list every step gives the reused
    list's steps to rounding, through one plan."""
    reused_conf, fresh_conf = ur5.configuration(), ur5.configuration()
    target = reused_conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array([0.3, -0.2, 0.1])
    q_ref = reused_conf.q.copy()
    reused = ur5_tasks(reused_conf, target, q_ref=q_ref)
    for _ in range(60):
        v_reused = taskik.solve_ik(reused_conf, reused, 0.01)
        v_fresh = taskik.solve_ik(fresh_conf, ur5_tasks(fresh_conf, target, q_ref=q_ref), 0.01)
        assert np.allclose(v_fresh, v_reused, rtol=0, atol=1e-12)
        reused_conf.integrate_inplace(v_reused, 0.01)
        fresh_conf.integrate_inplace(v_fresh, 0.01)
    assert len(fresh_conf.plans) == 1


def test_new_weights_and_targets_of_a_fresh_list_are_used(ur5):
    """The plan found for a fresh list reads its tasks' own costs, gains and targets: each
    step equals the step of a configuration that never saw another list."""
    conf = ur5.configuration()
    base = conf.get_transform_frame_to_world("tool0")
    for k, (cost, posture_cost, gain) in enumerate(
        [(1.0, 1e-3, 1.0), (5.0, 1e-3, 1.0), (5.0, 0.5, 0.3), (0.2, 0.5, 0.3)]
    ):
        target = pin.SE3(base)
        target.translation = target.translation + np.array([0.1 * k, -0.05, 0.02])
        tasks = ur5_tasks(conf, target, cost, posture_cost, ur5.q0 + 0.1)
        tasks[0].gain = gain
        v = taskik.solve_ik(conf, tasks, 0.01, adaptive=False)
        alone = ur5.configuration()
        v_alone = taskik.solve_ik(alone, tasks, 0.01, adaptive=False)
        assert np.allclose(v, v_alone, rtol=0, atol=1e-12), k
    assert len(conf.plans) == 1


def test_tasks_of_another_structure_or_kind_get_their_own_plan(ur5):
    conf = ur5.configuration()
    target = conf.get_transform_frame_to_world("tool0")
    get_assembler(conf, ur5_tasks(conf, target), None)
    elbow = taskik.PositionTask("wrist_1_link")
    elbow.set_target(np.zeros(3))
    get_assembler(conf, [elbow, *ur5_tasks(conf, target)[1:]], None)
    assert len(conf.plans) == 2  # another frame: another plan

    class MyPosture(taskik.PostureTask):
        pass

    mine = MyPosture(1e-3)
    assert mine.plan_key() == id(mine)  # a subclass may change the rows: keyed by identity
    mine.set_target(conf.q.copy())
    get_assembler(conf, [ur5_tasks(conf, target)[0], mine], None)
    assert len(conf.plans) == 3
    assert taskik.FrameTask("tool0").plan_key() == taskik.FrameTask("tool0", 5.0).plan_key()
    assert taskik.FrameTask("tool0").plan_key() != taskik.FrameTask("wrist_1_link").plan_key()
    assert (
        taskik.PostureTask(1.0).plan_key() != taskik.PostureTask(1.0, include_base=True).plan_key()
    )
    assert taskik.ComTask().plan_key() == taskik.ComTask(2.0).plan_key()
    assert taskik.DampingTask().plan_key() == taskik.DampingTask(0.1).plan_key()


@pytest.mark.parametrize("levels", [False, True])
def test_fresh_lists_come_to_rest_like_reused_ones(humanoid, levels):
    """The humanoid CoM recipe that cycles with the plain step comes to rest with a list built
    anew each step, weighted or with priorities (the adaptive damping sees that targets
    equal in value have not moved)."""
    conf, feet, com, posture = humanoid_com(humanoid)
    com_target, feet_targets = com.target.copy(), [f.target for f in feet]
    q_ref = posture.target.copy()

    def tasks():
        fresh_feet = []
        for name, target in zip(FEET, feet_targets, strict=True):
            foot = taskik.FrameTask(name, 1.0, 1.0)
            foot.set_target(target)
            fresh_feet.append(foot)
        fresh_com = taskik.ComTask(1.0)
        fresh_com.set_target(com_target)
        fresh_posture = taskik.PostureTask(1e-3)
        fresh_posture.set_target(q_ref)
        if levels:
            return [fresh_feet, [fresh_com], [fresh_posture]]
        return [*fresh_feet, fresh_com, fresh_posture]

    for _ in range(1500):
        v = taskik.solve_ik(conf, tasks(), 0.01, limits=[])
        conf.integrate_inplace(v, 0.01)
    assert np.linalg.norm(v) < 1e-3
    assert np.linalg.norm(conf.com - com_target) < 1e-4
    assert len(conf.plans) == 1


def test_a_new_list_of_the_same_tasks_reuses_the_plan_and_a_bad_item_is_named(ur5):
    """A new list (or new levels) holding the tasks of the last call is the last call's plan;
    an item that is not a task, where a task was, gets the library's error (the comparison
    with the last list is by identity: ``==`` on an array would raise numpy's)."""
    conf = ur5.configuration()
    target = conf.get_transform_frame_to_world("tool0")
    tasks = ur5_tasks(conf, target)
    first = taskik.solve_ik(conf, tasks, 0.01)
    plan = conf.plans._last["step"][2]
    assert np.array_equal(taskik.solve_ik(conf, list(tasks), 0.01), first)
    assert conf.plans._last["step"][2] is plan
    taskik.solve_ik(conf, [[tasks[0]], [tasks[1]]], 0.01)
    levels = conf.plans._last["levels"][2]
    taskik.solve_ik(conf, [[tasks[0]], [tasks[1]]], 0.01)
    assert conf.plans._last["levels"][2] is levels
    for bad in ([tasks[0], np.ones(3)], [[tasks[0]], [np.ones(3)]]):
        with pytest.raises(taskik.InvalidInput, match="Task objects, got ndarray"):
            taskik.solve_ik(conf, bad, 0.01)


def test_tasks_of_a_fresh_list_take_the_resolved_frames_and_layouts(ur5, monkeypatch):
    """A fresh list bound to the last list's plan resolves no frame name and works out no
    posture layout again (they come from the tasks it replaces), and steps as before; a
    posture whose costs do not fit the layout is still named at the step."""
    from taskik.tasks import posture as posture_module

    conf = ur5.configuration()
    target = conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array([0.1, -0.1, 0.05])
    v_first = taskik.solve_ik(conf, ur5_tasks(conf, target), 0.01, adaptive=False)
    looked_up = []
    lookup, layout = taskik.Configuration.get_frame_id, posture_module._layout
    monkeypatch.setattr(
        taskik.Configuration,
        "get_frame_id",
        lambda self, name: looked_up.append(name) or lookup(self, name),
    )
    monkeypatch.setattr(
        posture_module, "_layout", lambda *a: looked_up.append("layout") or layout(*a)
    )
    fresh = ur5_tasks(conf, target)
    v_fresh = taskik.solve_ik(conf, fresh, 0.01, adaptive=False)
    assert looked_up == []
    assert np.allclose(v_fresh, v_first, rtol=0, atol=1e-12)
    assert fresh[0]._frame.id(conf) == conf.model.getFrameId("tool0")
    misfit = ur5_tasks(conf, target)
    misfit[1] = taskik.PostureTask(np.ones(3))
    misfit[1].set_target(conf.q)
    with pytest.raises(taskik.InvalidInput, match="shape"):
        taskik.solve_ik(conf, misfit, 0.01, adaptive=False)
