"""Set-ups shared by several test modules."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

import taskik

FEET = ("lleg_effector_body", "rleg_effector_body")


def humanoid_com(robot, start: str = "neutral"):
    """The recipe of issue 11: the bundled humanoid from ``neutral`` (straight knees) or
    ``q0``, both feet held, the CoM target 3 cm forward and 10 cm down, a posture task of
    cost 1e-3 at the start. Returns ``(configuration, feet, com, posture)``."""
    q = pin.neutral(robot.model) if start == "neutral" else robot.q0.copy()
    conf = taskik.Configuration(robot.model, q)
    feet = []
    for name in FEET:
        foot = taskik.FrameTask(name, 1.0, 1.0)
        foot.set_target_from_configuration(conf)
        feet.append(foot)
    com = taskik.ComTask(1.0)
    com.set_target(conf.com + np.array([0.03, 0.0, -0.10]))
    posture = taskik.PostureTask(1e-3)
    posture.set_target(conf.q.copy())
    return conf, feet, com, posture
