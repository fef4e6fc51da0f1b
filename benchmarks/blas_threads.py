"""BLAS's thread pool and the step: OpenBLAS's default threads against one thread, with a
second process busy on another core.

One process, contenders interleaved in rounds over the same moving configurations
(``_timing.interleaved_steps``), while ``python -c 'while 1: pass'`` runs beside it:

- ``default``: ``solve_ik`` as shipped, BLAS at its default thread count (the step holds BLAS
  to one thread itself when its ``AᵀA`` is large enough to be split: ``taskik.backends.
  blas_threads``);
- ``default, no hold``: the same step with that hold switched off (the step before it);
- ``threads=1``: BLAS set to one thread for the whole run (threadpoolctl; what
  ``OPENBLAS_NUM_THREADS=1`` does for a process).

Scenes: the step benchmark's four (UR5, Panda, Talos, G1; ``step_vs_pink``), whose products are too
small for OpenBLAS to split, and a serial chain of 100 joints (``step_chains``) with its posture
task first, so that its 100 posture rows enter the dense ``AᵀA`` (106 × 100: 1.06e6
multiply-adds). The velocities of the three contenders (the plain step, ``adaptive=False``)
are compared at 20 configurations.
Needs threadpoolctl. Writes benchmarks/results/blas_threads.txt.

    python benchmarks/blas_threads.py [--calls N]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
import _timing as timing  # noqa: E402
import step_chains  # noqa: E402
from step_vs_pink import DT, build_taskik, robot_scenario  # noqa: E402

import taskik  # noqa: E402
from taskik.problem import get_assembler  # noqa: E402

try:
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover - benchmark dependency
    sys.exit("blas_threads.py needs threadpoolctl (pip install threadpoolctl)")


def b1_scene(name: str):
    robot, q0, frames, with_com, posture_cost = robot_scenario(name)
    model = robot.model
    conf, tasks, limits = build_taskik(model, q0, frames, with_com, posture_cost)
    path = timing.moving_path(model, q0, 400)

    def prepare(k: int) -> None:
        conf.update(path[k % len(path)])

    return f"{name} (nv {model.nv})", conf, tasks, limits, prepare, DT


def chain_scene(n: int):
    model = step_chains.chain(n)
    data = model.createData()
    q0 = step_chains.start_q(n, "free")
    path = timing.moving_path(model, q0, 400, amplitude=0.05)
    shift = np.array([0.003, -0.003, 0.0025])
    goals = [step_chains.nudge(step_chains.tip_pose(model, data, q), shift, 0.01) for q in path]
    (conf, (frame, posture), limits), _ = step_chains.build(model, q0)

    def prepare(k: int) -> None:
        conf.update(path[k % len(path)])
        frame.set_target(goals[k % len(path)])
        posture.set_target(path[k % len(path)])

    return f"chain nv {n}, posture first", conf, [posture, frame], limits, prepare, step_chains.DT


def run(scene, blas, calls: int) -> list[str]:
    label, conf, tasks, limits, prepare, dt = scene
    prepare(0)
    taskik.solve_ik(conf, tasks, dt, limits=limits, solver="daqp")
    asm = get_assembler(conf, tasks, limits)
    heavy = bool(asm.blas_heavy)
    threads = blas.info()[0]["num_threads"]

    def step(adaptive: bool = True):
        return taskik.solve_ik(conf, tasks, dt, limits=limits, solver="daqp", adaptive=adaptive)

    def variant(hold: bool, one: bool):  # (the plain step: no history between the calls)
        def fn():
            asm.blas_heavy = heavy and hold
            if one:
                with blas.limit(limits=1):
                    return step(False)
            return step(False)

        return fn

    # (hold, one thread): threads=1 is set around a whole timed round, not each call
    contenders = {
        "default": (True, False),
        "default, no hold": (False, False),
        "threads=1": (True, True),
    }
    worst = {"default, no hold": 0.0, "threads=1": 0.0}
    for k in range(0, 400, 20):
        prepare(k)
        v = variant(True, False)()
        for name in worst:
            prepare(k)
            worst[name] = max(worst[name], float(np.abs(variant(*contenders[name])() - v).max()))
    samples: dict[str, list[np.ndarray]] = {k: [] for k in contenders}
    per = calls // 5
    for r in range(5):
        span = range(r * per, (r + 1) * per)
        for name, (hold, one) in contenders.items():
            asm.blas_heavy = heavy and hold
            if one:
                with blas.limit(limits=1):
                    samples[name].append(timing.time_steps(prepare, step, span))
            else:
                samples[name].append(timing.time_steps(prepare, step, span))
    asm.blas_heavy = heavy
    med = {k: timing.stats(np.concatenate(v)) for k, v in samples.items()}
    one = med["threads=1"][0]
    lines = [
        f"{label}: AᵀA {asm.dense_work:.2g} multiply-adds, hold {'on' if heavy else 'off'}; "
        f"BLAS default threads {threads}; max |Δv| vs default: "
        + ", ".join(f"{k} {x:.1e}" for k, x in worst.items())
    ]
    for name, (mm, p95) in med.items():
        lines.append(f"    {name:<20}{mm:>11.1f}{p95:>11.1f}{mm / one:>13.3f}x")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per contender")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/blas_threads.txt"))
    args = parser.parse_args()
    blas = ThreadpoolController().select(user_api="blas")
    if not blas.lib_controllers:
        sys.exit("no BLAS library found by threadpoolctl")
    info = blas.info()[0]
    lines = [
        "one solve_ik step (taskik's defaults, DAQP), BLAS at its default thread count vs one "
        "thread, a second process busy on another core",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, {info['internal_api']} {info['version']} "
        f"({info.get('threading_layer', '?')}), daqp {version('daqp')}, "
        f"{args.calls} timed calls per contender, interleaved in 5 rounds",
        f"    {'contender':<20}{'median µs':>11}{'p95 µs':>11}{'x/threads=1':>14}",
    ]
    busy = subprocess.Popen([sys.executable, "-c", "while 1: pass"])
    try:
        for name in ("ur5", "panda", "talos", "g1"):
            lines += run(b1_scene(name), blas, args.calls)
        lines += run(chain_scene(100), blas, args.calls)
    finally:
        busy.kill()
        busy.wait()
    timing.publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
