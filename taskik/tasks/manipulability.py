"""Manipulability of a frame: push away from singular configurations."""

from __future__ import annotations

import weakref

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_scalar
from ._frames import FrameName, require_target
from .task import Task

_ROWS = {"all": slice(0, 6), "position": slice(0, 3), "orientation": slice(3, 6)}


class ManipulabilityTask(Task):
    """Raise Yoshikawa's manipulability ``m(q) = √det(J Jᵀ)`` of a frame up to ``m*``.

    ``J`` is the frame Jacobian (LOCAL; ``m`` does not depend on the axes the rows are
    expressed in), all 6 rows or only its ``position`` or ``orientation`` rows; ``m`` is 0
    at a singularity. Its gradient (the "manipulability Jacobian"),
    ``∂m/∂q_k = m · ⟨(J Jᵀ)⁻¹ J, ∂J/∂q_k⟩``, uses the kinematic Hessian ``∂J/∂q_k``
    (``pin.computeJointKinematicHessians``, once per configuration update).

    One row, active below the target: value ``x = min(m, m*)``, error ``e = max(m* − m, 0)``,
    Jacobian ``J_m = ∇m`` (1 × nv) while ``m < m*``, zero above. The step asks
    ``∇m · v = Kp (m* − m) / dt``, whose least-norm answer follows the gradient. Use it as a
    low-cost (or low-priority) term beside the main tasks; a target above what the robot
    can reach makes it climb to a local maximum. Above ``m*`` it lets go: a lower level
    that drives toward a singularity can then pull ``m`` back under ``m*`` for a step.
    Units of ``m``: the product of the rows' (m/rad for position rows, 1 for orientation).

    Args:
        frame: frame name.
        target: ``m* ≥ 0``; or :meth:`set_target` later.
        rows: ``"all"`` (6), ``"position"`` (3) or ``"orientation"`` (3).
        cost: weight (1 / the units of m).
        gain, lm_damping: see :class:`Task`.
    """

    frame = FrameName()
    dim = 1

    def __init__(
        self,
        frame: str,
        target: float | None = None,
        rows: str = "all",
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        if rows not in _ROWS:
            raise InvalidInput(f"rows must be 'all', 'position' or 'orientation', got {rows!r}")
        self.rows = rows
        self.frame = frame
        self.target: float | None = None
        if target is not None:
            self.set_target(target)
        # (configuration, its update count, rows, frame) of the cached value
        self._key: tuple[weakref.ref[Configuration], int, str, str] | None = None
        self._value: tuple[float, np.ndarray]  # (computed with _key)
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def set_target(self, target: float) -> None:
        """Target manipulability ``m* ≥ 0``."""
        self.target = check_scalar(target, "target", 0.0)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """``m* ← m(q)``: keep at least the manipulability the frame has now."""
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self.target = self.manipulability(configuration)

    def manipulability(self, configuration: Configuration) -> float:
        """``m(q) = √det(J Jᵀ)``."""
        J = configuration.get_frame_jacobian(self.frame.id(configuration))[_ROWS[self.rows]]
        return float(np.sqrt(max(np.linalg.det(J @ J.T), 0.0)))

    def gradient(self, configuration: Configuration) -> tuple[float, np.ndarray]:
        """``(m, ∇m)`` with ``∇m`` of shape (1, nv): ``ṁ = ∇m · v``."""
        key = self._key
        if (
            key is not None
            and key[0]() is configuration
            and key[1:] == (configuration._updates, self.rows, self.frame.name)
        ):
            return self._value
        model, data = configuration.model, configuration.data
        fid = self.frame.id(configuration)
        sl = _ROWS[self.rows]
        J = configuration.get_frame_jacobian(fid)[sl]
        A = J @ J.T
        m = float(np.sqrt(max(np.linalg.det(A), 0.0)))
        # uses the joint Jacobians of the configuration's last update (no new FK pass)
        pin.computeJointKinematicHessians(model, data)
        H = pin.getFrameKinematicHessian(model, data, fid, pin.LOCAL)
        # The binding returns the (6, nv, nv) tensor with its memory read in the wrong order:
        # this reshape gives H[a, i, k] = ∂J[a, i]/∂q_k (checked against finite differences).
        H = np.reshape(H.ravel(order="C"), H.shape, order="F")[sl]
        try:
            B = np.linalg.solve(A, J)
        except np.linalg.LinAlgError:  # exactly singular: no gradient of √det, take pinv
            B = np.linalg.pinv(A) @ J
        grad = m * np.einsum("ai,aik->k", B, H)
        self._value = (m, grad.reshape(1, -1))
        self._key = (weakref.ref(configuration), configuration._updates, self.rows, self.frame.name)
        return self._value

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        m, grad = self.gradient(configuration)
        if m >= target:
            return np.zeros(1), np.zeros_like(grad)
        return np.array([target - m]), grad

    def __repr__(self) -> str:
        return f"ManipulabilityTask({self.frame.name!r}, target={self.target}, rows={self.rows!r})"
