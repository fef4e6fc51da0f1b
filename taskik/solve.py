"""One differential-IK step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .backends.qp import check_solver, default_solver, solve_qp_arrays
from .configuration import Configuration
from .exceptions import InvalidInput
from .limits.limit import Limit
from .problem import Assembler, check_damping, check_tasks, resolve_limits
from .tasks.task import Task

_MAX_CACHED_PLANS = 16


def get_assembler(
    configuration: Configuration, tasks: Sequence[Task], limits: Sequence[Limit] | None
) -> Assembler:
    """The cached :class:`Assembler` for this task and limit list (built on first use).

    The cache key is the identity of every task and limit object, so editing a list in place
    (adding or removing a task) selects another assembler; the assembler holds references to
    its tasks and limits, so identities are not reused while it is cached.
    """
    try:
        key = (tuple(map(id, tasks)), None if limits is None else tuple(map(id, limits)))
    except TypeError:
        raise InvalidInput(
            f"tasks and limits must be lists, got {type(tasks).__name__}, {type(limits).__name__}"
        ) from None
    plans = configuration._plans
    asm = plans.get(key)
    if asm is None:
        asm = Assembler(configuration, check_tasks(tasks), resolve_limits(configuration, limits))
        if len(plans) >= _MAX_CACHED_PLANS:
            plans.clear()
        plans[key] = asm
    return asm


def solve_ik(
    configuration: Configuration,
    tasks: Sequence[Task],
    dt: float,
    limits: Sequence[Limit] | None = None,
    solver: str | None = None,
    damping: float = 1e-12,
    **solver_kwargs,
) -> np.ndarray:
    """Velocity ``v`` (size nv) that best achieves the tasks in one step of ``dt`` seconds.

    Solves ``min Σ_i ‖W_i (J_i v − Kp_i e_i / dt)‖² + Σ μ_i ‖v‖² + damping ‖v‖²`` subject
    to the limits (a merged box ``lb ≤ v ≤ ub`` and inequality rows ``G v ≤ h``). Apply it
    with ``configuration.integrate_inplace(v, dt)``.

    Args:
        configuration: robot configuration (kinematics up to date).
        tasks: the tasks, weighted by their costs.
        dt: step duration (s), > 0.
        limits: None for the model's position and velocity limits; ``[]`` for none.
        solver: any qpsolvers solver name; the default is the fastest installed
            (``taskik.default_solver()``: DAQP, called directly without qpsolvers' conversion).
        damping: Tikhonov regularisation ``damping ‖v‖²`` of the step, ≥ 0.
        solver_kwargs: passed to the QP solver.

    Raises:
        InvalidInput: bad dt, damping, task or limit list, or solver name.
        NoSolutionFound: the solver found no solution; names it, its status and the limits
            that conflict.
    """
    if not (isinstance(dt, float | int) and 0.0 < dt < float("inf")):
        raise InvalidInput(f"dt must be finite and > 0 (seconds), got {dt!r}")
    if damping != 1e-12:
        damping = check_damping(damping)
    solver = default_solver() if solver is None else check_solver(solver)
    asm = get_assembler(configuration, tasks, limits)
    P, r, G, h, lb, ub = asm.assemble(configuration, float(dt), damping)
    return solve_qp_arrays(
        P, r, G, h, lb, ub, solver, lambda: asm.boxes, asm.limits, **solver_kwargs
    )
