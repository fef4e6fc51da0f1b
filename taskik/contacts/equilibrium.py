"""Static equilibrium of a robot on its contacts: the region of centre-of-mass positions that
contact forces inside the friction cones can hold against gravity, and a check of one posture.

With gravity ``g = −g₀ e_z`` and the robot's weight ``m g₀`` the unit of force, contact
forces ``f_j`` at the points ``p_j`` hold a centre of mass at ``c`` when

    Σ_j f_j = e_z,        Σ_j p_j × f_j = c × e_z = (c_y, −c_x, 0),

each ``f_j`` in its friction cone, linearised as ``f_j = Σ_k λ_jk u_jk`` with ``λ ≥ 0`` and
the generators ``u_jk`` of :func:`taskik.contacts.contact.friction_generators`. The height
``c_z`` does not enter: the region is a vertical prism over a convex polygon of ``(c_x, c_y)``.

The polygon is computed by the projection algorithm of Bretl and Lall ("Testing static
equilibrium for legged robots", IEEE Transactions on Robotics 24(4), 2008): the linear
programme ``max dᵀc`` over ``(λ, c_xy)`` gives the support point of the region in the
direction ``d``; starting from three directions, each edge of the inner polygon (the hull
of the support points found) is tested along its outward normal, and a new vertex is
inserted until every edge is within ``tol`` of the region. It is exact for polyhedral cones
(up to ``tol``). The linear programmes are solved by SciPy's HiGHS (``scipy.optimize.linprog``):
small (a few hundred variables), dense and solved a few dozen times per stance, so a general
LP solver is simpler and as fast as a dedicated routine. When every contact is horizontal
(normal ``e_z``) and the points are coplanar, horizontal forces cannot create a moment about
a horizontal axis, and the region is the convex hull of the points' ground projections: that
case skips the linear programmes. With every normal vertical but the points at several
heights, vertical forces alone already hold any CoM over that hull, so the hull is used there
too: it is then a subset of the exact region (safe, if at most a little conservative).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_finite_array, check_scalar
from .contact import MAX_COORDINATE, Contact, check_edges, friction_generators
from .hull import convex_hull_2d

#: Half-width (m) of the square about the contacts inside which an unbounded region is cut.
REGION_BOUND = 10.0


@dataclass(frozen=True)
class SupportRegion:
    """A convex polygon of centre-of-mass ground positions (m), vertices counter-clockwise.

    Attributes:
        vertices: (k, 2) counter-clockwise (k ≥ 1; 1 or 2 for a point or segment).
        normals: (k, 2) outward unit normals of the edges ``vertices[i] → vertices[i+1]``.
        offsets: (k,) ``b_i = n_iᵀ v_i``: the polygon is ``{c : N c ≤ b}``.
        bounded: False when the region reached the ``REGION_BOUND`` (10 m) square (a stance that
            can hold the CoM arbitrarily far, e.g. between two walls).
    """

    vertices: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    bounded: bool = True

    def signed_distance(self, point: np.ndarray) -> float:
        """Distance (m) from ``point`` (x, y) to the polygon's boundary: positive inside,
        negative outside; ``-inf`` for an empty region (contacts that hold the CoM nowhere).
        :class:`InvalidInput` unless ``point`` is a finite real (x, y) or (x, y, z)."""
        c = check_finite_array(point, "point")
        if c.shape not in ((2,), (3,)):
            raise InvalidInput(f"point must be (x, y) or (x, y, z), got shape {c.shape}")
        c = c[:2]
        V = self.vertices
        if not len(V):
            return -math.inf
        if len(V) >= 3:
            inside = self.offsets - self.normals @ c
            if inside.min() >= 0.0:
                return float(inside.min())
        return -_distance_to_polygon(V, c)

    def contains(self, point: np.ndarray, margin: float = 0.0) -> bool:
        """Whether ``point`` (x, y) is inside, at least ``margin`` (m) from the boundary."""
        margin = check_scalar(margin, "margin")
        return self.signed_distance(point) >= margin


def edge_distances(V: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Euclidean distance from ``c`` (x, y; a z is ignored) to each edge ``V[i] → V[i+1]`` of
    a closed polygon with vertices ``V`` (k × 2, k ≥ 1; or to its one point), shape (k,), m."""
    V = check_finite_array(V, "polygon vertices")
    if V.ndim != 2 or V.shape[1] != 2 or not len(V):
        raise InvalidInput(f"polygon vertices must have shape (k, 2), k >= 1, got {V.shape}")
    c = check_finite_array(c, "point")
    if c.shape not in ((2,), (3,)):
        raise InvalidInput(f"point must be (x, y) or (x, y, z), got shape {c.shape}")
    if max(np.abs(V).max(), np.abs(c).max()) > MAX_COORDINATE:
        raise InvalidInput(f"the point and the vertices must be within {MAX_COORDINATE:g} m")
    c = c[:2]
    if len(V) == 1:
        return np.array([float(np.linalg.norm(c - V[0]))])
    a, b = V, np.roll(V, -1, axis=0)
    ab = b - a
    t = np.clip(np.einsum("ij,ij->i", c - a, ab) / np.maximum((ab * ab).sum(1), 1e-300), 0, 1)
    return np.asarray(np.linalg.norm(a + t[:, None] * ab - c, axis=1))


