"""A moving-obstacle soak of the default step: the Panda among spheres and boxes moving at up
to 0.5 m/s above a table, reaching for random hand targets.

Each episode (seeded, 1,000 steps of 10 ms) draws a table (a half-space in even episodes, a
box in odd ones), two to four obstacles (spheres, boxes and slabs: flat boxes 30–60 cm wide)
that swing between two points (speed ``|B − A| ω / 2 ≤ 0.5 m/s``, acceleration ≤ 2 m/s²:
the collision rows predict an obstacle's next step from its last), half of them aimed at the
hand's target (re-aimed at each new one), and a new reachable hand target every 2.5 s, 3–40
cm above the table. The loop is the one a user writes: ``solve_ik`` with its defaults (position,
velocity and collision limits; ``CollisionLimit`` with its default distances), then
``integrate_inplace``. What is counted, per step:

- exceptions raised by the default step (the loop goes on with ``v = 0``);
- steps where the limits conflict and the step relaxed rows (``taskik.last_relaxation``):
  the old default, and ``strict=True``, raise ``NoSolutionFound`` on exactly these steps;
  the depth of each relaxed row (``slack · dt``, m) and of the deepest row per step;
- after the step, every monitored pair closer than ``d_s − 0.1 mm``, sorted into: named by
  the step's relaxation; *foreseen* by the previous step's relaxation (the obstacles move
  at the start of a step, before it is solved, and a step's rows carry the obstacles'
  predicted move over the next one: a relaxation that named the pair with depth ``D``
  reported that move a step ahead, and the pair came no closer than ``D`` + 0.1 mm);
  *recovering* (an earlier step's relaxation named it, it has not been back beyond
  ``d_s − 0.1 mm`` since, and this step did not bring it closer by more than 0.1 mm: pushed
  out at the damper's rate); and *not reported*, split into pairs with the half-space table
  and the others (each printed with its episode and step);
- NaN in ``v`` or ``q``; joint position or velocity limits exceeded (by more than 1e-9);
  the closest distance, where it was reached and how it was counted.

    python benchmarks/moving_obstacles.py            # 30 episodes × 1,000 steps
    python benchmarks/moving_obstacles.py --episodes 2 --steps 200   # a quick look
    python benchmarks/moving_obstacles.py --only 21  # episode 21 alone, as in the full run

``--only`` runs the episodes listed (from 0) and only draws the others' random numbers, which
do not depend on the robot's motion: an episode is the same as in the full run with the
same ``--steps``.

Writes the table to benchmarks/results/moving_obstacles.txt (full runs only).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik import geometry

DT = 0.01
MAX_SPEED = 0.5  # m/s, obstacles
MAX_ACCELERATION = 2.0  # m/s², obstacles (the collision rows predict a constant velocity)
TARGET_EVERY = 250  # steps
SEED = 20261126
LIMIT_TOL = 1e-9
CLOSE_TOL = 1e-4  # m: "closer than d_s − 0.1 mm"
RESULT = Path(__file__).parent / "results" / "moving_obstacles.txt"


class Swing:
    """An obstacle moving between A and B: p(t) = A + (B − A)(1 − cos ω(t − t0))/2, at most
    ``speed`` m/s; an aimed one is re-aimed at every new hand target."""

    def __init__(
        self, obstacle: geometry.Obstacle, a: np.ndarray, b: np.ndarray, speed: float, aimed: bool
    ):
        self.obstacle, self.speed, self.aimed = obstacle, speed, aimed
        self.lift = 0.0  # (the lowest height of its centre above the table)
        self.aim(a, b, 0.0)

    def aim(self, a: np.ndarray, b: np.ndarray, t0: float) -> None:
        """Swing from a to b from time t0: peak speed |b − a| ω / 2, peak acceleration
        |b − a| ω² / 2, the first capped at ``speed``, the second at MAX_ACCELERATION."""
        self.a, self.b, self.t0 = a, b, t0
        span = max(float(np.linalg.norm(b - a)), 1e-9)
        self.omega = min(2.0 * self.speed / span, np.sqrt(2.0 * MAX_ACCELERATION / span))

    def at(self, t: float) -> np.ndarray:
        return self.a + (self.b - self.a) * 0.5 * (1.0 - np.cos(self.omega * (t - self.t0)))


def near_target(rng, target: np.ndarray, top: float, lift: float) -> np.ndarray:
    """A point at the hand target (above it or beside it), the obstacle above the table."""
    b = target + rng.uniform(-0.08, 0.08, 3) + [0.0, 0.0, rng.uniform(0.0, 0.1)]
    b[2] = max(b[2], top + lift)
    return b


def workspace_point(rng: np.random.Generator, top: float, lift: float) -> np.ndarray:
    return np.array(
        [rng.uniform(0.05, 0.8), rng.uniform(-0.5, 0.5), top + lift + rng.uniform(0.0, 0.6)]
    )


def hand_target(rng, model, data, fid, top):
    """A hand position reached by some configuration within the joint limits, 3–40 cm above
    the table and in front of the robot."""
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    while True:
        q = rng.uniform(lo, hi)
        pin.framesForwardKinematics(model, data, q)
        p = data.oMf[fid].translation.copy()
        if top + 0.03 <= p[2] <= top + 0.4 and p[0] >= 0.2:
            return p


def episode(
    robot, rng: np.random.Generator, index: int, steps: int, tally: dict, simulate: bool = True
) -> None:
    """One episode; with ``simulate=False``, only its random draws (which do not depend on
    the robot's motion), so that a later episode can be run alone with the same scene."""
    model = robot.model
    conf = robot.configuration()
    top = 0.0
    if index % 2 == 0:
        table = geometry.halfspace("table", [0.0, 0.0, 1.0], top)
    else:
        table = geometry.box("table", [1.6, 1.6, 0.1], [0.3, 0.0, top - 0.05])
    halfspace_table = index % 2 == 0
    limit = taskik.CollisionLimit(robot, obstacles=[table])
    d_s = limit.safety_distance
    swings: list[Swing] = []
    data = model.createData()
    fid = model.getFrameId("panda_hand")
    first_target = hand_target(rng, model, data, fid, top)
    for k in range(int(rng.integers(2, 5))):
        for _ in range(100):  # away from the arm at the start
            kind = rng.random()
            if kind < 0.4:
                radius = rng.uniform(0.04, 0.1)
                obstacle = geometry.sphere(f"sphere{k}", radius)
                lift = radius
            else:  # a box, or a slab (a flat box: what pins a hand against the table)
                slab = kind > 0.7
                size = rng.uniform(0.05, 0.3, 3)
                if slab:
                    size = np.r_[rng.uniform(0.3, 0.6, 2), rng.uniform(0.03, 0.06)]
                obstacle = geometry.box(f"{'slab' if slab else 'box'}{k}", size)
                lift = 0.5 * float(size[2])
            a = workspace_point(rng, top, lift)
            b = workspace_point(rng, top, lift)
            aimed = rng.random() < 0.5  # swings at the hand's target (from above or aside)
            if aimed:
                b = near_target(rng, first_target, top, lift)
            swing = Swing(obstacle, a, b, MAX_SPEED * rng.uniform(0.3, 1.0), aimed)
            swing.lift = lift
            obstacle.move_to(a)
            limit.add_obstacle(obstacle)
            if limit.clearance(conf) > limit.detection_distance:
                swings.append(swing)
                break
            limit.remove_obstacle(obstacle.name)
    hand = taskik.PositionTask("panda_hand", 1.0)
    rest = taskik.PostureTask(1e-3)
    rest.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model), limit]
    names = limit.pair_names
    table_pairs = np.array(["/ table" in n for n in names])
    before = limit.distances(conf, all_pairs=True)
    d_before = np.full(len(names), np.inf)
    d_before[before.pairs] = before.distance
    wake = np.zeros(len(names), dtype=bool)  # pairs a relaxation named, not yet back at d_s
    # the depth (m) the last step's relaxation gave each pair it named: it foresaw the
    # obstacles' move at the start of this step (the rows carry the obstacles' predicted
    # motion over the next step), so an approach within it was reported a step ahead
    foreseen: dict[str, float] = {}
    for k in range(steps):
        if k % TARGET_EVERY == 0 and k:
            target = hand_target(rng, model, data, fid, top)
            hand.set_target(target)
            for swing in swings:
                if swing.aimed:
                    here = swing.obstacle.pose.translation.copy()
                    swing.aim(here, near_target(rng, target, top, swing.lift), k * DT)
        elif k == 0:
            hand.set_target(first_target)
        t = (k + 1) * DT
        for swing in swings:
            swing.obstacle.move_to(swing.at(t))
        if not simulate:
            continue
        try:
            v = taskik.solve_ik(conf, [hand, rest], DT, limits)
        except Exception as exc:  # noqa: BLE001 - counted, the loop goes on
            tally["exceptions"][type(exc).__name__] += 1
            v = np.zeros(model.nv)
        relaxation = taskik.last_relaxation(conf)
        tally["steps"] += 1
        named: dict[str, float] = {}
        if relaxation:
            tally["relaxed_steps"] += 1
            tally["fallback"] += relaxation.fallback
            tally["bounds"] += bool(relaxation.bounds)
            depths = [r.depth for r in relaxation.rows]
            tally["row_depths"] += depths
            if depths:
                tally["step_depths"].append(max(depths))
            for r in relaxation.rows:
                named[r.row] = max(named.get(r.row, 0.0), r.depth)
            wake |= np.array([n in named for n in names])
            tally["relaxed_rows"] += len(relaxation.rows)
            tally["relaxed_table"] += sum("/ table" in n for n in named)
        if not np.isfinite(v).all():
            tally["nan"] += 1
            v = np.zeros(model.nv)
        if np.any(np.abs(v) > model.velocityLimit + LIMIT_TOL):
            tally["velocity_violations"] += 1
        conf.integrate_inplace(v, DT)
        q = conf.q
        if not np.isfinite(q).all():
            tally["nan"] += 1
        if np.any(q < model.lowerPositionLimit - LIMIT_TOL) or np.any(
            q > model.upperPositionLimit + LIMIT_TOL
        ):
            tally["position_violations"] += 1
        after = limit.distances(conf, all_pairs=True)
        d_after = np.full(len(names), np.inf)
        d_after[after.pairs] = after.distance
        close = np.flatnonzero(d_after < d_s - CLOSE_TOL)
        closest = int(np.argmin(d_after))
        if len(close):
            tally["close_steps"] += 1
            kinds = set()
            for i in close:
                if names[i] in named:
                    kind = "reported"
                elif (
                    names[i] in foreseen
                    and d_after[i] >= d_before[i] - foreseen[names[i]] - CLOSE_TOL
                ):
                    kind = "foreseen"
                elif wake[i] and d_after[i] >= d_before[i] - CLOSE_TOL:
                    kind = "recovering"
                else:
                    kind = (
                        "unreported_halfspace"
                        if table_pairs[i] and halfspace_table
                        else "unreported_other"
                    )
                    tally["unreported_pairs"][names[i]] += 1
                    tally["unreported_steps"].append(
                        f"  episode {index} step {k}: {names[i]} {d_before[i] * 1e3:.2f} -> "
                        f"{d_after[i] * 1e3:.2f} mm"
                    )
                    print("NOT reported:" + tally["unreported_steps"][-1], flush=True)
                    tally["unreported_depths"].append(d_s - d_after[i])
                    near_before = d_before[i] < limit.detection_distance
                    tally["unreported_near_before" if near_before else "unreported_far_before"] += 1
                    deep_before = d_before[i] < d_s - CLOSE_TOL
                    tally["unreported_deeper" if deep_before else "unreported_entered"] += 1
                kinds.add(kind)
                if i == closest and d_after[i] < tally["min_distance"]:
                    tally["min_distance"] = float(d_after[i])
                    tally["min_where"] = f"episode {index} step {k}, {names[i]}, {kind}"
            for kind in kinds:
                tally[kind] += 1
        tally["min_distance"] = min(tally["min_distance"], float(d_after[closest]))
        wake &= d_after < d_s - CLOSE_TOL
        d_before = d_after
        foreseen = named
        tally["hand_error"].append(float(np.linalg.norm(hand.compute_error(conf))))


