"""The scenes shared by the step benchmarks: robots, start configurations, tasks, targets.

Importable without pink or mink (``step_vs_pink.py`` needs both; the compiled peers'
environments have neither).
"""

from __future__ import annotations

import example_robot_data
import numpy as np
import pinocchio as pin

import taskik

G1_FRAMES = [
    "left_ankle_roll_link",
    "right_ankle_roll_link",
    "left_rubber_hand",
    "right_rubber_hand",
    "pelvis",
]
TALOS_FRAMES = [
    "left_sole_link",
    "right_sole_link",
    "gripper_left_base_link",
    "gripper_right_base_link",
    "base_link",
]


def robot_scenario(name: str, robot=None):
    """(robot, q, frame tasks [(frame, pos cost, ori cost)], com, posture cost).

    ``robot``: the robot already loaded (anything with ``model`` and ``q0``), for a process
    whose example-robot-data is another version than the one the scene is defined on; by
    default ``example_robot_data.load(name)``.
    """
    if name not in ("ur5", "panda", "talos", "g1"):
        raise ValueError(name)
    r = example_robot_data.load(name) if robot is None else robot
    if name == "ur5":
        q = np.array([0.0, -1.2, 1.5, -1.6, -1.5, 0.3])
        return r, q, [("tool0", 1.0, 1.0)], False, 1e-3
    if name == "panda":
        return r, np.array(r.q0, dtype=float), [("panda_hand", 1.0, 1.0)], False, 1e-3
    frames = [(f, 1.0, 1.0) for f in (TALOS_FRAMES if name == "talos" else G1_FRAMES)]
    missing = [f for f, _, _ in frames if not r.model.existFrame(f)]
    if missing:
        raise ValueError(f"{name} has no frame {missing}")
    return r, np.array(r.q0, dtype=float), frames, True, 1e-2


def targets(model, q, frames):
    """Every frame target 10 cm away from its position at q (along a fixed direction)."""
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


def scene_tasks(lib, frames, goals, com, q_ref, with_com, posture_cost) -> list:
    """The scene's tasks in taskik (``lib=taskik``) or pink (``lib=pink.tasks``): a frame
    task per frame on its goal, the CoM task if any, the posture on ``q_ref``."""
    pink_style = lib is not taskik
    tasks = []
    for frame, pc, oc in frames:
        if pink_style:
            t = lib.FrameTask(frame, position_cost=pc, orientation_cost=oc)
        else:
            t = lib.FrameTask(frame, pc, oc)
        t.set_target(goals[frame])
        tasks.append(t)
    if with_com:
        c = lib.ComTask(cost=1.0)
        c.set_target(com)
        tasks.append(c)
    p = lib.PostureTask(cost=posture_cost)
    p.set_target(np.array(q_ref))
    tasks.append(p)
    return tasks
