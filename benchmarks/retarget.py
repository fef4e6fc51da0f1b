"""Retargeting speed and accuracy: frames per second on one core against QP steps per frame.

The shipped clip (Talos squatting, waving, lifting a foot; 17 keypoints, 30 fps) played
forward and backward ``--repeat`` times (a continuous clip of ~1,200 frames) is retargeted
onto G1 (17 keypoint tasks: 13 position, 4 pose; nq = 36), the bundled humanoid (12 tasks;
nq = 35) and Talos itself (17 tasks, identity mapping: the answer is Talos's own motion, so
its error measures convergence alone). One process, one thread: frames/s is per core, the
best of ``--trials`` runs (other processes share this machine: the best run is the one least
disturbed). Per-frame keypoint error: mean and worst over the frames and keypoints (m).

Run: ``python benchmarks/retarget.py [--repeat 5] [--trials 3] [--steps 1 2 3 5]``.
Writes the table to stdout and to benchmarks/results/retarget.txt (full runs only).

``--many N``: instead, N clips (the long clip's forward/backward variants, each starting at
a different frame) retargeted by :func:`taskik.retarget.retarget_many` with one worker, then
with every core: clips/s and frames/s of wall time, everything included (worker start-up,
reading the clips, writing the results). Written to benchmarks/results/retarget_many.txt.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.batch.local import cpu_count
from taskik.retarget import (
    Clip,
    load_clip,
    load_mapping,
    retarget,
    retarget_many,
    sample_clip_path,
    sample_mapping_path,
    save_clip,
)

ROBOTS = ("g1", "humanoid", "talos")
RESULTS = Path(__file__).resolve().parent / "results" / "retarget.txt"
RESULTS_MANY = RESULTS.with_name("retarget_many.txt")


def long_clip(repeat: int) -> tuple[Clip, np.ndarray]:
    """The sample clip forward, backward, forward, ... (no jump at the joins), with Talos's
    joint trajectory played the same way."""
    clip = load_clip(sample_clip_path())
    source = np.load(sample_clip_path())["source_q"]
    order = np.concatenate(
        [np.arange(clip.n_frames)[:: 1 if k % 2 == 0 else -1] for k in range(repeat)]
    )
    return (
        Clip(
            clip.names,
            clip.positions[order],
            clip.fps,
            {k: v[order] for k, v in clip.orientations.items()},
            {k: v[order] for k, v in clip.contacts.items()},
            f"{clip.source} (x{repeat})",
        ),
        source[order],
    )


def measure(robot_name: str, clip: Clip, source: np.ndarray, steps: int, trials: int) -> dict:
    robot = taskik.robots.load(robot_name)
    mapping = load_mapping(sample_mapping_path(robot_name))
    runs = [retarget(robot, clip, mapping, steps=steps) for _ in range(trials)]
    best = min(runs, key=lambda r: r.solve_time)
    row = {
        "robot": robot_name,
        "tasks": len(mapping.tasks),
        "steps": steps,
        "fps": best.frames_per_second,
        "mean": float(best.position_errors.mean()),
        "max": float(best.position_errors.max()),
        "q": float("nan"),
    }
    if robot_name == "talos":
        model = robot.model
        diff = [pin.difference(model, a, b)[:20] for a, b in zip(source, best.q, strict=True)]
        row["q"] = float(np.abs(diff).max())  # base, legs and torso (observable joints)
    return row


def measure_many(robot_name: str, count: int, repeat: int, steps: int, trials: int) -> list[str]:
    """``count`` clips through retarget_many on 1 worker and on every core; table lines."""
    clip, _ = long_clip(repeat)
    cores = cpu_count()
    lines = [
        f"retarget_many: {count} clips of {clip.n_frames} frames onto {robot_name}, {steps} "
        f"steps/frame, wall time of the whole call, best of {trials}; "
        f"{platform.processor() or platform.machine()}, {cores} cores "
        "(shared with other work: figures are lower bounds); load average before: "
        + " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "CPU s: of this process and its workers (when other work holds a core, the wall time "
        "cannot drop while the CPU time shows no overhead of the parallel run)",
        f"{'workers':>8}{'wall s':>9}{'clips/s':>9}{'frames/s':>10}{'speed-up':>10}"
        f"{'CPU s':>8}{'frames/CPU s':>14}",
    ]
    print("\n".join(lines), flush=True)
    robot = taskik.robots.load(robot_name)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = []
        for k in range(count):
            shift = (7 * k) % clip.n_frames  # each clip starts elsewhere in the motion
            order = np.roll(np.arange(clip.n_frames), -shift)
            variant = Clip(
                clip.names,
                clip.positions[order],
                clip.fps,
                {n: v[order] for n, v in clip.orientations.items()},
                {n: v[order] for n, v in clip.contacts.items()},
            )
            paths.append(save_clip(variant, folder / f"clip_{k:03d}.npz"))
        base = None
        for workers in sorted({1, cores}):
            walls, cpus = [], []
            for trial in range(trials):
                out = folder / f"out_{workers}_{trial}"
                c0 = os.times()
                t0 = time.perf_counter()
                batch = retarget_many(
                    robot, paths, sample_mapping_path(robot_name), out, workers=workers, steps=steps
                )
                walls.append(time.perf_counter() - t0)
                c1 = os.times()
                cpus.append(sum(c1[:4]) - sum(c0[:4]))  # user + system, self + children
                assert batch.frames == count * clip.n_frames
            wall, cpu = min(walls), cpus[walls.index(min(walls))]
            base = base or wall
            frames = count * clip.n_frames
            line = (
                f"{workers:>8}{wall:>9.2f}{count / wall:>9.1f}{frames / wall:>10,.0f}"
                f"{base / wall:>9.2f}x{cpu:>8.2f}{frames / cpu:>14,.0f}"
            )
            lines.append(line)
            print(line, flush=True)
    return lines


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    smoke = bool(os.environ.get("TASKIK_SMOKE"))
    p.add_argument("--repeat", type=int, default=1 if smoke else 10)
    p.add_argument("--trials", type=int, default=1 if smoke else 3)
    p.add_argument("--steps", type=int, nargs="+", default=[2] if smoke else [1, 2, 3, 5])
    p.add_argument("--robots", nargs="+", default=list(ROBOTS))
    p.add_argument("--many", type=int, default=0, help="clips for retarget_many (0: off)")
    args = p.parse_args(argv)
    if args.many:
        lines = measure_many(args.robots[0], args.many, args.repeat, args.steps[0], args.trials)
        if not smoke and argv is None:
            RESULTS_MANY.parent.mkdir(exist_ok=True)
            RESULTS_MANY.write_text("\n".join(lines) + "\n")
        return []
    clip, source = long_clip(args.repeat)
    lines = [
        f"retargeting {clip.n_frames} frames ({clip.n_frames / clip.fps:.0f} s at "
        f"{clip.fps:g} fps), one process, best of {args.trials}; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs "
        "(shared with other work: figures are lower bounds)",
        f"{'robot':<9}{'tasks':>6}{'steps':>6}{'frames/s':>10}{'mean err':>10}{'max err':>10}"
        f"{'|Δq| talos':>12}",
    ]
    print("\n".join(lines), flush=True)
    rows = []
    for robot_name in args.robots:
        for steps in args.steps:
            row = measure(robot_name, clip, source, steps, args.trials)
            rows.append(row)
            line = (
                f"{row['robot']:<9}{row['tasks']:>6}{row['steps']:>6}{row['fps']:>10,.0f}"
                f"{row['mean'] * 1e3:>8.1f}mm{row['max'] * 1e3:>8.1f}mm"
                + (f"{row['q']:>10.4f}rd" if robot_name == "talos" else f"{'':>12}")
            )
            lines.append(line)
            print(line, flush=True)
    if not smoke and argv is None:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text("\n".join(lines) + "\n")
    return rows


if __name__ == "__main__":
    main()
