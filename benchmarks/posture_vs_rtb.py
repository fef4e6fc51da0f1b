"""solve_posture against roboticstoolbox-python's ik_LM on the same UR5 targets, one process.

Both solvers get the same 2,000 seeded targets ``T = FK(q)``, ``q ~ U[−π, π]^6``, on the same
UR5 (taskik's bundled DH model; rtb's ``DHRobot`` from the same parameters, limits ±2π), and
the same first start: a seeded ``q0 ~ U[−π, π]^6`` per target; each side draws its own random
restarts. Calls alternate target by target (rtb first on even targets, taskik first on odd
ones), so machine noise hits both alike. Timed: the whole call, as a user makes it.

What each side does:

- rtb ``ets.ik_LM(T, q0=q0, ilimit=30, slimit=100, tol=1e-6, k=0.1)`` (C++ loop, Chan's LM,
  the default ``joint_limits=True``: a converged q outside the limits is refused). Per
  iteration: forward kinematics of the ETS, the world-frame error ``[p* − p; angle-axis of
  R* Rᵀ]``, ``E = ½ eᵀe``, ``E < tol`` ends the search; else the world Jacobian and
  ``Δq = (JᵀJ + λ E I)⁻¹ Jᵀe`` (an explicit 6 × 6 inverse, Eigen), ``q += Δq``. Up to 30
  iterations per search, no stagnation test, restarts from uniform random q within limits.
- taskik ``solve_posture(model, [FrameTask("tool0")], q0=q0, rng=rng)`` with its defaults
  (LM Chan, λ = 0.1, tol 1e-6, 15 evaluations per search, stagnation 1e-3 over 3, up to 100
  searches, joint limits "clip"). Per iteration: the frame's pose and LOCAL Jacobian from one
  Pinocchio call, the error ``e = log6(T⁻¹T*)`` (as the SE(3) group's difference of the two
  poses), ``E = ½ eᵀe``, ``E < tol`` ends the search;
  else the stagnation test and ``Δq = (JᵀJ + λ E I)⁻¹ Jᵀe`` (BLAS ``dsyrk``, LAPACK Cholesky
  ``dposv``), ``q ← q + Δq`` (projected into the limits when a range is narrower than 2π:
  not on this model). Restarts from uniform random q within limits (seeded).
- also shown: taskik called without a start (``solve_posture(model, [task])``), the first
  search from the nearest entry of its seed memory (built before the timings).

The two solvers measure the error differently (world-frame angle-axis against log6); both
solutions are checked with rtb's error (Haviland & Corke eq. 37). The per-call and
per-iteration costs come from a least-squares line ``time = a + b · iterations`` over the
targets (medians per iteration count).

    python benchmarks/posture_vs_rtb.py [--targets N] [--seed S]

``--instructions N`` (no rtb needed, no timing): the first N targets through taskik from q0
twice, with callgrind's instrumentation on for the calls only, a profile dumped after each
pass; run under ``valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=F`` and
read each part's instructions with ``callgrind_annotate F.1 | grep TOTALS`` (and ``F.2``),
repeatable whatever the load. Pass 1: the benchmark's calls (from q0); pass 2: the same
calls from the configuration each target was made from (the per-call work of a success
and one evaluation of E).
Per call ≈ pass 2 / N; per iteration ≈ (pass 1 − pass 2) / (iterations of pass 1 − N).

Needs roboticstoolbox-python (``pip install taskik[bench]``). Progress goes to stderr; the
table to stdout and to benchmarks/results/posture_vs_rtb.txt for the default run (2,000
targets, seed 0), to benchmarks/results/partial/ otherwise (ignored by git).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402
from table1 import make_targets, rtb_ur5, tutorial_error  # noqa: E402

ROWS = {
    "rtb": "roboticstoolbox ik_LM (C++), q0",
    "q0": "taskik solve_posture, q0",
    "memory": "taskik solve_posture, no start",
}


def run(model, targets, q0s, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """Time every target through rtb and taskik (same q0) and taskik without a start, in an
    order that alternates from one target to the next."""
    ets = rtb_ur5()
    if ets is None:
        raise SystemExit("roboticstoolbox-python is not installed (pip install taskik[bench])")
    n = len(targets)
    task = taskik.FrameTask("tool0")
    Ts = [t.homogeneous for t in targets]
    rng = np.random.default_rng(seed)  # taskik's restarts
    data = model.createData()
    fid = model.getFrameId("tool0")
    out = {
        key: {
            "t": np.zeros(n),
            "ok": np.zeros(n, bool),
            "it": np.zeros(n),
            "s": np.zeros(n),
            "E": np.full(n, np.nan),
        }
        for key in ROWS
    }
    clock = time.perf_counter

    def rtb(k: int) -> None:
        t0 = clock()
        sol = ets.ik_LM(Ts[k], q0=q0s[k], ilimit=30, slimit=100, tol=1e-6, k=0.1)
        dt = clock() - t0
        record("rtb", k, dt, bool(sol.success), sol.iterations, sol.searches, sol.q)

    def ours(k: int, key: str) -> None:
        task.target = targets[k]
        q0 = q0s[k] if key == "q0" else None
        t0 = clock()
        res = taskik.solve_posture(model, [task], q0=q0, rng=rng)
        dt = clock() - t0
        record(key, k, dt, res.success, res.iterations, res.searches, res.q)

    def record(key, k, dt, ok, its, searches, q) -> None:
        row = out[key]
        row["t"][k] = dt
        row["ok"][k] = ok
        row["it"][k] = its
        row["s"][k] = searches
        row["E"][k] = tutorial_error(model, data, fid, np.asarray(q, float), targets[k])

    # warm-up: both code paths, and taskik's seed memory of tool0 built outside the timings
    for k in range(min(20, n)):
        rtb(k)
        ours(k, "q0")
        ours(k, "memory")
    for k in range(n):
        if k % 2 == 0:
            rtb(k)
            ours(k, "q0")
        else:
            ours(k, "q0")
            rtb(k)
        ours(k, "memory")
        if (k + 1) % 500 == 0:
            print(f"  {k + 1}/{n}", file=sys.stderr, flush=True)
    return out


def instructions(model, qs, targets, q0s, seed: int) -> None:
    """The ``--instructions`` mode (module docstring): two passes over the targets, each
    under callgrind's instrumentation and dumped as its own part."""
    import subprocess

    tasks = []
    for target in targets:  # (one task per target: no target setting inside the passes)
        task = taskik.FrameTask("tool0")
        task.target = target
        tasks.append([task])
    rng = np.random.default_rng(seed)

    def callgrind(*args: str) -> None:
        command = ["callgrind_control", *args, str(os.getpid())]
        subprocess.run(command, check=False, capture_output=True)

    def one_pass(starts) -> tuple[int, int]:
        its = searches = 0
        for task, q0 in zip(tasks, starts, strict=True):
            res = taskik.solve_posture(model, task, q0=q0, rng=rng)
            its += res.iterations
            searches += res.searches
        return its, searches

    one_pass(q0s)  # warm-up (context, single-pose loop)
    one_pass(qs)
    rng = np.random.default_rng(seed)
    callgrind("-i", "on")
    its, searches = one_pass(q0s)
    callgrind("-i", "off")
    callgrind("-d", "pass1")
    callgrind("-i", "on")
    its2, _ = one_pass(qs)
    callgrind("-i", "off")
    callgrind("-d", "pass2")
    print(
        f"pass 1: {len(targets)} calls, {its} iterations, {searches} searches; "
        f"pass 2: {len(targets)} calls, {its2} iterations"
    )


