"""Strict task priorities: hierarchical differential IK with limits at every level.

(This module is longer than 500 lines: the level loop and the QP helpers of its levels share
the solver's conventions and are read together; the loop runs twice when the limits
conflict, see :mod:`taskik.relax`.)

``solve_ik(conf, [[feet, com], [hand], [posture]], dt)`` solves the levels in order, highest
first; tasks inside a level are weighted against each other as usual. Level ``k`` asks

    minimise   ‖A_k v − c_k‖² + λ_k ‖v‖²,      A_k = W J (stacked),  c_k = W Kp e / dt,
    subject to lb ≤ v ≤ ub,  G v ≤ h           (every limit, at every level)
               A_j v = A_j v_j*  for j < k      (what the higher levels achieved is kept)

with ``λ_k = μ_k + damping`` (``μ_k = Σ λ_i Kp_i² ‖W_i e_i‖²`` over the level's tasks).
This is the cascade of QPs of Kanoun, Lamiraux and Wieber, "Kinematic control of redundant
manipulators: generalizing the task-priority framework to inequality task" (IEEE T-RO 2011),
with the higher levels' optimal residual ``w_j* = A_j v_j* − c_j`` fixed as an equality.

The equalities are not handed to the QP solver as rows (stacked levels are often rank
deficient, which active-set solvers dislike). The step is written instead as
``v = v_{k−1} + Z_{k−1} z``, where the orthonormal columns of ``Z_{k−1}`` span the null space
of the stacked ``A_0 … A_{k−1}``: every higher level keeps ``A_j v`` exactly, whatever ``z`` is,
and the level's QP has only ``dim z`` unknowns. With ``B = A_k Z_{k−1}``, ``d = c_k − A_k
v_{k−1}`` and ``w = Z_{k−1}ᵀ v_{k−1}``,

    z = argmin ‖B z − d‖² + λ_k ‖w + z‖² = Bᵀ (B Bᵀ + λ_k I)⁻¹ (d + B w) − w

is the level's optimum without inequalities (computed in the best-conditioned of three
equivalent forms, see :class:`LevelSplit`). A column-pivoted (rank-revealing) QR
``Bᵀ Π = [Q1 Q2] R`` gives the null space ``Q2`` of ``B``, and ``Z_k = Z_{k−1} Q2`` is the
basis handed to the next level.

Without inequalities this is the recursive null-space projection of Siciliano and Slotine,
"A general framework for managing multiple tasks in highly redundant robotic systems"
(ICAR 1991), with singularity-robust damped inverses (Chiaverini, "Singularity-robust
task-priority redundancy resolution for real-time kinematic control of robot manipulators",
IEEE T-RA 1997): since ``N_{k−1} = Z_{k−1} Z_{k−1}ᵀ`` is the augmented projector and
``v_{k−1}`` lies in the row space of the higher levels,

    v_k = v_{k−1} + (A_k N_{k−1})^{#λ} (c_k − A_k v_{k−1}),   X^{#λ} = Xᵀ (X Xᵀ + λ I)⁻¹.

Limits that bind a level. A constraint active at level ``k`` with a nonzero multiplier
holds with equality at every optimum of that level (complementary slackness; for a bound,
the multiplier is the level's gradient component, the same at every optimum), so the lower
levels keep it as an equality: a bound fixes its coordinate, which leaves the basis ``Z``,
and the constraint leaves the lower levels' QPs (as in the hierarchical QP of Escande,
Mansard and Wieber, "Hierarchical quadratic programming: fast online humanoid-robot motion
generation", IJRR 2014). This makes the lower QPs smaller, and it keeps every level exactly
optimal: a lower level can no longer move a coordinate off a bound that a higher level
needs by trading a sliver of that level's optimum within the solver's tolerance. A
multiplier counts when it exceeds ``STRONG_RTOL`` times the level's gradient scale plus
the damping's share, ``2λ‖v‖`` (a bound that only the damping pushes against stays free).

``method="nullspace"`` computes only that (no QP); ``method="cascade"`` calls the QP solver at
every level; ``method="auto"`` (default) takes the null-space path when no limit gives an
inequality, and otherwise solves each level's QP only when the level's unconstrained optimum
violates a limit (a convex QP whose unconstrained minimiser is feasible has that minimiser
as its solution).

Practical notes. Costs weight tasks inside a level only: a level alone in the freedom left to
it gets all it asks for, whatever its cost, so its gain sets its speed (a posture level with
gain 1 at the bottom moves as fast as a top-level task). Strict priority holds for the
velocity of one step: a lower level moving in the null space of a higher level's Jacobian
changes that level's error only at second order, which the next step corrects; when a
higher target is unreachable (a large residual), give that task ``lm_damping`` so its own
steps stay small near the reach boundary.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any, TypeAlias

import numpy as np
import qpsolvers

from .backends.qp import (
    DaqpWorkspace,
    check_solver,
    daqp_constraints,
    daqp_solve,
    default_solver,
    for_solver,
    solve_qp_arrays,
    solver_options,
)
from .configuration import Configuration
from .exceptions import InvalidInput, NoSolutionFound, check_bool, check_positive_scalar
from .limits.limit import Limit
from .nullspace import LevelSplit, constraint_rows, null_basis
from .problem import Assembler
from .relax import Relaxation, record, relaxable, relaxed_rows, rest_within
from .report import HierarchyReport, LevelStatus, hierarchy_report
from .tasks.task import Task
from .trust_region import AdaptiveDamping
from .validation import (
    check_damping,
    check_levels,
    check_limits,
    level_overflow,
    resolve_limits,
)

_Arr: TypeAlias = np.ndarray  # (short names for the helpers' many arrays)
_OptArr: TypeAlias = np.ndarray | None  # the box lb, ub and the rows G, h may be None
_Opts: TypeAlias = dict[str, Any]  # solver options
_WS: TypeAlias = DaqpWorkspace | None
_Levels: TypeAlias = Sequence[Sequence[Task]]
_Limits: TypeAlias = Sequence[Limit] | None
#: Accepted values of the ``method`` keyword of :func:`solve_hierarchy`.
METHODS = ("auto", "cascade", "nullspace")

__all__ = [
    "METHODS",
    "HierarchyReport",
    "LevelSplit",
    "LevelStatus",
    "check_levels",
    "hierarchy_report",
    "null_basis",
    "solve_hierarchy",
]


# ----------------------------------------------------------------------------- QPs
def _feasible(v: _Arr, lb: _OptArr, ub: _OptArr, G: _OptArr, h: _OptArr) -> bool:
    """True when ``v`` satisfies the box and the inequality rows exactly (no tolerance)."""
    if lb is not None and not ((v >= lb).all() and (v <= ub).all()):
        return False
    return G is None or bool((G @ v <= h).all())


def _solve_reduced_qp(
    P: _Arr, f: _Arr, rows: _Arr, lower: _Arr, upper: _Arr, solver: str, kwargs: _Opts, ws: _WS
) -> tuple[_OptArr, str, _OptArr]:
    """``min ½ zᵀPz + fᵀz  s.t. lower ≤ rows z ≤ upper``; ``(z | None, status, multipliers)``.

    ``ws``: the level's warm-started DAQP workspace (DAQP without options), else None. The
    multipliers (one per row; None when the solver does not give them) are those of DAQP.
    """
    if ws is not None:
        z = ws.solve(P, f, lower, upper, rows)
        if z is not None:
            return z, "optimal", ws.lam
    if solver == "daqp":
        # z = 0 (the higher levels' solution) is feasible: warm start from the constraints it
        # makes active, unless they outnumber the unknowns (a degenerate start is slower)
        if "primal_start" not in kwargs:
            n_active = np.count_nonzero(upper <= 0.0) + np.count_nonzero(lower >= 0.0)
            if 0 < n_active <= P.shape[0]:
                kwargs = {**kwargs, "primal_start": np.zeros(P.shape[0])}
        z, status, lam = daqp_solve(P, f, rows, upper, lower, kwargs)
        if z is None and "primal_start" in kwargs:  # retry without the warm start
            kwargs = {k: a for k, a in kwargs.items() if k != "primal_start"}
            z, status, lam = daqp_solve(P, f, rows, upper, lower, kwargs)
        return z, status, lam
    up = np.isfinite(upper)
    lo = np.isfinite(lower)
    G = np.vstack([rows[up], -rows[lo]])
    h = np.concatenate([upper[up], -lower[lo]])
    qp = qpsolvers.Problem(
        for_solver(P, solver), f, for_solver(G, solver) if len(h) else None, h if len(h) else None
    )
    sol = qpsolvers.solve_problem(qp, solver=solver, **solver_options(solver, kwargs))
    if not sol.found:
        return None, f"not found ({sol.extras or 'no details'})", None
    return np.asarray(sol.x), "optimal", None


def _first_level_qp(
    P: _Arr, f: _Arr, G: _OptArr, h: _OptArr, lb: _OptArr, ub: _OptArr,
    solver: str, asm: Assembler, kwargs: _Opts, ws: _WS,
) -> tuple[_Arr, _OptArr]:  # fmt: skip
    """QP of level 0 (no higher level): ``(v, multipliers | None)``, the multipliers in
    DAQP's layout (nv simple bounds, then the rows of G)."""
    if solver == "daqp":
        rows, upper, lower = daqp_constraints(len(f), G, h, lb, ub)
        if ws is not None:
            v = ws.solve(P, f, lower, upper, rows)
            if v is not None:
                return v, ws.lam
        v, _, lam = daqp_solve(P, f, rows, upper, lower, kwargs)
        if v is not None and math.isfinite(v @ v):
            return v, lam
    # other solvers, or DAQP failed: the core's call, which names the conflicting limits
    v = solve_qp_arrays(P, f, G, h, lb, ub, solver, lambda: asm.boxes, asm.limits, **kwargs)
    return v, None


