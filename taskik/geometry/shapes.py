"""Obstacles: shapes placed in the world, movable between steps.

Every shape is a coal geometry (the collision library Pinocchio ships with); distances
between them and the robot's collision geometry are computed by coal's GJK/EPA, which
gives signed distances (negative in penetration) and the closest points.
"""

from __future__ import annotations

from typing import Any

import coal
import numpy as np
import pinocchio as pin

from ..exceptions import InvalidInput, check_finite_array, check_scalar, real_array

__all__ = [
    "Obstacle",
    "box",
    "capsule",
    "convex_hull",
    "cylinder",
    "halfspace",
    "mesh",
    "sphere",
]


#: Largest coordinate or size accepted (m): beyond it, coal's distances lose every digit
#: (an obstacle at 1e300 m gave NaN distances).
MAX_EXTENT = 1e6


def _positive(value: float, what: str) -> float:
    return check_scalar(value, what, 0.0, MAX_EXTENT, low_open=True)


def _name(name: object) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"an obstacle needs a non-empty name (a str), got {name!r}")
    return name


def _pose(pose: Any, what: str) -> pin.SE3:
    """A pin.SE3 from an SE3, a 4×4 homogeneous matrix or a position (3,), checked to be a
    rigid transform: finite real values, an orthonormal rotation of determinant +1, a last
    row ``[0, 0, 0, 1]``, a translation within ``MAX_EXTENT`` (1e6 m) of the origin."""
    if isinstance(pose, pin.SE3):
        M = check_finite_array(pose.homogeneous, what, (4, 4))
    elif pose is None:
        M = np.eye(4)
    else:
        arr = real_array(pose, what)
        if arr.shape == (3,):
            M = np.eye(4)
            M[:3, 3] = check_finite_array(arr, what, (3,))
        elif arr.shape == (4, 4):
            M = check_finite_array(arr, what, (4, 4))
        else:
            raise InvalidInput(
                f"{what} must be a pinocchio.SE3, a 4×4 homogeneous matrix or a position (3,), "
                f"got shape {arr.shape}"
            )
    if not np.allclose(M[3], [0.0, 0.0, 0.0, 1.0], rtol=0.0, atol=1e-9):
        raise InvalidInput(
            f"{what}: the last row of a homogeneous matrix must be [0, 0, 0, 1], got "
            f"{M[3].tolist()} (a transposed matrix?)"
        )
    R = M[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), rtol=0.0, atol=1e-6) or np.linalg.det(R) < 0:
        raise InvalidInput(f"{what}: the rotation block is not a rotation matrix")
    if np.abs(M[:3, 3]).max() > MAX_EXTENT:
        raise InvalidInput(
            f"{what}: the position {M[:3, 3].tolist()} is farther than {MAX_EXTENT:g} m "
            "from the origin"
        )
    return pin.SE3(pin.Quaternion(R).normalized().matrix(), M[:3, 3].copy())


#: coal shapes an obstacle may be: convex, with signed distances and normals.
SHAPES = (
    coal.Sphere,
    coal.Capsule,
    coal.Box,
    coal.Cylinder,
    coal.Cone,
    coal.Ellipsoid,
    coal.Halfspace,
    coal.ConvexBase,
)


def shape_values(geometry: coal.CollisionGeometry) -> tuple[float, ...]:
    """The numbers that define a shape (radius, half lengths, normal and offset, number of
    points of a convex hull): a value to compare, so that a shape changed in place is seen."""
    if isinstance(geometry, coal.Sphere):
        return (geometry.radius,)
    if isinstance(geometry, coal.Capsule | coal.Cylinder | coal.Cone):
        return (geometry.radius, geometry.halfLength)
    if isinstance(geometry, coal.Box):
        return tuple(np.asarray(geometry.halfSide, dtype=float).tolist())
    if isinstance(geometry, coal.Ellipsoid):
        return tuple(np.asarray(geometry.radii, dtype=float).tolist())
    if isinstance(geometry, coal.Halfspace):
        return (*np.asarray(geometry.n, dtype=float).tolist(), float(geometry.d))
    if isinstance(geometry, coal.ConvexBase):
        return (float(geometry.num_points),)
    return ()


