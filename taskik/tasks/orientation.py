"""Orientation of a frame in the world."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_finite_array
from ._frames import FrameName, FrameRef, check_rotation, require_target, target_property
from .task import Task


def _rotation_target(target: npt.ArrayLike | pin.SE3 | pin.Quaternion) -> np.ndarray:
    """The rotation matrix of a target given as a matrix, a ``pin.SE3`` or a unit
    ``pin.Quaternion``; :class:`InvalidInput` for anything else."""
    if isinstance(target, pin.SE3):
        target = target.rotation
    elif isinstance(target, pin.Quaternion):
        norm = target.norm()
        if not abs(norm - 1.0) <= 1e-6:
            raise InvalidInput(
                f"target quaternion has norm {norm:.6g}, expected 1 (call .normalize())"
            )
        target = target.toRotationMatrix()
    R = check_finite_array(target, "target", (3, 3))
    check_rotation(R, "target")
    return R.copy()


class OrientationTask(Task):
    """Drive the rotation ``R = oRf(q)`` of a frame to a target ``R*`` in SO(3).

    Error: ``e = −log3(R*ᵀ R)`` (rad, in the target frame). Jacobian:
    ``J = Jlog3(R*ᵀ R) · J_ω`` with the angular rows of the LOCAL frame Jacobian.

    Args:
        frame: frame name.
        cost: weight (1/rad), scalar or 3-vector.
    """

    dim = 3
    frame = FrameName()
    _frame: FrameRef  # (the name with its cached index, set through `frame`)
    target = target_property(
        lambda task, value: _rotation_target(value),
        "a 3×3 rotation matrix in the world frame (a pin.SE3 or pin.Quaternion is converted)",
    )

    def __init__(
        self,
        frame: str,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self.frame = frame
        self._target: np.ndarray | None = None
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def adopt(self, resolved: Task) -> None:
        """The frame index of ``resolved`` (see :meth:`Task.adopt`)."""
        if type(resolved) is OrientationTask:
            self._frame.adopt(resolved._frame)

    def plan_key(self) -> object:
        """``(OrientationTask, frame)`` (see :meth:`Task.plan_key`)."""
        return (OrientationTask, self._frame) if type(self) is OrientationTask else id(self)

    def set_target(self, target: npt.ArrayLike | pin.SE3 | pin.Quaternion) -> None:
        """Target rotation: a 3×3 rotation matrix, a ``pin.SE3`` or a ``pin.Quaternion``."""
        self._target = _rotation_target(target)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = configuration.get_transform_frame_to_world(self.frame).rotation.copy()

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        fid = self.frame.id(configuration)
        M = target.T @ configuration.data.oMf[fid].rotation
        e = -pin.log3(M)
        J = pin.Jlog3(M) @ configuration.get_frame_jacobian(fid)[3:]
        return e, J

    def __repr__(self) -> str:
        return f"OrientationTask({self.frame.name!r}, cost={self.cost.tolist()})"
