"""Collision avoidance benchmark: Talos self-collision, taskik's CollisionLimit vs pink's
SelfCollisionBarrier (same geometry, same pairs, same tasks, DAQP), in the same run.

Run with ``make .venv/.installed-bench && .venv/bin/python benchmarks/collisions.py``.
Reports, median / p95 µs per closed-loop step (kinematics + collisions + QP + integrate):

- taskik without collisions, taskik with the limit, pink with the barrier (convex hulls,
  the geometry taskik uses), pink with the URDF's meshes as loaded (a few steps only);
- the cost per monitored pair: taskik's step as the detection distance grows from 0 to
  every pair, and the broadphase's saving (near pairs only vs every pair evaluated);
- the closest distance reached in a loop that brings the right hand to the left hip.

Writes the table to benchmarks/results/collisions.txt.

``--near-pairs``: the cost per near pair instead (no pink needed). For detection distances
from 1 cm to every pair, the median over a closed loop of the pairs near, the candidates of
the bounding-sphere and bounding-capsule broadphase, the GJK calls per step (after the lower
bounds), and the step's median µs against the step without collisions; the µs per near pair
is the difference divided by the pairs near. Writes benchmarks/results/collisions_near.txt.

``--check N``: N closed-loop steps (hand to hip, then random hand targets), at each the pairs
kept and their distances against a direct coal computation of every pair; prints the largest
difference (m) and the steps whose near pairs differ (no timing).

``--instructions none|limit [--steps N] [--detection D] [--target hip|front]``: N steps of
the hand-to-hip loop (``front``: the hand sent forward and out instead; at ``--detection
0.02``, 3 pairs within d_i) with callgrind's instrumentation on for them only; run under
``valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=F`` and read the
instructions with ``callgrind_annotate F | grep TOTALS`` (repeatable whatever the load).

``--soak N``: N closed-loop steps of the Panda reaching random targets among spheres, boxes,
capsules, cylinders and a mesh (half of them moving at up to 0.5 m/s) over a half-space table,
then N of Talos reaching random hand targets; counts the relaxed steps and the steps closer
than d_s − 0.1 mm, split into reported (the step's relaxation named the pair), foreseen (the
previous step's did, and the pair came no closer than the depth it gave: the obstacle's move
it predicted), recovering (named earlier, or inside d_s from the scene's start, and not
closer since) and not reported (each printed with its scene and step); NaN in v, q or the
distances, joint position and velocity limits exceeded, exceptions by kind, the closest
distance (no timing). ``--scenes 3,7`` runs those scenes (numbered from 0 across both robots)
as in the full soak, the others' random draws only; ``--out part.json`` saves a part's
figures and ``--merge part*.json`` adds the parts up and writes
benchmarks/results/collisions_soak.txt (as does a full run of N ≥ 10,000).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import closed_loop, interleaved, publish, stats  # noqa: E402

import taskik  # noqa: E402
from taskik.geometry import convexify  # noqa: E402
from taskik.limits.collision import CollisionLimit  # noqa: E402

try:
    import pink
    import pink.barriers
    import pink.limits
    import pink.tasks
except ImportError:  # pragma: no cover - benchmark dependency (not for --near-pairs/--check)
    pink = None

DT = 0.01
FRAMES = ["left_sole_link", "right_sole_link", "gripper_left_base_link", "base_link"]
HAND = "gripper_right_base_link"


def hand_target(model, q):
    """The right gripper's target: in front of the left hip (across the body)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    T = pin.SE3(data.oMf[model.getFrameId(HAND)])
    hip = data.oMf[model.getFrameId("leg_left_1_link")].translation
    T.translation = hip + np.array([0.25, 0.0, 0.05])
    return data, T


def taskik_loop(robot, limits, q0, target: str = "hip"):
    """The closed loop: feet, left hand and base held, the right hand sent to ``target``:
    ``hip`` (across the body, in front of the left hip) or ``front`` (forward and out, away
    from the body: 3 pairs within 2 cm)."""
    conf = taskik.Configuration(robot.model, q0)
    data, hand = hand_target(robot.model, q0)
    if target == "front":
        start = data.oMf[robot.model.getFrameId(HAND)].translation
        hand.translation = start + np.array([0.25, -0.15, 0.15])
    tasks = []
    for frame in FRAMES:
        task = taskik.FrameTask(frame, 1.0, 1.0)
        task.set_target(pin.SE3(data.oMf[robot.model.getFrameId(frame)]))
        tasks.append(task)
    reach = taskik.PositionTask(HAND, 1.0)
    reach.set_target(hand.translation)
    posture = taskik.PostureTask(1e-2)
    posture.set_target(q0)
    tasks += [reach, posture]
    return conf, lambda: taskik.solve_ik(conf, tasks, DT, limits, solver="daqp")


