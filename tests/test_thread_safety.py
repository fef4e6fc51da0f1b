"""Several threads at once: every public entry point gives, on each thread, the answer it
gives alone.

`solve_posture` keeps per-model state between calls (a work configuration, the single-pose
loop's Pinocchio ``Data`` and target); it is per thread, so two threads solving on the same
model never write each other's kinematics. `solve_ik` keeps its state on the
configuration (``configuration.plans``), so threads on different configurations share
nothing. Tasks and limits are objects the caller owns: one thread at a time per object.

The tests force a thread switch every microsecond (``sys.setswitchinterval``), so that a
shared buffer would be overwritten mid-solve in almost every run; on the per-model state
shared by all threads (before the fix) the single-pose test found dozens of wrong answers
that claimed success.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.posture import context as contexts

T = TypeVar("T")


@pytest.fixture
def frequent_switches() -> Iterator[None]:
    """Threads switch every microsecond instead of every 5 ms while the test runs."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _in_threads(fn: Callable[[int], T], n: int, threads: int = 2) -> list[T]:
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(fn, range(n)))


def _reachable_poses(robot: taskik.robots.Robot, frame: str, n: int, seed: int) -> list[pin.SE3]:
    rng = np.random.default_rng(seed)
    data = robot.model.createData()
    fid = robot.model.getFrameId(frame)
    poses = []
    for _ in range(n):
        pin.forwardKinematics(robot.model, data, robot.random_configuration(rng))
        poses.append(pin.SE3(pin.updateFramePlacement(robot.model, data, fid)))
    return poses


def _pose_error(robot: taskik.robots.Robot, frame: str, q: np.ndarray, target: pin.SE3) -> float:
    """E = ½‖log6(T⁻¹T*)‖² by a forward-kinematics pass on a fresh ``Data``."""
    data = robot.model.createData()
    pin.forwardKinematics(robot.model, data, q)
    M = pin.updateFramePlacement(robot.model, data, robot.model.getFrameId(frame))
    e = pin.log6(M.actInv(target)).vector
    return 0.5 * float(e @ e)


@pytest.mark.parametrize("given", ["model", "configuration"])
def test_solve_posture_single_pose_in_two_threads(ur5, frequent_switches, given):
    """UR5 pose IK (the single-pose loop) on one model from two threads: every answer is
    the one-thread answer, bit for bit, and every success is a success by an independent
    forward-kinematics check."""
    targets = _reachable_poses(ur5, "tool0", 300, seed=5)

    def solve(i: int) -> taskik.PostureResult:
        task = taskik.FrameTask("tool0")
        task.set_target(targets[i])
        start = ur5.model if given == "model" else ur5.configuration()
        return taskik.solve_posture(start, [task], rng=i)

    alone = [solve(i) for i in range(len(targets))]
    threaded = _in_threads(solve, len(targets))
    wrong = [
        i
        for i, r in enumerate(threaded)
        if r.success and _pose_error(ur5, "tool0", r.q, targets[i]) > 1e-5
    ]
    assert wrong == [], f"{len(wrong)} threaded answers claim success but miss the target"
    assert all(a.success for a in alone)
    for a, b in zip(alone, threaded, strict=True):
        np.testing.assert_array_equal(a.q, b.q)
        assert (a.success, a.iterations, a.searches) == (b.success, b.iterations, b.searches)


def test_solve_posture_general_loop_in_two_threads(ur5, frequent_switches):
    """The general loop (a frame task with a posture regularization, on the work
    configuration) from two threads gives the one-thread answers."""
    targets = _reachable_poses(ur5, "tool0", 40, seed=6)

    def solve(i: int) -> taskik.PostureResult:
        task = taskik.FrameTask("tool0")
        task.set_target(targets[i])
        posture = taskik.PostureTask(cost=1e-3)
        posture.set_target(ur5.q0)
        return taskik.solve_posture(ur5.model, [task, posture], rng=i)

    alone = [solve(i) for i in range(len(targets))]
    threaded = _in_threads(solve, len(targets))
    assert sum(a.success for a in alone) >= 35
    for i, (a, b) in enumerate(zip(alone, threaded, strict=True)):
        np.testing.assert_array_equal(a.q, b.q)
        assert a.success == b.success
        if b.success:
            assert _pose_error(ur5, "tool0", b.q, targets[i]) < 1e-5


@pytest.mark.parametrize(
    "variant", ["qp", "quadprog", "levels", "dls"], ids=lambda v: f"solve_ik-{v}"
)
def test_solve_ik_on_different_configurations_in_two_threads(panda, frequent_switches, variant):
    """A closed loop of solve_ik per thread (its own configuration and tasks): the same
    steps as alone, for the default QP (DAQP workspace kept on the configuration's plan),
    a qpsolvers solver, priority levels (the hierarchy's plan) and an unconstrained backend."""
    targets = _reachable_poses(panda, "panda_hand", 8, seed=7)

    def loop(i: int) -> np.ndarray:
        conf = panda.configuration()
        task = taskik.FrameTask("panda_hand", position_cost=1.0, orientation_cost=0.5)
        task.set_target(targets[i])
        posture = taskik.PostureTask(cost=1e-2)
        posture.set_target(panda.q0)
        limits = [
            taskik.ConfigurationLimit(panda.model),
            taskik.VelocityLimit(panda.model),
        ]
        path = []
        for _ in range(30):
            if variant == "qp":
                v = taskik.solve_ik(conf, [task], 0.01, limits)
            elif variant == "quadprog":
                v = taskik.solve_ik(conf, [task, posture], 0.01, limits, solver="quadprog")
            elif variant == "levels":
                v = taskik.solve_ik(conf, [[task], [posture]], 0.01, limits)
            else:
                v = taskik.solve_ik(conf, [task, posture], 0.01, [], backend="dls")
            conf.integrate_inplace(v, 0.01)
            path.append(conf.q.copy())
        return np.array(path)

    alone = [loop(i) for i in range(len(targets))]
    threaded = _in_threads(loop, len(targets))
    for a, b in zip(alone, threaded, strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.abs(np.diff(a, axis=0)).max() > 0.0  # the loops moved


def test_seed_memory_is_built_once_whatever_the_threads(ur5):
    """Threads that ask at once for a frame's seed memory get the same object."""
    contexts.CONTEXTS.clear()
    fid = ur5.model.getFrameId("tool0")
    memories = _in_threads(lambda _: contexts.context(ur5.model).memory(fid), 4, threads=4)
    assert all(m is memories[0] for m in memories)


def test_each_thread_has_its_own_work_state(ur5):
    """Per thread: its own work configuration and single-pose loop; shared: the limits."""
    fid = ur5.model.getFrameId("tool0")

    def state(_: int) -> tuple[object, object, object]:
        ctx = contexts.context(ur5.model)
        return ctx.conf, ctx.fast_pose(fid, "log6"), ctx.limits

    other: list[tuple[object, object, object]] = []
    worker = threading.Thread(target=lambda: other.append(state(0)))
    worker.start()
    worker.join()
    (c1, f1, l1), (c2, f2, l2) = state(0), other[0]
    assert c1 is not c2 and f1 is not f2
    assert f1.data is not f2.data
    assert l1 is l2
    assert state(0)[0] is c1  # kept between calls of one thread
