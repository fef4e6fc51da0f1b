"""Static balance: a humanoid reaches as far as its contacts let it, and no further.

Three scenes, each a closed loop with the model's joint limits and a ``BalanceLimit``:

1. Talos (the bundled humanoid without example-robot-data) reaches with its right hand for
   a point 1.5 m ahead and 0.3 m down, both feet held: its centre of mass rides to the front
   edge of the support polygon, 1 cm inside, and stops there; the hand stops short.
2. The same reach with the left hand first put on a table in front: the hand's contact
   (normal up, friction 0.5) stretches the region of balanced CoM positions toward it, and
   the right hand gets closer.
3. G1 (or the same robot) lifts its right foot by 10 cm: the CoM moves over the left sole
   first.

Each final posture is checked by ``check_static_balance`` (contact forces inside the friction
cones that hold the robot), and a top view of each scene (the region, the feet, the CoM's
path) is written to $TASKIK_OUTPUT (default: a ``taskik-examples`` folder in the system's
temp directory).

    python examples/humanoid_balance.py        # TASKIK_SMOKE=1: short loops
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

import taskik
from taskik.contacts import both_feet, feet_and_hand, one_foot

DT = 0.01
STEPS = 60 if os.environ.get("TASKIK_SMOKE") == "1" else 300
OUTPUT = Path(os.environ.get("TASKIK_OUTPUT", Path(tempfile.gettempdir()) / "taskik-examples"))


def pick(preferred: str) -> taskik.robots.Robot:
    return taskik.robots.load(preferred if preferred in taskik.robots.list() else "humanoid")


def run(robot, conf, contacts, tasks, steps=STEPS):
    """The loop; returns the balance limit and the CoM's ground path."""
    limit = taskik.BalanceLimit(contacts, margin=0.01)
    limits = [*taskik.limits.default_limits(robot.model), limit]
    path = [conf.com[:2]]
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT, limits=limits), DT)
        path.append(conf.com[:2])
    return limit, np.array(path)


def reach(robot, conf, contacts, hand_frame, offset):
    held = [c.task(conf, cost=10.0) for c in contacts]
    hand = taskik.PositionTask(hand_frame, cost=1.0, lm_damping=1.0)
    hand.set_target(conf.get_transform_frame_to_world(hand_frame).translation + offset)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    limit, path = run(robot, conf, contacts, [*held, hand, posture])
    return limit, path, float(np.linalg.norm(hand.compute_error(conf)))


def top_view(name, limit, conf, contacts, path, title):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    region = limit.region(conf)
    fig, ax = plt.subplots(figsize=(5, 4))
    V = np.vstack([region.vertices, region.vertices[:1]])
    ax.fill(V[:, 0], V[:, 1], alpha=0.15, label="balanced CoM region")
    for contact in contacts:
        P = contact.world_points(conf)
        ax.plot(P[:, 0], P[:, 1], "k.", ms=4)
    ax.plot(path[:, 0], path[:, 1], "-", lw=1.5, label="CoM path")
    ax.plot(*path[-1], "o", label="CoM at the end")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    out = OUTPUT / f"balance_{name}.png"
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


def main() -> dict[str, float]:
    out: dict[str, float] = {}
    robot = pick("talos")
    left_hand, right_hand = robot.end_effectors[2], robot.end_effectors[3]
    far = [1.5, 0.0, -0.3]

    # 1. both feet
    conf = robot.configuration()
    feet = both_feet(robot, conf)
    limit, path, error = reach(robot, conf, feet, right_hand, far)
    check = taskik.check_static_balance(conf, feet)
    print(f"{robot.name}, feet: hand {error:.3f} m short; {limit.status(conf)}")
    print(f"  independent check: stable = {check.stable}, margin {1000 * check.margin:.1f} mm")
    top_view("feet", limit, conf, feet, path, f"{robot.name}: reach on both feet")
    out["feet_hand_error"], out["feet_margin"] = error, check.margin

    # 2. the left hand on a table in front, then the same reach
    conf = robot.configuration()
    held = [c.task(conf, cost=10.0) for c in feet]
    to_table = taskik.PositionTask(left_hand, cost=1.0, lm_damping=1.0)
    to_table.set_target(conf.get_transform_frame_to_world(left_hand).translation + [0.6, 0, -0.1])
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    run(robot, conf, feet, [*held, to_table, posture], steps=max(STEPS * 2 // 3, 40))
    table = feet_and_hand(robot, conf, left_hand, normal=[0.0, 0.0, 1.0])
    limit, path, error = reach(robot, conf, table, right_hand, far)
    check = taskik.check_static_balance(conf, table)
    print(f"{robot.name}, feet + hand on a table: hand {error:.3f} m short; {limit.status(conf)}")
    print(f"  independent check: stable = {check.stable}, margin {1000 * check.margin:.1f} mm")
    top_view("table", limit, conf, table, path, f"{robot.name}: the other hand on a table")
    out["table_hand_error"], out["table_margin"] = error, check.margin

    # 3. one foot
    robot = pick("g1")
    conf = robot.configuration()
    stance = one_foot(robot, conf, "left")
    lift = taskik.FrameTask(robot.end_effectors[1], position_cost=1.0, orientation_cost=1.0)
    target = conf.get_transform_frame_to_world(robot.end_effectors[1]).copy()
    target.translation[2] += 0.1
    lift.set_target(target)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    limit, path = run(robot, conf, stance, [stance[0].task(conf), lift, posture])
    check = taskik.check_static_balance(conf, stance)
    lifted = float(np.linalg.norm(lift.compute_error(conf)))
    print(f"{robot.name}, one foot: foot lifted to {lifted * 1000:.1f} mm; {limit.status(conf)}")
    print(f"  independent check: stable = {check.stable}, margin {1000 * check.margin:.1f} mm")
    top_view("one_foot", limit, conf, stance, path, f"{robot.name}: standing on the left foot")
    out["one_foot_lift_error"], out["one_foot_margin"] = lifted, check.margin
    return out


if __name__ == "__main__":
    main()
