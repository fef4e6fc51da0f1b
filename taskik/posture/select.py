"""Which solution :func:`taskik.solve_posture` returns (``select``): the first a search
converges to, or the one a motion within the velocity limits reaches soonest from the
start."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pinocchio as pin

from .joint_limits import JointLimits

#: Values of ``select`` of :func:`taskik.solve_posture`.
SELECTS = ("first", "nearest")


def time_from(
    model: pin.Model, limits: JointLimits, q_start: np.ndarray
) -> Callable[[np.ndarray], float]:
    """The distance of ``select="nearest"``: ``q ↦ max_i |Δq_i| / v_max,i`` (s) with
    ``Δq = q ⊖ q_start`` (``pinocchio.difference``) and ``v_max = model.velocityLimit``: the
    least time any motion with ``|q̇_i| ≤ v_max,i`` takes from ``q_start`` to ``q``. Joints
    without a finite positive velocity limit are not counted; when no joint has one, the
    distance is ``max_i |Δq_i|`` (rad, m). It first moves the revolute angles of ``q`` (in
    place) to their representative nearest the start (:meth:`JointLimits.nearest_to`)."""
    vmax = np.asarray(model.velocityLimit, dtype=float)
    limited = np.isfinite(vmax) & (vmax > 0.0)
    weight = np.where(limited, 1.0 / np.where(limited, vmax, 1.0), 0.0)
    if not limited.any():
        weight = np.ones(model.nv)
    ref = q_start.copy()

    def distance(q: np.ndarray) -> float:
        limits.nearest_to(q, ref)
        d = float(np.max(np.abs(pin.difference(model, ref, q)) * weight))
        return d if math.isfinite(d) else math.inf

    return distance
