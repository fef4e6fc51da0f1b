"""The entry point :func:`solve_poses`: check the job, read back what an earlier run wrote,
solve the first remaining problem here (errors in the options surface at once, and the
workers start warm), then the rest in chunks on the chosen engine."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..exceptions import InvalidInput, TaskikError
from ..robots import Robot
from .local import cpu_count, run_local
from .problems import Job, chunks, default_chunk_size, empty_results, make_job, solve_chunk
from .result import FIELDS, BatchResult, check_rows
from .store import Store

#: Engines of :func:`solve_poses`.
ENGINES = ("local", "ray")


def solve_poses(
    robot: Robot | pin.Model,
    frame: str,
    targets: npt.ArrayLike | Sequence[pin.SE3],
    *,
    engine: str = "local",
    workers: int | None = None,
    chunk_size: int | None = None,
    output: str | os.PathLike[str] | None = None,
    progress: bool = False,
    seed: int | None = 0,
    address: str | None = None,
    **options: Any,
) -> BatchResult:
    """Pose IK for N targets of one frame: ``solve_posture`` once per target, on every core
    (``engine="local"``) or on a Ray cluster (``engine="ray"``).

    Problem ``i`` is exactly (bit for bit, whatever the engine, ``workers`` and
    ``chunk_size``)::

        task = taskik.FrameTask(frame)
        task.set_target(targets[i])
        taskik.solve_posture(model, [task], rng=problem_seed(seed, i), **options)

    with ``problem_seed(seed, i) = seed · 2³² + i`` (:func:`taskik.batch.problem_seed`).

    Args:
        robot: a :class:`taskik.robots.Robot` or a ``pinocchio.Model``.
        frame: the frame to place.
        targets: ``N × 4 × 4`` homogeneous transforms (world frame, m) or a list of
            ``pin.SE3``.
        engine: ``"local"`` (processes on this machine, no server) or ``"ray"`` (Ray tasks;
            ``pip install 'taskik[distributed]'``).
        workers: local processes (default: the cores this process may use; 1 solves in
            this process). Unused by Ray, which uses the cluster's CPUs.
        chunk_size: problems per chunk (default: 256, fewer for small jobs so that each
            worker, or each CPU of the Ray cluster, gets about four chunks, and the last
            chunks shrink so that the workers finish together). Never changes the answers.
        output: a ``.npz`` path (its directory must exist): finished chunks are written
            next to it as they finish (``<output>.parts/``, each with its problem indices
            and a SHA-256 checksum, written atomically and flushed to disk) and the result
            into it at the end (checksummed too); a call with the same job and output
            resumes where a stopped run left off, and returns the file's result, checked,
            when the job is already complete. On resume, a part that fails its check
            (truncated, corrupted, wrong length or indices) is removed with a
            ``RuntimeWarning`` and its problems solved again.
        progress: show a progress bar (tqdm) with problems/s.
        seed: the job's seed (int ≥ 0; None: drawn at random, recorded in the result).
        address: Ray cluster address (``None``: a local Ray, ``"auto"``, ``"ray://host:port"``),
            used when Ray is not initialised yet.
        **options: options of :func:`taskik.solve_posture` (``method``, ``tol``,
            ``max_iterations``, ``max_searches``, ``starts``, ``joint_limits``, ...), the
            same for every problem; not ``rng`` (see ``seed``) nor ``q0``.

    Returns:
        A :class:`BatchResult` with one row per target, in order.

    Raises:
        InvalidInput: bad targets (shape, NaN/inf, not rigid: the first bad index is named),
            engine, workers, chunk size or option; an output that is not a file path, is a
            directory, lies in a missing directory, was written by a different job, or is
            a damaged result file (left as it is).
        OutputError: the output cannot be written (read-only, full disk...): the path and
            the system's reason; the parts written so far are kept for a resume.
        WorkerError: an exception raised in a worker that cannot be pickled (its type,
            message and traceback as text); one that can be is raised as itself, the
            worker's traceback as its ``__cause__``.
        WorkerLost: a chunk lost its worker (killed, out of memory) 4 times.
        UnknownName: ``frame`` is not in the model (close names are suggested).
        ImportError: ``engine="ray"`` without Ray installed.
    """
    t0 = time.perf_counter()
    if engine not in ENGINES:
        raise InvalidInput(f"engine must be one of {ENGINES}, got {engine!r}")
    job = make_job(robot, frame, targets, seed, options)
    n = job.size
    if workers is None:
        workers = cpu_count()
    elif isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 1:
        raise InvalidInput(f"workers must be an int >= 1 or None, got {workers!r}")
    tail = 0  # a given chunk size is kept; by default the last chunks shrink
    if chunk_size is None:
        if engine == "ray":
            from .ray_engine import cluster_cpus

            tail = cluster_cpus(address)
        else:
            tail = int(workers)
        chunk_size = default_chunk_size(n, tail)
    elif (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, int | np.integer)
        or chunk_size < 1
    ):
        raise InvalidInput(f"chunk_size must be an int >= 1 or None, got {chunk_size!r}")
    store = None if output is None else Store(output, job)
    try:
        return _solve(
            job, store, engine, int(workers), int(chunk_size), tail, progress, address, t0
        )
    finally:
        if store is not None:
            store.close()


def _solve(
    job: Job,
    store: Store | None,
    engine: str,
    workers: int,
    chunk_size: int,
    tail: int,
    progress: bool,
    address: str | None,
    t0: float,
) -> BatchResult:
    """The body of :func:`solve_poses`, its arguments checked (``tail``: the guided tail's
    workers, 0 for a given chunk size; ``t0``: when the call started)."""
    n = job.size
    if store is None:
        arrays, done, finished = empty_results(n, job.model.nq), np.zeros(n, dtype=bool), None
    else:
        arrays, done, finished = store.open()
    if finished is not None:
        finished.wall_time = time.perf_counter() - t0
        return finished
    bar = progress_bar(n, int(done.sum())) if progress else None

    def on_chunk(start: int, stop: int, values: dict[str, np.ndarray]) -> None:
        # each problem answered once, by a chunk of its own size (an engine's fault
        # otherwise: stop rather than write a row that is not the problem's)
        why = check_rows(values, stop - start, job.model.nq)
        if why or done[start:stop].any():
            why = why or "some of its problems were already answered"
            raise TaskikError(f"chunk {start}..{stop - 1} refused: {why}")
        done[start:stop] = True
        for name in FIELDS:
            arrays[name][start:stop] = values[name]
        if store is not None:
            store.write(start, stop, values)
        if bar is not None:
            bar.update(stop - start)

    names: list[str] = []
    try:
        todo = chunks(~done, chunk_size, tail)
        if todo:
            # the first remaining problem here: a bad option raises now, and the solver
            # state it builds (seed memory) is inherited by forked workers
            first = todo[0][0]
            out = solve_chunk(job, first, first + 1)
            on_chunk(first, first + 1, out)
            names.append(str(out["worker"]))
            todo = chunks(~done, chunk_size, tail)
        if engine == "ray":
            from .ray_engine import run_ray

            names += run_ray(job, todo, on_chunk, address=address)
        else:
            names += run_local(partial(solve_chunk, job), todo, workers, on_chunk)
    finally:
        if bar is not None:
            bar.close()
    if not done.all():  # (an engine's fault: never reported as an answer)
        missing = np.flatnonzero(~done)
        raise TaskikError(
            f"{missing.size} problems were not answered (first: {missing[:10].tolist()})"
        )
    result = BatchResult(
        **{name: arrays[name] for name in FIELDS},
        seed=job.seed,
        wall_time=time.perf_counter() - t0,
        workers=names,
        key=job.key,
    )
    if store is not None:
        store.finish(result)
    return result


def progress_bar(total: int, initial: int, unit: str = " problems", unit_scale: bool = True) -> Any:
    """A tqdm bar of ``total`` items, ``initial`` already done (no monitor thread);
    ``unit_scale``: counts as 12.3k."""
    from tqdm import tqdm

    # no monitor thread (made with the first bar when monitor_interval > 0): the local
    # engine forks, and a fork should not copy a thread that may hold a lock
    interval, tqdm.monitor_interval = tqdm.monitor_interval, 0
    try:
        return tqdm(total=total, initial=initial, unit=unit, unit_scale=unit_scale, smoothing=0.1)
    finally:
        tqdm.monitor_interval = interval