def pink_loop(robot, geometry, q0, n_pairs):
    data = robot.model.createData()
    conf = pink.Configuration(
        robot.model, data, q0, collision_model=geometry, collision_data=pin.GeometryData(geometry)
    )
    _, hand = hand_target(robot.model, q0)
    tasks = []
    for frame in FRAMES:
        task = pink.tasks.FrameTask(frame, position_cost=1.0, orientation_cost=1.0)
        task.set_target(conf.get_transform_frame_to_world(frame))
        tasks.append(task)
    reach = pink.tasks.FrameTask(HAND, position_cost=1.0, orientation_cost=0.0)
    reach.set_target(hand)
    posture = pink.tasks.PostureTask(cost=1e-2)
    posture.set_target(q0)
    tasks += [reach, posture]
    barrier = pink.barriers.SelfCollisionBarrier(n_collision_pairs=n_pairs, d_min=0.01)
    limits = [
        pink.limits.ConfigurationLimit(robot.model),
        pink.limits.VelocityLimit(robot.model),
    ]

    def solve():
        return pink.solve_ik(
            conf, tasks, DT, solver="daqp", limits=limits, barriers=[barrier], safety_break=False
        )

    return conf, solve


def closest(limit, conf) -> float:
    return float(limit.distances(conf, all_pairs=True).distance.min())


class GJKCounter:
    """Counts ``pin.computeDistance`` calls (the scene's GJK calls) while installed."""

    def __init__(self) -> None:
        self.calls = 0
        self._compute = pin.computeDistance

    def __enter__(self) -> GJKCounter:
        def counting(*args):
            self.calls += 1
            return self._compute(*args)

        pin.computeDistance = counting
        return self

    def __exit__(self, *exc: object) -> None:
        pin.computeDistance = self._compute


def near_pairs_table() -> None:
    """Cost per near pair: step time, rows and GJK calls as the detection distance grows."""
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    model = robot.model
    base = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    conf_a, solve_a = taskik_loop(robot, base, q0)
    plain_step = closed_loop(conf_a, solve_a, q0, DT)
    plain, _ = stats(interleaved({"x": plain_step}, 1000)["x"])
    lines = [
        "Talos self-collision: cost per near pair (closed loop, DAQP, median of each column)",
        f"python {platform.python_version()}, pinocchio {pin.__version__}",
        f"step without collisions: {plain:.0f} µs",
        "near: pairs within d_i; rows: pairs with rows (d_i grown by the lookahead, and those "
        "the check after the solve added); GJK: calls per step; again: share of the steps "
        "solved again after the check; / plain: the step against the step without "
        "collisions timed in the same rounds",
        "",
        f"{'d_i m':>6s} {'near':>5s} {'rows':>5s} {'GJK':>5s} {'again':>6s} "
        f"{'step µs':>8s} {'/ plain':>8s} {'µs per near pair':>17s}",
    ]
    for d_i in (0.012, 0.02, 0.05, 0.1, 0.2, 0.5, 5.0):
        limit = CollisionLimit(robot, detection_distance=d_i, safety_distance=0.005, buffer=0.002)
        conf, solve = taskik_loop(robot, [*base, limit], q0)
        near, rows, gjk, again = [], [], [], 0
        check = limit.check_step

        def counted(*args, check=check):
            nonlocal again
            found = check(*args)
            again += found is not None
            return found

        limit.check_step = counted  # type: ignore[method-assign]
        for k in range(200):
            if k % 100 == 0:
                conf.update(q0)
            with GJKCounter() as counter:
                v = solve()
            gjk.append(counter.calls)
            last = limit._last
            rows.append(len(last.pairs) if last is not None else 0)
            near.append(int(np.sum(last.distance < d_i)) if last is not None else 0)
            conf.integrate_inplace(v, DT)
        limit.check_step = check  # type: ignore[method-assign]
        conf.update(q0)
        timed = interleaved({"x": closed_loop(conf, solve, q0, DT), "p": plain_step}, 500)
        m, _ = stats(timed["x"])
        ratio = m / stats(timed["p"])[0]
        n = float(np.median(near))
        per = (ratio - 1.0) * plain / n if n > 0 else float("nan")
        lines.append(
            f"{d_i:6.3f} {n:5.0f} {np.median(rows):5.0f} {np.median(gjk):5.0f} "
            f"{again / 200:6.1%} {m:8.0f} {ratio:8.2f} {per:17.1f}"
        )
    publish("\n".join(lines), Path(__file__).parent / "results" / "collisions_near.txt")


