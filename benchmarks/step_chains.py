"""One solve_ik step on synthetic serial chains (nv 50, 100, 200), taskik vs pink, DAQP.

The chains are built in code: revolute joints about alternating axes (z, y, z, …), links of
0.1 m along x, position limits ±2.5 rad, velocity limits 2 rad/s, a frame ``tip`` 0.1 m past
the last joint. Tasks: a FrameTask on the tip (costs 1, 1) and a PostureTask (cost 1e-3, target
the start q); limits: ConfigurationLimit (gain 0.5) and VelocityLimit.

Two cases, both with a moving q (``_timing.moving_path``, amplitude 0.05 rad, set untimed
with ``conf.update(q_k)`` before each timed ``solve_ik``; contenders interleaved over the
same q_k):

- ``free``: the start q is a gentle curl (0.3 rad … on every joint); the tip target is the
  tip pose *at q_k* moved by 5 mm and turned by 0.01 rad, the posture target q_k itself
  (both set untimed with the configuration), so that no bound is active;
- ``bound``: every other joint starts at 2.48 rad (2 cm from its upper limit, where the
  ConfigurationLimit bound is 0.5 · 0.02 / dt = 1 rad/s) and the tip target is fixed 1 m
  away, so that position and velocity bounds clip the step.

The share of active bounds (a component of taskik's v within 1e-9 of its box) is printed for
each case, so the case is what it says. The velocities of taskik (``adaptive=False``) and
pink are compared at the same 20 points (with no bound active, P = JᵀJ + 1e-3 I is
ill-conditioned on long chains). Prints median / p95 µs and pink/taskik; writes
benchmarks/results/step_chains.txt.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import interleaved_steps, moving_path, publish, stats  # noqa: E402

import taskik  # noqa: E402

try:
    import pink
    import pink.limits
    import pink.tasks
except ImportError as exc:  # pragma: no cover - benchmark dependency
    sys.exit(f"missing benchmark dependency ({exc}); run `make bench`")

DT = 0.01
Q_LIMIT, V_LIMIT, LINK = 2.5, 2.0, 0.1
GAIN = 0.5  # ConfigurationLimit's default gain, taskik's and pink's


def chain(n: int) -> pin.Model:
    """A serial chain of ``n`` revolute joints about z, y, z, … with a ``tip`` frame."""
    model = pin.Model()
    model.name = f"chain{n}"
    parent = 0
    for i in range(n):
        joint = pin.JointModelRZ() if i % 2 == 0 else pin.JointModelRY()
        offset = pin.SE3(np.eye(3), np.array([LINK if i else 0.0, 0.0, 0.0]))
        parent = model.addJoint(
            parent,
            joint,
            offset,
            f"joint{i}",
            np.array([100.0]),
            np.array([V_LIMIT]),
            np.array([-Q_LIMIT]),
            np.array([Q_LIMIT]),
        )
        inertia = pin.Inertia(0.5, np.array([LINK / 2, 0.0, 0.0]), np.eye(3) * 1e-3)
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    tip = pin.SE3(np.eye(3), np.array([LINK, 0.0, 0.0]))
    model.addFrame(pin.Frame("tip", parent, tip, pin.FrameType.OP_FRAME))
    return model


def start_q(n: int, case: str) -> np.ndarray:
    if case == "free":
        return 0.3 * np.sin(np.arange(n) * 0.7) + 0.05
    q = 0.3 * np.sin(np.arange(n) * 0.7)
    q[::2] = Q_LIMIT - 0.02
    return q


def tip_pose(model, data, q) -> pin.SE3:
    pin.framesForwardKinematics(model, data, q)
    return pin.SE3(data.oMf[model.getFrameId("tip")])


def nudge(T: pin.SE3, shift: np.ndarray, turn: float) -> pin.SE3:
    out = pin.SE3(T)
    out.translation = T.translation + shift
    out.rotation = T.rotation @ pin.exp3(np.array([0.0, 0.0, turn]))
    return out


def build(model, q):
    """(taskik conf, tasks, limits), (pink conf, tasks, limits): the same problem."""
    tconf = taskik.Configuration(model, q)
    tframe = taskik.FrameTask("tip", 1.0, 1.0)
    tpost = taskik.PostureTask(1e-3)
    tpost.set_target(q)
    tlimits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    pconf = pink.Configuration(model, model.createData(), q)
    pframe = pink.tasks.FrameTask("tip", position_cost=1.0, orientation_cost=1.0)
    ppost = pink.tasks.PostureTask(cost=1e-3)
    ppost.set_target(q)
    plimits = [pink.limits.ConfigurationLimit(model), pink.limits.VelocityLimit(model)]
    return (tconf, [tframe, tpost], tlimits), (pconf, [pframe, ppost], plimits)


def active_share(v: np.ndarray, q: np.ndarray) -> float:
    """Share of v's components at their box (position bound at gain 0.5, or speed)."""
    ub = np.minimum(V_LIMIT, GAIN * (Q_LIMIT - q) / DT)
    lb = np.maximum(-V_LIMIT, GAIN * (-Q_LIMIT - q) / DT)
    return float(np.mean((v >= ub - 1e-9) | (v <= lb + 1e-9)))


