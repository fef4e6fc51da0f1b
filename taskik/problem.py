"""Assembly of task terms and limits into the QP of one step.

    minimise   ½ vᵀ P v + rᵀ v
    subject to G v ≤ h,   lb ≤ v ≤ ub

with ``A`` the stacked weighted Jacobians ``W_i J_i`` and ``c`` the stacked weighted
velocity residuals ``W_i Kp_i e_i / dt``:

    P = AᵀA + (Σ μ_i + damping) I,   r = −Aᵀ c.

The same ``(A, c)`` is the least-squares system ``A v ≈ c`` of the unconstrained backends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .configuration import Configuration
from .exceptions import InvalidInput, NoSolutionFound, check_positive_scalar
from .limits.limit import Limit
from .tasks.task import Task


@dataclass
class BoxBound:
    """Bounds one limit puts on ``v[indices]`` (kept for reports and error messages)."""

    limit: Limit
    indices: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


@dataclass
class Problem:
    """The QP of one step, for inspection or for a solver of your own.

    ``lb``/``ub`` are None when no limit puts a box on v (±inf entries are unbounded);
    ``G``/``h`` are None when no limit adds inequality rows.
    """

    P: np.ndarray
    r: np.ndarray
    G: np.ndarray | None
    h: np.ndarray | None
    lb: np.ndarray | None
    ub: np.ndarray | None
    A: np.ndarray
    c: np.ndarray
    mu: float
    limits: list = field(default_factory=list)
    boxes: list = field(default_factory=list)

    @property
    def nv(self) -> int:
        return self.P.shape[0]


def check_tasks(tasks) -> list[Task]:
    """Validate the task list (a sequence of :class:`Task`)."""
    if isinstance(tasks, Task):
        return [tasks]
    if not isinstance(tasks, Sequence | set | frozenset | tuple):
        raise InvalidInput(f"tasks must be a list of Task objects, got {type(tasks).__name__}")
    for t in tasks:
        if not isinstance(t, Task):
            raise InvalidInput(f"tasks must contain Task objects, got {type(t).__name__}")
    return list(tasks)


def check_damping(damping: float) -> float:
    d = float(damping)
    if not (d >= 0.0 and np.isfinite(d)):
        raise InvalidInput(f"damping must be finite and >= 0, got {damping!r}")
    return d


def stack_terms(configuration: Configuration, tasks: list[Task], dt: float):
    """``(A, c, Σμ)``: the stacked weighted rows of every task."""
    nv = configuration.nv
    if not tasks:
        return np.zeros((0, nv)), np.zeros(0), 0.0
    rows, rhs, mu = [], [], 0.0
    for task in tasks:
        A_i, c_i, mu_i = task.compute_term(configuration, dt)
        rows.append(A_i)
        rhs.append(c_i)
        mu += mu_i
    A = np.vstack(rows) if len(rows) > 1 else np.asarray(rows[0])
    c = np.concatenate(rhs) if len(rhs) > 1 else rhs[0]
    if not (np.isfinite(A).all() and np.isfinite(c).all()):
        bad = [t for t in tasks if not np.isfinite(t.compute_error(configuration)).all()]
        raise InvalidInput(f"non-finite task error or Jacobian in {bad or tasks}")
    return A, c, mu


def merge_boxes(configuration: Configuration, limits: list[Limit], dt: float):
    """Merge box limits into one ``lb ≤ v ≤ ub`` and stack inequality rows.

    Hard boxes are intersected first; soft boxes are clipped into the hard box and then
    intersected. Raises :class:`NoSolutionFound` naming the limits if two hard boxes conflict.
    """
    nv = configuration.nv
    boxes: list[BoxBound] = []
    G_rows, h_rows = [], []
    lb_hard = ub_hard = lb_soft = ub_soft = None
    for limit in limits:
        box = limit.compute_box(configuration, dt)
        if box is not None:
            idx, lo, hi = box
            boxes.append(BoxBound(limit, idx, lo, hi))
            if limit.hard:
                if lb_hard is None:
                    lb_hard, ub_hard = np.full(nv, -np.inf), np.full(nv, np.inf)
                lb_hard[idx] = np.maximum(lb_hard[idx], lo)
                ub_hard[idx] = np.minimum(ub_hard[idx], hi)
            else:
                if lb_soft is None:
                    lb_soft, ub_soft = np.full(nv, -np.inf), np.full(nv, np.inf)
                lb_soft[idx] = np.maximum(lb_soft[idx], lo)
                ub_soft[idx] = np.minimum(ub_soft[idx], hi)
        rows = limit.compute_inequalities(configuration, dt)
        if rows is not None:
            G_rows.append(rows[0])
            h_rows.append(rows[1])
    if lb_hard is not None and (lb_hard > ub_hard).any():
        raise NoSolutionFound("(none)", "inconsistent hard bounds", box_conflicts(boxes, nv))
    if lb_soft is None:
        lb, ub = lb_hard, ub_hard
    elif lb_hard is None:
        lb, ub = lb_soft, ub_soft
    else:
        lb = np.maximum(lb_hard, np.clip(lb_soft, lb_hard, ub_hard))
        ub = np.minimum(ub_hard, np.clip(ub_soft, lb_hard, ub_hard))
    if lb is not None and (lb > ub).any():
        raise NoSolutionFound("(none)", "inconsistent bounds", box_conflicts(boxes, nv))
    G = np.vstack(G_rows) if G_rows else None
    h = np.concatenate(h_rows) if h_rows else None
    return lb, ub, G, h, boxes


def box_conflicts(boxes: list[BoxBound], nv: int) -> list[str]:
    """Describe every velocity index whose lower bound from one limit exceeds another's upper."""
    out = []
    for i in range(nv):
        lows = [(b.lower[k], b) for b in boxes for k in np.flatnonzero(b.indices == i)]
        highs = [(b.upper[k], b) for b in boxes for k in np.flatnonzero(b.indices == i)]
        if not lows:
            continue
        lo, blo = max(lows, key=lambda x: x[0])
        hi, bhi = min(highs, key=lambda x: x[0])
        if lo > hi:
            model = getattr(blo.limit, "model", None)
            joint = blo.limit.describe_index(model, i) if model is not None else f"v[{i}]"
            out.append(
                f"{joint}: {blo.limit.name} limit lower bound {lo:.6g} > "
                f"{bhi.limit.name} limit upper bound {hi:.6g}"
            )
    return out


