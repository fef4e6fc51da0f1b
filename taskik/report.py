"""A readable status of a step: what each task achieved and which limits were active."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .configuration import Configuration, check_configuration
from .exceptions import InvalidInput, check_finite_array, check_positive_scalar, check_scalar
from .limits.limit import Limit
from .nullspace import null_basis
from .problem import Problem, build_ik
from .relax import Relaxation, last_relaxation
from .tasks.task import Task
from .validation import check_levels, check_tasks


@dataclass
class TaskStatus:
    """One task after a step.

    Attributes:
        name: the task's repr.
        error_norm: ``‖e‖`` before the step (m or rad, mixed for pose tasks).
        weighted_error: ``‖W e‖²``, the task's share of the objective at zero velocity.
        step_residual: ``‖W (J v − Kp e / dt)‖²``, what the step left unachieved.
        reducible: :func:`taskik.report.reducible` of the task's rows ``W J`` and weighted
            error ``W e``: the fraction of the error that joint motion can reduce to first
            order. Near 0 for a task at a singular configuration or a local minimum of its
            own; 1 when only limits (the active bounds) or the other tasks hold it. None
            when the error is zero.
    """

    name: str
    error_norm: float
    weighted_error: float
    step_residual: float
    reducible: float | None = None


@dataclass
class ActiveBound:
    """A velocity bound the step touches (within ``tol``)."""

    limit: str
    joint: str
    side: str  # "lower" or "upper"
    bound: float
    value: float


@dataclass
class ActiveRow:
    """An inequality row ``g v ≤ h`` the step touches (within ``tol``), named by its limit."""

    limit: str
    row: str
    value: float
    bound: float


#: Task directions whose singular value is below this fraction of the largest count as
#: directions no joint moves the task in (see :func:`taskik.report.reducible`).
REDUCIBLE_RCOND = 1e-3


def reducible(A: np.ndarray, c: np.ndarray) -> float | None:
    """The fraction of an error that joint motion can reduce to first order, in [0, 1].

    ``A = W J`` (a task's weighted rows) and ``c ∝ W e`` (its weighted error; the factor
    ``Kp / dt`` cancels): ``‖U_kᵀ c‖ / ‖c‖``, with ``U_k`` the left singular vectors of
    ``A`` whose singular values exceed ``REDUCIBLE_RCOND · σ_max``, the task directions the
    joints move it in. 1: every component of the error can be reduced (what still holds the
    task is a limit or the other tasks); near 0: none can (a stretched arm asked to reach
    farther, a singular configuration, a local minimum of the task). None when ``c = 0`` or
    not finite; 0 when ``A = 0``.
    """
    big = float(np.abs(c).max()) if c.size else 0.0
    if not 0.0 < big < math.inf:
        return None
    u = c / big  # (scaled first: ‖c‖ of large entries would overflow)
    u /= np.linalg.norm(u)
    if A.size == 0:
        return 0.0  # (no direction left to the task)
    scale = float(np.abs(A).max())
    if scale == 0.0:
        return 0.0
    if not scale < math.inf:
        return None
    U, sigma, _ = np.linalg.svd(A / scale, full_matrices=False)
    kept = U[:, sigma > REDUCIBLE_RCOND * sigma[0]]
    return min(1.0, float(np.linalg.norm(kept.T @ u)))


def _fmt_fraction(value: float | None) -> str:
    return f"{'—':>9}" if value is None else f"{value:>9.3f}"


#: Printed reports fit this many columns.
REPORT_WIDTH = 100


def short_name(name: str) -> str:
    """A task's label in a printed report: its class and, when its repr starts with one, its
    quoted frame name; never cut inside the parameters. ``FrameTask('tool0', cost=[1.0, ...],
    ...)`` gives ``FrameTask('tool0')``, ``ComTask(cost=[...])`` gives ``ComTask``."""
    head, sep, rest = name.partition("(")
    if sep and rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        if end != -1:
            return f"{head}({rest[: end + 1]})"
    return head


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the cut shown by an ellipsis."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _wrap(words: list[str], width: int) -> list[str]:
    """``words`` joined by ", " into lines of at most ``width`` characters (a word longer
    than ``width`` gets a line of its own, cut)."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += ", " + word
        else:
            if lines:
                lines[-1] += ","
            lines.append(_fit(word, width))
    return lines or [""]


