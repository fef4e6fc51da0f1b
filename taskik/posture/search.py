"""Searches and restarts: run one search loop (general or single-pose) from successive
starts until one converges, the searches run out or the time budget is spent."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeAlias

import numpy as np
import pinocchio as pin

from .joint_limits import JointLimits
from .result import converged_reason

#: ``(iterations, E, q, end)`` of one search: E and q the best iterate (the converged one
#: when ``end == "converged"``), ``end`` why the search stopped, in words.
SearchOutcome: TypeAlias = tuple[int, float, np.ndarray, str]

#: ``(pose, LOCAL Jacobian)`` of the task frame at a start, when known (seed-memory entries).
Start: TypeAlias = tuple[pin.SE3, np.ndarray]


@dataclass(slots=True)
class SearchOptions:
    """What every search of one solve shares (see :func:`taskik.solve_posture`)."""

    method: str
    damping: float | np.ndarray  # λ (Sugihara: the w̄ vector)
    tol: float  # on E
    max_iterations: int
    stagnation: float  # fraction of E (see Stagnation)
    patience: int
    deadline: float | None  # time.perf_counter() value, or None


class SearchLoop(Protocol):
    """A search loop over the tasks of one solve (general or single-pose)."""

    def search(
        self,
        q: np.ndarray,
        options: SearchOptions,
        limits: JointLimits | None,
        start: Start | None = None,
    ) -> SearchOutcome: ...

    def error(self, q: np.ndarray) -> float: ...


def search_loop(
    runner: SearchLoop,
    options: SearchOptions,
    policy: str,
    limits: JointLimits,
    max_searches: int,
    q_first: np.ndarray,
    start: Start | None,
    restarts: Callable[[], Callable[[], np.ndarray]],
    distance: Callable[[np.ndarray], float] | None = None,
) -> tuple[np.ndarray, bool, int, int, float, str]:
    """Run up to ``max_searches`` searches, the first from ``q_first`` (``start``: its frame
    pose and Jacobian when known), the next ones from the starts ``restarts()`` makes (on
    first need); return ``(q, success, iterations, searches, E, reason)``.

    A converged q is wrapped by the policy (``"reject"``: refused when it stays outside the
    limits, and the search restarts). ``q_first`` is never modified. Without ``distance``
    the first converged q ends the solve; with it (``select="nearest"``) every search runs
    and the converged q of least ``distance(q)`` is returned (``distance`` may move its
    revolute angles by 2π).
    """
    total = 0
    best_q: np.ndarray | None = None
    best_E = math.inf
    last_end = ""
    rejected = 0
    # Revolute joints whose range spans 2π or more need no projection: every angle has a
    # representative inside, which the final wrap picks. Only the others are clipped.
    clip = policy == "clip" and limits.needs_clip
    projection = limits if clip else None
    deadline = options.deadline
    next_start: Callable[[], np.ndarray] | None = None
    searches = 0
    solution: np.ndarray | None = None  # select="nearest": the nearest converged q so far
    solution_E = solution_d = math.inf
    found = 0
    for search in range(max_searches):
        if search and deadline is not None and time.perf_counter() > deadline:
            last_end = "time budget exhausted"  # (the first search always runs)
            break
        searches = search + 1
        if search == 0:
            q = q_first
            if clip:
                q = q.copy()
                limits.clip(q)
                start = None  # (the projection may move q: its pose is computed anew)
            its, E, q, end = runner.search(q, options, projection, start)
        else:
            if next_start is None:
                next_start = restarts()
            q = next_start()
            if clip:
                limits.clip(q)
            its, E, q, end = runner.search(q, options, projection)
        total += its
        if end == "converged":
            if q is q_first:
                q = q.copy()
            if policy != "ignore":
                limits.wrap(q)
            else:
                limits.wrap_angles(q)
            bad = limits.violation(q) if policy == "reject" else None
            if bad is None:
                if distance is None:
                    return q, True, total, searches, E, converged_reason(options.tol)
                found += 1
                q = q.copy()  # (the search's own array, or q_first)
                d = distance(q)
                if d < solution_d or solution is None:
                    solution, solution_E, solution_d = q, E, d
                continue
            rejected += 1
            last_end = f"converged but {bad}"
            E_cmp = math.inf
        else:
            last_end = end
            E_cmp = E
            if policy == "reject" and limits.violation(q) is not None:
                E_cmp = math.inf
        if E_cmp < best_E or best_q is None:
            best_q, best_E = q.copy(), E
        if end == "time budget exhausted":
            break
    if solution is not None:
        reason = (
            f"{converged_reason(options.tol)}; the nearest of {found} solution(s) found in "
            f"{searches} search(es): {solution_d:.3g} s from the start at the velocity limits"
        )
        return solution, True, total, searches, solution_E, reason
    assert best_q is not None, "the first search always runs (max_searches >= 1)"
    if policy != "ignore":
        limits.wrap(best_q)
    reason = (
        f"no solution after {searches} search(es), {total} iterations: best E = "
        f"{best_E:.3g} >= tol = {options.tol:g} (last search: {last_end})"
    )
    if rejected:
        reason += f"; {rejected} converged solution(s) rejected for joint limits"
    if best_E < options.tol:
        reason += "; the best q violates the joint limits"
    return best_q, False, total, searches, runner.error(best_q), reason
