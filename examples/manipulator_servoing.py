"""Manipulator servoing with joint limits: the UR5 and the Panda track tool poses.

Each arm's tool frame goes through a sequence of target poses, one QP step per 10 ms
control period, with the model's joint position limits (Kanoun's geometric approach) and
velocity limits. The Panda's last target turns the hand 3 rad about its axis, more than its
last joint can turn within its ±2.8973 rad range: joint 7 comes to rest on its limit without
crossing it, and the other joints make up the rest of the rotation.

Plots of the task errors and of the joint positions against their limits are written as PNG
to $TASKIK_OUTPUT (default: a ``taskik-examples`` folder in the system's temp directory).

    python examples/manipulator_servoing.py       # TASKIK_SMOKE=1 for a short run
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.plots import Recorder

DT = 0.01  # s
SMOKE = os.environ.get("TASKIK_SMOKE") == "1"
STEPS_PER_TARGET = 30 if SMOKE else 250
OUTPUT = Path(os.environ.get("TASKIK_OUTPUT", Path(tempfile.gettempdir()) / "taskik-examples"))

# (translation offset from the start pose in m, rotation vector in rad), per robot
TARGETS = {
    "ur5": [([0.15, 0.10, -0.10], [0.0, 0.0, 0.6]), ([-0.10, 0.25, 0.10], [0.4, 0.0, 0.0])],
    "panda": [([0.10, 0.15, 0.05], [0.0, 0.3, 0.0]), ([0.0, 0.0, 0.0], [0.0, 0.0, 3.0])],
}


def servo(name: str) -> list[tuple[float, float]]:
    """Returns (|e|, distance of the closest joint to its limit) after each target."""
    robot = taskik.robots.load(name)
    conf = robot.configuration()
    frame = robot.end_effectors[0]
    tool = taskik.FrameTask(frame, position_cost=1.0, orientation_cost=0.5, gain=0.5)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    tasks = [tool, posture]
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    recorder = Recorder(tasks)
    start = conf.get_transform_frame_to_world(frame)
    lower, upper = robot.model.lowerPositionLimit, robot.model.upperPositionLimit
    print(f"{name}: tool frame {frame}, {len(TARGETS[name])} targets, dt = {DT * 1000:.0f} ms")
    t = 0.0
    results = []
    for k, (offset, rotation) in enumerate(TARGETS[name], 1):
        tool.set_target(
            pin.SE3(start.rotation @ pin.exp3(np.array(rotation)), start.translation + offset)
        )
        for _ in range(STEPS_PER_TARGET):
            v = taskik.solve_ik(conf, tasks, DT, limits=limits)
            conf.integrate_inplace(v, DT)
            t += DT
            recorder.record(t, conf)
        assert (conf.q >= lower - 1e-9).all() and (conf.q <= upper + 1e-9).all()
        margin = np.minimum(conf.q - lower, upper - conf.q)
        joint = int(np.argmin(margin))
        error = np.linalg.norm(tool.compute_error(conf))
        results.append((float(error), float(margin[joint])))
        print(
            f"  target {k}: |e| = {error:.1e} after {STEPS_PER_TARGET} steps; closest to a"
            f" limit: {robot.model.names[joint + 1]} ({margin[joint]:.4f} rad away)"
        )
    errors = recorder.plot_task_errors(OUTPUT / f"{name}_servoing_errors.png", title=name)
    joints = recorder.plot_joints(OUTPUT / f"{name}_servoing_joints.png", title=name)
    print(f"  plots: {errors}\n         {joints}")
    return results


def main() -> dict[str, list[tuple[float, float]]]:
    """Servos both arms; returns each one's (|e|, limit margin) after each target."""
    return {name: servo(name) for name in ("ur5", "panda")}


if __name__ == "__main__":
    main()
