"""Helpers shared by tasks that refer to frames: name resolution and target parsing."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, TargetNotSet, check_finite_array


def joint_name_list(names: object, who: str, *, universe: bool = False) -> list[str]:
    """``names`` as a list of joint names: a list, tuple, set, numpy array of str or any
    iterable of str (a single str is one name). :class:`InvalidInput` naming ``who`` for None,
    a number or anything else that is not names, and (unless ``universe``) for ``"universe"``,
    Pinocchio's fixed world, which has no velocity coordinate."""
    if isinstance(names, str):
        out: list[object] = [names]
    elif names is None or isinstance(names, bytes | dict) or not isinstance(names, Iterable):
        raise InvalidInput(f"{who} must be joint names (a list of str), got {names!r}")
    else:
        out = list(np.asarray(names).ravel()) if isinstance(names, np.ndarray) else list(names)
    bad = [n for n in out if not isinstance(n, str)]
    if bad:
        raise InvalidInput(
            f"{who} must be joint names (str), got {type(bad[0]).__name__} {bad[0]!r}"
        )
    if not universe and "universe" in out:
        raise InvalidInput(
            f"{who}: 'universe' is Pinocchio's fixed world frame, not a joint (it has no "
            "velocity coordinate); name the model's joints"
        )
    return [str(n) for n in out]


# the bytes of the homogeneous matrix of the last pin.SE3 as_se3 accepted (values, not the
# object: the same values pass again without their checks)
_PASSED: list[bytes] = [b""]


#: The farthest (m, per coordinate) a point fixed on a link may be from the link's frame
#: (a ``PositionTask`` offset): the rows' squares must stay in the float range.
MAX_TRANSLATION = 1e50


def check_target_point(point: npt.ArrayLike, name: str) -> np.ndarray:
    """``point`` as a finite (3,) float array (m) within ``MAX_TARGET`` of the origin;
    :class:`InvalidInput` naming ``name`` otherwise."""
    arr = check_finite_array(point, name, (3,))
    far = _far_target(name, arr)
    if far is not None:
        raise far
    return arr


def check_point(point: npt.ArrayLike, name: str) -> np.ndarray:
    """``point`` as a finite (3,) float array (m) within ``MAX_TRANSLATION`` of the origin;
    :class:`InvalidInput` naming ``name`` otherwise."""
    arr = check_finite_array(point, name, (3,))
    if np.abs(arr).max() > MAX_TRANSLATION:
        raise InvalidInput(
            f"{name} must be within {MAX_TRANSLATION:g} m of the origin, got {arr.tolist()}"
        )
    return arr


#: Largest target entry (m or rad): frame and point targets are refused beyond it when set,
#: and :func:`taskik.solve_posture` refuses the other tasks' targets beyond it. Below it the
#: squared error of a task, ``E = ½ ‖W e‖²``, stays a float at moderate costs (the square
#: root of the largest float is 1.3e154: the margin covers six rows and costs up to 1e3).
MAX_TARGET = 1e150


def _far_target(name: str, p: npt.ArrayLike) -> InvalidInput | None:
    """The error for a target translation ``p`` beyond ``MAX_TARGET``, else None."""
    big = float(np.abs(np.asarray(p, dtype=float)).max())
    if big <= MAX_TARGET:
        return None
    return InvalidInput(
        f"{name} has an entry of {big:.3g}: beyond {MAX_TARGET:g} (m) its squared error "
        "overflows a float; bring the target within reach of the model"
    )


def as_se3(target: pin.SE3 | npt.ArrayLike, name: str = "target") -> pin.SE3:
    """Accept a ``pin.SE3`` or a 4×4 homogeneous matrix; reject NaN/inf, non-rotations and
    translations beyond ``MAX_TARGET`` (1e150 m)."""
    if isinstance(target, pin.SE3) and type(target) is pin.SE3:
        # the common case: the bytes of the last pose that passed are kept, and the same
        # values pass again at the cost of one comparison (a target set anew at every step,
        # a task list built anew at every step); other values are checked in plain Python
        # floats (a few numpy calls cost more here). A NaN never passes, so is never kept.
        M = target.np
        data = M.tobytes()
        if data == _PASSED[0]:
            return target.copy()
        H = M.tolist()
        (a, b, c, x), (d, e, f, y), (g, h, i, z) = H[0], H[1], H[2]
        total = a + b + c + d + e + f + g + h + i + x + y + z
        near = abs(x) <= MAX_TARGET and abs(y) <= MAX_TARGET and abs(z) <= MAX_TARGET
        if math.isfinite(total) and near and _is_rotation(a, b, c, d, e, f, g, h, i):
            _PASSED[0] = data
            return target.copy()
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
    far = _far_target(name, p)
    if far is not None:
        raise far
    check_rotation(R, name)
    return pin.SE3(np.array(R), np.array(p))


