"""The live viewer: a viser server showing a robot, a draggable gizmo per task target, and
the IK following in a background loop (see :mod:`taskik.viewer` for why viser)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

from ..exceptions import InvalidInput, TaskikError, UnknownName
from ..limits import Limit
from ..robots import Robot
from ..solve import solve_ik
from ..tasks import FrameTask, PostureTask
from ..tasks._frames import require_target
from .collisions import CollisionDrawing, NearPair, active_pairs, near_pairs
from .nodes import add_shape, placement_of, wxyz
from .shapes import Shape, robot_shapes

if TYPE_CHECKING:
    import viser


def default_frames(robot: Robot) -> tuple[str, ...]:
    """The frames that get a draggable target: the robot's end effectors
    (``taskik.robots.END_EFFECTORS`` for example-robot-data robots), else the last body
    frame of every leaf joint."""
    if robot.end_effectors:
        return tuple(robot.end_effectors)
    model = robot.model
    leaves = set(range(1, model.njoints)) - set(model.parents)
    frames: list[str] = []
    for joint in sorted(leaves):
        names = [
            f.name
            for f in model.frames
            if f.parentJoint == joint and f.type in (pin.FrameType.BODY, pin.FrameType.OP_FRAME)
        ]
        if names:
            frames.append(names[-1])
    return tuple(frames)


def _robot_extent(model: pin.Model, q: np.ndarray) -> tuple[np.ndarray, float]:
    """Centre and size (m) of the box around the joints and frames at ``q``."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    points = np.array([p.translation for p in (*data.oMi, *data.oMf)])
    lo, hi = points.min(axis=0), points.max(axis=0)
    return 0.5 * (lo + hi), max(float((hi - lo).max()), 0.3)


