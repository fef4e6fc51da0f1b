"""Which QP solver should solve_ik use by default? Time every installed qpsolvers solver on
the step benchmark's problems (UR5, Panda, Talos), through taskik.solve_ik, interleaved in one run.

Install candidates with ``pip install -e .[bench,quadprog]`` (quadprog is GPL: optional).
Writes benchmarks/results/qp_solvers.txt.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import qpsolvers

sys.path.insert(0, str(Path(__file__).parent))
from _timing import interleaved, publish, stats  # noqa: E402
from step_vs_pink import DT, build_taskik, scenario  # noqa: E402

import taskik  # noqa: E402

OPTIONS = {"osqp": {"eps_abs": 1e-7, "eps_rel": 1e-7, "polishing": True, "verbose": False}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/qp_solvers.txt"))
    args = parser.parse_args()
    solvers = list(qpsolvers.available_solvers)
    lines = [
        "QP solvers on the step benchmark's step (solve_ik, same tasks and limits), "
        "median / p95 µs",
        f"{'robot':<7}" + "".join(f"{s:>20}" for s in solvers),
    ]
    for name in ("ur5", "panda", "talos"):
        print(f"timing {name} ...", file=sys.stderr)
        model, q, frames, com, posture = scenario(name)
        conf, tasks, limits = build_taskik(model, q, frames, com, posture)
        ref = taskik.solve_ik(conf, tasks, DT, limits=limits, solver="daqp")
        fns = {}
        for s in solvers:
            opts = OPTIONS.get(s, {})
            v = taskik.solve_ik(conf, tasks, DT, limits=limits, solver=s, **opts)
            print(f"  {s}: max|v - v_daqp| = {np.abs(v - ref).max():.1e}", file=sys.stderr)
            fns[s] = lambda s=s, o=opts, c=conf, t=tasks, lim=limits: taskik.solve_ik(
                c, t, DT, lim, s, **o
            )
        res = interleaved(fns, args.calls)
        cells = []
        for s in solvers:
            med, p95 = stats(res[s])
            cells.append(f"{med:>10.1f} / {p95:<7.1f}")
        lines.append(f"{name:<7}" + "".join(f"{c:>20}" for c in cells))
    lines.append(f"default solver: {taskik.default_solver()}")
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
