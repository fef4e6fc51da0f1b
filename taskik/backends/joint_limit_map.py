"""Joint position limits by a change of variable, for the unconstrained backends.

Dénes Drexler's thesis (chapter 6) maps each bounded joint ``θ ∈ (θL, θU)`` onto the real line:

    θ = β(z) = s·atan(z) + m,   s = (θU − θL)/π,   m = (θU + θL)/2,
    β'(z) = s / (1 + z²),       z = β⁻¹(θ) = tan((θ − m)/s),

solves any unconstrained method for ``θ̇`` and integrates ``ż = θ̇ / β'(z)`` in z. Since
β maps ℝ into the open range, ``θ' = β(z + ż dt)`` never crosses a limit: a joint driven
toward a limit slows down as ``β' → 0`` and stops at it. The velocity returned to the caller
is the one that lands there, ``v = (θ' − θ)/dt``. To first order in dt, ``v = θ̇``: the map
changes nothing away from the limits.

``β'`` vanishes at a limit, so ``1/β'`` is taken one of the thesis's two ways (§6.3):

- ``"threshold"``: ``1/β'`` where ``β'/s ≥ λ₁``, else 0 (the joint stops at the limit);
- ``"damped"``: ``1/(β' + s λ₂)``, bounded by ``1/(s λ₂)``: the joint slows down well before
  the limit (its step is ``θ̇ β'/(β' + s λ₂)`` to first order).

and ``|z|`` is clamped to ``z_max`` (exact ``1/β'`` overflows): a joint comes no closer to a
limit than ``s (π/2 − atan z_max) ≈ s / z_max``.

Held joints. Where the map (nearly) stops a joint that the tasks drive into its limit
(``β'/s < λ₁``, or ``< λ₂`` for the damped inversion: about ``s√λ`` from the limit), its
column of the constrained Jacobian ``J dβ`` is (nearly) zero; the backends then solve again
without it, so that the other joints take over its share (:meth:`JointLimitMap.held`).

Leaving a limit (§6.4). The map is applied to the motion *toward* the nearer limit
(``θ̇ z > 0``). Motion away from it is the plain step ``θ + θ̇ dt`` (the thesis's
"regaining" term with μ = 1, here on the whole half-range): a joint at its limit leaves it
as soon as the tasks ask, instead of staying frozen (threshold) or crawling out at
``1/λ₂`` in z (damped); and a large step away cannot overshoot through z to the far limit.
If the plain step passes the middle ``m``, the rest of it is mapped from ``z = 0`` toward
the other limit.

A joint that starts outside its range (``θ < θL`` or ``> θU``) is brought back at
``v = K (θ_clipped − θ)/dt`` (Kanoun's recovery, the gain ``K`` of the position limit).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidInput, check_scalar

INVERSIONS = ("threshold", "damped")


def beta(z: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``θ = β(z) = (θU − θL)/π · atan(z) + (θU + θL)/2`` (rad or m), in ``(θL, θU)``."""
    return (upper - lower) / math.pi * np.arctan(z) + 0.5 * (upper + lower)