def percentiles(values: list[float], unit: float = 1e3) -> str:
    if not values:
        return "—"
    p = np.percentile(np.asarray(values) * unit, [50, 90, 99, 100])
    return " / ".join(f"{x:.3g}" for x in p)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument(
        "--only",
        type=lambda text: {int(e) for e in text.split(",")},
        default=None,
        help="comma-separated episode indices (from 0) to run, the others' draws skipped",
    )
    args = parser.parse_args()
    robot = taskik.robots.load("panda")
    rng = np.random.default_rng(SEED)
    tally: dict = {
        "steps": 0,
        "exceptions": Counter(),
        "relaxed_steps": 0,
        "relaxed_rows": 0,
        "relaxed_table": 0,
        "fallback": 0,
        "bounds": 0,
        "row_depths": [],
        "step_depths": [],
        "nan": 0,
        "velocity_violations": 0,
        "position_violations": 0,
        "close_steps": 0,
        "reported": 0,
        "recovering": 0,
        "unreported_halfspace": 0,
        "unreported_other": 0,
        "unreported_pairs": Counter(),
        "unreported_depths": [],
        "unreported_steps": [],
        "unreported_near_before": 0,
        "unreported_far_before": 0,
        "unreported_deeper": 0,
        "unreported_entered": 0,
        "min_distance": np.inf,
        "min_where": "",
        "foreseen": 0,
        "hand_error": [],
    }
    start = time.perf_counter()
    for e in range(args.episodes):
        episode(robot, rng, e, args.steps, tally, args.only is None or e in args.only)
        print(
            f"episode {e + 1}/{args.episodes}: {tally['steps']} steps, "
            f"{tally['relaxed_steps']} relaxed, {sum(tally['exceptions'].values())} exceptions",
            flush=True,
        )
    wall = time.perf_counter() - start
    d_s = 0.01
    n = tally["steps"]
    lines = [
        "Moving-obstacle soak: Panda, 2-4 spheres, boxes and slabs swinging at up to 0.5 m/s",
        f"(accelerations up to {MAX_ACCELERATION:g} m/s^2) above a table (half-space in even",
        "episodes, box in odd ones), half aimed at the hand's random targets (every 2.5 s);",
        "solve_ik with its defaults (strict=False), CollisionLimit defaults (d_s = 10 mm).",
        f"seed {SEED}, {args.episodes} episodes x {args.steps} steps of {DT * 1e3:g} ms"
        + (f" (run: episodes {sorted(args.only)} only)" if args.only is not None else ""),
        f"({platform.machine()}, Python {platform.python_version()}, "
        f"taskik {taskik.__version__}, wall {wall:.0f} s, not a timing figure)",
        "",
        f"steps                                          {n}",
        f"exceptions in the default step                 {sum(tally['exceptions'].values())}"
        + (f"  {dict(tally['exceptions'])}" if tally["exceptions"] else ""),
        f"steps that relaxed rows (strict=True raises)   {tally['relaxed_steps']}"
        f"  ({100.0 * tally['relaxed_steps'] / max(n, 1):.2f} %)",
        f"  relaxed rows (pairs) named                   {tally['relaxed_rows']}"
        f"  (of which with the table: {tally['relaxed_table']})",
        f"  fallback steps (least violation only)        {tally['fallback']}",
        f"  steps with crossed hard bounds               {tally['bounds']}",
        f"  depth per relaxed pair, mm (p50/p90/p99/max) {percentiles(tally['row_depths'])}",
        f"  deepest per step, mm (p50/p90/p99/max)       {percentiles(tally['step_depths'])}",
        f"steps ending with a pair < d_s - 0.1 mm         {tally['close_steps']}",
        f"  named by the step's relaxation               {tally['reported']}",
        f"  foreseen by the previous step's relaxation   {tally['foreseen']}"
        "  (the obstacle's move it predicted, within its depth)",
        f"  recovering from an earlier relaxed step      {tally['recovering']}",
        f"  NOT reported, half-space table pairs         {tally['unreported_halfspace']}",
        f"  NOT reported, other pairs                    {tally['unreported_other']}",
        f"  NOT reported (pairs): already inside before the step, came closer "
        f"{tally['unreported_deeper']}; entered in the step {tally['unreported_entered']}; "
        f"within d_i before the step {tally['unreported_near_before']}, beyond "
        f"{tally['unreported_far_before']}",
        f"  NOT reported, depth below d_s, mm (p50/p90/p99/max) "
        f"{percentiles(tally['unreported_depths'])}",
        f"closest distance reached, mm                   {tally['min_distance'] * 1e3:.2f}"
        f"  (d_s = {d_s * 1e3:g} mm; {tally['min_where'] or 'not closer than d_s'})",
        f"NaN in v or q                                  {tally['nan']}",
        f"joint position limits exceeded (steps)         {tally['position_violations']}",
        f"joint velocity limits exceeded (steps)         {tally['velocity_violations']}",
        f"hand error, mm (p50/p90/p99/max)               {percentiles(tally['hand_error'])}",
    ]
    if tally["unreported_pairs"]:
        lines.append(
            "unreported pairs (steps): "
            + ", ".join(f"{k}: {c}" for k, c in tally["unreported_pairs"].most_common(8))
        )
    lines += tally["unreported_steps"][:20]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.episodes >= 30 and args.steps >= 1000 and args.only is None:
        RESULT.write_text(text)
        print(f"written to {RESULT}")


if __name__ == "__main__":
    main()
