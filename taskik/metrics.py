"""Manipulator performance metrics from the Jacobian (Haviland and Corke, "Manipulator
Differential Kinematics", eqs. 52–53; Williams, "A Tutorial on Differential Inverse
Kinematics", §II-D).

- Yoshikawa manipulability ``m = √det(Ĵ Ĵᵀ)`` (the volume of the velocity ellipsoid, up to a
  constant; 0 at a singularity),
- condition number ``κ = σ_max / σ_min ∈ [1, ∞]`` (velocity isotropy),
- the singular values.

Use the translational rows or the rotational rows separately (``part="translation"`` or
``"rotation"``): a metric over all six rows mixes m and rad and depends on the unit of
length. ``part`` may also be a list of row indices (e.g. ``[0, 1]`` for the x–y rows of a
planar arm, whose z row is identically zero).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .configuration import Configuration, check_configuration
from .exceptions import InvalidInput, check_finite_array

_PARTS = {"translation": slice(0, 3), "rotation": slice(3, 6), "all": slice(None)}


def _rows(J: npt.ArrayLike, part: str | Sequence[int] | None) -> np.ndarray:
    J = check_finite_array(J, "J")
    if J.ndim != 2:
        raise InvalidInput(f"J must be a matrix, got shape {J.shape}")
    if part is None:
        return J
    if isinstance(part, str):
        if part not in _PARTS:
            raise InvalidInput(f"part must be one of {tuple(_PARTS)} or row indices, got {part!r}")
        if part != "all" and J.shape[0] != 6:
            raise InvalidInput(f"part={part!r} needs a 6-row Jacobian, got {J.shape[0]} rows")
        return J[_PARTS[part]]
    idx = np.asarray(part)
    if idx.dtype.kind not in "iu":
        raise InvalidInput(f"part must be one of {tuple(_PARTS)} or row indices, got {part!r}")
    if idx.ndim != 1 or idx.size == 0 or idx.min() < 0 or idx.max() >= J.shape[0]:
        raise InvalidInput(f"row indices {part!r} out of range for {J.shape[0]} rows")
    return J[idx]


def singular_values(J: npt.ArrayLike, part: str | Sequence[int] | None = None) -> np.ndarray:
    """Singular values of the chosen rows of J, largest first (min(m, n) of them)."""
    return np.linalg.svd(_rows(J, part), compute_uv=False)


def manipulability(J: npt.ArrayLike, part: str | Sequence[int] | None = None) -> float:
    """Yoshikawa's ``√det(Ĵ Ĵᵀ)`` = product of the singular values when Ĵ has no more rows
    than columns, else 0 (a 3-row Ĵ with 2 joints cannot move in every direction)."""
    Jh = _rows(J, part)
    m, n = Jh.shape
    if m > n:
        return 0.0
    with np.errstate(over="ignore"):  # (an overflowing product is refused below)
        value = float(np.prod(np.linalg.svd(Jh, compute_uv=False)))
    if not math.isfinite(value):
        raise InvalidInput("the manipulability of J overflows: J is out of range")
    return value


def condition_number(J: npt.ArrayLike, part: str | Sequence[int] | None = None) -> float:
    """``σ_max / σ_min`` over the min(m, n) singular values (inf when σ_min = 0)."""
    s = singular_values(J, part)
    if s.size == 0 or s[0] == 0.0:
        return math.inf
    return float(s[0] / s[-1]) if s[-1] > 0.0 else math.inf


def frame_jacobian(configuration: Configuration, frame: str | int) -> np.ndarray:
    """The frame's Jacobian with world-aligned axes (6 × nv, ``[v; ω]`` of the frame origin).

    The metrics above do not depend on the orientation of the row axes, so LOCAL and
    world-aligned Jacobians give the same values; this one is the base-frame Jacobian the
    tutorials use.
    """
    configuration = check_configuration(configuration, "frame_jacobian")
    J = configuration.get_frame_jacobian(frame)
    R = configuration.get_transform_frame_to_world(frame).rotation
    return np.vstack([R @ J[:3], R @ J[3:]])


def frame_manipulability(
    configuration: Configuration, frame: str | int, part: str | Sequence[int] = "translation"
) -> float:
    """:func:`manipulability` of a frame's Jacobian (translational rows by default)."""
    return manipulability(frame_jacobian(configuration, frame), part)


def frame_condition_number(
    configuration: Configuration, frame: str | int, part: str | Sequence[int] = "translation"
) -> float:
    """:func:`condition_number` of a frame's Jacobian (translational rows by default)."""
    return condition_number(frame_jacobian(configuration, frame), part)
