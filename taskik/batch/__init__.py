"""Many pose-IK problems at once, on every core of this machine or on a Ray cluster.

:func:`solve_poses` solves ``N`` target poses of one frame with
:func:`taskik.solve_posture`, one problem at a time per worker, the problems split into
chunks. Each problem is seeded from ``(seed, index)`` (:func:`problem_seed`), so the
answers are the same, bit for bit, as a loop of ``solve_posture`` in one process, whatever
the engine, the number of workers, the chunk size or the order the chunks finish in.

Layout: ``problems`` (the checked job, the seeds, one chunk's solve), ``local`` (worker
processes, forked warm), ``ray_engine`` (the same chunks as Ray tasks), ``store`` (finished
chunks on disk, each checked when read back; resume), ``result`` (:class:`BatchResult`, the
checksummed files) and ``solve`` (the entry point).
"""

from .local import WorkerError, WorkerLost
from .problems import problem_seed
from .result import BatchResult, OutputError
from .solve import ENGINES, solve_poses

__all__ = [
    "ENGINES",
    "BatchResult",
    "OutputError",
    "WorkerError",
    "WorkerLost",
    "problem_seed",
    "solve_poses",
]
