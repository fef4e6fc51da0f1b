"""A readable status of a step: what each task achieved and which limits were active."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .configuration import Configuration
from .limits.limit import Limit
from .problem import build_ik, check_tasks
from .tasks.task import Task


@dataclass
class TaskStatus:
    """One task after a step.

    Attributes:
        name: the task's repr.
        error_norm: ``‖e‖`` before the step (m or rad, mixed for pose tasks).
        weighted_error: ``‖W e‖²``, the task's share of the objective at zero velocity.
        step_residual: ``‖W (J v − Kp e / dt)‖²``, what the step left unachieved.
    """

    name: str
    error_norm: float
    weighted_error: float
    step_residual: float


@dataclass
class ActiveBound:
    """A velocity bound the step touches (within ``tol``)."""

    limit: str
    joint: str
    side: str  # "lower" or "upper"
    bound: float
    value: float


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
    """Per-task errors and per-limit active bounds of one step; ``print()`` it."""

    tasks: list[TaskStatus]
    active: list[ActiveBound]

    def __str__(self) -> str:
        lines = [f"{'task':<48} {'|e|':>10} {'|We|^2':>10} {'step res.':>10}"]
        for t in self.tasks:
            lines.append(
                f"{t.name[:48]:<48} {t.error_norm:>10.3e} {t.weighted_error:>10.3e} "
                f"{t.step_residual:>10.3e}"
            )
        return "\n".join(lines + format_active_bounds(self.active))


def report(
    configuration: Configuration,
    tasks: Sequence[Task],
    dt: float,
    v: np.ndarray,
    limits: Sequence[Limit] | None = None,
    tol: float = 1e-6,
) -> StepReport:
    """Explain a step ``v``: each task's error and residual, and every active bound.

    Call it with the same arguments as :func:`taskik.solve_ik` plus the returned ``v``.
    """
    problem = build_ik(configuration, tasks, dt, limits)
    residual = problem.A @ v - problem.c  # the stacked rows W (J v − Kp e / dt), task by task
    statuses = []
    start = 0
    for task in check_tasks(tasks):
        e = task.compute_error(configuration)
        we = task.cost * e
        res = residual[start : start + len(e)]
        start += len(e)
        statuses.append(
            TaskStatus(repr(task), float(np.linalg.norm(e)), float(we @ we), float(res @ res))
        )
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
    return StepReport(statuses, active)