def coal_distances(scene) -> np.ndarray:
    """Every pair's distance by coal.distance at the scene's current placements."""
    import coal

    gm, gd = scene.geometry_model, scene.geometry_data
    truth = np.empty(len(scene.pairs))
    for k, (a, b) in enumerate(scene.pairs):
        A, B = gd.oMg[int(a)], gd.oMg[int(b)]
        truth[k] = coal.distance(
            gm.geometryObjects[int(a)].geometry,
            coal.Transform3s(A.rotation, A.translation),
            gm.geometryObjects[int(b)].geometry,
            coal.Transform3s(B.rotation, B.translation),
            gd.distanceRequests[k],
            coal.DistanceResult(),
        )
    return truth


def check_against_coal(steps: int) -> None:
    """The limit's near pairs and distances against coal.distance on every pair: those of
    the rows of each step solved (within the detection distance, and the check's), and
    those of ``distances()`` after it."""
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    model = robot.model
    limit = CollisionLimit(robot)
    base = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    conf, solve = taskik_loop(robot, [*base, limit], q0)
    rng = np.random.default_rng(0)
    reach = taskik.PositionTask("gripper_left_base_link", 1.0)
    worst, mismatched, nan = 0.0, 0, 0
    row_worst, row_missing = 0.0, 0
    scene = limit.scene
    d_i = limit.detection_distance
    for step in range(steps):
        if step and step % 200 == 0:  # a new random target for the left hand
            hand = conf.get_transform_frame_to_world("gripper_left_base_link").translation
            reach.set_target(hand + rng.uniform(-0.4, 0.4, 3))
        v = solve()
        rows = limit._last  # the pairs with rows at the step just solved, and their distances
        truth = coal_distances(scene)  # (the placements of that step)
        want = set(np.flatnonzero(truth < d_i - 1e-6).tolist())
        have = set() if rows is None else set(rows.pairs.tolist())
        row_missing += int(not want <= have)
        if rows is not None and len(rows.pairs):
            row_worst = max(row_worst, float(np.abs(rows.distance - truth[rows.pairs]).max()))
        conf.integrate_inplace(v, DT)
        near = limit.distances(conf)
        truth = coal_distances(scene)
        nan += int(not np.all(np.isfinite(near.distance)))
        want = set(np.flatnonzero(truth < d_i - 1e-6).tolist())
        mismatched += int(not want <= set(near.pairs.tolist()))
        if len(near.pairs):
            worst = max(worst, float(np.abs(near.distance - truth[near.pairs]).max()))
    print(
        f"{steps} steps: distances(): largest |d − coal| {worst:.2e} m, steps missing a near "
        f"pair {mismatched}, steps with NaN {nan}; the rows of the steps solved: largest "
        f"|d − coal| {row_worst:.2e} m, steps missing a pair within d_i {row_missing}"
    )


def panda_scene(rng):
    """The Panda among obstacles of every kind over a half-space table (half of them moving)."""
    from taskik import geometry

    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand").translation
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) * 0.08
    obstacles, velocities = [geometry.halfspace("table", [0.0, 0.0, 1.0], 0.2)], [np.zeros(3)]
    makers = [
        lambda n, p: geometry.sphere(n, rng.uniform(0.03, 0.08), p),
        lambda n, p: geometry.box(n, rng.uniform(0.05, 0.15, 3), p),
        lambda n, p: geometry.capsule(n, rng.uniform(0.02, 0.05), rng.uniform(0.05, 0.2), p),
        lambda n, p: geometry.cylinder(n, rng.uniform(0.02, 0.05), rng.uniform(0.05, 0.2), p),
        lambda n, p: geometry.mesh(n, cube, [[0, 1, 2]], p),
    ]
    for k, make in enumerate(makers * 2):
        centre = hand + rng.uniform([-0.5, -0.5, -0.2], [0.2, 0.5, 0.3])
        obstacles.append(
            make(f"o{k}", pin.SE3(pin.rpy.rpyToMatrix(*rng.uniform(-1, 1, 3)), centre))
        )
        speed = rng.uniform(0.0, 0.5) if k % 2 else 0.0
        direction = rng.standard_normal(3)
        velocities.append(speed * direction / np.linalg.norm(direction))
    limit = CollisionLimit(robot, obstacles=obstacles)
    return robot, conf, limit, obstacles, velocities


