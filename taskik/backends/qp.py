"""QP backend: solves the step's QP through qpsolvers (DAQP called directly when chosen)."""

from __future__ import annotations

import difflib
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from math import isfinite
from typing import Any

import numpy as np
import qpsolvers
from scipy.linalg.lapack import dposv

from ..exceptions import InvalidInput, NoSolutionFound
from ..limits.limit import Limit
from ..problem import BoxBound, Problem, box_conflicts, crossed

try:
    import daqp
except ImportError:  # pragma: no cover - daqp is a dependency through qpsolvers[daqp]
    daqp = None

#: Preference order for the default solver (chosen by measurement: benchmarks/qp_solvers.py).
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


#: Proximal regularisation used to retry DAQP when its active set fails on a singular P.
PROXIMAL_EPS = 1e-6


_maximum, _minimum = np.maximum, np.minimum  # (the projection onto the box, per step)
_le = operator.le


def _within(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
    """``lower ≤ x ≤ upper`` entrywise, compared on lists (cheaper than numpy's comparisons
    and reduction at a step's sizes); a NaN fails it."""
    xs = x.tolist()
    return all(map(_le, lower.tolist(), xs)) and all(map(_le, xs, upper.tolist()))


@cache
def _empty_rows(nv: int) -> np.ndarray:
    return np.zeros((0, nv))


class DaqpWorkspace:
    """A DAQP workspace reused from one solve to the next.

    Solves ``min ½xᵀPx + rᵀx`` s.t. ``lower ≤ [x; A x] ≤ upper`` (the first
    ``len(upper) − len(A)`` entries bound x directly). The workspace keeps its memory and its
    last active set, which warm-starts the next solve: consecutive control steps have
    similar QPs. A change of dimensions sets it up anew. ``solve`` returns None on failure
    (and drops the workspace), so the caller can fall back to a cold, checked solve;
    ``lam`` holds the multipliers of the last successful solve.

    :meth:`solve_box` adds the shortcut of a control loop whose bounds are inactive.
    """

    __slots__ = ("model", "shape", "lam", "bound", "_bounds")

    def __init__(self) -> None:
        self.model: daqp.Model | None = None
        self.shape: tuple[int, int, int] | None = None
        self.lam: np.ndarray | None = None
        #: whether a bound was active at the last :meth:`solve_box` (then DAQP goes first)
        self.bound = False
        #: :meth:`solve_rows`' ``[lower, −inf]`` and ``[upper, h]``, written in place through
        #: their views (the box's lower and upper bounds, h) that follow them in the tuple
        self._bounds: tuple[np.ndarray, ...] | None = None

    def solve_box(
        self, P: np.ndarray, r: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> np.ndarray | None:
        """``argmin ½xᵀPx + rᵀx`` s.t. ``lower ≤ x ≤ upper``, or None on failure.

        When no bound was active at the last call, the unconstrained minimiser
        ``x = −P⁻¹r`` (one Cholesky solve, LAPACK ``dposv``) is tried first: if it lies in
        the box it is the solution of the convex QP, and the active-set solver is not
        called. Otherwise, and while bounds stay active, the warm DAQP workspace solves the
        QP. The shortcut is an order of magnitude faster for large ``nv`` (an active-set
        solver re-factorises ``P`` and checks every bound); its answer equals DAQP's to
        the rounding of the factorisation. DAQP's answer is projected onto the box (it
        meets bounds to its tolerance, 1e-6), so the bounds hold exactly either way.
        """
        if not len(r):  # a model without degrees of freedom (LAPACK refuses 0 × 0)
            return np.zeros(0)
        if not self.bound:
            _, x, info = dposv(P, -r)
            # (an overflowed P, costs near the float range, is left to the checked path; the
            # box compared on lists, cheaper than numpy's comparisons and reduction at these
            # sizes, NaN fails it; the diagonal summed as a list, cheaper than numpy's trace:
            # inf or NaN on it makes either sum non-finite)
            if info == 0 and _within(x, lower, upper) and isfinite(sum(P.diagonal().tolist())):
                return x
        x = self._solve(P, r, lower, upper, None)
        if x is None:
            return None
        # (a multiplier list's truth is cheaper than numpy's reductions for small n;
        # NaN counts as nonzero, as in count_nonzero)
        self.bound = any(self.lam.tolist())  # type: ignore[union-attr]
        if not self.bound and not _within(x, lower, upper):
            # no bound active, yet outside the box: the bounds cross (a warm DAQP takes a
            # crossed pair as inactive); the checked path names the conflict
            self.model = None
            return None
        _minimum(_maximum(x, lower, out=x), upper, out=x)
        return x

    def solve_rows(
        self,
        P: np.ndarray,
        r: np.ndarray,
        G: np.ndarray,
        h: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
    ) -> np.ndarray | None:
        """``argmin ½xᵀPx + rᵀx`` s.t. ``G x ≤ h``, ``lower ≤ x ≤ upper`` on the warm
        workspace (projected onto the box), or None on failure."""
        # crossed bounds (a warm DAQP would take them as inactive) take the checked path,
        # which names the conflict; the rows' lower bounds, −inf, cross nothing
        if crossed(lower, upper):
            self.model = None
            return None
        n, k = len(lower), len(lower) + len(h)
        bounds = self._bounds
        if bounds is None or len(bounds[0]) != k or len(bounds[2]) != n:
            below, above = np.full(k, -np.inf), np.empty(k)
            bounds = self._bounds = (below, above, below[:n], above[:n], above[n:])
        # (written through views made with the arrays: a slice made at each call costs more)
        below, above, box_below, box_above, rows_above = bounds
        box_below[...] = lower
        box_above[...] = upper
        rows_above[...] = h
        x = self._solve(P, r, below, above, G if G.flags.c_contiguous else np.ascontiguousarray(G))
        if x is not None:
            _minimum(_maximum(x, lower, out=x), upper, out=x)
        return x

    def solve(
        self,
        P: np.ndarray,
        r: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        A: np.ndarray | None = None,
    ) -> np.ndarray | None:
        if crossed(lower, upper):  # (a warm DAQP would take crossed bounds as inactive)
            self.model = None
            return None
        return self._solve(P, r, lower, upper, A)

    def _solve(
        self,
        P: np.ndarray,
        r: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        A: np.ndarray | None,
    ) -> np.ndarray | None:
        n = len(r)
        rows = _empty_rows(n) if A is None else A
        shape = (n, len(upper), len(rows))
        model = self.model
        try:
            if model is None or shape != self.shape:
                model = daqp.Model()
                model.setup(P, r, rows, upper, lower)
                self.model, self.shape = model, shape
            elif shape[2]:
                model.update(H=P, f=r, A=rows, bupper=upper, blower=lower)
            else:
                model.update(H=P, f=r, bupper=upper, blower=lower)
            x, _, exitflag, info = model.solve()
        except RuntimeError:  # a set-up DAQP refuses (e.g. lower > upper): the checked path
            self.model = None  # names the problem
            return None
        if exitflag > 0 and math.isfinite(x.dot(x)):
            self.lam = info["lam"]
            return x
        self.model = None
        return None


def for_solver(M: np.ndarray, solver: str) -> Any:
    """``M`` as the solver takes it: a SciPy CSC matrix for the solvers that take only sparse
    matrices (OSQP; qpsolvers would convert it, with a warning, at every call), else as is."""
    if solver in qpsolvers.sparse_solvers and solver not in qpsolvers.dense_solvers:
        from scipy.sparse import csc_matrix

        return csc_matrix(M)
    return M


def solver_options(solver: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The options passed on to ``solver``: OSQP's ``raise_error`` set to False unless given
    (what its default is today; OSQP warns at every call that the default will change)."""
    if solver == "osqp" and "raise_error" not in kwargs:
        return {**kwargs, "raise_error": False}
    return dict(kwargs)


def daqp_constraints(
    nv: int,
    G: np.ndarray | None,
    h: np.ndarray | None,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A, upper, lower)`` in DAQP's layout: the first nv bounds are simple bounds on v
    (±inf = unbounded), the rest bound the rows ``G v ≤ h``."""
    if lb is None:
        lb = np.full(nv, -np.inf)
    if ub is None:
        ub = np.full(nv, np.inf)
    if G is None:
        return _empty_rows(nv), ub, lb
    if h is None:
        raise InvalidInput("inequality rows G v <= h were given without h")
    upper = np.concatenate([ub, h])
    lower = np.concatenate([lb, np.full(len(h), -np.inf)])
    return np.ascontiguousarray(G), upper, lower


def daqp_solve(
    P: np.ndarray,
    f: np.ndarray,
    rows: np.ndarray,
    upper: np.ndarray,
    lower: np.ndarray,
    kwargs: Mapping[str, Any],
) -> tuple[np.ndarray | None, str, np.ndarray | None]:
    """DAQP on ``lower ≤ [I; rows] x ≤ upper`` (the first ``len(upper) − len(rows)`` entries
    bound x directly): ``(x | None, status, multipliers | None)``. Options DAQP does not know
    raise :class:`InvalidInput`; a set-up DAQP refuses is a failure, not an exception."""
    try:
        x, _, exitflag, info = daqp.solve(P, f, rows, upper, lower, **kwargs)
    except TypeError as exc:
        raise InvalidInput(
            f"QP solver 'daqp' does not accept the options {sorted(kwargs)}: {exc}"
        ) from None
    except RuntimeError as exc:
        return None, f"DAQP set-up failed ({exc})", None
    if exitflag <= 0:
        return None, f"DAQP exit flag {exitflag}", None
    return np.asarray(x), "optimal", np.asarray(info["lam"])


def _solve_daqp(
    P: np.ndarray,
    r: np.ndarray,
    G: np.ndarray | None,
    h: np.ndarray | None,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    **kwargs: Any,
) -> tuple[np.ndarray | None, str]:
    """DAQP directly on ``lb ≤ v ≤ ub`` (simple bounds) and ``G v ≤ h``."""
    A, bu, bl = daqp_constraints(P.shape[0], G, h, lb, ub)
    x, status, _ = daqp_solve(P, r, A, bu, bl, kwargs)
    if x is None and "eps_prox" not in kwargs:
        # A nearly singular P (redundant robot, few tasks, tiny damping) can make the active
        # set fail; DAQP's proximal-point mode solves the same convex QP exactly.
        x, status, _ = daqp_solve(P, r, A, bu, bl, {**kwargs, "eps_prox": PROXIMAL_EPS})
    return x, status


def _name_rows(
    G: np.ndarray, h: np.ndarray, lb: np.ndarray | None, ub: np.ndarray | None, limits: list
) -> str:
    """Which inequality rows make the QP infeasible: the rows that no ``v`` in the box can
    meet alone, named by their limit (``Limit.row_names``); otherwise every row's limit."""
    names: list[str] = []
    for lim in limits:
        own = lim.row_names()
        names += own if own else []
    lo = np.full(G.shape[1], -np.inf) if lb is None else lb
    hi = np.full(G.shape[1], np.inf) if ub is None else ub
    with np.errstate(invalid="ignore"):  # 0 × inf: a zero coefficient on an unbounded v
        least = np.nansum(np.minimum(G * lo, G * hi), axis=1)  # min of G v over the box
    alone = np.flatnonzero(least > h + 1e-9)
    if len(names) == len(h) and len(alone):
        listed = ", ".join(names[i] for i in alone[:5])
        return f"{len(alone)} inequality rows cannot hold within the velocity box: {listed}"
    if len(names) == len(h):
        listed = ", ".join(names[:5]) + (" …" if len(names) > 5 else "")
        return f"the inequality rows of {listed} conflict with each other or with the box"
    kinds = sorted({lim.name for lim in limits})
    return f"inequality rows from limits {kinds} may be infeasible"


def solve_qp_arrays(
    P: np.ndarray,
    r: np.ndarray,
    G: np.ndarray | None,
    h: np.ndarray | None,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    solver: str,
    boxes: Iterable[BoxBound] | Callable[[], Iterable[BoxBound]] = (),
    limits: Iterable[Limit] = (),
    **kwargs: Any,
) -> np.ndarray:
    """Solve ``min ½vᵀPv + rᵀv, Gv ≤ h, lb ≤ v ≤ ub``; raise :class:`NoSolutionFound` on failure.

    ``boxes`` and ``limits`` only serve to name the conflicting limits in the error.
    """
    try:
        if solver == "daqp":
            v, status = _solve_daqp(P, r, G, h, lb, ub, **kwargs)
        else:
            P_, G_ = for_solver(P, solver), None if G is None else for_solver(G, solver)
            qp = qpsolvers.Problem(P_, r, G_, h, None, None, lb, ub)
            sol = qpsolvers.solve_problem(qp, solver=solver, **solver_options(solver, kwargs))
            v = sol.x if sol.found else None
            status = "optimal" if sol.found else f"not found ({sol.extras or 'no details'})"
    except (TypeError, ValueError) as exc:
        if not kwargs or isinstance(exc, InvalidInput):
            raise
        # (DAQP and most solvers raise TypeError for an unknown option, OSQP ValueError)
        raise InvalidInput(
            f"QP solver {solver!r} does not accept the options {sorted(kwargs)}: {exc}"
        ) from None
    if v is None or not math.isfinite(v @ v):
        if v is not None:
            status = "non-finite solution"
        boxes = boxes() if callable(boxes) else boxes
        conflicts = box_conflicts(list(boxes), P.shape[0])
        hint = None
        if (lb is not None and np.isnan(lb).any()) or (ub is not None and np.isnan(ub).any()):
            hint = "the limits gave NaN bounds"
        elif G is not None and h is not None:
            conflicts.append(_name_rows(G, h, lb, ub, list(limits)))
        if hint is None and G is None and not conflicts:
            finite = math.isfinite(float(np.abs(P).max(initial=0.0))) and math.isfinite(
                float(np.abs(r).max(initial=0.0))
            )
            hint = (
                "no two limits conflict and there are no inequality rows: "
                + (
                    "the QP is not finite"
                    if not finite
                    else f"the QP is numerically out of range (max |P| = "
                    f"{np.abs(P).max(initial=0.0):.3g}, max |r| = {np.abs(r).max(initial=0.0):.3g})"
                )
                + "; check the task targets, costs and dt"
            )
        raise NoSolutionFound(solver, status, conflicts, hint)
    v = np.array(v, dtype=float)
    # solvers meet bounds up to their tolerance (1e-6 for DAQP, more for OSQP): project
    # onto the box so that the limits hold exactly
    if lb is not None:
        np.maximum(v, lb, out=v)
    if ub is not None:
        np.minimum(v, ub, out=v)
    if not math.isfinite(v @ v):  # the solver ignored a NaN bound, the projection did not
        raise NoSolutionFound(solver, "non-finite solution", [], "the limits gave NaN bounds")
    return v


def solve_qp(problem: Problem, solver: str | None = None, **kwargs: Any) -> np.ndarray:
    """Solve a :class:`Problem` from :func:`taskik.build_ik` with any qpsolvers solver."""
    solver = default_solver() if solver is None else check_solver(solver)
    return solve_qp_arrays(
        problem.P,
        problem.r,
        problem.G,
        problem.h,
        problem.lb,
        problem.ub,
        solver,
        problem.boxes,
        problem.limits,
        **kwargs,
    )
