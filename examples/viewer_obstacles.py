"""The viewer with obstacles: drag a ball, a box or the table and watch the Panda keep clear.

Serves a page with the Panda, a table (a half-space), a box and a ball, each under a gizmo
of its own, and the hand's target behind the box. The pairs within the detection distance
are drawn as segments between their closest points, red when their row holds the step back.
With TASKIK_SMOKE=1 it serves nothing for long: it sweeps the ball through the arm for
150 steps (what a drag does), prints the closest distance reached and how often a pair was
active, and exits.

    python examples/viewer_obstacles.py [--port 8080]   # Ctrl-C to stop
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pinocchio as pin

import taskik
from taskik import geometry
from taskik.viewer import Viewer

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"


def build(port: int) -> tuple[Viewer, taskik.CollisionLimit]:
    """The Panda viewer with a table, a box and a ball watched by a CollisionLimit."""
    robot = taskik.robots.load("panda")
    hand = robot.configuration().get_transform_frame_to_world("panda_hand")
    table = geometry.halfspace("table", [0.0, 0.0, 1.0], hand.translation[2] - 0.45)
    box = geometry.box("box", [0.08, 0.3, 0.25], hand.translation + [0.15, 0.0, -0.33])
    ball = geometry.sphere("ball", 0.06, hand.translation + [0.0, 0.35, 0.0])
    collisions = taskik.CollisionLimit(robot, obstacles=[table, box, ball])
    limits = [*taskik.limits.default_limits(robot.model), collisions]
    viewer = Viewer(robot, port=port, limits=limits, dt=0.02)
    target = pin.SE3(hand.rotation, hand.translation + [0.3, 0.0, -0.2])  # behind the box
    viewer.set_target("panda_hand", target)
    return viewer, collisions


def sweep(viewer: Viewer, collisions: taskik.CollisionLimit, steps: int) -> dict[str, float]:
    """Move the ball across the arm (what dragging its gizmo does) while the IK runs."""
    start = next(o for o in collisions.obstacles if o.name == "ball").pose.translation.copy()
    closest, active_steps, most = np.inf, 0, 0
    for k in range(steps):
        offset = np.array([0.0, -0.7 * min(1.0, k / (0.8 * steps)), 0.0])  # 0.7 m sideways
        viewer.move_obstacle("ball", pin.SE3(np.eye(3), start + offset))
        viewer.step()
        closest = min(closest, collisions.clearance(viewer.configuration))
        active_steps += any(pair.active for pair in viewer.near)
        most = max(most, len(viewer.collisions.segments))
    hand = viewer.configuration.get_transform_frame_to_world("panda_hand").translation
    miss = hand - viewer.frame_tasks[0].target.translation
    return {
        "steps": steps,
        "closest_mm": 1e3 * (closest + collisions.safety_distance),
        "safety_mm": 1e3 * collisions.safety_distance,
        "active_steps": active_steps,
        "segments_max": most,
        "target_miss_mm": 1e3 * float(np.linalg.norm(miss)),
    }


def main(port: int = 8080) -> dict[str, float] | None:
    if not SMOKE:
        viewer, _ = build(port)
        print(f"taskik viewer: {viewer.url}  (drag the ball, the box or the table; Ctrl-C)")
        viewer.serve_forever()
        return None
    viewer, collisions = build(0)
    try:
        result = sweep(viewer, collisions, 150)
    finally:
        viewer.stop()
    print(
        f"ball swept through the arm in {result['steps']} steps: closest distance "
        f"{result['closest_mm']:.1f} mm (safety {result['safety_mm']:.0f} mm), a pair active "
        f"in {result['active_steps']} steps, up to {result['segments_max']} segments drawn; "
        f"hand {result['target_miss_mm']:.0f} mm from its target behind the box"
    )
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080)
    main(parser.parse_args().port)
