"""The step benchmark: one control step, taskik vs pink vs mink, same model and tasks, DAQP.

Run with ``make bench`` (installs the ``bench`` extra: pin-pink, mink, mujoco and
example-robot-data). The configuration moves: a smooth path of configurations
(``_timing.moving_path``: a small sinusoid around the start q, clipped into the position
limits, normalised) is set untimed before each timed call (``conf.update(q_k)``), so
consecutive QPs differ as in a real loop; only the ``solve_ik`` call is timed. Contenders
run interleaved in rounds over the same sequence of configurations. Prints median / p95 µs
per call and the pink/x and mink/x ratios; writes benchmarks/results/step_vs_pink.txt.

mink runs on the same URDF loaded into MuJoCo (geometry stripped: the IK needs none; fixed
links kept as bodies so that every task frame exists; mimic tags dropped so that both models
have the same independent joints; a free joint added on the root body of floating-base
robots); joints are matched by name. mink's ConfigurationLimit gets pink's and taskik's gain
(0.5), its VelocityLimit the same limits. Velocities are compared on the same q: taskik
(``adaptive=False``, the plain step) against pink, and against mink mapped back to
Pinocchio's order (a free joint's linear velocity is in the world frame in MuJoCo, in the
base frame in Pinocchio: rotated before comparing), at 50 configurations of the path:
the largest difference, and that divided by the largest |v| component; and each one's
distance to the exact solution on taskik's active set (components at the box held there,
the free part solved with numpy), which shows how much of a difference is DAQP's accuracy.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pinocchio as pin
import qpsolvers

sys.path.insert(0, str(Path(__file__).parent))
from _scenes import robot_scenario, scene_tasks, targets  # noqa: E402
from _timing import closed_loop, interleaved_steps, moving_path, publish, stats  # noqa: E402

import taskik  # noqa: E402
from taskik.problem import get_assembler  # noqa: E402

try:
    import pink
    import pink.limits
    import pink.tasks
except ImportError as exc:  # pragma: no cover - benchmark dependency
    sys.exit(f"missing benchmark dependency ({exc}); run `make bench`")
try:
    import mink
    import mujoco
except ImportError:  # pragma: no cover - mink rows are skipped, saying why
    mink = mujoco = None

DT = 0.01
COMPILER = (
    '<mujoco><compiler fusestatic="false" balanceinertia="true" strippath="false" '
    'angle="radian"/></mujoco>'
)


def scenario(name: str):
    """(model, q, frame tasks [(frame, pos cost, ori cost)], com, posture cost)."""
    robot, *rest = robot_scenario(name)
    return robot.model, *rest


def build_taskik(model, q, frames, with_com, posture_cost):
    conf = taskik.Configuration(model, q)
    T, com = targets(model, q, frames)
    tasks = scene_tasks(taskik, frames, T, com, q, with_com, posture_cost)
    limits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    return conf, tasks, limits


def build_pink(model, q, frames, with_com, posture_cost):
    conf = pink.Configuration(model, model.createData(), q)
    T, com = targets(model, q, frames)
    tasks = scene_tasks(pink.tasks, frames, T, com, q, with_com, posture_cost)
    limits = [pink.limits.ConfigurationLimit(model), pink.limits.VelocityLimit(model)]
    return conf, tasks, limits


def floating(model) -> bool:
    return model.njoints > 1 and model.joints[1].shortname() == "JointModelFreeFlyer"


def mujoco_model(robot):
    """The robot's URDF in MuJoCo: no geometry, no mimic, fixed links kept, free root."""
    text = Path(robot.urdf).read_text()
    for tag in ("visual", "collision"):
        text = re.sub(rf"<{tag}\b.*?</{tag}>", "", text, flags=re.S)
    text = re.sub(r"<mimic\b[^>]*/>", "", text)
    text = re.sub(r"(<robot[^>]*>)", lambda m: m.group(1) + COMPILER, text, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "robot.urdf"
        path.write_text(text)
        spec = mujoco.MjSpec.from_file(str(path))
        if floating(robot.model):
            spec.worldbody.first_body().add_freejoint()
        return spec.compile()


class JointMap:
    """Pinocchio q / v <-> MuJoCo qpos / qvel, joints matched by name (1-dof joints; a
    free flyer first in both, quaternion xyzw <-> wxyz)."""

    def __init__(self, model: pin.Model, mj) -> None:
        self.free = floating(model)
        first = 2 if self.free else 1
        names = [model.names[j] for j in range(first, model.njoints)]
        self.pin_q = np.array([model.idx_qs[model.getJointId(n)] for n in names], dtype=int)
        self.pin_v = np.array([model.idx_vs[model.getJointId(n)] for n in names], dtype=int)
        self.mj_q = np.array([mj.jnt_qposadr[mj.joint(n).id] for n in names], dtype=int)
        self.mj_v = np.array([mj.jnt_dofadr[mj.joint(n).id] for n in names], dtype=int)
        if mj.nq != model.nq or mj.nv != model.nv:
            raise ValueError(f"MuJoCo nq/nv {mj.nq}/{mj.nv} vs Pinocchio {model.nq}/{model.nv}")
        self.nq, self.nv = model.nq, model.nv

    def to_mujoco(self, q: np.ndarray) -> np.ndarray:
        qpos = np.empty(self.nq)
        if self.free:
            qpos[:3], qpos[3], qpos[4:7] = q[:3], q[6], q[3:6]
        qpos[self.mj_q] = q[self.pin_q]
        return qpos

    def velocity_to_pinocchio(self, qvel: np.ndarray, q: np.ndarray) -> np.ndarray:
        v = np.empty(self.nv)
        if self.free:
            R = pin.Quaternion(q[3:7]).toRotationMatrix()  # pin q: [xyz, qx qy qz qw]
            v[:3], v[3:6] = R.T @ qvel[:3], qvel[3:6]
        v[self.pin_v] = qvel[self.mj_v]
        return v


def build_mink(robot, q, frames, with_com, posture_cost):
    """mink's configuration, tasks and limits for the same problem, and the joint map."""
    model = robot.model
    mj = mujoco_model(robot)
    jmap = JointMap(model, mj)
    conf = mink.Configuration(mj, jmap.to_mujoco(q))
    T, com = targets(model, q, frames)
    tasks = []
    for frame, pc, oc in frames:
        t = mink.FrameTask(frame, "body", position_cost=pc, orientation_cost=oc)
        t.set_target(mink.SE3.from_matrix(T[frame].homogeneous))
        tasks.append(t)
    if with_com:
        c = mink.ComTask(cost=1.0)
        c.set_target(com)
        tasks.append(c)
    p = mink.PostureTask(mj, cost=posture_cost)
    p.set_target(jmap.to_mujoco(q))
    tasks.append(p)
    first = 2 if jmap.free else 1
    speeds = {
        model.names[j]: float(model.velocityLimit[model.idx_vs[j]])
        for j in range(first, model.njoints)
    }
    limits = [mink.ConfigurationLimit(mj, gain=0.5), mink.VelocityLimit(mj, speeds)]
    return conf, tasks, limits, jmap


def active_set_solution(asm, conf, v: np.ndarray) -> np.ndarray:
    """The QP's solution on the active set of ``v`` (components within 1e-9 of the box held
    there), the free part solved by numpy: the reference the solvers' v are measured to."""
    P, r, _, _, lb, ub = asm.assemble(conf, DT, 1e-12)
    at_lb, at_ub = np.abs(v - lb) < 1e-9, np.abs(v - ub) < 1e-9
    held = at_lb | at_ub
    free = ~held
    x = np.where(at_lb, lb, np.where(at_ub, ub, 0.0))
    rhs = r[free] + P[np.ix_(free, held)] @ x[held]
    x[free] = np.linalg.solve(P[np.ix_(free, free)], -rhs)
    return x


def run(name: str, n: int, with_mink: bool) -> tuple[list[tuple], list[str]]:
    robot, q, frames, with_com, posture_cost = robot_scenario(name)
    model = robot.model
    names = ", ".join(f for f, _, _ in frames) + (" + CoM" if with_com else "") + " + posture"
    notes = [f"{name}: tasks on {names}"]
    path = moving_path(model, q, max(n, 400))
    m = len(path)
    tconf, ttasks, tlimits = build_taskik(model, q, frames, with_com, posture_cost)
    fconf, ftasks, flimits = build_taskik(model, q, frames, with_com, posture_cost)
    qconf, qtasks, qlimits = build_taskik(model, q, frames, with_com, posture_cost)
    pconf, ptasks, plimits = build_pink(model, q, frames, with_com, posture_cost)

    def taskik_step():
        return taskik.solve_ik(tconf, ttasks, DT, limits=tlimits, solver="daqp")

    def taskik_plain():
        return taskik.solve_ik(fconf, ftasks, DT, limits=flimits, solver="daqp", adaptive=False)

    def taskik_qpsolvers():
        # the same assembly, but DAQP reached through qpsolvers' conversion layer
        asm = get_assembler(qconf, qtasks, qlimits)
        P, r, G, h, lb, ub = asm.assemble(qconf, DT, 1e-12)
        return qpsolvers.solve_qp(P, r, G, h, lb=lb, ub=ub, solver="daqp")

    def pink_step():
        return pink.solve_ik(pconf, ptasks, DT, solver="daqp", limits=plimits, safety_break=False)

    def setter(conf, qs):
        return lambda k: conf.update(qs[k % m])

    at = [0]
    uconf = taskik.Configuration(model, q)
    upconf = pink.Configuration(model, model.createData(), q)

    def mark(k):
        at[0] = k % m

    contenders = {
        "taskik": (setter(tconf, path), taskik_step),
        "taskik adaptive=False": (setter(fconf, path), taskik_plain),
        "taskik via qpsolvers": (setter(qconf, path), taskik_qpsolvers),
        "pink": (setter(pconf, path), pink_step),
        "taskik update": (mark, lambda: uconf.update(path[at[0]])),
        "pink update": (mark, lambda: upconf.update(path[at[0]])),
    }
    mconf = None
    if with_mink:
        try:
            mconf, mtasks, mlimits, jmap = build_mink(robot, q, frames, with_com, posture_cost)
        except Exception as exc:  # noqa: BLE001 - reported in the table, not fatal
            notes.append(f"{name}: mink not run ({type(exc).__name__}: {exc})")
    if mconf is not None:
        mpath = np.array([jmap.to_mujoco(x) for x in path])
        muconf = mink.Configuration(mconf.model, mpath[0])

        def mink_step():
            return mink.solve_ik(mconf, mtasks, DT, solver="daqp", limits=mlimits)

        contenders["mink"] = (setter(mconf, mpath), mink_step)
        contenders["mink update"] = (mark, lambda: muconf.update(mpath[at[0]]))

    # velocities on the same q, every m/50-th configuration of the path
    agree, agree_mink, vmax = 0.0, 0.0, 0.0
    exact = {"taskik": 0.0, "pink": 0.0, "mink": 0.0}
    for k in range(0, m, max(1, m // 50)):
        fconf.update(path[k])
        pconf.update(path[k])
        v_t = taskik_plain().copy()
        vmax = max(vmax, float(np.abs(v_t).max()))
        v_p = pink_step()
        agree = max(agree, float(np.abs(v_t - v_p).max()))
        v_x = active_set_solution(get_assembler(fconf, ftasks, flimits), fconf, v_t)
        exact["taskik"] = max(exact["taskik"], float(np.abs(v_t - v_x).max()))
        exact["pink"] = max(exact["pink"], float(np.abs(v_p - v_x).max()))
        if mconf is not None:
            mconf.update(mpath[k])
            v_m = jmap.velocity_to_pinocchio(mink_step(), path[k])
            agree_mink = max(agree_mink, float(np.abs(v_t - v_m).max()))
            exact["mink"] = max(exact["mink"], float(np.abs(v_m - v_x).max()))

    # closed loop: step + integrate, restarting from q every 100 steps (the loop moves q)
    lconf, ltasks, llimits = build_taskik(model, q, frames, with_com, posture_cost)
    lpconf, lptasks, lplimits = build_pink(model, q, frames, with_com, posture_cost)
    contenders["taskik loop step"] = (
        None,
        closed_loop(
            lconf, lambda: taskik.solve_ik(lconf, ltasks, DT, limits=llimits, solver="daqp"), q, DT
        ),
    )
    contenders["pink loop step"] = (
        None,
        closed_loop(
            lpconf,
            lambda: pink.solve_ik(
                lpconf, lptasks, DT, solver="daqp", limits=lplimits, safety_break=False
            ),
            q,
            DT,
        ),
    )
    if mconf is not None:
        lmconf, lmtasks, lmlimits, _ = build_mink(robot, q, frames, with_com, posture_cost)
        contenders["mink loop step"] = (
            None,
            closed_loop(
                lmconf,
                lambda: mink.solve_ik(lmconf, lmtasks, DT, solver="daqp", limits=lmlimits),
                jmap.to_mujoco(q),
                DT,
            ),
        )

    res = interleaved_steps(contenders, n)
    med = {k: stats(v) for k, v in res.items()}
    refs = {"": ("pink", "mink"), "update": ("pink update", "mink update")}
    refs["loop step"] = ("pink loop step", "mink loop step")
    rows = []
    for key in contenders:
        kind = "update" if key.endswith("update") else "loop step" if "loop" in key else ""
        ratios = []
        for ref in refs[kind]:
            if ref in med:
                ratios += [med[ref][0] / med[key][0], med[ref][1] / med[key][1]]
            else:
                ratios += [float("nan")] * 2
        rows.append((name, model.nv, key, *med[key], *ratios))
    rows.append((name, model.nv, "max|v_taskik - v_pink|", agree, agree / vmax))
    if mconf is not None:
        rows.append((name, model.nv, "max|v_taskik - v_mink|", agree_mink, agree_mink / vmax))
    for who in ("taskik", "pink", "mink") if mconf is not None else ("taskik", "pink"):
        rows.append((name, model.nv, f"max|v_{who} - v_exact|", exact[who], exact[who] / vmax))
    return rows, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per contender")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 calls")
    parser.add_argument("--robots", nargs="+", default=["ur5", "panda", "talos", "g1"])
    parser.add_argument("--mink-robots", nargs="*", default=["ur5", "panda", "talos", "g1"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/step_vs_pink.txt"))
    args = parser.parse_args()
    calls = 200 if args.quick else args.calls
    mink_version = version("mink") if mink is not None else "absent"
    lines = [
        "The step benchmark: one solve_ik step (tasks + limits + assembly + QP), DAQP for all, "
        "dt = 0.01 s",
        "moving q: before each timed call, conf.update(q_k) untimed, q_k on a smooth path "
        "(sinusoid of 0.1 rad around the start q,",
        "period 400 steps, clipped into the limits); contenders interleaved over the same q_k",
        "'taskik' = defaults (adaptive=True); 'update' = conf.update(q_k) alone; 'loop step' = "
        "solve_ik + integrate_inplace in a",
        "closed loop restarted from the start q every 100 steps; pink with safety_break=False",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"pink {version('pin-pink')}, mink {mink_version}, "
        f"mujoco {getattr(mujoco, '__version__', 'absent')}, daqp {version('daqp')}, "
        f"{calls} timed calls per contender, interleaved in 5 rounds",
    ]
    if mink is None:
        lines.append("mink rows skipped: mink / mujoco not installed")
    table = [
        f"{'robot':<7}{'nv':>4}  {'variant':<24}{'median µs':>11}{'p95 µs':>10}"
        f"{'pink/x med':>12}{'pink/x p95':>12}{'mink/x med':>12}{'mink/x p95':>12}",
    ]
    for name in args.robots:
        print(f"timing {name} ...", file=sys.stderr)
        rows, notes = run(name, calls, mink is not None and name in args.mink_robots)
        lines += notes
        for robot, nv, key, *vals in rows:
            if key.startswith("max"):
                table.append(
                    f"{robot:<7}{nv:>4}  {key:<24}{vals[0]:>11.2e}   (relative to max|v|: "
                    f"{vals[1]:.1e})"
                )
                continue
            med, p95, *ratios = vals
            cells = "".join(f"{'':>12}" if np.isnan(x) else f"{x:>11.2f}x" for x in ratios)
            table.append(f"{robot:<7}{nv:>4}  {key:<24}{med:>11.1f}{p95:>10.1f}{cells}")
    publish("\n".join(lines + table), args.out)


if __name__ == "__main__":
    main()
