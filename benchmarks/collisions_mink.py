"""Collision avoidance against mink: Talos self-collision, taskik's CollisionLimit vs mink's
CollisionAvoidanceLimit (same URDF, same pairs, same tasks, DAQP), in the same run.

Run with ``make .venv/.installed-bench && .venv/bin/python benchmarks/collisions_mink.py``
(the ``bench`` extra brings ``mink`` and ``mujoco``).

The MuJoCo model is built from example-robot-data's ``talos_reduced.urdf``: a copy with the
``package://`` URIs made absolute and a ``<mujoco><compiler/></mujoco>`` element
(collision geometry only, fixed links kept as bodies so that every frame of the tasks
exists), then a free joint added on ``base_link`` through ``mujoco.MjSpec``. MuJoCo, like
taskik, measures mesh distances on convex hulls.

Pairs: each of taskik's pairs (geometry indices of ``CollisionLimit(robot).selection``) is
mapped to MuJoCo geoms through the parent link's name (``arm_left_3_link_0`` is the first
collision geom of body ``arm_left_3_link``) and given to mink as a pair of one-geom groups.

Configurations: pinocchio's ``q`` is ``[x y z qx qy qz qw, joints in pinocchio's order]``,
MuJoCo's ``qpos`` is ``[x y z qw qx qy qz, joints in the URDF body-tree order]``; joints are
matched by name (``jnt_qposadr``), the quaternion reordered. The map is checked at ``q0``:
frame positions, and every pair's distance (taskik vs ``mj_geomDistance``).

``--instructions mink|mink-none [--steps N]``: N closed-loop steps of mink's hand-to-hip loop
with (``mink``) or without (``mink-none``) its CollisionAvoidanceLimit, after 30 untimed ones,
with callgrind's instrumentation on for those steps only, as ``collisions.py --instructions``
does for taskik (run under ``valgrind --tool=callgrind --instr-atstart=no`` and read
``callgrind_annotate F | grep TOTALS``): the two libraries' steps in instructions, whatever
the load.

Reports median / p95 µs per closed-loop step (kinematics + collisions + QP + integrate),
the ratio mink / taskik, and, over 300 steps of the hand-to-hip loop (measured by taskik's
CollisionLimit on the mapped ``q``), the closest distance and the largest share of its
margin ``d - d_s`` a near pair closed in one step. Writes
benchmarks/results/collisions_mink.txt.
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

sys.path.insert(0, str(Path(__file__).parent))
from _timing import closed_loop, interleaved, publish, stats  # noqa: E402
from collisions import (  # noqa: E402
    DT,
    FRAMES,
    HAND,
    hand_target,
    instrumented_steps,
    taskik_loop,
)

import taskik  # noqa: E402
from taskik.limits.collision import CollisionLimit  # noqa: E402

try:
    import example_robot_data
    import mink
    import mujoco
except ImportError as exc:  # pragma: no cover - benchmark dependency
    sys.exit(f"missing benchmark dependency ({exc}); run `make .venv/.installed-bench`")

URDF = "talos_data/robots/talos_reduced.urdf"
COMPILER = (
    '<mujoco><compiler discardvisual="true" fusestatic="false" strippath="false" '
    'balanceinertia="true"/></mujoco>'
)
D_S, D_I = 0.01, 0.05


def mujoco_talos() -> mujoco.MjModel:
    """MuJoCo model of example-robot-data's Talos (collision geoms only, free base)."""
    robots = Path(example_robot_data.getModelPath(URDF)).resolve()
    text = (robots / URDF).read_text()
    text = text.replace("package://example-robot-data/robots/", f"{robots}/")
    text = re.sub(r"(<robot[^>]*>)", lambda m: m.group(1) + COMPILER, text, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "talos.urdf"
        path.write_text(text)
        spec = mujoco.MjSpec.from_file(str(path))
        spec.body("base_link").add_freejoint()
        return spec.compile()


class QMap:
    """Pinocchio ``q`` <-> MuJoCo ``qpos`` for the same robot, joints matched by name."""

    def __init__(self, model: pin.Model, mj: mujoco.MjModel) -> None:
        self.pin_idx, self.mj_idx = [], []
        for j in range(2, model.njoints):  # 1 is the free flyer
            name = model.names[j]
            self.pin_idx.append(model.idx_qs[j])
            self.mj_idx.append(mj.jnt_qposadr[mj.joint(name).id])
        self.nq = model.nq

    def to_mujoco(self, q: np.ndarray) -> np.ndarray:
        qpos = np.empty(self.nq)
        qpos[:3] = q[:3]
        qpos[3], qpos[4:7] = q[6], q[3:6]  # xyzw -> wxyz
        qpos[self.mj_idx] = q[self.pin_idx]
        return qpos

    def to_pinocchio(self, qpos: np.ndarray) -> np.ndarray:
        q = np.empty(self.nq)
        q[:3] = qpos[:3]
        q[3:6], q[6] = qpos[4:7], qpos[3]
        q[self.pin_idx] = qpos[self.mj_idx]
        return q


def geom_pairs(robot, mj: mujoco.MjModel, pairs) -> list[tuple[list[int], list[int]]]:
    """taskik's pairs of geometry indices as mink's pairs of one-geom groups."""

    def geom(i: int) -> int:
        name = robot.collision_model.geometryObjects[i].name
        link, k = name.rsplit("_", 1)
        body = mj.body(link).id
        return int(np.flatnonzero(mj.geom_bodyid == body)[int(k)])

    return [([geom(a)], [geom(b)]) for a, b in pairs]


def mink_loop(
    robot, mj: mujoco.MjModel, qmap: QMap, q0: np.ndarray, pairs, gain: float | None = 0.85
):
    """mink's closed loop with the tasks of collisions.taskik_loop; ``gain`` that of the
    CollisionAvoidanceLimit (0.85 is mink's default), None for no collision limit."""
    conf = mink.Configuration(mj, qmap.to_mujoco(q0))
    _, hand = hand_target(robot.model, q0)
    tasks = []
    for frame in FRAMES:
        task = mink.FrameTask(frame, "body", position_cost=1.0, orientation_cost=1.0)
        task.set_target_from_configuration(conf)
        tasks.append(task)
    reach = mink.FrameTask(HAND, "body", position_cost=1.0, orientation_cost=0.0)
    reach.set_target(mink.SE3.from_translation(hand.translation))
    posture = mink.PostureTask(mj, cost=1e-2)
    posture.set_target(qmap.to_mujoco(q0))
    tasks += [reach, posture]
    model = robot.model
    speeds = {
        model.names[j]: float(model.velocityLimit[model.idx_vs[j]]) for j in range(2, model.njoints)
    }
    limits = [mink.ConfigurationLimit(mj), mink.VelocityLimit(mj, speeds)]
    if gain is not None:
        limits.append(
            mink.CollisionAvoidanceLimit(
                mj,
                pairs,
                gain=gain,
                minimum_distance_from_collisions=D_S,
                collision_detection_distance=D_I,
            )
        )

    def solve() -> np.ndarray:
        return mink.solve_ik(conf, tasks, DT, solver="daqp", limits=limits)

    return conf, solve, limits


def check_map(robot, mj, qmap, q0, limit, mink_pairs) -> list[str]:
    """Frame positions and pair distances of both models at q0 (the map's check)."""
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q0)
    mjd = mujoco.MjData(mj)
    mjd.qpos[:] = qmap.to_mujoco(q0)
    mujoco.mj_kinematics(mj, mjd)
    frames = [*FRAMES, HAND, "arm_left_4_link", "leg_right_4_link"]
    gap = max(
        np.linalg.norm(data.oMf[model.getFrameId(f)].translation - mjd.xpos[mj.body(f).id])
        for f in frames
    )
    report = limit.distances(taskik.Configuration(model, q0), all_pairs=True)
    ours = dict(zip(report.pairs.tolist(), report.distance, strict=True))  # scene pair index
    fromto = np.empty(6)
    diffs = np.array(
        [
            abs(mujoco.mj_geomDistance(mj, mjd, ga, gb, 10.0, fromto) - ours[i])
            for i, ([ga], [gb]) in enumerate(mink_pairs)
        ]
    )
    return [
        f"map check at q0: frame positions agree within {gap * 1e6:.1f} µm; pair distances "
        f"(taskik hulls vs mj_geomDistance, {len(diffs)} pairs): median |diff| "
        f"{np.median(diffs) * 1e6:.3f} µm, max {diffs.max() * 1e6:.2f} µm",
    ]


