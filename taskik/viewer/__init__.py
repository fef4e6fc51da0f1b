"""Browser viewer: ``taskik view <robot>`` (or :func:`view`) serves a page showing the robot,
a draggable gizmo on every task target, and the IK following live.

Needs the ``viewer`` extra (``pip install -e '.[viewer]'`` from a clone, which installs viser;
or ``pip install viser``).

Why viser and not Pinocchio's meshcat visualiser (measured 2026-11 on this project's
2-core machine, Python 3.11):

- **Draggable targets.** viser has transform-control gizmos whose moves come back to Python
  as callbacks (``add_transform_controls(...).on_update``). meshcat-python only sends scene
  commands to the browser; nothing the user does in the page reaches Python, so draggable
  targets would need our own JavaScript and a second channel.
- **Maintenance.** viser: release 1.1.1, several releases a year. meshcat-python: last
  release 0.3.2 in November 2021.
- **Install.** Into a fresh venv, from the same package mirror: viser 7.1 s, 21 packages
  (180 MB); meshcat 7.5 s, 27 packages (207 MB, with its ZeroMQ server). A tie.
- **One server.** viser is one process serving the page and a websocket; meshcat starts a
  separate ZeroMQ-to-websocket server process.

What is drawn: the meshes of ``robot.visual_model`` when the robot has one (example-robot-data
robots: Talos, G1, ...), else capsules between the joints (the bundled robots), see
:mod:`taskik.viewer.shapes`; with a :class:`~taskik.limits.CollisionLimit` among the
viewer's limits, its obstacles under draggable gizmos and the closest-point segments of the
pairs within its detection distance, see ``taskik.viewer.collisions``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .app import Viewer, default_frames
from .collisions import CollisionDrawing, NearPair
from .shapes import Shape, geometry_shapes, obstacle_shapes, robot_shapes, skeleton_shapes


def view(
    robot: str,
    frames: Sequence[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 8080,
    dt: float = 0.02,
) -> None:
    """Serve the viewer for robot ``robot`` (a name for :func:`taskik.robots.load`) until
    Ctrl-C. Returns nothing; use :class:`Viewer` to keep control from Python."""
    from .. import robots

    viewer = Viewer(robots.load(robot), frames=frames, host=host, port=port, dt=dt)
    print(f"taskik viewer: {viewer.url}  (Ctrl-C to stop)", flush=True)
    viewer.serve_forever()


__all__ = [
    "CollisionDrawing",
    "NearPair",
    "Shape",
    "Viewer",
    "default_frames",
    "geometry_shapes",
    "obstacle_shapes",
    "robot_shapes",
    "skeleton_shapes",
    "view",
]
