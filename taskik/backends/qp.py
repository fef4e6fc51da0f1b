"""QP backend: solves the step's QP through qpsolvers (DAQP called directly when chosen)."""

from __future__ import annotations

import difflib

import numpy as np
import qpsolvers

from ..exceptions import InvalidInput, NoSolutionFound
from ..problem import Problem, box_conflicts

#: DAQP's representation of an infinite bound.
_DAQP_INF = 1e30

#: Preference order for the default solver (chosen by measurement, see benchmarks/).
PREFERRED_SOLVERS = ("daqp", "proxqp", "quadprog", "osqp")


def default_solver() -> str:
    """The fastest installed QP solver for the small dense QPs of IK steps."""
    for name in PREFERRED_SOLVERS:
        if name in qpsolvers.available_solvers:
            return name
    if not qpsolvers.available_solvers:
        raise InvalidInput("no QP solver is installed; install taskik with qpsolvers[daqp]")
    return qpsolvers.available_solvers[0]


def check_solver(solver: str) -> str:
    """Return ``solver`` if qpsolvers can use it, else raise naming the installed ones."""
    if solver in qpsolvers.available_solvers:
        return solver
    close = difflib.get_close_matches(str(solver), qpsolvers.available_solvers, n=3)
    hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
    raise InvalidInput(
        f"QP solver {solver!r} is not available{hint}; installed: "
        f"{', '.join(qpsolvers.available_solvers)}"
    )


def _solve_daqp(problem: Problem, **kwargs):
    import daqp

    nv = problem.nv
    lb = np.full(nv, -_DAQP_INF) if problem.lb is None else np.maximum(problem.lb, -_DAQP_INF)
    ub = np.full(nv, _DAQP_INF) if problem.ub is None else np.minimum(problem.ub, _DAQP_INF)
    if problem.G is None:
        A = np.zeros((0, nv))
        bu, bl = ub, lb
    else:
        A = np.ascontiguousarray(problem.G)
        bu = np.concatenate([ub, np.minimum(problem.h, _DAQP_INF)])
        bl = np.concatenate([lb, np.full(len(problem.h), -_DAQP_INF)])
    x, _, exitflag, _ = daqp.solve(problem.P, problem.r, A, bu, bl, **kwargs)
    if exitflag <= 0:
        return None, f"DAQP exit flag {exitflag}"
    return np.asarray(x), "optimal"


def solve_qp(problem: Problem, solver: str, **kwargs) -> np.ndarray:
    """Solve the step QP with ``solver``; raise :class:`NoSolutionFound` on failure."""
    if solver == "daqp":
        v, status = _solve_daqp(problem, **kwargs)
    else:
        qp = qpsolvers.Problem(
            problem.P, problem.r, problem.G, problem.h, None, None, problem.lb, problem.ub
        )
        sol = qpsolvers.solve_problem(qp, solver=solver, **kwargs)
        v = sol.x if sol.found else None
        status = "optimal" if sol.found else f"not found ({sol.extras or 'no details'})"
    if v is None or not np.isfinite(v).all():
        conflicts = box_conflicts(problem.boxes, problem.nv)
        if problem.G is not None:
            names = sorted({lim.name for lim in problem.limits if lim.compute_inequalities})
            conflicts.append(f"inequality rows from limits {names} may be infeasible")
        raise NoSolutionFound(solver, status, conflicts)
    return v
