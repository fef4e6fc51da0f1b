"""Validation of what a step is given, before it is assembled: task lists, priority levels,
limit lists (and the limits' model), the damping, and what a limit returns (its box, its
rows). Each check returns the value it validated or raises :class:`~taskik.InvalidInput`
naming the problem."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pinocchio as pin

from .configuration import Configuration
from .exceptions import InvalidInput, check_scalar, real_array
from .limits import default_limits
from .limits.limit import Box, Limit
from .tasks.task import Task

if TYPE_CHECKING:
    from typing_extensions import TypeIs

T = TypeVar("T")


def _class_instead_of_object(item: object, cls: type, what: str) -> InvalidInput | None:
    if isinstance(item, type) and issubclass(item, cls):
        return InvalidInput(
            f"{what} holds the class {item.__name__}, not a {item.__name__} object: "
            f"build one, e.g. {item.__name__}(...)"
        )
    return None


def _check_list(items: object, cls: type[T], what: str) -> list[T]:
    if isinstance(items, cls):
        return [items]
    error = _class_instead_of_object(items, cls, what)
    if error is not None:
        raise error
    if isinstance(items, str | bytes) or not isinstance(items, Sequence | set | frozenset):
        raise InvalidInput(
            f"{what} must be a list of {cls.__name__} objects, got {type(items).__name__}"
        )
    for i, item in enumerate(items):
        error = _class_instead_of_object(item, cls, what)
        if error is not None:
            raise error
        if not isinstance(item, cls):
            shown = repr(item)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise InvalidInput(
                f"{what} must contain {cls.__name__} objects, got {type(item).__name__} "
                f"{shown} at index {i}"
            )
    return list(items)


def check_tasks(tasks: Iterable[Task] | Task, what: str = "tasks") -> list[Task]:
    """Validate the task list (a sequence of :class:`Task` that implement their error, in
    taskik's way or pink's: see :meth:`Task.compute_error_and_jacobian`); ``what`` names
    the argument in the messages."""
    out = _check_list(tasks, Task, what)
    for task in out:
        if not task.is_implemented():
            raise InvalidInput(
                f"{type(task).__name__} is not a task taskik can solve: it implements neither "
                "compute_error_and_jacobian(configuration) -> (e, J) nor pink's pair "
                "compute_error(configuration) and compute_jacobian(configuration)"
            )
    return out


def check_limits(limits: Iterable[Limit] | Limit) -> list[Limit]:
    """Validate a limit list (a sequence of :class:`Limit`)."""
    return _check_list(limits, Limit, "limits")


def check_levels(levels: Sequence[Sequence[Task]]) -> list[list[Task]]:
    """Validate a list of levels (each a list of :class:`Task`), highest priority first."""
    if isinstance(levels, str | bytes) or not isinstance(levels, Sequence) or not levels:
        raise InvalidInput(
            f"levels must be a non-empty list of task lists, highest priority first, got {levels!r}"
        )
    out: list[list[Task]] = []
    for k, level in enumerate(levels):
        if isinstance(level, Task):
            raise InvalidInput(
                f"level {k} is a Task, not a list of tasks: write [[task_a], [task_b]] "
                "for two levels, or [task_a, task_b] for one weighted level"
            )
        try:
            out.append(check_tasks(level))
        except InvalidInput as exc:
            raise InvalidInput(f"level {k}: {exc}") from None
    return out


def check_damping(damping: float) -> float:
    """The Tikhonov damping of a step as a float: finite and ≥ 0."""
    return check_scalar(damping, "damping", 0.0)


def check_box(limit: Limit, box: Box, nv: int) -> Box:
    """A limit's box ``(indices, lower, upper)``, checked: integer indices in ``[0, nv)``,
    bounds of the same length, real and not NaN (±inf means unbounded)."""
    try:
        idx, lo, hi = box
        idx = np.asarray(idx)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"limit {limit.name!r} gave a malformed box: {exc}") from None
    lo = real_array(lo, f"the lower bounds of limit {limit.name!r}")
    hi = real_array(hi, f"the upper bounds of limit {limit.name!r}")
    if (
        idx.dtype.kind not in "iu"
        or idx.ndim != 1
        or (idx.size and (idx.min() < 0 or idx.max() >= nv))
    ):
        raise InvalidInput(
            f"limit {limit.name!r} gave box indices {idx.tolist()}: integers in [0, {nv}) expected"
        )
    if lo.shape != idx.shape or hi.shape != idx.shape:
        raise InvalidInput(
            f"limit {limit.name!r} gave {idx.size} indices but bounds of shapes {lo.shape}, "
            f"{hi.shape}"
        )
    if np.isnan(lo).any() or np.isnan(hi).any():
        raise InvalidInput(f"limit {limit.name!r} ({limit!r}) gave NaN bounds")
    return idx, lo, hi


def check_rows(
    limit: Limit, rows: tuple[np.ndarray, np.ndarray], nv: int
) -> tuple[np.ndarray, np.ndarray]:
    """A limit's inequality rows ``(G, h)``, checked: G is k × nv, h has k entries, no NaN."""
    try:
        G, h = rows
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"limit {limit.name!r} gave malformed rows G v <= h: {exc}") from None
    G = real_array(G, f"the rows G of limit {limit.name!r}")
    h = real_array(h, f"the right-hand side h of limit {limit.name!r}")
    if G.ndim != 2 or G.shape[1] != nv or h.shape != (G.shape[0],):
        raise InvalidInput(
            f"limit {limit.name!r} gave rows G {G.shape}, h {h.shape}: expected (k, {nv}) and (k,)"
        )
    if np.isnan(G).any() or np.isnan(h).any():
        raise InvalidInput(f"limit {limit.name!r} ({limit!r}) gave NaN rows G v <= h")
    return G, h


