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

from ..exceptions import InvalidInput, check_finite_array, check_scalar

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


def _positive(value: float, what: str) -> float:
    return check_scalar(value, what, 0.0, np.inf, low_open=True)


def _pose(pose: Any, what: str) -> pin.SE3:
    """A pin.SE3 from an SE3, a 4×4 homogeneous matrix or a position (3,)."""
    if isinstance(pose, pin.SE3):
        M = pose.homogeneous
    else:
        arr = np.asarray(pose, dtype=float) if pose is not None else np.zeros(3)
        if arr.shape == (3,):
            M = np.eye(4)
            M[:3, 3] = arr
        else:
            M = arr
    M = check_finite_array(M, what, (4, 4))
    R = M[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-6) or np.linalg.det(R) < 0:
        raise InvalidInput(f"{what}: the rotation block is not a rotation matrix")
    return pin.SE3(pin.Quaternion(R).normalized().matrix(), M[:3, 3].copy())


class Obstacle:
    """A shape fixed in the world at ``pose`` (move it with :meth:`move_to`).

    Build one with :func:`sphere`, :func:`capsule`, :func:`box`, :func:`cylinder`,
    :func:`halfspace` or :func:`mesh`. Capsules and cylinders lie along their local z axis,
    centred on the origin of their pose.
    """

    def __init__(self, name: str, geometry: coal.CollisionGeometry, pose: Any = None) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"an obstacle needs a non-empty name, got {name!r}")
        self.name = name
        self.geometry = geometry
        self._pose = _pose(pose, f"pose of obstacle {name!r}")
        #: Incremented by every move; the limits that watch the obstacle read it.
        self.version = 0

    @property
    def pose(self) -> pin.SE3:
        """Placement of the obstacle in the world frame."""
        return self._pose

    def move_to(self, pose: Any) -> None:
        """Place the obstacle at ``pose`` (pin.SE3, 4×4 matrix, or a position in m)."""
        self._pose = _pose(pose, f"pose of obstacle {self.name!r}")
        self.version += 1

    @property
    def kind(self) -> str:
        """Shape kind: ``sphere``, ``capsule``, ``box``, ``cylinder``, ``halfspace``, …"""
        return type(self.geometry).__name__.lower().replace("bvhmodelobbrss", "mesh")

    def __repr__(self) -> str:
        t = np.round(self._pose.translation, 3)
        return f"Obstacle({self.name!r}, {self.kind}, at {t.tolist()})"


def sphere(name: str, radius: float, pose: Any = None) -> Obstacle:
    """A sphere of ``radius`` (m) centred at ``pose``."""
    return Obstacle(name, coal.Sphere(_positive(radius, f"{name} radius")), pose)


def capsule(name: str, radius: float, length: float, pose: Any = None) -> Obstacle:
    """A capsule: a segment of ``length`` (m) along local z, swept by a sphere of ``radius``."""
    r = _positive(radius, f"{name} radius")
    return Obstacle(name, coal.Capsule(r, _positive(length, f"{name} length")), pose)


def box(name: str, size: Any, pose: Any = None) -> Obstacle:
    """A box of full side lengths ``size = (x, y, z)`` (m), centred at ``pose``."""
    s = check_finite_array(size, f"{name} size", (3,))
    if np.any(s <= 0):
        raise InvalidInput(f"{name} size must be positive, got {s.tolist()}")
    return Obstacle(name, coal.Box(*s), pose)


def cylinder(name: str, radius: float, length: float, pose: Any = None) -> Obstacle:
    """A cylinder of ``radius`` and ``length`` (m) along local z, centred at ``pose``."""
    r = _positive(radius, f"{name} radius")
    return Obstacle(name, coal.Cylinder(r, _positive(length, f"{name} length")), pose)


def halfspace(name: str, normal: Any = (0.0, 0.0, 1.0), offset: float = 0.0) -> Obstacle:
    """The half-space ``{x : n·x ≤ offset}`` (a floor: ``n = +z``, the solid below it).

    The robot is kept on the side ``n·x > offset``. Move it with :meth:`Obstacle.move_to` like
    any obstacle (the pose moves the plane with it).
    """
    n = check_finite_array(normal, f"{name} normal", (3,))
    norm = float(np.linalg.norm(n))
    if norm < 1e-9:
        raise InvalidInput(f"{name} normal must be a non-zero vector")
    d = check_scalar(offset, f"{name} offset", -np.inf, np.inf)
    return Obstacle(name, coal.Halfspace(n / norm, d), None)


def mesh(name: str, vertices: Any, triangles: Any, pose: Any = None) -> Obstacle:
    """A triangle mesh: ``vertices`` (k × 3, m) and ``triangles`` (t × 3 vertex indices).

    Distances to a mesh are computed on its convex hull (:func:`convex_hull`), which gives
    signed distances and normals in penetration; split a non-convex obstacle into convex
    pieces (several obstacles) where the hull would be too coarse.
    """
    return Obstacle(name, convex_hull(vertices, triangles, name), pose)


def convex_hull(vertices: Any, triangles: Any, what: str = "mesh") -> coal.ConvexBase:
    """The convex hull (coal ``Convex``) of a triangle mesh."""
    V = np.asarray(vertices, dtype=float)
    T = np.asarray(triangles)
    if V.ndim != 2 or V.shape[1] != 3 or len(V) < 4:
        raise InvalidInput(f"{what} vertices must be k × 3 with k ≥ 4, got shape {V.shape}")
    check_finite_array(V, f"{what} vertices", V.shape)
    if T.ndim != 2 or T.shape[1] != 3 or not np.issubdtype(T.dtype, np.integer):
        raise InvalidInput(f"{what} triangles must be t × 3 integer indices, got {T.shape}")
    if T.size and (T.min() < 0 or T.max() >= len(V)):
        raise InvalidInput(f"{what} triangles index vertices outside 0..{len(V) - 1}")
    bvh = coal.BVHModelOBBRSS()
    bvh.beginModel(len(T), len(V))
    bvh.addVertices(V)
    bvh.addTriangles(T.astype(np.int64))
    bvh.endModel()
    return hull_of_bvh(bvh)


def hull_of_bvh(bvh: coal.BVHModelBase) -> coal.ConvexBase:
    """The convex hull of a coal BVH mesh (computed with Qhull)."""
    bvh.buildConvexHull(True, "Qt")
    return bvh.convex
