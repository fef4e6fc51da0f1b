"""Which robot frame follows which keypoint: the mapping of a retargeting, from a dict or a
JSON / YAML file, and the human → robot scale estimated from the rest pose.

A mapping as a dict (the JSON file holds the same object; YAML too when PyYAML is
installed)::

    {
      "scale": null,              # uniform human → robot scale; null: estimated (estimate_scale)
      "posture_cost": 0.01,       # weight (1/rad) of the pull toward the robot's rest posture
      "contact_cost": 100.0,      # factor on the vertical weight of a foot in contact
      "rest_frame": 0,            # the clip frame whose pose matches the robot's q0
      "tasks": [
        {"keypoint": "pelvis", "frame": "root_joint",
         "position_cost": 1.0,     # 1/m
         "orientation_cost": 0.5,  # 1/rad, 0 (default): position only
         "offset": [0, 0, 0],      # the tracked point in the robot frame (m)
         "rotation_offset": null}  # quaternion (x, y, z, w) R_o with R_frame* = R_keypoint R_o;
      ]                            #   null: R_o = R_keypoint(rest)ᵀ R_frame(q0), from the rest pose
    }
"""

from __future__ import annotations

import difflib
import importlib
import json
import os
from collections.abc import Mapping as MappingABC
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInput, check_finite_array, check_scalar
from .clip import as_path, read_text

_TOP_KEYS = ("scale", "posture_cost", "contact_cost", "rest_frame", "tasks")
_TASK_KEYS = (
    "keypoint",
    "frame",
    "position_cost",
    "orientation_cost",
    "offset",
    "rotation_offset",
)


