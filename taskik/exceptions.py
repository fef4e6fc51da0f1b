"""Errors raised by taskik. Every message names the offending input."""

from __future__ import annotations

import difflib
import math
import numbers
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

    def __init__(
        self,
        solver: str,
        status: object,
        conflicts: list[str] | None = None,
        hint: str | None = None,
    ) -> None:
        self.solver = solver
        self.status = status
        self.conflicts = list(conflicts or [])
        msg = f"QP solver {solver!r} found no solution (status: {status})"
        if self.conflicts:
            msg += "; conflicting limits: " + "; ".join(self.conflicts)
        elif hint is None:
            msg += "; no pair of bounds conflicts directly, check the inequality rows"
        if hint is not None:
            msg += "; " + hint
        super().__init__(msg)


class NotWithinConfigurationLimits(TaskikError, ValueError):
    """A configuration violates the model's joint position limits."""


def real_array(value: object, name: str, dtype: npt.DTypeLike = float) -> np.ndarray:
    """``value`` as an array of real numbers (±inf and NaN are let through);
    :class:`InvalidInput` naming ``name`` for text, booleans, complex numbers, None or
    anything else numpy would have to guess at."""
    try:
        raw = value if isinstance(value, np.ndarray) else np.asarray(value)
        kind = raw.dtype.kind
        if kind not in "fiu":
            what = {"c": "complex", "b": "boolean", "U": "text", "S": "text"}.get(kind)
            if what is not None:
                raise InvalidInput(f"{name} must be real numbers, got {what} values")
            if kind == "O" and not all(  # a list of numbers of mixed types is fine
                isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)
                for x in raw.ravel()
            ):
                raise InvalidInput(f"{name} must be real numbers, got {value!r}")
        return raw.astype(dtype, copy=False) if dtype is float else np.asarray(raw, dtype=dtype)
    except OverflowError as exc:  # a Python int beyond the float range, e.g. 10**400
        raise InvalidInput(f"{name} holds a number beyond the float range (±1.8e308)") from exc
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(f"{name} must be numeric, got {type(value).__name__}") from exc


def check_finite_array(
    value: npt.ArrayLike,
    name: str,
    shape: tuple[int, ...] | None = None,
    dtype: npt.DTypeLike = float,
) -> np.ndarray:
    """Return ``value`` as a float array; :class:`InvalidInput` on a bad shape or NaN/inf."""
    if (  # the common case: a float sum is finite only when every term is (else: below)
        type(value) is np.ndarray
        and dtype is float
        and value.dtype == np.float64
        and value.ndim == 1
        and len(value) <= 64
        and (shape is None or value.shape == shape)
        and math.isfinite(sum(value.tolist()))
    ):
        return value
    arr = real_array(value, name, dtype)
    if shape is not None and arr.shape != shape:
        raise InvalidInput(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))
        raise InvalidInput(f"{name} contains NaN or inf at index {bad.tolist()[:10]}")
    return arr


def real_scalar(value: object, name: str) -> float:
    """``value`` as a float when it is a real number: a Python or numpy int or float, or a
    0-d real array; :class:`InvalidInput` for anything else (None, str, bool, complex, ...)."""
    if type(value) is float:
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        return float(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise InvalidInput(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    try:
        return float(value)
    except OverflowError:  # a Python int beyond the float range, e.g. 10**400
        raise InvalidInput(
            f"{name} must be within the float range (±1.8e308), got {value}"
        ) from None


def check_scalar(
    value: object,
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low`` / ``high)`` when open);
    :class:`InvalidInput` naming ``name`` and the range otherwise."""
    x = real_scalar(value, name)
    below = x <= low if low_open else x < low
    above = x >= high if high_open else x > high
    if below or above or not math.isfinite(x):
        if math.isfinite(low) and math.isfinite(high):
            lo = f"({low:g}" if low_open else f"[{low:g}"
            hi = f"{high:g})" if high_open else f"{high:g}]"
            rule = f"in {lo}, {hi}"
        elif math.isfinite(low):
            rule = f"finite and {'>' if low_open else '>='} {low:g}"
        elif math.isfinite(high):
            rule = f"finite and {'<' if high_open else '<='} {high:g}"
        else:
            rule = "finite"
        raise InvalidInput(f"{name} must be {rule}, got {value!r}")
    return x


def check_positive_scalar(value: object, name: str) -> float:
    """Return ``value`` as a float, raising :class:`InvalidInput` unless it is finite and > 0."""
    return check_scalar(value, name, 0.0, low_open=True)


def check_bool(value: object, name: str) -> bool:
    """``value`` as a bool when it is one (Python's or numpy's); :class:`InvalidInput`
    naming ``name`` otherwise (``1``, ``"yes"`` and ``None`` are refused, not guessed at)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise InvalidInput(f"{name} must be True or False, got {value!r}")