def check_limit_model(limit: Limit, model: pin.Model) -> None:
    """Raise :class:`InvalidInput` when ``limit`` was built for another model (its own
    ``model`` attribute, when it has one, differs in its joints)."""
    own = getattr(limit, "model", None)
    if own is None or own is model:
        return
    if own.nq != model.nq or own.nv != model.nv or list(own.names) != list(model.names):
        raise InvalidInput(
            f"{limit!r} was built for model {own.name!r} (nq={own.nq}, nv={own.nv}), not for "
            f"the configuration's model {model.name!r} (nq={model.nq}, nv={model.nv})"
        )


def resolve_limits(
    configuration: Configuration, limits: Iterable[Limit] | Limit | None
) -> list[Limit]:
    """``None`` → the model's position and velocity limits; otherwise a validated list."""
    if limits is None:
        return default_limits(configuration.model)
    if isinstance(limits, str):  # solve_ik(configuration, tasks, dt, limits="daqp")
        raise InvalidInput(
            f"limits must be a list of Limit objects, got the string {limits!r}: for a QP "
            f"solver, write solver={limits!r}"
        )
    return check_limits(limits)


def is_hierarchy(
    tasks: Sequence[Task] | Sequence[Sequence[Task]],
) -> TypeIs[Sequence[Sequence[Task]]]:
    """True when ``tasks`` is a list of levels (lists of tasks), highest priority first.

    Decided on the first element; the hierarchy solver validates every level.
    """
    return isinstance(tasks, _SEQUENCES) and len(tasks) > 0 and isinstance(tasks[0], _SEQUENCES)


_SEQUENCES = (list, tuple)  # (a constant: ``list | tuple`` would build a union at every call)


@dataclass
class BoxBound:
    """Bounds one limit puts on ``v[indices]`` (kept for reports and error messages)."""

    limit: Limit
    indices: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def box_conflicts(boxes: list[BoxBound], nv: int) -> list[str]:
    """Describe every velocity index whose lower bound from one limit exceeds another's upper."""
    out: list[str] = []
    for i in range(nv):
        pairs = [(b.lower[k], b.upper[k], b) for b in boxes for k in np.flatnonzero(b.indices == i)]
        if not pairs:
            continue
        lo, _, blo = max(pairs, key=lambda x: x[0])
        _, hi, bhi = min(pairs, key=lambda x: x[1])
        if lo > hi:
            model = getattr(blo.limit, "model", None)
            joint = blo.limit.describe_index(model, i) if model is not None else f"v[{i}]"
            out.append(
                f"{joint}: {blo.limit.name} limit lower bound {lo:.6g} > "
                f"{bhi.limit.name} limit upper bound {hi:.6g}"
            )
    return out


def level_overflow(
    level: int, entries: Sequence[tuple[Task, slice]], A: np.ndarray, c: np.ndarray
) -> InvalidInput:
    """The error of a priority level whose stacked rows ``W J`` have no finite norm: name
    the tasks whose rows hold NaN/inf or are too large to square in floating point
    (entries beyond ~1e154, e.g. costs of 1e160)."""
    culprits = []
    for task, rows in entries:
        a = A[rows]
        if not np.isfinite(a).all() or not np.isfinite(c[rows]).all():
            culprits.append(f"{task!r} (NaN or inf in its rows)")
        elif not np.isfinite(float(np.square(a).sum())):
            culprits.append(f"{task!r} (max |W J| = {np.abs(a).max():.3g})")
    named = "; ".join(culprits) if culprits else "its tasks together"
    return InvalidInput(
        f"priority level {level}: the weighted rows W J cannot be used in floating point: "
        f"{named}; lower the costs (weights above ~1e150 overflow when squared)"
    )
