"""Retarget a keypoint clip onto a robot, frame by frame.

Per frame ``i`` (targets ``p*_j = s · k_j(i)`` for each mapped keypoint ``k_j``, scale ``s``):
warm-started from frame ``i − 1``'s configuration, ``steps`` QP steps (:func:`taskik.solve_ik`)
of duration ``δ = 1 / (fps · steps)`` each, with

- one task per mapping entry: a :class:`~taskik.PositionTask` on the point ``offset`` of its
  frame, or a :class:`~taskik.FrameTask` with target ``(R_k R_o, p* − R_k R_o · offset)`` when
  it tracks an orientation;
- a :class:`~taskik.PostureTask` toward the robot's rest configuration ``q0`` (the
  regularisation, weight ``posture_cost``);
- the joint position limits (:class:`~taskik.limits.ConfigurationLimit`) and velocity limits
  ``|v| ≤ v_max`` (:class:`~taskik.limits.VelocityLimit`): each step moves a joint by at most
  ``v_max δ``, so a frame moves it by at most ``v_max / fps``, the limit at the clip's rate.

A keypoint whose contact flag is set on a frame (a foot on the ground) has its target height
replaced by its (scaled) height in the clip's rest frame, the height it has when standing on
the ground, and its vertical weight multiplied by ``contact_cost``.

The first frame has no predecessor: it is solved from ``q0`` with ``first_steps`` steps of
1 s and position limits only (no velocity limit: there is no previous frame to respect).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pinocchio as pin

from .. import robots
from ..configuration import Configuration, base_velocity_count, q_shape_message
from ..exceptions import (
    InvalidInput,
    NoSolutionFound,
    NotWithinConfigurationLimits,
    UnknownName,
    check_finite_array,
)
from ..limits import ConfigurationLimit, VelocityLimit
from ..limits.limit import Limit
from ..robots import Robot
from ..solve import solve_ik
from ..tasks import FrameTask, PositionTask, PostureTask
from ..tasks.task import Task
from ..validation import check_limits
from .clip import Clip, load_clip
from .mapping import KeypointTask, RetargetMapping, estimate_scale, load_mapping
from .result import RetargetResult

#: QP steps per frame, chosen by measurement (``benchmarks/retarget.py``, docs/retargeting.md).
DEFAULT_STEPS = 2

#: Steps of the first frame, which starts from the robot's rest configuration.
FIRST_FRAME_STEPS = 50


def _point(conf: Configuration, fid: int, offset: np.ndarray | None) -> np.ndarray:
    T = conf.data.oMf[fid]
    return np.array(T.translation if offset is None else T.act(offset))


class _Problem:
    """The tasks of one retargeting and their per-frame targets (all frames precomputed)."""

    def __init__(self, robot: Robot, clip: Clip, mapping: RetargetMapping) -> None:
        model = robot.model
        conf = robot.configuration()
        frame_names = [f.name for f in model.frames]
        self.entries: tuple[KeypointTask, ...] = mapping.tasks
        self.fids: list[int] = []
        for entry in self.entries:
            if not model.existFrame(entry.frame):
                err = UnknownName("frame", entry.frame, frame_names)
                err.args = (
                    f"mapping (keypoint {entry.keypoint!r}) for robot {robot.name!r}: {err}",
                )
                raise err
            self.fids.append(model.getFrameId(entry.frame))
        columns = [clip.index(e.keypoint) for e in self.entries]
        for entry in self.entries:
            if entry.orientation_cost > 0 and entry.keypoint not in clip.orientations:
                raise InvalidInput(
                    f"mapping asks for the orientation of keypoint {entry.keypoint!r} "
                    f"(orientation_cost {entry.orientation_cost:g}); clip {clip.source} "
                    "has none for it: set its orientation_cost to 0"
                )
        if mapping.rest_frame >= clip.n_frames:
            raise InvalidInput(
                f"mapping rest_frame {mapping.rest_frame}: clip {clip.source} has "
                f"{clip.n_frames} frames"
            )
        self.offsets = [None if e.offset is None else np.array(e.offset) for e in self.entries]
        rest_points = np.array(
            [_point(conf, f, o) for f, o in zip(self.fids, self.offsets, strict=True)]
        )
        keypoints = clip.positions[:, columns]  # (N, E, 3)
        self.scale = mapping.scale or estimate_scale(keypoints[mapping.rest_frame], rest_points)
        self.targets = self.scale * keypoints
        n, e = self.targets.shape[:2]
        self.contact = np.zeros((n, e), dtype=bool)
        for j, entry in enumerate(self.entries):
            if entry.keypoint in clip.contacts:
                self.contact[:, j] = clip.contacts[entry.keypoint]
                # on the ground: at the (scaled) height the keypoint has in the rest frame
                rest_height = self.targets[mapping.rest_frame, j, 2]
                self.targets[self.contact[:, j], j, 2] = rest_height
        self.rotations: list[np.ndarray | None] = []
        self.tasks: list[Task] = []
        for j, entry in enumerate(self.entries):
            if entry.orientation_cost > 0:
                quats = clip.orientations[entry.keypoint]
                R_k = np.array([pin.Quaternion(q).toRotationMatrix() for q in quats])
                if entry.rotation_offset is None:
                    R_o = R_k[mapping.rest_frame].T @ conf.data.oMf[self.fids[j]].rotation
                else:
                    R_o = pin.Quaternion(np.array(entry.rotation_offset)).toRotationMatrix()
                self.rotations.append(R_k @ R_o)
                self.tasks.append(
                    FrameTask(entry.frame, entry.position_cost, entry.orientation_cost)
                )
            else:
                self.rotations.append(None)
                self.tasks.append(PositionTask(entry.frame, entry.position_cost, entry.offset))
        self.contact_cost = mapping.contact_cost
        self._in_contact = np.zeros(e, dtype=bool)
        self._points = np.empty((e, 3))
        posture = PostureTask(cost=mapping.posture_cost)
        posture.set_target(robot.q0, conf)
        self.all_tasks: list[Task] = [*self.tasks, posture]
        # where the first frame starts: q0 moved (a floating base) onto the first targets
        self.q_start = robot.q0.copy()
        if base_velocity_count(model) == 6 and model.joints[1].nq == 7:
            shift = self.targets[0].mean(axis=0) - rest_points.mean(axis=0)
            self.q_start[:3] += shift

    def set_frame(self, i: int) -> None:
        """Targets (and contact weights) of frame ``i``."""
        for j, task in enumerate(self.tasks):
            p = self.targets[i, j]
            R = self.rotations[j]
            if R is None:
                task.target = p  # type: ignore[attr-defined]
            else:
                offset = self.offsets[j]
                origin = p if offset is None else p - R[i] @ offset
                task.target = pin.SE3(R[i], origin)  # type: ignore[attr-defined]
            if self.contact[i, j] != self._in_contact[j]:
                self._in_contact[j] = self.contact[i, j]
                cost = self.entries[j].position_cost
                vertical = cost * (self.contact_cost if self.contact[i, j] else 1.0)
                weights = np.array([cost, cost, vertical])
                if isinstance(task, FrameTask):
                    task.set_position_cost(weights)
                else:
                    task.cost = weights

    def errors(self, conf: Configuration, i: int, pos: np.ndarray, ori: np.ndarray) -> None:
        """Write frame ``i``'s position (m) and orientation (rad) errors into ``pos``, ``ori``."""
        oMf = conf.data.oMf
        points = self._points
        for j, fid in enumerate(self.fids):
            offset = self.offsets[j]
            points[j] = oMf[fid].translation if offset is None else oMf[fid].act(offset)
            R = self.rotations[j]
            if R is not None:
                ori[j] = np.linalg.norm(pin.log3(R[i].T @ oMf[fid].rotation))
        np.subtract(self.targets[i], points, out=points)
        np.sqrt(np.einsum("ij,ij->i", points, points), out=pos)