def _level_qp(
    P: _Arr, g: _Arr, Z: _Arr, v: _Arr, lb: _OptArr, ub: _OptArr, G: _OptArr, h: _OptArr,
    keep: _OptArr, solver: str, kwargs: _Opts, k: int, ws: _WS,
) -> tuple[_Arr, _OptArr]:  # fmt: skip
    """QP of level ``k > 0`` in null-space coordinates: ``v = v_{k−1} + Z z`` within the limits.

    ``min ½ zᵀPz − gᵀz`` (``P = BᵀB + λI``) s.t. ``lb − v ≤ Z z ≤ ub − v`` and
    ``G Z z ≤ h − G v``, on the constraints ``keep`` (indices into the box rows, then the
    rows of G; None for all). ``z = 0`` is feasible (the higher levels' solution). Returns
    ``(z, multipliers | None)``, one multiplier per kept constraint.
    """
    r = Z.shape[1]
    nv = Z.shape[0]
    if lb is not None and ub is not None and G is None:
        if keep is None:
            rows, lower, upper = np.ascontiguousarray(Z), lb - v, ub - v
        else:
            vk = v[keep]
            rows, lower, upper = Z[keep], lb[keep] - vk, ub[keep] - vk
    else:
        parts, lower, upper = [], [], []
        if lb is not None and ub is not None:
            parts.append(Z)
            lower.append(lb - v)
            upper.append(ub - v)
        if G is not None and h is not None:
            parts.append(G @ Z)
            upper.append(h - G @ v)
            lower.append(np.full(len(h), -np.inf))
        if len(parts) == 1:
            rows, lower, upper = parts[0], lower[0], upper[0]
        elif parts:
            rows, lower, upper = np.vstack(parts), np.concatenate(lower), np.concatenate(upper)
        else:
            rows, lower, upper = _no_rows(r), np.zeros(0), np.zeros(0)
        if keep is not None:
            if lb is None:  # the rows are those of G only
                keep = keep - nv
            rows, lower, upper = rows[keep], lower[keep], upper[keep]
        rows = np.ascontiguousarray(rows)
    # z = 0 must stay feasible: where the higher levels' solution sits outside a bound by the
    # solver's tolerance, the bound is moved onto it (this level cannot change it)
    np.minimum(lower, 0.0, out=lower)
    np.maximum(upper, 0.0, out=upper)
    z, status, lam = _solve_reduced_qp(P, -g, rows, lower, upper, solver, kwargs, ws)
    if z is None or not math.isfinite(z @ z):
        raise NoSolutionFound(
            solver,
            f"level {k}: {status if z is None else 'non-finite solution'}",
            [
                f"none: level {k} starts from the higher levels' solution, which satisfies "
                "every limit, so the failure is numerical (the limits may leave that level "
                "a single point, which some solvers do not handle; 'daqp' and 'quadprog' do)"
            ],
        )
    return z, lam


