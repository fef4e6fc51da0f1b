"""Helpers shared by tasks that refer to frames: name resolution and target parsing."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import InvalidInput, TargetNotSet, check_finite_array


def as_se3(target: pin.SE3 | npt.ArrayLike, name: str = "target") -> pin.SE3:
    """Accept a ``pin.SE3`` or a 4×4 homogeneous matrix; reject NaN/inf and non-rotations."""
    if isinstance(target, pin.SE3):
        R, p = target.rotation, target.translation
    else:
        M = check_finite_array(target, name, (4, 4))
        if np.abs(M[3] - (0.0, 0.0, 0.0, 1.0)).max() > 1e-9:
            raise InvalidInput(
                f"{name} is not a homogeneous matrix: its last row is {M[3].tolist()}, "
                "expected [0, 0, 0, 1] (was it transposed?)"
            )
        R, p = M[:3, :3], M[:3, 3]
    check_finite_array(R, f"{name} rotation")
    check_finite_array(p, f"{name} translation")
    check_rotation(R, name)
    return pin.SE3(np.array(R), np.array(p))


def check_rotation(R: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidInput` unless R is a rotation matrix (RᵀR = I, det R = 1)."""
    err = np.abs(R.T @ R - np.eye(3)).max()
    if err > 1e-6 or np.linalg.det(R) < 0:
        raise InvalidInput(f"{name} rotation is not a rotation matrix (|RᵀR − I| = {err:.3g})")


class FrameRef:
    """A frame name resolved lazily (and once per model) to its index."""

    __slots__ = ("name", "_model", "_id")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise InvalidInput(f"frame name must be a string, got {type(name).__name__}")
        self.name = name
        self._model: pin.Model | None = None
        self._id = -1

    def id(self, configuration: Configuration) -> int:
        if configuration.model is not self._model:
            self._id = configuration.get_frame_id(self.name)
            self._model = configuration.model
        return self._id


T = TypeVar("T")


def require_target(target: T | None, task: object) -> T:
    """Return ``target``; raise :class:`TargetNotSet` naming the task's class if it is None."""
    if target is None:
        raise TargetNotSet(
            f"{type(task).__name__} has no target: call set_target() or "
            "set_target_from_configuration() first"
        )
    return target
