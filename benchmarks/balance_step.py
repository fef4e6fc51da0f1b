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

    python benchmarks/balance_step.py [--steps 300] [--repeat 5] [--runs 1]

``--runs N`` repeats the measurement N times in the process and ends with each scene's
ratios and their median (a host slowed during a run raises that run's ratio).

``--instructions with|without --scene past|within --window A B``: the recorded steps A to B
of a scene replayed (the configuration set to each recorded q, then the step solved) with
or without the limit, after the steps before A replayed the same way (the limit's state as
in the loop), callgrind's instrumentation on for the window only; run under
``valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=F`` and read the
instructions with ``callgrind_annotate F | grep TOTALS`` (repeatable whatever the load;
``benchmarks/results/balance_instructions.txt``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

import taskik
from taskik.contacts import both_feet

RESULTS = Path(__file__).resolve().parent / "results" / "balance_step.txt"


SCENES = (("reach past balance", [1.5, 0.0, -0.3]), ("reach within balance", [0.1, 0.0, 0.1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--runs", type=int, default=1, help="the measurement N times, and the median"
    )
    parser.add_argument("--instructions", choices=["with", "without"])
    parser.add_argument("--scene", choices=["past", "within"], default="past")
    parser.add_argument("--window", type=int, nargs=2, default=[100, 300], metavar=("A", "B"))
    args = parser.parse_args()
    if args.instructions:
        offset = SCENES[0 if args.scene == "past" else 1][1]
        instructions(offset, args.steps, args.instructions == "with", *args.window)
        return
    lines = [
        f"# benchmarks/balance_step.py --steps {args.steps} --repeat {args.repeat} "
        f"--runs {args.runs}"
    ]
    ratios: dict[str, list[float]] = {name: [] for name, _ in SCENES}
    robot = taskik.robots.load("talos")
    for run in range(args.runs):
        if args.runs > 1:
            lines.append(f"run {run + 1}:")
        for name, offset in SCENES:
            scene_text, ratio = scene_lines(name, offset, args.steps, args.repeat, robot)
            lines += scene_text
            ratios[name].append(ratio)
    if args.runs > 1:  # (a run on a host slowed meanwhile shows a higher ratio: the median)
        lines.append(f"over the {args.runs} runs (ratio of each run's median step):")
        for name, values in ratios.items():
            lines.append(
                f"  {name:<22} median {np.median(values):.2f}, range "
                f"{min(values):.2f}-{max(values):.2f}: {', '.join(f'{r:.2f}' for r in values)}"
            )
    text = "\n".join(lines) + "\n"
    print(text)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(RESULTS)


def scene(offset: list[float], robot: Any = None) -> tuple[Any, ...]:
    """Talos (``robot``, loaded if None), both feet held, a hand sent ``offset`` (m) from
    where it starts: ``(robot, configuration, tasks, limit, limits with it, without)``."""
    robot = robot or taskik.robots.load("talos")
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
    return robot, conf, tasks, limit, with_limit, without


def instructions(offset: list[float], steps: int, use: bool, first: int, last: int) -> None:
    """The recorded steps ``first`` to ``last`` of the loop toward ``offset`` replayed with
    (``use``) or without the limit, under callgrind's instrumentation (see the module's
    docstring)."""
    import gc
    import os
    import subprocess

    robot, conf, tasks, limit, with_limit, without = scene(offset)
    qs = []
    for _ in range(steps):
        qs.append(conf.q.copy())
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.01, limits=with_limit), 0.01)
    # (replayed on a new scene: a new limit builds its state from the first step, as in the loop)
    _, _, tasks, _, with_limit, without = scene(offset, robot)
    limits = with_limit if use else without
    c = taskik.Configuration(robot.model, qs[0])
    for q in qs[:first]:
        c.update(q)
        taskik.solve_ik(c, tasks, 0.01, limits=limits)
    gc.collect()
    gc.freeze()  # (a collection of the whole heap inside the window would swamp the steps)

    def toggle(state: str) -> None:
        command = ["callgrind_control", "-i", state, str(os.getpid())]
        subprocess.run(command, check=False, capture_output=True)

    toggle("on")
    for q in qs[first:last]:
        c.update(q)
        taskik.solve_ik(c, tasks, 0.01, limits=limits)
    toggle("off")


def scene_lines(
    scene_name: str, offset: list[float], steps: int, repeat: int, robot: Any = None
) -> tuple[list[str], float]:
    """The timing lines of one scene (the hand target ``offset`` (m) from where it starts) and
    the ratio of its median steps with and without the limit."""
    robot, conf, tasks, limit, with_limit, without = scene(offset, robot)
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
    lines = [f"{scene_name}:"]
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
    return lines, float(w / wo)


if __name__ == "__main__":
    main()
