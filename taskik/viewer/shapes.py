"""What to draw for a robot: its meshes when the model has them, simple shapes otherwise.

Pure NumPy/Pinocchio (no viewer needed), so that the shapes can be tested on their own. Every
shape is attached to a joint of the model with a placement in that joint's frame: the viewer
moves one scene node per joint and the shapes follow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pinocchio as pin

from ..configuration import check_model
from ..exceptions import InvalidInput, check_positive_scalar

if TYPE_CHECKING:
    import trimesh

    from ..geometry import Obstacle
    from ..robots import Robot

#: Colour of the simple shapes of the bundled robots (an orange that the viewer test looks for).
LINK_COLOR = (235, 120, 20)
#: Colour of the spheres drawn at the joints.
JOINT_COLOR = (70, 70, 80)
#: Colour of the obstacles of a :class:`~taskik.limits.CollisionLimit`.
OBSTACLE_COLOR = (70, 130, 200)

_MIN_SEGMENT = 1e-4  # m: shorter offsets between joints get no capsule


@dataclass
class Shape:
    """One drawable item attached to joint ``joint`` (0 = world) at ``placement``.

    ``kind`` is ``"cylinder"`` (``radius``, ``length`` along the placement's z axis, centred),
    ``"sphere"`` (``radius``), ``"box"`` (``size``: full edge lengths) or ``"mesh"``
    (``vertices`` m×3 in the placement's frame, already scaled, and ``faces`` k×3).
    ``opacity``: None for opaque, else in [0, 1].
    """

    name: str
    kind: str
    joint: int
    placement: pin.SE3
    color: tuple[int, int, int] = LINK_COLOR
    radius: float = 0.0
    length: float = 0.0
    size: tuple[float, float, float] = (0.0, 0.0, 0.0)
    vertices: np.ndarray | None = field(default=None, repr=False)
    faces: np.ndarray | None = field(default=None, repr=False)
    opacity: float | None = None


def _segment_placement(a: np.ndarray, b: np.ndarray) -> pin.SE3:
    """Placement whose origin is the middle of [a, b] and whose z axis points from a to b."""
    axis = (b - a) / np.linalg.norm(b - a)
    rotation = pin.Quaternion.FromTwoVectors(np.array([0.0, 0.0, 1.0]), axis).matrix()
    return pin.SE3(rotation, 0.5 * (a + b))


def _segments(model: pin.Model) -> list[tuple[int, np.ndarray, str]]:
    """(joint, end point in the joint's frame, name of what it reaches) for every link."""
    segments: list[tuple[int, np.ndarray, str]] = []
    for child in range(1, model.njoints):
        end = np.array(model.jointPlacements[child].translation)
        segments.append((model.parents[child], end, model.names[child]))
    for frame in model.frames:
        if frame.type not in (pin.FrameType.OP_FRAME, pin.FrameType.BODY):
            continue
        end = np.array(frame.placement.translation)
        joint = frame.parentJoint
        if joint == 0:
            continue
        known = [e for j, e, _ in segments if j == joint]
        if all(np.linalg.norm(end - e) > _MIN_SEGMENT for e in known):
            segments.append((joint, end, frame.name))
    return [s for s in segments if np.linalg.norm(s[1]) > _MIN_SEGMENT]


def skeleton_shapes(model: pin.Model, radius: float | None = None) -> list[Shape]:
    """Capsules between consecutive joints (and out to the frames beyond the last joint).

    Each link from a joint to the next one (or to an end-effector frame) is a cylinder with a
    sphere at each end; ``radius`` defaults to 8 % of the longest link, so the drawing scales
    with the robot.
    """
    model = check_model(model, "skeleton_shapes")
    if radius is not None:
        radius = check_positive_scalar(radius, "skeleton_shapes radius")
    segments = _segments(model)
    if radius is None:
        longest = max((float(np.linalg.norm(end)) for _, end, _ in segments), default=0.5)
        radius = 0.08 * longest
    shapes: list[Shape] = []
    ends: set[tuple[int, tuple[float, ...]]] = set()
    for joint, end, name in segments:
        start = np.zeros(3)
        shapes.append(
            Shape(
                f"link_{model.names[joint]}_to_{name}",
                "cylinder",
                joint,
                _segment_placement(start, end),
                radius=radius,
                length=float(np.linalg.norm(end)),
            )
        )
        ends.add((joint, tuple(np.round(end, 6))))
    for joint in range(1, model.njoints):
        ends.add((joint, (0.0, 0.0, 0.0)))
    for joint, point in sorted(ends):
        shapes.append(
            Shape(
                f"sphere_{model.names[joint]}_{len(shapes)}",
                "sphere",
                joint,
                pin.SE3(np.eye(3), np.array(point)),
                color=JOINT_COLOR if point == (0.0, 0.0, 0.0) else LINK_COLOR,
                radius=1.15 * radius if point == (0.0, 0.0, 0.0) else radius,
            )
        )
    return shapes


def _rgb(color: np.ndarray) -> tuple[int, int, int]:
    rgb = np.clip(np.asarray(color[:3], dtype=float), 0.0, 1.0)
    if rgb.max() <= 0.0:  # no colour in the model: a neutral grey
        rgb = np.array([0.7, 0.7, 0.7])
    r, g, b = (int(round(255 * c)) for c in rgb)
    return r, g, b


def _mesh_arrays(geometry_object: pin.GeometryObject) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (scaled) and faces of a mesh geometry: from its file through trimesh when
    available, else from the collision library's copy that Pinocchio loaded."""
    scale = np.asarray(geometry_object.meshScale, dtype=float)
    try:
        import trimesh

        # force="mesh" makes load() return a Trimesh, which its annotation does not say
        mesh = cast("trimesh.Trimesh", trimesh.load(geometry_object.meshPath, force="mesh"))
        return np.asarray(mesh.vertices) * scale, np.asarray(mesh.faces)
    except Exception:  # noqa: BLE001 - any loader failure falls back to the BVH copy
        geometry = geometry_object.geometry
        vertices = np.asarray(geometry.vertices())
        faces = np.array(
            [[t[0], t[1], t[2]] for t in map(geometry.tri_indices, range(geometry.num_tris))]
        )
        return vertices, faces


def _size3(values: np.ndarray) -> tuple[float, float, float]:
    x, y, z = (float(v) for v in values)
    return x, y, z


def _primitive_shapes(
    geometry: Any, name: str, joint: int, placement: pin.SE3, color: tuple[int, int, int]
) -> list[Shape] | None:
    """The shapes of a coal box, sphere, cylinder or capsule (a capsule: a cylinder and two
    spheres) at ``placement`` on ``joint``; None for any other geometry."""
    kind = type(geometry).__name__
    if kind == "Box":
        size = _size3(2 * np.asarray(geometry.halfSide))
        return [Shape(name, "box", joint, placement, color, size=size)]
    if kind == "Sphere":
        return [Shape(name, "sphere", joint, placement, color, radius=float(geometry.radius))]
    if kind not in ("Cylinder", "Capsule"):
        return None
    radius, half = float(geometry.radius), float(geometry.halfLength)
    shapes = [Shape(name, "cylinder", joint, placement, color, radius=radius, length=2 * half)]
    if kind == "Capsule":
        for sign in (-1, 1):
            cap = placement * pin.SE3(np.eye(3), np.array([0.0, 0.0, sign * half]))
            shapes.append(Shape(f"{name}_cap{sign}", "sphere", joint, cap, color, radius=radius))
    return shapes


def geometry_shapes(
    geometry_model: pin.GeometryModel, progress: Callable[[int, int], None] | None = None
) -> list[Shape]:
    """The shapes of a Pinocchio visual model: meshes, boxes, cylinders, spheres, capsules.

    ``progress(done, total)`` is called after each geometry (mesh loading can take seconds).
    """
    _check_progress(progress)
    if not isinstance(geometry_model, pin.GeometryModel):
        raise InvalidInput(
            f"geometry_shapes needs a pinocchio.GeometryModel, got {type(geometry_model).__name__}"
        )
    shapes: list[Shape] = []
    objects = list(geometry_model.geometryObjects)
    for k, obj in enumerate(objects):
        joint, placement, color = int(obj.parentJoint), pin.SE3(obj.placement), _rgb(obj.meshColor)
        primitive = _primitive_shapes(obj.geometry, obj.name, joint, placement, color)
        if primitive is not None:
            shapes += primitive
        elif obj.meshPath:
            vertices, faces = _mesh_arrays(obj)
            shapes.append(
                Shape(obj.name, "mesh", joint, placement, color, vertices=vertices, faces=faces)
            )
        if progress is not None:
            progress(k + 1, len(objects))
    return shapes


def _check_progress(progress: object) -> None:
    if progress is not None and not callable(progress):
        raise InvalidInput(
            f"progress must be a callable progress(done, total) or None, got {progress!r}"
        )


def robot_shapes(robot: Robot, progress: Callable[[int, int], None] | None = None) -> list[Shape]:
    """Meshes of ``robot.visual_model`` when it has one, capsules between joints otherwise."""
    from ..robots import Robot

    if not isinstance(robot, Robot):
        raise InvalidInput(
            f"robot_shapes needs a taskik Robot (taskik.robots.load), got {type(robot).__name__}"
        )
    _check_progress(progress)
    if robot.visual_model is not None and len(robot.visual_model.geometryObjects) > 0:
        return geometry_shapes(robot.visual_model, progress)
    return skeleton_shapes(robot.model)


def obstacle_shapes(obstacle: Obstacle, extent: float = 4.0) -> tuple[pin.SE3, list[Shape]]:
    """What to draw for an obstacle: an anchor (a placement in the obstacle's frame, where
    its gizmo goes) and its shapes, placed in the anchor's frame (``joint`` 0).

    Spheres, boxes, cylinders and capsules are drawn as they are, a mesh as the convex hull
    the distances are computed on, any other coal geometry as its bounding box, and the
    half-space ``{x : n·x ≤ d}`` as a square plate ``extent`` m wide and ``extent / 100``
    thick whose top face is the plane; its anchor is the point ``d n`` on the plane, with z
    along ``n``. The anchor of every other kind is the identity.
    """
    from ..geometry import Obstacle

    if not isinstance(obstacle, Obstacle):
        raise InvalidInput(
            "obstacle_shapes needs a taskik.geometry.Obstacle (sphere, box, mesh, ...), got "
            f"{type(obstacle).__name__}"
        )
    extent = check_positive_scalar(extent, "obstacle_shapes extent")
    geometry, name = obstacle.geometry, obstacle.name
    identity = pin.SE3.Identity()
    primitive = _primitive_shapes(geometry, name, 0, identity, OBSTACLE_COLOR)
    if primitive is not None:
        return identity, primitive
    kind = type(geometry).__name__
    if kind == "Halfspace":
        normal = np.asarray(geometry.n, dtype=float)
        up = pin.Quaternion.FromTwoVectors(np.array([0.0, 0.0, 1.0]), normal).matrix()
        anchor = pin.SE3(up, float(geometry.d) * normal)
        thickness = extent / 100
        plate = pin.SE3(np.eye(3), np.array([0.0, 0.0, -thickness / 2]))
        size = (extent, extent, thickness)
        return anchor, [Shape(name, "box", 0, plate, OBSTACLE_COLOR, size=size, opacity=0.5)]
    if hasattr(geometry, "polygons"):  # a convex hull (the obstacles of geometry.mesh)
        vertices = np.asarray(geometry.points(), dtype=float)
        triangles = map(geometry.polygons, range(geometry.num_polygons))
        faces = np.array([[t[0], t[1], t[2]] for t in triangles], dtype=np.int64)
        mesh = Shape(name, "mesh", 0, identity, OBSTACLE_COLOR, vertices=vertices, faces=faces)
        return identity, [mesh]
    geometry.computeLocalAABB()
    box = geometry.aabb_local
    low, high = np.asarray(box.min_, dtype=float), np.asarray(box.max_, dtype=float)
    centre = pin.SE3(np.eye(3), 0.5 * (low + high))
    bounds = Shape(name, "box", 0, centre, OBSTACLE_COLOR, size=_size3(high - low), opacity=0.5)
    return identity, [bounds]