def _as_robot(robot: Robot | str) -> Robot:
    if isinstance(robot, str):
        return robots.load(robot)
    if not isinstance(robot, Robot):
        raise InvalidInput(
            f"robot must be a taskik Robot or a robot name, got {type(robot).__name__}"
        )
    return robot


#: Largest count of steps (per frame, or of the first frame) accepted.
MAX_STEPS = 1_000_000


def _as_count(value: object, name: str, most: int = MAX_STEPS) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 1 <= value <= most:
        raise InvalidInput(f"{name} must be an integer >= 1 (at most {most:_}), got {value!r}")
    return int(value)


def retarget(
    robot: Robot | str,
    clip: Clip | str | os.PathLike[str],
    mapping: RetargetMapping | dict[str, Any] | str | os.PathLike[str],
    *,
    steps: int = DEFAULT_STEPS,
    first_steps: int = FIRST_FRAME_STEPS,
    q_start: np.ndarray | None = None,
    solver: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    limits: Sequence[Limit] = (),
) -> RetargetResult:
    """Joint trajectory of ``robot`` following ``clip`` through ``mapping`` (see the module
    docstring for the per-frame problem).

    Args:
        robot: a :class:`taskik.robots.Robot` or a name for :func:`taskik.robots.load`.
        clip: a :class:`Clip` or a ``.npz`` / ``.csv`` clip file.
        mapping: a :class:`RetargetMapping`, its dict form, or a ``.json`` / ``.yaml`` file.
        steps: QP steps per frame (≥ 1).
        first_steps: steps for the first frame, from the rest configuration (≥ 1).
        q_start: configuration the first frame starts from, within the joint limits
            (default ``robot.q0``, its floating base moved by the offset between the first
            frame's targets and the robot's points at ``q0``, centroid to centroid).
        solver: QP solver name (default: the fastest installed).
        progress: called as ``progress(frames_done, n_frames)`` after each frame.
        limits: more limits for every step, e.g. a :class:`taskik.CollisionLimit` of the
            robot so that the retargeted motion keeps its limbs apart.

    Raises:
        UnknownName: a mapping names a frame the robot lacks or a keypoint the clip lacks
            (with close matches).
        InvalidInput: malformed clip or mapping, an orientation asked of a keypoint without
            one, a bad option, a ``q_start`` outside the joint limits (by more than 1e-6).
        NoSolutionFound: a step's QP failed; the message names the clip frame.
    """
    robot = _as_robot(robot)
    clip = clip if isinstance(clip, Clip) else load_clip(clip)
    mapping = load_mapping(mapping)
    steps = _as_count(steps, "steps")
    first_steps = _as_count(first_steps, "first_steps")
    if solver is not None and not isinstance(solver, str):
        raise InvalidInput(f"solver must be a QP solver name or None, got {solver!r}")
    if progress is not None and not callable(progress):
        raise InvalidInput(
            f"progress must be a function progress(frames_done, n_frames) or None, got "
            f"{type(progress).__name__}"
        )
    if isinstance(limits, Limit):
        limits = [limits]
    elif isinstance(limits, str | bytes | os.PathLike) or not isinstance(limits, Sequence):
        raise InvalidInput(f"limits must be a list of Limit objects, got {type(limits).__name__}")
    model = robot.model
    problem = _Problem(robot, clip, mapping)
    if q_start is not None:
        q_start = check_finite_array(q_start, "q_start").copy()
        if q_start.shape != (model.nq,):
            raise InvalidInput(q_shape_message("q_start", q_start.shape, model))
    conf = robot.configuration(problem.q_start if q_start is None else q_start)
    if q_start is not None:
        # the joint limits are soft in the steps: a q_start far outside them (2e14 rad) would
        # never come back, and the trajectory would leave the robot's range
        try:
            conf.check_limits(1e-6)
        except NotWithinConfigurationLimits as exc:
            raise InvalidInput(f"q_start is outside the joint limits: {exc}") from None
    extra = check_limits(list(limits)) if len(limits) else []
    first_limits: list[Limit] = [ConfigurationLimit(model), *extra]
    frame_limits: list[Limit] = [ConfigurationLimit(model), VelocityLimit(model), *extra]
    n, e = clip.n_frames, len(problem.entries)
    q = np.empty((n, model.nq))
    pos_err = np.empty((n, e))
    ori_err = np.full((n, e), np.nan)
    dt = clip.dt / steps
    tasks = problem.all_tasks
    start = time.perf_counter()
    for i in range(n):
        problem.set_frame(i)
        count, step_dt, lims = (
            (first_steps, 1.0, first_limits) if i == 0 else (steps, dt, frame_limits)
        )
        try:
            for _ in range(count):
                v = solve_ik(conf, tasks, step_dt, lims, solver=solver, adaptive=False)
                conf.integrate_inplace(v, step_dt)
        except NoSolutionFound as exc:
            raise NoSolutionFound(
                exc.solver, exc.status, exc.conflicts, hint=f"at frame {i} of clip {clip.source}"
            ) from exc
        q[i] = conf.q
        problem.errors(conf, i, pos_err[i], ori_err[i])
        if progress is not None:
            progress(i + 1, n)
    elapsed = time.perf_counter() - start
    return RetargetResult(
        q,
        tuple(t.keypoint for t in problem.entries),
        tuple(t.frame for t in problem.entries),
        pos_err,
        ori_err,
        clip.fps,
        problem.scale,
        steps,
        elapsed,
        robot.name,
    )


def retarget_file(
    clip_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    robot: str,
    mapping: str | os.PathLike[str] | dict[str, Any],
    **options: Any,
) -> dict[str, Any]:
    """Retarget the clip file ``clip_path`` and save the result to ``output_path`` (``.npz``,
    written through a temporary file and a rename). A plain top-level function of picklable
    arguments, to be run in worker processes; returns a small summary dict (frames, time,
    the largest and mean position error in m)."""
    result = retarget(robot, clip_path, mapping, **options)
    result.save(output_path)
    return {
        "input": str(clip_path),
        "output": str(output_path),
        "frames": result.n_frames,
        "solve_time": result.solve_time,
        "max_position_error": float(result.position_errors.max()),
        "mean_position_error": float(result.position_errors.mean()),
    }
