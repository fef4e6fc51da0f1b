"""Bounds of shapes for the broadphase of :class:`taskik.geometry.CollisionScene`: bounding
spheres and capsules, distances between segments, and how far any point of a shape moved
between two placements."""

from __future__ import annotations

import coal
import numpy as np
import pinocchio as pin

__all__: list[str] = []


_ONES3 = np.ones(3)
_ONES9 = np.ones(9)


def _dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of two k × 3 arrays (a third of np.einsum's cost)."""
    return np.multiply(a, b) @ _ONES3


def _traces(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``tr(a_k b_kᵀ)`` of two k × 3 × 3 stacks."""
    return np.multiply(a, b).reshape(-1, 9) @ _ONES9


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products over the last axis of two ... × 3 arrays of one shape (np.cross costs
    ~10 µs of overhead)."""
    out = np.empty_like(a)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    np.subtract(a1 * b2, a2 * b1, out=out[..., 0])
    np.subtract(a2 * b0, a0 * b2, out=out[..., 1])
    np.subtract(a0 * b1, a1 * b0, out=out[..., 2])
    return out


def _bounding_capsule(geometry: object, centre: np.ndarray, radius: float) -> np.ndarray:
    """A capsule around a shape, in its own frame: ``[e0, e1, (r, 0, 0)]`` (3 × 3), the
    segment's ends and the radius. Tighter than the bounding sphere around long links: the
    broadphase tests both. Spheres, cones and ellipsoids keep their sphere (``e0 = e1``)."""
    z = np.array([0.0, 0.0, 1.0])
    if isinstance(geometry, coal.Capsule | coal.Cylinder):
        h = float(geometry.halfLength)
        return np.array([-h * z, h * z, [float(geometry.radius), 0.0, 0.0]])
    if isinstance(geometry, coal.Box):
        half = np.asarray(geometry.halfSide, dtype=float)
        k = int(np.argmax(half))
        axis = np.eye(3)[k]
        across = float(np.sqrt(np.sum(np.delete(half, k) ** 2)))
        return np.array([-half[k] * axis, half[k] * axis, [across, 0.0, 0.0]])
    if isinstance(geometry, coal.ConvexBase):
        points = np.asarray(geometry.points(), dtype=float).reshape(-1, 3)
        if len(points) >= 2:
            mean = points.mean(axis=0)
            axis = np.linalg.svd(points - mean, full_matrices=False)[2][0]
            t = (points - mean) @ axis
            radial = points - mean - np.outer(t, axis)
            r = float(np.sqrt(np.einsum("ij,ij->i", radial, radial).max()))
            return np.array([mean + t.min() * axis, mean + t.max() * axis, [r, 0.0, 0.0]])
    return np.array([centre, centre, [radius, 0.0, 0.0]])


def _segment_distances(
    p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray
) -> np.ndarray:
    """Distances between the segments ``[p1, q1]`` and ``[p2, q2]`` (k × 3 each), row-wise:
    the closest points' parameters clamped to the segments (segments of zero length are
    points)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = _dots(d1, d1)
    e = _dots(d2, d2)
    b = _dots(d1, d2)
    c = _dots(d1, r)
    f = _dots(d2, r)
    tiny = 1e-24
    line1, line2 = a > tiny, e > tiny
    safe_a, safe_e = np.where(line1, a, 1.0), np.where(line2, e, 1.0)
    denom = a * e - b * b
    general = np.where(
        denom > 1e-12 * a * e, (b * f - c * e) / np.where(denom > 0, denom, 1.0), 0.0
    )
    s = np.clip(general, 0.0, 1.0)  # both segments: the closest point on the first's line
    t = (b * s + f) / safe_e
    s_t0 = np.clip(-c / safe_a, 0.0, 1.0)  # the second clamped to its start
    s_t1 = np.clip((b - c) / safe_a, 0.0, 1.0)  # to its end
    s = np.where(t < 0.0, s_t0, np.where(t > 1.0, s_t1, s))
    t = np.clip(t, 0.0, 1.0)
    # a point as the first segment, the second, or both
    s = np.where(line1, np.where(line2, s, s_t0), 0.0)
    t = np.where(line2, np.where(line1, t, np.clip(f / safe_e, 0.0, 1.0)), 0.0)
    gap = p1 + d1 * s[:, None] - p2 - d2 * t[:, None]
    return np.sqrt(_dots(gap, gap))


def _bounding_sphere(obj: pin.GeometryObject) -> tuple[np.ndarray, float]:
    """Centre (in the geometry's own frame) and radius of a sphere around the geometry."""
    geometry = obj.geometry
    geometry.computeLocalAABB()
    return np.array(geometry.aabb_center, dtype=float), float(geometry.aabb_radius)


def shape_moves(
    M: np.ndarray, before: np.ndarray, centres_local: np.ndarray, radii: np.ndarray
) -> np.ndarray:
    """Per shape, a bound on how far any of its points moved from the placements ``before``
    to ``M`` (n × 4 × 4 each, world frame): see :func:`moves_of`."""
    R, R0 = M[:, :3, :3], before[:, :3, :3]
    centre = np.einsum("kij,kj->ki", R, centres_local) + M[:, :3, 3]
    centre0 = np.einsum("kij,kj->ki", R0, centres_local) + before[:, :3, 3]
    return moves_of(centre, centre0, R, R0, radii)


def moves_of(
    centre: np.ndarray, centre0: np.ndarray, R: np.ndarray, R0: np.ndarray, radii: np.ndarray
) -> np.ndarray:
    """Per shape, a bound on how far any of its points moved (m) when its bounding sphere's
    centre went from ``centre0`` to ``centre`` (n × 3) and its rotation from ``R0`` to ``R``
    (n × 3 × 3): the centre's move plus the radius times ``‖R − R0‖ = 2 sin(θ/2) =
    √(3 − tr(R R0ᵀ))``."""
    turn = 3.0 - _traces(R, R0)
    shift = centre - centre0
    move = np.sqrt(_dots(shift, shift))
    move += radii * np.sqrt(np.maximum(turn, 0.0, out=turn))
    return move


def approach_bounds(
    J: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    support: np.ndarray,
    pairs: np.ndarray,
    travel: np.ndarray,
) -> np.ndarray:
    """Per pair ``(a, b)`` of shapes, a bound on how much closer the two shapes can come in
    one step whose velocity ``v`` lies in the box ``|v_j| ≤ travel_j / dt`` (``travel``:
    per velocity column, the most it can move in the step, ``v_max,j · dt``; 0 for a column
    left out). A point ``p`` of a body moves at ``ṗ = Σ_j (J_v,j + J_ω,j × p) v_j`` over
    its supporting columns (world-frame joint Jacobian ``J``, 6 × nv); for ``p`` within the
    bounding sphere (world centre ``c``, radius ``r``), ``|J_v,j + J_ω,j × p| ≤ s_j =
    |J_v,j + J_ω,j × c| + r |J_ω,j|``. A column that moves one shape only moves the pair
    apart or together by at most ``s_j travel_j``; one that moves both (their common
    ancestors) turns the pair as one body, by at most ``|J_ω,j| travel_j (|c_a − c_b| + r_a
    + r_b)``. Summed over the columns: first order in the step (the Jacobians at its start).

    ``centres`` (n × 3, world), ``radii`` (n,), ``support`` (n × nv, bool: the columns that
    move each shape; all False for an obstacle), ``pairs`` (k × 2). Returns (k,), m.
    """
    Jv, Jw = J[:3], J[3:6]
    c = centres
    # J_v,j + J_ω,j × c per shape and column: three n × nv arrays
    x = Jv[0] + Jw[1] * c[:, 2, None] - Jw[2] * c[:, 1, None]
    y = Jv[1] + Jw[2] * c[:, 0, None] - Jw[0] * c[:, 2, None]
    z = Jv[2] + Jw[0] * c[:, 1, None] - Jw[1] * c[:, 0, None]
    turn = np.sqrt(_ONES3 @ (Jw * Jw)) * travel  # |J_ω,j| travel_j
    per_shape = (np.sqrt(x * x + y * y + z * z) * travel + radii[:, None] * turn) * support
    a, b = pairs[:, 0], pairs[:, 1]
    ma, mb = support[a], support[b]
    both = ma & mb
    own = np.where(both, 0.0, per_shape[a] + per_shape[b]).sum(axis=1)
    if not both.any():
        return own
    gap = c[a] - c[b]
    spread = np.sqrt(_dots(gap, gap)) + radii[a] + radii[b]
    return own + (both @ turn) * spread


def common_ancestors(parents: np.ndarray, joints_a: np.ndarray, joints_b: np.ndarray) -> np.ndarray:
    """Per pair, the deepest joint that supports both joints ``joints_a[i]`` and
    ``joints_b[i]`` (0, the universe, when they share none: an obstacle, or two branches of
    the root). ``parents[j]`` is joint ``j``'s parent (``model.parents``)."""

    def path(j: int) -> list[int]:
        out = [j]
        while j:
            j = int(parents[j])
            out.append(j)
        return out

    paths = {j: path(j) for j in {*joints_a.tolist(), *joints_b.tolist()}}
    lca = np.zeros(len(joints_a), dtype=int)
    for k, (ja, jb) in enumerate(zip(joints_a.tolist(), joints_b.tolist(), strict=True)):
        theirs = set(paths[jb])
        lca[k] = next(j for j in paths[ja] if j in theirs)
    return lca


class ApproachBound:
    """The bound of :func:`approach_bounds` for many pairs at once, in time linear in the
    pairs: the columns that move both shapes of a pair are those that support their deepest
    common ancestor joint ``L`` (a kinematic tree), so with ``s_a = Σ_j s_a,j travel_j`` over
    a shape's columns and ``P_a,L`` the same sum over ``L``'s columns,
    ``own = s_a + s_b − P_a,L − P_b,L`` and the common rotation is
    ``(Σ_{j ∈ L} |J_ω,j| travel_j) (|c_a − c_b| + r_a + r_b)``: an (n × nv) × (nv × njoints)
    product per evaluation, then a few gathers per pair instead of a (pairs × nv) array.

    ``joint_support`` (njoints × nv, bool): the columns that move each joint's body;
    ``joint_of`` (n,): each shape's joint (0 for an obstacle); ``pairs`` (k × 2);
    ``parents``: ``model.parents``."""

    def __init__(
        self,
        joint_support: np.ndarray,
        joint_of: np.ndarray,
        pairs: np.ndarray,
        parents: np.ndarray,
    ) -> None:
        self.joint_support = joint_support.astype(float)
        self.shape_support = joint_support[joint_of].astype(float)
        self.a, self.b = pairs[:, 0].copy(), pairs[:, 1].copy()
        self.common = common_ancestors(parents, joint_of[self.a], joint_of[self.b])

    def __call__(
        self,
        J: np.ndarray,
        centres: np.ndarray,
        radii: np.ndarray,
        travel: np.ndarray,
        which: np.ndarray | None = None,
        gap: np.ndarray | None = None,
    ) -> np.ndarray:
        """The bound (m) per pair (of ``which``, indices into the pairs, when given);
        ``gap``: ``|c_a − c_b|`` of those pairs when the caller has it. Arguments as in
        :func:`approach_bounds`."""
        Jv, Jw = J[:3], J[3:6]
        c = centres
        x = Jv[0] + Jw[1] * c[:, 2, None] - Jw[2] * c[:, 1, None]
        y = Jv[1] + Jw[2] * c[:, 0, None] - Jw[0] * c[:, 2, None]
        z = Jv[2] + Jw[0] * c[:, 1, None] - Jw[1] * c[:, 0, None]
        turn = np.sqrt(_ONES3 @ (Jw * Jw)) * travel
        per_shape = np.sqrt(x * x + y * y + z * z) * travel + radii[:, None] * turn
        per_shape *= self.shape_support
        total = per_shape.sum(axis=1)
        shared = per_shape @ self.joint_support.T  # n × njoints
        turn_of = self.joint_support @ turn  # njoints
        a, b, L = self.a, self.b, self.common
        if which is not None:
            a, b, L = a[which], b[which], L[which]
        own = total[a] + total[b] - shared[a, L] - shared[b, L]
        if gap is None:
            d = c[a] - c[b]
            gap = np.sqrt(_dots(d, d))
        return np.maximum(own, 0.0) + turn_of[L] * (gap + radii[a] + radii[b])


def relative_approach(
    J: np.ndarray,
    v: np.ndarray,
    joint_support: np.ndarray,
    joint_of: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    pairs: np.ndarray,
) -> np.ndarray:
    """Per pair ``(a, b)`` of shapes, the rate (m/s) at which the velocity ``v`` can bring
    them closer, to first order: the distance of two bodies changes with their relative
    motion only, the spatial velocity ``(Δv_o, Δω) = (v_o,a − v_o,b, ω_a − ω_b)`` (world
    frame, ``v_o`` the velocity of the point at the world origin), which moves a point
    ``p`` of ``a`` relative to ``b`` at ``Δv_o + Δω × p``. Over ``a``'s bounding sphere
    (centre ``c_a``, radius ``r_a``) that is at most ``|Δv_o + Δω × c_a| + r_a |Δω|``; the
    smaller of that and the same about ``b``'s sphere is returned. Motion common to both
    bodies (their common ancestors') cancels.

    ``J`` (6 × nv) the world-frame joint Jacobian, ``joint_support`` (njoints × nv, float
    0/1) the columns that move each joint's body, ``joint_of`` (n,) each shape's joint (0
    for an obstacle: at rest here), ``centres`` (n × 3), ``radii`` (n,), ``pairs`` (k × 2)."""
    V = J @ (joint_support * v).T  # 6 × njoints: each body's spatial velocity
    return _relative_approach(V, joint_of, centres, radii, pairs)


def _relative_approach(
    V: np.ndarray, joint_of: np.ndarray, centres: np.ndarray, radii: np.ndarray, pairs: np.ndarray
) -> np.ndarray:
    """:func:`relative_approach` from the bodies' spatial velocities ``V`` (6 × njoints)."""
    ja, jb = joint_of[pairs[:, 0]], joint_of[pairs[:, 1]]
    dv = (V[:3, ja] - V[:3, jb]).T
    dw = (V[3:, ja] - V[3:, jb]).T
    turn = np.sqrt(_dots(dw, dw))
    ends = []
    for k in (0, 1):
        lin = dv + _cross(dw, centres[pairs[:, k]])
        ends.append(np.sqrt(_dots(lin, lin)) + radii[pairs[:, k]] * turn)
    return np.minimum(ends[0], ends[1])
