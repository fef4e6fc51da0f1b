"""One differential-IK step."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .backends.qp import DaqpWorkspace, check_solver, default_solver, solve_qp_arrays
from .backends.unconstrained import solve_unconstrained
from .configuration import Configuration
from .exceptions import InvalidInput, check_positive_scalar
from .hierarchy import solve_hierarchy
from .limits import default_limits
from .limits.limit import Limit
from .problem import get_assembler
from .tasks.task import Task
from .trust_region import AdaptiveDamping
from .validation import check_damping, is_hierarchy

_DEFAULT_SOLVER = default_solver()

#: pink's keywords that taskik does not take, and what to write instead.
_PINK_KEYWORDS = {
    "constraints": "hard equality tasks are a priority level in taskik: "
    "solve_ik(configuration, [[hard_task, ...], [other_task, ...]], dt)",
    "barriers": "barriers= takes taskik limits, added to limits= (pink's PositionBarrier is "
    "taskik.limits.PositionBarrier; for pink's self-collision and body-sphere barriers use "
    "taskik.CollisionLimit)",
    "safety_break": "taskik does not check q against its limits before a step (pink's "
    "safety_break=True): call configuration.check_limits() where you need it; "
    "safety_break=False is what taskik does and is accepted",
}


def _check_pink_keywords(kwargs: dict[str, Any]) -> list[Limit]:
    """Drop pink's keywords that mean what taskik does anyway (``safety_break=False``,
    ``constraints``/``barriers`` empty) and return the limits given as ``barriers=``;
    :class:`InvalidInput` naming the taskik way else."""
    barriers: list[Limit] = []
    for name, hint in _PINK_KEYWORDS.items():
        if name in kwargs:
            value = kwargs.pop(name)
            empty = value is None or (isinstance(value, list | tuple) and not value)
            if value is False or (name != "safety_break" and empty):
                continue
            if (
                name == "barriers"
                and isinstance(value, list | tuple)
                and all(isinstance(b, Limit) for b in value)
            ):
                barriers = list(value)
                continue
            raise InvalidInput(f"solve_ik has no {name}= keyword (pink's): {hint}")
    return barriers


_DEFAULT_LIMITS: dict[int, tuple[object, list[Limit]]] = {}


def _with_barriers(
    configuration: Configuration,
    limits: Sequence[Limit] | None,
    barriers: list[Limit],
    damping: float,
) -> tuple[list[Limit], float]:
    """pink's ``barriers=``: the limits with the barriers added (the model's default limits
    when ``limits`` is None, built once per model so the step's plan is found again), and
    the damping plus each barrier's ``safe_damping`` (pink's safe-displacement cost)."""
    if limits is None:
        model = configuration.model
        hit = _DEFAULT_LIMITS.get(id(model))
        if hit is None or hit[0] is not model:
            if len(_DEFAULT_LIMITS) >= 16:
                _DEFAULT_LIMITS.clear()
            hit = _DEFAULT_LIMITS[id(model)] = (model, default_limits(model))
        limits = hit[1]
    merged = [*limits, *barriers]
    key = tuple(map(id, merged))
    cached = _MERGED.get(key)
    if cached is None or any(a is not b for a, b in zip(cached, merged, strict=True)):
        if len(_MERGED) >= 16:
            _MERGED.clear()
        cached = _MERGED[key] = merged  # (the same list every step: its plan is found again)
    for barrier in barriers:
        safe = getattr(barrier, "safe_damping", None)
        if safe is not None:
            damping += float(safe(configuration))
    return cached, damping


# merged limit lists, keyed by their items (which the lists hold, so the ids stay theirs)
_MERGED: dict[tuple[int, ...], list[Limit]] = {}


def _is_model(x: object) -> bool:
    return type(x).__name__ == "Model" and type(x).__module__.startswith("pinocchio")


def solve_ik(
    configuration: Configuration,
    tasks: Sequence[Task] | Sequence[Sequence[Task]],
    dt: float,
    limits: Sequence[Limit] | None = None,
    solver: str | None = None,
    damping: float = 1e-12,
    backend: str = "qp",
    adaptive: bool = True,
    **solver_kwargs: Any,
) -> np.ndarray:
    """Velocity ``v`` (size nv) that best achieves the tasks in one step of ``dt`` seconds.

    Solves ``min Σ_i ‖W_i (J_i v − Kp_i e_i / dt)‖² + Σ μ_i ‖v‖² + damping ‖v‖²`` subject
    to the limits (a merged box ``lb ≤ v ≤ ub`` and inequality rows ``G v ≤ h``). The
    solution is projected onto the box, so bounds hold exactly rather than to the solver's
    tolerance. Apply it with ``configuration.integrate_inplace(v, dt)``.

    Args:
        configuration: robot configuration (kinematics up to date).
        tasks: the tasks, weighted by their costs; or a list of levels
            ``[[feet, com], [hand], [posture]]`` solved with strict priorities, highest first.
        dt: step duration (s), > 0.
        limits: None for the model's position and velocity limits; ``[]`` for none.
        solver: any qpsolvers solver name; the default is the fastest installed
            (``taskik.default_solver()``: DAQP, called directly without qpsolvers' conversion).
        damping: Tikhonov regularisation ``damping ‖v‖²`` of the step, ≥ 0.
        backend: ``"qp"`` (default) or one of the unconstrained least-squares backends of
            :mod:`taskik.backends` (which accept no inequality limits).
        adaptive: in a closed loop (``conf.integrate_inplace(v, dt)`` between calls), add a
            Levenberg–Marquardt damping ``ν ‖W e‖² ‖v‖²`` whose ``ν`` adapts to how well
            each step's linear model predicted the error it reached (:mod:`taskik.trust_region`):
            0 while steps do what they predict, so the step is the plain one; raised when a
            step overshoots or reverses, so the loop comes to rest instead of cycling. And
            when 10 steps in a row lowered no task error by 0.1 % per second (a target out
            of reach or blocked by a limit, approached along a flat valley), the loop rests:
            ``v = 0`` until a target changes or q is set from outside.
            ``False`` gives the plain step every time (the same step as pink's). QP backend
            only.
        solver_kwargs: passed to the QP solver (or options of the chosen backend). pink's
            ``constraints`` and ``safety_break=True`` raise :class:`InvalidInput` naming the
            taskik way; ``safety_break=False`` and empty ``constraints`` are accepted (they
            ask for what taskik does). pink's ``barriers=[...]`` takes taskik limits (e.g.
            :class:`taskik.limits.PositionBarrier`), added to ``limits`` (the model's when
            None), and adds each one's ``safe_damping`` to ``damping``, as pink does.

    Raises:
        InvalidInput: bad dt, damping, task or limit list, or solver name.
        NoSolutionFound: the solver found no solution; names it, its status and the limits
            that conflict.
    """
    if type(configuration) is not Configuration and not isinstance(configuration, Configuration):
        raise InvalidInput(
            f"configuration must be a taskik.Configuration, got {type(configuration).__name__}"
            + (
                " (wrap the model: taskik.Configuration(model, q))"
                if _is_model(configuration)
                else ""
            )
        )
    barriers = _check_pink_keywords(solver_kwargs) if solver_kwargs else None
    if type(dt) is not float or not 0.0 < dt < math.inf:
        dt = check_positive_scalar(dt, "dt (s)")
    if type(damping) is not float or damping != 1e-12:
        damping = check_damping(damping)
    if barriers:
        limits, damping = _with_barriers(configuration, limits, barriers, damping)
    if adaptive is not True and adaptive is not False:
        if not isinstance(adaptive, np.bool_):
            raise InvalidInput(f"adaptive must be True or False, got {adaptive!r}")
        adaptive = bool(adaptive)
    if backend != "qp":
        return solve_unconstrained(
            configuration, tasks, dt, limits, backend, damping, **solver_kwargs
        )
    if is_hierarchy(tasks):
        return solve_hierarchy(
            configuration, tasks, dt, limits, solver, damping, adaptive=adaptive, **solver_kwargs
        )
    solver = _DEFAULT_SOLVER if solver is None else check_solver(solver)
    asm = get_assembler(configuration, tasks, limits)
    control = None
    if adaptive:
        control = asm.adaptive
        if control is None:
            control = asm.adaptive = AdaptiveDamping([slice(0, len(asm.c))])
        control.begin(configuration, asm)
    P, r, G, h, lb, ub = asm.assemble(configuration, dt, damping)
    s = None
    if control is not None:
        if control.needs_errors():
            s = asm.weighted_errors(dt)
            extra = control.dampings(asm, s, [0.0])[0]
            if extra:
                asm._P_diag += extra
        else:  # (not in a closed loop, ν = 0: nothing to compare or to add)
            control.skip(asm)
    x = None
    if control is not None and control.resting and control.rests(lb, ub, h):
        x = np.zeros(len(r))  # the loop is at rest (see taskik.trust_region)
    elif solver == "daqp" and G is None and lb is not None and ub is not None and not solver_kwargs:
        # the common case: a warm-started DAQP workspace; failures take the full, checked path
        workspace = asm.qp_workspace
        if workspace is None:
            workspace = asm.qp_workspace = DaqpWorkspace()
        x = workspace.solve_box(P, r, lb, ub)  # (projected onto the box: limits hold exactly)
    if x is None:
        x = solve_qp_arrays(
            P, r, G, h, lb, ub, solver, lambda: asm.boxes, asm.limits, **solver_kwargs
        )
    if control is not None:
        control.record(configuration, asm, s, x, dt)
    return x
