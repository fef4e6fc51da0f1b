"""Base class of tasks.

A task has a value ``x(q)``, a target ``x*`` and an error ``e = x* ⊖ x(q)``; its Jacobian
``J`` is such that ``J v`` is the rate of the task value, ``ẋ = J v``. One step asks

    W (J v) ≈ W (Kp e / dt),

with ``W = diag(cost)`` and gain ``Kp ∈ (0, 1]``. With ``lm_damping = λ`` the step also
adds the Levenberg–Marquardt term ``μ ‖v‖²``, ``μ = λ ‖W Kp e‖² = λ Kp² ‖W e‖²`` (Sugihara
2011; the error is the one the step corrects, ``Kp e``, as in pink), which damps the step as
the task error grows, so unreachable targets do not produce large motions.

A task of your own implements ``compute_error_and_jacobian(configuration) -> (e, J)`` in the
convention above, or pink's pair ``compute_error(configuration)`` /
``compute_jacobian(configuration)`` in pink's convention: an error ``e_p`` that the step drives
to zero with ``J_p Δq = −Kp e_p`` (``J_p = ∂e_p/∂q``). The two describe the same step with
``e = −e_p`` and ``J = J_p``, which is how the pink-style pair is read.
"""

from __future__ import annotations

import math
from typing import TypeGuard

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_finite_array, check_scalar

#: The largest cost a task takes: the QP weighs rows by the cost squared (``WᵀW``), and
#: squares of the rows of costs beyond this overflow the float range on the way.
MAX_COST = 1e50


def is_plain_cost(cost: object) -> TypeGuard[float | int]:
    """Whether ``cost`` is a Python float or int in ``[0, MAX_COST]`` (a valid scalar cost)."""
    # (an int beyond the float range, e.g. 10**400, is left to check_cost's message)
    return (type(cost) is float or type(cost) is int) and 0.0 <= cost <= MAX_COST


#: Read-only cost arrays of plain scalar costs, ``(cost, dim)`` -> the weights: tasks built
#: with the same number share one (a task's costs are replaced when changed, never written in
#: place). Keyed by value.
_SHARED: dict[tuple[float, int | None], np.ndarray] = {}


def plain_gains(gain: object, lm_damping: object) -> bool:
    """Whether ``gain`` and ``lm_damping`` are plain floats within their ranges (``gain`` in
    ``(0, 1]``, ``lm_damping`` in ``[0, ∞)``): a constructor may then set them without the
    checks (the common case of a task list built anew every step)."""
    return (
        type(gain) is float
        and 0.0 < gain <= 1.0
        and type(lm_damping) is float
        and 0.0 <= lm_damping < math.inf
    )


def shared_cost(cost: float, dim: int | None) -> np.ndarray:
    """The read-only weights of the plain scalar ``cost`` (checked by the caller: a float in
    ``[0, MAX_COST]``): ``dim`` copies, or a 0-d array for ``dim=None``; one array per value."""
    key = (cost, dim)
    arr = _SHARED.get(key)
    if arr is None:
        arr = np.array((float(cost),) * dim) if dim is not None else np.array(float(cost))
        arr.flags.writeable = False
        if len(_SHARED) >= 64:
            _SHARED.clear()
        _SHARED[key] = arr
    return arr


def _same_array(a: np.ndarray, b: np.ndarray | None) -> bool:
    """Whether ``b`` is an array of ``a``'s shape and values."""
    return b is not None and a.shape == b.shape and bool((a == b).all())


