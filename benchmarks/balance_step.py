"""The cost of the balance limit in one step: Talos reaching forward, both feet held.

Two scenes: a reach past what balance allows (the hand target 1.5 m ahead: the CoM rides to
the front edge of the soles and stays there, the limit's rows in every QP) and a reach
within it (0.1 m ahead and up: the CoM stays inside, the solved step checked against the
edges).
For each, a closed loop with ``BalanceLimit`` records its configurations. At each
recorded configuration the same step is then timed with and without the limit, interleaved,
so both see the same q; the ratio is reported over the steps whose QP had no balance row
(every edge farther than the checked distance, the solved step checked against them) and
over those with rows (the edges near the CoM).
Timings are ratios within one run.

    python benchmarks/balance_step.py [--steps 300] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import taskik
from taskik.contacts import both_feet

RESULTS = Path(__file__).resolve().parent / "results" / "balance_step.txt"


SCENES = (("reach past balance", [1.5, 0.0, -0.3]), ("reach within balance", [0.1, 0.0, 0.1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    lines = [f"# benchmarks/balance_step.py --steps {args.steps} --repeat {args.repeat}"]
    for scene, offset in SCENES:
        lines += scene_lines(scene, offset, args.steps, args.repeat)
    text = "\n".join(lines) + "\n"
    print(text)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(RESULTS)


def scene_lines(scene: str, offset: list[float], steps: int, repeat: int) -> list[str]:
    """The timing lines of one scene: the hand target ``offset`` (m) from where it starts."""
    robot = taskik.robots.load("talos")
    conf = robot.configuration()
    feet = both_feet(robot, conf)
    hand_frame = robot.end_effectors[3]
    hand = taskik.PositionTask(hand_frame, cost=1.0, lm_damping=1.0)
    hand.set_target(conf.get_transform_frame_to_world(hand_frame).translation + offset)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    tasks = [*(c.task(conf) for c in feet), hand, posture]
    limit = taskik.BalanceLimit(feet)
    with_limit = [*taskik.limits.default_limits(robot.model), limit]
    without = taskik.limits.default_limits(robot.model)
    qs, rows = [], []
    for _ in range(steps):
        qs.append(conf.q.copy())
        v = taskik.solve_ik(conf, tasks, 0.01, limits=with_limit)
        rows.append(bool(limit.row_names()))  # (the rows of the step's last QP)
        conf.integrate_inplace(v, 0.01)
    times = {True: np.zeros(len(qs)), False: np.zeros(len(qs))}
    a = taskik.Configuration(robot.model, qs[0])
    b = taskik.Configuration(robot.model, qs[0])
    for _ in range(repeat):
        for k, q in enumerate(qs):
            for use, c, limits in ((True, a, with_limit), (False, b, without)):
                c.update(q)
                t = time.perf_counter()
                taskik.solve_ik(c, tasks, 0.01, limits=limits)
                dt = time.perf_counter() - t
                times[use][k] = dt if not times[use][k] else min(times[use][k], dt)
    rows_arr = np.array(rows)
    lines = [f"{scene}:"]
    for label, sel in (("no balance row", ~rows_arr), ("balance rows", rows_arr)):
        if not sel.any():
            continue
        w, wo = np.median(times[True][sel]), np.median(times[False][sel])
        lines.append(
            f"  {label:<18} {int(sel.sum()):>4} steps: {1e6 * w:7.0f} us with the limit, "
            f"{1e6 * wo:7.0f} us without, ratio {w / wo:.2f}"
        )
    w, wo = np.median(times[True]), np.median(times[False])
    lines.append(f"  {'all':<18} {len(qs):>4} steps: ratio {w / wo:.2f}")
    return lines


if __name__ == "__main__":
    main()
