"""Errors raised by taskik. Every message names the offending input."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


class TaskikError(Exception):
    """Base class of every error raised by taskik."""


class InvalidInput(TaskikError, ValueError):
    """An argument has the wrong shape, a non-finite value or an out-of-range value."""


class InvalidConfiguration(InvalidInput):
    """A configuration vector q is malformed (size, NaN/inf, unnormalised quaternion)."""


class UnknownName(TaskikError, KeyError):
    """A frame or joint name does not exist in the model; the message lists close matches."""

    def __init__(self, kind: str, name: str, candidates: Iterable[str]) -> None:
        names = list(candidates)
        close = difflib.get_close_matches(str(name), names, n=5, cutoff=0.4)
        msg = f"unknown {kind} {name!r}"
        if close:
            msg += f"; did you mean {', '.join(repr(c) for c in close)}?"
        else:
            shown = ", ".join(repr(c) for c in names[:10])
            msg += f"; the model has {len(names)} {kind}s, e.g. {shown}"
        super().__init__(msg)
        self.kind = kind
        self.name = name
        self.close_matches = close

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class TargetNotSet(TaskikError, RuntimeError):
    """A task was evaluated before its target was set."""


class NoSolutionFound(TaskikError, RuntimeError):
    """The QP solver returned no solution.

    Attributes:
        solver: name of the QP solver.
        status: the solver's own status (exit flag or message).
        conflicts: human-readable descriptions of the limits that conflict, if found.
    """

    def __init__(self, solver: str, status: object, conflicts: list[str] | None = None) -> None:
        self.solver = solver
        self.status = status
        self.conflicts = list(conflicts or [])
        msg = f"QP solver {solver!r} found no solution (status: {status})"
        if self.conflicts:
            msg += "; conflicting limits: " + "; ".join(self.conflicts)
        else:
            msg += "; no pair of bounds conflicts directly, check the inequality rows"
        super().__init__(msg)


class NotWithinConfigurationLimits(TaskikError, ValueError):
    """A configuration violates the model's joint position limits."""


def check_finite_array(
    value: npt.ArrayLike,
    name: str,
    shape: tuple[int, ...] | None = None,
    dtype: npt.DTypeLike = float,
) -> np.ndarray:
    """Return ``value`` as a float array; :class:`InvalidInput` on a bad shape or NaN/inf."""
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{name} must be numeric, got {type(value).__name__}") from exc
    if shape is not None and arr.shape != shape:
        raise InvalidInput(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))
        raise InvalidInput(f"{name} contains NaN or inf at index {bad.tolist()[:10]}")
    return arr


def check_positive_scalar(value: float, name: str) -> float:
    """Return ``value`` as a float, raising :class:`InvalidInput` unless it is finite and > 0."""
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{name} must be a positive number, got {value!r}") from exc
    if not (x > 0.0 and x < float("inf")):
        raise InvalidInput(f"{name} must be finite and > 0, got {value!r}")
    return x