def check_shape(geometry: object, what: str) -> coal.CollisionGeometry:
    """``geometry`` when it is a convex coal shape with finite, positive sizes within
    ``MAX_EXTENT`` (1e6 m); :class:`InvalidInput` naming ``what`` otherwise."""
    if not isinstance(geometry, SHAPES):
        kinds = ", ".join(t.__name__ for t in SHAPES)
        hint = (
            " (a triangle mesh: use taskik.geometry.mesh or convex_hull)"
            if isinstance(geometry, coal.BVHModelBase)
            else ""
        )
        raise InvalidInput(
            f"{what} must be a convex coal shape ({kinds}), got {type(geometry).__name__}{hint}"
        )
    values = np.array(shape_values(geometry), dtype=float)
    if not np.all(np.isfinite(values)):
        raise InvalidInput(f"{what} has NaN or inf sizes: {values.tolist()}")
    if isinstance(geometry, coal.Halfspace):
        n, d = values[:3], values[3]
        if abs(float(np.linalg.norm(n)) - 1.0) > 1e-6 or abs(d) > MAX_EXTENT:
            raise InvalidInput(
                f"{what}: a half-space needs a unit normal and |offset| ≤ {MAX_EXTENT:g} m, "
                f"got n = {n.tolist()}, d = {d:g}"
            )
    elif isinstance(geometry, coal.ConvexBase):
        if values[0] < 4:
            raise InvalidInput(f"{what}: a convex hull needs at least 4 points")
    elif np.any(values <= 0) or np.any(values > MAX_EXTENT):
        raise InvalidInput(f"{what} sizes must be in (0, {MAX_EXTENT:g}] m, got {values.tolist()}")
    return geometry


class Obstacle:
    """A shape placed in the world at ``pose`` (move it with :meth:`move_to`).

    Build one with :func:`sphere`, :func:`capsule`, :func:`box`, :func:`cylinder`,
    :func:`halfspace` or :func:`mesh`. Capsules and cylinders lie along their local z axis,
    centred on the origin of their pose.

    The limits that watch an obstacle read its pose and its shape's sizes by value at every
    step: ``move_to``, ``obstacle.pose = ...``, a change of ``obstacle.pose`` in place, a new
    ``obstacle.geometry`` or a shape resized in place are all seen (and checked) at the next
    step.
    """

    def __init__(self, name: str, geometry: coal.CollisionGeometry, pose: Any = None) -> None:
        self.name = _name(name)
        self._geometry = check_shape(geometry, f"the shape of obstacle {name!r}")
        self._pose = _pose(pose, f"pose of obstacle {name!r}")
        #: Incremented by every move or change of shape through this object's methods.
        self.version = 0

    @property
    def pose(self) -> pin.SE3:
        """Placement of the obstacle in the world frame."""
        return self._pose

    @pose.setter
    def pose(self, pose: Any) -> None:
        self.move_to(pose)

    @property
    def geometry(self) -> coal.CollisionGeometry:
        """The obstacle's coal shape (assign another to change it)."""
        return self._geometry

    @geometry.setter
    def geometry(self, geometry: coal.CollisionGeometry) -> None:
        self._geometry = check_shape(geometry, f"the shape of obstacle {self.name!r}")
        self.version += 1

    def move_to(self, pose: Any) -> None:
        """Place the obstacle at ``pose``: a pin.SE3 or a 4×4 matrix sets its position and
        orientation; a position (m, three values) moves it there and keeps its orientation."""
        placed = _pose(pose, f"pose of obstacle {self.name!r}")
        if not isinstance(pose, pin.SE3) and np.shape(pose) == (3,):
            placed = pin.SE3(self._pose.rotation, placed.translation)
        self._pose = placed
        self.version += 1

    @property
    def kind(self) -> str:
        """Shape kind: ``sphere``, ``capsule``, ``box``, ``cylinder``, ``halfspace``, or
        ``mesh`` for an obstacle of :func:`mesh` (held as its convex hull: any coal convex
        geometry reports ``mesh``), named after the function that makes each."""
        if isinstance(self._geometry, coal.ConvexBase):
            return "mesh"
        return type(self._geometry).__name__.lower()

    def __repr__(self) -> str:
        t = np.round(self._pose.translation, 3)
        return f"Obstacle({self.name!r}, {self.kind}, at {t.tolist()})"


def sphere(name: str, radius: float, pose: Any = None) -> Obstacle:
    """A sphere of ``radius`` (m) centred at ``pose``."""
    _name(name)
    return Obstacle(name, coal.Sphere(_positive(radius, f"{name} radius")), pose)


def capsule(name: str, radius: float, length: float, pose: Any = None) -> Obstacle:
    """A capsule: a segment of ``length`` (m) along local z, swept by a sphere of ``radius``."""
    _name(name)
    r = _positive(radius, f"{name} radius")
    return Obstacle(name, coal.Capsule(r, _positive(length, f"{name} length")), pose)


def box(name: str, size: Any, pose: Any = None) -> Obstacle:
    """A box of full side lengths ``size = (x, y, z)`` (m), centred at ``pose``."""
    _name(name)
    s = check_finite_array(size, f"{name} size", (3,))
    if np.any(s <= 0) or np.any(s > MAX_EXTENT):
        raise InvalidInput(f"{name} size must be positive and ≤ {MAX_EXTENT:g} m, got {s.tolist()}")
    return Obstacle(name, coal.Box(*s), pose)


def cylinder(name: str, radius: float, length: float, pose: Any = None) -> Obstacle:
    """A cylinder of ``radius`` and ``length`` (m) along local z, centred at ``pose``."""
    _name(name)
    r = _positive(radius, f"{name} radius")
    return Obstacle(name, coal.Cylinder(r, _positive(length, f"{name} length")), pose)