def soak(steps: int, only: set[int] | None = None) -> dict:
    """Closed loops among obstacles and on Talos: steps closer than d_s − 0.1 mm, NaN, errors.

    ``only``: the scene indices (from 0, numbered across both robots) to simulate; the
    others only draw their random numbers (which do not depend on the motion), so that a
    scene can be run alone as it is in the full soak, and the soak split across processes
    (``--out``, then ``--merge``).

    The obstacles start moving after a scene's first step: the scene is checked clear at
    their first poses, and a step's collision rows can allow for an obstacle's motion only
    from the second step on (the first has no motion history)."""
    from taskik.exceptions import NoSolutionFound

    rng = np.random.default_rng(0)
    scene = -1
    unreported: list[str] = []
    closest = {"panda": (np.inf, ""), "talos": (np.inf, "")}
    tables: dict[str, dict[str, int]] = {}
    for robot_name in ("panda", "talos"):
        counts = {
            "steps": 0,
            "closer": 0,
            "relaxed steps": 0,
            "closer, reported": 0,
            "closer, foreseen": 0,
            "closer, recovering": 0,
            "closer, NOT reported": 0,
            "nan": 0,
            "position limit exceeded": 0,
            "velocity limit exceeded": 0,
            "no solution": 0,
            "other errors": 0,
        }
        tables[robot_name] = counts
        done = 0
        while done < steps:
            if robot_name == "panda":
                robot, conf, limit, obstacles, velocities = panda_scene(rng)
                frames = ["panda_hand"]
            else:
                robot = taskik.robots.load("talos")
                conf = robot.configuration()
                limit, obstacles, velocities = CollisionLimit(robot), [], []
                frames = list(robot.end_effectors[2:])
            if limit.clearance(conf) < 0.0:  # a start in collision: another scene
                continue
            scene += 1
            model = robot.model
            tasks = []
            for frame in frames:
                task = taskik.PositionTask(frame, 1.0)
                here = conf.get_transform_frame_to_world(frame).translation
                task.set_target(here + rng.uniform(-0.4, 0.4, 3))
                tasks.append(task)
            if robot_name == "talos":
                for frame in robot.end_effectors[:2]:
                    foot = taskik.FrameTask(frame, 1.0, 1.0)
                    foot.set_target_from_configuration(conf)
                    tasks.append(foot)
            posture = taskik.PostureTask(1e-2)
            posture.set_target(robot.q0)
            limits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model), limit]
            names = np.array(limit.pair_names)
            d_before = np.full(len(names), np.inf)
            wake = np.zeros(len(names), dtype=bool)  # named by a relaxation, not back at d_s
            # per pair, the depth the last step's relaxation gave it (0: not named): a step's
            # rows carry the obstacles' predicted move over the next step, so an approach
            # within that depth at the next step was reported a step ahead
            foreseen = np.zeros(len(names))
            lower, upper = model.lowerPositionLimit, model.upperPositionLimit
            bounded = np.isfinite(lower) & np.isfinite(upper)
            for joint in model.joints:  # a floating base's placeholder bounds are not limits
                if joint.shortname() == "JointModelFreeFlyer":
                    bounded[joint.idx_q : joint.idx_q + joint.nq] = False
            v_max = model.velocityLimit
            if only is not None and scene not in only:
                done += 200
                continue
            start = limit.distances(conf, all_pairs=True)
            d_before[start.pairs] = start.distance
            wake = d_before < limit.safety_distance - 1e-4  # (a start inside d_s: pushed out)
            for k in range(200):
                for obstacle, velocity in zip(obstacles, velocities, strict=True):
                    if velocity.any() and k:  # (a translation: the pose keeps its rotation)
                        pose = obstacle.pose.copy()
                        pose.translation = pose.translation + velocity * DT
                        obstacle.move_to(pose)
                try:
                    v = taskik.solve_ik(conf, [*tasks, posture], DT, limits, solver="daqp")
                except NoSolutionFound:
                    counts["no solution"] += 1
                    break
                except Exception:  # noqa: BLE001 - counted
                    counts["other errors"] += 1
                    break
                relaxation = taskik.last_relaxation(conf)
                depth = np.zeros(len(names))
                for r in relaxation.rows if relaxation else []:
                    i = np.flatnonzero(names == r.row)
                    depth[i] = np.maximum(depth[i], r.depth)
                named = depth > 0.0
                wake |= named
                counts["relaxed steps"] += bool(relaxation)
                if not np.all(np.isfinite(v)):
                    counts["nan"] += 1
                    v = np.zeros(model.nv)
                counts["velocity limit exceeded"] += int(np.any(np.abs(v) > v_max + 1e-9))
                conf.integrate_inplace(v, DT)
                q = conf.q
                counts["nan"] += int(not np.all(np.isfinite(q)))
                counts["position limit exceeded"] += int(
                    np.any((q < lower - 1e-9)[bounded] | (q > upper + 1e-9)[bounded])
                )
                found = limit.distances(conf, all_pairs=True)
                every = found.distance
                d_after = np.full(len(names), np.inf)
                d_after[found.pairs] = every
                counts["steps"] += 1
                done += 1
                counts["nan"] += int(not np.all(np.isfinite(every)))
                low = float(every.min()) if len(every) else np.inf
                if low < closest[robot_name][0]:
                    closest[robot_name] = (low, f"scene {scene} step {k}, {names[every.argmin()]}")
                # closer than d_s − 0.1 mm: reported when this step's relaxation named the pair;
                # foreseen when the last step's did and the pair came no closer than its depth
                # (the obstacle's move at the start of this step, which it predicted);
                # recovering when an earlier one did and it has not come closer since
                close = d_after < limit.safety_distance - 1e-4
                if close.any():
                    counts["closer"] += 1
                    ahead = (foreseen > 0.0) & (d_after >= d_before - foreseen - 1e-4)
                    recovering = wake & (d_after >= d_before - 1e-4)
                    missed = np.flatnonzero(close & ~(named | ahead | recovering))
                    if len(missed):
                        counts["closer, NOT reported"] += 1
                    elif (close & named).any():
                        counts["closer, reported"] += 1
                    elif (close & ahead).any():
                        counts["closer, foreseen"] += 1
                    else:
                        counts["closer, recovering"] += 1
                    for i in missed:
                        unreported.append(
                            f"  {robot_name} scene {scene} step {k}: {names[i]} "
                            f"{d_before[i] * 1e3:.2f} -> {d_after[i] * 1e3:.2f} mm"
                        )
                        print("NOT reported:" + unreported[-1], flush=True)
                wake &= close
                d_before = d_after
                foreseen = depth
        print(robot_name, counts, flush=True)
    return {"steps": steps, "tables": tables, "closest": closest, "unreported": unreported}


