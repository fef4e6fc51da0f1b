"""Joint position limits, Kanoun style."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, PositionRanges, check_model
from ..exceptions import check_scalar
from .limit import Box, Limit, StackedBox


class ConfigurationLimit(Limit):
    """Keep bounded joints inside ``[q_min, q_max]``:

        K (q_min − q) / dt ≤ v ≤ K (q_max − q) / dt,   K = gain ∈ (0, 1].

    One step then covers at most the fraction ``K`` of the distance to either limit, so the
    limits are approached geometrically and never crossed (Kanoun's position limits as a
    velocity box). Applies to joints with one configuration coordinate and one velocity
    (revolute, prismatic) whose limits are finite; continuous joints, spherical joints and
    the floating base are skipped.

    Starting outside: if ``q < q_min`` the lower bound becomes positive, so the step must
    move the joint back toward its range by at least ``K`` of the violation per step (and
    ``q > q_max`` symmetrically). This bound is *soft*: where it asks for more speed than a
    hard (velocity) limit allows, it is clipped to that limit, so the step returns as fast
    as the velocity limit permits instead of making the QP infeasible.

    Args:
        model: Pinocchio model (limits from ``model.lowerPositionLimit`` /
            ``upperPositionLimit``).
        gain: ``K ∈ (0, 1]``.
    """

    hard = False
    well_formed = True  # indices from the model, bounds from finite limits and a finite q
    name = "configuration"

    def __init__(self, model: pin.Model, gain: float = 0.5) -> None:
        self.gain = check_scalar(gain, "ConfigurationLimit gain", 0.0, 1.0, low_open=True)
        self.model = check_model(model, "ConfigurationLimit")
        self.ranges = PositionRanges(model)
        self.q_indices = self.ranges.q_indices
        self.indices = self.ranges.v_indices
        self.q_min = self.ranges.lower
        self.q_max = self.ranges.upper
        self._stacked = np.vstack([self.q_min, self.q_max])
        self._all_q = np.array_equal(self.q_indices, np.arange(model.nq))

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
        """Raise :class:`NotWithinConfigurationLimits` naming the first joint out of range."""
        self.ranges.check(q, tol)

    def __repr__(self) -> str:
        return f"ConfigurationLimit(gain={self.gain}, joints={len(self.indices)})"
