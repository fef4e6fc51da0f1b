"""The outcome of a batch: one row per problem, in the order of the targets."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..exceptions import InvalidInput


@dataclass
class BatchResult:
    """Outcome of :func:`taskik.batch.solve_poses`, problem ``i`` in row ``i``.

    Attributes:
        q: ``(N, nq)`` solutions (the best configuration found where ``success`` is False).
        success: ``(N,)`` bool, ``E < tol`` (see :func:`taskik.solve_posture`).
        iterations: ``(N,)`` evaluations of E, over all searches of the problem.
        searches: ``(N,)`` searches started.
        error: ``(N,)`` ``E = ½ ‖log6(T⁻¹T*)‖²`` at ``q`` (the pose error of the solve).
        time: ``(N,)`` seconds each solve took in its worker.
        seed: the job's seed (problem ``i`` used ``rng = problem_seed(seed, i)``).
        wall_time: seconds of the whole call (start-up included; 0 for a result read back).
        workers: ``"pid@host"`` of the process that solved each chunk, in chunk order
            (a resumed job lists only the chunks solved by this call).
        key: fingerprint of the job (model, frame, targets, options, seed).
    """

    q: np.ndarray
    success: np.ndarray
    iterations: np.ndarray
    searches: np.ndarray
    error: np.ndarray
    time: np.ndarray
    seed: int
    wall_time: float = 0.0
    workers: list[str] = field(default_factory=list)
    key: str = ""

    def __len__(self) -> int:
        return int(self.success.shape[0])

    @property
    def solves_per_second(self) -> float:
        """Problems per second of wall time (0 when unknown)."""
        return len(self) / self.wall_time if self.wall_time > 0 else 0.0

    def __str__(self) -> str:
        n = len(self)
        rate = f", {self.solves_per_second:,.0f} solves/s" if self.wall_time else ""
        return (
            f"BatchResult({n} problems, {int(self.success.sum())} solved "
            f"({100.0 * self.success.mean():.1f} %), {self.wall_time:.2f} s{rate})"
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the arrays, the seed and the key to ``path`` (``.npz``), atomically (a
        temporary file renamed over it); returns the path."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(
            tmp,
            q=self.q,
            success=self.success,
            iterations=self.iterations,
            searches=self.searches,
            error=self.error,
            time=self.time,
            seed=np.int64(self.seed),
            key=np.array(self.key),
        )
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BatchResult:
        """Read a result written by :meth:`save`."""
        try:
            with np.load(path) as f:
                return cls(
                    q=f["q"],
                    success=f["success"],
                    iterations=f["iterations"],
                    searches=f["searches"],
                    error=f["error"],
                    time=f["time"],
                    seed=int(f["seed"]),
                    key=str(f["key"]),
                )
        except (OSError, KeyError, ValueError) as exc:
            raise InvalidInput(f"{path} is not a batch result file ({exc})") from exc