def _check_keys(given: MappingABC[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in given:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
            raise InvalidInput(f"{where}: unknown key {key!r}{hint}")


@dataclass(frozen=True)
class KeypointTask:
    """One line of a mapping: robot frame ``frame`` follows keypoint ``keypoint``.

    The tracked point is ``offset`` (m, in the frame's coordinates); its target is the
    keypoint's position times the mapping's scale. With ``orientation_cost > 0`` and a clip
    that has this keypoint's orientation ``R_k``, the frame's orientation target is
    ``R_k R_o`` (``rotation_offset`` as quaternion x, y, z, w).
    """

    keypoint: str
    frame: str
    position_cost: float = 1.0
    orientation_cost: float = 0.0
    offset: tuple[float, float, float] | None = None
    rotation_offset: tuple[float, float, float, float] | None = None

    def __post_init__(self) -> None:
        for key in ("keypoint", "frame"):
            value = getattr(self, key)
            if not isinstance(value, str) or not value:
                raise InvalidInput(f"KeypointTask {key} must be a non-empty string, got {value!r}")
        where = f"KeypointTask (keypoint {self.keypoint!r})"
        for key in ("position_cost", "orientation_cost"):
            object.__setattr__(self, key, check_scalar(getattr(self, key), f"{where}: {key}", 0.0))
        if self.offset is not None:
            offset = check_finite_array(self.offset, f"{where}: offset", (3,))
            object.__setattr__(self, "offset", tuple(offset.tolist()))
        if self.rotation_offset is not None:
            quat = check_finite_array(self.rotation_offset, f"{where}: rotation_offset", (4,))
            norm = float(np.linalg.norm(quat))
            if abs(norm - 1.0) > 1e-3:
                raise InvalidInput(
                    f"{where}: rotation_offset must be a unit quaternion (x, y, z, w), "
                    f"norm {norm:.6g}"
                )
            object.__setattr__(self, "rotation_offset", tuple((quat / norm).tolist()))

    @classmethod
    def from_dict(cls, entry: object, where: str) -> KeypointTask:
        """An entry of the ``tasks`` list; :class:`InvalidInput` naming ``where`` if malformed."""
        if not isinstance(entry, MappingABC):
            raise InvalidInput(f"{where} must be an object with 'keypoint' and 'frame'")
        _check_keys(entry, _TASK_KEYS, where)
        for key in ("keypoint", "frame"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise InvalidInput(f"{where}: {key!r} must be a non-empty string")
        where = f"{where} (keypoint {entry['keypoint']!r})"
        pos = check_scalar(entry.get("position_cost", 1.0), f"{where}: position_cost", 0.0)
        ori = check_scalar(entry.get("orientation_cost", 0.0), f"{where}: orientation_cost", 0.0)
        offset = entry.get("offset")
        if offset is not None:
            offset = tuple(check_finite_array(offset, f"{where}: offset", (3,)).tolist())
        rot = entry.get("rotation_offset")
        if rot is not None:
            quat = check_finite_array(rot, f"{where}: rotation_offset", (4,))
            norm = float(np.linalg.norm(quat))
            if abs(norm - 1.0) > 1e-3:
                raise InvalidInput(
                    f"{where}: rotation_offset must be a unit quaternion (x, y, z, w), "
                    f"norm {norm:.6g}"
                )
            rot = tuple((quat / norm).tolist())
        return cls(entry["keypoint"], entry["frame"], pos, ori, offset, rot)


@dataclass(frozen=True)
class RetargetMapping:
    """The tasks of a retargeting and their shared settings (see the module docstring)."""

    tasks: tuple[KeypointTask, ...]
    scale: float | None = None
    posture_cost: float = 1e-2
    contact_cost: float = 100.0
    rest_frame: int = 0

    def __post_init__(self) -> None:
        tasks = self.tasks
        if isinstance(tasks, KeypointTask):
            tasks = (tasks,)
        if not isinstance(tasks, list | tuple) or not tasks:
            raise InvalidInput(
                f"RetargetMapping tasks must be a non-empty list of KeypointTask, got {tasks!r}"
            )
        bad = [t for t in tasks if not isinstance(t, KeypointTask)]
        if bad:
            raise InvalidInput(
                f"RetargetMapping tasks must be KeypointTask objects, got {type(bad[0]).__name__}"
            )
        object.__setattr__(self, "tasks", tuple(tasks))
        if self.scale is not None:
            object.__setattr__(
                self, "scale", check_scalar(self.scale, "mapping scale", 0.0, low_open=True)
            )
        for key in ("posture_cost", "contact_cost"):
            object.__setattr__(self, key, check_scalar(getattr(self, key), f"mapping {key}", 0.0))
        rest = self.rest_frame
        if isinstance(rest, bool) or not isinstance(rest, int | np.integer) or rest < 0:
            raise InvalidInput(f"mapping rest_frame must be a frame index >= 0, got {rest!r}")
        object.__setattr__(self, "rest_frame", int(rest))

    @classmethod
    def from_dict(cls, data: object, source: str = "<dict>") -> RetargetMapping:
        """Parse the dict form; :class:`InvalidInput` naming ``source`` and the entry at fault."""
        where = f"mapping {source}"
        if not isinstance(data, MappingABC):
            raise InvalidInput(f"{where} must be an object with a 'tasks' list")
        _check_keys(data, _TOP_KEYS, where)
        entries = data.get("tasks")
        if not isinstance(entries, list | tuple) or not entries:
            raise InvalidInput(f"{where}: 'tasks' must be a non-empty list")
        tasks = tuple(
            KeypointTask.from_dict(e, f"{where}: tasks[{i}]") for i, e in enumerate(entries)
        )
        scale = data.get("scale")
        if scale is not None:
            scale = check_scalar(scale, f"{where}: scale", 0.0, low_open=True)
        rest = data.get("rest_frame", 0)
        if isinstance(rest, bool) or not isinstance(rest, int | np.integer) or rest < 0:
            raise InvalidInput(f"{where}: rest_frame must be a frame index >= 0, got {rest!r}")
        return cls(
            tasks,
            scale,
            check_scalar(data.get("posture_cost", 1e-2), f"{where}: posture_cost", 0.0),
            check_scalar(data.get("contact_cost", 100.0), f"{where}: contact_cost", 0.0),
            int(rest),
        )

    def to_dict(self) -> dict[str, Any]:
        """The dict form (what :meth:`from_dict` reads)."""
        return {
            "scale": self.scale,
            "posture_cost": self.posture_cost,
            "contact_cost": self.contact_cost,
            "rest_frame": self.rest_frame,
            "tasks": [
                {
                    "keypoint": t.keypoint,
                    "frame": t.frame,
                    "position_cost": t.position_cost,
                    "orientation_cost": t.orientation_cost,
                    "offset": None if t.offset is None else list(t.offset),
                    "rotation_offset": None
                    if t.rotation_offset is None
                    else list(t.rotation_offset),
                }
                for t in self.tasks
            ],
        }


def load_mapping(
    source: RetargetMapping | MappingABC[str, Any] | str | os.PathLike[str],
) -> RetargetMapping:
    """A :class:`RetargetMapping` from itself, a dict, or a ``.json`` / ``.yaml`` file.

    Raises:
        InvalidInput: missing or unreadable file, YAML without PyYAML, malformed content (the
            message names the file and the entry).
    """
    if isinstance(source, RetargetMapping):
        return source
    if isinstance(source, MappingABC):
        return RetargetMapping.from_dict(source)
    if not isinstance(source, str | os.PathLike):
        raise InvalidInput(
            f"mapping must be a dict, a RetargetMapping or a file path, got {type(source).__name__}"
        )
    path = as_path(source, "mapping file")
    text = read_text(path, "mapping")
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"mapping file {path} is not valid JSON: {exc}") from exc
    elif suffix in (".yaml", ".yml"):
        try:
            yaml = importlib.import_module("yaml")  # optional: PyYAML
        except ImportError as exc:
            raise InvalidInput(
                f"mapping file {path}: reading YAML needs PyYAML (pip install pyyaml); "
                "or write the mapping as JSON"
            ) from exc
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InvalidInput(f"mapping file {path} is not valid YAML: {exc}") from exc
    else:
        raise InvalidInput(f"mapping file {path}: unknown format {suffix!r}; use .json or .yaml")
    return RetargetMapping.from_dict(data, str(path))


def estimate_scale(keypoints: np.ndarray, robot_points: np.ndarray) -> float:
    """Human → robot scale ``s = span_z(robot points) / span_z(keypoints)``.

    ``keypoints`` (K, 3): the mapped keypoints at the clip's rest frame (m);
    ``robot_points`` (K, 3): the points that follow them on the robot at its rest
    configuration ``q0``. The vertical span (highest minus lowest point: standing height
    from the feet to the head, or whatever the mapping covers) is the measure least changed
    by how the arms are held in either rest pose.

    Raises:
        InvalidInput: the keypoints (or the robot points) have no vertical extent.
    """
    keypoints = check_finite_array(keypoints, "keypoints")
    robot_points = check_finite_array(robot_points, "robot_points")
    if keypoints.ndim != 2 or keypoints.shape[1:] != (3,) or len(keypoints) == 0:
        raise InvalidInput(f"keypoints must have shape (K, 3), K >= 1, got {keypoints.shape}")
    if robot_points.shape != keypoints.shape:
        raise InvalidInput(
            f"robot_points must have the shape of keypoints {keypoints.shape}, "
            f"got {robot_points.shape}"
        )
    human = float(np.ptp(keypoints[:, 2]))
    robot = float(np.ptp(robot_points[:, 2]))
    if human < 1e-6 or robot < 1e-6:
        raise InvalidInput(
            "cannot estimate the scale: the mapped keypoints (or the robot's frames) span "
            f"{human:.3g} m (robot {robot:.3g} m) vertically; give 'scale' in the mapping"
        )
    return robot / human
