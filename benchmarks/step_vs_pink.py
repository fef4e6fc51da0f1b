"""B1: one control step, taskik vs pink, same model, same tasks, same QP solver (DAQP).

Run with ``make bench`` (installs the ``bench`` extra: pin-pink and example-robot-data).
Prints a table of median / p95 µs per call and the pink/taskik ratio, measured in the same
process with interleaved rounds. Writes it to benchmarks/results/step_vs_pink.txt.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import qpsolvers

sys.path.insert(0, str(Path(__file__).parent))
from _timing import closed_loop, interleaved, publish, stats  # noqa: E402

import taskik  # noqa: E402
from taskik.problem import get_assembler  # noqa: E402

try:
    import example_robot_data
    import pink
    import pink.limits
    import pink.tasks
except ImportError as exc:  # pragma: no cover - benchmark dependency
    sys.exit(f"missing benchmark dependency ({exc}); run `make bench`")

DT = 0.01


def scenario(name: str):
    """(model, q, frame tasks [(frame, pos cost, ori cost)], com, posture cost)."""
    if name == "ur5":
        r = example_robot_data.load("ur5")
        q = np.array([0.0, -1.2, 1.5, -1.6, -1.5, 0.3])
        return r.model, q, [("tool0", 1.0, 1.0)], False, 1e-3
    if name == "panda":
        r = example_robot_data.load("panda")
        q = np.array(r.q0, dtype=float)
        return r.model, q, [("panda_hand", 1.0, 1.0)], False, 1e-3
    if name == "talos":
        r = example_robot_data.load("talos")
        frames = [
            ("left_sole_link", 1.0, 1.0),
            ("right_sole_link", 1.0, 1.0),
            ("gripper_left_base_link", 1.0, 1.0),
            ("gripper_right_base_link", 1.0, 1.0),
            ("base_link", 1.0, 1.0),
        ]
        return r.model, np.array(r.q0, dtype=float), frames, True, 1e-2
    raise ValueError(name)


def targets(model, q, frames):
    """Every frame target 10 cm away from its current position (along a fixed direction)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    out = {}
    shift = np.array([0.06, -0.06, 0.05])  # ‖shift‖ ≈ 10 cm
    for frame, _, _ in frames:
        T = pin.SE3(data.oMf[model.getFrameId(frame)])
        T.translation = T.translation + shift
        out[frame] = T
    com = pin.centerOfMass(model, data, q) + np.array([0.02, 0.0, -0.02])
    return out, com


def build_taskik(model, q, frames, with_com, posture_cost):
    conf = taskik.Configuration(model, q)
    T, com = targets(model, q, frames)
    tasks = []
    for frame, pc, oc in frames:
        t = taskik.FrameTask(frame, pc, oc)
        t.set_target(T[frame])
        tasks.append(t)
    if with_com:
        c = taskik.ComTask(1.0)
        c.set_target(com)
        tasks.append(c)
    p = taskik.PostureTask(posture_cost)
    p.set_target_from_configuration(conf)
    tasks.append(p)
    limits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    return conf, tasks, limits


def build_pink(model, q, frames, with_com, posture_cost):
    conf = pink.Configuration(model, model.createData(), q)
    T, com = targets(model, q, frames)
    tasks = []
    for frame, pc, oc in frames:
        t = pink.tasks.FrameTask(frame, position_cost=pc, orientation_cost=oc)
        t.set_target(T[frame])
        tasks.append(t)
    if with_com:
        c = pink.tasks.ComTask(cost=1.0)
        c.set_target(com)
        tasks.append(c)
    p = pink.tasks.PostureTask(cost=posture_cost)
    p.set_target_from_configuration(conf)
    tasks.append(p)
    limits = [pink.limits.ConfigurationLimit(model), pink.limits.VelocityLimit(model)]
    return conf, tasks, limits


