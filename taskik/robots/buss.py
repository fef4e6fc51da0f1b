"""The Y and double-Y multibodies of Buss's experiments ("Introduction to Inverse Kinematics
with Jacobian Transpose, Pseudoinverse and Damped Least Squares methods", §8, Figure 1).

Every joint is revolute about a fixed axis (in its parent's frame), with joint frames
aligned with the world at q = 0, so the zero configuration is the straight-branched shape.
Joint positions and axes follow Buss's demonstration program; the Y has 7 joints and 2 end
effectors (J is 6 × 7). Buss's program builds its double-Y with 25 joints; the paper reports
16 links (J 12 × 16), and so does this one: a trunk of 2 joints, two middle branches of
1 joint and four end branches of 3 joints, in the same geometry. The targets move on Buss's
sinusoids, partly out of reach.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np
import pinocchio as pin

_UNIT1 = np.array([np.sqrt(14.0) / 8.0, 1.0 / 8.0, 7.0 / 8.0])  # Buss's tilted axis
_X, _Y, _Z = np.eye(3)
_R2 = 1.0 / np.sqrt(2.0)
_H3 = np.sqrt(3.0) / 2.0

#: Time step of Buss's demonstration (s); one IK update per step.
BUSS_TIME_STEP = 0.005

# (name, parent index or -1, position at q = 0, axis); effectors: (name, parent, position)
JointSpec: TypeAlias = tuple[str, int, Sequence[float], Sequence[float] | np.ndarray]
EffectorSpec: TypeAlias = tuple[str, int, Sequence[float]]
Y_JOINTS = (
    ("trunk", -1, (0.0, -0.5, 0.0), _Z),
    ("right_root", 0, (0.0, 0.4, 0.0), _Z),
    ("left_root", 0, (0.0, 0.4, 0.0), _Z),
    ("right_elbow", 1, (0.5, 1.0, 0.0), _X),
    ("left_elbow", 2, (-0.5, 1.0, 0.0), _X),
    ("right_wrist", 3, (0.7, 1.3, 0.0), _UNIT1),
    ("left_wrist", 4, (-0.8, 1.5, 0.0), _UNIT1),
)
Y_EFFECTORS = (("effector_1", 5, (0.7, 2.0, 0.0)), ("effector_2", 6, (-0.8, 1.9, 0.0)))

_P = {
    0: (0.0, -1.5),
    1: (0.0, -1.0),
    2: (0.0, -0.5),
    3: (0.5 * _R2, -0.5 + 0.5 * _R2),
    4: (0.5 * _R2 + 0.5 * _H3, -0.5 + 0.5 * _R2 + 0.25),
    5: (0.5 * _R2 + 1.0 * _H3, -0.5 + 0.5 * _R2 + 0.5),
    6: (0.5 * _R2 + 1.5 * _H3, -0.5 + 0.5 * _R2 + 0.75),
    7: (0.5 * _R2 + 0.5 * _H3, -0.5 + 0.5 * _R2 + 0.5 * _H3),
    8: (0.5 * _R2 + 1.0 * _H3, -0.5 + 0.5 * _R2 + 1.0 * _H3),
    9: (0.5 * _R2 + 1.5 * _H3, -0.5 + 0.5 * _R2 + 1.5 * _H3),
}
# the left half mirrors the right half: p10 ↔ p3, p11–p13 ↔ p7–p9, p14–p16 ↔ p4–p6
for _left, _right in zip(range(10, 17), (3, 7, 8, 9, 4, 5, 6), strict=True):
    _P[_left] = (-_P[_right][0], _P[_right][1])


def _p(k: int) -> tuple[float, float, float]:
    return (*_P[k], 0.0)


DOUBLE_Y_JOINTS = (
    ("trunk_1", -1, _p(0), _UNIT1),
    ("trunk_2", 0, _p(1), _X),
    ("right_root", 1, _p(2), _Z),
    ("left_root", 1, _p(2), _Z),
    ("right_low_root", 2, _p(3), _Y),
    ("right_low_mid", 4, _p(4), _Z),
    ("right_low_tip", 5, _p(5), _X),
    ("right_high_root", 2, _p(3), _X),
    ("right_high_mid", 7, _p(7), _Z),
    ("right_high_tip", 8, _p(8), _Y),
    ("left_high_root", 3, _p(10), _Y),
    ("left_high_mid", 10, _p(11), _Z),
    ("left_high_tip", 11, _p(12), _X),
    ("left_low_root", 3, _p(10), _X),
    ("left_low_mid", 13, _p(14), _Z),
    ("left_low_tip", 14, _p(15), _Y),
)
DOUBLE_Y_EFFECTORS = (
    ("effector_1", 6, _p(6)),
    ("effector_2", 9, _p(9)),
    ("effector_3", 12, _p(13)),
    ("effector_4", 15, _p(16)),
)


def build_tree(
    name: str, joints: Iterable[JointSpec], effectors: Iterable[EffectorSpec]
) -> pin.Model:
    """A Pinocchio model of revolute joints given by world positions and axes at q = 0.

    Joint limits ±π, velocity limits 10 rad/s; each body has a 0.1 kg point mass at its joint.
    """
    model = pin.Model()
    model.name = name
    ids: list[int] = []
    positions: list[np.ndarray] = []
    for jname, parent, position, axis in joints:
        pos = np.asarray(position, dtype=float)
        parent_id = 0 if parent < 0 else ids[parent]
        parent_pos = np.zeros(3) if parent < 0 else positions[parent]
        jid = model.addJoint(
            parent_id,
            pin.JointModelRevoluteUnaligned(np.asarray(axis, dtype=float)),
            pin.SE3(np.eye(3), pos - parent_pos),
            jname,
            np.array([100.0]),
            np.array([10.0]),
            np.array([-np.pi]),
            np.array([np.pi]),
        )
        model.appendBodyToJoint(jid, pin.Inertia.FromSphere(0.1, 0.02), pin.SE3.Identity())
        ids.append(jid)
        positions.append(pos)
    for ename, parent, epos in effectors:
        placement = pin.SE3(np.eye(3), np.asarray(epos, dtype=float) - positions[parent])
        frame_parent = model.getFrameId(model.names[ids[parent]])
        model.addFrame(
            pin.Frame(ename, ids[parent], frame_parent, placement, pin.FrameType.OP_FRAME)
        )
    return model


def build_y() -> pin.Model:
    """Buss's Y: 7 revolute joints, end-effector frames ``effector_1``, ``effector_2``."""
    return build_tree("buss_y", Y_JOINTS, Y_EFFECTORS)


