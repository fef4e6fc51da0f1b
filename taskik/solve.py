"""One differential-IK step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .backends.qp import DaqpWorkspace, check_solver, default_solver, solve_qp_arrays
from .configuration import Configuration
from .exceptions import InvalidInput
from .limits.limit import Limit
from .problem import Assembler, check_damping, check_tasks, resolve_limits
from .tasks.task import Task

_MAX_CACHED_PLANS = 16
_DEFAULT_SOLVER = default_solver()


def cached_plan(configuration: Configuration, tag: str, tasks, limits, key, snapshot, build, bad):
    """The plan cached on ``configuration`` for ``tasks`` and ``limits`` (``build()`` on first
    use), shared by the one-level step (``tag`` "step") and the hierarchy ("levels").

    The cache key is ``(tag, key(tasks), ids of the limits)``, ``key`` giving the identity of
    every task, so editing a list in place (adding or removing a task) selects another plan;
    a plan holds references to its tasks and limits, so identities are not reused while it is
    cached. Repeated calls with the same lists take a one-entry fast path: the last lists and
    a ``snapshot(tasks)`` of their contents (None: no fast path), compared by identity.
    ``build(configuration, tasks, limits)`` makes a plan; ``bad(tasks, limits)`` raises the
    error for lists that cannot be keyed.
    """
    plans = configuration._plans
    last = plans.get(tag)  # (tasks, limits, their snapshots, plan) of the last call
    if (
        last is not None
        and last[0] is tasks
        and last[1] is limits
        and last[2] == tasks  # same objects in the same order (the list may be edited in place)
        and (limits is None or last[3] == limits)
    ):
        return last[4]
    try:
        full_key = (tag, key(tasks), None if limits is None else tuple(map(id, limits)))
    except TypeError:
        bad(tasks, limits)
        raise
    plan = plans.get(full_key)
    if plan is None:
        plan = build(configuration, tasks, limits)
        if len(plans) >= _MAX_CACHED_PLANS:
            plans.clear()
        plans[full_key] = plan
    snap = snapshot(tasks)
    if snap is not None:
        plans[tag] = (tasks, limits, snap, None if limits is None else list(limits), plan)
    return plan


def _step_key(tasks) -> tuple:
    return tuple(map(id, tasks))


def _step_snapshot(tasks) -> list | None:
    return list(tasks) if isinstance(tasks, list) else None


def _step_assembler(configuration, tasks, limits) -> Assembler:
    return Assembler(configuration, check_tasks(tasks), resolve_limits(configuration, limits))


def _bad_task_lists(tasks, limits):
    raise InvalidInput(
        f"tasks and limits must be lists, got {type(tasks).__name__}, {type(limits).__name__}"
    ) from None


def get_assembler(
    configuration: Configuration, tasks: Sequence[Task], limits: Sequence[Limit] | None
) -> Assembler:
    """The cached :class:`Assembler` for this task and limit list (built on first use; see
    :func:`cached_plan`)."""
    return cached_plan(
        configuration,
        "step",
        tasks,
        limits,
        _step_key,
        _step_snapshot,
        _step_assembler,
        _bad_task_lists,
    )


def is_hierarchy(tasks) -> bool:
    """True when ``tasks`` is a list of levels (lists of tasks), highest priority first.

    Decided on the first element; the hierarchy solver validates every level.
    """
    return isinstance(tasks, list | tuple) and len(tasks) > 0 and isinstance(tasks[0], list | tuple)


_dispatch: dict = {}


def _solver_of(name: str):
    """``solve_unconstrained`` or ``solve_hierarchy``, imported once on first use."""
    fn = _dispatch.get(name)
    if fn is None:
        if name == "unconstrained":
            from .backends.unconstrained import solve_unconstrained as fn
        else:
            from .hierarchy import solve_hierarchy as fn
        _dispatch[name] = fn
    return fn


def solve_ik(
    configuration: Configuration,
    tasks: Sequence[Task] | Sequence[Sequence[Task]],
    dt: float,
    limits: Sequence[Limit] | None = None,
    solver: str | None = None,
    damping: float = 1e-12,
    backend: str = "qp",
    **solver_kwargs,
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
        solver_kwargs: passed to the QP solver (or options of the chosen backend).

    Raises:
        InvalidInput: bad dt, damping, task or limit list, or solver name.
        NoSolutionFound: the solver found no solution; names it, its status and the limits
            that conflict.
    """
    if not (isinstance(dt, float | int) and 0.0 < dt < float("inf")):
        raise InvalidInput(f"dt must be finite and > 0 (seconds), got {dt!r}")
    if damping != 1e-12:
        damping = check_damping(damping)
    if backend != "qp":
        return _solver_of("unconstrained")(
            configuration, tasks, float(dt), limits, backend, damping, **solver_kwargs
        )
    if is_hierarchy(tasks):
        return _solver_of("hierarchy")(
            configuration, tasks, float(dt), limits, solver, damping, **solver_kwargs
        )
    solver = _DEFAULT_SOLVER if solver is None else check_solver(solver)
    asm = get_assembler(configuration, tasks, limits)
    P, r, G, h, lb, ub = asm.assemble(configuration, float(dt), damping)
    if solver == "daqp" and G is None and lb is not None and not solver_kwargs:
        # the common case: a warm-started DAQP workspace; failures take the full, checked path
        workspace = asm.qp_workspace
        if workspace is None:
            workspace = asm.qp_workspace = DaqpWorkspace()
        x = workspace.solve(P, r, lb, ub)
        if x is not None:
            # remove the solver's feasibility tolerance (≤ 1e-6): limits hold exactly
            np.maximum(x, lb, out=x)
            return np.minimum(x, ub, out=x)
    return solve_qp_arrays(
        P, r, G, h, lb, ub, solver, lambda: asm.boxes, asm.limits, **solver_kwargs
    )