def _distance_to_polygon(V: np.ndarray, c: np.ndarray) -> float:
    """Euclidean distance from ``c`` to the closed polygon (or segment, or point) ``V``."""
    return float(edge_distances(V, c).min())


def polygon(vertices: np.ndarray, bounded: bool = True) -> SupportRegion:
    """A :class:`SupportRegion` from counter-clockwise vertices."""
    V = np.asarray(vertices, dtype=float).reshape(-1, 2)
    edges = np.roll(V, -1, axis=0) - V
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    lengths = np.linalg.norm(normals, axis=1)
    normals = normals / np.maximum(lengths, 1e-300)[:, None]
    return SupportRegion(V, normals, np.einsum("ij,ij->i", normals, V), bounded)


@dataclass(frozen=True)
class ContactSet:
    """Contacts in the world: points (n, 3, m), their normals (n, 3; normalised here) and
    friction coefficients (n,), checked: finite, n ≥ 1, the points within
    ``MAX_COORDINATE`` (1e6 m) of the origin, the normals not zero, μ > 0
    (:class:`InvalidInput` otherwise)."""

    points: np.ndarray
    normals: np.ndarray
    friction: np.ndarray

    def __post_init__(self) -> None:
        points = check_finite_array(self.points, "contact set points")
        normals = check_finite_array(self.normals, "contact set normals")
        friction = check_finite_array(self.friction, "contact set friction")
        n = len(points) if points.ndim == 2 else -1
        if n < 1 or points.shape != (n, 3) or normals.shape != (n, 3) or friction.shape != (n,):
            raise InvalidInput(
                "a contact set needs points (n, 3), normals (n, 3) and friction (n,) with "
                f"n >= 1, got {points.shape}, {normals.shape}, {friction.shape}"
            )
        if np.abs(points).max() > MAX_COORDINATE:
            raise InvalidInput(
                f"contact set points must be within {MAX_COORDINATE:g} m of the origin"
            )
        lengths = np.linalg.norm(normals, axis=1)
        if not lengths.min() > 1e-9:
            raise InvalidInput("a contact normal of the contact set is zero")
        if not friction.min() > 0.0:
            raise InvalidInput(f"contact set friction must be > 0, got {friction.min()!r}")
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "normals", normals / lengths[:, None])
        object.__setattr__(self, "friction", friction)

    @classmethod
    def of(cls, configuration: Configuration, contacts: Sequence[Contact]) -> ContactSet:
        """The ``contacts`` at ``configuration``."""
        contacts = check_contacts(contacts)
        return cls.from_points([c.world_points(configuration) for c in contacts], contacts)

    @classmethod
    def from_points(cls, points: Sequence[np.ndarray], contacts: Sequence[Contact]) -> ContactSet:
        """The ``contacts`` with their world points ``points[i]`` (k_i × 3, m) given."""
        contacts = check_contacts(contacts)
        if isinstance(points, str | bytes) or not hasattr(points, "__len__"):
            raise InvalidInput(
                f"points must be a list of (k, 3) arrays, one per contact, got {points!r}"
            )
        if len(points) != len(contacts):
            raise InvalidInput(
                f"points has {len(points)} arrays for {len(contacts)} contacts: one per contact"
            )
        points = [check_finite_array(p, f"points[{i}]") for i, p in enumerate(points)]
        for i, p in enumerate(points):
            if p.ndim != 2 or p.shape[1] != 3 or not len(p):
                raise InvalidInput(f"points[{i}] must have shape (k, 3), k >= 1, got {p.shape}")
        normals = [np.tile(c.normal, (len(p), 1)) for p, c in zip(points, contacts, strict=True)]
        friction = [np.full(len(p), c.friction) for p, c in zip(points, contacts, strict=True)]
        return cls(np.vstack(points), np.vstack(normals), np.concatenate(friction))

    def generators(self, edges: int) -> np.ndarray:
        """Friction-pyramid generators of every point, stacked: (n · edges, 3)."""
        edges = check_edges(edges)
        # (one pyramid per distinct normal and friction, by value: the points of a contact
        # share theirs, and flat contacts all have the same)
        pyramids: dict[bytes, np.ndarray] = {}
        stacked = []
        for n, mu in zip(self.normals, self.friction, strict=True):
            key = n.tobytes() + mu.tobytes()
            U = pyramids.get(key)
            if U is None:
                U = pyramids[key] = friction_generators(n, mu, edges)
            stacked.append(U)
        return np.vstack(stacked)

    def is_flat(self) -> bool:
        """Every normal vertical (up, to 1e-9): the region is then the hull of the points
        (exact when they are coplanar, a safe subset of the region otherwise)."""
        return bool(np.abs(self.normals - (0.0, 0.0, 1.0)).max() <= 1e-9)


