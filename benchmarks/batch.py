"""Batch pose IK: one process vs taskik.batch.solve_poses on every core (issue 13).

UR5, ``--n`` (10,000) random reachable targets of ``tool0`` (the pose at a uniform random
configuration), default options of solve_posture. Rows:

- loop: ``solve_posture`` in one process (problem i seeded as in the batch);
- solve_poses local, all cores: one call, start-up (fork) included; best of ``--repeats``;
- multiprocessing.Pool(cores): the obvious baseline, chunks of 256 mapped on a fork pool,
  warm (pool made and used once beforehand) and with its start-up;
- engine overhead per chunk: the same job with chunks of 1 and of 250 problems,
  (t₁ − t₂₅₀) / (chunks₁ − chunks₂₅₀), locally and on Ray (``ray.init`` on this machine,
  when Ray is installed; ``--no-ray`` to skip).

Every batch row is checked equal, bit for bit, to the loop. The machine may be shared:
run it on a quiet machine, and read the load average printed with the table. The CPU
columns do not depend on the load: CPU seconds of the caller and its worker processes, and
the loop's CPU over it (the share of the batch's CPU that is solving; the speed-up on P
idle cores is at most P times it, less the start-up).

    python benchmarks/batch.py [--n 10000] [--repeats 3] [--no-ray]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
from pathlib import Path

import numpy as np
import pinocchio as pin
from _timing import publish

import taskik
from taskik.batch import problem_seed, solve_poses
from taskik.batch.local import cpu_count

ROBOT = taskik.robots.load("ur5")
FRAME = "tool0"
RESULTS = Path(__file__).parent / "results" / "batch.txt"


def targets(n: int, seed: int = 13) -> np.ndarray:
    rng = np.random.default_rng(seed)
    model = ROBOT.model
    data = model.createData()
    fid = model.getFrameId(FRAME)
    out = np.empty((n, 4, 4))
    for k in range(n):
        pin.forwardKinematics(model, data, ROBOT.random_configuration(rng))
        out[k] = pin.updateFramePlacement(model, data, fid).homogeneous
    return out


_T: np.ndarray = np.empty((0, 4, 4))  # the targets, inherited by the Pool's forked workers


def loop_range(bounds: tuple[int, int]) -> np.ndarray:
    """The loop over problems ``[start, stop)`` of ``_T``: their q."""
    start, stop = bounds
    task = taskik.FrameTask(FRAME)
    out = np.empty((stop - start, ROBOT.model.nq))
    for k, i in enumerate(range(start, stop)):
        task.set_target(_T[i])
        out[k] = taskik.solve_posture(ROBOT.model, [task], rng=problem_seed(0, i)).q
    return out


CPU: dict[str, float] = {}  # CPU seconds (this process + its reaped children) of the best run


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def best(fn, repeats: int, name: str = "") -> tuple[float, object]:
    """Best wall time of ``repeats`` runs (and its CPU time into ``CPU[name]``)."""
    times, value = [], None
    for _ in range(repeats):
        c0, t0 = _cpu(), time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
        if name and times[-1] == min(times):
            CPU[name] = _cpu() - c0
    return min(times), value


def main() -> None:
    global _T
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    n, cores = args.n, cpu_count()
    _T = targets(n)
    loop_range((0, 1))  # the seed memory, built once (as every batch call does first)
    rows: list[tuple[str, float, str]] = []

    t_loop, q_loop = best(lambda: loop_range((0, n)), args.repeats, "loop")
    rows.append(("loop of solve_posture, 1 process", t_loop, "loop"))

    def batch(**kw):
        r = solve_poses(ROBOT, FRAME, _T, **kw)
        assert np.array_equal(r.q, q_loop), "batch differs from the loop"
        return r

    t1, _ = best(lambda: batch(workers=1), args.repeats, "w1")
    rows.append(("solve_poses, workers=1 (in process)", t1, "w1"))
    tb, rb = best(lambda: batch(workers=cores), args.repeats, "local")
    rows.append((f"solve_poses, local, {cores} workers (fork included)", tb, "local"))

    bounds = [(s, min(s + 256, n)) for s in range(0, n, 256)]
    ctx = mp.get_context("fork")

    def pool_cold():
        with ctx.Pool(cores) as pool:
            return np.concatenate(pool.map(loop_range, bounds, chunksize=1))

    t_cold, q = best(pool_cold, args.repeats, "pool")
    assert np.array_equal(q, q_loop)
    with ctx.Pool(cores) as pool:
        pool.map(loop_range, bounds[: 2 * cores], chunksize=1)
        t_warm, q = best(
            lambda: np.concatenate(pool.map(loop_range, bounds, chunksize=1)), args.repeats
        )
    assert np.array_equal(q, q_loop)
    rows.append((f"multiprocessing.Pool({cores}), with start-up", t_cold, "pool"))
    rows.append((f"multiprocessing.Pool({cores}), warm", t_warm, ""))

    m = min(n, 2000)

    def overhead(**kw) -> float:
        ta, _ = best(lambda: solve_poses(ROBOT, FRAME, _T[:m], chunk_size=1, **kw), 2)
        tb_, _ = best(lambda: solve_poses(ROBOT, FRAME, _T[:m], chunk_size=250, **kw), 2)
        return (ta - tb_) / ((m - 1) - -(-(m - 1) // 250))

    notes = [f"local engine overhead per chunk: {overhead(workers=cores) * 1e6:.0f} µs"]
    if not args.no_ray:
        try:
            import ray

            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            t0 = time.perf_counter()
            ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
            notes.append(f"ray.init (local, {cores} CPUs): {time.perf_counter() - t0:.1f} s")
            batch(engine="ray")  # workers start, fetch the model, build the seed memory
            tr, _ = best(lambda: batch(engine="ray"), args.repeats)
            rows.append((f"solve_poses, Ray on this machine ({cores} CPUs, warm)", tr, ""))
            notes.append(f"Ray engine overhead per chunk: {overhead(engine='ray') * 1e6:.0f} µs")
            ray.shutdown()
        except ImportError:
            notes.append("Ray not installed: no Ray rows")

    load = os.getloadavg()
    lines = [
        f"Batch pose IK, UR5 '{FRAME}', {n} random reachable targets, {cores} cores "
        f"(best of {args.repeats}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})",
        "",
        f"{'':52s} {'time (s)':>9s} {'solves/s':>10s} {'vs loop':>8s} {'CPU (s)':>8s} "
        f"{'loop CPU / CPU':>14s}",
    ]
    for name, t, key in rows:
        cpu = CPU.get(key)
        extra = f" {cpu:8.3f} {CPU['loop'] / cpu:13.1%}" if cpu else ""
        lines.append(f"{name:52s} {t:9.3f} {n / t:10,.0f} {t_loop / t:7.2f}×{extra}")
    lines += ["", *notes, f"all batch rows equal the loop bit for bit ({rb.success.mean():.1%} "
              "solved)"]  # fmt: skip
    publish("\n".join(lines), RESULTS)


if __name__ == "__main__":
    main()
