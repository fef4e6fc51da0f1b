"""Humanoid posture generation: squat a little, keep the feet, reach forward with both hands.

A floating-base humanoid (Talos when example-robot-data is installed, ``pip install
'taskik[robots]'``; G1 with ``--robot g1``; the bundled humanoid otherwise) keeps both soles
where they are, lowers its centre of mass by 5 cm while keeping it over the middle of the
feet, and brings both hands 20 cm forward. A low-cost posture task picks one posture among
the many that satisfy the rest. The model's joint limits apply at every step. At the end the
per-task report shows what was reached, and a plot of the errors is written to
$TASKIK_OUTPUT (default: a ``taskik-examples`` folder in the system's temp directory).

    python examples/humanoid_posture.py [--robot talos|g1|humanoid]   # TASKIK_SMOKE=1: short
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np

import taskik
from taskik.plots import Recorder

DT = 0.01
STEPS = 40 if os.environ.get("TASKIK_SMOKE") == "1" else 500
OUTPUT = Path(os.environ.get("TASKIK_OUTPUT", Path(tempfile.gettempdir()) / "taskik-examples"))


def default_robot() -> str:
    return "talos" if "talos" in taskik.robots.list() else "humanoid"


def main(robot_name: str | None = None) -> dict[str, float | str]:
    """Runs the example on a robot; returns the final |e| of each task and the joint margin."""
    name = robot_name or default_robot()
    robot = taskik.robots.load(name)
    conf = robot.configuration()
    # feet then hands (bundled humanoid, and taskik.robots.END_EFFECTORS for Talos and G1)
    left_foot, right_foot, left_hand, right_hand = robot.end_effectors
    print(f"{name}: nq = {robot.model.nq}, nv = {robot.model.nv}, {STEPS} steps of {DT} s")

    feet = [
        taskik.FrameTask(f, position_cost=10.0, orientation_cost=10.0)
        for f in (left_foot, right_foot)
    ]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    middle = 0.5 * (
        conf.get_transform_frame_to_world(left_foot).translation
        + conf.get_transform_frame_to_world(right_foot).translation
    )
    com = taskik.ComTask(cost=5.0)
    com.set_target(np.array([middle[0], middle[1], conf.com[2] - 0.05]))
    hands = []
    for frame in (left_hand, right_hand):
        hand = taskik.PositionTask(frame, cost=1.0, lm_damping=1.0)
        hand.set_target(conf.get_transform_frame_to_world(frame).translation + [0.2, 0.0, 0.0])
        hands.append(hand)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    tasks = [*feet, com, *hands, posture]

    recorder = Recorder(tasks)
    for k in range(STEPS):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT), DT)
        recorder.record((k + 1) * DT, conf)
    v = taskik.solve_ik(conf, tasks, DT)
    print(taskik.report(conf, tasks, DT, v))
    print(f"centre of mass: {np.round(conf.com, 3)} (target {np.round(com.target, 3)})")
    path = recorder.plot_task_errors(OUTPUT / f"{name}_posture_errors.png", title=name)
    print(f"plot: {path}")
    lower, upper = robot.model.lowerPositionLimit[7:], robot.model.upperPositionLimit[7:]
    names = ("left foot", "right foot", "com", "left hand", "right hand", "posture")
    return {
        "robot": name,
        **{
            n: float(np.linalg.norm(t.compute_error(conf)))
            for n, t in zip(names, tasks, strict=True)
        },
        "joint_margin": float(np.minimum(conf.q[7:] - lower, upper - conf.q[7:]).min()),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--robot", choices=("talos", "g1", "humanoid"), help="default: talos if installed"
    )
    main(parser.parse_args().robot)
