"""The tasks beyond poses: coupled joints, a tool axis in a cone, looking at a point, a
distance between two hands, the CoM over a foot, kinetic-energy and low-acceleration
regularisation, and the manipulability of a hand.

Two scenes, each a closed loop of ``solve_ik`` steps:

* the Panda moves its hand to a point with the gripper axis pointing down (an
  ``AxisAlignmentTask``, never more than 0.35 rad off: a ``ConeLimit``), joints 1 and 3
  geared 1:1 (a ``JointCouplingTask``), its manipulability kept up (``ManipulabilityTask``)
  and its steps smooth (``LowAccelerationTask``);
* the humanoid, feet held, puts its CoM over the middle of its feet (a
  ``RelativeComTask`` in the left foot's frame), looks at a point with its head (a
  ``LookAtTask``) and holds its hands 0.35 m apart (a ``DistanceTask``), in priority levels,
  with a ``KineticEnergyTask`` as the last level's regulariser.

    python examples/more_tasks.py          # TASKIK_SMOKE=1: fewer steps
"""

from __future__ import annotations

import os

import numpy as np

import taskik
from taskik.limits.cone import ConeLimit
from taskik.tasks import (
    AxisAlignmentTask,
    DistanceTask,
    JointCouplingTask,
    KineticEnergyTask,
    LookAtTask,
    LowAccelerationTask,
    ManipulabilityTask,
    RelativeComTask,
)

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"
DT = 0.02


def angle(a: np.ndarray, b: np.ndarray) -> float:
    """Angle between two vectors (rad)."""
    return float(np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1.0, 1.0)))


def panda_scene(steps: int) -> dict[str, float]:
    robot = taskik.robots.load("panda")
    q = robot.q0.copy()
    q[2] += 0.2  # joint 3 off its gear relation with joint 1
    q[5] += 0.25  # the gripper tilted by about 0.25 rad
    conf = robot.configuration(q)
    down = np.array([0.0, 0.0, -1.0])
    hand = taskik.PositionTask("panda_hand", cost=1.0, gain=0.5)
    hand.set_target(conf.get_transform_frame_to_world("panda_hand").translation + [0.1, 0.2, -0.1])
    tool_down = AxisAlignmentTask("panda_hand", axis=[0, 0, 1], direction=down, cost=0.5)
    gear = JointCouplingTask(["panda_joint1", "panda_joint3"], [[1.0, -1.0]])  # q1 = q3
    manipulability = ManipulabilityTask("panda_hand", rows="position", cost=1e-2)
    manipulability.set_target_from_configuration(conf)  # keep at least today's
    smooth = LowAccelerationTask(cost=0.02)
    cone = ConeLimit("panda_hand", [0, 0, 1], down, half_angle=0.35)
    limits = [*taskik.limits.default_limits(robot.model), cone]
    tasks = [hand, tool_down, gear, manipulability, smooth]
    start_axis = angle(conf.get_transform_frame_to_world("panda_hand").rotation[:, 2], down)
    worst_cone = 0.0
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT, limits=limits), DT)
        z = conf.get_transform_frame_to_world("panda_hand").rotation[:, 2]
        worst_cone = max(worst_cone, angle(z, down))
    q1, q3 = conf.q[0], conf.q[2]
    return {
        "hand_error_mm": float(np.linalg.norm(hand.compute_error(conf)) * 1e3),
        "start_axis_rad": start_axis,
        "axis_error_rad": angle(
            conf.get_transform_frame_to_world("panda_hand").rotation[:, 2], down
        ),
        "worst_cone_rad": worst_cone,
        "gear_error_rad": abs(q1 - q3),
        "manipulability_ratio": manipulability.manipulability(conf) / manipulability.target,
    }


def humanoid_scene(steps: int) -> dict[str, float]:
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = [taskik.FrameTask(f, 1.0, 1.0) for f in ("lleg_effector_body", "rleg_effector_body")]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    left = conf.get_transform_frame_to_world("lleg_effector_body")
    middle = 0.5 * (left.translation + feet[1].target.translation)
    com = RelativeComTask("lleg_effector_body", cost=[1.0, 1.0, 0.0])  # height free
    com.set_target(left.actInv(middle))  # the middle of the feet, in the left foot's frame
    point = np.array([2.0, 1.0, 0.3])
    look = LookAtTask("head2_body", axis=[1.0, 0.0, 0.0], target=point)
    hands = DistanceTask("larm_effector_body", "rarm_effector_body", 0.35)
    levels = [feet, [com, hands], [look, KineticEnergyTask(cost=1e-2)]]
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, levels, DT), DT)
    head = conf.get_transform_frame_to_world("head2_body")
    return {
        "feet_error_mm": 1e3 * max(float(np.linalg.norm(f.compute_error(conf)[:3])) for f in feet),
        "com_error_mm": float(np.linalg.norm(com.compute_error(conf)[:2]) * 1e3),
        "hands_error_mm": float(abs(hands.compute_error(conf)[0]) * 1e3),
        "gaze_error_rad": angle(head.rotation[:, 0], point - head.translation),
    }


def main() -> dict[str, dict[str, float]]:
    steps = 40 if SMOKE else 150
    results = {"panda": panda_scene(steps), "humanoid": humanoid_scene(steps)}
    for scene, figures in results.items():
        print(scene + ": " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()))
    return results


if __name__ == "__main__":
    main()
