"""Table 1 of Haviland & Corke, "Manipulator Differential Kinematics" (part 1),
reproduced with taskik.solve_posture, then our default solver against roboticstoolbox-python.

Protocol (the Table 1 benchmark of the design notes): UR5 from its DH parameters (taskik's bundled
``ur5``), targets ``T = FK(q)``, ``q ~ U[−π, π]^6``; every search starts from a new random
``q0 ~ U[−π, π]^6``; converged when ``E = ½ eᵀe < 1e−6`` with the tutorial's error (eq. 37,
``pose_error="world"``). Settings: (a) 1 search × 500 iterations, (b) up to 100 searches ×
30 iterations, iterations counted across searches, mean/median over the solved problems.
The tutorial's notebook loop (``while i <= ilimit``) evaluates E ``ilimit + 1`` times per
search, so the rows here allow 501 and 31 evaluations; joint limits play no role (the
notebook does not check them).

Then the default :func:`taskik.solve_posture` (LM Chan λ = 0.1 on the FrameTask's log6
error, 15 evaluations per search, up to 100 searches, joint limits ±2π with the "clip"
policy) on the same targets, next to roboticstoolbox-python's compiled ``ik_LM`` (Chan,
λ = 0.1, 30 × 100, tol 1e−6) on the same DH model and targets, timed in the same run in
interleaved blocks. Our solver runs twice: called as a user would, with the model and the
task only (the first search starts from the nearest entry of the seed memory, the
default ``starts="memory"``; the memory is built before the timings), and from the same
random q0 as ``ik_LM`` (random restarts). The Table 1 rows pass their q0 and are not
affected by the memory.

    python benchmarks/table1.py [--targets N] [--seed S] [--skip-table]

Progress goes to stderr; the table goes to stdout and to benchmarks/results/table1.txt, the
committed result. Any other run (N other than 10,000, or --skip-table) writes
benchmarks/results/partial/table1_<N>[_head_to_head].txt instead: that folder is ignored by
git, so a quick run leaves the checkout clean.
"""

from __future__ import annotations

import argparse
import inspect
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.robots.models import UR5_DH_A, UR5_DH_ALPHA, UR5_DH_D

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402

# Table 1 of Haviland & Corke (part 1): (method, searches, iterations) →
# (mean it., median it., infeasible count, infeasible %, mean searches, max searches)
PUBLISHED = {
    ("NR", 1, 500): (21.34, 16.0, 1093, 10.93, 1.0, 1.0),
    ("GN", 1, 500): (21.6, 16.0, 1078, 10.78, 1.0, 1.0),
    ("NR Pseudoinverse", 1, 500): (21.24, 16.0, 1100, 11.0, 1.0, 1.0),
    ("GN Pseudoinverse", 1, 500): (21.72, 16.0, 1090, 10.9, 1.0, 1.0),
    ("LM (Wampler λ = 1e-4)", 1, 500): (20.1, 14.0, 934, 9.34, 1.0, 1.0),
    ("LM (Wampler λ = 1e-6)", 1, 500): (29.84, 17.0, 529, 5.29, 1.0, 1.0),
    ("LM (Chan λ = 1.0)", 1, 500): (16.58, 14.0, 1011, 10.11, 1.0, 1.0),
    ("LM (Chan λ = 0.1)", 1, 500): (9.43, 9.0, 963, 9.63, 1.0, 1.0),
    ("LM (Sugihara w̄ = 1e-3)", 1, 500): (20.54, 15.0, 1024, 10.24, 1.0, 1.0),
    ("LM (Sugihara w̄ = 1e-4)", 1, 500): (17.01, 14.0, 1011, 10.11, 1.0, 1.0),
    ("NR", 100, 30): (30.16, 18.0, 0, 0.0, 1.47, 25.0),
    ("GN", 100, 30): (30.33, 18.0, 0, 0.0, 1.48, 23.0),
    ("NR Pseudoinverse", 100, 30): (30.27, 18.0, 0, 0.0, 1.47, 20.0),
    ("GN Pseudoinverse", 100, 30): (30.65, 18.0, 0, 0.0, 1.49, 20.0),
    ("LM (Wampler λ = 1e-4)", 100, 30): (25.23, 15.0, 0, 0.0, 1.35, 17.0),
    ("LM (Wampler λ = 1e-6)", 100, 30): (29.3, 18.0, 0, 0.0, 1.45, 24.0),
    ("LM (Chan λ = 1.0)", 100, 30): (22.6, 15.0, 0, 0.0, 1.25, 18.0),
    ("LM (Chan λ = 0.1)", 100, 30): (15.33, 9.0, 0, 0.0, 1.2, 18.0),
    ("LM (Sugihara w̄ = 1e-3)", 100, 30): (26.49, 16.0, 0, 0.0, 1.35, 18.0),
    ("LM (Sugihara w̄ = 1e-4)", 100, 30): (23.04, 15.0, 0, 0.0, 1.26, 18.0),
}

