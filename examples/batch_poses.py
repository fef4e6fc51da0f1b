"""Many pose-IK problems at once: a reachability map of the UR5 with taskik.batch.

The tool pointing straight down, at every point of a 3-D grid around the robot: which points
can it reach? One call of ``taskik.batch.solve_poses`` solves them all on every core of this
machine; the answers are those of a loop of ``solve_posture`` (bit for bit), the result is
written to ``$TASKIK_OUTPUT/ur5_reach.npz`` as the chunks finish (run it again: it resumes,
or reads the finished file back). The same call on a Ray cluster: ``--ray [ADDRESS]``.

    python examples/batch_poses.py [--ray [auto | ray://host:10001]]   # TASKIK_SMOKE=1: short
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.batch import solve_poses

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"
OUTPUT = Path(os.environ.get("TASKIK_OUTPUT") or Path(tempfile.gettempdir(), "taskik-examples"))


def grid_targets(step: float) -> tuple[np.ndarray, np.ndarray]:
    """Poses with the tool's z axis pointing down, at grid points of the cube ±1 m
    (z from −0.4 to 1.2 m): ``(targets (N, 4, 4), points (N, 3))``."""
    xs = np.arange(-1.0, 1.0 + 1e-9, step)
    zs = np.arange(-0.4, 1.2 + 1e-9, step)
    points = np.array([(x, y, z) for x in xs for y in xs for z in zs])
    down = pin.utils.rotate("x", np.pi)  # tool z axis along world −z
    targets = np.tile(np.eye(4), (len(points), 1, 1))
    targets[:, :3, :3] = down
    targets[:, :3, 3] = points
    return targets, points


def main(engine: str = "local", address: str | None = None) -> dict:
    robot = taskik.robots.load("ur5")
    targets, points = grid_targets(0.25 if SMOKE else 0.1)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    result = solve_poses(
        robot, "tool0", targets, engine=engine, address=address,
        output=OUTPUT / f"ur5_reach_{len(targets)}.npz", progress=not SMOKE,
        max_searches=20,  # an unreachable point costs 20 searches, not 100
    )  # fmt: skip
    print(result)
    reach = np.linalg.norm(points[:, :2], axis=1)
    print(f"reachable: {result.success.mean():.1%} of {len(points)} grid points")
    for r0, r1 in ((0.0, 0.3), (0.3, 0.6), (0.6, 0.9), (0.9, 1.5)):
        ring = (reach >= r0) & (reach < r1)
        if ring.any():
            share = result.success[ring].mean()
            print(f"  {r0:.1f} m ≤ horizontal distance < {r1:.1f} m: {share:.0%}")
    # an independent check of one solved pose: forward kinematics on a fresh Data
    i = int(np.flatnonzero(result.success)[0])
    data = robot.model.createData()
    pin.forwardKinematics(robot.model, data, result.q[i])
    reached = pin.updateFramePlacement(robot.model, data, robot.model.getFrameId("tool0"))
    error = float(np.linalg.norm(pin.log6(reached.actInv(pin.SE3(targets[i]))).vector))
    print(f"pose error of point {i} by forward kinematics: {error:.1e}")
    return {"result": result, "points": points, "targets": targets, "check_error": error}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="run on Ray")
    args = parser.parse_args()
    if args.ray is None:
        main()
    else:
        main("ray", args.ray or None)
