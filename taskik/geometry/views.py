"""Views, read in place, of Pinocchio's joint placements and coal's distance results.

Reading a placement or a distance result through its Python accessor copies it into a new
array, one Boost.Python call per object: 34 joint placements cost about 170k instructions
per evaluation, and the closest points and normals of 30 pairs about 340k. Both live in
``std::vector`` s whose elements Pinocchio's accessors already return as views
(``SE3.rotation``, ``SE3.translation``, ``DistanceResult.normal``): one strided view over
the whole vector reads every element at once, with numpy's indexing.

A view is made only when the vector is laid out as expected, checked from the accessors'
own views (the elements at one stride, the fields at their offsets), and its values are
compared with the accessors' before it is used (:func:`joint_view` at once, the results'
by :class:`~taskik.geometry.CollisionScene` at its first GJK); otherwise the accessors are
used. A view reads memory owned by the ``pinocchio.Data`` or ``GeometryData`` it was made
from: its owner keeps it, checks at every use that the vector has not moved, and drops it
when copied (a copy's views would be arrays of their own).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__: list[str] = []

_as_strided = np.lib.stride_tricks.as_strided


def _address(array: np.ndarray) -> int:
    """Where an array's first element lies in memory."""
    return int(array.__array_interface__["data"][0])


def _strided(
    elements: object, field: str, strides: tuple[int, ...], least: int
) -> tuple[np.ndarray, int, int, int] | None:
    """``(first, address, stride, n)``: the first element's ``field`` (an accessor's view),
    where it lies, the elements' stride in bytes and their number, when the field is a
    float64 array of these ``strides`` and the elements lie at one stride of at least
    ``least`` bytes (from the first and last elements' addresses); else None."""
    n = len(elements)  # type: ignore[arg-type]
    if n < 1:
        return None
    first = getattr(elements[0], field)  # type: ignore[index]
    start = _address(first)
    last = _address(getattr(elements[n - 1], field))  # type: ignore[index]
    stride = (last - start) // (n - 1) if n > 1 else least
    if first.dtype != np.float64 or first.strides != strides or stride < least or stride % 8:
        return None
    return first, start, stride, n


def joint_address(data: pin.Data) -> int:
    """The address of the first joint placement's rotation in ``data.oMi`` (what a joint
    view was made at: compared at each use)."""
    return _address(data.oMi[0].rotation)


def joint_view(data: pin.Data) -> np.ndarray | None:
    """``data.oMi`` as one array ``njoints × 12`` read in place: per joint its rotation,
    column-major (entries 0-8), and its translation (9-11); None when the placements are
    not laid out so (then read them through ``SE3.homogeneous``)."""
    placements = data.oMi
    found = _strided(placements, "rotation", (8, 24), 96)
    if found is None:
        return None
    first, start, stride, n = found
    if any(
        _address(placements[k].rotation) != start + k * stride
        or _address(placements[k].translation) != start + k * stride + 72
        for k in {0, min(1, n - 1), n - 1}
    ):
        return None
    view = _as_strided(first, shape=(n, 12), strides=(stride, 8), writeable=False)
    for k in {0, min(1, n - 1), n - 1}:
        M = placements[k]
        if not (
            np.array_equal(view[k, :9], M.rotation.T.reshape(9))
            and np.array_equal(view[k, 9:], M.translation)
        ):
            return None
    return view


def rotations(view: np.ndarray) -> np.ndarray:
    """The rotations (njoints × 3 × 3) of a :func:`joint_view`, a view of it."""
    return view[:, :9].reshape(-1, 3, 3).transpose(0, 2, 1)


def result_address(geometry_data: pin.GeometryData) -> int:
    """The address of the first distance result's normal (compared at each use)."""
    return _address(geometry_data.distanceResults[0].normal)


def result_views(geometry_data: pin.GeometryData) -> tuple[np.ndarray, np.ndarray] | None:
    """coal's distance results of every pair, read in place: ``(fields, distance)``,
    ``fields`` (3 × pairs × 3) the normal ``n`` and the closest points ``p_a``, ``p_b`` (24
    and 48 bytes past the normal), ``distance`` (pairs,) the signed distance (8 bytes
    before it); None when the results do not lie at one stride. Whether the fields are
    where coal's ``DistanceResult`` puts them is checked against the accessors by the
    caller, once results are computed."""
    results = geometry_data.distanceResults
    found = _strided(results, "normal", (8,), 80)
    if found is None:
        return None
    first, start, stride, n = found
    if any(_address(results[k].normal) != start + k * stride for k in {0, min(1, n - 1)}):
        return None
    fields = _as_strided(first, shape=(3, n, 3), strides=(24, stride, 8), writeable=False)
    distance = _as_strided(first, shape=(n, 2), strides=(stride, -8), writeable=False)[:, 1]
    return fields, distance
