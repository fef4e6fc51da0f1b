"""Joint acceleration limits, with the braking bound that keeps the position limits reachable."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, PositionRanges, check_model
from ..exceptions import InvalidInput, check_finite_array, check_positive_scalar, check_scalar
from .limit import Box, Limit, as_slice
from .velocity import VelocityLimit


def braking_speed(distance: np.ndarray, a_max: np.ndarray, dt: float) -> np.ndarray:
    """Largest speed ``u ≥ 0`` toward a limit ``distance`` away (m or rad) from which the joint
    can still stop before it at deceleration ``a_max`` (m/s², rad/s²), in steps of ``dt``:

        u dt + u² / (2 a) = d   ⇒   u = √((a dt)² + 2 a d) − a dt   (0 when d ≤ 0).

    The ``u dt`` term is this step's displacement; ``u²/(2a)`` bounds the distance covered while
    braking by ``a dt`` per step afterwards (the Euler sum is below the integral). As dt → 0 it
    is the continuous ``√(2 a d)``.

    Computed as ``u = 2 d / (√(dt² + 2 d / a) + dt)`` (the same value): no ``(a dt)²`` to
    overflow for caps up to 1e300, no cancellation of two close terms.
    """
    d = np.maximum(distance, 0.0)
    root = np.sqrt(dt * dt + 2.0 * d / a_max) + dt
    return np.divide(2.0 * d, root, out=np.zeros(np.broadcast(d, root).shape), where=root > 0.0)


def acceleration_caps(
    model: pin.Model, a_max: npt.ArrayLike | Mapping[str, npt.ArrayLike], who: str
) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, caps)`` of the velocity coordinates bounded by ``a_max``: a scalar (every
    coordinate), a vector of nv caps (``inf`` leaves one free) or a mapping ``joint name →
    cap`` (a scalar or one value per DoF of the joint). :class:`InvalidInput` names ``who``."""
    if not isinstance(a_max, Mapping) and np.ndim(np.asarray(a_max, dtype=object)) == 0:
        cap = check_scalar(a_max, f"{who} a_max", 0.0, low_open=True)
        return np.arange(model.nv), np.full(model.nv, cap)
    try:
        parsed = VelocityLimit(model, a_max)  # the same accepted forms as velocity caps
    except InvalidInput as exc:
        if type(exc) is not InvalidInput:  # UnknownName names the joint; keep it as it is
            raise
        message = (
            str(exc)
            .replace("velocity", "acceleration")
            .replace("limits must be a vector", "a_max must be a vector")
        )
        raise InvalidInput(f"{who}: {message}") from None
    if (parsed.v_max <= 0).any():
        raise InvalidInput(f"{who} a_max must be > 0, got {parsed.v_max}")
    return parsed.indices, parsed.v_max


