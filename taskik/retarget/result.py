"""What a retargeting returns: the joint trajectory and the per-frame errors of each task,
saved to and read back from ``.npz``.

``.npz`` layout: ``q`` (N, nq), ``keypoints`` (E,) str, ``frames`` (E,) str,
``position_errors`` (N, E) m, ``orientation_errors`` (N, E) rad (NaN where a task tracks no
orientation), ``fps`` (), ``scale`` (), ``steps`` (), ``solve_time`` () s, ``robot`` () str.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from ..exceptions import InvalidInput
from .clip import as_path, atomic_write, load_npz

_KEYS = (
    "q",
    "keypoints",
    "frames",
    "position_errors",
    "orientation_errors",
    "fps",
    "scale",
    "steps",
    "solve_time",
    "robot",
)


@dataclass(eq=False)  # arrays: compare their fields, not the objects
class RetargetResult:
    """A retargeted clip.

    Attributes:
        q: (N, nq) robot configurations, one per clip frame.
        keypoints: the mapping's keypoints, in the order of the error columns.
        frames: the robot frames that follow them.
        position_errors: (N, E) distance (m) between each tracked point and its target after
            the frame's steps (the target of a foot in contact is on the ground).
        orientation_errors: (N, E) angle (rad) of ``R*ᵀ R``; NaN for position-only tasks.
        fps: the clip's frame rate (1/s).
        scale: the human → robot scale used.
        steps: QP steps per frame.
        solve_time: wall time of the solve (s).
        robot: the robot's name.
    """

    q: np.ndarray
    keypoints: tuple[str, ...]
    frames: tuple[str, ...]
    position_errors: np.ndarray
    orientation_errors: np.ndarray
    fps: float
    scale: float
    steps: int
    solve_time: float
    robot: str

    @property
    def n_frames(self) -> int:
        """Number of frames N."""
        return int(self.q.shape[0])

    @property
    def frames_per_second(self) -> float:
        """Frames solved per second of wall time."""
        return self.n_frames / self.solve_time if self.solve_time > 0 else float("inf")

    def summary(self) -> str:
        """One line: frames, speed, the largest and the mean position error."""
        return (
            f"{self.n_frames} frames of {self.robot} at {self.fps:g} fps, scale {self.scale:.3f}, "
            f"{self.steps} steps/frame: {self.frames_per_second:,.0f} frames/s; position error "
            f"max {self.position_errors.max() * 1e3:.1f} mm, "
            f"mean {self.position_errors.mean() * 1e3:.1f} mm"
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write to ``path`` (``.npz``) through a temporary file and a rename."""
        path = as_path(path, "retarget output")
        if path.suffix.lower() != ".npz":
            raise InvalidInput(f"retarget output {path}: use a .npz file name")
        arrays = self.arrays()

        def write(handle: IO[bytes]) -> None:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]

        return atomic_write(path, write)

    def arrays(self) -> dict[str, np.ndarray]:
        """The fields as arrays, by the ``.npz`` names (see the module docstring)."""
        return {
            "q": self.q,
            "keypoints": np.array(self.keypoints),
            "frames": np.array(self.frames),
            "position_errors": self.position_errors,
            "orientation_errors": self.orientation_errors,
            "fps": np.array(self.fps),
            "scale": np.array(self.scale),
            "steps": np.array(self.steps),
            "solve_time": np.array(self.solve_time),
            "robot": np.array(self.robot),
        }

    @classmethod
    def from_arrays(cls, a: dict[str, np.ndarray]) -> RetargetResult:
        """The result whose :meth:`arrays` are ``a`` (shapes not checked)."""
        return cls(
            a["q"],
            tuple(str(s) for s in a["keypoints"]),
            tuple(str(s) for s in a["frames"]),
            a["position_errors"],
            a["orientation_errors"],
            float(a["fps"]),
            float(a["scale"]),
            int(a["steps"]),
            float(a["solve_time"]),
            str(a["robot"]),
        )


def load_result(path: str | os.PathLike[str]) -> RetargetResult:
    """Read a :class:`RetargetResult` written by :meth:`RetargetResult.save`, every array
    checked: :class:`InvalidInput` naming the file and the array at fault when it is not one
    (damaged, truncated, written by something else)."""
    a = load_npz(path, _KEYS, "retarget result")
    where = f"retarget result file {path}"
    q = a["q"]
    if q.dtype.kind != "f" or q.ndim != 2 or q.shape[0] == 0 or not np.isfinite(q).all():
        raise InvalidInput(f"{where}: q must be finite (N, nq) floats, got {q.dtype} {q.shape}")
    for key in ("keypoints", "frames"):
        if a[key].dtype.kind != "U" or a[key].ndim != 1:
            raise InvalidInput(f"{where}: {key} must be a 1-D array of str, got {a[key].dtype}")
    n, e = q.shape[0], len(a["keypoints"])
    if len(a["frames"]) != e:
        raise InvalidInput(f"{where}: {e} keypoints but {len(a['frames'])} frames")
    for key in ("position_errors", "orientation_errors"):
        if a[key].shape != (n, e) or a[key].dtype.kind != "f":
            raise InvalidInput(
                f"{where}: {key} has {a[key].dtype} shape {a[key].shape}, expected floats {(n, e)}"
            )
    for key in ("fps", "scale", "solve_time", "steps"):
        value = a[key]
        kinds = "iu" if key == "steps" else "fiu"
        if value.shape != () or value.dtype.kind not in kinds or not np.isfinite(value):
            raise InvalidInput(f"{where}: {key} must be a finite number, got {value!r}")
    if a["fps"] <= 0 or a["scale"] <= 0 or a["steps"] < 1:
        raise InvalidInput(
            f"{where}: fps, scale and steps must be positive, got {a['fps']}, {a['scale']}, "
            f"{a['steps']}"
        )
    if a["robot"].shape != () or a["robot"].dtype.kind != "U":
        raise InvalidInput(f"{where}: robot must be a name, got {a['robot']!r}")
    return RetargetResult.from_arrays(a)
