"""The step's shortcuts give what the general paths give: the inline q check of
``Configuration.update``, the one-frame look-up of a repeated task list, the adaptive loop's
open-loop step, the value memo of ``as_se3`` and the list test of the Cholesky shortcut."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.backends.qp import DaqpWorkspace
from taskik.exceptions import InvalidConfiguration, InvalidInput
from taskik.problem import get_assembler
from taskik.tasks._frames import as_se3
from taskik.trust_region import AdaptiveDamping


def _tasks(conf: taskik.Configuration) -> list[taskik.Task]:
    frame = taskik.FrameTask("tool0", 1.0, 1.0)
    goal = conf.get_transform_frame_to_world("tool0")
    goal.translation = goal.translation + np.array([0.05, -0.05, 0.04])
    frame.set_target(goal)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(conf.q.copy())
    return [frame, posture]


def test_update_copies_q_and_refuses_what_check_q_refuses(ur5, humanoid) -> None:
    conf = taskik.Configuration(ur5.model, ur5.q0)
    q = np.array(ur5.q0, dtype=float) + 0.1
    conf.update(q)
    q[0] += 1.0  # (the configuration holds a copy)
    assert conf.q[0] == pytest.approx(ur5.q0[0] + 0.1, abs=1e-12)
    placement = conf.data.oMf[conf.get_frame_id("tool0")]
    data = ur5.model.createData()
    pin.framesForwardKinematics(ur5.model, data, conf.q)
    assert np.allclose(placement.homogeneous, data.oMf[conf.get_frame_id("tool0")].homogeneous)
    for bad in (np.full(6, np.nan), np.array([0.0, 0.0, 0.0, 0.0, 0.0, np.inf])):
        with pytest.raises(InvalidConfiguration):
            conf.update(bad)
    with pytest.raises(InvalidConfiguration):
        conf.update(np.zeros(7))
    conf.update(np.zeros(12)[::2])  # (a strided view: checked, then copied contiguous)
    assert conf.q.flags.c_contiguous and not conf.q.any()
    h = taskik.Configuration(humanoid.model, humanoid.q0)
    q = np.array(humanoid.q0, dtype=float)
    q[3:7] *= 1.5  # (the base's quaternion no longer unit-norm)
    with pytest.raises(InvalidConfiguration, match="quaternion"):
        h.update(q)


def test_repeated_list_finds_its_plan_and_an_edited_list_another(ur5) -> None:
    conf = taskik.Configuration(ur5.model, ur5.q0)
    tasks = _tasks(conf)
    limits = [taskik.ConfigurationLimit(ur5.model), taskik.VelocityLimit(ur5.model)]
    first = get_assembler(conf, tasks, limits)
    assert get_assembler(conf, list(tasks), list(limits)) is first
    assert conf.plans.last_step(tasks, None) is None  # (other limits)
    tasks.append(taskik.DampingTask(1e-3))  # (edited in place: another structure)
    assert get_assembler(conf, tasks, limits) is not first
    assert conf.plans.last_step(tasks[:2], limits) is None


def test_open_loop_start_leaves_the_state_begin_and_skip_leave(ur5) -> None:
    conf = taskik.Configuration(ur5.model, ur5.q0)
    tasks = _tasks(conf)
    asm = get_assembler(conf, tasks, [])
    fast, slow = AdaptiveDamping([slice(0, len(asm.c))]), AdaptiveDamping([slice(0, len(asm.c))])
    rng = np.random.default_rng(3)
    for k in range(6):
        conf.update(np.array(ur5.q0, dtype=float) + 0.05 * rng.standard_normal(6))
        needs = fast.start(conf, asm)
        slow.begin(conf, asm)
        assert needs == slow.needs_errors()
        if not needs:
            slow.skip(asm)
        asm.assemble(conf, 0.01, 1e-12)
        v = rng.standard_normal(6)
        for control in (fast, slow):
            control.record(conf, asm, None, v, 0.01)
        if k == 3:  # (a history to forget: the fast path must not take this step)
            fast.nu = slow.nu = 4.0
        for name in AdaptiveDamping.__slots__:
            a, b = getattr(fast, name), getattr(slow, name)
            same = (
                np.array_equal(a, b)
                if isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
                else a == b
            )
            assert same, name


def test_as_se3_keeps_refusing_after_a_pose_passed() -> None:
    good = pin.SE3(pin.exp3(np.array([0.1, -0.2, 0.3])), np.array([0.4, 0.1, 0.5]))
    assert as_se3(good) == good and as_se3(good) is not good
    assert as_se3(good.copy()) == good  # (the same values again)
    skewed = good.copy()
    rotation = skewed.rotation.copy()
    rotation[0, 0] += 1e-3
    skewed.rotation = rotation
    with pytest.raises(InvalidInput, match="rotation"):
        as_se3(skewed)
    broken = pin.SE3(good.rotation, np.array([np.nan, 0.0, 0.0]))
    for _ in range(2):
        with pytest.raises(InvalidInput):
            as_se3(broken)
    mirrored = pin.SE3(-good.rotation, good.translation)  # (det = -1)
    with pytest.raises(InvalidInput):
        as_se3(mirrored)


def test_cholesky_shortcut_box_test_on_lists() -> None:
    P = np.diag([2.0, 4.0, 1.0])
    r = np.array([-2.0, 4.0, -0.5])  # unconstrained minimiser (1, -1, 0.5)
    inside = DaqpWorkspace().solve_box(P, r, np.full(3, -2.0), np.full(3, 2.0))
    assert inside is not None and np.allclose(inside, [1.0, -1.0, 0.5], atol=1e-12)
    lower, upper = np.array([-2.0, -0.5, -2.0]), np.array([0.8, 2.0, 2.0])
    clipped = DaqpWorkspace().solve_box(P, r, lower, upper)
    assert clipped is not None and np.allclose(clipped, [0.8, -0.5, 0.5], atol=1e-9)
    assert (clipped >= lower).all() and (clipped <= upper).all()