def run(n: int, case: str, calls: int) -> tuple:
    model = chain(n)
    data = model.createData()
    q0 = start_q(n, case)
    path = moving_path(model, q0, max(calls, 400), amplitude=0.05)
    m = len(path)
    if case == "free":
        shift, turn = np.array([0.003, -0.003, 0.0025]), 0.01
        goals = [nudge(tip_pose(model, data, q), shift, turn) for q in path]
    else:
        goal = nudge(tip_pose(model, data, q0), np.array([0.6, -0.6, 0.5]), 0.3)
        goals = [goal] * m
    (tconf, ttasks, tlimits), (pconf, ptasks, plimits) = build(model, q0)
    (fconf, ftasks, flimits), _ = build(model, q0)

    def setter(conf, tasks):
        frame_task, posture = tasks

        def prepare(k: int) -> None:
            conf.update(path[k % m])
            frame_task.set_target(goals[k % m])
            if case == "free":
                posture.set_target(path[k % m])

        return prepare

    def taskik_step():
        return taskik.solve_ik(tconf, ttasks, DT, limits=tlimits, solver="daqp")

    def taskik_plain():
        return taskik.solve_ik(fconf, ftasks, DT, limits=flimits, solver="daqp", adaptive=False)

    def pink_step():
        return pink.solve_ik(pconf, ptasks, DT, solver="daqp", limits=plimits, safety_break=False)

    agree, vmax, shares = 0.0, 0.0, []
    set_f, set_p = setter(fconf, ftasks), setter(pconf, ptasks)
    for k in range(0, m, max(1, m // 20)):
        set_f(k)
        set_p(k)
        v = taskik_plain()
        vmax = max(vmax, float(np.abs(v).max()))
        agree = max(agree, float(np.abs(v - pink_step()).max()))
        shares.append(active_share(v, path[k]))
    res = interleaved_steps(
        {
            "taskik": (setter(tconf, ttasks), taskik_step),
            "taskik adaptive=False": (set_f, taskik_plain),
            "pink": (set_p, pink_step),
        },
        calls,
    )
    med = {k: stats(v) for k, v in res.items()}
    return med, float(np.mean(shares)), agree, agree / vmax


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--quick", action="store_true", help="smoke run: 100 calls")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_chains.txt"))
    args = parser.parse_args()
    calls = 100 if args.quick else args.calls
    lines = [
        "one solve_ik step on serial chains of revolute joints, DAQP for all, dt = 0.01 s",
        "FrameTask(tip) + PostureTask(1e-3), ConfigurationLimit + VelocityLimit (±2.5 rad, "
        "2 rad/s); moving q (0.05 rad sinusoid),",
        "conf.update(q_k) and the tip target set untimed; 'free': target 5 mm / 0.01 rad from "
        "the tip at q_k, posture target q_k; 'bound': half the",
        "joints 2 cm from a limit, target 1 m away; 'active' = share of v's components at "
        "their box (taskik, 20 path points)",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"pink {version('pin-pink')}, daqp {version('daqp')}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, "
        f"{calls} timed calls per contender, interleaved in 5 rounds",
        f"{'nv':>4}  {'case':<6}{'active':>7}  {'variant':<22}{'median µs':>11}{'p95 µs':>10}"
        f"{'pink/x med':>12}{'pink/x p95':>12}",
    ]
    summary = []
    for n in args.sizes:
        for case in ("free", "bound"):
            print(f"timing nv {n}, {case} ...", file=sys.stderr)
            med, share, agree, rel = run(n, case, calls)
            for key, (mm, p95) in med.items():
                lines.append(
                    f"{n:>4}  {case:<6}{share:>7.0%}  {key:<22}{mm:>11.1f}{p95:>10.1f}"
                    f"{med['pink'][0] / mm:>11.2f}x{med['pink'][1] / p95:>11.2f}x"
                )
            lines.append(
                f"{n:>4}  {case:<6}{'':>7}  {'max|v_taskik - v_pink|':<22}{agree:>11.2e}"
                f"   (relative to max|v|: {rel:.1e}; taskik adaptive=False, 20 path points)"
            )
            summary.append(f"nv {n} {case}: {med['pink'][0] / med['taskik'][0]:.2f}x")
    lines.append("pink/taskik median (target >= 3x): " + ", ".join(summary))
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
