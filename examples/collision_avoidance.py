"""Collision avoidance in three scenes, each run with and without the collision limit.

1. The Panda reaches a target behind a box standing on a table (a half-space).
2. The humanoid brings its right hand across its body to its left hip, feet held.
3. A ball moving at 0.2 m/s pushes the UR5's tool out of its way.

For each scene it prints the closest distance reached between any monitored pair (self
pairs and obstacles) with ``CollisionLimit`` and without it, and what the task achieved.

    python examples/collision_avoidance.py          # TASKIK_SMOKE=1: shorter runs
"""

from __future__ import annotations

import os

import numpy as np

import taskik
from taskik import geometry

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"
DT = 0.01


def loop(conf, tasks, limits, watch, steps, before_step=None):
    """Run the closed loop; the closest distance over the watched pairs (m)."""
    low = np.inf
    for k in range(steps):
        if before_step is not None:
            before_step(k)
        v = taskik.solve_ik(conf, tasks, DT, limits)
        conf.integrate_inplace(v, DT)
        low = min(low, watch.clearance(conf) + watch.safety_distance)
    return low


def panda_behind_a_box(with_limit: bool) -> tuple[float, float]:
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    table_top = hand.translation[2] - 0.45
    table = geometry.halfspace("table", [0.0, 0.0, 1.0], table_top)
    box = geometry.box("box", [0.08, 0.3, 0.25], hand.translation + [0.15, 0.0, -0.33])
    collisions = taskik.CollisionLimit(robot, obstacles=[table, box])
    task = taskik.FrameTask("panda_hand", 1.0, 0.1)
    target = hand.copy()
    target.translation = hand.translation + [0.3, 0.0, -0.2]  # behind the box, low
    task.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    limits += [collisions] if with_limit else []
    low = loop(conf, [task, posture], limits, collisions, 600)
    miss = conf.get_transform_frame_to_world("panda_hand").translation - target.translation
    return low, float(np.linalg.norm(miss))


def humanoid_hand_to_hip(with_limit: bool) -> tuple[float, float]:
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    collisions = taskik.CollisionLimit(robot)  # self-collision, default pairs
    feet = [taskik.FrameTask(foot, 1.0, 1.0) for foot in robot.end_effectors[:2]]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    hand = taskik.PositionTask("rarm_effector_body", 1.0)
    hip = conf.get_transform_frame_to_world("lleg_shoulder1_body").translation
    target = hip + [0.3, 0.0, 0.0]  # in front of the left hip
    hand.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    limits += [collisions] if with_limit else []
    low = loop(conf, [*feet, hand, posture], limits, collisions, 200 if SMOKE else 400)
    miss = conf.get_transform_frame_to_world("rarm_effector_body").translation - target
    return low, float(np.linalg.norm(miss))


def ball_pushes_the_arm(with_limit: bool) -> tuple[float, float]:
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation.copy()
    start = tool + [0.0, 0.3, 0.0]
    ball = geometry.sphere("ball", 0.08, start)
    collisions = taskik.CollisionLimit(robot, obstacles=[ball])
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    limits += [collisions] if with_limit else []

    def move(k: int) -> None:  # 0.2 m/s toward the tool, ending where the tool started
        ball.move_to(start - [0.0, min(0.2 * DT * (k + 1), 0.3), 0.0])

    low = loop(conf, [posture], limits, collisions, 300, move)
    pushed = conf.get_transform_frame_to_world("tool0").translation - tool
    return low, float(np.linalg.norm(pushed))


def main() -> dict[str, tuple[float, float]]:
    scenes = {
        "panda behind a box (closest mm, miss m)": panda_behind_a_box,
        "humanoid hand to hip (closest mm, miss m)": humanoid_hand_to_hip,
        "ball pushes the UR5 (closest mm, tool moved m)": ball_pushes_the_arm,
    }
    out = {}
    for name, scene in scenes.items():
        with_limit, without = scene(True), scene(False)
        out[name] = with_limit
        print(name)
        print(f"  with CollisionLimit: {with_limit[0] * 1e3:7.1f} mm, {with_limit[1]:.3f} m")
        print(f"  without:             {without[0] * 1e3:7.1f} mm, {without[1]:.3f} m")
    return out


if __name__ == "__main__":
    main()
