"""Distance between the origins of two frames."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_scalar
from ._frames import FrameName, require_target, target_property
from .task import Task

#: Below this distance (m) the direction between the two origins is undefined.
MIN_DISTANCE = 1e-9


class DistanceTask(Task):
    """Keep the distance ``ρ(q) = ‖p_a − p_b‖`` between two frame origins at ``ρ*``.

    Error: ``e = ρ* − ρ`` (m). Jacobian: ``J = uᵀ (R_a J_a − R_b J_b)`` with the unit vector
    ``u = (p_a − p_b) / ρ`` and ``J_a``, ``J_b`` the linear rows of the LOCAL frame Jacobians
    (``R J`` is the world velocity of the origin), so that ``J v = ρ̇``. One row; the
    direction between the frames is free. ρ must stay above 1 nm (the direction is undefined
    at 0): to bring two frames together use a :class:`PositionTask` or a
    :class:`RelativeFrameTask`.

    Args:
        frame_a, frame_b: frame names.
        distance: target ``ρ* ≥ 0`` (m); or :meth:`set_target` later.
        cost: weight (1/m).
        gain, lm_damping: see :class:`Task`.
    """

    frame_a = FrameName()
    frame_b = FrameName()
    dim = 1
    target = target_property(
        lambda task, value: check_scalar(value, "distance", 0.0), "the distance ρ* ≥ 0 (m)"
    )

    def __init__(
        self,
        frame_a: str,
        frame_b: str,
        distance: float | None = None,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self.frame_a = frame_a
        self.frame_b = frame_b
        if frame_a == frame_b:
            raise InvalidInput(f"DistanceTask needs two different frames, got {frame_a!r} twice")
        self._target: float | None = None
        if distance is not None:
            self.set_target(distance)
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def plan_key(self) -> object:
        """``(DistanceTask,)``: its row is one whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (DistanceTask,) if type(self) is DistanceTask else id(self)

    def set_target(self, distance: float) -> None:
        """Target distance ``ρ*`` (m), ≥ 0."""
        self._target = check_scalar(distance, "distance", 0.0)

    def distance(self, configuration: Configuration) -> float:
        """``ρ = ‖p_a − p_b‖`` (m) at the configuration."""
        oMf = configuration.data.oMf
        p_a = oMf[self.frame_a.id(configuration)].translation
        return float(np.linalg.norm(p_a - oMf[self.frame_b.id(configuration)].translation))

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = self.distance(configuration)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        ia, ib = self.frame_a.id(configuration), self.frame_b.id(configuration)
        Ta, Tb = configuration.data.oMf[ia], configuration.data.oMf[ib]
        r = Ta.translation - Tb.translation
        rho = float(np.linalg.norm(r))
        if rho < MIN_DISTANCE:
            raise InvalidInput(
                f"DistanceTask: frames {self.frame_a.name!r} and {self.frame_b.name!r} are at "
                f"the same point ({rho:.3g} m apart): the direction between them is undefined"
            )
        u = r / rho
        Ja = configuration.get_frame_jacobian(ia)[:3]
        Jb = configuration.get_frame_jacobian(ib)[:3]
        J = (u @ Ta.rotation) @ Ja - (u @ Tb.rotation) @ Jb
        return np.array([target - rho]), J.reshape(1, -1)

    def __repr__(self) -> str:
        return f"DistanceTask({self.frame_a.name!r}, {self.frame_b.name!r}, {self.target})"
