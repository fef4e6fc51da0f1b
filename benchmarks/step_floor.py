"""taskik's step against its floor on Talos (the step benchmark's scene): how much is taskik's own?

The *floor* of a step is what any implementation of the same step must call: the Pinocchio
calls taskik makes for it and one warm DAQP solve of the same QP. Timed, per step at q_k:

- floor: ``computeJointJacobians(q_k)`` (forward kinematics and joint Jacobians, as
  taskik's ``Configuration.update``), ``updateFramePlacements``; per frame task
  ``target.actInv(oMf)``, ``log6``, ``Jlog6``, ``getFrameJacobian(LOCAL)``;
  ``jacobianCenterOfMass``; then ``daqp.Model.update(H, f, bounds)`` + ``solve()`` on a
  model set up once, with the P, r, lb, ub taskik assembles at q_k (computed beforehand,
  untimed). No products, no stacking: those are taskik's assembly, not the floor.
- taskik: ``conf.update(q_k)`` + ``solve_ik(conf, tasks, dt, limits, solver="daqp")``
  (defaults: ``adaptive=True``), and the same with ``adaptive=False``.

Both include the kinematics pass at q_k. q_k moves on the smooth path of the step benchmark
(``_timing.moving_path``), the same sequence for every contender, interleaved in rounds.
Also printed, for where the time goes: the floor's Pinocchio part and DAQP part alone, a cold
``daqp.solve`` of the same QP, and taskik's ``conf.update`` alone. Writes
benchmarks/results/step_floor.txt.
"""

from __future__ import annotations

import argparse
import platform
import sys
from ctypes import c_int
from importlib.metadata import version
from pathlib import Path

import daqp
import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import (  # noqa: E402
    interleaved_steps,
    largest_difference,
    moving_path,
    publish,
    stats,
)
from step_vs_pink import DT, build_taskik, robot_scenario, targets  # noqa: E402

import taskik  # noqa: E402
from taskik.problem import get_assembler  # noqa: E402


def qp_sequence(model, path, tasks, limits):
    """(P, r, lb, ub) taskik assembles at each q of the path (copies: buffers are reused)."""
    conf = taskik.Configuration(model, path[0])
    out = []
    for q in path:
        conf.update(q)
        asm = get_assembler(conf, tasks, limits)
        P, r, G, h, lb, ub = asm.assemble(conf, DT, 1e-12)
        if G is not None:
            raise ValueError("the floor assumes box limits only (no inequality rows)")
        out.append(tuple(np.array(x, dtype=float, order="C") for x in (P, r, lb, ub)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 calls")
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_floor.txt"))
    args = parser.parse_args()
    calls = 200 if args.quick else args.calls

    robot, q0, frames, with_com, posture_cost = robot_scenario(args.robot)
    model = robot.model
    path = moving_path(model, q0, max(calls, 400))
    m = len(path)
    conf, tasks, limits = build_taskik(model, q0, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_taskik(model, q0, frames, with_com, posture_cost)
    qps = qp_sequence(model, path, tasks, limits)

    data = model.createData()
    goals, _ = targets(model, q0, frames)
    frame_goals = [(model.getFrameId(f), goals[f]) for f, _, _ in frames]
    P0, r0, lb0, ub0 = qps[0]
    warm = daqp.Model()
    warm.setup(P0, r0, np.zeros((0, model.nv)), ub0, lb0)
    sense = np.zeros(model.nv, dtype=c_int)
    at = [0]

    def mark(k: int) -> None:
        at[0] = k % m

    def pinocchio_part() -> None:
        pin.computeJointJacobians(model, data, path[at[0]])
        pin.updateFramePlacements(model, data)
        for fid, goal in frame_goals:
            M = goal.actInv(data.oMf[fid])
            pin.log6(M)
            pin.Jlog6(M)
            pin.getFrameJacobian(model, data, fid, pin.LOCAL)
        if with_com:
            pin.jacobianCenterOfMass(model, data, False)

    def daqp_part():
        P, r, lb, ub = qps[at[0]]
        warm.update(H=P, f=r, bupper=ub, blower=lb)
        return warm.solve()[0]

    def floor():
        pinocchio_part()
        return daqp_part()

    def daqp_cold():
        P, r, lb, ub = qps[at[0]]
        return daqp.solve(P, r, np.zeros((0, model.nv)), ub, lb, sense)[0]

    def taskik_step():
        conf.update(path[at[0]])
        return taskik.solve_ik(conf, tasks, DT, limits=limits, solver="daqp")

    def taskik_plain():
        pconf.update(path[at[0]])
        return taskik.solve_ik(pconf, ptasks, DT, limits=plimits, solver="daqp", adaptive=False)

    uconf = taskik.Configuration(model, q0)

    # the floor solves taskik's QP: same v
    agree = largest_difference(mark, floor, taskik_plain, m)

    contenders = {
        "floor": floor,
        "taskik": taskik_step,
        "taskik adaptive=False": taskik_plain,
        "floor: Pinocchio part": pinocchio_part,
        "floor: warm DAQP part": daqp_part,
        "cold daqp.solve": daqp_cold,
        "taskik conf.update": lambda: uconf.update(path[at[0]]),
    }
    res = interleaved_steps({k: (mark, fn) for k, fn in contenders.items()}, calls)
    med = {k: stats(v) for k, v in res.items()}
    names = ", ".join(f for f, _, _ in frames) + (" + CoM" if with_com else "") + " + posture"
    lines = [
        f"the step's floor on {args.robot} (nv {model.nv}): tasks on {names}; "
        "ConfigurationLimit + VelocityLimit, dt = 0.01 s",
        "floor = computeJointJacobians(q_k) + updateFramePlacements + per frame actInv, log6, "
        "Jlog6, getFrameJacobian(LOCAL)",
        "+ jacobianCenterOfMass + warm daqp.Model update/solve of taskik's QP at q_k (P, r, box "
        "precomputed untimed);",
        "taskik = conf.update(q_k) + solve_ik(..., solver='daqp'): both include the kinematics "
        "pass; q_k on the step benchmark's moving path",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"daqp {version('daqp')}, {calls} timed calls per contender, interleaved in 5 rounds",
        f"max |v_floor - v_taskik(adaptive=False)| over 50 path points: {agree:.2e}",
        f"{'variant':<26}{'median µs':>11}{'p95 µs':>10}{'x / floor med':>15}",
    ]
    for key, (mm, p95) in med.items():
        lines.append(f"{key:<26}{mm:>11.1f}{p95:>10.1f}{mm / med['floor'][0]:>14.2f}x")
    lines.append(
        f"taskik / floor, median: {med['taskik'][0] / med['floor'][0]:.2f}x "
        f"(adaptive=False {med['taskik adaptive=False'][0] / med['floor'][0]:.2f}x; "
        "target <= 1.5x)"
    )
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
