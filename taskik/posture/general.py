"""The search loop for any tasks on any model: the core's kinematics pass and task terms at
each iteration, then the step of the chosen method."""

from __future__ import annotations

import math
import time

import numpy as np
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import NoSolutionFound
from ..limits.configuration import ConfigurationLimit
from ..problem import Assembler, get_assembler
from ..solve import solve_ik
from ..tasks.task import Task
from .formulas import damping_matrix, step_direction
from .joint_limits import JointLimits
from .search import SearchOptions, SearchOutcome, Start
from .stagnation import Stagnation


class GeneralSearch:
    """Searches over ``tasks`` (in E) and ``regularization`` (in the steps only) on the
    work configuration ``conf``, which each iteration updates."""

    def __init__(self, conf: Configuration, tasks: list[Task], regularization: list[Task]) -> None:
        self.conf = conf
        self.tasks = tasks
        self.all_tasks = tasks + regularization
        self.asm = get_assembler(conf, self.all_tasks, [])
        self.qp_limits = [ConfigurationLimit(conf.model, gain=1.0)]
        self.needs_normalize = conf.nq != conf.nv

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
        for i in range(1, max_iterations + 1):
            conf.update(q)
            asm = self._terms()
            E = sum(self._task_residuals())
            if best_E > E:
                best_q[:] = q
                best_E = E
            if tol > E:
                return i, E, q, "converged"
            if i == max_iterations:
                break
            if stalled(E):
                return i, best_E, best_q, f"stagnated at E = {best_E:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, best_E, best_q, "time budget exhausted"
            try:
                if method == "qp":
                    mu = float(damping) * E  # (a scalar λ for this method)
                    dq = solve_ik(conf, self.all_tasks, 1.0, limits=self.qp_limits, damping=mu)
                else:
                    dq = self._step(asm, method, damping, E)
            except np.linalg.LinAlgError:
                return i, best_E, best_q, "singular step matrix"
            except NoSolutionFound as exc:
                return i, best_E, best_q, f"QP step failed: {exc}"
            if not np.all(np.isfinite(dq)):
                return i, best_E, best_q, "non-finite step"
            q = pin.integrate(model, q, dq)
            if self.needs_normalize:
                q = pin.normalize(model, q)
            if limits is not None:
                limits.clip(q)
        return max_iterations, best_E, best_q, f"max_iterations = {max_iterations} reached"

    def _step(
        self, asm: Assembler, method: str, damping: float | np.ndarray, E: float
    ) -> np.ndarray:
        A, c = asm.A, asm.c
        if method in ("nr", "nr-pinv", "gn", "gn-pinv"):
            return step_direction(method, A, c, E, damping)
        # asm.P = AᵀA + Σ μ_i I (tasks' own LM damping); asm.r = −Aᵀc
        H = asm.P.copy()
        H += damping_matrix(method, E, A.shape[1], damping)
        return np.linalg.solve(H, -asm.r)
