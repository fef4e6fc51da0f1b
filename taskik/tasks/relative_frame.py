"""Pose of a frame expressed in another frame of the robot."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ._frames import FrameName, as_se3, require_target, target_alias
from .frame import FrameTask


class RelativeFrameTask(FrameTask):
    """Drive the pose ``T = rootMframe(q) = oMroot⁻¹ oMframe`` to a target ``T*``.

    Error: ``e = −log6(T*⁻¹ T)``. Jacobian: ``J = Jlog6(T*⁻¹ T) (J_frame − Ad(T⁻¹) J_root)``
    with both frame Jacobians in LOCAL, i.e. the body twist of ``frame`` relative to ``root``.
    Useful for bimanual tasks (one hand relative to the other) or a tool relative to the base.
    The target is ``target``, also readable and settable under pink's name
    ``transform_target_to_root``.

    Args:
        frame: the moving frame.
        root: the frame in which the pose is expressed.
        position_cost, orientation_cost, gain, lm_damping: see :class:`FrameTask`.
    """

    root = FrameName()
    transform_target_to_root = target_alias("transform_target_to_root")

    def __init__(
        self,
        frame: str,
        root: str,
        position_cost: npt.ArrayLike = 1.0,
        orientation_cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        super().__init__(frame, position_cost, orientation_cost, gain=gain, lm_damping=lm_damping)
        self.root = root

    def plan_key(self) -> object:
        """``(RelativeFrameTask, frame, root)`` (see :meth:`Task.plan_key`)."""
        if type(self) is not RelativeFrameTask:
            return id(self)
        return (RelativeFrameTask, self.frame, self.root)

    def set_target(self, target: pin.SE3 | npt.ArrayLike) -> None:
        """Target pose of ``frame`` in ``root``: ``pin.SE3`` or 4×4 homogeneous matrix."""
        self.target = as_se3(target)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self.target = configuration.get_transform(self.frame, self.root)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        fid = self.frame.id(configuration)
        rid = self.root.id(configuration)
        oMf = configuration.data.oMf
        T = oMf[rid].actInv(oMf[fid])
        M = target.actInv(T)
        J_rel = configuration.get_frame_jacobian(fid) - T.inverse().action @ (
            configuration.get_frame_jacobian(rid)
        )
        return -pin.log6(M).vector, pin.Jlog6(M) @ J_rel

    @property
    def transform_target_to_world(self) -> pin.SE3 | None:
        """Not a world pose: the target of this task is in ``root``."""
        raise AttributeError(
            "RelativeFrameTask's target is a pose in its root frame: read "
            "transform_target_to_root (or target)"
        )

    def __repr__(self) -> str:
        return f"RelativeFrameTask({self.frame.name!r}, root={self.root.name!r})"