def halfspace(name: str, normal: Any = (0.0, 0.0, 1.0), offset: float = 0.0) -> Obstacle:
    """The half-space ``{x : n·x ≤ offset}`` (a floor: ``n = +z``, the solid below it);
    ``offset`` in m, within ±1e6 like every obstacle's extent.

    The robot is kept on the side ``n·x > offset``. Move it with :meth:`Obstacle.move_to` like
    any obstacle (the pose moves the plane with it).
    """
    _name(name)
    n = check_finite_array(normal, f"{name} normal", (3,))
    scale = float(np.abs(n).max())  # (the norm of n / scale cannot overflow)
    norm = scale * float(np.linalg.norm(n / scale)) if scale > 0.0 else 0.0
    if not 1e-9 < norm < 1e300:
        raise InvalidInput(f"{name} normal must be a non-zero vector, got {n.tolist()}")
    d = check_scalar(offset, f"{name} offset", -MAX_EXTENT, MAX_EXTENT)
    return Obstacle(name, coal.Halfspace(n / norm, d), None)


def mesh(name: str, vertices: Any, triangles: Any, pose: Any = None) -> Obstacle:
    """A triangle mesh: ``vertices`` (k × 3, m) and ``triangles`` (t × 3 vertex indices).

    Distances to a mesh are computed on its convex hull (:func:`convex_hull`), which gives
    signed distances and normals in penetration; split a non-convex obstacle into convex
    pieces (several obstacles) where the hull would be too coarse. Vertices that span no
    volume (all on a plane or a line, or repeated) are refused: give a flat obstacle some
    thickness, or use a :func:`box`.
    """
    _name(name)
    return Obstacle(name, convex_hull(vertices, triangles, name), pose)


def _solid_hull(V: np.ndarray, what: str) -> np.ndarray:
    """The vertices of the convex hull of the points ``V`` (k × 3); :class:`InvalidInput`
    when they span no volume (coplanar, collinear or repeated points: coal's hull would
    crash the process on them)."""
    from scipy.spatial import ConvexHull, QhullError

    extent = float(np.ptp(V, axis=0).max()) if len(V) else 0.0
    flat = InvalidInput(
        f"{what}: the vertices span no volume (all on a plane or a line, or repeated): "
        "give a flat obstacle some thickness, or use a box"
    )
    if not extent > 0.0:
        raise flat
    centred = (V - V.mean(axis=0)) / extent
    if np.linalg.svd(centred, compute_uv=False)[-1] < 1e-5 * np.sqrt(len(V)):
        raise flat
    try:
        hull = ConvexHull(centred)
    except QhullError as exc:
        raise flat from exc
    if not hull.volume > 1e-12:
        raise flat
    return V[np.sort(hull.vertices)]


def convex_hull(vertices: Any, triangles: Any, what: str = "mesh") -> coal.ConvexBase:
    """The convex hull (coal ``Convex``) of a triangle mesh (``vertices`` k × 3 in m,
    ``triangles`` t × 3 vertex indices); :class:`InvalidInput` when the vertices span no
    volume."""
    V = real_array(vertices, f"{what} vertices")
    if V.ndim != 2 or V.shape[1] != 3 or len(V) < 4:
        raise InvalidInput(f"{what} vertices must be k × 3 with k ≥ 4, got shape {V.shape}")
    check_finite_array(V, f"{what} vertices", V.shape)
    if np.abs(V).max() > MAX_EXTENT:
        raise InvalidInput(f"{what} vertices must be within {MAX_EXTENT:g} m of the origin")
    try:
        T = np.asarray(triangles)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} triangles must be t × 3 integer indices") from exc
    if T.ndim != 2 or T.shape[1] != 3 or not np.issubdtype(T.dtype, np.integer):
        raise InvalidInput(
            f"{what} triangles must be t × 3 integer indices, got shape {T.shape} of {T.dtype}"
        )
    if T.size and (T.min() < 0 or T.max() >= len(V)):
        raise InvalidInput(f"{what} triangles index vertices outside 0..{len(V) - 1}")
    return _coal_hull(_solid_hull(V, what))


def _coal_hull(points: np.ndarray) -> coal.ConvexBase:
    """coal's convex hull of ``points`` (k × 3), which span a volume (checked before)."""
    bvh = coal.BVHModelOBBRSS()
    bvh.beginModel(0, len(points))
    bvh.addVertices(np.ascontiguousarray(points, dtype=float))
    bvh.endModel()
    bvh.buildConvexHull(True, "Qt")
    return bvh.convex


def hull_of_bvh(bvh: coal.BVHModelBase, what: str = "mesh") -> coal.ConvexBase:
    """The convex hull of a coal BVH mesh (computed with Qhull); :class:`InvalidInput` when
    its vertices span no volume."""
    V = np.asarray(bvh.vertices(), dtype=float).reshape(-1, 3)
    if len(V) < 4 or not np.all(np.isfinite(V)):
        raise InvalidInput(f"{what}: a mesh needs at least 4 finite vertices, got {len(V)}")
    return _coal_hull(_solid_hull(V, what))
