"""What the viewer draws for the :class:`~taskik.limits.CollisionLimit` objects among its
limits: every obstacle under a draggable gizmo, and the closest-point segment of every pair
within the detection distance (red when its row binds the step, grey otherwise).

Scene paths: ``/obstacles/<obstacle>`` is the gizmo of an obstacle (at
``obstacle.pose * anchor``, see :func:`~taskik.viewer.shapes.obstacle_shapes`), with the
shapes below it; ``/collision_pairs/<geometry_a>--<geometry_b>`` the segment of a pair.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import UnknownName
from ..geometry import Obstacle
from ..geometry.shapes import shape_values
from ..limits import CollisionLimit, Limit
from .nodes import add_shape, node_name, placement_of, wxyz
from .shapes import obstacle_shapes

if TYPE_CHECKING:
    import viser

#: Colour of the segment of a pair whose row binds the step.
ACTIVE_COLOR = (220, 30, 30)
#: Colour of the segment of a pair within the detection distance whose row does not bind.
NEAR_COLOR = (140, 140, 140)


def _shape(obstacle: Obstacle) -> tuple[object, ...]:
    """What the viewer compares to see an obstacle's shape changed: its kind and sizes."""
    return (
        type(obstacle.geometry).__name__,
        id(obstacle.geometry),
        *shape_values(obstacle.geometry),
    )


@dataclass(frozen=True)
class NearPair:
    """A pair within the detection distance: its closest points ``segment`` (2 × 3, m, world
    frame), its signed distance (m), and whether its row bound the last step."""

    name: str
    segment: np.ndarray
    distance: float
    active: bool


def active_pairs(
    limits: Sequence[CollisionLimit], configuration: Configuration, v: np.ndarray, dt: float
) -> set[str]:
    """Names of the pairs whose rows bind the step ``v`` solved at ``configuration``."""
    active: set[str] = set()
    for limit in limits:
        report = limit.report(configuration, v, dt)
        active.update(n for n, on in zip(report.names, report.active, strict=True) if on)
    return active


def near_pairs(
    limits: Sequence[CollisionLimit], configuration: Configuration, active: Collection[str] = ()
) -> list[NearPair]:
    """The pairs of every limit within its detection distance at ``configuration``; those
    named in ``active`` (see :func:`active_pairs`) flagged active.

    The viewer solves a step at ``q``, takes its active pairs there, integrates, and draws
    the segments at the new configuration (where the robot is drawn) with those flags.
    """
    pairs: list[NearPair] = []
    for limit in limits:
        report = limit.report(configuration)
        for name, segment, distance in zip(
            report.names, report.segments, report.distances, strict=True
        ):
            pairs.append(NearPair(name, segment, float(distance), name in active))
    return pairs


