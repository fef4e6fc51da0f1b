"""How fast can a Python step be? The step benchmark's scenes (UR5, Panda, Talos, G1)
solved by a hand-fused step written for each scene, against taskik and pink in the same run.

The *lean step* is the least Python we could write that solves exactly taskik's QP of a step
benchmark scene (``FrameTask``s with unit costs, the CoM task of the humanoids, the posture,
``ConfigurationLimit`` gain 0.5, ``VelocityLimit``, damping 1e-12, dt = 0.01 s, DAQP): the
Pinocchio calls of the step's floor (``benchmarks/step_floor.py``), then every product
written into preallocated arrays, the posture's ``WᵀW`` added to P's diagonal, the box from
two subtractions and four clips, one warm ``daqp.Model`` update and solve, the answer
clipped into the box. It has nothing a library needs: no check of q, dt or targets, no task
objects, no plan look-up, no adaptive damping, no unconstrained shortcut, no failure path,
and a posture error ``q* − q`` valid only for 1-DoF joints. Its velocity is compared with
taskik's plain step (``adaptive=False``) at 50 configurations of the path.

The result bounds what the step benchmark's target (pink/taskik ≥ 5×) asks of a step
written in Python: taskik's step (general task lists, checked inputs, defaults) would have to
be as fast as this script. The configuration moves on the step benchmark's path
(``_timing.moving_path``); the lean step and pink include their kinematics pass, taskik's
``conf.update(q_k)`` is timed with its step as in ``step_floor.py``; contenders interleaved
in rounds. Writes benchmarks/results/step_lean.txt.

    python benchmarks/step_lean.py [--calls N] [--robots ur5 panda talos g1]
"""

from __future__ import annotations

import argparse
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import daqp
import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
import _timing as timing  # noqa: E402
from step_vs_pink import DT, build_pink, build_taskik, robot_scenario, targets  # noqa: E402

import taskik  # noqa: E402

DAMPING = 1e-12
CONFIGURATION_GAIN = 0.5


def lean_step(model: pin.Model, q0: np.ndarray, frames, goals, com_goal, posture_cost: float):
    """The hand-fused step of one scene of the step benchmark: a function ``q ↦ v``.
    ``frames``: the frame tasks (unit costs), ``com_goal``: the CoM target or None; the
    posture drives the joints after the base (1-DoF joints only: its error is ``q* − q`` on
    their coordinates)."""
    nv = model.nv
    data = model.createData()
    base = taskik.configuration.base_velocity_count(model)
    joints = [j for j in model.joints[1:] if j.idx_v >= base]
    if any(j.nq != 1 or j.nv != 1 for j in joints):
        raise ValueError("the lean step's posture error assumes 1-DoF joints after the base")
    q_rows = np.array([j.idx_q for j in joints], dtype=int)
    fids = [model.getFrameId(f) for f, _, _ in frames]
    targets_ = [goals[f] for f, _, _ in frames]
    m = 6 * len(fids) + (3 if com_goal is not None else 0)
    A = np.empty((m, nv))
    c = np.empty(m)
    rows = [(A[6 * k : 6 * k + 6], c[6 * k : 6 * k + 6]) for k in range(len(fids))]
    A_com, c_com = A[m - 3 :], c[m - 3 :]
    P = np.empty((nv, nv))
    r = np.empty(nv)
    P_diag = P.reshape(-1)[:: nv + 1]
    w2 = np.zeros(nv)
    w2[base:] = posture_cost**2
    w2 += DAMPING
    r_posture = r[base:]
    # the box: the velocity limits (hard, constant), the position limits' soft box clipped
    # into it on their joints
    velocity = taskik.VelocityLimit(model)
    hard_lo, hard_hi = np.full(nv, -np.inf), np.full(nv, np.inf)
    hard_lo[velocity.indices], hard_hi[velocity.indices] = -velocity.v_max, velocity.v_max
    position = taskik.ConfigurationLimit(model)
    q_idx, v_idx = position.q_indices, position.indices
    q_min, q_max = position.q_min, position.q_max
    lo_hard, hi_hard = hard_lo[v_idx], hard_hi[v_idx]
    lb, ub = hard_lo.copy(), hard_hi.copy()
    lo, hi = np.empty(len(v_idx)), np.empty(len(v_idx))
    tmp = np.empty(len(q_rows))
    k_dt, inv_dt = CONFIGURATION_GAIN / DT, 1.0 / DT
    q_ref = np.array(q0, dtype=float)[q_rows]
    no_rows = np.zeros((0, nv))
    qp = daqp.Model()
    ready = [False]
    cjj, ufp, jcom = pin.computeJointJacobians, pin.updateFramePlacements, pin.jacobianCenterOfMass
    log6, jlog6, gfj, local = pin.log6, pin.Jlog6, pin.getFrameJacobian, pin.LOCAL
    oMf = data.oMf
    add, sub, mul, dot = np.add, np.subtract, np.multiply, np.dot
    vmax, vmin = np.maximum, np.minimum
    pairs = list(zip(fids, targets_, rows, strict=True))
    with_com = com_goal is not None

    def step(q: np.ndarray) -> np.ndarray:
        cjj(model, data, q)
        ufp(model, data)
        for fid, target, (A_i, c_i) in pairs:
            M = target.actInv(oMf[fid])
            mul(log6(M).vector, -inv_dt, out=c_i)  # Kp e / dt, e = −log6(T*⁻¹ T)
            dot(jlog6(M), gfj(model, data, fid, local), out=A_i)
        if with_com:
            A_com[:] = jcom(model, data, False)
            sub(com_goal, data.com[0], out=c_com)
            mul(c_com, inv_dt, out=c_com)
        dot(A.T, A, out=P)
        dot(c, A, out=r)
        add(P_diag, w2, out=P_diag)
        sub(q_ref, q[q_rows], out=tmp)
        mul(tmp, posture_cost**2 * inv_dt, out=tmp)
        add(r_posture, tmp, out=r_posture)
        np.negative(r, out=r)
        q_lim = q[q_idx]
        sub(q_min, q_lim, out=lo)
        mul(lo, k_dt, out=lo)
        vmax(lo, lo_hard, out=lo)
        vmin(lo, hi_hard, out=lo)
        sub(q_max, q_lim, out=hi)
        mul(hi, k_dt, out=hi)
        vmin(hi, hi_hard, out=hi)
        vmax(hi, lo_hard, out=hi)
        lb[v_idx] = lo
        ub[v_idx] = hi
        if ready[0]:
            qp.update(H=P, f=r, bupper=ub, blower=lb)
        else:
            qp.setup(P, r, no_rows, ub, lb)
            ready[0] = True
        x = qp.solve()[0]
        vmax(x, lb, out=x)
        vmin(x, ub, out=x)
        return x

    return step


