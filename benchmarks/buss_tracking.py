"""Tracking with Buss's Y and double-Y multibodies, every unconstrained backend.

The targets move on Buss's sinusoids, partly out of reach; one IK update per time step
(dt = 0.005 s, Buss's demonstration step), each update asking for the full correction
(task gain 1). Per backend: mean tracking error (mean over steps of the mean end-effector
distance to its target, m), oscillation (mean over steps and joints of
|Δq_t − Δq_{t−1}|, rad), and time per update (median / p95, µs), both for the whole
update (task evaluation + solve + integration with forward kinematics) and for the solve
alone on the assembled arrays — the part Buss timed in C++ (1.1 / 2.2 µs for the Y's
Jacobian transpose / DLS, 6.5 / 18.5 µs for the double-Y on a 2.8 GHz Pentium). The
solve-alone times are also given as a ratio to a plain NumPy implementation of the same
formula measured in the same run (``np.linalg.pinv``, ``np.linalg.solve``).

Settings follow Buss's program: joint-change caps per update of 30° (transpose), 5° (pure
pseudoinverse) and 45° (DLS, SDLS); DLS λ = 0.6 (Y) / 1.1 (double-Y), DLS' (ClampMag of
each error to 0.4 m) λ = 0.7 (double-Y; 0.6 for the Y). The regularized backend (γ0 = 0.5 m,
σ_thr = 0.1, ClampMag 0.4 m, 45° cap) and the QP backend (no limits, so the undamped least-
squares step) are shown for comparison.

    python benchmarks/buss_tracking.py [--steps 1000] [--plot]

Writes benchmarks/results/buss_tracking.txt (and .png with --plot, needs matplotlib).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish, stats, time_calls  # noqa: E402

import taskik  # noqa: E402
from taskik.backends.dls import solve_dls  # noqa: E402
from taskik.backends.pseudoinverse import solve_pinv  # noqa: E402
from taskik.backends.sdls import solve_sdls  # noqa: E402
from taskik.backends.transpose import solve_transpose  # noqa: E402
from taskik.robots.buss import BUSS_TIME_STEP, double_y_targets, y_targets  # noqa: E402

DT = BUSS_TIME_STEP
DEG = np.pi / 180.0
RESULTS = Path(__file__).parent / "results"
BUSS_CPP_US = {"buss_y": (1.1, 2.2), "buss_double_y": (6.5, 18.5)}


def methods(shape: str) -> dict[str, dict]:
    lam = 0.6 if shape == "buss_y" else 1.1
    lam_clamped = 0.6 if shape == "buss_y" else 0.7
    return {
        "transpose": {"backend": "transpose", "max_joint_step": 30 * DEG},
        "pinv": {"backend": "pinv", "max_joint_step": 5 * DEG},
        "dls": {"backend": "dls", "lam": lam, "max_joint_step": 45 * DEG},
        "dls'": {
            "backend": "dls",
            "lam": lam_clamped,
            "max_task_error": 0.4,
            "max_joint_step": 45 * DEG,
        },
        "sdls": {"backend": "sdls", "gamma_max": 45 * DEG, "max_task_error": 0.4},
        "regularized": {
            "backend": "regularized",
            "gamma0": 0.5,
            "sigma_thr": 0.1,
            "max_task_error": 0.4,
            "max_joint_step": 45 * DEG,
        },
        "qp (daqp)": {"limits": []},  # the default backend on the same rows, no limits
    }


def run(shape: str, options: dict, steps: int, warmup: int):
    robot = taskik.robots.load(shape)
    targets_at = y_targets if shape == "buss_y" else double_y_targets
    conf = robot.configuration()
    tasks = [taskik.PositionTask(f) for f in robot.end_effectors]
    errors = np.empty(steps)
    times = np.empty(steps)
    dq_prev = np.zeros(robot.model.nv)
    osc = np.empty(steps)
    clock = time.perf_counter_ns
    for k in range(-warmup, steps):
        t = (k + warmup + 1) * DT
        for task, target in zip(tasks, targets_at(t), strict=True):
            task.set_target(target)
        t0 = clock()
        v = taskik.solve_ik(conf, tasks, DT, **options)
        conf.integrate_inplace(v, DT)
        t1 = clock()
        dq = v * DT
        if k >= 0:
            times[k] = (t1 - t0) * 1e-3
            errors[k] = np.mean([np.linalg.norm(task.compute_error(conf)) for task in tasks])
            osc[k] = np.abs(dq - dq_prev).mean()
        dq_prev = dq
    return errors, osc, times, conf, tasks


def solve_only(shape: str, name: str, options: dict, conf, tasks, n: int):
    """(taskik backend µs, NumPy-reference µs or None) on the arrays of the last step."""
    prob = taskik.build_ik(conf, tasks, DT, limits=[])
    A, c = prob.A, prob.c
    e = c * DT
    if name == "transpose":
        fn = lambda: solve_transpose(A, c)  # noqa: E731

        def ref():
            g = A.T @ c
            Ag = A @ g
            return (g @ g) / (Ag @ Ag) * g

    elif name == "pinv":
        fn = lambda: solve_pinv(A, c)  # noqa: E731
        ref = lambda: np.linalg.pinv(A) @ c  # noqa: E731
    elif name.startswith("dls"):
        lam2 = options["lam"] ** 2
        fn = lambda: solve_dls(A, c, lam2)  # noqa: E731
        ref = lambda: A.T @ np.linalg.solve(A @ A.T + lam2 * np.eye(len(c)), c)  # noqa: E731
    elif name == "sdls":
        starts = np.arange(0, len(c), 3)
        fn = lambda: solve_sdls(A, e, starts, options["gamma_max"])  # noqa: E731
        ref = None
    else:
        return None, None
    t_fn = stats(time_calls(fn, n))
    t_ref = stats(time_calls(ref, n)) if ref is not None else None
    return t_fn, t_ref


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--plot", action="store_true", help="write buss_tracking.png")
    args = ap.parse_args()

    lines = [
        "Tracking — Buss's Y (J 6×7) and double-Y (J 12×16): tracking sinusoidal targets, "
        f"dt = {DT} s, {args.steps} updates after {args.warmup} warm-up updates",
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}",
        "",
    ]
    curves = {}
    for shape in ("buss_y", "buss_double_y"):
        jt, dls = BUSS_CPP_US[shape]
        lines.append(
            f"{shape}  (Buss's C++ solve, 2.8 GHz Pentium: transpose {jt} µs, DLS {dls} µs)"
        )
        lines.append(
            f"{'method':<12} {'mean err (m)':>12} {'max err (m)':>11} {'oscillation':>11} "
            f"{'update µs med/p95':>18} {'solve µs med/p95':>17} {'numpy ref µs':>13} "
            f"{'ref/taskik':>10}"
        )
        for name, options in methods(shape).items():
            errors, osc, times, conf, tasks = run(shape, options, args.steps, args.warmup)
            curves[(shape, name)] = errors
            med, p95 = stats(times)
            t_fn, t_ref = solve_only(shape, name, options, conf, tasks, 2000)
            solve_txt = f"{t_fn[0]:7.1f}/{t_fn[1]:<7.1f}" if t_fn else f"{'—':>15}"
            ref_txt = f"{t_ref[0]:13.1f}" if t_ref else f"{'—':>13}"
            ratio = f"{t_ref[0] / t_fn[0]:10.2f}" if t_ref else f"{'—':>10}"
            lines.append(
                f"{name:<12} {errors.mean():12.4f} {errors.max():11.4f} {osc.mean():11.5f} "
                f"{med:9.1f}/{p95:<8.1f} {solve_txt:>17} {ref_txt} {ratio}"
            )
        lines.append("")
    lines.append(
        "mean err: mean over updates of the mean end-effector distance to its target; "
        "oscillation: mean |Δq_t − Δq_{t−1}| (rad); update: solve_ik + integrate_inplace "
        "(task errors and Jacobians, assembly, solve, FK); solve: the backend alone on the "
        "assembled A, c; numpy ref: the textbook NumPy expression of the same formula "
        "(np.linalg.pinv(A) @ c; Aᵀ np.linalg.solve(AAᵀ + λ²I, c)) timed in the same run."
    )
    publish("\n".join(lines), RESULTS / "buss_tracking.txt")
    if args.plot:
        plot(curves, args.steps)


def plot(curves: dict, steps: int) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("matplotlib is needed for --plot (pip install taskik[plot])")
    fig, axes = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    t = np.arange(steps) * DT
    for ax, shape in zip(axes, ("buss_y", "buss_double_y"), strict=True):
        for (s, name), err in curves.items():
            if s == shape:
                ax.plot(t, err, label=name, lw=1)
        ax.set_title(f"{shape}: mean end-effector distance to target")
        ax.set_ylabel("error (m)")
        ax.set_yscale("log")
        ax.legend(ncol=3, fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(RESULTS / "buss_tracking.png", dpi=110)
    print(f"wrote {RESULTS / 'buss_tracking.png'}")


if __name__ == "__main__":
    main()
