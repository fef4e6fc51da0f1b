"""The outcome of :func:`taskik.solve_posture`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(slots=True)
class PostureResult:
    """Outcome of :func:`taskik.solve_posture`.

    Attributes:
        q: the solution when ``success``, otherwise the best configuration found (lowest E
            among iterates that respect the joint-limit policy).
        success: True when ``E < tol`` at ``q`` (and ``q`` respects the limit policy).
        iterations: evaluations of E (each followed by a step unless converged), summed
            over all searches.
        searches: searches started (1 + restarts).
        error: ``E = ½ Σ_i ‖W_i e_i‖²`` at ``q``.
        residuals: ``E_i = ½ ‖W_i e_i‖²`` of each task at ``q``, in the order of ``tasks``.
        time: wall-clock duration of the solve (s).
        reason: why it stopped, in words.
        method: the step method used.
    """

    q: np.ndarray
    success: bool
    iterations: int
    searches: int
    error: float
    residuals: tuple[float, ...]
    time: float
    reason: str
    method: str = "lm-chan"

    def __str__(self) -> str:
        state = "success" if self.success else "FAILED"
        return (
            f"PostureResult({state}, E={self.error:.3g}, iterations={self.iterations}, "
            f"searches={self.searches}, time={self.time * 1e3:.3g} ms, reason={self.reason!r})"
        )


_CONVERGED: dict[float, str] = {}


def converged_reason(tol: float) -> str:
    """The reason of a converged solve (one string per tolerance, made once)."""
    reason = _CONVERGED.get(tol)
    if reason is None:
        if len(_CONVERGED) > 64:
            _CONVERGED.clear()
        reason = _CONVERGED[tol] = f"converged: E < tol = {tol:g}"
    return reason
