"""How fast can a Python step be? B1's arm scenes solved by a hand-fused step written for
that one scene, against taskik and pink in the same run.

The *lean step* is the least Python we could write that solves exactly taskik's QP of the B1
scene (one ``FrameTask`` with unit costs, ``PostureTask(1e-3)``, ``ConfigurationLimit``
gain 0.5, ``VelocityLimit``, damping 1e-12, dt = 0.01 s, DAQP): the Pinocchio calls of the
step's floor (``benchmarks/step_floor.py``), then every product written into preallocated
arrays, the posture's ``WᵀW`` added to P's diagonal, the box from two subtractions and four
clips, one warm ``daqp.Model`` update and solve, the answer clipped into the box. It has
nothing a library needs: no check of q, dt or targets, no task objects, no plan look-up, no
adaptive damping, no unconstrained shortcut, no failure path, and a posture error
``q* − q`` valid only for revolute joints. Its velocity is compared with taskik's plain
step (``adaptive=False``) at 50 configurations of the path.

The result bounds what B1's target (pink/taskik ≥ 5×) asks of a step written in Python:
taskik's step (general task lists, checked inputs, defaults) would have to be as fast as
this script. The configuration moves on B1's path (``_timing.moving_path``); the lean step
and pink include their kinematics pass, taskik's ``conf.update(q_k)`` is timed with its
step as in ``step_floor.py``; contenders interleaved in rounds. Writes
benchmarks/results/step_lean.txt.

    python benchmarks/step_lean.py [--calls N] [--robots ur5 panda]
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
from _timing import interleaved_steps, moving_path, publish, stats  # noqa: E402
from step_vs_pink import DT, build_pink, build_taskik, robot_scenario, targets  # noqa: E402

import taskik  # noqa: E402

DAMPING = 1e-12
CONFIGURATION_GAIN = 0.5


def lean_step(model: pin.Model, q0: np.ndarray, frame: str, target: pin.SE3, posture_cost: float):
    """The hand-fused step of one arm scene: a function ``q ↦ v``."""
    nv = model.nv
    if model.nq != nv:
        raise ValueError("the lean step's posture error assumes revolute joints (nq = nv)")
    data = model.createData()
    fid = model.getFrameId(frame)
    A = np.empty((6, nv))
    c = np.empty(6)
    P = np.empty((nv, nv))
    r = np.empty(nv)
    P_diag = P.reshape(-1)[:: nv + 1]
    w2 = posture_cost**2
    q_min = np.array(model.lowerPositionLimit, dtype=float)
    q_max = np.array(model.upperPositionLimit, dtype=float)
    v_max = np.array(model.velocityLimit, dtype=float)
    v_min = -v_max
    lb, ub, tmp = np.empty(nv), np.empty(nv), np.empty(nv)
    k_dt, inv_dt = CONFIGURATION_GAIN / DT, 1.0 / DT
    q_ref = np.array(q0, dtype=float)
    no_rows = np.zeros((0, nv))
    qp = daqp.Model()
    ready = [False]
    cjj, ufp = pin.computeJointJacobians, pin.updateFramePlacements
    log6, jlog6, gfj, local = pin.log6, pin.Jlog6, pin.getFrameJacobian, pin.LOCAL
    oMf = data.oMf
    add, sub, mul, dot = np.add, np.subtract, np.multiply, np.dot
    vmax, vmin = np.maximum, np.minimum

    def step(q: np.ndarray) -> np.ndarray:
        cjj(model, data, q)
        ufp(model, data)
        M = target.actInv(oMf[fid])
        mul(log6(M).vector, -inv_dt, out=c)  # Kp e / dt, e = −log6(T*⁻¹ T)
        dot(jlog6(M), gfj(model, data, fid, local), out=A)
        dot(A.T, A, out=P)
        dot(c, A, out=r)
        add(P_diag, w2 + DAMPING, out=P_diag)
        sub(q_ref, q, out=tmp)
        mul(tmp, w2 * inv_dt, out=tmp)
        add(r, tmp, out=r)
        np.negative(r, out=r)
        sub(q_min, q, out=lb)
        mul(lb, k_dt, out=lb)
        vmax(lb, v_min, out=lb)
        vmin(lb, v_max, out=lb)
        sub(q_max, q, out=ub)
        mul(ub, k_dt, out=ub)
        vmin(ub, v_max, out=ub)
        vmax(ub, v_min, out=ub)
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
    if with_com or len(frames) != 1 or frames[0][1:] != (1.0, 1.0):
        raise ValueError(f"{name}: the lean step is written for one frame task with unit costs")
    model = robot.model
    path = moving_path(model, q0, max(calls, 400))
    m = len(path)
    conf, tasks, limits = build_taskik(model, q0, frames, with_com, posture_cost)
    plain_conf, plain_tasks, plain_limits = build_taskik(model, q0, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_pink(model, q0, frames, with_com, posture_cost)
    frame = frames[0][0]
    lean = lean_step(model, q0, frame, targets(model, q0, frames)[0][frame], posture_cost)
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

    agree = 0.0
    for k in range(0, m, max(1, m // 50)):
        mark(k)
        agree = max(agree, float(np.abs(lean_call() - taskik_plain()).max()))
    contenders = {
        "lean step": lean_call,
        "taskik": taskik_step,
        "taskik adaptive=False": taskik_plain,
        "pink": pink_step,
    }
    res = interleaved_steps({k: (mark, fn) for k, fn in contenders.items()}, calls)
    med = {k: stats(v) for k, v in res.items()}
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
    parser.add_argument("--robots", nargs="+", default=["ur5", "panda"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_lean.txt"))
    args = parser.parse_args()
    lines = [
        "B1's arm scenes: a hand-fused Python step written for the one scene (same QP as "
        "taskik's plain step) vs taskik and pink; DAQP for all, dt = 0.01 s, moving q",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"daqp {version('daqp')}, pink {version('pin-pink')}, {args.calls} timed calls per "
        "contender, interleaved in 5 rounds",
        f"{'robot':<7}{'variant':<24}{'median µs':>10}{'p95 µs':>10}{'pink/x':>11}{'x/lean':>11}",
    ]
    for name in args.robots:
        lines += run(name, args.calls)
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