def _check_set(contacts: object, who: str) -> ContactSet:
    if not isinstance(contacts, ContactSet):
        raise InvalidInput(
            f"{who} takes the contacts in the world as a ContactSet "
            f"(ContactSet.of(configuration, contacts)), got {type(contacts).__name__}"
        )
    return contacts


def check_contacts(contacts: object) -> list[Contact]:
    """``contacts`` as a non-empty list of :class:`Contact`; InvalidInput otherwise."""
    if isinstance(contacts, Contact):
        return [contacts]
    if isinstance(contacts, str | bytes) or not hasattr(contacts, "__iter__"):
        raise InvalidInput(f"contacts must be a list of taskik.Contact, got {contacts!r}")
    out = list(contacts)
    if not out:
        raise InvalidInput("contacts is empty: a robot with no contact cannot balance")
    for c in out:
        if not isinstance(c, Contact):
            raise InvalidInput(f"contacts must be taskik.Contact objects, got {c!r}")
    return out


def _equilibrium_rows(points: np.ndarray, U: np.ndarray, edges: int) -> np.ndarray:
    """The 6 equality rows on ``λ``: ``[Σ u_jk; Σ p_j × u_jk]`` (6 × n·edges)."""
    P = np.repeat(points, edges, axis=0)
    return np.vstack([U.T, np.cross(P, U).T])


# the rows of c in the moment equations: Σ p×f − (c_y, −c_x, 0) = 0
_C_ROWS = np.zeros((6, 2))
_C_ROWS[3, 1] = -1.0
_C_ROWS[4, 0] = 1.0
_B_EQ = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])


def support_region(
    contacts: ContactSet, edges: int = 8, tol: float = 1e-4, max_iterations: int = 64
) -> SupportRegion:
    """The region of CoM ground positions in static equilibrium on ``contacts`` (Bretl and
    Lall's projection; the hull of the points when they are flat and coplanar).

    Args:
        contacts: the contacts in the world (``ContactSet.of``).
        edges: generators per friction pyramid (≥ 3).
        tol: the polygon is within ``tol`` (m) of the exact region of the pyramids.
        max_iterations: linear programmes at most.
    """
    contacts = _check_set(contacts, "support_region")
    edges = check_edges(edges)
    tol = check_scalar(tol, "tol", 0.0, low_open=True)
    if (
        not isinstance(max_iterations, int | np.integer)
        or isinstance(max_iterations, bool)
        or not 1 <= max_iterations <= 10_000
    ):
        raise InvalidInput(
            f"max_iterations must be an integer in [1, 10000], got {max_iterations!r}"
        )
    if contacts.is_flat():
        return polygon(convex_hull_2d(contacts.points[:, :2]))
    U = contacts.generators(edges)
    A = np.hstack([_equilibrium_rows(contacts.points, U, edges), _C_ROWS])
    centre = contacts.points[:, :2].mean(axis=0)
    bounds = [(0.0, None)] * U.shape[0] + [
        (centre[0] - REGION_BOUND, centre[0] + REGION_BOUND),
        (centre[1] - REGION_BOUND, centre[1] + REGION_BOUND),
    ]
    cost = np.zeros(A.shape[1])

    def support(d: np.ndarray) -> np.ndarray | None:
        cost[-2:] = -d
        res = linprog(cost, A_eq=A, b_eq=_B_EQ, bounds=bounds, method="highs")
        return None if res.status != 0 else np.asarray(res.x[-2:])

    angles = 2.0 * np.pi * np.arange(3) / 3
    found = [support(np.array([np.cos(a), np.sin(a)])) for a in angles]
    if any(v is None for v in found):
        return SupportRegion(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), True)
    vertices = [v for v in found if v is not None]

    def edge_key(hull: np.ndarray, i: int) -> tuple[float, ...]:
        a, b = hull[i], hull[(i + 1) % len(hull)]
        return tuple(np.round(np.concatenate([a, b]), 9).tolist())

    done: set[tuple[float, ...]] = set()
    for _ in range(max_iterations):
        hull = convex_hull_2d(np.array(vertices))
        if len(hull) < 3:
            break
        region = polygon(hull)
        pending = [i for i in range(len(hull)) if edge_key(hull, i) not in done]
        if not pending:
            break
        i = pending[0]
        v = support(region.normals[i])
        if v is None or region.normals[i] @ v - region.offsets[i] <= tol:
            done.add(edge_key(hull, i))
        else:
            vertices.append(v)
    hull = convex_hull_2d(np.array(vertices))
    reached = np.abs(hull - centre).max() >= REGION_BOUND - 1e-6 if len(hull) else False
    return polygon(hull, bounded=not reached)