def merge_soaks(parts: list[dict]) -> dict:
    """One soak's figures from the parts run by separate processes (``--scenes``)."""
    tables = {
        robot: {key: sum(p["tables"][robot][key] for p in parts) for key in table}
        for robot, table in parts[0]["tables"].items()
    }
    closest = {
        robot: tuple(min((tuple(p["closest"][robot]) for p in parts), key=lambda c: c[0]))
        for robot in parts[0]["closest"]
    }
    unreported = [line for p in parts for line in p["unreported"]]
    return {
        "steps": parts[0]["steps"],
        "tables": tables,
        "closest": closest,
        "unreported": unreported,
    }


def soak_table(result: dict, write: bool) -> None:
    """Print the soak's table; with ``write``, also to benchmarks/results/collisions_soak.txt."""
    tables, closest, unreported, steps = (
        result["tables"],
        result["closest"],
        result["unreported"],
        result["steps"],
    )
    lines = [
        "Collision soak: closed loops of solve_ik's default step (DAQP), 200 steps per scene,",
        "random targets. Panda: spheres, boxes, capsules, cylinders and a mesh, half of them",
        "moving at up to 0.5 m/s, over a half-space table; Talos: self-collision, random hand",
        "targets, feet held. CollisionLimit defaults (d_s = 10 mm).",
        f"seed 0, {steps} steps per robot ({platform.machine()}, Python "
        f"{platform.python_version()}, taskik {taskik.__version__})",
        "",
        f"{'':42s} {'Panda':>9s} {'Talos':>9s}",
    ]
    for key in tables["panda"]:
        lines.append(f"{key:42s} {tables['panda'][key]:9d} {tables['talos'][key]:9d}")
    for name, (low, where) in closest.items():
        lines.append(f"closest distance, {name}: {low * 1e3:.2f} mm ({where})")
    lines += ["steps closer than d_s - 0.1 mm NOT reported:", *unreported] if unreported else []
    text = "\n".join(lines)
    print(text)
    if write:
        path = Path(__file__).parent / "results" / "collisions_soak.txt"
        path.write_text(text + "\n")
        print(f"written to {path}")


