"""The step holds BLAS to one thread when its product is large enough for the thread pool,
and gives every library its thread count back (taskik.backends.blas_threads)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.backends import blas_threads
from taskik.problem import get_assembler


class FakeBlas:
    """A BLAS library's thread control that records what it is set to."""

    def __init__(self, threads: int) -> None:
        self.num_threads = threads
        self.log: list[int] = []

    def set_num_threads(self, n: int) -> None:
        self.log.append(n)
        self.num_threads = n


def chain(n: int) -> pin.Model:
    model = pin.Model()
    parent = 0
    for i in range(n):
        joint = pin.JointModelRZ() if i % 2 == 0 else pin.JointModelRY()
        offset = pin.SE3(np.eye(3), np.array([0.1 if i else 0.0, 0.0, 0.0]))
        parent = model.addJoint(
            parent, joint, offset, f"j{i}", np.array([100.0]), np.array([2.0]),
            np.array([-2.5]), np.array([2.5]),
        )  # fmt: skip
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    model.addFrame(pin.Frame("tip", parent, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    return model


def scene(n: int, posture_first: bool):
    model = chain(n)
    q = 0.3 * np.sin(np.arange(n) * 0.7) + 0.05
    conf = taskik.Configuration(model, q)
    frame = taskik.FrameTask("tip", 1.0, 1.0)
    target = conf.get_transform_frame_to_world("tip")
    frame.set_target(pin.SE3(target.rotation, target.translation + np.array([0.01, 0.0, 0.0])))
    posture = taskik.PostureTask(1e-3)
    posture.set_target(q)
    tasks = [posture, frame] if posture_first else [frame, posture]
    return conf, tasks


@pytest.fixture
def fakes(monkeypatch):
    libs = [FakeBlas(4), FakeBlas(1)]
    monkeypatch.setattr(blas_threads, "_controllers", libs)
    return libs


def test_hold_sets_one_thread_and_release_restores_each_count(fakes):
    held = blas_threads.hold()
    assert [lib.num_threads for lib in fakes] == [1, 1]
    blas_threads.release(held)
    assert [lib.num_threads for lib in fakes] == [4, 1]
    assert fakes[1].log == []  # (a library already at one thread is left alone)


def test_a_large_dense_product_holds_blas_during_the_step_only(fakes):
    conf, tasks = scene(80, posture_first=True)  # 86 dense rows x 80² > THREADED_WORK
    v = taskik.solve_ik(conf, tasks, 0.01, adaptive=False)
    asm = get_assembler(conf, tasks, None)
    assert asm.dense_work >= blas_threads.THREADED_WORK and asm.blas_heavy
    assert fakes[0].log == [1, 4] and fakes[0].num_threads == 4
    # the same step without the hold: the same velocity (one thread changes no answer)
    asm.blas_heavy = False
    w = taskik.solve_ik(conf, tasks, 0.01, adaptive=False)
    assert fakes[0].log == [1, 4]
    assert np.abs(v - w).max() <= 1e-9 * max(1.0, float(np.abs(v).max()))


def test_a_small_product_leaves_blas_alone(fakes):
    conf, tasks = scene(80, posture_first=False)  # posture on P's diagonal: 6 dense rows
    taskik.solve_ik(conf, tasks, 0.01)
    assert not get_assembler(conf, tasks, None).blas_heavy
    assert fakes[0].log == []


def test_wide_unconstrained_and_hierarchy_steps_hold_and_restore(fakes):
    conf, tasks = scene(70, posture_first=False)  # 70³ > THREADED_WORK
    taskik.solve_ik(conf, tasks, 0.01, limits=[], backend="dls")
    taskik.solve_ik(conf, [[tasks[0]], [tasks[1]]], 0.01)
    assert fakes[0].log == [1, 4, 1, 4] and fakes[0].num_threads == 4


def test_the_count_is_restored_when_the_step_raises(fakes):
    conf, tasks = scene(80, posture_first=True)
    taskik.solve_ik(conf, tasks, 0.01)
    fakes[0].log.clear()
    with pytest.raises(taskik.InvalidInput):
        taskik.solve_ik(conf, tasks, 0.01, solver="daqp", no_such_option=1.0)
    assert fakes[0].log == [1, 4] and fakes[0].num_threads == 4


def test_real_blas_keeps_its_thread_count():
    import threadpoolctl  # a dependency of taskik

    blas = threadpoolctl.ThreadpoolController().select(user_api="blas")
    before = [lib.num_threads for lib in blas.lib_controllers]
    conf, tasks = scene(80, posture_first=True)
    taskik.solve_ik(conf, tasks, 0.01)
    assert get_assembler(conf, tasks, None).blas_heavy
    assert [lib.num_threads for lib in blas.lib_controllers] == before
