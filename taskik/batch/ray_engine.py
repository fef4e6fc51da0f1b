"""The Ray engine: the same chunks as Ray tasks, on this machine or a cluster.

Shipped once per job: the model (``ray.put``, ≈ 15 kB for the UR5, 70 kB for the bundled
humanoid), fetched by a worker the first time it runs a chunk of the job and kept
(unpickled, with its warm solver state) for the job's later chunks. Shipped per chunk: the
chunk's targets (128 B per problem) and the job's small options; returned per chunk: the
result arrays (≈ 80 B per UR5 problem). A task whose worker dies is retried by Ray
(``max_retries``); the caller accepts each chunk once, so every problem is once in the
output. An exception raised by a solve is not retried; one that cannot be pickled is sent
as a :class:`taskik.batch.WorkerError` (its type, message and traceback as text).

:func:`run_ray_work` runs any chunked work (:data:`taskik.batch.local.Work`, picklable) the
same way: shipped once per job, kept by each worker for the job's later chunks.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

import numpy as np

from ..exceptions import TaskikError
from .local import OnChunk, Work, sendable
from .problems import Job, solve_chunk, worker_name

#: Ray retries of a task whose worker died.
MAX_RETRIES = 3

# In a Ray worker: the jobs whose model this process has already fetched, by key.
_JOBS: dict[str, Job] = {}
_WORKS: dict[str, Work] = {}  # (the same for run_ray_work's jobs)
_REMOTE: dict[str, Any] = {}  # the remote functions, made once per process
_NO_TARGETS = np.empty((0, 4, 4))  # (a worker's job: each task brings its targets)


def import_ray() -> ModuleType:
    """``ray``, or an ImportError that says how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ImportError(
            "engine='ray' needs Ray: pip install 'ray[default]' (or, from a clone, "
            "pip install -e '.[distributed]')"
        ) from None


def _chunk_task(
    meta: tuple[str, str, dict[str, Any], int],
    model_box: list[Any],
    targets: np.ndarray,
    start: int,
    stop: int,
) -> dict[str, np.ndarray]:
    """One chunk in a Ray worker; ``model_box`` holds the model's object reference (in a
    list, so that Ray does not fetch it for every task)."""
    key, frame, options, seed = meta
    job = _JOBS.get(key)
    if job is None:
        ray = import_ray()
        _JOBS.clear()  # one job at a time per worker: drop the last one
        job = _JOBS[key] = Job(ray.get(model_box[0]), frame, _NO_TARGETS, options, seed, key)
    return _in_worker(
        partial(solve_chunk, job, start, stop, targets), f"problems {start}..{stop - 1}"
    )


def _work_task(key: str, work_box: list[Any], start: int, stop: int) -> dict[str, np.ndarray]:
    """One chunk of a :func:`run_ray_work` job in a Ray worker (``work_box``: the work's
    object reference, in a list so that Ray does not fetch it for every task)."""
    work = _WORKS.get(key)
    if work is None:
        ray = import_ray()
        _WORKS.clear()
        work = _WORKS[key] = ray.get(work_box[0])
    return _in_worker(partial(work, start, stop), f"chunk {start}..{stop - 1}")


def _in_worker(run: Callable[[], dict[str, np.ndarray]], where: str) -> dict[str, np.ndarray]:
    """``run()`` in a Ray worker, its output tagged with the worker's name and node; an
    exception that cannot travel back is replaced by one that can, saying ``where``."""
    try:
        out = run()
    except Exception as exc:
        error = sendable(exc, f"in a Ray worker on {where}")
        if error is exc:
            raise
        raise error from None
    out["worker"] = np.array(f"{worker_name()}/{_node_id()}")
    return out


def _remote(function: Callable[..., Any], max_retries: int) -> Any:
    """``function`` as a Ray remote function (made once per process) with these retries."""
    ray = import_ray()
    if function.__name__ not in _REMOTE:
        _REMOTE[function.__name__] = ray.remote(function)
    return _REMOTE[function.__name__].options(max_retries=max_retries, retry_exceptions=False)


def _node_id() -> str:
    try:
        return str(import_ray().get_runtime_context().get_node_id())[:8]
    except Exception:  # pragma: no cover (outside a Ray worker)
        return "?"


def cluster_cpus(address: str | None) -> int:
    """CPUs of the Ray cluster (``ray.init(address)`` first when Ray is not initialised;
    left running for the next calls)."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_ray(
    job: Job,
    ranges: list[tuple[int, int]],
    on_chunk: OnChunk,
    address: str | None = None,
    max_retries: int = MAX_RETRIES,
) -> list[str]:
    """Solve the chunks ``ranges`` of ``job`` as Ray tasks (``ray.init(address)`` first
    when Ray is not initialised; left running for the next calls); ``on_chunk`` receives
    each chunk once, as it finishes. Returns the worker of each chunk."""
    ray = import_ray()
    cluster_cpus(address)
    remote = _remote(_chunk_task, max_retries)
    model_ref = ray.put(job.model)
    meta = (job.key, job.frame, job.options, job.seed)
    refs = {
        remote.remote(meta, [model_ref], job.targets[start:stop], start, stop): (start, stop)
        for start, stop in ranges
    }
    return _gather(ray, refs, on_chunk, "problems")


def run_ray_work(
    work: Work,
    ranges: list[tuple[int, int]],
    on_chunk: OnChunk,
    address: str | None = None,
    max_retries: int = MAX_RETRIES,
    label: str = "problems",
) -> list[str]:
    """Run ``work`` (picklable) on the chunks ``ranges`` as Ray tasks (``ray.init(address)``
    first when Ray is not initialised); ``on_chunk`` receives each chunk once, as it
    finishes. Returns the worker of each chunk. ``label``: what the indices count."""
    ray = import_ray()
    cluster_cpus(address)
    remote = _remote(_work_task, max_retries)
    key = uuid.uuid4().hex
    box = [ray.put(work)]
    refs = {remote.remote(key, box, start, stop): (start, stop) for start, stop in ranges}
    return _gather(ray, refs, on_chunk, label)


def _gather(
    ray: ModuleType, refs: dict[Any, tuple[int, int]], on_chunk: OnChunk, label: str
) -> list[str]:
    """Wait for the tasks ``refs`` (their chunks), pass each result to ``on_chunk`` as it
    comes; cancel what is left when one fails."""
    names: list[str] = []
    waiting = list(refs)
    try:
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for ref in done:
                start, stop = refs.pop(ref)
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    raise exc.as_instanceof_cause() from None
                except ray.exceptions.RayError as exc:
                    raise TaskikError(
                        f"{label} {start}..{stop - 1}: Ray gave up on the chunk ({exc})"
                    ) from exc
                names.append(str(out["worker"]))
                on_chunk(start, stop, out)
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
    return names
