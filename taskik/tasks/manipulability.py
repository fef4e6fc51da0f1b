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
    expressed in), all 6 rows or only its ``position`` or ``orientation`` rows; with the
    singular values ``σ_i`` of ``J`` (r rows, ``J = Σ σ_i u_i v_iᵀ``), ``m = Π σ_i``, 0 at a
    singularity (and always 0 when the robot has fewer joints than rows). Its gradient
    (the "manipulability Jacobian") uses the kinematic Hessian ``H_k = ∂J/∂q_k``
    (``pin.computeJointKinematicHessians``, once per configuration update):

        ∂m/∂q_k = Σ_i (Π_{j≠i} σ_j) u_iᵀ H_k v_i  = m · ⟨(J Jᵀ)⁻¹ J, H_k⟩  (all σ_i > 0).

    At an exact singularity (``σ_i ≤ max(r, nv)·ε·σ_max`` for the k vanishing ones) every
    smooth function of ``J Jᵀ`` has a zero gradient, and so does the formula above: a task
    following it never leaves. ``m`` is not smooth there (like ``|x|`` at 0): a vanishing
    singular value grows along a displacement ``δq`` like ``‖N(δq)‖``, with the first-order
    map ``N(δq) = U₀ᵀ (Σ_k δq_k H_k) V₀`` (``U₀``: left vectors of the vanishing values;
    ``V₀``: a basis of the null space of ``J``). The task then takes the direction ``w``
    (unit) in which that block grows fastest, the top right singular vector of the linear map
    ``δq ↦ N(δq)``, with its singular value ``s``, and returns ``∇m = (Π_{σ_j>0} σ_j) · s · wᵀ``.
    With one vanishing value (k = 1) this is the one-sided derivative of ``m`` along ``w``,
    the steepest one: ``m(q ⊕ t w) = t ‖∇m‖ + O(t²)`` for ``t > 0``. With k ≥ 2 ``m`` has no
    first-order rate in any direction (it grows like ``t^k``): the row still moves the
    configuration along ``w``, where the vanishing block grows fastest, and ``m`` rises from 0
    in the following steps. ``∇m = 0`` only where no displacement raises the vanishing
    values at first order (a frame that can never move along a row).

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
        self.rows = rows
        self.frame = frame
        self._target: float | None = None
        if target is not None:
            self.set_target(target)
        # (configuration, its update count, rows, frame) of the cached value
        self._key: tuple[weakref.ref[Configuration], int, str, str] | None = None
        self._value: tuple[float, np.ndarray]  # (computed with _key)
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def plan_key(self) -> object:
        """``(ManipulabilityTask,)``: its row is one whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (ManipulabilityTask,) if type(self) is ManipulabilityTask else id(self)

    @property
    def rows(self) -> str:
        """``"all"``, ``"position"`` or ``"orientation"``: the rows of ``J`` in ``m``."""
        return self._rows

    @rows.setter
    def rows(self, rows: str) -> None:
        if not isinstance(rows, str) or rows not in _ROWS:
            raise InvalidInput(f"rows must be 'all', 'position' or 'orientation', got {rows!r}")
        self._rows = rows

    @property
    def target(self) -> float | None:
        """Target manipulability ``m* ≥ 0``, or None before one is set."""
        return self._target

    @target.setter
    def target(self, target: float | None) -> None:
        self._target = None if target is None else check_scalar(target, "target", 0.0)

    def set_target(self, target: float) -> None:
        """Target manipulability ``m* ≥ 0``."""
        self._target = check_scalar(target, "target", 0.0)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """``m* ← m(q)``: keep at least the manipulability the frame has now."""
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self.target = self.manipulability(configuration)

    def manipulability(self, configuration: Configuration) -> float:
        """``m(q) = √det(J Jᵀ) = Π σ_i``."""
        configuration = check_configuration(configuration, "ManipulabilityTask")
        J = configuration.get_frame_jacobian(self.frame.id(configuration))[_ROWS[self.rows]]
        if J.shape[0] > J.shape[1]:  # fewer joints than rows: J Jᵀ is always singular
            return 0.0
        return float(np.prod(np.linalg.svd(J)[1]))  # the call gradient() makes: equal values

    def gradient(self, configuration: Configuration) -> tuple[float, np.ndarray]:
        """``(m, ∇m)`` with ``∇m`` of shape (1, nv): ``ṁ = ∇m · v`` (at an exact singularity,
        the steepest one-sided rate: see the class docstring)."""
        configuration = check_configuration(configuration, "ManipulabilityTask")
        key = self._key
        if (
            key is not None
            and key[0]() is configuration
            and key[1:] == (configuration._updates, self.rows, self.frame.name)
        ):
            return self._value
        model, data = configuration.model, configuration.data
        fid = self.frame.id(configuration)
        J = configuration.get_frame_jacobian(fid)[_ROWS[self.rows]]
        r, nv = J.shape
        if r > nv:  # m ≡ 0: no displacement raises it
            m, grad = 0.0, np.zeros(nv)
        else:
            # uses the joint Jacobians of the configuration's last update (no new FK pass)
            pin.computeJointKinematicHessians(model, data)
            H = pin.getFrameKinematicHessian(model, data, fid, pin.LOCAL)
            # The binding returns the (6, nv, nv) tensor with its memory read in the wrong
            # order: this reshape gives H[a, i, k] = ∂J[a, i]/∂q_k (checked against finite
            # differences).
            H = np.reshape(H.ravel(order="C"), H.shape, order="F")[_ROWS[self.rows]]
            m, grad = _manipulability_gradient(J, H)
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


def _manipulability_gradient(J: np.ndarray, H: np.ndarray) -> tuple[float, np.ndarray]:
    """``(m, ∇m)`` of ``m = Π σ_i(J)`` for ``J`` (r × nv, r ≤ nv) and its derivatives
    ``H[a, i, k] = ∂J[a, i]/∂q_k``; the steepest one-sided rate at an exact singularity."""
    r, nv = J.shape
    U, S, Vt = np.linalg.svd(J)  # U: r × r, S: r, Vt: nv × nv
    # products of the other singular values (no division: some may be 0)
    others = np.array([np.prod(np.delete(S, i)) for i in range(r)])
    tolerance = max(r, nv) * np.finfo(float).eps * S[0]  # numpy's matrix_rank tolerance
    zero = tolerance >= S
    if not zero.any():
        return float(np.prod(S)), np.einsum("i,ai,ajk,ij->k", others, U, H, Vt[:r])
    null = Vt[np.concatenate([np.flatnonzero(zero), np.arange(r, nv)])]  # basis of null(J)
    # first-order growth of the vanishing block along δq: rows N_z(δq) = V₀ᵀ H(δq)ᵀ u_z
    N = np.concatenate([null @ np.einsum("a,aik->ik", U[:, z], H) for z in np.flatnonzero(zero)])
    _, s, Wt = np.linalg.svd(N)
    w = Wt[0] * (1.0 if Wt[0][np.argmax(np.abs(Wt[0]))] > 0 else -1.0)  # a fixed sign
    return 0.0, float(np.prod(S[~zero])) * s[0] * w