class CollisionDrawing:
    """The obstacles and the near pairs of ``limits`` (the collision limits are picked out)
    in ``server``'s scene.

    Args:
        server: the viser server.
        limits: the viewer's limits; only the :class:`CollisionLimit` objects are drawn.
        lock: taken around ``obstacle.move_to`` when a gizmo is dragged (the IK step reads
            the obstacles' poses under the same lock).
        size: size of the robot (m): half-space plates are ``4 size`` wide (as the grid),
            gizmos between ``0.15 size`` and ``0.3 size`` (twice the obstacle's radius).
    """

    def __init__(
        self,
        server: viser.ViserServer,
        limits: Sequence[Limit],
        lock: threading.Lock,
        size: float,
    ) -> None:
        self.server = server
        self.limits = [limit for limit in limits if isinstance(limit, CollisionLimit)]
        self.lock = lock
        self.size = float(size)
        #: per obstacle (by scene name): its gizmo, and the nodes of its shapes below it
        self.gizmos: dict[str, viser.TransformControlsHandle] = {}
        self.shapes: dict[str, list[viser.SceneNodeHandle]] = {}
        # per obstacle: the obstacle, its anchor, and the pose and shape drawn (by value: a
        # pose or shape changed in place is redrawn)
        self._drawn: dict[str, tuple[Obstacle, pin.SE3, np.ndarray, tuple[object, ...]]] = {}
        #: the segment of each near pair (by scene name)
        self.segments: dict[str, viser.LineSegmentsHandle] = {}

    # ------------------------------------------------------------------ obstacles
    def obstacles(self) -> dict[str, Obstacle]:
        """Every obstacle of the limits by scene name (an obstacle shared by two limits once)."""
        found: dict[str, Obstacle] = {}
        for limit in self.limits:
            for obstacle in limit.obstacles:
                if any(o is obstacle for o in found.values()):
                    continue
                name, k = node_name(obstacle.name), 2
                while name in found:
                    name, k = f"{node_name(obstacle.name)}_{k}", k + 1
                found[name] = obstacle
        return found

    def move_obstacle(self, name: str, pose: pin.SE3) -> None:
        """Place the obstacle called ``name`` at ``pose`` (what dragging its gizmo does)."""
        for obstacle in self.obstacles().values():
            if obstacle.name == name:
                with self.lock:
                    obstacle.move_to(pose)
                self.sync_obstacles()
                return
        names = [o.name for o in self.obstacles().values()]
        raise UnknownName("obstacle", name, names)

    def _on_drag(self, key: str) -> Callable[[viser.TransformControlsEvent], None]:
        def on_drag(event: viser.TransformControlsEvent) -> None:
            gizmo = placement_of(event.target.position, event.target.wxyz)
            with self.lock:
                drawn = self._drawn.get(key)
                if drawn is None:  # a late update of a gizmo removed with its obstacle
                    return
                obstacle, anchor, _, shape = drawn
                obstacle.move_to(gizmo * anchor.inverse())
                self._drawn[key] = (obstacle, anchor, obstacle.pose.homogeneous.copy(), shape)

        return on_drag

    def _add(self, key: str, obstacle: Obstacle) -> None:
        anchor, shapes = obstacle_shapes(obstacle, 4 * self.size)
        geometry = obstacle.geometry
        geometry.computeLocalAABB()
        flat = type(geometry).__name__ == "Halfspace"
        radius = np.inf if flat else float(geometry.aabb_radius)
        pose = obstacle.pose * anchor
        gizmo = self.server.scene.add_transform_controls(
            f"/obstacles/{key}",
            scale=min(max(2 * radius, 0.15 * self.size), 0.3 * self.size),
            position=np.array(pose.translation),
            wxyz=wxyz(pose.rotation),
        )
        self.shapes[key] = [
            add_shape(self.server.scene, f"/obstacles/{key}/{k:02d}_{node_name(shape.name)}", shape)
            for k, shape in enumerate(shapes)
        ]
        gizmo.on_update(self._on_drag(key))
        self.gizmos[key] = gizmo
        self._drawn[key] = (obstacle, anchor, obstacle.pose.homogeneous.copy(), _shape(obstacle))

    def sync_obstacles(self) -> None:
        """Draw the obstacles added to the limits since the last call, move the gizmos of
        those moved by code, and remove those no longer in any limit."""
        with self.lock:
            current = self.obstacles()
            gone = [
                k
                for k, (drawn, *_, shape) in self._drawn.items()
                if current.get(k) is not drawn or _shape(drawn) != shape
            ]
            for key in gone:  # removed, or given another shape: drawn again below
                self.gizmos.pop(key).remove()  # and the shapes below it
                del self._drawn[key], self.shapes[key]
            for key, obstacle in current.items():
                if key not in self._drawn:
                    self._add(key, obstacle)
                    continue
                _, anchor, placed, shape = self._drawn[key]
                if not np.array_equal(placed, obstacle.pose.homogeneous):
                    pose = obstacle.pose * anchor
                    self.gizmos[key].position = np.array(pose.translation)
                    self.gizmos[key].wxyz = wxyz(pose.rotation)
                    self._drawn[key] = (obstacle, anchor, obstacle.pose.homogeneous.copy(), shape)

    # ------------------------------------------------------------------ segments
    def draw_pairs(self, pairs: Sequence[NearPair]) -> None:
        """One segment per pair of ``pairs``; the segments of the pairs not in it go."""
        wanted: dict[str, NearPair] = {node_name(p.name): p for p in pairs}
        for key in [k for k in self.segments if k not in wanted]:
            self.segments.pop(key).remove()
        for key, pair in wanted.items():
            points = np.asarray(pair.segment, dtype=np.float32).reshape(1, 2, 3)
            color = ACTIVE_COLOR if pair.active else NEAR_COLOR
            colors = np.tile(np.array(color, dtype=np.uint8), (1, 2, 1))
            handle = self.segments.get(key)
            if handle is None:
                self.segments[key] = self.server.scene.add_line_segments(
                    f"/collision_pairs/{key}",
                    points,
                    colors,
                    thickness=4.0,
                    thickness_units="screen",
                )
            else:
                handle.points = points
                handle.colors = colors