METHODS = {
    "NR": ("nr", None),
    "GN": ("gn", None),
    "NR Pseudoinverse": ("nr-pinv", None),
    "GN Pseudoinverse": ("gn-pinv", None),
    "LM (Wampler λ = 1e-4)": ("lm-wampler", 1e-4),
    "LM (Wampler λ = 1e-6)": ("lm-wampler", 1e-6),
    "LM (Chan λ = 1.0)": ("lm-chan", 1.0),
    "LM (Chan λ = 0.1)": ("lm-chan", 0.1),
    "LM (Sugihara w̄ = 1e-3)": ("lm-sugihara", 1e-3),
    "LM (Sugihara w̄ = 1e-4)": ("lm-sugihara", 1e-4),
}

NO_STAGNATION = {"stagnation": 0.0, "patience": 10**9}

# solve_posture's defaults, for the caption of the head-to-head
DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(taskik.solve_posture).parameters.items()
    if p.default is not inspect.Parameter.empty
}


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def make_targets(model, n: int, rng) -> tuple[np.ndarray, list[pin.SE3]]:
    data = model.createData()
    fid = model.getFrameId("tool0")
    qs = rng.uniform(-np.pi, np.pi, (n, 6))
    out = []
    for q in qs:
        pin.framesForwardKinematics(model, data, q)
        out.append(pin.SE3(data.oMf[fid]))
    return qs, out


def tutorial_error(model, data, fid, q, target: pin.SE3) -> float:
    pin.framesForwardKinematics(model, data, q)
    M = data.oMf[fid]
    e = np.concatenate(
        [target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)]
    )
    return 0.5 * float(e @ e)


def run_row(model, targets, name, searches, iterations, seed):
    method, lam = METHODS[name]
    task = taskik.FrameTask("tool0")
    rng = np.random.default_rng(seed)
    its = np.full(len(targets), np.nan)
    used = np.full(len(targets), np.nan)
    t0 = time.perf_counter()
    for k, target in enumerate(targets):
        task.target = target
        res = taskik.solve_posture(
            model,
            [task],
            method=method,
            damping=lam,
            q0=rng.uniform(-np.pi, np.pi, 6),
            max_iterations=iterations + 1,
            max_searches=searches,
            joint_limits="ignore",
            pose_error="world",
            rng=rng,
            **NO_STAGNATION,
        )
        if res.success:
            its[k] = res.iterations
            used[k] = res.searches
        if (k + 1) % 2000 == 0:
            progress(f"  {name} {searches}x{iterations}: {k + 1}/{len(targets)}")
    return its, used, time.perf_counter() - t0


def rtb_ur5():
    """The same DH model in roboticstoolbox-python (None when it is not installed)."""
    try:
        import roboticstoolbox as rtb
    except ImportError:
        return None
    links = [
        rtb.RevoluteDH(d=d, a=a, alpha=al, qlim=[-2 * np.pi, 2 * np.pi])
        for d, a, al in zip(UR5_DH_D, UR5_DH_A, UR5_DH_ALPHA, strict=True)
    ]
    return rtb.DHRobot(links, name="UR5-DH").ets()


