"""The limits beyond position and velocity boxes: joint accelerations, the base's speed, and
joints held still.

Three scenes, each a closed loop of ``solve_ik`` steps, each run with and without its limit:

* the UR5 reaches for a far tool target; with an ``AccelerationLimit`` its joint speeds ramp
  up (and down) by at most ``a_max dt`` per step instead of jumping to the velocity limit in
  one step;
* the floating humanoid, feet free, reaches for a hand target 4 m ahead: its base glides
  there at most ``0.5 m/s`` (and turns at most ``0.5 rad/s``) with a ``BaseVelocityLimit``;
  without it the first step throws the base at tens of m/s and rad/s;
* the Panda reaches a point with its shoulder and elbow only: ``FrozenJoints`` holds the
  other five joints where they are (without it every joint moves).

    python examples/more_limits.py          # TASKIK_SMOKE=1: fewer steps
"""

from __future__ import annotations

import os

import numpy as np

import taskik
from taskik.limits import AccelerationLimit, BaseVelocityLimit, FrozenJoints, default_limits

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"
DT = 0.02


def ur5_ramp(steps: int, a_max: float | None) -> dict[str, float]:
    """The UR5's tool to a target 0.5 m away, with or without an acceleration cap (rad/s²)."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = taskik.FrameTask("tool0", position_cost=1.0, orientation_cost=0.1)
    target = conf.get_transform_frame_to_world("tool0").copy()
    target.translation = target.translation + np.array([-0.3, 0.3, -0.3])
    tool.set_target(target)
    limits = default_limits(robot.model)
    if a_max is not None:
        limits.append(AccelerationLimit(robot.model, a_max))
    v_prev = np.zeros(robot.model.nv)  # the robot starts at rest
    worst = 0.0
    for _ in range(steps):
        v = taskik.solve_ik(conf, [tool], DT, limits=limits)
        worst = max(worst, float(np.abs(v - v_prev).max()) / DT)
        conf.integrate_inplace(v, DT)
        v_prev = v
    return {
        "max_acceleration": worst,  # rad/s², the largest |Δv|/dt of any joint in any step
        "tool_error_mm": float(np.linalg.norm(tool.compute_error(conf)[:3]) * 1e3),
    }


def humanoid_walk(steps: int, base_speed: float | None) -> dict[str, float]:
    """The humanoid's right hand to a point 4 m ahead: the base carries it, its speed capped
    (m/s and rad/s, norms) or not."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    hand = taskik.PositionTask("rarm_effector_body", cost=1.0, gain=0.5)
    hand.set_target(
        conf.get_transform_frame_to_world("rarm_effector_body").translation + [4.0, 0.0, 0.0]
    )
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target_from_configuration(conf)
    limits = default_limits(robot.model)
    if base_speed is not None:
        caps = BaseVelocityLimit(robot.model, linear=base_speed, angular=base_speed, shape="norm")
        limits.append(caps)
    base_start = conf.q[:3].copy()
    fastest = turning = 0.0
    for _ in range(steps):
        v = taskik.solve_ik(conf, [hand, posture], DT, limits=limits)
        fastest = max(fastest, float(np.linalg.norm(v[:3])))  # the base's linear velocity
        turning = max(turning, float(np.linalg.norm(v[3:6])))  # and its angular velocity
        conf.integrate_inplace(v, DT)
    return {
        "max_base_speed": fastest,  # m/s
        "max_base_turn_rate": turning,  # rad/s
        "base_travel_m": float(np.linalg.norm(conf.q[:3] - base_start)),
        "hand_error_mm": float(np.linalg.norm(hand.compute_error(conf)) * 1e3),
    }


PANDA_MOVING = ("panda_joint2", "panda_joint4")


def panda_frozen(steps: int, freeze: bool) -> dict[str, float]:
    """The Panda's hand 15 cm lower and 10 cm further out, every joint but two frozen or not."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    q_start = conf.q.copy()
    hand = taskik.PositionTask("panda_hand", cost=1.0, gain=0.5)
    hand.set_target(conf.get_transform_frame_to_world("panda_hand").translation + [0.1, 0.0, -0.15])
    limits = default_limits(robot.model)
    frozen = FrozenJoints.all_but(robot.model, PANDA_MOVING)
    if freeze:
        limits.append(frozen)
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, [hand], DT, limits=limits), DT)
    moved = np.abs(conf.q - q_start)  # the Panda's q and v coordinates coincide
    return {
        "frozen_joints_motion_rad": float(moved[frozen.indices].max()),
        "free_joints_motion_rad": float(np.delete(moved, frozen.indices).max()),
        "hand_error_mm": float(np.linalg.norm(hand.compute_error(conf)) * 1e3),
    }


def main() -> dict[str, dict[str, float]]:
    steps = 100 if SMOKE else 300
    a_max, base_speed = 20.0, 0.5
    results = {
        "ur5 acceleration": {
            "a_max": a_max,
            **ur5_ramp(steps, a_max),
            "max_acceleration_without": ur5_ramp(steps, None)["max_acceleration"],
        },
        "humanoid base": {
            "base_speed_cap": base_speed,
            **humanoid_walk(steps, base_speed),
            **{k + "_without": v for k, v in humanoid_walk(steps, None).items()},
        },
        "panda frozen": {
            **panda_frozen(steps, True),
            "frozen_joints_motion_without_rad": panda_frozen(steps, False)[
                "frozen_joints_motion_rad"
            ],
        },
    }
    for scene, figures in results.items():
        print(scene + ": " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()))
    return results


if __name__ == "__main__":
    main()