def run(name: str, calls: int) -> list[str]:
    import pink

    robot, q0, frames, with_com, posture_cost = robot_scenario(name)
    if any((pc, oc) != (1.0, 1.0) for _, pc, oc in frames):
        raise ValueError(f"{name}: the lean step is written for frame tasks with unit costs")
    model = robot.model
    path = timing.moving_path(model, q0, max(calls, 400))
    m = len(path)
    conf, tasks, limits = build_taskik(model, q0, frames, with_com, posture_cost)
    plain_conf, plain_tasks, plain_limits = build_taskik(model, q0, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_pink(model, q0, frames, with_com, posture_cost)
    goals, com_goal = targets(model, q0, frames)
    lean = lean_step(model, q0, frames, goals, com_goal if with_com else None, posture_cost)
    at = [0]

    def mark(k: int) -> None:
        at[0] = k % m

    def taskik_step():
        conf.update(path[at[0]])
        return taskik.solve_ik(conf, tasks, DT, limits=limits, solver="daqp")

    def taskik_plain():
        plain_conf.update(path[at[0]])
        return taskik.solve_ik(
            plain_conf, plain_tasks, DT, limits=plain_limits, solver="daqp", adaptive=False
        )

    def pink_step():
        pconf.update(path[at[0]])
        return pink.solve_ik(
            pconf, ptasks, DT, solver="daqp", limits=plimits, safety_break=False
        )  # fmt: skip

    def lean_call():
        return lean(path[at[0]])

    agree = timing.largest_difference(mark, lean_call, taskik_plain, m)
    contenders = {
        "lean step": lean_call,
        "taskik": taskik_step,
        "taskik adaptive=False": taskik_plain,
        "pink": pink_step,
    }
    res = timing.interleaved_steps({k: (mark, fn) for k, fn in contenders.items()}, calls)
    med = {k: timing.stats(v) for k, v in res.items()}
    lines = [f"{name} (nv {model.nv}): max |v_lean - v_taskik(adaptive=False)| = {agree:.1e}"]
    for key, (mm, p95) in med.items():
        lines.append(
            f"{name:<7}{key:<24}{mm:>10.1f}{p95:>10.1f}{med['pink'][0] / mm:>10.2f}x"
            f"{mm / med['lean step'][0]:>10.2f}x"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--robots", nargs="+", default=["ur5", "panda", "talos", "g1"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_lean.txt"))
    args = parser.parse_args()
    lines = [
        "The step benchmark's scenes (UR5, Panda, Talos, G1): a hand-fused Python step "
        "written for each scene (same QP as taskik's plain step) vs taskik and pink; DAQP "
        "for all, dt = 0.01 s, moving q",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"daqp {version('daqp')}, pink {version('pin-pink')}, {args.calls} timed calls per "
        "contender, interleaved in 5 rounds",
        f"{'robot':<7}{'variant':<24}{'median µs':>10}{'p95 µs':>10}{'pink/x':>11}{'x/lean':>11}",
    ]
    for name in args.robots:
        lines += run(name, args.calls)
    timing.publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