def build_ik(
    configuration: Configuration,
    tasks: Sequence[Task],
    dt: float,
    limits: Sequence[Limit] | None = None,
    damping: float = 1e-12,
) -> Problem:
    """Build the QP of one step (see the module docstring for P, r, G, h, lb, ub).

    Args:
        configuration: robot configuration with up-to-date kinematics.
        tasks: tasks, weighted against each other by their costs.
        dt: step duration (s), > 0.
        limits: limits on v; None means the model's position and velocity limits,
            ``[]`` means none.
        damping: Tikhonov term ``damping ‖v‖²`` that keeps P positive definite.
    """
    dt = check_positive_scalar(dt, "dt")
    damping = check_damping(damping)
    tasks = check_tasks(tasks)
    if limits is None:
        limits = configuration.default_limits()
    else:
        for lim in limits:
            if not isinstance(lim, Limit):
                raise InvalidInput(f"limits must contain Limit objects, got {type(lim).__name__}")
        limits = list(limits)
    A, c, mu = stack_terms(configuration, tasks, dt)
    P = A.T @ A
    P[np.diag_indices_from(P)] += mu + damping
    r = -(A.T @ c)
    lb, ub, G, h, boxes = merge_boxes(configuration, limits, dt)
    return Problem(P, r, G, h, lb, ub, A, c, mu, limits, boxes)
