"""A task list built anew every step (script style) against a reused one, taskik and pink.

The step benchmark's scenes (UR5, Talos; ``step_vs_pink.robot_scenario``), moving q as in
that benchmark: before each timed call, ``conf.update(q_k)`` untimed. Timed:

- reused: ``solve_ik(conf, tasks, dt, limits=limits, solver="daqp")`` with tasks built once;
- fresh: every call builds new task objects and a new list, as a script or a retargeting
  loop naturally writes it (``FrameTask(frame, costs)`` + ``set_target(T)`` per frame,
  ``ComTask(1.0)`` + ``set_target(c)``, ``PostureTask(cost)`` + ``set_target(q_start)``), then
  solves; the limit objects are built once and reused in both (the targets are the same
  objects, so both solve the same QP: checked);
- construction alone: the fresh list built without solving (where a fresh step's extra goes).

taskik with its defaults; pink (``safety_break=False``) the same two ways for reference.
Prints median / p95 µs, fresh/reused per library (target for taskik: <= 1.15x) and
pink/taskik; writes benchmarks/results/fresh_tasks.txt.

``--instructions update|reused|fresh|construction --robots R --steps N``: N calls of one
contender (each after ``conf.update(q_k)``; ``update`` is that alone) with callgrind's
instrumentation on for them only; run under
``valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=F`` and read the
instructions with ``callgrind_annotate F | grep TOTALS`` (repeatable whatever the load). A
step's instructions are the contender's minus ``update``'s.
"""

from __future__ import annotations

import argparse
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import interleaved_steps, moving_path, publish, stats  # noqa: E402
from step_vs_pink import (  # noqa: E402
    DT,
    build_pink,
    build_taskik,
    robot_scenario,
    scene_tasks,
    targets,
)

import taskik  # noqa: E402

try:
    import pink
    import pink.tasks
except ImportError as exc:  # pragma: no cover - benchmark dependency
    sys.exit(f"missing benchmark dependency ({exc}); run `make bench`")


def fresh_taskik(frames, goals, com, q0, with_com, posture_cost) -> list:
    return scene_tasks(taskik, frames, goals, com, q0, with_com, posture_cost)


def fresh_pink(frames, goals, com, q0, with_com, posture_cost) -> list:
    return scene_tasks(pink.tasks, frames, goals, com, q0, with_com, posture_cost)