def run(name: str, n: int) -> list[tuple]:
    model, q, frames, with_com, posture_cost = scenario(name)
    tconf, ttasks, tlimits = build_taskik(model, q, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_pink(model, q, frames, with_com, posture_cost)

    def taskik_step():
        return taskik.solve_ik(tconf, ttasks, DT, limits=tlimits, solver="daqp")

    def taskik_step_qpsolvers():
        # the same assembly, but DAQP reached through qpsolvers' conversion layer
        asm = get_assembler(tconf, ttasks, tlimits)
        P, r, G, h, lb, ub = asm.assemble(tconf, DT, 1e-12)
        return qpsolvers.solve_qp(P, r, G, h, lb=lb, ub=ub, solver="daqp")

    def pink_step():
        return pink.solve_ik(pconf, ptasks, DT, solver="daqp", limits=plimits)

    def taskik_update():
        tconf.update(q)

    pdata = model.createData()

    def pink_update():
        pink.Configuration(model, pdata, q, copy_data=False)

    v_t, v_p = taskik_step(), pink_step()
    agree = float(np.abs(v_t - v_p).max())

    # closed loop: step + integrate (+ kinematics), restarting from q every 100 steps, so
    # successive QPs differ as in a real control loop
    lconf, ltasks, llimits = build_taskik(model, q, frames, with_com, posture_cost)
    lpconf, lptasks, lplimits = build_pink(model, q, frames, with_com, posture_cost)
    taskik_loop = closed_loop(
        lconf, lambda: taskik.solve_ik(lconf, ltasks, DT, limits=llimits, solver="daqp"), q, DT
    )
    pink_loop = closed_loop(
        lpconf, lambda: pink.solve_ik(lpconf, lptasks, DT, solver="daqp", limits=lplimits), q, DT
    )

    res = interleaved(
        {
            "taskik": taskik_step,
            "taskik via qpsolvers": taskik_step_qpsolvers,
            "pink": pink_step,
            "taskik update": taskik_update,
            "pink update": pink_update,
            "taskik loop step": taskik_loop,
            "pink loop step": pink_loop,
        },
        n,
    )
    med_p, p95_p = stats(res["pink"])
    rows = []
    for key, ref in (
        ("taskik", "pink"),
        ("taskik via qpsolvers", "pink"),
        ("pink", "pink"),
        ("taskik update", "pink update"),
        ("pink update", "pink update"),
        ("taskik loop step", "pink loop step"),
        ("pink loop step", "pink loop step"),
    ):
        med, p95 = stats(res[key])
        ref_med, ref_p95 = stats(res[ref])
        rows.append((name, model.nv, key, med, p95, ref_med / med, ref_p95 / p95))
    rows.append((name, model.nv, "max|v_taskik - v_pink|", agree, float("nan"), 0, 0))
    del med_p, p95_p
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per variant")
    parser.add_argument("--robots", nargs="+", default=["ur5", "panda", "talos"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_vs_pink.txt"))
    args = parser.parse_args()
    lines = [
        "B1: one solve_ik step (tasks + limits + assembly + QP), DAQP, dt = 0.01 s",
        "'update' = kinematics pass alone; 'loop step' = solve_ik + integrate_inplace in a",
        "closed loop (successive QPs differ), restarted from the same q every 100 steps",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"pink {getattr(pink, '__version__', '?')}, qpsolvers {qpsolvers.__version__}, "
        f"{args.calls} calls per variant, interleaved",
        f"{'robot':<7}{'nv':>4}  {'variant':<24}{'median µs':>11}{'p95 µs':>10}"
        f"{'pink/x med':>12}{'pink/x p95':>12}",
    ]
    for name in args.robots:
        print(f"timing {name} ...", file=sys.stderr)
        for robot, nv, key, med, p95, rm, rp in run(name, args.calls):
            if key.startswith("max"):
                lines.append(f"{robot:<7}{nv:>4}  {key:<24}{med:>11.2e}")
            else:
                lines.append(
                    f"{robot:<7}{nv:>4}  {key:<24}{med:>11.1f}{p95:>10.1f}{rm:>11.2f}x{rp:>11.2f}x"
                )
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
