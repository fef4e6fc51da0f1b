"""One differential-IK step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .backends.qp import check_solver, default_solver, solve_qp
from .configuration import Configuration
from .limits.limit import Limit
from .problem import build_ik
from .tasks.task import Task


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
            (``taskik.backends.default_solver()``, DAQP when present).
        damping: Tikhonov regularisation of the step (s²/rad² scale), ≥ 0.
        solver_kwargs: passed to the QP solver.

    Raises:
        InvalidInput: bad dt, damping, task or limit list, or solver name.
        NoSolutionFound: the solver found no solution; names it, its status and the limits
            that conflict.
    """
    solver = default_solver() if solver is None else check_solver(solver)
    problem = build_ik(configuration, tasks, dt, limits, damping)
    return solve_qp(problem, solver, **solver_kwargs)
