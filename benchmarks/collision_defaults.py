"""How CollisionLimit's defaults were chosen: the damper speed ξ and the detection distance
d_i swept over the scenes of examples/collision_avoidance.py (Panda reaching behind a box,
the humanoid's hand to its hip) and 20 seeded Panda episodes with a random ball and target.

Per setting: the closest distance reached (mm, over every episode), the mean number of steps
to reach the target to 1 mm (episodes that reach it), how many episodes reach it, and the
chatter Σ‖v_k − v_{k−1}‖ per step (rad/s). Not timings: the figures do not depend on the
machine. Writes benchmarks/results/collision_defaults.txt.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402

import taskik  # noqa: E402
from taskik import geometry  # noqa: E402

DT = 0.01
STEPS = 600


def panda_scene(rng: np.random.Generator | None):
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    if rng is None:  # the example's scene: a box on a table, the target behind it
        table = geometry.halfspace("table", [0.0, 0.0, 1.0], hand.translation[2] - 0.45)
        box = geometry.box("box", [0.08, 0.3, 0.25], hand.translation + [0.15, 0.0, -0.33])
        obstacles, goal = [table, box], np.array([0.3, 0.0, -0.2])
    else:
        ball = geometry.sphere("ball", rng.uniform(0.03, 0.12), hand.translation)
        ball.move_to(hand.translation + rng.uniform(-0.3, 0.3, 3))
        obstacles, goal = [ball], rng.uniform(-0.4, 0.4, 3)
    task = taskik.FrameTask("panda_hand", 1.0, 0.1)
    target = hand.copy()
    target.translation = hand.translation + goal
    task.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    return robot, conf, obstacles, [task, posture], "panda_hand", target.translation


def humanoid_scene(_rng):
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = [taskik.FrameTask(foot, 1.0, 1.0) for foot in robot.end_effectors[:2]]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    hand = taskik.PositionTask("rarm_effector_body", 1.0)
    target = conf.get_transform_frame_to_world("lleg_shoulder1_body").translation + [0.3, 0, 0]
    hand.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    return robot, conf, [], [*feet, hand, posture], "rarm_effector_body", target


def episode(scene, rng, **options):
    robot, conf, obstacles, tasks, frame, target = scene(rng)
    limit = taskik.CollisionLimit(robot, obstacles=obstacles, **options)
    if limit.clearance(conf) < 0:  # a random ball on the arm: not this benchmark's case
        return None
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    low, reached, chatter, previous = np.inf, None, 0.0, None
    for k in range(STEPS):
        v = taskik.solve_ik(conf, tasks, DT, limits)
        if previous is not None:
            chatter += float(np.linalg.norm(v - previous))
        previous = v
        conf.integrate_inplace(v, DT)
        low = min(low, limit.clearance(conf) + limit.safety_distance)
        miss = conf.get_transform_frame_to_world(frame).translation - target
        if reached is None and np.linalg.norm(miss) < 1e-3:
            reached = k + 1
    return low, reached, chatter / STEPS


def main() -> None:
    settings = [
        {"speed": s, "detection_distance": d}
        for d in (0.03, 0.05, 0.1)
        for s in (0.25, 0.5, 1.0, 2.0)
    ]
    lines = [
        "CollisionLimit defaults: ξ (speed) and d_i swept; d_s = 0.01 m, buffer 2 mm",
        f"{'ξ m/s':>6s} {'d_i m':>6s} {'closest mm':>11s} {'reached':>8s} {'mean steps':>11s} "
        f"{'chatter':>8s}",
    ]
    for options in settings:
        results = [episode(panda_scene, None, **options), episode(humanoid_scene, None, **options)]
        rng = np.random.default_rng(0)
        results += [episode(panda_scene, rng, **options) for _ in range(20)]
        results = [r for r in results if r is not None]
        low = min(r[0] for r in results)
        reached = [r[1] for r in results if r[1] is not None]
        chatter = float(np.mean([r[2] for r in results]))
        lines.append(
            f"{options['speed']:6.2f} {options['detection_distance']:6.2f} {low * 1e3:11.2f} "
            f"{len(reached):4d}/{len(results):<3d} {np.mean(reached):11.1f} {chatter:8.3f}"
        )
    publish("\n".join(lines), Path(__file__).parent / "results" / "collision_defaults.txt")


if __name__ == "__main__":
    main()