def run(name: str, calls: int):
    robot, q0, frames, with_com, posture_cost = robot_scenario(name)
    model = robot.model
    path = moving_path(model, q0, max(calls, 400))
    m = len(path)
    goals, com = targets(model, q0, frames)
    args = (frames, goals, com, q0, with_com, posture_cost)
    tconf, ttasks, tlimits = build_taskik(model, q0, frames, with_com, posture_cost)
    fconf, _, flimits = build_taskik(model, q0, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_pink(model, q0, frames, with_com, posture_cost)
    gconf, _, glimits = build_pink(model, q0, frames, with_com, posture_cost)

    def setter(conf):
        return lambda k: conf.update(path[k % m])

    def taskik_reused():
        return taskik.solve_ik(tconf, ttasks, DT, limits=tlimits, solver="daqp")

    def taskik_fresh():
        return taskik.solve_ik(fconf, fresh_taskik(*args), DT, limits=flimits, solver="daqp")

    def pink_reused():
        return pink.solve_ik(pconf, ptasks, DT, solver="daqp", limits=plimits, safety_break=False)

    def pink_fresh():
        tasks = fresh_pink(*args)
        return pink.solve_ik(gconf, tasks, DT, solver="daqp", limits=glimits, safety_break=False)

    agree = 0.0
    for k in range(0, m, max(1, m // 20)):
        tconf.update(path[k])
        fconf.update(path[k])
        agree = max(agree, float(np.abs(taskik_reused() - taskik_fresh()).max()))

    contenders = {
        "taskik reused": (setter(tconf), taskik_reused),
        "taskik fresh": (setter(fconf), taskik_fresh),
        "pink reused": (setter(pconf), pink_reused),
        "pink fresh": (setter(gconf), pink_fresh),
        "taskik construction": (None, lambda: fresh_taskik(*args)),
        "pink construction": (None, lambda: fresh_pink(*args)),
    }
    res = interleaved_steps(contenders, calls)
    return model.nv, {k: stats(v) for k, v in res.items()}, agree


def instructions(mode: str, name: str, steps: int) -> None:
    """``steps`` calls of ``mode`` after 50 untimed ones, with callgrind's instrumentation on
    for those calls only (see the module docstring)."""
    import os
    import subprocess

    robot, q0, frames, with_com, posture_cost = robot_scenario(name)
    model = robot.model
    path = moving_path(model, q0, 400)
    goals, com = targets(model, q0, frames)
    args = (frames, goals, com, q0, with_com, posture_cost)
    conf, tasks, limits = build_taskik(model, q0, frames, with_com, posture_cost)

    def call(k: int) -> None:
        conf.update(path[k % len(path)])
        if mode == "reused":
            taskik.solve_ik(conf, tasks, DT, limits=limits, solver="daqp")
        elif mode == "fresh":
            taskik.solve_ik(conf, fresh_taskik(*args), DT, limits=limits, solver="daqp")
        elif mode == "construction":
            fresh_taskik(*args)

    def toggle(state: str) -> None:
        command = ["callgrind_control", "-i", state, str(os.getpid())]
        subprocess.run(command, check=False, capture_output=True)

    for k in range(50):
        call(k)
    toggle("on")
    for k in range(50, 50 + steps):
        call(k)
    toggle("off")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 calls")
    parser.add_argument("--robots", nargs="+", default=["ur5", "talos"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/fresh_tasks.txt"))
    parser.add_argument(
        "--instructions",
        choices=["update", "reused", "fresh", "construction"],
        help="N calls (--steps) of one contender under callgrind's instrumentation",
    )
    parser.add_argument("--steps", type=int, default=200, help="calls for --instructions")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.instructions, args.robots[0], args.steps)
        return
    calls = 200 if args.quick else args.calls
    lines = [
        "one solve_ik step with the task list built anew each call ('fresh': new FrameTask / "
        "ComTask / PostureTask objects,",
        "set_target, new list) vs built once ('reused'); limits built once; DAQP, dt = 0.01 s; "
        "moving q as in the step benchmark (conf.update(q_k) untimed)",
        "'construction' = building the fresh list alone; taskik with its defaults, pink with "
        "safety_break=False",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"pink {version('pin-pink')}, daqp {version('daqp')}, "
        f"{calls} timed calls per contender, interleaved in 5 rounds",
        f"{'robot':<7}{'nv':>4}  {'variant':<22}{'median µs':>11}{'p95 µs':>10}"
        f"{'x / reused':>12}{'pink / x':>10}",
    ]
    summary = []
    for name in args.robots:
        print(f"timing {name} ...", file=sys.stderr)
        nv, med, agree = run(name, calls)
        for key, (mm, p95) in med.items():
            lib = key.split()[0]
            own = med[f"{lib} reused"][0]
            other = med[f"pink {key.split()[1]}"][0] / mm if lib == "taskik" else np.nan
            cell = f"{other:>9.2f}x" if np.isfinite(other) else ""
            lines.append(
                f"{name:<7}{nv:>4}  {key:<22}{mm:>11.1f}{p95:>10.1f}{mm / own:>11.2f}x{cell}"
            )
        lines.append(
            f"{name:<7}{nv:>4}  max|v_fresh - v_reused| (taskik, 20 path points): {agree:.1e}"
        )
        ratio = med["taskik fresh"][0] / med["taskik reused"][0]
        summary.append(f"{name} {ratio:.2f}x")
    lines.append("taskik fresh / reused, median (target <= 1.15x): " + ", ".join(summary))
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
