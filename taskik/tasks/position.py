"""Position of a point attached to a frame."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from ._frames import (
    FrameName,
    FrameRef,
    check_point,
    check_target_point,
    require_target,
    target_property,
)
from .task import Task


class PositionTask(Task):
    """Drive a point ``p = oMf(q) · o`` (local offset ``o``) to a target ``p*`` in the world.

    Error: ``e = p* − p`` (m). Jacobian: ``J = R_f (J_v − [o]× J_ω)`` with the LOCAL frame
    Jacobian ``[J_v; J_ω]``, so that ``J v = ṗ`` in world coordinates.

    Args:
        frame: frame name.
        cost: weight (1/m), scalar or 3-vector.
        offset: point in the frame's coordinates (m); the frame origin by default.
        jacobian: ``"end"`` (default) for the Jacobian of the point above; ``"target"`` for
            Buss's alternate Jacobian ("Introduction to Inverse Kinematics ...", §2), computed
            at the target: column j is ``ω_j × (p* − p_j)`` instead of ``ω_j × (p − p_j)``,
            i.e. ``J_t = J − [p* − p]× J_ω`` with the world angular Jacobian ``J_ω``: the
            Jacobian of the point of the frame that currently coincides with the target, as
            if the target were attached to the end link. Buss reports less oscillation and
            overshoot for unreachable targets, and jerky motion when links fold back.
    """

    dim = 3
    frame = FrameName()
    _frame: FrameRef  # (the name with its cached index, set through `frame`)
    target = target_property(
        lambda task, value: check_target_point(value, "target").copy(),
        "the point's position in the world frame (m), shape (3,)",
    )

    def __init__(
        self,
        frame: str,
        cost: npt.ArrayLike = 1.0,
        offset: npt.ArrayLike | None = None,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
        jacobian: str = "end",
    ) -> None:
        self.jacobian = jacobian
        self.frame = frame
        self.offset = offset
        self._target: np.ndarray | None = None
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    @property
    def jacobian(self) -> str:
        """``"end"`` or ``"target"`` (see the class); assigning it is checked."""
        return self._jacobian

    @jacobian.setter
    def jacobian(self, jacobian: str) -> None:
        if not isinstance(jacobian, str) or jacobian not in ("end", "target"):
            raise InvalidInput(f"jacobian must be 'end' or 'target', got {jacobian!r}")
        self._jacobian = str(jacobian)

    @property
    def offset(self) -> np.ndarray | None:
        """The point in the frame's coordinates (m), or None for the origin; assigning it
        is checked (a finite 3-vector)."""
        return self._offset

    @offset.setter
    def offset(self, offset: npt.ArrayLike | None) -> None:
        self._offset = None if offset is None else check_point(offset, "offset")

    def adopt(self, resolved: Task) -> None:
        """The frame index of ``resolved`` (see :meth:`Task.adopt`)."""
        if type(resolved) is PositionTask:
            self._frame.adopt(resolved._frame)

    def plan_key(self) -> object:
        """``(PositionTask, frame)`` (see :meth:`Task.plan_key`)."""
        return (PositionTask, self._frame) if type(self) is PositionTask else id(self)

    def set_target(self, target: npt.ArrayLike) -> None:
        """Target point in the world frame (m), shape (3,)."""
        self._target = check_target_point(target, "target").copy()

    def point(self, configuration: Configuration) -> np.ndarray:
        """The task point in the world frame."""
        T = configuration.data.oMf[self.frame.id(configuration)]
        return T.translation if self.offset is None else T.act(self.offset)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = np.array(self.point(configuration))

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        fid = self.frame.id(configuration)
        T = configuration.data.oMf[fid]
        Jl = configuration.get_frame_jacobian(fid)
        if self.offset is None:
            p, Jp = T.translation, Jl[:3]
        else:
            p, Jp = T.act(self.offset), Jl[:3] - pin.skew(self.offset) @ Jl[3:]
        if self.jacobian == "target":  # Buss's alternate Jacobian, at the target point
            R = T.rotation
            return target - p, R @ (Jp - pin.skew(R.T @ (target - p)) @ Jl[3:])
        return target - p, T.rotation @ Jp

    def __repr__(self) -> str:
        return f"PositionTask({self.frame.name!r}, cost={self.cost.tolist()}, gain={self.gain})"