def head_to_head(model, targets, block: int, seed: int):
    """Our default solver called as a user would (model and task, no start: the seed memory
    picks the first start), the same solver from rtb's random q0s, and rtb's ik_LM, on the
    same targets, interleaved in blocks."""
    ets = rtb_ur5()
    task = taskik.FrameTask("tool0")
    n = len(targets)
    q0s = np.random.default_rng(seed).uniform(-np.pi, np.pi, (n, 6))
    rng = np.random.default_rng(seed + 1)  # random restarts of our two rows
    rows = {
        "memory": {"it": np.full(n, np.nan), "s": np.full(n, np.nan), "t": np.zeros(n)},
        "q0": {"it": np.full(n, np.nan), "s": np.full(n, np.nan), "t": np.zeros(n)},
        "rtb": {"it": np.full(n, np.nan), "s": np.full(n, np.nan), "t": np.zeros(n)},
    }
    Ts = [t.homogeneous for t in targets]
    data = model.createData()
    fid = model.getFrameId("tool0")
    worst_world_E = 0.0
    clock = time.perf_counter
    task.target = targets[0]
    taskik.solve_posture(model, [task])  # builds the seed memory of tool0 outside the timings
    for start in range(0, n, block):
        stop = min(n, start + block)
        if ets is not None:  # warm start of rtb's C++ path
            peer = rows["rtb"]
            for k in range(start, stop):
                t0 = clock()
                sol = ets.ik_LM(Ts[k], q0=q0s[k], ilimit=30, slimit=100, tol=1e-6, k=0.1)
                peer["t"][k] = clock() - t0
                if sol.success:
                    peer["it"][k] = sol.iterations
                    peer["s"][k] = sol.searches
        for name in ("memory", "q0"):
            row = rows[name]
            for k in range(start, stop):
                task.target = targets[k]
                q0 = q0s[k] if name == "q0" else None
                t0 = clock()
                res = taskik.solve_posture(model, [task], q0=q0, rng=rng)
                row["t"][k] = clock() - t0
                if res.success:
                    row["it"][k] = res.iterations
                    row["s"][k] = res.searches
                    worst_world_E = max(
                        worst_world_E, tutorial_error(model, data, fid, res.q, targets[k])
                    )
        progress(f"  head-to-head: {stop}/{n}")
    if ets is None:
        del rows["rtb"]
    return rows, worst_world_E


