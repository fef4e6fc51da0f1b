"""Base class of limits.

A limit turns the current configuration into bounds on the step velocity ``v``:
either a box ``lb ≤ v ≤ ub`` (merged with the other boxes: max of lowers, min of uppers)
or inequality rows ``G v ≤ h`` for what is not a box.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from ..configuration import (
    Configuration,
    check_configuration,
    finite_limit_mask,
    velocity_index_name,
)
from ..exceptions import InvalidInput, check_finite_array, check_positive_scalar

if TYPE_CHECKING:
    import pinocchio as pin

__all__ = [
    "Box",
    "Inequalities",
    "Limit",
    "StackedBox",
    "finite_limit_mask",
    "velocity_index_name",
]

#: ``(indices, lower, upper)``: the bounds ``lower ≤ v[indices] ≤ upper``.
Box: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray]

#: ``(indices, B)`` with ``B = [lower; upper]`` (2 × k): a :data:`Box` stacked.
StackedBox: TypeAlias = tuple[np.ndarray, np.ndarray]

#: ``(G, h)``: the inequality rows ``G v ≤ h``.
Inequalities: TypeAlias = tuple[np.ndarray, np.ndarray]


#: The largest joint speed (rad/s or m/s) a step given to ``check_step`` may hold: beyond it
#: the checks' products leave the float range (no robot's step comes near).
MAX_STEP_SPEED = 1e100


def checked_step_arguments(
    who: str, configuration: object, v: object, dt: object, nv: int | None = None
) -> tuple[Configuration, np.ndarray, float]:
    """The arguments of a limit's ``check_step(configuration, v, dt)``, checked whatever the
    limit's state: a :class:`Configuration` (of a model with ``nv`` velocities, if given), a
    float vector ``v`` of that size with entries within ``±MAX_STEP_SPEED``, ``dt > 0``
    finite (s); :class:`InvalidInput` naming ``who`` otherwise. A float64 vector and a float
    ``dt`` pass in a few comparisons (the step calls it once per solve)."""
    conf = check_configuration(configuration, who)
    n = conf.model.nv
    if nv is not None and n != nv:
        raise InvalidInput(f"{who}: the configuration's model has nv = {n}, the limit's {nv}")
    if type(dt) is not float or not 0.0 < dt < math.inf:
        dt = check_positive_scalar(dt, "dt")
    if type(v) is np.ndarray and v.dtype == np.float64 and v.shape == (n,) and n:
        values = v.tolist()  # (min and max may skip a NaN: the sum does not)
        if (
            min(values) >= -MAX_STEP_SPEED
            and max(values) <= MAX_STEP_SPEED
            and math.isfinite(sum(values))
        ):
            return conf, v, dt
    v = check_finite_array(v, "v", (n,))  # type: ignore[arg-type]
    if n and np.abs(v).max() > MAX_STEP_SPEED:
        raise InvalidInput(
            f"{who}: v holds a speed beyond {MAX_STEP_SPEED:g} (rad/s or m/s), not a step: "
            f"max |v| = {np.abs(v).max():.3g}"
        )
    return conf, v, dt


def as_slice(indices: np.ndarray | None) -> slice | np.ndarray:
    """``indices`` (integers) as a slice when they are a contiguous increasing run (cheaper
    to index with), else as an integer array."""
    indices = np.asarray(indices, dtype=int)
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


class Limit:
    """A bound on the step velocity.

    ``hard`` limits (velocity limits) are physical: they always hold. Soft box limits
    (the position limits, whose bounds ask for a minimum recovery speed when q starts
    outside its range) are clipped into the hard box where the two conflict, so the merged
    box is never empty.
    """

    hard: bool = True

    #: True when ``compute_box`` depends neither on q nor on dt (computed once per plan).
    static: bool = False

    #: True when the limit's boxes and rows are well formed by construction (indices in
    #: range, matching lengths, no NaN): the assembler then skips checking them at every step.
    #: Leave it False in a limit of your own, whose output is checked.
    well_formed: bool = False

    #: Short name used in reports and error messages.
    name: str = "limit"

    def plan_key(self) -> object:
        """What the solvers' plan cache keys this limit on (``taskik.plan_cache``): the
        values its plan depends on. The built-in velocity, position and frozen-joint limits
        return them (a list of such limits built anew at every step finds the plan of the
        last one, which then reads the new objects); a limit of your own returns its
        identity, since the cache cannot see what its boxes and rows depend on."""
        return id(self)

    def compute_box(self, configuration: Configuration, dt: float) -> Box | None:
        """``(indices, lower, upper)``: bounds on ``v[indices]``, or None if no box."""
        return None

    def compute_stacked_box(
        self, configuration: Configuration, dt: float, out: np.ndarray | None = None
    ) -> StackedBox | None:
        """``(indices, B)`` with ``B = [lower; upper]`` stacked (2 × k); None if no box."""
        box = self.compute_box(configuration, dt)
        if box is None:
            return None
        idx, lo, hi = box
        if out is None:
            return idx, np.vstack([lo, hi])
        out[0], out[1] = lo, hi
        return idx, out

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities | None:
        """``(G, h)`` with ``G v ≤ h``, or None."""
        return None

    def row_names(self) -> list[str]:
        """What each row last returned by :meth:`compute_inequalities` stands for (used to
        name the rows that make a step infeasible); empty when the rows have no names."""
        return []

    def describe_index(self, model: pin.Model, i: int) -> str:
        """Human-readable name of velocity index ``i`` (the joint that owns it)."""
        return velocity_index_name(model, i)