def beta_prime(z: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``β'(z) = (θU − θL)/π / (1 + z²)``."""
    return (upper - lower) / math.pi / (1.0 + z * z)


def beta_inverse(
    theta: np.ndarray, lower: np.ndarray, upper: np.ndarray, z_max: float = math.inf
) -> np.ndarray:
    """``z = β⁻¹(θ) = tan(π (θ − m)/(θU − θL))``, clamped to ``[−z_max, z_max]``; θ at or
    beyond a limit maps to ``±z_max`` (``±1.6e16``, tan of the float π/2, if z_max is inf)."""
    u = math.pi * (theta - 0.5 * (upper + lower)) / (upper - lower)
    half = 0.5 * math.pi
    # tan(±π/2) in floating point is ±1.6e16, finite: the clamp to z_max takes over
    z = np.tan(np.minimum(np.maximum(u, -half), half))
    return np.minimum(np.maximum(z, -z_max), z_max)


class JointLimitMap:
    """The change of variable ``θ = β(z)`` applied to the step of an unconstrained backend
    (see the module docstring).

    Args:
        inversion: ``"threshold"`` or ``"damped"``, how ``1/β'`` is taken near a limit.
        threshold: λ₁, relative (``β'/s``, in (0, 1)); the joint stops toward a limit once
            ``1/(1 + z²) < λ₁``, i.e. within about ``s √λ₁`` of it.
        damping: λ₂, relative (added to ``β'/s``), > 0.
        z_max: clamp on ``|z|`` (> 1).
    """

    def __init__(
        self,
        inversion: str = "threshold",
        *,
        threshold: float = 1e-8,
        damping: float = 1e-2,
        z_max: float = 1e8,
    ) -> None:
        if inversion not in INVERSIONS:
            raise InvalidInput(
                f"JointLimitMap inversion must be one of {INVERSIONS}, got {inversion!r}"
            )
        self.inversion = inversion
        self.threshold = check_scalar(threshold, "JointLimitMap threshold", 0.0, 1.0, low_open=True)
        self.damping = check_scalar(damping, "JointLimitMap damping", 0.0, low_open=True)
        self.z_max = check_scalar(z_max, "JointLimitMap z_max", 1.0, low_open=True)

    def inverse_derivative(self, z: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """``dβ⁺``: ``1/β'`` where ``β'/s ≥ λ₁`` else 0 (threshold) or ``1/(β' + s λ₂)``."""
        g = 1.0 / (1.0 + z * z)  # β'/s
        if self.inversion == "damped":
            return 1.0 / (scale * (g + self.damping))
        return np.where(g >= self.threshold, 1.0 / (scale * np.maximum(g, self.threshold)), 0.0)

    def held(
        self, theta: np.ndarray, theta_dot: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> np.ndarray:
        """Joints that ``θ̇`` drives further into a limit where the map (nearly) stops them:
        ``β'/s < λ₁`` (threshold: held) or ``β'/s < λ₂`` (damped: the damping dominates, the
        joint moves at less than half of ``θ̇``). A joint that ``θ̇`` drives away from its
        limit is free to leave (§6.4)."""
        with np.errstate(divide="ignore", invalid="ignore"):  # zero-width ranges: not held
            z = beta_inverse(theta, lower, upper, self.z_max)  # (θ past a limit: ±z_max)
        bound = self.damping if self.inversion == "damped" else self.threshold
        return (theta_dot * z > 0.0) & (1.0 / (1.0 + z * z) < bound)

    def step(
        self,
        theta: np.ndarray,
        theta_dot: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        dt: float,
        recovery_gain: float = 0.5,
    ) -> np.ndarray:
        """The velocity ``v`` (same units as ``θ̇``) whose step ``θ + v dt`` stays in
        ``[θL, θU]``: ``(β(z + dβ⁺ θ̇ dt) − θ)/dt`` toward the nearer limit, ``θ̇`` away from
        it (mapped past the middle), ``K (θ_clipped − θ)/dt`` for a joint outside its range
        (or with a zero-width range ``θL = θU``, where it is held)."""
        pinned = upper <= lower  # a zero-width range: the joint is held at it
        if pinned.any():
            upper = np.where(pinned, lower + 1.0, upper)  # any width: v is replaced below
        scale = (upper - lower) / math.pi
        middle = 0.5 * (upper + lower)
        inside = np.minimum(np.maximum(theta, lower), upper)
        z = beta_inverse(inside, lower, upper, self.z_max)
        toward = theta_dot * z > 0.0
        # toward the nearer limit: the thesis's map
        z_new = z + self.inverse_derivative(z, scale) * theta_dot * dt
        z_new = np.minimum(np.maximum(z_new, -self.z_max), self.z_max)
        mapped = beta(z_new, lower, upper)
        # (never backward: a joint at its limit, beyond β(z_max), stays there)
        mapped = np.where(theta_dot > 0.0, np.maximum(mapped, inside), np.minimum(mapped, inside))
        target = np.where(toward, mapped, inside + theta_dot * dt)
        # away from it: the plain step; its part past the middle is mapped from z = 0
        past = ~toward & ((target - middle) * (inside - middle) <= 0.0)
        if past.any():
            rest = (target - middle) * self.inverse_derivative(np.zeros_like(z), scale)
            beyond = beta(np.clip(rest, -self.z_max, self.z_max), lower, upper)
            target = np.where(past, beyond, target)
        v = (target - theta) / dt
        outside = inside != theta
        if pinned.any():
            inside = np.where(pinned, lower, inside)
            outside |= pinned
        if outside.any():
            v = np.where(outside, recovery_gain * (inside - theta) / dt, v)
        return v

    def __repr__(self) -> str:
        return (
            f"JointLimitMap({self.inversion!r}, threshold={self.threshold:g}, "
            f"damping={self.damping:g}, z_max={self.z_max:g})"
        )