STEP_LEGEND = (
    "reducible: share of W e that joint motion can reduce; |e|: task error (m, rad);",
    "|We|^2: weighted error squared; step res.: |W (J v - Kp e / dt)|^2 left by the step",
)
LEVEL_LEGEND = (
    "requested: |W Kp e / dt| asked; residual: |W (J v - Kp e / dt)| left; |e|: task error",
    "(m, rad); rank, free: directions used and left; reducible: share of W e the levels above",
    "allow; each level's tasks are listed below its row",
)


def format_active_bounds(active: list[ActiveBound]) -> list[str]:
    """Lines listing the active bounds of a step (shared by the step and hierarchy reports)."""
    if not active:
        return ["active bounds: none"]
    return ["active bounds:"] + [
        f"  {b.limit:<14} {b.joint:<28} {b.side:<5} bound {b.bound:+.4g}, v {b.value:+.4g}"
        for b in active
    ]


@dataclass
class StepReport:
    """Per-task errors, per-limit active bounds and rows of one step; ``print()`` it.

    ``rows`` are the inequality rows the step touches; ``limit_status`` one line per limit
    that describes its state (a limit with a ``status(configuration)`` method, such as
    :class:`~taskik.BalanceLimit`: the balance margin and the closest edge). ``relaxed``:
    the limit rows that gave way in that step when the limits conflicted
    (:func:`taskik.last_relaxation`), None when none did.
    """

    tasks: list[TaskStatus]
    active: list[ActiveBound]
    rows: list[ActiveRow] = field(default_factory=list)
    limit_status: list[str] = field(default_factory=list)
    relaxed: Relaxation | None = None

    def __str__(self) -> str:
        numbers = f" {'reducible':>9} {'|e|':>10} {'|We|^2':>10} {'step res.':>10}"
        labels = [short_name(t.name) for t in self.tasks]
        width = min(max([4, *map(len, labels)]), REPORT_WIDTH - len(numbers))
        lines = [f"{'task':<{width}}{numbers}"]
        for label, t in zip(labels, self.tasks, strict=True):
            lines.append(
                f"{_fit(label, width):<{width}} {_fmt_fraction(t.reducible)} "
                f"{t.error_norm:>10.3e} {t.weighted_error:>10.3e} {t.step_residual:>10.3e}"
            )
        lines += list(STEP_LEGEND) + format_active_bounds(self.active)
        if self.rows:
            lines.append("active rows (g v <= h):")
            lines += [
                f"  {_fit(r.limit, 14):<14} {_fit(r.row, 48):<48} {r.value:+.4g} <= {r.bound:+.4g}"
                for r in self.rows
            ]
        return "\n".join(lines + self.limit_status + _relaxed_lines(self.relaxed))


