"""Strict priorities on a floating-base humanoid: feet and CoM, then a hand, then posture.

Three levels, highest first: both feet stay where they are and the centre of mass moves
3 cm forward (level 0), the left hand reaches a point (level 1), the posture is regularised
(level 2). Joint position and velocity limits hold at every level.

Then the hand target is moved out of reach (seed 001's "three contacts of which only two can
be made"): with priorities every step meets the feet and the CoM exactly (what remains is the
second-order drift of the lower levels' motion, corrected at the next step) and the hand gets
as close as they allow; weighted in one level, every task gives way and none is met.

Run: ``python examples/prioritized_humanoid.py``
"""

from __future__ import annotations

import numpy as np

import taskik
from taskik.hierarchy import hierarchy_report

DT = 0.02


def make_levels(conf: taskik.Configuration, robot, hand_target):
    feet = []
    for frame in ("lleg_effector_body", "rleg_effector_body"):
        task = taskik.FrameTask(frame)
        task.set_target_from_configuration(conf)
        feet.append(task)
    com = taskik.ComTask()
    com.set_target(conf.com + np.array([0.03, 0.0, 0.0]))
    # lm_damping keeps the hand's steps small when its target is out of reach
    hand = taskik.PositionTask("larm_effector_body", gain=0.5, lm_damping=1.0)
    hand.set_target(hand_target)
    posture = taskik.PostureTask(cost=1.0, gain=0.05)
    posture.set_target(robot.q0)
    return [[*feet, com], [hand], [posture]]


def errors(conf, levels) -> dict[str, float]:
    """The largest error of the feet and the CoM, and the hand's."""
    feet_com = max(np.linalg.norm(t.compute_error(conf)) for t in levels[0])
    return {
        "feet_com": float(feet_com),
        "hand": float(np.linalg.norm(levels[1][0].compute_error(conf))),
    }


def show(e: dict[str, float]) -> str:
    return f"feet/CoM max |e| = {e['feet_com']:.1e}, hand |e| = {e['hand']:.3f} m"


def run(hand_target, prioritized: bool, steps: int) -> dict[str, float]:
    """Returns the final errors (see ``errors``)."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    levels = make_levels(conf, robot, hand_target)
    tasks = levels if prioritized else [t for level in levels for t in level]
    for step in range(1, steps + 1):
        v = taskik.solve_ik(conf, tasks, DT)
        conf.integrate_inplace(v, DT)
        if prioritized and step in (1, 10, 100):
            print(f"  step {step:3d}: {show(errors(conf, levels))}")
    final = errors(conf, levels)
    print(f"  after {steps} steps: {show(final)}")
    if prioritized:
        print(hierarchy_report(conf, levels, DT, taskik.solve_ik(conf, levels, DT)))
    return final


def main() -> dict[str, dict[str, float]]:
    """The three runs; returns their final errors."""
    print("(a) reachable hand target, levels [[feet, CoM], [hand], [posture]]")
    reachable = run(np.array([0.5, 0.4, 0.9]), prioritized=True, steps=300)
    far = np.array([8.0, 0.3, 0.0])
    print("\n(b) hand target out of reach, prioritized")
    prioritized = run(far, prioritized=True, steps=300)
    print("\n(c) hand target out of reach, the same tasks weighted in one level")
    weighted = run(far, prioritized=False, steps=300)
    return {"reachable": reachable, "far_prioritized": prioritized, "far_weighted": weighted}


if __name__ == "__main__":
    main()