def instructions(mode: str, steps: int, detection: float, target: str = "hip") -> None:
    """``steps`` closed-loop steps of the hand-to-hip loop (or, ``target="front"``, of the
    hand sent forward and out, away from the body) after 30 untimed ones, with
    callgrind's instrumentation on for those steps only (run under
    ``valgrind --tool=callgrind --instr-atstart=no``; ``callgrind_annotate`` then gives the
    instructions of the steps alone). ``mode``: ``none`` (no collision limit) or ``limit``."""
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    base = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    if detection == 0.05:  # the defaults
        limit = CollisionLimit(robot)
    else:  # the table's distances (--near-pairs)
        limit = CollisionLimit(
            robot, detection_distance=detection, safety_distance=0.005, buffer=0.002
        )
    conf, solve = taskik_loop(robot, base if mode == "none" else [*base, limit], q0, target)
    instrumented_steps(conf, solve, steps)


def instrumented_steps(conf: Any, solve: Callable[[], np.ndarray], steps: int) -> None:
    """30 closed-loop steps of ``conf`` by ``solve()``, then ``steps`` more with callgrind's
    instrumentation on (``callgrind_control -i on|off`` on this process)."""
    import os
    import subprocess

    for _ in range(30):
        conf.integrate_inplace(solve(), DT)

    def toggle(state: str) -> None:
        command = ["callgrind_control", "-i", state, str(os.getpid())]
        subprocess.run(command, check=False, capture_output=True)

    toggle("on")
    for _ in range(steps):
        conf.integrate_inplace(solve(), DT)
    toggle("off")


