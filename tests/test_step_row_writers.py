"""The step's rows written in place (ComTask.write_rows, the posture's error into the
assembler's rows, the warm DAQP box solve called from the step) give what the generic path
gives: the rows of compute_error_and_jacobian, the same step."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

import taskik
from taskik import ComTask, Configuration, FrameTask, PostureTask


class _PlainCom(ComTask):
    """A subclass: the assembler takes the generic path (compute_error_and_jacobian)."""


def _scene(robot, com_type):
    model = robot.model
    q = pin.neutral(model)
    conf = Configuration(model, q)
    frame = model.frames[-1].name
    hand = FrameTask(frame, 1.0, 1.0)
    target = conf.get_transform_frame_to_world(frame)
    target.translation = target.translation + np.array([0.03, -0.02, 0.04])
    hand.set_target(target)
    com = com_type(cost=2.0)
    com.set_target(conf.com + np.array([0.01, 0.0, -0.01]))
    posture = PostureTask(cost=1e-2)
    posture.set_target(q)
    return conf, [hand, com, posture]


def test_com_task_writes_the_rows_of_compute_error_and_jacobian(humanoid, rng):
    conf = Configuration(humanoid.model)
    task = ComTask()
    task.set_target(conf.com + np.array([0.05, -0.02, 0.01]))
    for _ in range(3):
        q = pin.randomConfiguration(
            humanoid.model, -np.ones(humanoid.model.nq), np.ones(humanoid.model.nq)
        )
        conf.update(q)
        e, J = task.compute_error_and_jacobian(conf)
        e_out, J_out = np.full(3, np.nan), np.full((3, conf.nv), np.nan)
        task.write_rows(conf, J_out, e_out)
        assert np.abs(e_out - e).max() <= 1e-15 and np.abs(J_out - J).max() <= 1e-15


def test_a_closed_loop_with_rows_written_in_place_steps_as_the_generic_path(humanoid):
    """The same loop with an exact ComTask (rows written in place) and with a subclass
    (generic path): the same velocities, to rounding, over 60 steps."""
    runs = []
    for com_type in (ComTask, _PlainCom):
        conf, tasks = _scene(humanoid, com_type)
        vs = []
        for _ in range(60):
            v = taskik.solve_ik(conf, tasks, 0.01)
            vs.append(v.copy())
            conf.integrate_inplace(v, 0.01)
        runs.append(np.array(vs))
    assert np.abs(runs[0] - runs[1]).max() <= 1e-9
    assert np.abs(runs[0]).max() > 1e-3  # (the loop moved: the comparison is not of zeros)
