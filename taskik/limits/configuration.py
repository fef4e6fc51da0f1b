"""Joint position limits, Kanoun style."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, PositionRanges, check_model, velocity_index_name
from ..exceptions import InvalidInput, check_finite_array, check_scalar
from .limit import Box, Limit, StackedBox


class ConfigurationLimit(Limit):
    """Keep bounded joints inside ``[q_min, q_max]``:

        K (q_min − q) / dt ≤ v ≤ K (q_max − q) / dt,   K = gain ∈ (0, 1].

    One step then covers at most the fraction ``K`` of the distance to either limit, so the
    limits are approached geometrically and never crossed (Kanoun's position limits as a
    velocity box). Applies to every coordinate with one configuration entry and one velocity
    whose limits are finite: revolute and prismatic joints, and the hinges and slides inside
    a composite joint (an MJCF body with several joints; see
    ``taskik.configuration.PositionRanges``).
    Continuous joints, spherical joints (inside a composite joint too) and the floating base
    are skipped.

    Starting outside: if ``q < q_min`` the lower bound becomes positive, so the step must
    move the joint back toward its range by at least ``K`` of the violation per step (and
    ``q > q_max`` symmetrically). This bound is *soft*: where it asks for more speed than a
    hard (velocity) limit allows, it is clipped to that limit, so the step returns as fast
    as the velocity limit permits instead of making the QP infeasible.

    Args:
        model: Pinocchio model (limits from ``model.lowerPositionLimit`` /
            ``upperPositionLimit``).
        gain: ``K ∈ (0, 1]`` (mink's default is 0.95, taskik's 0.5).
        min_distance_from_limits: ``d`` (rad for hinges, m for slides), mink's margin:
            ``q_min = lower + d``, ``q_max = upper − d``. Positive values keep the joints
            ``d`` inside their ranges, negative ones let them go ``|d|`` beyond. mink's
            positional order ``ConfigurationLimit(model, gain, min_distance_from_limits)`` is
            the same. :meth:`check` (``safety_break``) still uses the model's ranges.

    Raises:
        InvalidInput: ``gain`` outside ``(0, 1]``, a ``d`` that is not a finite number, or a
            ``d`` larger than half a joint's range (the range would be empty; the message
            names the joint).
    """

    hard = False
    well_formed = True  # indices from the model, bounds from finite limits and a finite q
    name = "configuration"

    def __init__(
        self, model: pin.Model, gain: float = 0.5, min_distance_from_limits: float = 0.0
    ) -> None:
        self.gain = check_scalar(gain, "ConfigurationLimit gain", 0.0, 1.0, low_open=True)
        self.model = check_model(model, "ConfigurationLimit")
        margin = check_scalar(min_distance_from_limits, "min_distance_from_limits")
        self.min_distance_from_limits = margin
        self.ranges = PositionRanges(model)
        self.q_indices = self.ranges.q_indices
        self.indices = self.ranges.v_indices
        # q_min and q_max are the rows of one array: the box reads them at every step, so an
        # edit in place or a new value assigned is obeyed at the next step
        self._stacked = np.vstack([self.ranges.lower + margin, self.ranges.upper - margin])
        empty = np.flatnonzero(self.q_min > self.q_max)
        if empty.size:
            k = empty[0]
            name = velocity_index_name(model, self.indices[k])
            raise InvalidInput(
                f"min_distance_from_limits={margin:g} leaves joint {name} no range: its limits "
                f"[{self.ranges.lower[k]:.6g}, {self.ranges.upper[k]:.6g}] are less than "
                f"2 × {margin:g} apart"
            )
        self._all_q = np.array_equal(self.q_indices, np.arange(model.nq))
        self._plan_key = (ConfigurationLimit, model.nv, self.indices.tobytes())

    @property
    def q_min(self) -> np.ndarray:
        """Lower bounds of ``q[q_indices]`` (rad or m): the model's, raised by the margin.
        Assign new bounds or edit them in place: the next step obeys them."""
        return self._stacked[0]

    @q_min.setter
    def q_min(self, value: npt.ArrayLike) -> None:
        self._set_bound(0, value, "q_min")

    @property
    def q_max(self) -> np.ndarray:
        """Upper bounds of ``q[q_indices]`` (rad or m): the model's, lowered by the margin.
        Assign new bounds or edit them in place: the next step obeys them."""
        return self._stacked[1]

    @q_max.setter
    def q_max(self, value: npt.ArrayLike) -> None:
        self._set_bound(1, value, "q_max")

    def _set_bound(self, row: int, value: npt.ArrayLike, name: str) -> None:
        """Write ``value`` (a scalar or one number per bounded joint, finite) into the
        bound ``row``; InvalidInput if it is not that or leaves a joint no range."""
        k = len(self.indices)
        arr = check_finite_array(value, name)
        if arr.shape not in ((), (k,)):
            raise InvalidInput(f"{name} must be a scalar or {k} numbers, got shape {arr.shape}")
        new = self._stacked.copy()
        new[row] = arr
        empty = np.flatnonzero(new[0] > new[1])
        if empty.size:
            joint = velocity_index_name(self.model, self.indices[empty[0]])
            raise InvalidInput(
                f"{name} leaves joint {joint} no range: q_min {new[0, empty[0]]:.6g} > "
                f"q_max {new[1, empty[0]]:.6g}"
            )
        self._stacked[row] = new[row]

    def plan_key(self) -> object:
        """``(ConfigurationLimit, nv, indices)``: its plan reads its bounds and gain at every
        step (from the object of the current list), and depends only on which velocities
        it bounds (see :meth:`Limit.plan_key`)."""
        return self._plan_key if type(self) is ConfigurationLimit else id(self)

    def compute_box(self, configuration: Configuration, dt: float) -> Box:
        idx, bounds = self.compute_stacked_box(configuration, dt)
        return idx, bounds[0], bounds[1]

    def compute_stacked_box(
        self, configuration: Configuration, dt: float, out: np.ndarray | None = None
    ) -> StackedBox:
        """``(indices, B)`` with ``B = [lower; upper]`` (2 × k), written into ``out`` if given."""
        q = configuration.q if self._all_q else configuration.q[self.q_indices]
        out = np.subtract(self._stacked, q, out=out)
        out *= self.gain / dt
        return self.indices, out

    def check(self, q: np.ndarray, tol: float = 1e-6) -> None:
        """Raise :class:`NotWithinConfigurationLimits` naming the first joint out of range
        (by more than ``tol``, rad or m), :class:`InvalidInput` when ``q`` is not a finite
        real vector of the model's ``nq`` coordinates."""
        q = check_finite_array(q, "q", (self.model.nq,))
        self.ranges.check(q, tol)

    def __repr__(self) -> str:
        margin = self.min_distance_from_limits
        extra = f", min_distance_from_limits={margin}" if margin else ""
        return f"ConfigurationLimit(gain={self.gain}{extra}, joints={len(self.indices)})"