def report(
    configuration: Configuration,
    tasks: Sequence[Task],
    dt: float,
    v: np.ndarray,
    limits: Sequence[Limit] | None = None,
    tol: float = 1e-6,
) -> StepReport:
    """Explain a step ``v``: each task's error, residual and reducible fraction (why a task
    is not met: its own geometry, a limit or the other tasks), and every active bound.

    Call it with the same arguments as :func:`taskik.solve_ik` plus the returned ``v``.
    """
    configuration = check_configuration(configuration, "report")
    tol = check_scalar(tol, "tol", 0.0)
    problem = build_ik(configuration, tasks, dt, limits)
    v = check_finite_array(v, "v", (configuration.nv,))
    statuses = []
    start = 0
    # (a huge v, dt or target overflows here: checked below, without numpy's warning)
    with np.errstate(over="ignore", invalid="ignore"):
        residual = problem.A @ v - problem.c  # the stacked rows W (J v − Kp e / dt), by task
        for task in check_tasks(tasks):
            e = task.compute_error(configuration)
            we = task.cost * e
            rows = slice(start, start + len(e))
            res = residual[rows]
            start += len(e)
            statuses.append(
                TaskStatus(
                    repr(task),
                    float(np.linalg.norm(e)),
                    float(we @ we),
                    float(res @ res),
                    reducible(problem.A[rows], we),
                )
            )
    _check_finite_report([s.step_residual for s in statuses], "v, dt or the targets")
    active = []
    for box in problem.boxes:
        model = getattr(box.limit, "model", configuration.model)
        vi = v[box.indices]
        for side, bound in (("lower", box.lower), ("upper", box.upper)):
            hit = np.flatnonzero(np.abs(vi - bound) <= tol * np.maximum(1.0, np.abs(bound)))
            for k in hit:
                active.append(
                    ActiveBound(
                        box.limit.name,
                        box.limit.describe_index(model, box.indices[k]),
                        side,
                        float(bound[k]),
                        float(vi[k]),
                    )
                )
    return StepReport(
        statuses,
        active,
        _active_rows(problem, v, tol),
        _limit_status(problem, configuration),
        relaxed_in(configuration, v),
    )


def relaxed_in(configuration: Configuration, v: np.ndarray) -> Relaxation | None:
    """The relaxation of the last step on ``configuration`` if that step returned ``v``."""
    last = last_relaxation(configuration)
    return last if last and last.v is not None and np.array_equal(last.v, v) else None


def _relaxed_lines(relaxed: Relaxation | None) -> list[str]:
    return [] if relaxed is None else str(relaxed).split("\n")


def _active_rows(problem: Problem, v: np.ndarray, tol: float) -> list[ActiveRow]:
    """The inequality rows with ``g v`` within ``tol`` of their bound, with the names their
    limits give them (``Limit.row_names``; "row k" where a limit names none)."""
    if problem.G is None or problem.h is None or not len(problem.h):
        return []
    names: list[tuple[str, str]] = []
    for lim in problem.limits:
        names += [(lim.name, n) for n in lim.row_names()]
    if len(names) != len(problem.h):
        names = [("limits", f"row {k}") for k in range(len(problem.h))]
    values = problem.G @ v
    hit = np.flatnonzero(values >= problem.h - tol * np.maximum(1.0, np.abs(problem.h)))
    return [ActiveRow(names[k][0], names[k][1], float(values[k]), float(problem.h[k])) for k in hit]


def _limit_status(problem: Problem, configuration: Configuration) -> list[str]:
    """``str(limit.status(configuration))`` of the limits that have a ``status`` method."""
    lines = []
    for lim in problem.limits:
        status = getattr(lim, "status", None)
        if callable(status):
            lines.append(f"{lim.name}: {status(configuration)}")
    return lines


def _check_finite_report(values: list[float], what: str) -> None:
    if not all(map(math.isfinite, values)):
        raise InvalidInput(f"the report overflows: {what} are out of range")


# --------------------------------------------------------------- strict priorities
@dataclass
class LevelStatus:
    """What one level achieved in a step.

    Attributes:
        index: level index (0 = highest priority).
        tasks: the tasks' reprs.
        requested: ``‖c_k‖ = ‖W Kp e / dt‖``, the weighted task velocity the level asked for.
        residual: ``‖A_k v − c_k‖ = ‖W (J v − Kp e / dt)‖``, what the step left unachieved.
        satisfied: ``residual ≤ tol · max(1, requested)``: the level got what it asked for.
        rank: directions of v the level used (rank of its Jacobian in the null space of
            the higher levels).
        free_dofs: directions left to the lower levels after this one.
        error_norm: ``‖e‖`` of the level's stacked task errors before the step.
        reducible: :func:`taskik.report.reducible` of the level within what the levels
            above leave free (``A_k Z``, ``Z`` a basis of their null space): near 0 when no
            motion the levels above allow reduces the level's error to first order. None
            when the level asks for nothing.
    """

    index: int
    tasks: list[str]
    requested: float
    residual: float
    satisfied: bool
    rank: int
    free_dofs: int
    error_norm: float
    reducible: float | None = None


