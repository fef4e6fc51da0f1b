"""Static balance on seeded humanoid posture problems: the balance limit against pinning the
centre of mass with a ComTask.

Problems: Talos, G1 and the bundled humanoid; stances: both feet, one foot (the other lifted
5 cm), both feet and a hand on a table where it starts (normal up, μ 0.5); a random target
for the free hand, offset from where it starts by x ∈ [−0.2, 1.5], y ∈ [−0.6, 0.6],
z ∈ [−0.8, 0.4] m (many beyond what balance allows). Every problem starts from a posture
balanced on its stance (a first loop with the limit brings the CoM 1 cm inside). Then two
closed loops of STEPS steps of 10 ms, the model's joint limits on, the floating base bounded
to 1 m/s and 2 rad/s (``BaseVelocityLimit``: static balance is for slow motion; ``--free-base``
leaves it out), the contacts held by tasks (cost 10), a posture task (1e-2):

- limit: ``BalanceLimit(contacts, margin=0.01)``;
- pinning: no balance limit, a ``ComTask`` (cost 5) holding the CoM's ground projection over
  the middle of the stance's support polygon (the recipe of examples/humanoid_posture.py).

Per problem: the final posture checked by ``check_static_balance`` (the force LP), the
margin at every step (signed distance of the CoM to the region of the contacts where they
are at that step, computed afresh: not the limit's cached region), the final hand error.

    python benchmarks/balance.py [--problems 500] [--steps 200]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import taskik
from taskik.contacts import ContactSet, both_feet, feet_and_hand, one_foot, support_region

RESULTS = Path(__file__).resolve().parent / "results" / "balance.txt"
RESULTS_FREE = RESULTS.with_name("balance_free_base.txt")
STANCES = ("double", "single", "feet+hand")


class Margins:
    """Margin of the CoM in the region of the contacts where they are now (its own cache:
    the region is recomputed when a contact point moved by 0.1 mm)."""

    def __init__(self, contacts):
        self.contacts, self.key, self.region = contacts, None, None

    def __call__(self, conf) -> float:
        world = ContactSet.of(conf, self.contacts)
        if self.key is None or np.abs(world.points - self.key).max() > 1e-4:
            self.region, self.key = support_region(world), world.points
        return self.region.signed_distance(conf.com[:2])


def stance_of(robot, conf, stance):
    if stance == "double":
        return both_feet(robot, conf)
    if stance == "single":
        return one_foot(robot, conf, "left")
    return feet_and_hand(robot, conf, robot.end_effectors[2], [0.0, 0.0, 1.0], hand_friction=0.5)


def posture_task(robot):
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    return posture


def balanced_start(robot, stance):
    """A posture balanced on the stance, 1 cm inside (the free foot lifted for single)."""
    conf = robot.configuration()
    contacts = stance_of(robot, conf, stance)
    tasks = [c.task(conf) for c in contacts]
    if stance == "single":
        lift = taskik.FrameTask(robot.end_effectors[1], 1.0, 1.0)
        target = conf.get_transform_frame_to_world(robot.end_effectors[1]).copy()
        target.translation[2] += 0.05
        lift.set_target(target)
        tasks.append(lift)
    limits = [*taskik.limits.default_limits(robot.model), taskik.BalanceLimit(contacts)]
    for _ in range(60):
        conf.integrate_inplace(
            taskik.solve_ik(conf, [*tasks, posture_task(robot)], 0.01, limits=limits), 0.01
        )
    return conf.q.copy(), tasks


def run(robot, q_start, stance, held_tasks, offset, method, steps, free_base=False):
    conf = taskik.Configuration(robot.model, q_start.copy())
    contacts = stance_of(robot, conf, stance)
    held = []
    for task in held_tasks:  # the same targets as in the start loop
        held.append(task)
    hand_frame = robot.end_effectors[3]
    hand = taskik.PositionTask(hand_frame, cost=1.0, lm_damping=1.0)
    hand.set_target(conf.get_transform_frame_to_world(hand_frame).translation + offset)
    limits = list(taskik.limits.default_limits(robot.model))
    if not free_base:
        limits.append(taskik.BaseVelocityLimit(robot.model, linear=1.0, angular=2.0))
    tasks = [*held, hand, posture_task(robot)]
    if method == "limit":
        limits.append(taskik.BalanceLimit(contacts, margin=0.01))
    else:
        region = support_region(ContactSet.of(conf, contacts))
        middle = region.vertices.mean(axis=0)
        com = taskik.ComTask(cost=5.0)
        com.set_target([middle[0], middle[1], conf.com[2]])
        tasks.append(com)
    margin = Margins(contacts)
    margins = []
    elapsed = 0.0
    for _ in range(steps):
        t = time.perf_counter()
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
        elapsed += time.perf_counter() - t
        conf.integrate_inplace(v, 0.01)
        margins.append(margin(conf))
    check = taskik.check_static_balance(conf, contacts)
    return {
        "stable": check.stable,
        "final_margin": check.margin,
        "worst_margin": min(margins),
        "hand_error": float(np.linalg.norm(hand.compute_error(conf))),
        "step_us": 1e6 * elapsed / steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=500)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--free-base", action="store_true", help="no base velocity bound")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    robots = {name: taskik.robots.load(name) for name in ("talos", "g1", "humanoid")}
    starts = {}
    rows = []
    t0 = time.perf_counter()
    for k in range(args.problems):
        name = ("talos", "g1", "humanoid")[k % 3]
        stance = STANCES[(k // 3) % 3]
        robot = robots[name]
        if (name, stance) not in starts:
            starts[name, stance] = balanced_start(robot, stance)
        q_start, held = starts[name, stance]
        offset = rng.uniform([-0.2, -0.6, -0.8], [1.5, 0.6, 0.4])
        for method in ("limit", "pinning"):
            row = run(robot, q_start, stance, held, offset, method, args.steps, args.free_base)
            rows.append({"problem": k, "robot": name, "stance": stance, "method": method, **row})
    seconds = time.perf_counter() - t0
    lines = [
        f"# benchmarks/balance.py --problems {args.problems} --steps {args.steps} "
        f"--seed {args.seed}{' --free-base' if args.free_base else ''}",
        f"# {args.problems} problems, {seconds:.0f} s; margins in mm, hand errors in m",
        "",
        f"{'method':<8} {'subset':<20} {'n':>4} {'stable':>7} {'worst step':>11} "
        f"{'steps < -1mm':>12} {'hand err':>9}",
    ]
    for method in ("limit", "pinning"):
        for subset in ("all", *[f"{r}" for r in robots], *STANCES):
            sel = [
                r
                for r in rows
                if r["method"] == method and subset in ("all", r["robot"], r["stance"])
            ]
            if not sel:
                continue
            stable = np.mean([r["stable"] for r in sel])
            worst = min(r["worst_margin"] for r in sel)
            below = sum(r["worst_margin"] < -1e-3 for r in sel)
            error = np.mean([r["hand_error"] for r in sel])
            lines.append(
                f"{method:<8} {subset:<20} {len(sel):>4} {100 * stable:>6.1f}% "
                f"{1000 * worst:>+10.1f} {below:>12d} {error:>9.3f}"
            )
    both = [
        (a, b) for a, b in zip(rows[0::2], rows[1::2], strict=True) if a["stable"] and b["stable"]
    ]
    closer = sum(a["hand_error"] <= b["hand_error"] + 1e-3 for a, b in both)
    mean_limit = np.mean([a["hand_error"] for a, _ in both])
    mean_pinning = np.mean([b["hand_error"] for _, b in both])
    lines += [
        "",
        f"problems both end stable: {len(both)}; the limit's hand as close or closer (1 mm): "
        f"{closer}; mean hand error there: limit {mean_limit:.3f} m, "
        f"pinning {mean_pinning:.3f} m",
    ]
    for name in robots:
        lim = np.median(
            [r["step_us"] for r in rows if r["robot"] == name and r["method"] == "limit"]
        )
        pin_ = np.median(
            [r["step_us"] for r in rows if r["robot"] == name and r["method"] == "pinning"]
        )
        lines.append(
            f"{name}: median step {lim:.0f} us with the limit, {pin_:.0f} us pinning "
            f"(ratio {lim / pin_:.2f}; context only: the loops differ)"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    out = RESULTS_FREE if args.free_base else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(out)


if __name__ == "__main__":
    main()
