"""Align an axis of a frame with a direction of the world (tool axis, camera, head)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_finite_array
from ._frames import FrameName, FrameRef, require_target, target_property
from .task import Task


def unit_vector(value: npt.ArrayLike, name: str) -> np.ndarray:
    """``value / ‖value‖`` for a finite 3-vector; :class:`InvalidInput` for a zero vector."""
    arr = check_finite_array(value, name, (3,))
    scale = float(np.abs(arr).max())  # (scaled first: the norm of [0, 0, 1e300] overflows)
    norm = scale * float(np.linalg.norm(arr / scale)) if scale > 0.0 else 0.0
    if norm < 1e-9:
        raise InvalidInput(f"{name} must be a non-zero 3-vector, got {arr.tolist()}")
    return (arr / scale) / (norm / scale)


def frame_axis(
    configuration: Configuration, frame: FrameRef, axis: np.ndarray
) -> tuple[np.ndarray, np.ndarray, pin.SE3, np.ndarray]:
    """The world axis ``a = R a_f`` of a frame and its Jacobian ``ȧ = J_a v``.

    ``ȧ = ω × a`` with the world angular velocity ``ω = R J_ω v`` (``J_ω``: rows 3–5 of the
    LOCAL frame Jacobian), so ``J_a = −[a]× R J_ω = −R [a_f]× J_ω``. Also returns the frame's
    placement and its LOCAL Jacobian, for tasks that need the origin too.
    """
    fid = frame.id(configuration)
    T = configuration.data.oMf[fid]
    J_local = configuration.get_frame_jacobian(fid)
    R = T.rotation
    return R @ axis, -R @ (pin.skew(axis) @ J_local[3:]), T, J_local


class AxisAlignmentTask(Task):
    """Turn the axis ``a_f`` of a frame (frame coordinates) toward a world direction ``d``.

    Value: the axis in the world, ``a = R(q) a_f`` (unit vector). Error: ``e = d − a``
    (unitless; ``‖e‖ = 2 sin(θ/2) ≈ θ`` rad for the angle θ between them). Jacobian:
    ``J = −R [a_f]× J_ω`` (``ȧ = ω × a``), with ``J_ω`` the angular rows of the LOCAL frame
    Jacobian. Rotations about the axis itself are left free. The error vanishes only when
    the axis points along ``d``; the opposite direction is an unstable equilibrium.

    Args:
        frame: frame name.
        axis: the axis in the frame's coordinates (normalised), ``[0, 0, 1]`` by default.
        direction: the target direction in the world (normalised); or set it later with
            :meth:`set_target` / :meth:`set_target_from_configuration`.
        cost: weight (1/rad), scalar or 3-vector.
        gain, lm_damping: see :class:`Task`.
    """

    frame = FrameName()
    dim = 3
    target = target_property(
        lambda task, value: unit_vector(value, "direction"),
        "the direction in the world frame, a unit 3-vector (normalised when set)",
    )

    def __init__(
        self,
        frame: str,
        axis: npt.ArrayLike = (0.0, 0.0, 1.0),
        direction: npt.ArrayLike | None = None,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self.frame = frame
        self.axis = axis
        self._target: np.ndarray | None = None
        if direction is not None:
            self.set_target(direction)
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def plan_key(self) -> object:
        """``(AxisAlignmentTask,)``: its rows are three whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (AxisAlignmentTask,) if type(self) is AxisAlignmentTask else id(self)

    @property
    def axis(self) -> np.ndarray:
        """The axis in the frame's coordinates, a unit 3-vector; assigning it is checked
        and normalised."""
        return self._axis

    @axis.setter
    def axis(self, axis: npt.ArrayLike) -> None:
        self._axis = unit_vector(axis, "axis")

    def set_target(self, direction: npt.ArrayLike) -> None:
        """Target direction in the world frame, shape (3,) (normalised here)."""
        self._target = unit_vector(direction, "direction")

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """Target the axis's current world direction (the task then holds it)."""
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = frame_axis(configuration, self.frame, self.axis)[0]

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        d = require_target(self.target, self)
        a, J, _, _ = frame_axis(configuration, self.frame, self.axis)
        return d - a, J

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.frame.name!r}, axis={self.axis.tolist()})"