@dataclass
class HierarchyReport:
    """Per-level status of a prioritized step and the bounds it touches; ``print()`` it."""

    levels: list[LevelStatus]
    active: list[ActiveBound]
    relaxed: Relaxation | None = None  # (as in StepReport)

    def __str__(self) -> str:
        lines = [
            f"{'level':<6} {'requested':>10} {'residual':>10} {'satisfied':>9} {'rank':>5} "
            f"{'free':>5} {'|e|':>10} {'reducible':>9}"
        ]
        indent = " " * 6
        for s in self.levels:
            lines.append(
                f"{s.index:<6} {s.requested:>10.3e} {s.residual:>10.3e} "
                f"{'yes' if s.satisfied else 'no':>9} {s.rank:>5} {s.free_dofs:>5} "
                f"{s.error_norm:>10.3e} {_fmt_fraction(s.reducible)}"
            )
            names = [short_name(t) for t in s.tasks]  # the level's tasks, below its row
            lines += [indent + line for line in _wrap(names, REPORT_WIDTH - len(indent))]
        return "\n".join(
            lines
            + list(LEVEL_LEGEND)
            + format_active_bounds(self.active)
            + _relaxed_lines(self.relaxed)
        )


def hierarchy_report(
    configuration: Configuration,
    levels: Sequence[Sequence[Task]],
    dt: float,
    v: np.ndarray,
    limits: Sequence[Limit] | None = None,
    tol: float = 1e-6,
) -> HierarchyReport:
    """Explain a prioritized step ``v``: each level's residual, whether it was satisfied,
    the directions it used and left, the fraction of its error those directions can reduce,
    and every active bound.

    Call it with the same arguments as :func:`taskik.solve_ik` plus the returned ``v``.
    """
    configuration = check_configuration(configuration, "hierarchy_report")
    dt = check_positive_scalar(dt, "dt")
    tol = check_scalar(tol, "tol", 0.0)
    levels = check_levels(levels)
    nv = configuration.nv
    v = check_finite_array(v, "v", (nv,))
    statuses = []
    Z = np.eye(nv)
    for k, tasks in enumerate(levels):
        terms = [t.compute_term(configuration, dt) for t in tasks]
        A = np.vstack([a for a, _, _ in terms]) if terms else np.zeros((0, nv))
        c = np.concatenate([cc for _, cc, _ in terms]) if terms else np.zeros(0)
        e = np.concatenate([t.compute_error(configuration) for t in tasks]) if tasks else c
        with np.errstate(over="ignore", invalid="ignore"):  # (an overflow: refused below)
            residual = float(np.linalg.norm(A @ v - c))
            requested = float(np.linalg.norm(c))
        AZ = A @ Z
        level_reducible = reducible(AZ, c)
        null, rank = null_basis(AZ, float(np.linalg.norm(A)))
        Z = Z @ null
        statuses.append(
            LevelStatus(
                k,
                [repr(t) for t in tasks],
                requested,
                residual,
                residual <= tol * max(1.0, requested),
                rank,
                Z.shape[1],
                float(np.linalg.norm(e)),
                level_reducible,
            )
        )
    _check_finite_report(
        [x for s in statuses for x in (s.requested, s.residual)], "v, dt or the targets"
    )
    flat = [t for tasks in levels for t in tasks]
    active = report(configuration, flat, dt, v, limits, tol=tol).active if flat else []
    return HierarchyReport(statuses, active, relaxed_in(configuration, v))