#: A constraint whose multiplier exceeds ``STRONG_RTOL ‖A_k‖ ‖c_k − A_k v_{k−1}‖ + 2λ‖v‖`` (a
#: bound on the level's gradient, plus the damping's share) is active at every optimum of
#: the level, hence kept as an equality by the lower levels.
STRONG_RTOL = 1e-7

#: A constraint whose row in the lower levels' coordinates is below this (the basis is
#: orthonormal) is kept by the basis itself and leaves the lower levels' QPs.
FIXED_TOL = 1e-10


def _fro(x: np.ndarray) -> float:
    """Frobenius norm (of a contiguous array)."""
    flat = x.reshape(-1)
    return math.sqrt(float(flat @ flat))


@cache
def _no_rows(n: int) -> np.ndarray:
    return np.zeros((0, n))


# ---------------------------------------------------------------------------- plan
class _Plan:
    """What does not change between steps for a given list of levels and limits.

    One core :class:`~taskik.problem.Assembler` over all the tasks (levels concatenated)
    evaluates every task once per step and merges the limits; level ``k`` reads its rows
    ``A[rows_k]``, ``c[rows_k]`` of the stacked system.
    """

    def __init__(self, configuration: Configuration, levels: _Levels, limits: _Limits) -> None:
        self.levels = [level for level in check_levels(levels) if level]  # (empty: no ask)
        flat = [t for level in self.levels for t in level]
        self.asm = Assembler(configuration, flat, resolve_limits(configuration, limits))
        self.rebind(self.levels, fresh=True)
        self.rows = [slice(level[0][1].start, level[-1][1].stop) for level in self.tasks_rows]
        #: damping adapted across the steps of a closed loop, per level
        self.adaptive = AdaptiveDamping(self.rows)

    def rebind(self, levels: _Levels, fresh: bool = False, limits: _Limits = None) -> None:
        """Point the plan at ``levels`` (the structure it was built for: see PlanCache) and
        at ``limits`` when given (equal in value to the plan's: a list built anew); other
        tasks start with no solver state, as a new plan would."""
        if limits is not None:
            self.asm.rebind_limits(check_limits(limits))
        self.levels = [list(level) for level in levels if level]
        if self.asm.rebind([t for level in self.levels for t in level]) or fresh:
            #: per level: the level's last QP had an active constraint (try the QP first),
            self.qp_hint: list[bool | np.bool_] = [False] * len(self.levels)
            self.workspaces = [DaqpWorkspace() for _ in self.levels]  # and a warm DAQP
        it = iter(self.asm.slices)  # per level: (task, its rows)
        self.tasks_rows = [[(t, next(it)[3]) for t in level] for level in self.levels]

    def level_dampings(self, dt: float, damping: float) -> list[float]:
        """``λ_k = μ_k + damping`` with ``μ_k = Σ λ_i Kp_i² ‖W_i e_i‖²`` over level k.

        ``W_i e_i`` is read back from the assembled ``c_i = W_i Kp_i e_i / dt``.
        """
        if not self.asm.mu:
            return [damping] * len(self.rows)
        c = self.asm.c
        out: list[float] = []
        for entries in self.tasks_rows:
            mu = damping
            for task, rows in entries:
                lm = task.lm_damping
                if lm:
                    ci = c[rows]
                    mu += lm * float(ci @ ci) * dt * dt
            out.append(mu)
        return out


