"""The convex hull of points in the plane, and the same hull kept up to date while the points
drift a little (the support polygon of held feet, recomputed at every step)."""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidInput, check_finite_array, check_scalar
from .contact import MAX_COORDINATE

__all__ = ["HULL_MARGIN", "convex_hull_2d", "drifted_hull", "hull_by_order", "hull_vertex_order"]


def convex_hull_2d(points: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Counter-clockwise convex hull of 2D points (Andrew's monotone chain, popping on the
    exact sign), shape (k, 2), from the least ``(x, y)``; then every vertex whose turn
    ``(a − o) × (p − a)`` with its neighbours is at most ``tol`` (m²) is dropped, the nearest
    to its chord first. :class:`InvalidInput` unless ``points`` is (k, 2), finite and real,
    and ``tol`` finite and >= 0."""
    points = check_finite_array(points, "convex_hull_2d points")
    if points.ndim != 2 or points.shape[1] != 2:
        raise InvalidInput(f"convex_hull_2d points must have shape (k, 2), got {points.shape}")
    if np.abs(points).max(initial=0.0) > MAX_COORDINATE:
        raise InvalidInput(f"convex_hull_2d points must be within {MAX_COORDINATE:g} m")
    tol = check_scalar(tol, "convex_hull_2d tol", 0.0)
    # rounded to 1e-12 m, without repeats, sorted; on Python floats (no per-scalar NumPy cost)
    P = sorted(
        set(map(tuple, np.round(np.asarray(points, dtype=float), 12).reshape(-1, 2).tolist()))
    )
    if len(P) <= 2:
        return np.array(P, dtype=float).reshape(-1, 2)

    def turn(o: tuple[float, float], a: tuple[float, float], p: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (p[1] - o[1]) - (a[1] - o[1]) * (p[0] - o[0])

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and turn(out[-2], out[-1], p) <= 0.0:
                out.pop()
            out.append(p)
        return out

    hull = half(P)[:-1] + half(P[::-1])[:-1]
    while len(hull) > 2:  # then the nearly collinear vertices, the nearest to its chord first
        n = len(hull)
        turns = [turn(hull[i - 1], hull[i], hull[(i + 1) - n]) for i in range(n)]
        if not (flat := [i for i in range(n) if turns[i] <= tol]):
            break
        del hull[min(flat, key=lambda i: turns[i] / math.dist(hull[i - 1], hull[(i + 1) - n]))]
    start = hull.index(min(hull))
    return np.array(hull[start:] + hull[:start], dtype=float)


#: The least turn ``e_i × e_{i+1}`` and ``e_i × (p − V_i)`` of the other points (m²) that
#: :func:`hull_by_order` accepts: ten times :func:`convex_hull_2d`'s tolerance for a turn.
HULL_MARGIN = 1e-8


def hull_vertex_order(points: np.ndarray, hull: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(order, others)``: the indices into ``points`` (k × 2) of the vertices of ``hull``
    (what :func:`convex_hull_2d` returned for them: the points rounded to 1e-12 m), in the
    hull's order, and the indices of the other points; None when a vertex matches no point or
    several (repeated points), or the hull has fewer than 3 vertices: :func:`hull_by_order`
    then has nothing to update."""
    if len(hull) < 3:
        return None
    rounded = np.round(np.asarray(points, dtype=float), 12)
    match = (rounded[None, :, :] == hull[:, None, :]).all(axis=2)  # (vertex, point)
    if not (match.sum(axis=1) == 1).all():
        return None
    return match.argmax(axis=1), np.flatnonzero(~match.any(axis=0))


def hull_by_order(
    points: np.ndarray, order: np.ndarray, others: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """The hull of ``points`` (k × 2, m) as :func:`convex_hull_2d` gives it, from the vertex
    order of a hull of the same points a little earlier (``order, others`` of
    :func:`hull_vertex_order`), or None
    when that order may no longer be the hull's (then call :func:`convex_hull_2d`).

    With ``V = points[order]`` (rounded to 1e-12 m as the chain rounds) and the edges
    ``e_i = V_{i+1} − V_i``, the order is kept when every turn ``e_i × e_{i+1}`` and every
    ``e_i × (p − V_i)`` of the other points ``p`` (``others``: the indices not in ``order``)
    exceed ``HULL_MARGIN``: the polygon is strictly convex and holds every other point
    strictly inside. Those are the cross products on which the chain decides: with ``o, a``
    consecutive vertices on its stack, a later point ``p`` pops ``a`` when
    ``(a − o) × (p − o) ≤ 0``, and that is ``e_oa × (p − o)``: a turn for ``p`` the next
    vertex, at least the least turn for any other vertex (convexity), and the checked value
    for the other points: the chain finds these vertices and drops none (no turn is below
    its 1e-9); they are rotated to start at the least ``(x, y)``, as the chain's result.
    Points that are not finite give None (the caller checks their range).

    Returns:
        ``(V, order)``: the vertices (counter-clockwise, as ``convex_hull_2d``'s) and their
        indices, rotated as ``V``.
    """
    k = len(order)
    V = np.round(points[order], 12)
    following = _FOLLOWING.get(k)
    if following is None:
        following = _FOLLOWING[k] = np.roll(np.arange(k), -1)
    E = V[following] - V
    ex, ey = E[:, 0], E[:, 1]
    turns = ex * ey[following] - ey * ex[following]
    # e_i × (p − V_i) = [−e_y, e_x]·p − e_i × V_i, for every edge i and other point p
    inside = np.dot(E[:, ::-1] * _FLIP, points[others].T)
    inside -= (ex * V[:, 1] - ey * V[:, 0])[:, None]
    if not (_min(turns) > HULL_MARGIN and (not inside.size or _min(inside, None) > HULL_MARGIN)):
        return None
    rows = V.tolist()
    start = min(range(k), key=rows.__getitem__)  # (the least (x, y), as the chain sorts)
    if start:
        V, order = np.roll(V, -start, axis=0), np.roll(order, -start)
    return V, order


def drifted_hull(
    points: np.ndarray, kept: tuple[np.ndarray, np.ndarray] | None
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """The hull of ``points`` (k × 2, m) as :func:`convex_hull_2d` gives it, and what to keep
    for the next call: from ``kept`` (the ``order, others`` of the hull of the same points
    a little earlier) by :func:`hull_by_order` when it holds, else by the chain."""
    found = None if kept is None else hull_by_order(points, *kept)
    if kept is not None and found is not None:
        return found[0], (found[1], kept[1])
    hull = convex_hull_2d(points)
    return hull, hull_vertex_order(points, hull)


# the index of each vertex's successor, per vertex count; the factors of [−e_y, e_x]
_FOLLOWING: dict[int, np.ndarray] = {}
_FLIP = np.array([-1.0, 1.0])
_min = np.minimum.reduce