def watch(limit: CollisionLimit, model: pin.Model, qs: list[np.ndarray]) -> tuple[float, float]:
    """Closest distance over the configurations ``qs`` of a loop, and the largest share
    (d_k - d_k+1) / (d_k - d_s) of its margin that a pair within (d_s + 1 mm, d_i) closed in
    one step (the damper's gain, as realised)."""
    dist = np.empty((len(qs), len(limit.selection.pairs)))
    for k, q in enumerate(qs):
        report = limit.distances(taskik.Configuration(model, q), all_pairs=True)
        dist[k, report.pairs] = report.distance
    now, nxt = dist[:-1], dist[1:]
    inside = (now > D_S + 1e-3) & (now < D_I)
    share = (now - nxt)[inside] / (now - D_S)[inside]
    return float(dist.min()), float(share.max(initial=0.0))


def instructions(mode: str, steps: int) -> None:
    """``steps`` steps of mink's loop (see the module's docstring) under callgrind's
    instrumentation; ``mode`` ``mink`` (with its collision limit) or ``mink-none``."""
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    limit = CollisionLimit(robot, safety_distance=D_S, detection_distance=D_I)
    mj = mujoco_talos()
    qmap = QMap(robot.model, mj)
    pairs = geom_pairs(robot, mj, limit.selection.pairs)
    conf, solve, _ = mink_loop(robot, mj, qmap, q0, pairs, 0.85 if mode == "mink" else None)
    instrumented_steps(conf, solve, steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", choices=["mink", "mink-none"])
    parser.add_argument("--steps", type=int, default=200, help="steps for --instructions")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.instructions, args.steps)
        return
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    model = robot.model
    base = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    limit = CollisionLimit(robot, safety_distance=D_S, detection_distance=D_I)
    mj = mujoco_talos()
    qmap = QMap(model, mj)
    pairs = geom_pairs(robot, mj, limit.selection.pairs)
    conf_m, solve_m, mink_limits = mink_loop(robot, mj, qmap, q0, pairs)
    kept = len(mink_limits[-1].geom_id_pairs)

    lines = [
        "Talos self-collision against mink, closed-loop step "
        "(kinematics + collisions + QP + integrate)",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"mink {version('mink')}, mujoco {mujoco.__version__}, DAQP for both",
        str(limit.selection),
        f"mink: the same {len(pairs)} pairs given, {kept} kept by its own filters "
        f"(welded bodies, parent-child, contype); d_s {D_S} m, d_i {D_I} m both; "
        "mink's default gain 0.85",
        *check_map(robot, mj, qmap, q0, limit, pairs),
        "",
    ]

    conf_a, solve_a = taskik_loop(robot, base, q0)
    conf_b, solve_b = taskik_loop(robot, [*base, limit], q0)
    conf_n, solve_n, _ = mink_loop(robot, mj, qmap, q0, pairs, gain=None)
    q0_mj = qmap.to_mujoco(q0)
    contenders = {
        "taskik, no collisions": closed_loop(conf_a, solve_a, q0, DT),
        "mink, no collisions": closed_loop(conf_n, solve_n, q0_mj, DT),
        "taskik, CollisionLimit": closed_loop(conf_b, solve_b, q0, DT),
        "mink, CollisionAvoidanceLimit": closed_loop(conf_m, solve_m, q0_mj, DT),
    }
    samples = interleaved(contenders, 1000)
    med = {k: stats(v) for k, v in samples.items()}
    lines.append(f"{'contender (1000 timed steps each)':44s} {'median µs':>10s} {'p95 µs':>10s}")
    for name, (m, p) in med.items():
        lines.append(f"{name:44s} {m:10.0f} {p:10.0f}")
    ratio = med["mink, CollisionAvoidanceLimit"][0] / med["taskik, CollisionLimit"][0]
    ratio_p95 = med["mink, CollisionAvoidanceLimit"][1] / med["taskik, CollisionLimit"][1]
    base_ratio = med["mink, no collisions"][0] / med["taskik, no collisions"][0]
    lines += [
        f"mink / taskik with collisions: {ratio:.2f}x median, {ratio_p95:.2f}x p95",
        f"mink / taskik without collisions: {base_ratio:.2f}x median",
        "collision part of the step (median with - without): taskik "
        f"{med['taskik, CollisionLimit'][0] - med['taskik, no collisions'][0]:.0f} µs, mink "
        f"{med['mink, CollisionAvoidanceLimit'][0] - med['mink, no collisions'][0]:.0f} µs",
    ]

    lines += [
        "",
        "hand-to-hip loop, 300 steps (taskik's measure on the mapped q): closest distance;",
        f"largest share of the margin d - d_s closed in one step by a pair within ({D_S}, {D_I}) m",
    ]
    c, s = taskik_loop(robot, [*base, limit], q0)
    runs = [("taskik with limit", c, s, lambda q: q)]
    for name, gain in (("mink with limit (gain 0.85)", 0.85), ("mink with limit, gain 0.5", 0.5)):
        c, s, _ = mink_loop(robot, mj, qmap, q0, pairs, gain)
        runs.append((name, c, s, qmap.to_pinocchio))
    c, s, _ = mink_loop(robot, mj, qmap, q0, pairs, None)
    runs.append(("mink, no limit", c, s, qmap.to_pinocchio))
    for name, c, s, to_pin in runs:
        qs = []
        for _ in range(300):
            c.integrate_inplace(s(), DT)
            qs.append(np.array(to_pin(c.q)))
        low, share = watch(limit, model, qs)
        lines.append(f"  {name:30s} {low * 1e3:8.2f} mm   {share:6.3f}")
    lines.append(
        "(mink 1.3.0 bounds the approach by gain (d - d_s) / dt, its QP variable being the "
        "displacement v dt: the bound binds only near d_s)"
    )
    publish("\n".join(lines), Path(__file__).parent / "results" / "collisions_mink.txt")


if __name__ == "__main__":
    main()
