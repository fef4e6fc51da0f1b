"""Scene nodes: a :class:`~taskik.viewer.shapes.Shape` as a viser primitive, and the
conversions between Pinocchio placements and viser's (``wxyz`` quaternion, position)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .shapes import Shape

if TYPE_CHECKING:
    import viser


def wxyz(rotation: np.ndarray) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)`` of a rotation matrix (viser's convention)."""
    x, y, z, w = pin.Quaternion(rotation).coeffs()
    return np.array([w, x, y, z])


def placement_of(position: np.ndarray, quaternion: np.ndarray) -> pin.SE3:
    """The placement of a viser node from its ``position`` (m) and ``wxyz`` quaternion
    (normalised here: a gizmo's quaternion drifts from unit length while dragged)."""
    w, x, y, z = (float(c) for c in quaternion)
    rotation = pin.Quaternion(w, x, y, z).normalized().matrix()
    return pin.SE3(rotation, np.array(position, dtype=float))


def node_name(text: str) -> str:
    """``text`` as one level of a scene path (viser reads ``/`` as a child node)."""
    return re.sub(r"[^\w.-]+", "_", text.replace(" / ", "--"))


def add_shape(scene: viser.SceneApi, name: str, shape: Shape) -> viser.SceneNodeHandle:
    """Add ``shape`` to ``scene`` as node ``name``, at ``shape.placement`` in its parent."""
    position = np.array(shape.placement.translation)
    rotation = wxyz(shape.placement.rotation)
    look: dict[str, Any] = {
        "color": shape.color,
        "opacity": shape.opacity,
        "position": position,
        "wxyz": rotation,
    }
    if shape.kind == "cylinder":
        return scene.add_cylinder(name, radius=shape.radius, height=shape.length, **look)
    if shape.kind == "sphere":
        return scene.add_icosphere(name, radius=shape.radius, **look)
    if shape.kind == "box":
        return scene.add_box(name, dimensions=shape.size, **look)
    assert shape.vertices is not None and shape.faces is not None, "mesh arrays"
    return scene.add_mesh_simple(name, shape.vertices, shape.faces, **look)