@dataclass(frozen=True)
class BalanceCheck:
    """The result of :func:`check_static_balance`.

    Attributes:
        stable: contact forces inside the friction pyramids hold the robot (an LP found them).
        margin: signed distance (m) from the CoM's ground projection to the edge of the
            static-equilibrium region: positive inside.
        com: the centre of mass (m), world.
        forces: (n, 3) contact forces at the contact points, in units of the robot's weight
            (multiply by ``m g₀`` for newtons), or None when none exist.
        region: the static-equilibrium region.
    """

    stable: bool
    margin: float
    com: np.ndarray
    forces: np.ndarray | None
    region: SupportRegion

    def __str__(self) -> str:
        return (
            f"{'stable' if self.stable else 'NOT stable'}: margin {1000 * self.margin:+.1f} mm "
            f"(CoM at {np.round(self.com, 3).tolist()} m)"
        )


def check_static_balance(
    configuration: Configuration, contacts: Sequence[Contact], edges: int = 8
) -> BalanceCheck:
    """Whether the robot at ``configuration`` is in static equilibrium on ``contacts``.

    Solves the linear programme of the module docstring with the CoM fixed (find ``λ ≥ 0``
    with ``Σ f = e_z``, ``Σ p × f = (c_y, −c_x, 0)``), independently of the region, and
    reports the margin to the region's edge (see :class:`BalanceCheck`).

    Args:
        configuration: the robot's configuration (kinematics up to date).
        contacts: the contacts (:class:`Contact`), their frames where the robot touches.
        edges: generators per friction pyramid (≥ 3, 8 by default).
    """
    configuration = check_configuration(configuration, "check_static_balance")
    edges = check_edges(edges)
    world = ContactSet.of(configuration, contacts)
    com = configuration.com
    forces = equilibrium_forces(world, com, edges)
    region = support_region(world, edges)
    return BalanceCheck(forces is not None, region.signed_distance(com[:2]), com, forces, region)


def equilibrium_forces(contacts: ContactSet, com: np.ndarray, edges: int = 8) -> np.ndarray | None:
    """Contact forces (n, 3), in units of the robot's weight, inside the friction pyramids,
    that hold a centre of mass at ``com`` against gravity; None when there are none.

    The linear programme ``min Σ λ`` s.t. ``Σ_k λ_jk u_jk = f_j``, ``Σ f_j = e_z``,
    ``Σ p_j × f_j = (c_y, −c_x, 0)``, ``λ ≥ 0`` (the least total normal effort).
    """
    contacts = _check_set(contacts, "equilibrium_forces")
    c = check_finite_array(com, "com")
    if c.shape not in ((2,), (3,)):
        raise InvalidInput(f"com must be (x, y) or (x, y, z) in m, got shape {c.shape}")
    U = contacts.generators(edges)
    A = _equilibrium_rows(contacts.points, U, edges)
    b = _B_EQ - _C_ROWS @ c[:2]
    res = linprog(np.ones(U.shape[0]), A_eq=A, b_eq=b, bounds=(0.0, None), method="highs")
    if res.status != 0:
        return None
    lam = res.x.reshape(-1, edges)
    return np.einsum("jk,jkl->jl", lam, U.reshape(-1, edges, 3))
