"""Point an axis of a frame at a point of the world (camera, head, tool)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_finite_array
from ._frames import require_target, target_property
from .axis_alignment import AxisAlignmentTask, frame_axis


class LookAtTask(AxisAlignmentTask):
    """Point the axis ``a_f`` of a frame (frame coordinates) at a world point ``p*`` (an
    :class:`AxisAlignmentTask` whose direction is the line of sight).

    With the frame origin ``p``, ``r = p* − p`` and the line of sight ``u = r / ‖r‖``:
    value ``x = a − u`` (``a = R a_f``), target 0, error ``e = u − a`` (unitless;
    ``‖e‖ = 2 sin(θ/2) ≈ θ`` rad for the angle θ between the axis and the line of sight).
    Jacobian ``J = −R [a_f]× J_ω + (I − u uᵀ) R J_v / ‖r‖``: the axis turns with ``ω``
    and the line of sight turns as the origin moves (``u̇ = −(I − u uᵀ) ṗ / ‖r‖``), with
    ``[J_v; J_ω]`` the LOCAL frame Jacobian. Rotations about the axis are left free.

    Args:
        frame: frame name (its origin is the eye).
        axis: the viewing axis in the frame's coordinates, ``[0, 0, 1]`` by default.
        target: the point to look at, in the world (m); or :meth:`set_target` later.
        cost: weight (1/rad), scalar or 3-vector.
        gain, lm_damping: see :class:`Task`.
    """

    target = target_property(
        lambda task, value: check_finite_array(value, "target", (3,)).copy(),
        "the point to look at in the world frame (m), shape (3,)",
    )

    def __init__(
        self,
        frame: str,
        axis: npt.ArrayLike = (0.0, 0.0, 1.0),
        target: npt.ArrayLike | None = None,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        super().__init__(frame, axis, None, cost, gain=gain, lm_damping=lm_damping)
        if target is not None:
            self.set_target(target)

    def plan_key(self) -> object:
        """``(LookAtTask,)``: its rows are three whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (LookAtTask,) if type(self) is LookAtTask else id(self)

    def set_target(self, target: npt.ArrayLike) -> None:
        """The point to look at, in the world frame (m), shape (3,)."""
        self._target = check_finite_array(target, "target", (3,)).copy()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """Look at the point 1 m along the axis from where the frame is now."""
        configuration = check_configuration(configuration, "set_target_from_configuration")
        a, _, T, _ = frame_axis(configuration, self.frame, self.axis)
        self._target = T.translation + a

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        a, J_a, T, J_local = frame_axis(configuration, self.frame, self.axis)
        r = target - T.translation
        # the norm scaled first: ‖[0, 0, 1e300]‖ squares to inf (overflow) otherwise
        scale = float(np.abs(r).max())
        dist = scale * float(np.linalg.norm(r / scale)) if scale > 0.0 else 0.0
        if not math.isfinite(dist):
            raise InvalidInput(
                f"LookAtTask: the target {target.tolist()} is too far from frame "
                f"{self.frame.name!r} to compute its line of sight"
            )
        if dist < 1e-9:
            raise InvalidInput(
                f"LookAtTask: the target {target.tolist()} is at the origin of frame "
                f"{self.frame.name!r}: there is no direction to look at"
            )
        u = r / dist
        P = (np.eye(3) - np.outer(u, u)) / dist
        return u - a, J_a + P @ (T.rotation @ J_local[:3])