def check_cost(cost: npt.ArrayLike, dim: int | None, name: str = "cost") -> np.ndarray:
    """Return ``cost`` as a (dim,) weight vector; scalars are broadcast. Costs must be in
    ``[0, MAX_COST]`` (1e50).

    With ``dim=None`` (tasks whose size depends on the model) a scalar stays a 0-d array and a
    vector is kept as given; its length is checked when the model is known.
    """
    if is_plain_cost(cost):
        # (a tuple is turned into an array faster than np.full fills one)
        return np.array((float(cost),) * dim) if dim is not None else np.array(float(cost))
    if cost is None or isinstance(cost, str | bytes):
        vector = "one number per row" if dim is None else f"a vector of {dim} numbers"
        raise InvalidInput(f"{name} must be a number or {vector}, got {cost!r}")
    arr = check_finite_array(cost, name)
    if arr.ndim == 0 and dim is not None:
        arr = np.full(dim, float(arr))
    if dim is None and arr.ndim > 1 or dim is not None and arr.shape != (dim,):
        raise InvalidInput(f"{name} must be a scalar or have shape ({dim},), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise InvalidInput(f"{name} contains NaN or inf: {arr}")
    if (arr < 0).any():
        raise InvalidInput(f"{name} must be >= 0, got {arr}")
    if (arr > MAX_COST).any():
        raise InvalidInput(
            f"{name} must be at most {MAX_COST:g} (the QP weighs rows by its square), got {arr}"
        )
    return arr


def positional_gains(
    task: str, before: str, given: tuple[object, ...], gain: float, lm_damping: float
) -> tuple[float, float]:
    """``(gain, lm_damping)`` of mink's call shapes that give them by position after
    ``before`` (``ComTask(cost, gain, lm_damping)``, ``FrameTask(..., orientation_cost,
    gain, lm_damping)``); :class:`InvalidInput` for more than two, or for one given twice
    (by position and by keyword)."""
    if len(given) > 2:
        raise InvalidInput(
            f"{task} takes at most two arguments after {before} by position, mink's gain and "
            f"lm_damping; got {len(given)}: write {task}(..., gain=..., lm_damping=...)"
        )
    for k, (name, keyword, default) in enumerate(
        (("gain", gain, 1.0), ("lm_damping", lm_damping, 0.0))
    ):
        if k < len(given) and (type(keyword) is not float or keyword != default):
            raise InvalidInput(f"{task} got {name} twice, by position and by keyword")
    gain = given[0]  # type: ignore[assignment]
    if len(given) == 2:
        lm_damping = given[1]  # type: ignore[assignment]
    return gain, lm_damping


class Task:
    """A term of the IK objective: ``‖W (J v − Kp e / dt)‖² + μ ‖v‖²``.

    Args:
        cost: weight(s) ``W`` of the task rows, scalar or one per row, each ≥ 0
            (units: cost per unit of task error, e.g. 1/m for positions, 1/rad for angles).
        gain: task gain ``Kp ∈ (0, 1]``: the fraction of the error corrected per step.
        lm_damping: Levenberg–Marquardt coefficient ``λ ≥ 0`` of ``μ = λ Kp² ‖W e‖²``
            (unitless; μ is in cost², the units of the objective per (rad/s)²·s²).
    """

    #: Number of rows of the task (its error dimension); None when it depends on the model.
    dim: int | None = None

    # (cost version, all costs are 1), cached by taskik.posture.solve.unit_cost
    _ik_unit_cost: tuple[int, bool]

    def __init__(
        self, cost: npt.ArrayLike = 1.0, *, gain: float = 1.0, lm_damping: float = 0.0
    ) -> None:
        self.cost = cost
        self._set_gains(gain, lm_damping)

    def _set_gains(self, gain: float, lm_damping: float) -> None:
        """Set ``gain`` and ``lm_damping`` through their checks, or at once when both are
        plain floats in range (the common case of a task list built anew every step)."""
        if plain_gains(gain, lm_damping):
            self._gain = gain
            self._lm_damping = lm_damping
            self._bump()
        else:
            self.gain = gain
            self.lm_damping = lm_damping

    # ------------------------------------------------------------ parameters
    @property
    def cost(self) -> np.ndarray:
        """Per-row weights ``W`` (≥ 0), read-only: assign a new value to change them."""
        view = self._cost.view()
        view.flags.writeable = False
        return view

    @cost.setter
    def cost(self, value: npt.ArrayLike) -> None:
        self._set_cost(value)

    def _set_cost(self, value: npt.ArrayLike) -> None:
        """Validate and store new costs; tasks whose size depends on the model override it."""
        cost = check_cost(value, self.dim)
        if not _same_array(cost, getattr(self, "_cost", None)):
            self._cost = cost
            self._bump()

    def _bump(self) -> None:
        """Mark cost or gain as changed (in value: setting the same value again is no
        change), so cached step assemblers refresh their weights and the closed loop's
        adaptive damping (:mod:`taskik.trust_region`) gives the plain step."""
        self._version: int = getattr(self, "_version", 0) + 1

    @property
    def gain(self) -> float:
        """Task gain ``Kp ∈ (0, 1]``."""
        return self._gain

    @gain.setter
    def gain(self, value: float) -> None:
        gain = check_scalar(value, "gain", 0.0, 1.0, low_open=True)
        if gain != getattr(self, "_gain", None):
            self._gain = gain
            self._bump()

    @property
    def lm_damping(self) -> float:
        """Levenberg–Marquardt coefficient ``λ ≥ 0``."""
        return self._lm_damping

    @lm_damping.setter
    def lm_damping(self, value: float) -> None:
        lm_damping = check_scalar(value, "lm_damping", 0.0)
        if lm_damping != getattr(self, "_lm_damping", None):
            self._lm_damping = lm_damping
            self._bump()

    # ------------------------------------------------------------- interface
    def compute_error(self, configuration: Configuration) -> np.ndarray:
        """Task error ``e = x* ⊖ x(q)``, shape (dim,).

        (A task written pink's way overrides this with pink's error ``e_p``; see the module.)
        """
        return self.compute_error_and_jacobian(configuration)[0]

    def compute_jacobian(self, configuration: Configuration) -> np.ndarray:
        """Task Jacobian ``J`` (dim × nv) with ``ẋ = J v`` (so ``ė = −J v`` to first order)."""
        return self.compute_error_and_jacobian(configuration)[1]

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(e, J)`` in one pass, with ``J v ≈ Kp e / dt`` the step's aim.

        Subclasses implement this; a subclass that implements pink's ``compute_error`` and
        ``compute_jacobian`` instead gets ``(−e_p, J_p)`` from them (pink's ``J_p Δq = −Kp e_p``
        is the same step as ``J Δq = Kp e``).
        """
        if not self.is_implemented():
            raise NotImplementedError(
                f"{type(self).__name__} implements neither compute_error_and_jacobian("
                "configuration) -> (e, J) nor both of pink's compute_error and compute_jacobian"
            )
        e_p = np.asarray(self.compute_error(configuration), dtype=float).reshape(-1)
        J = np.asarray(self.compute_jacobian(configuration), dtype=float)
        return -e_p, (J if J.ndim == 2 else J.reshape(e_p.size, -1))

    def plan_key(self) -> object:
        """What the solvers' plan cache keys this task on (``taskik.plan_cache``): its
        identity here (the cache cannot see what the rows of a task of your own depend on).
        Every built-in task returns its structure instead (its type, with its frames or row
        count where its rows depend on them), so that a list built anew at every step finds
        the plan of the last one."""
        return id(self)

    def adopt(self, resolved: Task) -> None:
        """Take over what ``resolved``, a task of the same type and :meth:`plan_key` that
        served the last step of a plan, worked out for its model (frame indices, row
        layouts), so a task list built anew every step resolves nothing again. Nothing for
        this base class; values (targets, costs, gains) are never taken."""

    def selection(self, configuration: Configuration) -> np.ndarray | None:
        """Velocity indices ``idx`` when the Jacobian is the constant selection ``I[idx]``
        at every configuration of this model (a posture of 1-DoF joints, a damping), else
        None. The assembly then adds ``WᵀW`` to the diagonal of ``P`` instead of a dense
        ``JᵀWᵀWJ``, and writes the rows once. A subclass that changes the Jacobian of a task
        that has a selection must override this too."""
        return None

    def is_implemented(self) -> bool:
        """Whether the task gives its error and Jacobian in one of the two ways (the module)."""
        cls = type(self)
        return cls.compute_error_and_jacobian is not Task.compute_error_and_jacobian or (
            cls.compute_error is not Task.compute_error
            and cls.compute_jacobian is not Task.compute_jacobian
        )

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """Set the target to the task value at ``configuration``."""
        raise NotImplementedError(
            f"{type(self).__name__} does not implement set_target_from_configuration"
        )

    def compute_term(
        self, configuration: Configuration, dt: float
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """Weighted rows of the step: ``(A, c, μ)`` with ``A = W J``, ``c = W Kp e / dt``."""
        e, J = self.compute_error_and_jacobian(configuration)
        A = np.empty(J.shape)
        c = np.empty(e.shape)
        mu = self.write_term(e, J, dt, A, c)
        return A, c, mu

    def write_term(
        self, e: np.ndarray, J: np.ndarray, dt: float, A_out: np.ndarray, c_out: np.ndarray
    ) -> float:
        """Write ``W J`` into ``A_out`` and ``W Kp e / dt`` into ``c_out``; return ``μ``."""
        w = self._cost
        if w.ndim:
            np.multiply(J, w[:, None], out=A_out)
        else:
            np.multiply(J, w, out=A_out)
        np.multiply(e, w, out=c_out)
        c_out *= self._gain
        mu = self._lm_damping * float(c_out @ c_out) if self._lm_damping else 0.0
        c_out /= dt
        return mu

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(cost={self._cost.tolist()}, gain={self._gain}, "
            f"lm_damping={self._lm_damping})"
        )