class AccelerationLimit(Limit):
    """Bound the change of velocity between steps, a hard limit (a_max in rad/s², m/s²):

        v_prev − a_max dt ≤ v ≤ v_prev + a_max dt.

    ``v_prev`` is the ``v`` of the configuration's last ``integrate_inplace(v, dt)``. When q was
    set otherwise (a new :class:`Configuration`, ``update(q)``), the robot is taken at rest,
    ``v_prev = 0``: the first step then starts from rest instead of jumping to any speed. This
    is the safe reading: a loop that writes measured positions with ``update(q)`` gets steps of
    at most ``a_max dt`` rather than no bound at all; such a loop gives its measured velocity
    with :meth:`set_previous_velocity`.

    Braking (``braking=True``): on joints with a finite position range, the velocity toward a
    limit ``d`` away is at most :func:`braking_speed` ``(d)``, so the joint can always stop in
    time at ``a_max``; without it, a joint that arrives fast cannot decelerate enough and
    crosses its limit whatever the position limit asks (this limit is hard, the position box
    soft). The braking bound is recursively feasible: if the last step met it, braking by
    ``a_max dt`` meets it now. Where it cannot be met (q set from outside, moving too fast or
    already past a limit), the step brakes at full ``a_max``.

    Args:
        model: Pinocchio model.
        a_max: acceleration caps: a scalar for every velocity coordinate, a vector of nv caps
            (``inf``: unbounded) or a mapping ``joint name → cap`` (others unbounded).
        braking: add the braking bound near position limits.
    """

    hard = True
    well_formed = True  # indices from the model, finite bounds
    name = "acceleration"

    def __init__(
        self,
        model: pin.Model,
        a_max: npt.ArrayLike | Mapping[str, npt.ArrayLike],
        *,
        braking: bool = True,
    ) -> None:
        self.model = check_model(model, "AccelerationLimit")
        if not isinstance(braking, bool | np.bool_):
            raise InvalidInput(f"AccelerationLimit braking must be True or False, got {braking!r}")
        self.braking = bool(braking)
        self.indices, self.a_max = acceleration_caps(model, a_max, "AccelerationLimit")
        ranges = PositionRanges(model)
        where = {int(iv): k for k, iv in enumerate(ranges.v_indices)}
        rows = [j for j, iv in enumerate(self.indices) if int(iv) in where]
        ks = [where[int(self.indices[j])] for j in rows]
        self._brake_rows = np.array(rows, dtype=int)  # positions in self.indices
        self._brake_q = ranges.q_indices[ks]
        self._brake_a = self.a_max[self._brake_rows]
        # distances to [upper; lower] limits: D − S q (2 × k); contiguous runs as slices
        self._limits_stacked = np.vstack([ranges.upper[ks], -ranges.lower[ks]])
        self._sign = np.array([[1.0], [-1.0]])
        self._rows_at: slice | np.ndarray = as_slice(self._brake_rows)
        self._q_at: slice | np.ndarray = as_slice(self._brake_q)
        self._v_at: slice | np.ndarray = as_slice(self.indices)
        self._previous: np.ndarray | None = None
        self._integrated: np.ndarray | None = None  # (set_last_integration's v)

    def set_last_integration(self, v_prev: npt.ArrayLike, dt: float) -> None:
        """pink's call after each ``integrate_inplace(v, dt)``, accepted so that pink's loops
        port as they are. taskik reads the last step from the configuration itself, so in a
        loop that integrates with ``integrate_inplace`` this changes nothing; when q was set
        otherwise (``update(q)``), ``v_prev`` is the velocity given here (until the next
        ``integrate_inplace``), as in pink.

        Args:
            v_prev: the velocity last integrated (nv, rad/s or m/s).
            dt: its duration (s), > 0 (checked, not used).
        """
        check_positive_scalar(dt, "set_last_integration dt (s)")
        self._integrated = check_finite_array(v_prev, "last integrated velocity", (self.model.nv,))

    def set_previous_velocity(self, v: npt.ArrayLike | None) -> None:
        """Use ``v`` (nv, e.g. the measured joint velocity of a loop that writes measured
        positions with ``update(q)``) as ``v_prev`` from now on; None returns to the last
        applied step."""
        if v is None:
            self._previous = None
            return
        self._previous = check_finite_array(v, "previous velocity", (self.model.nv,))

    def previous_velocity(self, configuration: Configuration) -> np.ndarray:
        """``v_prev[indices]``: the velocity given to :meth:`set_previous_velocity`, else the
        last applied step's, else the one given to :meth:`set_last_integration`, else zeros
        (at rest)."""
        if self._previous is not None:
            return self._previous[self._v_at]
        last = configuration._last_step
        if last is None:
            if self._integrated is not None:
                return self._integrated[self._v_at]
            return np.zeros(len(self.indices))
        return np.asarray(last[1])[self._v_at]

    def compute_box(self, configuration: Configuration, dt: float) -> Box:
        """``(indices, lower, upper)``: ``v_prev ± a_max dt``, tightened by the braking bound."""
        v_prev = self.previous_velocity(configuration)
        step = self.a_max * dt
        lower, upper = v_prev - step, v_prev + step
        if self.braking and len(self._brake_rows):
            rows = self._rows_at
            q = configuration.q[self._q_at]
            # [toward upper; toward lower] braking speeds, both at once
            speed = braking_speed(self._limits_stacked - self._sign * q, self._brake_a, dt)
            lo, hi = lower[rows], upper[rows]
            # clipped into [lo, hi]: where a bound cannot be met, brake at full a_max
            hi = np.minimum(hi, np.maximum(speed[0], lo))
            lo = np.maximum(lo, np.minimum(-speed[1], hi))
            lower[rows], upper[rows] = lo, hi
        return self.indices, lower, upper

    def __repr__(self) -> str:
        return f"AccelerationLimit(joints={len(self.indices)}, braking={self.braking})"
