"""Stances: the contacts of the common humanoid postures, read from the robot's geometry."""

from __future__ import annotations

from typing import TYPE_CHECKING

import coal
import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from .contact import Contact
from .hull import convex_hull_2d

if TYPE_CHECKING:
    from ..robots import Robot

#: Sole used when the robot's collision geometry gives none (m): length, width.
DEFAULT_SOLE = (0.2, 0.1)

#: Points within this height (m) of a foot's lowest point make its sole.
SOLE_THICKNESS = 0.003


def _geometry_points(geometry: object, placement: pin.SE3) -> np.ndarray:
    """Points (world) whose lowest ones approximate where a collision shape touches a floor
    below it: mesh vertices, the bottom of spheres and capsules, box corners."""
    down = np.array([0.0, 0.0, -1.0])
    R, p = placement.rotation, placement.translation
    if isinstance(geometry, coal.Sphere):
        return (p + geometry.radius * down).reshape(1, 3)
    if isinstance(geometry, coal.Capsule):
        ends = [p + R @ (0.0, 0.0, s * geometry.halfLength) for s in (-1.0, 1.0)]
        return np.array([e + geometry.radius * down for e in ends])
    if isinstance(geometry, coal.Box):
        h = 0.5 * np.asarray(geometry.halfSide) * 2.0
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        return (signs * h) @ R.T + p
    if isinstance(geometry, coal.BVHModelBase) and geometry.num_vertices:
        V = np.array(geometry.vertices(), dtype=float).reshape(-1, 3)
        return V @ R.T + p
    return np.zeros((0, 3))


def _check_robot(robot: object, configuration: object, who: str) -> Configuration:
    """``configuration`` checked to be a Configuration of ``robot`` (a taskik Robot)."""
    from ..robots import Robot

    if not isinstance(robot, Robot):
        raise InvalidInput(
            f"{who} needs a taskik Robot (taskik.robots.load or load_urdf), got "
            f"{type(robot).__name__}"
        )
    conf = check_configuration(configuration, who)
    own, model = robot.model, conf.model
    if model is not own and (
        model.nq != own.nq or model.nv != own.nv or list(model.names) != list(own.names)
    ):
        raise InvalidInput(
            f"{who}: the configuration is of model {model.name!r}, not of the robot's model "
            f"{own.name!r}"
        )
    return conf


def sole(robot: Robot, configuration: Configuration, frame: str, friction: float = 0.7) -> Contact:
    """The flat contact of a foot standing on a horizontal floor at ``configuration``.

    Its points are the corners of the convex hull of the foot's collision geometry within
    ``SOLE_THICKNESS`` (3 mm) of its lowest point (the geometry attached to the frame's parent
    joint); the normal is the world's up. Without such geometry (or with a sole of less
    than 1 cm²), a ``DEFAULT_SOLE`` (0.2 m × 0.1 m) rectangle centred under the frame. The
    points are given in the frame, so the contact follows the foot.
    """
    configuration = _check_robot(robot, configuration, "sole")
    model = configuration.model
    if not isinstance(frame, str):
        raise InvalidInput(f"sole: a frame name must be a string, got {type(frame).__name__}")
    if not model.existFrame(frame):
        raise InvalidInput(f"sole: the model has no frame {frame!r}")
    M = configuration.get_transform_frame_to_world(frame)
    joint = model.frames[model.getFrameId(frame)].parentJoint
    world = np.zeros((0, 3))
    geometry = robot.collision_model
    if geometry is not None:
        data = configuration.data
        parts = [
            _geometry_points(g.geometry, data.oMi[g.parentJoint] * g.placement)
            for g in geometry.geometryObjects
            if g.parentJoint == joint
        ]
        if parts:
            world = np.vstack(parts)
    points: np.ndarray | None = None
    if len(world):
        low = world[world[:, 2] <= world[:, 2].min() + SOLE_THICKNESS]
        hull = convex_hull_2d(low[:, :2])
        if len(hull) >= 3:
            x, y = hull[:, 0], hull[:, 1]
            area = 0.5 * abs(float(x @ np.roll(y, -1) - y @ np.roll(x, -1)))
            if area >= 1e-4:
                z = float(low[:, 2].mean())
                points = np.column_stack([hull, np.full(len(hull), z)])
    if points is None:
        length, width = DEFAULT_SOLE
        # the rectangle in the world's horizontal plane through the frame, along its heading
        heading = M.rotation[:, 0].copy()
        heading[2] = 0.0
        if np.linalg.norm(heading) < 1e-6:
            heading = M.rotation[:, 2].copy()
            heading[2] = 0.0
        heading = heading / max(float(np.linalg.norm(heading)), 1e-12)
        side = np.array([-heading[1], heading[0], 0.0])
        corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
        points = np.array(
            [
                M.translation + a * 0.5 * length * heading + b * 0.5 * width * side
                for a, b in corners
            ]
        )
    local = (points - M.translation) @ M.rotation
    return Contact(frame, local, (0.0, 0.0, 1.0), friction)


def _feet(robot: Robot, configuration: Configuration, who: str) -> tuple[str, str]:
    _check_robot(robot, configuration, who)
    effectors = robot.end_effectors
    if len(effectors) < 2:
        raise InvalidInput(
            f"robot {robot.name!r} names no feet (its end_effectors are {effectors!r}): "
            "build the contacts with taskik.contacts.sole(robot, configuration, frame)"
        )
    return effectors[0], effectors[1]


def both_feet(robot: Robot, configuration: Configuration, friction: float = 0.7) -> list[Contact]:
    """Double support: both soles flat (the robot's first two end effectors are its feet)."""
    return [
        sole(robot, configuration, f, friction) for f in _feet(robot, configuration, "both_feet")
    ]


def one_foot(
    robot: Robot, configuration: Configuration, side: str = "left", friction: float = 0.7
) -> list[Contact]:
    """Single support on the ``"left"`` or ``"right"`` foot."""
    if not isinstance(side, str) or side not in ("left", "right"):
        raise InvalidInput(f"side must be 'left' or 'right', got {side!r}")
    left, right = _feet(robot, configuration, "one_foot")
    return [sole(robot, configuration, left if side == "left" else right, friction)]


def feet_and_hand(
    robot: Robot,
    configuration: Configuration,
    hand: str,
    normal: npt.ArrayLike,
    friction: float = 0.7,
    hand_friction: float = 0.5,
) -> list[Contact]:
    """Both soles flat and a hand touching a surface at the hand frame's origin.

    Args:
        hand: the hand's frame.
        normal: the surface's normal in the world, pointing toward the robot (e.g.
            ``(0, 0, 1)`` for a table top, ``(-1, 0, 0)`` for a wall in front).
        hand_friction: μ of the hand on that surface.
    """
    configuration = _check_robot(robot, configuration, "feet_and_hand")
    if not isinstance(hand, str):
        raise InvalidInput(f"feet_and_hand: the hand frame must be a name, got {hand!r}")
    if not configuration.model.existFrame(hand):
        raise InvalidInput(f"feet_and_hand: the model has no frame {hand!r}")
    palm = Contact(hand, [0.0, 0.0, 0.0], normal, hand_friction)  # (checks the normal)
    return [*both_feet(robot, configuration, friction), palm]