def get_plan(configuration: Configuration, levels: _Levels, limits: _Limits) -> _Plan:
    """The plan of these levels and limits, from the configuration's plan cache."""
    return configuration.plans.levels(
        levels,
        limits,
        lambda: _Plan(configuration, levels, limits),
        lambda p: p.rebind(levels, limits=limits),
    )


# ---------------------------------------------------------------------------- solve
def solve_hierarchy(
    configuration: Configuration,
    levels: Sequence[Sequence[Task]],
    dt: float,
    limits: Sequence[Limit] | None = None,
    solver: str | None = None,
    damping: float = 1e-12,
    method: str = "auto",
    adaptive: bool = True,
    strict: bool = False,
    **solver_kwargs: Any,
) -> np.ndarray:
    """Velocity ``v`` (size nv) achieving the levels with strict priorities, highest first.

    Level ``k`` minimises its weighted velocity residual ``‖A_k v − c_k‖² + λ_k ‖v‖²`` under
    every limit while keeping ``A_j v`` of every higher level ``j < k`` at what that level
    achieved (see the module docstring). A lower level therefore never changes what a
    higher level achieves; it only uses the directions (and the room within the limits)
    the higher levels leave free. Costs weight tasks within a level; across levels only their
    size against ``damping`` matters (absolute, as in a weighted step): a level whose costs
    are 1 is exact to 1e-11, 1e-3 to 1e-5, but 1e-5 leaves 8 % of the level's request unmet
    (UR5, default damping). Usually called as ``solve_ik(conf, levels, dt, ...)``.

    Args:
        configuration: robot configuration (kinematics up to date).
        levels: ``[[task, ...], [task, ...], ...]``, highest priority first.
        dt: step duration (s), > 0.
        limits: None for the model's position and velocity limits; ``[]`` for none.
        solver: QP solver name (qpsolvers); default :func:`taskik.default_solver`.
        damping: Tikhonov term ``damping ‖v‖²`` added at every level, ≥ 0.
        method: ``"auto"``, ``"cascade"`` (a QP at every level) or ``"nullspace"`` (no QP;
            only without inequality limits).
        adaptive: damping adapted across the steps of a closed loop (see
            :func:`taskik.solve_ik`); ``False``: the plain step.
        strict: ``False`` (default): when the limits conflict, every level is solved
            within the least-relaxed rows (:mod:`taskik.relax`; the same rows as a weighted
            step's, since they depend on the limits only), and
            :func:`taskik.last_relaxation` names them. ``True``: raise instead.
        solver_kwargs: passed to the QP solver.

    Raises:
        InvalidInput: bad levels, dt, damping, method or solver; ``"nullspace"`` with limits.
        NoSolutionFound: with ``strict=True``, the limits conflict (the message names the
            level and the conflicting limits); in either mode, a level's solver failed
            where no limit conflicts.
    """
    if method not in METHODS:
        raise InvalidInput(f"method must be one of {METHODS}, got {method!r}")
    dt = check_positive_scalar(dt, "dt")
    if type(damping) is not float or damping != 1e-12:
        damping = check_damping(damping)
    if strict is not False and strict is not True:
        strict = check_bool(strict, "strict")
    if adaptive is not True and adaptive is not False:
        adaptive = check_bool(adaptive, "adaptive")
    if not isinstance(configuration, Configuration):
        raise InvalidInput(
            f"solve_hierarchy needs a taskik.Configuration, got {type(configuration).__name__}"
        )
    plan = get_plan(configuration, levels, limits)
    asm = plan.asm
    control = plan.adaptive if adaptive else None
    if control is not None:
        control.begin(configuration, asm)
    _, _, G, h, lb, ub = asm.assemble(configuration, dt, damping, normal=False, resolve=not strict)
    constrained = lb is not None or G is not None
    if method == "nullspace" and constrained:
        raise InvalidInput(
            "method='nullspace' ignores inequalities; pass limits=[] or use method='auto'"
        )
    always_qp = method == "cascade"
    use_qp = always_qp or constrained
    qp_solver: str  # the QP solver (set when a level may need one)
    if use_qp:
        solver = qp_solver = default_solver() if solver is None else check_solver(solver)
    lams = plan.level_dampings(dt, damping)
    if control is not None:
        lams = control.dampings(asm, s := asm.weighted_errors(dt), lams)
    if control is not None and control.resting and control.rests(lb, ub, h):
        v = np.zeros(configuration.nv)  # the loop is at rest (see taskik.trust_region)
        control.record(configuration, asm, s, v, dt)
        if not strict:
            record(configuration, None)
        return v
    A_all, c_all = asm.A, asm.c
    hint = plan.qp_hint
    workspaces = plan.workspaces if solver == "daqp" and not solver_kwargs else None

    nv = configuration.nv
    relaxation: Relaxation | None = None
    v_least: np.ndarray | None = None
    while True:  # (twice when the limits conflict: then with the relaxed rows)
        try:
            v = np.zeros(nv)
            Z = None  # basis of the directions the higher levels leave free; None = all of them
            w = None  # Zᵀ v
            keep = None  # constraints the lower levels' QPs still see (None: all of them)
            fixed = None  # constraints a higher level turned into equalities kept by Z
            last = len(plan.rows) - 1
            nu = 0.0 if control is None else control.nu
            merits = control.merits if control is not None and nu else []
            carried = 0.0  # Σ f_h M_h of the levels above (f_h: 0 or 1, see trust_region)
            shares = [1.0] * len(plan.rows) if nu else None
            for k, rows in enumerate(plan.rows):
                A, lam = A_all[rows], lams[k] + nu * carried
                norm_a = _fro(A)
                if not norm_a < math.inf:  # (inf or NaN: rows too large to square, or not finite)
                    raise level_overflow(k, plan.tasks_rows[k], A_all, c_all)
                if Z is None:
                    B, d = A, c_all[rows]
                else:
                    B = A @ Z
                    d = c_all[rows] - A @ v
                    w = v @ Z
                # Without inequalities, or when the level's unconstrained optimum is feasible,
                # that optimum is the level's QP solution; a level whose QP had an active bound
                # goes to its QP first.
                step = split = mult = None
                if not (always_qp or (use_qp and hint[k])):
                    split = LevelSplit(B, norm_a if Z is not None else 0.0)
                    z = split.solve(d, lam, w)
                    step = z if Z is None else Z @ z
                    if use_qp and not _feasible(v + step, lb, ub, G, h):
                        step = None
                if step is not None:
                    v += step
                else:
                    P = B.T @ B
                    if lam:
                        P.reshape(-1)[:: P.shape[0] + 1] += lam
                    g = d @ B
                    if lam and w is not None:
                        g -= lam * w
                    ws = workspaces[k] if workspaces is not None else None
                    if Z is None:
                        v, mult = _first_level_qp(
                            P, -g, G, h, lb, ub, qp_solver, asm, solver_kwargs, ws
                        )
                    else:
                        z, mult = _level_qp(
                            P, g, Z, v, lb, ub, G, h, keep, qp_solver, solver_kwargs, k, ws
                        )
                        v += Z @ z
                    if mult is not None:
                        mult = np.abs(mult)
                    hint[k] = mult is None or mult.any()
                if k == last:
                    break  # (the last level's factorisation is needed only for its own step)
                if (
                    shares is not None
                ):  # a level with no direction of its own has no say (trust_region)
                    own = (
                        split
                        if split is not None
                        else LevelSplit(B, norm_a if Z is not None else 0.0)
                    )
                    shares[k] = 1.0 if own.rank else 0.0
                    carried += merits[k] * shares[k]
                # Constraints strongly active at this level (nonzero multiplier) hold at every
                # optimum of the level: the lower levels keep them as equalities, in the basis Z.
                strong = None
                if mult is not None:
                    # multipliers: gradient components, ≤ ‖A_k‖‖d‖. The damping's share holds
                    # nothing: λv directly, and as much again through the residual it leaves
                    # (damped least squares: Bᵀ(d − Bz) = λz), so up to 2λ‖v‖
                    strong = np.flatnonzero(
                        mult > STRONG_RTOL * norm_a * _fro(d) + 2.0 * lam * _fro(v)
                    )
                    if not strong.size:
                        strong = None
                    elif keep is not None:
                        strong = keep[strong]  # constraint indices: nv box rows, then the rows of G
                    elif Z is not None and lb is None:
                        strong = strong + nv
                if strong is not None and Z is None and strong[-1] < nv:
                    # top level, bounds only: the fixed coordinates leave the basis
                    free = np.ones(nv, dtype=bool)
                    free[strong] = False
                    # on the level's scale: a column that is numerically zero adds no rank
                    null = LevelSplit(B[:, free], norm_a).null
                    Z = np.zeros((nv, null.shape[1]))
                    Z[free] = null
                    exact = True  # the rows of the fixed coordinates in Z are zeros
                else:
                    exact = False
                    if strong is not None:
                        C = constraint_rows(strong, nv, Z, G)
                        C *= norm_a / math.sqrt(len(A))  # on the scale of the level's own rows
                        split = LevelSplit(np.vstack([B, C]), norm_a if Z is not None else 0.0)
                    elif split is None:
                        split = LevelSplit(B, norm_a if Z is not None else 0.0)
                    null = split.null
                    Z = null if Z is None else Z @ null
                if Z.shape[1] == 0:
                    break  # no freedom left: the lower levels cannot move v
                if strong is not None:
                    # the lower levels' QPs no longer see the constraints Z keeps exactly
                    if not exact:
                        residue = constraint_rows(strong, nv, Z, G, unit=False)
                        strong = strong[np.abs(residue).max(axis=1) <= FIXED_TOL]
                    if strong.size:
                        if fixed is None:
                            fixed = np.zeros(nv + (0 if h is None else len(h)), dtype=np.bool_)
                            # coordinates without a finite bound constrain nothing
                            fixed[:nv] = (
                                True
                                if lb is None or ub is None
                                else ~(np.isfinite(lb) | np.isfinite(ub))
                            )
                        fixed[strong] = True
                        keep = np.flatnonzero(~fixed)
            break
        except NoSolutionFound:
            if strict or relaxation is not None:
                if relaxation is None or not relaxation.rows or v_least is None:
                    raise  # (strict, or the solver failed where no limit conflicts)
                relaxation.fallback = True  # (the relaxed rows fail too: least violation)
                v, shares = v_least, None
                break
            if G is None or not relaxable(h, lb, ub):
                raise  # (no rows to relax, or NaN limits: the error names them)
            h_relaxed, v_least, relaxation = relaxed_rows(G, h, lb, ub, asm.row_limits, dt)
            if h_relaxed is None:  # (even the least violation fails: rest within the box)
                relaxation.fallback = True
                v, shares = rest_within(lb, ub, nv), None
                break
            h = h_relaxed
    if lb is not None and ub is not None:
        # QP solvers meet bounds up to their tolerance (1e-6 for DAQP): limits hold exactly
        np.maximum(v, lb, out=v)
        np.minimum(v, ub, out=v)
    if not strict:
        if asm.resolved and relaxation is None:
            relaxation = Relaxation(dt=dt)
        if relaxation is not None:
            relaxation.bounds = list(asm.resolved)
            relaxation.v = v
        record(configuration, relaxation)
    if control is not None:
        control.shares = shares
        control.record(configuration, asm, s, v, dt)
    return v
