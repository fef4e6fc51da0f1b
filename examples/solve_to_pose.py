"""Solve to a configuration with taskik.solve_posture.

1. Pose IK on the UR5: the tool frame on a target pose, from the reference posture.
2. Posture generation on the floating-base humanoid: both feet on targets, the centre of
   mass over the middle of the feet, the right hand on a point; a low-cost posture task
   as regularisation.
3. An unreachable target: the solver returns success = False, the best q and the reason.

    python examples/solve_to_pose.py
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

import taskik


def pose_ik() -> dict:
    """Returns the result and the reached position and rotation errors (m, rad)."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    task = taskik.FrameTask("tool0")
    target = conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array([0.1, -0.2, 0.15])
    target.rotation = target.rotation @ pin.utils.rotate("x", 0.5)
    task.set_target(target)
    result = taskik.solve_posture(conf, [task], rng=0)
    print("UR5 pose IK:", result)
    print("  q =", np.round(result.q, 4))
    reached = robot.configuration(result.q).get_transform_frame_to_world("tool0")
    print("  position error (m):", np.linalg.norm(reached.translation - target.translation))
    return {
        "result": result,
        "position_error": float(np.linalg.norm(reached.translation - target.translation)),
        "rotation_error": float(np.linalg.norm(pin.log3(target.rotation.T @ reached.rotation))),
    }


def posture_generation() -> dict:
    """Returns the result and the tasks (their targets set)."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = []
    for name, shift in (
        ("lleg_effector_body", [0.1, 0.05, 0.0]),
        ("rleg_effector_body", [-0.1, -0.05, 0.0]),
    ):
        task = taskik.FrameTask(name)
        M = conf.get_transform_frame_to_world(name)
        M.translation = M.translation + np.array(shift)
        task.set_target(M)
        feet.append(task)
    middle = 0.5 * (feet[0].target.translation + feet[1].target.translation)
    com = taskik.ComTask(cost=[1.0, 1.0, 0.0])  # horizontal position only
    com.set_target(np.array([middle[0], middle[1], 0.0]))
    hand = taskik.PositionTask("rarm_effector_body")
    hand.set_target(
        conf.get_transform_frame_to_world("rarm_effector_body").translation + [0.3, 0.1, 0.2]
    )
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    result = taskik.solve_posture(
        conf, [*feet, com, hand], regularization=[posture], tol=1e-10, max_iterations=60, rng=0
    )
    print("Humanoid posture:", result)
    for name, r in zip(
        ("left foot", "right foot", "CoM", "right hand"), result.residuals, strict=True
    ):
        print(f"  {name:10s} E_i = {r:.2e}")
    print("  base quaternion norm:", np.linalg.norm(result.q[3:7]))
    return {"result": result, "tasks": [*feet, com, hand]}


def unreachable() -> dict:
    """Returns the result."""
    robot = taskik.robots.load("ur5")
    task = taskik.FrameTask("tool0")
    task.set_target(pin.SE3(np.eye(3), np.array([2.0, 0.0, 0.3])))  # beyond the 0.95 m reach
    result = taskik.solve_posture(robot.model, [task], q0=robot.q0, max_searches=5, rng=0)
    print("Unreachable:", result.success, "-", result.reason)
    return {"result": result}


def main() -> dict[str, dict]:
    """The three parts; returns their results."""
    return {"pose": pose_ik(), "posture": posture_generation(), "unreachable": unreachable()}


if __name__ == "__main__":
    main()