class Viewer:
    """A robot in a browser page, a draggable target per frame, and the IK following live.

    Every ``dt`` seconds a background thread makes one :func:`taskik.solve_ik` step (the
    model's position and velocity limits apply), integrates it, and moves the drawing. Each
    frame of ``frames`` gets a :class:`~taskik.FrameTask` whose target is a transform gizmo:
    drag or rotate it and the robot follows. A low-cost :class:`~taskik.PostureTask` keeps the
    other joints near ``robot.q0``.

    With a :class:`~taskik.limits.CollisionLimit` among ``limits``, each of its obstacles is
    drawn under a gizmo of its own (drag it and the obstacle moves; the robot gets out of its
    way), and every pair within the detection distance gets the segment between its closest
    points: red when its row bound the last step, grey otherwise (see
    ``taskik.viewer.collisions``).

    Args:
        robot: a :class:`taskik.robots.Robot` (see :func:`taskik.robots.load`).
        frames: frames that get a target; default :func:`default_frames`.
        host: address to serve the page on.
        port: port to serve on (``0``: a free port).
        dt: control period of the IK loop, s.
        position_cost: position cost of the frame tasks.
        orientation_cost: orientation cost of the frame tasks.
        posture_cost: cost of the posture task.
        progress: called as ``progress(done, total, what)`` while meshes load.
        limits: the limits of the step; None for the model's position and velocity limits
            (as :func:`taskik.solve_ik`). Add ``*taskik.limits.default_limits(robot.model)``
            to a list to keep those.
    """

    def __init__(
        self,
        robot: Robot,
        frames: Sequence[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 8080,
        dt: float = 0.02,
        position_cost: float = 1.0,
        orientation_cost: float = 0.5,
        posture_cost: float = 1e-2,
        progress: Callable[[int, int, str], None] | None = None,
        limits: Sequence[Limit] | None = None,
    ) -> None:
        try:
            import viser
        except ImportError as exc:
            raise ImportError(
                "the viewer needs viser: pip install viser (or, from a clone, "
                "pip install -e '.[viewer]')"
            ) from exc
        if not dt > 0:
            raise InvalidInput(f"dt must be positive, got {dt}")
        self.robot = robot
        self.dt = float(dt)
        self.configuration = robot.configuration()
        names = tuple(frames) if frames else default_frames(robot)
        if not names:
            raise InvalidInput(f"robot {robot.name!r} has no frame to put a target on")
        all_frames = [f.name for f in robot.model.frames]
        for name in names:
            if not robot.model.existFrame(name):
                raise UnknownName("frame", name, all_frames)
        self.frame_tasks = [
            FrameTask(name, position_cost=position_cost, orientation_cost=orientation_cost)
            for name in names
        ]
        for task in self.frame_tasks:
            task.set_target_from_configuration(self.configuration)
        self.posture = PostureTask(cost=posture_cost)
        self.posture.set_target(robot.q0)
        self.tasks = [*self.frame_tasks, self.posture]
        self.limits = None if limits is None else list(limits)
        #: The pairs within the detection distance drawn last (see :meth:`step`).
        self.near: list[NearPair] = []
        self.status = ""
        self.steps = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        say = progress or (lambda done, total, what: None)

        self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self.host, self.port = host, self.server.get_port()
        centre, self._size = _robot_extent(robot.model, robot.q0)
        self.server.initial_camera.look_at = centre
        self.server.initial_camera.position = centre + self._size * np.array([1.1, 1.1, 0.6])
        self.server.initial_camera.up = (0.0, 0.0, 1.0)
        self._build_scene(robot_shapes(robot, progress=lambda k, n: say(k, n, "meshes")))
        self._build_gizmos()
        self.collisions = CollisionDrawing(self.server, self.limits or [], self._lock, self._size)
        self.near = near_pairs(self.collisions.limits, self.configuration)
        self._build_gui()
        self._draw()

    # -- scene ---------------------------------------------------------------------------
    def _joint_node(self, joint: int) -> str:
        return f"/robot/{joint:03d}_{self.robot.model.names[joint]}"

    def _build_scene(self, shapes: list[Shape]) -> None:
        scene = self.server.scene
        scene.set_up_direction("+z")
        scene.add_grid("/grid", width=4 * self._size, height=4 * self._size, cell_size=0.1)
        self._joint_nodes: dict[int, viser.FrameHandle] = {}
        for joint in range(self.robot.model.njoints):
            self._joint_nodes[joint] = scene.add_frame(self._joint_node(joint), show_axes=False)
        for k, shape in enumerate(shapes):
            add_shape(scene, f"{self._joint_node(shape.joint)}/{k:03d}_{shape.name}", shape)
        self.shapes = shapes

    def _build_gizmos(self) -> None:
        self.gizmos: list[viser.TransformControlsHandle] = []
        for task in self.frame_tasks:
            target = require_target(task.target, task)
            gizmo = self.server.scene.add_transform_controls(
                f"/targets/{task.frame.name}",
                scale=0.25 * self._size,
                position=np.array(target.translation),
                wxyz=wxyz(target.rotation),
            )
            gizmo.on_update(self._make_drag_callback(task))
            self.gizmos.append(gizmo)

    def _make_drag_callback(
        self, task: FrameTask
    ) -> Callable[[viser.TransformControlsEvent], None]:
        def on_drag(event: viser.TransformControlsEvent) -> None:
            self.set_target(task.frame.name, placement_of(event.target.position, event.target.wxyz))

        return on_drag

    def _build_gui(self) -> None:
        gui = self.server.gui
        self._follow = gui.add_checkbox("Follow targets", initial_value=True)
        reset = gui.add_button("Reset posture and targets")
        reset.on_click(lambda _: self.reset())
        self._errors = gui.add_markdown("")

    def _draw(self) -> None:
        data = self.configuration.data
        with self.server.atomic():
            for joint, node in self._joint_nodes.items():
                placement = data.oMi[joint]
                node.position = np.array(placement.translation)
                node.wxyz = wxyz(placement.rotation)
            self.collisions.sync_obstacles()
            self.collisions.draw_pairs(self.near)

    # -- control -------------------------------------------------------------------------
    def set_target(self, frame: str, target: pin.SE3) -> None:
        """Move the target of ``frame``'s task (what dragging its gizmo does)."""
        with self._lock:
            for task in self.frame_tasks:
                if task.frame.name == frame:
                    task.set_target(target)
                    return
        raise UnknownName("frame", frame, [t.frame.name for t in self.frame_tasks])

    def move_obstacle(self, name: str, pose: pin.SE3) -> None:
        """Place the obstacle called ``name`` at ``pose`` (what dragging its gizmo does)."""
        self.collisions.move_obstacle(name, pose)

    def reset(self) -> None:
        """Back to ``robot.q0`` with every target on its frame."""
        with self._lock:
            self.configuration.update(self.robot.q0.copy())
            for task, gizmo in zip(self.frame_tasks, self.gizmos, strict=True):
                task.set_target_from_configuration(self.configuration)
                target = require_target(task.target, task)
                gizmo.position = np.array(target.translation)
                gizmo.wxyz = wxyz(target.rotation)
            self.near = near_pairs(self.collisions.limits, self.configuration)
        self._draw()

    def step(self) -> np.ndarray:
        """One IK step: solve, integrate, redraw. Returns the joint velocity.

        The near pairs (``viewer.near``) are those at the new configuration, flagged active
        when their row bound the step at the configuration it was solved at."""
        collision_limits = self.collisions.limits
        with self._lock:
            try:
                v = solve_ik(self.configuration, self.tasks, self.dt, self.limits)
            except TaskikError as exc:  # shown in the page, the loop goes on
                self.status = f"no step: {exc}"
                self.near = near_pairs(collision_limits, self.configuration)
                return np.zeros(self.robot.model.nv)
            active = active_pairs(collision_limits, self.configuration, v, self.dt)
            self.configuration.integrate_inplace(v, self.dt)
            self.near = near_pairs(collision_limits, self.configuration, active)
            self.steps += 1
            errors = [
                float(np.linalg.norm(t.compute_error(self.configuration))) for t in self.frame_tasks
            ]
        self.status = "  \n".join(
            f"`{t.frame.name}`: {e:.1e}" for t, e in zip(self.frame_tasks, errors, strict=True)
        )
        self._draw()
        return v

    def refresh(self) -> None:
        """Redraw the obstacles and the near pairs at the current configuration (no step)."""
        with self._lock:
            self.near = near_pairs(self.collisions.limits, self.configuration)
        self._draw()

    def _loop(self) -> None:
        next_time = time.perf_counter()
        while not self._stop.is_set():
            if self._follow.value:
                self.step()
            elif self.collisions.limits:  # obstacles may be dragged while the robot waits
                self.refresh()
            if self.steps % 10 == 0:
                self._errors.content = f"**pose error ‖e‖ (m, rad)**  \n{self.status}"
            next_time += self.dt
            self._stop.wait(max(0.0, next_time - time.perf_counter()))

    @property
    def url(self) -> str:
        """Address of the page."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> str:
        """Start the IK loop in a background thread; returns the page's address."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="taskik-viewer", daemon=True)
            self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop the IK loop and the server."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self.server.stop()

    def serve_forever(self) -> None:
        """Start, then block until Ctrl-C."""
        self.start()
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()
