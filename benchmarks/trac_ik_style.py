"""TRAC-IK-style pose IK with joint limits on the UR5 and the Panda.

Protocol of TRAC-IK's evaluation (Beeson & Ames, "TRAC-IK: An open-source library for
improved solving of generic inverse kinematics"): random reachable poses ``T = FK(q*)``
with ``q*`` uniform within the joint limits, a solution must lie within the joint limits,
tolerance 1e−5 on the pose error, 5 ms timeout. Their published figures: UR5 99.17 % at
0.37 ms, Panda 99.88 % at 0.37 ms (mean time per solve, their machine).

Here: :func:`taskik.solve_posture` with its defaults (LM Chan λ = 0.1, joint limits
"clip": every iterate projected into the limits, random restarts) from a random start
within the limits, ``tol = ½ (1e−5)² = 5e−11`` on ``E = ½ ‖log6(T⁻¹T*)‖²`` (so
``‖e‖ < 1e−5``), ``time_budget = 5 ms``. The models are taskik's bundled ``ur5`` (DH, limits
±2π) and ``panda`` (published limits). Timings are absolute on this machine: TRAC-IK itself
(C++/ROS) is not available here, so its figures are quoted, not measured in this run.

    python benchmarks/trac_ik_style.py [--targets N] [--seed S]

Progress goes to stderr; the table goes to stdout and benchmarks/results/trac_ik_style.txt
(the ignored benchmarks/results/partial/trac_ik_style_<N>.txt when N is not 10,000).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.limits import ConfigurationLimit

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402

PUBLISHED = {"ur5": (99.17, 0.37), "panda": (99.88, 0.37)}
FRAMES = {"ur5": "tool0", "panda": "panda_hand"}
TOL = 0.5 * 1e-5**2
TIMEOUT = 5e-3


def run(name: str, n: int, seed: int):
    robot = taskik.robots.load(name)
    model = robot.model
    frame = FRAMES[name]
    rng = np.random.default_rng(seed)
    data = model.createData()
    fid = model.getFrameId(frame)
    task = taskik.FrameTask(frame)
    limit = ConfigurationLimit(model)
    ok = np.zeros(n, bool)
    t = np.zeros(n)
    its = np.zeros(n)
    clock = time.perf_counter
    for k in range(n):
        q_star = robot.random_configuration(rng)
        pin.framesForwardKinematics(model, data, q_star)
        task.target = pin.SE3(data.oMf[fid])
        q0 = robot.random_configuration(rng)
        t0 = clock()
        res = taskik.solve_posture(
            model, [task], q0=q0, tol=TOL, time_budget=TIMEOUT, max_searches=10**6, rng=rng
        )
        t[k] = clock() - t0
        its[k] = res.iterations
        if res.success:
            limit.check(res.q, tol=0.0)  # raises if a solution left the limits
            ok[k] = True
        if (k + 1) % 1000 == 0:
            print(f"  {name}: {k + 1}/{n}, success {ok[: k + 1].mean():.2%}", file=sys.stderr)
    return ok, t, its


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n = args.targets
    lines = [
        f"TRAC-IK-style pose IK with joint limits, {n} random reachable poses per robot, "
        f"tol ‖e‖ < 1e-5, timeout 5 ms, seed {args.seed}",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"numpy {np.__version__}, {platform.machine()}",
        "",
        f"{'robot':6s} | {'taskik success':>14s} | {'mean time':>10s} | {'median':>8s} | "
        f"{'p95':>8s} | {'mean it.':>8s} || TRAC-IK published: success, mean time",
    ]
    for name in ("ur5", "panda"):
        ok, t, its = run(name, n, args.seed)
        pub = PUBLISHED[name]
        lines.append(
            f"{name:6s} | {100 * ok.mean():13.2f}% | {1e3 * t.mean():7.3f} ms | "
            f"{1e3 * np.median(t):5.3f} ms | {1e3 * np.percentile(t, 95):5.3f} ms | "
            f"{its.mean():8.1f} || {pub[0]:.2f} %, {pub[1]:.2f} ms"
        )
        print(lines[-1], file=sys.stderr)
    results = Path(__file__).parent / "results"
    # only the full run replaces the committed figures; others go to the ignored partial/
    out = (
        results / "trac_ik_style.txt"
        if n == 10_000
        else results / "partial" / f"trac_ik_style_{n}.txt"
    )
    out.parent.mkdir(exist_ok=True)
    publish("\n".join(lines), out)


if __name__ == "__main__":
    main()