def build_double_y() -> pin.Model:
    """The double-Y: 16 revolute joints, frames ``effector_1`` … ``effector_4``."""
    return build_tree("buss_double_y", DOUBLE_Y_JOINTS, DOUBLE_Y_EFFECTORS)


def y_targets(t: float) -> np.ndarray:
    """Targets (2 × 3, m) of the Y's end effectors at time t (s), Buss's sinusoids."""
    s = np.sin
    return np.array(
        [
            [2.0 + 1.5 * s(6 * t), 1.2 + 0.2 * s(7 * t), 0.3 + 0.2 * s(8 * t)],
            [-0.7 + 0.4 * s(4 * t), 0.8 + 0.3 * s(4 * t), -0.2 + 0.2 * s(3 * t)],
        ]
    )


def double_y_targets(t: float) -> np.ndarray:
    """Targets (4 × 3, m) of the double-Y's end effectors at time t (s), Buss's sinusoids."""
    s = np.sin
    return np.array(
        [
            [2.0 + 3.0 * s(3 * t), 0.5 + 0.4 * s(7 * t), 0.3 + 1.4 * s(5 * t)],
            [0.5 + 0.8 * s(4 * t), 0.4 + 0.6 * s(4 * t), -0.2 + 2.0 * s(3 * t)],
            [-0.5 + 1.6 * s(6 * t), 0.6 + 0.4 * s(7 * t), 0.3 + 1.0 * s(8 * t)],
            [-1.6 + 1.6 * s(4 * t), 0.3 + 0.6 * s(4 * t), -0.2 + 0.6 * s(3 * t)],
        ]
    )
