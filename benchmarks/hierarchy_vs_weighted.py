"""Priorities vs weights, speed: a three-level prioritized humanoid step vs the same tasks weighted
in one level.

Levels: [[both soles, CoM], [both grippers (hands)], [posture]] on Talos (example-robot-data,
nv = 38) when installed, else on the bundled humanoid (nv = 34). The weighted step solves
the same tasks with the same costs in one QP. Both use the model's position and velocity
limits and DAQP, and are timed in the same process with interleaved rounds (median and
p95 µs over the calls, after warm-up); the figure of merit is hierarchy / weighted.

Three situations: the first step from the reference posture (targets 10 cm away, no limit
active), a closed loop (step + integrate, restarted every 100 steps), and a step where
a velocity limit binds at every level (the QP cascade proper). Writes
benchmarks/results/hierarchy_vs_weighted.txt.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import closed_loop, interleaved, publish, stats  # noqa: E402

import taskik  # noqa: E402
from taskik.hierarchy import hierarchy_report  # noqa: E402

DT = 0.01


def robot_and_frames():
    """(robot, feet frames, hand frames): Talos if example-robot-data is there."""
    if "talos" in taskik.robots.list():
        robot = taskik.robots.load("talos")
        return (
            robot,
            ("left_sole_link", "right_sole_link"),
            ("gripper_left_base_link", "gripper_right_base_link"),
        )
    robot = taskik.robots.load("humanoid")
    return (
        robot,
        ("lleg_effector_body", "rleg_effector_body"),
        ("larm_effector_body", "rarm_effector_body"),
    )


def build(robot, feet, hands, hand_shift, com_shift):
    """Tasks at the reference posture: feet held, CoM and hands moved by the shifts (m)."""
    conf = robot.configuration()
    feet_tasks = []
    for frame in feet:
        t = taskik.FrameTask(frame, 1.0, 1.0)
        t.set_target_from_configuration(conf)
        feet_tasks.append(t)
    com = taskik.ComTask(1.0)
    com.set_target(conf.com + com_shift)
    hand_tasks = []
    for frame in hands:
        t = taskik.FrameTask(frame, 1.0, 0.1)
        T = conf.get_transform_frame_to_world(frame)
        T.translation = T.translation + hand_shift
        t.set_target(T)
        hand_tasks.append(t)
    posture = taskik.PostureTask(1e-2)
    posture.set_target_from_configuration(conf)
    levels = [[*feet_tasks, com], hand_tasks, [posture]]
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    return conf, levels, limits


def run(n: int) -> tuple[list[str], str]:
    robot, feet, hands = robot_and_frames()
    lines = []
    q0 = robot.q0.copy()
    # (hand shift, CoM shift) in m; at dt = 0.01 s a 1 cm error asks for 1 m/s
    situations = {
        "small step (no limit active)": (np.array([1e-3, -1e-3, 1e-3]), np.array([5e-4, 0, 0])),
        "large step (velocity limits bind)": (
            np.array([0.06, -0.06, 0.05]),
            np.array([0.02, 0.0, -0.02]),
        ),
    }
    detail = ""
    for label, shifts in situations.items():
        conf, levels, limits = build(robot, feet, hands, *shifts)
        flat = [t for level in levels for t in level]

        def hier(conf=conf, levels=levels, limits=limits):
            return taskik.solve_ik(conf, levels, DT, limits=limits, solver="daqp")

        def weighted(conf=conf, flat=flat, limits=limits):
            return taskik.solve_ik(conf, flat, DT, limits=limits, solver="daqp")

        v = hier()
        rep = hierarchy_report(conf, levels, DT, v, limits)
        detail += f"\n{label}:\n{rep}\n"
        res = interleaved({"hierarchy": hier, "weighted": weighted}, n)
        lines.append(row(robot, label, res))

    # closed loop: step + integrate; restart from q0 every 100 steps
    shifts = situations["small step (no limit active)"]
    conf, levels, limits = build(robot, feet, hands, *shifts)
    wconf, wlevels, wlimits = build(robot, feet, hands, *shifts)
    wflat = [t for level in wlevels for t in level]
    hier_loop = closed_loop(
        conf, lambda: taskik.solve_ik(conf, levels, DT, limits=limits, solver="daqp"), q0, DT
    )
    weighted_loop = closed_loop(
        wconf, lambda: taskik.solve_ik(wconf, wflat, DT, limits=wlimits, solver="daqp"), q0, DT
    )

    res = interleaved({"hierarchy": hier_loop, "weighted": weighted_loop}, n)
    lines.append(row(robot, "closed loop (step + integrate)", res))
    return lines, detail


def row(robot, label, res) -> str:
    hm, hp = stats(res["hierarchy"])
    wm, wp = stats(res["weighted"])
    return (
        f"{robot.name:<9} {robot.model.nv:>3}  {label:<36} {hm:>8.1f} {hp:>8.1f} "
        f"{wm:>8.1f} {wp:>8.1f}   {hm / wm:>5.2f}x {hp / wp:>5.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per variant")
    parser.add_argument(
        "--out", default=str(Path(__file__).parent / "results/hierarchy_vs_weighted.txt")
    )
    args = parser.parse_args()
    lines, detail = run(args.calls)
    header = [
        "Priorities vs weights, speed: 3-level prioritized step [[soles, CoM], [grippers], "
        "[posture]] vs the same",
        "tasks weighted in one QP; position + velocity limits, DAQP, dt = 0.01 s",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, {args.calls} calls per variant, interleaved",
        f"{'robot':<9} {'nv':>3}  {'situation':<36} {'hier med':>8} {'hier p95':>8} "
        f"{'wtd med':>8} {'wtd p95':>8}   ratio med/p95 (µs; ratio = hierarchy / weighted)",
    ]
    text = "\n".join(header + lines) + "\n\nper-level report of each step:\n" + detail
    publish(text, args.out)


if __name__ == "__main__":
    main()