def main() -> None:
    if pink is None:
        sys.exit("missing benchmark dependency pink; run `make .venv/.installed-bench`")
    robot = taskik.robots.load("talos")
    q0 = np.array(robot.q0, dtype=float)
    model = robot.model
    base = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model)]
    limit = CollisionLimit(robot)
    n_pairs = len(limit.pair_names)
    hulls = convexify(robot.collision_model)
    pairs_model = hulls.copy()
    pairs_model.removeAllCollisionPairs()
    for a, b in limit.selection.pairs:
        pairs_model.addCollisionPair(pin.CollisionPair(a, b))
    meshes = robot.collision_model.copy()
    meshes.removeAllCollisionPairs()
    for a, b in limit.selection.pairs:
        meshes.addCollisionPair(pin.CollisionPair(a, b))

    lines = [
        "Talos self-collision against pink, closed-loop step (kinematics + collisions + QP + "
        "integrate)",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"pin-pink {getattr(pink, '__version__', '?')}, DAQP for both",
        str(limit.selection),
        f"detection {limit.detection_distance} m, safety {limit.safety_distance} m",
        "",
    ]

    conf_a, solve_a = taskik_loop(robot, base, q0)
    conf_b, solve_b = taskik_loop(robot, [*base, limit], q0)
    conf_c, solve_c = pink_loop(robot, pairs_model, q0, n_pairs)
    rows = len(limit.distances(taskik.Configuration(model, q0)).pairs)
    conf_e, solve_e = pink_loop(robot, pairs_model, q0, rows)
    contenders = {
        "taskik, no collisions": closed_loop(conf_a, solve_a, q0, DT),
        "taskik, CollisionLimit": closed_loop(conf_b, solve_b, q0, DT),
        f"pink, barrier on the {rows} closest pairs": closed_loop(conf_e, solve_e, q0, DT),
    }
    samples = interleaved(contenders, 1000)
    slow = {"pink, barrier on every pair (hulls)": closed_loop(conf_c, solve_c, q0, DT)}
    samples.update(interleaved(slow, 50, rounds=1))
    med = {k: stats(v) for k, v in samples.items()}
    lines.append(f"{'contender':44s} {'median µs':>10s} {'p95 µs':>10s}")
    for name, (m, p) in med.items():
        lines.append(f"{name:44s} {m:10.0f} {p:10.0f}")
    mine = med["taskik, CollisionLimit"][0]
    for name in list(med)[2:]:
        lines.append(f"{name} / taskik with collisions: {med[name][0] / mine:.1f}x")
    lines.append(
        "(pink computes every pair's distance in its configuration update, the same hulls)"
    )
    conf_d, solve_d = pink_loop(robot, meshes, q0, n_pairs)
    mesh_steps = interleaved({"m": closed_loop(conf_d, solve_d, q0, DT)}, 10, rounds=1)["m"]
    lines.append(
        f"pink with the URDF meshes as loaded: {np.median(mesh_steps) / 1e3:.0f} ms per step "
        f"({np.median(mesh_steps) / med['taskik, CollisionLimit'][0]:.0f}x taskik)"
    )

    lines += ["", "cost per monitored pair (taskik step, detection distance grown):"]
    conf = taskik.Configuration(model, q0)
    for d_i in (0.02, 0.05, 0.1, 0.2, 0.5, 5.0):
        lim = CollisionLimit(robot, detection_distance=d_i, safety_distance=0.005, buffer=0.002)
        near = len(lim.distances(conf).pairs)
        c, s = taskik_loop(robot, [*base, lim], q0)
        m, _ = stats(interleaved({"x": closed_loop(c, s, q0, DT)}, 300, rounds=1)["x"])
        lines.append(f"  d_i {d_i:5.2f} m: {near:4d} pairs with rows, step {m:7.0f} µs")
    broad = interleaved(
        {
            "near only": lambda: limit.distances(conf),
            "every pair": lambda: limit.distances(conf, all_pairs=True),
        },
        500,
    )
    lines.append(
        "  distances, broadphase (near pairs) {:.0f} µs vs every pair {:.0f} µs".format(
            stats(broad["near only"])[0], stats(broad["every pair"])[0]
        )
    )

    lines += ["", "closest distance over 300 steps of the hand-to-hip loop:"]
    for name, limits in (("taskik with limit", [*base, limit]), ("taskik, no limit", base)):
        c, s = taskik_loop(robot, limits, q0)
        low = np.inf
        for _ in range(300):
            c.integrate_inplace(s(), DT)
            low = min(low, closest(limit, c))
        lines.append(f"  {name:20s} {low * 1e3:8.2f} mm")
    c, s = pink_loop(robot, pairs_model, q0, n_pairs)
    low = np.inf
    for _ in range(300):
        c.integrate_inplace(s(), DT)
        low = min(low, closest(limit, taskik.Configuration(model, c.q)))
    lines.append(f"  {'pink with barrier':20s} {low * 1e3:8.2f} mm")
    publish("\n".join(lines), Path(__file__).parent / "results" / "collisions.txt")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--near-pairs", action="store_true", help="the cost per near pair")
    parser.add_argument("--check", type=int, default=0, help="N steps checked against coal")
    parser.add_argument("--soak", type=int, default=0, help="N steps per robot, counted")
    parser.add_argument(
        "--instructions",
        choices=["none", "limit"],
        help="N steps (--steps) under callgrind's instrumentation, without or with the limit",
    )
    parser.add_argument("--steps", type=int, default=200, help="steps for --instructions")
    parser.add_argument("--detection", type=float, default=0.05, help="d_i for --instructions")
    parser.add_argument(
        "--target",
        choices=["hip", "front"],
        default="hip",
        help="with --instructions: the right hand to the left hip, or forward and out",
    )
    parser.add_argument(
        "--scenes",
        type=lambda text: {int(e) for e in text.split(",")},
        default=None,
        help="with --soak: the scene indices (from 0) to run, the others' draws skipped",
    )
    parser.add_argument("--out", help="with --soak: the figures to this JSON file (a part)")
    parser.add_argument("--merge", nargs="+", help="JSON parts of one soak: merged, written")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.instructions, args.steps, args.detection, args.target)
    elif args.merge:
        soak_table(merge_soaks([json.loads(Path(f).read_text()) for f in args.merge]), True)
    elif args.soak:
        result = soak(args.soak, args.scenes)
        if args.out:
            Path(args.out).write_text(json.dumps(result))
        soak_table(result, args.scenes is None and args.soak >= 10000)
    elif args.check:
        check_against_coal(args.check)
    elif args.near_pairs:
        near_pairs_table()
    else:
        main()