def fmt_row(name, s, i, its, used, n):
    ok = ~np.isnan(its)
    fails = int(n - ok.sum())
    mean = float(np.mean(its[ok])) if ok.any() else math.nan
    med = float(np.median(its[ok])) if ok.any() else math.nan
    ms = float(np.mean(used[ok])) if ok.any() else math.nan
    mx = float(np.max(used[ok])) if ok.any() else math.nan
    return mean, med, fails, 100.0 * fails / n, ms, mx, (np.std(its[ok]) / math.sqrt(ok.sum()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--block", type=int, default=500)
    parser.add_argument("--skip-table", action="store_true", help="only the head-to-head")
    args = parser.parse_args()
    n = args.targets
    model = taskik.robots.load("ur5").model
    rng = np.random.default_rng(args.seed)
    _, targets = make_targets(model, n, rng)

    lines = [
        f"Haviland & Corke Table 1 on the UR5 (DH), {n} targets, seed {args.seed}",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"numpy {np.__version__}, {platform.machine()}",
        "",
    ]
    if not args.skip_table:
        header = (
            f"{'Method':26s} {'S':>3s} {'I':>4s} | {'mean it':>15s} | {'median':>11s} | "
            f"{'infeasible':>11s} | {'infeas. %':>13s} | {'mean s.':>11s} | {'max s.':>11s}"
            f" | z(mean) z(inf%)"
        )
        lines += [
            "Each cell: ours / published. z = (ours − published) / (√2 · standard error):",
            "sampling noise on both sides; |z| < 3 is within noise.",
            "",
            header,
            "-" * len(header),
        ]
        for searches, iterations in ((1, 500), (100, 30)):
            for name in METHODS:
                progress(f"row {name} {searches}x{iterations}")
                its, used, dt = run_row(model, targets, name, searches, iterations, args.seed + 1)
                mean, med, fails, pct, ms, mx, se = fmt_row(
                    name, searches, iterations, its, used, n
                )
                pub = PUBLISHED[(name, searches, iterations)]
                z_mean = (mean - pub[0]) / (math.sqrt(2) * se) if se > 0 else math.nan
                p = pub[3] / 100.0
                se_p = math.sqrt(max(p * (1 - p), 1e-12) / n)
                z_inf = (pct / 100.0 - p) / (math.sqrt(2) * se_p) if p > 0 else math.nan
                lines.append(
                    f"{name:26s} {searches:3d} {iterations:4d} | {mean:6.2f} / {pub[0]:6.2f} | "
                    f"{med:4.1f} / {pub[1]:4.1f} | {fails:4d} / {pub[2]:4d} | "
                    f"{pct:5.2f} / {pub[3]:5.2f} | {ms:4.2f} / {pub[4]:4.2f} | "
                    f"{mx:4.0f} / {pub[5]:4.0f} | {z_mean:6.1f} {z_inf:6.1f}"
                )
                progress(lines[-1] + f"   ({dt:.1f} s)")
        lines.append("")

    progress("head-to-head: taskik default vs roboticstoolbox ik_LM")
    rows, worst = head_to_head(model, targets, args.block, args.seed + 2)
    lines.append(
        "Default solve_posture (LM Chan λ = 0.1, log6 error, "
        f"{DEFAULTS['max_iterations']} iterations × up to 100 searches, stagnation "
        f"{DEFAULTS['stagnation']:g} over {DEFAULTS['patience']} iterations, limits ±2π "
        "'clip') vs roboticstoolbox-python ik_LM (C++, Chan λ = 0.1, 30 × 100), same "
        "targets, same run, interleaved blocks. 'no start' = solve_posture(model, [task]) "
        "as a user calls it: the first search starts from the nearest entry of the seed "
        "memory (512 stored poses of tool0), restarts from the next nearest, then random; "
        "'same q0' = the first search from rtb's random q0, random restarts:"
    )
    names = {
        "memory": "taskik solve_posture, no start",
        "q0": "taskik solve_posture, same q0",
        "rtb": "roboticstoolbox ik_LM (C++)",
    }
    for key, r in rows.items():
        ok = ~np.isnan(r["it"])
        t_us = r["t"] * 1e6
        lines.append(
            f"  {names[key]:32s} solved {int(ok.sum())}/{n}  mean it {np.mean(r['it'][ok]):6.2f}  "
            f"median it {np.median(r['it'][ok]):4.1f}  mean searches {np.mean(r['s'][ok]):.2f}  "
            f"time/solve mean {np.mean(t_us):7.1f} µs  median {np.median(t_us):7.1f} µs  "
            f"p95 {np.percentile(t_us, 95):7.1f} µs"
        )
    if "rtb" in rows:
        peer = rows["rtb"]["t"]
        for key in ("memory", "q0"):
            t = rows[key]["t"]
            lines.append(
                f"  mean-time ratio taskik ({key.replace('q0', 'same q0')}) / rtb = "
                f"{np.mean(t) / np.mean(peer):.2f}   (median ratio "
                f"{np.median(t) / np.median(peer):.2f})"
            )
    else:
        lines.append("  (roboticstoolbox-python not installed: `pip install taskik[bench]`)")
    lines.append(
        f"  best published row: LM Chan λ = 0.1, 100 × 30: mean 15.33 iterations. "
        f"Largest tutorial E (eq. 37) at our solutions: {worst:.4g} (tolerance 1e-6)."
    )
    publish("\n".join(lines), result_path(n, args.skip_table))


def result_path(n: int, skip_table: bool) -> Path:
    """Where a run's table goes: the committed file for the full run (10,000 targets, the
    whole table), an ignored file under results/partial/ for any other run."""
    results = Path(__file__).resolve().parent / "results"
    if n == 10_000 and not skip_table:
        return results / "table1.txt"
    return results / "partial" / f"table1_{n}{'_head_to_head' if skip_table else ''}.txt"


if __name__ == "__main__":
    main()
