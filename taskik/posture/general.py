"""The search loop for any tasks on any model: the core's kinematics pass and task terms at
each iteration, then the step of the chosen method."""

from __future__ import annotations

import math
import time

import numpy as np
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import NoSolutionFound
from ..hierarchy import get_plan
from ..limits.configuration import ConfigurationLimit
from ..limits.limit import Limit
from ..problem import Assembler, get_assembler
from ..solve import solve_ik
from ..tasks.task import Task
from .formulas import _damping_matrix, _step_direction
from .joint_limits import JointLimits
from .search import SearchOptions, SearchOutcome, Start
from .stagnation import Stagnation

#: A watched limit's clearance below ``−CLEARANCE_TOL`` (m) makes an iterate not an answer.
CLEARANCE_TOL = 1e-4


class GeneralSearch:
    """Searches over ``tasks`` (in E) and ``regularization`` (in the steps only) on the
    work configuration ``conf``, which each iteration updates.

    With ``levels`` (priority levels of the same tasks, regularization included, highest
    first), the step is the hierarchy's (:func:`taskik.solve_ik` with ``dt = 1`` and the
    joint limits): each level takes its Gauss–Newton step in what the levels above leave
    free, every level damped by ``λ E`` (``lm-chan``, ``qp``) or not (``gn``), plus the
    damping solve_ik adapts across the iterations of this loop (:mod:`taskik.trust_region`),
    which shortens the lower levels' steps when they drag a higher level.
    """

    def __init__(
        self,
        conf: Configuration,
        tasks: list[Task],
        regularization: list[Task],
        levels: list[list[Task]] | None = None,
        limits: list[Limit] | None = None,
        strict: bool = False,
    ) -> None:
        self.conf = conf
        self.strict = strict  # (solve_ik's: a conflict of the limits ends the search)
        self.tasks = tasks
        self.all_tasks = tasks + regularization
        self.levels = levels
        # goal tasks per level (the residuals come in this order): an iterate is better than
        # another when it is better on the highest level where they differ beyond tol
        self.goal_counts = [
            n for n in (sum(any(t is g for g in tasks) for t in lv) for lv in levels or []) if n
        ]
        self.asm = get_assembler(conf, self.all_tasks, [])
        self.qp_limits: list[Limit] = [ConfigurationLimit(conf.model, gain=1.0), *(limits or [])]
        self.needs_normalize = conf.nq != conf.nv
        # limits that can say how far the robot is from violating them (collision limits)
        self.watched = [lim for lim in limits or [] if hasattr(lim, "clearance")]

    def _clearance(self, q: np.ndarray) -> float:
        """The smallest clearance of the watched limits at q (+inf without any)."""
        if not self.watched:
            return math.inf
        self.conf.update(q)
        return min(lim.clearance(self.conf) for lim in self.watched)

    def _backtrack(self, q: np.ndarray, dq: np.ndarray, before: float) -> np.ndarray:
        """``q ⊕ s·dq`` with ``s`` halved (at most 10 times) until the step keeps every
        watched pair clear (or, from a start in collision with clearance ``before`` at q, no
        deeper): the QP's rows are linear and a long step can cross a curved surface they
        only touch."""
        floor = min(before, 0.0) - 1e-9
        scale = 1.0
        for _ in range(10):
            q_new = pin.integrate(self.conf.model, q, scale * dq)
            if self.needs_normalize:
                q_new = pin.normalize(self.conf.model, q_new)
            if self._clearance(q_new) >= floor:
                return q_new
            scale *= 0.5
        return q.copy()

    def _terms(self) -> Assembler:
        """Fill the assembler at the current q: A = W J, c = W Kp e (dt = 1)."""
        self.asm.assemble(self.conf, 1.0, 0.0)
        return self.asm

    def _task_residuals(self) -> list[float]:
        """``E_i = ½ ‖W_i e_i‖²`` of each task (not the regularization) from the rows."""
        out: list[float] = []
        for task, _, c_i, _ in self.asm.slices[: len(self.tasks)]:
            r = c_i / task._gain
            out.append(0.5 * float(r @ r))
        return out

    def error(self, q: np.ndarray) -> float:
        """``E = Σ E_i`` at q."""
        return sum(self.residuals(q))

    def residuals(self, q: np.ndarray) -> tuple[float, ...]:
        """``E_i`` of each task at q."""
        self.conf.update(q)
        self._terms()
        return tuple(self._task_residuals())

    def search(
        self,
        q: np.ndarray,
        options: SearchOptions,
        limits: JointLimits | None,
        start: Start | None = None,
    ) -> SearchOutcome:
        """One search from q (never modified); ``limits`` projects every iterate (the
        ``"clip"`` policy) or is None. ``start`` is not used here."""
        conf, model = self.conf, self.conf.model
        method, damping, tol = options.method, options.damping, options.tol
        max_iterations, deadline = options.max_iterations, options.deadline
        stalled = Stagnation(options.stagnation, options.patience)
        best_q, best_E = q.copy(), math.inf
        best_rank: tuple[float, ...] = (math.inf, math.inf)
        levels = self.levels
        if levels is not None:
            # the joint limits bound every hierarchical step (no projection breaks the loop)
            lims = self.qp_limits
            get_plan(conf, levels, lims).adaptive.reset()
        for i in range(1, max_iterations + 1):
            if levels is None or i == 1 or conf.q is not q:
                conf.update(q)
            asm = self._terms()
            residuals = self._task_residuals()
            E = sum(residuals)
            rank = self._rank(residuals, E, tol)
            clearance = self._clearance(q)  # (+inf without watched limits)
            # in collision: never the answer (a rank below every clear iterate's)
            rank = (math.inf if clearance < -CLEARANCE_TOL else 0.0, *rank)
            if best_rank > rank:
                best_q[:] = q
                best_E, best_rank = E, rank
            if tol > E and rank[0] == 0.0:
                return i, E, q, "converged"
            if i == max_iterations:
                break
            if stalled(E):
                return i, best_E, best_q, f"stagnated at E = {best_E:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, best_E, best_q, "time budget exhausted"
            try:
                if levels is not None:
                    # the closed loop of solve_ik with dt = 1: its damping adapted across the
                    # iterations keeps the lower levels' steps from dragging the higher ones
                    mu = 0.0 if method == "gn" else float(damping) * E
                    dq = solve_ik(conf, levels, 1.0, lims, damping=mu, strict=self.strict)
                    if self.watched:
                        q = self._backtrack(q, dq, clearance)
                        conf.update(q)
                    else:
                        conf.integrate_inplace(dq, 1.0)
                    q = conf.q
                    if limits is not None:
                        q = q.copy()
                        limits.clip(q)
                        if np.abs(q - conf.q).max() <= 1e-12:
                            q = conf.q  # (rounding only: keep the loop going)
                    continue
                elif method == "qp":
                    mu = float(damping) * E  # (a scalar λ for this method)
                    dq = solve_ik(
                        conf,
                        self.all_tasks,
                        1.0,
                        self.qp_limits,
                        damping=mu,
                        adaptive=False,
                        strict=self.strict,
                    )
                else:
                    dq = self._step(asm, method, damping, E)
            except np.linalg.LinAlgError:
                return i, best_E, best_q, "singular step matrix"
            except NoSolutionFound as exc:
                return i, best_E, best_q, f"QP step failed: {exc}"
            if not np.all(np.isfinite(dq)):
                return i, best_E, best_q, "non-finite step"
            if self.watched:
                q = self._backtrack(q, dq, clearance)
            else:
                q = pin.integrate(model, q, dq)
                if self.needs_normalize:
                    q = pin.normalize(model, q)
            if limits is not None:
                limits.clip(q)
        return max_iterations, best_E, best_q, f"max_iterations = {max_iterations} reached"

    def _rank(self, residuals: list[float], E: float, tol: float) -> tuple[float, ...]:
        """``(E,)``; with levels, each goal level's E (those below tol count as tol) first."""
        if not self.goal_counts:
            return (E,)
        out: list[float] = []
        start = 0
        for n in self.goal_counts:
            out.append(max(sum(residuals[start : start + n]), tol))
            start += n
        out.append(E)
        return tuple(out)

    def _step(
        self, asm: Assembler, method: str, damping: float | np.ndarray, E: float
    ) -> np.ndarray:
        A, c = asm.A, asm.c
        if method in ("nr", "nr-pinv", "gn", "gn-pinv"):
            return _step_direction(method, A, c, E, damping)
        # asm.P = AᵀA + Σ μ_i I (tasks' own LM damping); asm.r = −Aᵀc
        H = asm.P.copy()
        H += _damping_matrix(method, E, A.shape[1], damping)
        return np.linalg.solve(H, -asm.r)