def _is_rotation(
    a: float, b: float, c: float, d: float, e: float, f: float, g: float, h: float, i: float
) -> bool:
    """Whether the rows (a b c), (d e f), (g h i) are orthonormal (to 1e-6) and right-handed:
    the test of :func:`check_rotation`, on floats."""
    tol = 1e-6
    return (
        abs(a * a + b * b + c * c - 1.0) <= tol
        and abs(d * d + e * e + f * f - 1.0) <= tol
        and abs(g * g + h * h + i * i - 1.0) <= tol
        and abs(a * d + b * e + c * f) <= tol
        and abs(a * g + b * h + c * i) <= tol
        and abs(d * g + e * h + f * i) <= tol
        and a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0.0
    )


def check_rotation(R: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidInput` unless R is a rotation matrix (RᵀR = I, det R = 1)."""
    err = np.abs(R.T @ R - np.eye(3)).max()
    if err > 1e-6 or np.linalg.det(R) < 0:
        raise InvalidInput(f"{name} rotation is not a rotation matrix (|RᵀR − I| = {err:.3g})")


class FrameRef(str):
    """A frame name that also caches its index, resolved lazily and once per model.

    It *is* the name (a ``str``): it compares, hashes, prints and formats as the name, so
    ``task.frame == "tool0"``, ``task.frame in names`` and
    ``configuration.get_transform_frame_to_world(task.frame)`` work as with pink's string.
    """

    # (class defaults until the first resolution: a new name allocates no attributes)
    _model: pin.Model | None = None
    _id: int = -1

    def __new__(cls, name: str) -> FrameRef:
        if not isinstance(name, str):
            raise InvalidInput(f"frame name must be a string, got {type(name).__name__}")
        return super().__new__(cls, name)

    @property
    def name(self) -> str:
        """The frame name as a plain ``str``."""
        return str(self)

    def id(self, configuration: Configuration) -> int:
        """Index of the frame in ``configuration.model`` (:class:`UnknownName` if absent)."""
        try:
            if configuration.model is not self._model:
                self._id = configuration.get_frame_id(str(self))
                self._model = configuration.model
        except AttributeError:  # not a Configuration: say so (else a bug: raise it)
            check_configuration(configuration, f"the task of frame {str(self)!r}")
            raise
        return self._id

    def adopt(self, resolved: FrameRef) -> None:
        """Take ``resolved``'s index when it names the same frame and this one is not
        resolved yet (a task built anew each step, bound by the plan of the last one's)."""
        if self._model is None and resolved._model is not None and str.__eq__(self, resolved):
            self._model, self._id = resolved._model, resolved._id


class FrameName:
    """Descriptor of a task's frame attribute: assigned a name (or a :class:`FrameRef`),
    read back as a :class:`FrameRef`, so that a new name also drops the cached index."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._attr = "_" + name

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj, self._attr)

    def __set__(self, obj: object, value: str) -> None:
        setattr(obj, self._attr, FrameRef(value))


def target_property(check: Callable[[Any, Any], Any], what: str) -> Any:
    """A task's ``target`` attribute: reading it gives the stored target itself (an SE3 or
    array edited in place stays the target: steps compare its values, not its identity);
    assigning goes through ``check(task, value)``, the validation ``set_target`` applies,
    and None clears the target. ``what`` says what the target is, for the docstring."""

    def get(self: Any) -> Any:
        return self._target

    def set_(self: Any, value: Any) -> None:
        self._target = None if value is None else check(self, value)

    return property(
        get,
        set_,
        doc=f"The target, {what}, or None before one is set; assigning it is "
        "``set_target`` (checked), None clears it.",
    )


def target_alias(pink_name: str) -> Any:
    """A property named like pink's target attribute (``pink_name``) that reads the task's
    ``target`` and sets it through ``set_target`` (None clears it)."""

    def get(self: Any) -> Any:
        return self.target

    def set_(self: Any, value: Any) -> None:
        if value is None:
            self.target = None
        else:
            self.set_target(value)

    return property(get, set_, doc=f"pink's name ``{pink_name}`` for ``target``.")


T = TypeVar("T")


def require_target(target: T | None, task: object) -> T:
    """Return ``target``; raise :class:`TargetNotSet` naming the task's class if it is None."""
    if target is None:
        raise TargetNotSet(
            f"{type(task).__name__} has no target: call set_target() or "
            "set_target_from_configuration() first"
        )
    return target