def line_fit(t_us: np.ndarray, its: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` of ``time ≈ a + b · iterations``: least squares over the median time of each
    iteration count seen at least 30 times, so that a few slow calls weigh little."""
    xs, ys, ws = [], [], []
    for it in np.unique(its):
        sel = its == it
        if sel.sum() >= 30:
            xs.append(it)
            ys.append(np.median(t_us[sel]))
            ws.append(np.sqrt(sel.sum()))
    if len(xs) < 2:
        return float("nan"), float("nan")
    b, a = np.polyfit(np.array(xs), np.array(ys), 1, w=np.array(ws))
    return float(a), float(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--instructions", type=int, default=0, help="N calls under callgrind (docstring)"
    )
    args = parser.parse_args()
    n = args.targets
    model = taskik.robots.load("ur5").model
    qs, targets = make_targets(model, n, np.random.default_rng(args.seed))
    q0s = np.random.default_rng(args.seed + 2).uniform(-np.pi, np.pi, (n, 6))
    if args.instructions:
        m = args.instructions
        instructions(model, qs[:m], targets[:m], q0s[:m], args.seed + 1)
        return
    import roboticstoolbox as rtb

    load = os.getloadavg()[0]
    out = run(model, targets, q0s, args.seed + 1)
    load = max(load, os.getloadavg()[0])
    lines = [
        f"solve_posture vs roboticstoolbox-python ik_LM: UR5 (DH), {n} targets, seed "
        f"{args.seed}, the same q0 per target, calls alternating target by target",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, roboticstoolbox {rtb.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} cores, load average {load:.1f}"
        + (
            " (above the core count: times are noisy, compare the ratios only)"
            if load > (os.cpu_count() or 1)
            else ""
        ),
        "",
        f"{'':34s} {'solved':>9s} {'median µs':>10s} {'mean µs':>9s} {'p95 µs':>8s} "
        f"{'mean it':>8s} {'median it':>9s} {'mean s.':>8s} {'per call µs':>11s} "
        f"{'per it µs':>9s} {'worst E':>9s}",
    ]
    for key, name in ROWS.items():
        r = out[key]
        t_us = r["t"] * 1e6
        a, b = line_fit(t_us, r["it"])
        ok = r["ok"]
        worst = float(np.max(r["E"][ok])) if ok.any() else float("nan")
        lines.append(
            f"{name:34s} {int(ok.sum()):4d}/{n:<4d} {np.median(t_us):10.1f} "
            f"{np.mean(t_us):9.1f} {np.percentile(t_us, 95):8.1f} {np.mean(r['it']):8.2f} "
            f"{np.median(r['it']):9.1f} {np.mean(r['s']):8.2f} {a:11.1f} {b:9.2f} "
            f"{worst:9.2g}"
        )
    peer = out["rtb"]["t"]
    lines.append("")
    for key in ("q0", "memory"):
        t = out[key]["t"]
        label = ROWS[key].split(", ")[1]
        lines.append(
            f"taskik ({label}) / rtb: median {np.median(t) / np.median(peer):.2f}"
            f", mean {np.mean(t) / np.mean(peer):.2f}, p95 "
            f"{np.percentile(t, 95) / np.percentile(peer, 95):.2f}"
        )
    lines += [
        "",
        "solved: E < 1e-6 (rtb: its world-frame error; taskik: log6), within the limits; "
        "worst E: the largest world-frame E (Haviland & Corke eq. 37) at a solved target; "
        "it/s.: iterations and searches per call (all targets); per call / per it: the line "
        "time ≈ a + b · iterations through the median time of each iteration count seen 30 "
        "times or more.",
    ]
    results = Path(__file__).resolve().parent / "results"
    default = n == 2000 and args.seed == 0
    path = (
        results / "posture_vs_rtb.txt"
        if default
        else results / "partial" / f"posture_vs_rtb_{n}_{args.seed}.txt"
    )
    publish("\n".join(lines), path)


if __name__ == "__main__":
    main()
