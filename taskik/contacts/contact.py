"""A frame in contact with a surface: where it touches, the surface normal, the friction."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_finite_array, check_scalar
from ..tasks._frames import FrameName
from ..tasks.frame import FrameTask
from ..tasks.position import PositionTask

#: Largest contact-point coordinate accepted (m): beyond it, products of coordinates in the
#: equilibrium equations leave the range where the linear programmes are meaningful.
MAX_COORDINATE = 1e6

#: Largest friction coefficient accepted (real surfaces: below 2; beyond 100 the pyramid's
#: generators are nearly tangent and the linear programmes lose their accuracy).
MAX_FRICTION = 100.0

#: Largest number of generators of a friction pyramid accepted.
MAX_EDGES = 64


def check_edges(edges: object) -> int:
    """``edges`` (generators per friction pyramid) as an int in [3, ``MAX_EDGES``];
    :class:`InvalidInput` otherwise (a float such as 3.5 or a bool is refused)."""
    if (
        not isinstance(edges, int | np.integer)
        or isinstance(edges, bool | np.bool_)
        or not 3 <= edges <= MAX_EDGES
    ):
        raise InvalidInput(f"edges must be an integer in [3, {MAX_EDGES}], got {edges!r}")
    return int(edges)


class Contact:
    """A frame touching a surface at a few points (the corners of a sole, a palm, a point).

    The contact points ``p_k`` are fixed in the frame: in the world they are ``o + R p_k``
    with ``(R, o)`` the frame's placement. The surface normal ``n`` (pointing from the
    surface into the robot) belongs to the surface, so it is given in the world. A force
    ``f`` at a contact point is admissible when it lies in the Coulomb friction cone
    ``‖f − (nᵀf) n‖ ≤ μ nᵀf``; the static-equilibrium test and the balance limit use the
    pyramid of ``edges`` generators inscribed in it,
    ``u_k = n + μ (cos φ_k t₁ + sin φ_k t₂)``, ``φ_k = 2πk / edges`` (its edges lie on the
    cone, so every force it admits is admissible).

    Args:
        frame: name of the frame in contact.
        points: contact points in the frame's coordinates (m), shape (k, 3), k ≥ 1, within
            1e6 m of the frame's origin; for a flat sole, the corners of its polygon.
        normal: the surface normal in the world (normalised); up (+z) by default: a floor.
        friction: Coulomb friction coefficient μ in (0, 100] (dimensionless).
        held: whether the contact is held in place (a stance helper then adds a task that
            keeps the frame where it is; see :meth:`task`).

    A contact is a value: its frame, points, normal, friction and ``held`` are fixed once it
    is made (assigning one raises :class:`~taskik.InvalidInput`; ``points`` and ``normal``
    are read-only arrays), since a :class:`~taskik.BalanceLimit` reads them when it is
    made. For another stance, make new contacts and a new limit.
    """

    _FIELDS = ("frame", "points", "normal", "friction", "held")

    frame = FrameName()

    def __init__(
        self,
        frame: str,
        points: npt.ArrayLike,
        normal: npt.ArrayLike = (0.0, 0.0, 1.0),
        friction: float = 0.7,
        held: bool = True,
    ) -> None:
        self.frame = frame
        pts = check_finite_array(points, "contact points")
        if pts.ndim == 1 and pts.shape == (3,):
            pts = pts.reshape(1, 3)
        if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) == 0:
            raise InvalidInput(
                f"contact points must have shape (k, 3) with k >= 1, got {np.shape(points)}"
            )
        if np.abs(pts).max() > MAX_COORDINATE:
            raise InvalidInput(
                f"contact points must be within {MAX_COORDINATE:g} m of the frame's origin"
            )
        n = check_finite_array(normal, "contact normal", (3,))
        if np.abs(n).max() > 1.0:  # (scaled first: the norm of (0, 0, 1e300) overflows)
            n = n / np.abs(n).max()
        length = float(np.linalg.norm(n))
        if not length > 1e-9:
            raise InvalidInput(f"the contact normal must not be zero, got {n.tolist()}")
        if not isinstance(held, bool | np.bool_):
            raise InvalidInput(f"held must be True or False, got {held!r}")
        pts = pts.copy()
        pts.setflags(write=False)
        unit = n / length
        unit.setflags(write=False)
        self.points = pts
        self.normal = unit
        self.friction = check_scalar(friction, "friction", 0.0, MAX_FRICTION, low_open=True)
        self.held = bool(held)
        self._made = True

    def __setattr__(self, name: str, value: object) -> None:
        if name in self._FIELDS and getattr(self, "_made", False):
            raise InvalidInput(
                f"a Contact is fixed once made (its {name} was read by the limits built on "
                "it): make a new Contact, and a new BalanceLimit with it"
            )
        object.__setattr__(self, name, value)

    def world_points(self, configuration: Configuration) -> np.ndarray:
        """The contact points in the world (m), shape (k, 3)."""
        M = configuration.get_transform_frame_to_world(self.frame.name)
        return self.points @ M.rotation.T + M.translation

    def world_normal(self, configuration: Configuration) -> np.ndarray:
        """The surface normal in the world (unit), shape (3,): ``normal``, whatever the
        configuration (the surface does not move with the robot)."""
        return self.normal.copy()

    def task(self, configuration: Configuration, cost: float = 10.0) -> FrameTask | PositionTask:
        """A task that holds the contact where it is in ``configuration``: a
        :class:`~taskik.FrameTask` (position and orientation, both with weight ``cost``) for a
        contact with an area, a :class:`~taskik.PositionTask` for a point contact (free to
        turn about its point). Put it at the top priority level, or weight it high."""
        if len(self.points) == 1:
            held = PositionTask(self.frame.name, cost=cost)
            held.set_target(configuration.get_transform_frame_to_world(self.frame.name).translation)
            return held
        task = FrameTask(self.frame.name, position_cost=cost, orientation_cost=cost)
        task.set_target_from_configuration(configuration)
        return task

    @classmethod
    def rectangle(
        cls,
        frame: str,
        length: float,
        width: float,
        center: npt.ArrayLike = (0.0, 0.0),
        friction: float = 0.7,
        held: bool = True,
    ) -> Contact:
        """A flat rectangular sole: ``length`` along the frame's x, ``width`` along its y
        (m), centred at ``center`` (x, y in the frame), in the frame's z = 0 plane, on a
        floor (normal +z in the world)."""
        length = check_scalar(length, "length", 0.0, MAX_COORDINATE, low_open=True)
        width = check_scalar(width, "width", 0.0, MAX_COORDINATE, low_open=True)
        cx, cy = check_finite_array(center, "center", (2,))
        if max(abs(cx), abs(cy)) > MAX_COORDINATE / 2:
            raise InvalidInput(f"center must be within {MAX_COORDINATE / 2:g} m, got {center!r}")
        hx, hy = 0.5 * length, 0.5 * width
        corners = [[cx + sx * hx, cy + sy * hy, 0.0] for sx, sy in _CCW]
        return cls(frame, corners, (0.0, 0.0, 1.0), friction, held)

    def __repr__(self) -> str:
        return (
            f"Contact({self.frame.name!r}, {len(self.points)} points, "
            f"normal={np.round(self.normal, 3).tolist()}, friction={self.friction})"
        )


_CCW = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def friction_generators(normal: np.ndarray, friction: float, edges: int) -> np.ndarray:
    """The ``edges`` generators ``u_k = n + μ (cos φ_k t₁ + sin φ_k t₂)`` of the friction
    pyramid inscribed in the cone of axis ``n`` (unit) and coefficient ``μ``, shape
    (edges, 3). :class:`InvalidInput` unless ``normal`` is a finite unit 3-vector (to 1e-6),
    ``friction`` in (0, ``MAX_FRICTION``] and ``edges`` an int in [3, ``MAX_EDGES``]."""
    normal = check_finite_array(normal, "friction_generators normal", (3,))
    # (a unit vector's largest entry is in [1/√3, 1]: the square below cannot overflow)
    if not 0.5 <= np.abs(normal).max() <= 1.0 + 1e-6 or abs(normal @ normal - 1.0) > 1e-6:
        raise InvalidInput(f"friction_generators normal must be a unit vector, got {normal}")
    friction = check_scalar(
        friction, "friction_generators friction", 0.0, MAX_FRICTION, low_open=True
    )
    edges = check_edges(edges)
    t1 = np.cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 else [0.0, 1.0, 0.0])
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(normal, t1)
    phi = 2.0 * math.pi * np.arange(edges) / edges
    return normal + friction * (np.outer(np.cos(phi), t1) + np.outer(np.sin(phi), t2))
