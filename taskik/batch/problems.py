"""One batch job, engine-free: the checked inputs (:class:`Job`), the seed of each problem
and the solve of one chunk of problems, which every engine runs as is.

Problem ``i`` of a job with seed ``s`` is, bit for bit,

    task = FrameTask(frame); task.set_target(targets[i])
    solve_posture(model, [task], rng=problem_seed(s, i), **options)

whatever the engine, the chunking, the worker or the order the chunks run in: a problem's
answer depends only on the model, its target, the options and ``(s, i)``.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import os
import pickle
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import InvalidInput, real_array
from ..posture import solve_posture
from ..robots import Robot
from ..tasks.frame import FrameTask

#: Problems per chunk when ``chunk_size`` is not given: large enough that a chunk costs far
#: more than its round trip (≈ 0.1 ms locally; 256 UR5 solves ≈ 18 ms), small enough that
#: the last chunks balance the workers and a lost chunk costs little.
DEFAULT_CHUNK = 256

#: Smallest chunk of the guided tail (see :func:`chunks`).
MIN_TAIL = 16

#: Options of :func:`taskik.solve_posture` that a batch sets itself.
RESERVED = {"rng": "seed", "q0": "targets (every problem starts as solve_posture decides)"}

#: Arguments of :func:`taskik.solve_posture` that are not options of a batch.
FIXED = ("conf_or_model", "tasks", *RESERVED)


def problem_seed(seed: int, index: int) -> int:
    """The ``rng`` of problem ``index`` in a job seeded ``seed``: ``seed · 2³² + index``
    (a distinct integer per problem, mixed by numpy's SeedSequence when used)."""
    for value, what in ((seed, "seed"), (index, "index")):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise InvalidInput(f"problem_seed: {what} must be an integer >= 0, got {value!r}")
    if index >= 1 << 32:
        raise InvalidInput(f"problem_seed: index must be < 2**32, got {index}")
    return (int(seed) << 32) + int(index)


@dataclass
class Job:
    """What every chunk of one job shares; ``targets`` is ``(N, 4, 4)``, float64."""

    model: pin.Model
    frame: str
    targets: np.ndarray
    options: dict[str, Any]
    seed: int
    key: str = field(default="", repr=False)  # fingerprint (see fingerprint())

    @property
    def size(self) -> int:
        return int(self.targets.shape[0])


def make_job(
    robot: Robot | pin.Model,
    frame: str,
    targets: npt.ArrayLike | Sequence[pin.SE3],
    seed: int | None,
    options: Mapping[str, Any],
) -> Job:
    """Check the inputs of :func:`taskik.batch.solve_poses` and make its :class:`Job`.

    Raises:
        InvalidInput: targets not ``N × 4 × 4`` (or a list of ``pin.SE3``), NaN/inf or a
            non-rigid transform (naming the first bad index), a reserved option, a bad seed.
        UnknownName: ``frame`` is not a frame of the model (with close matches).
    """
    model = robot.model if isinstance(robot, Robot) else robot
    if not isinstance(model, pin.Model):
        raise InvalidInput(
            f"robot must be a taskik Robot or a pinocchio.Model, got {type(robot).__name__}"
        )
    if not isinstance(frame, str):
        raise InvalidInput(f"frame must be a frame name (str), got {type(frame).__name__}")
    Configuration(model, pin.neutral(model)).get_frame_id(frame)  # UnknownName with matches
    for name, instead in RESERVED.items():
        if name in options:
            raise InvalidInput(f"solve_poses sets {name!r} per problem; use {instead} instead")
    known = [p for p in inspect.signature(solve_posture).parameters if p not in FIXED]
    for name in options:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InvalidInput(
                f"unknown option {name!r} of solve_posture{hint} (options: {', '.join(known)})"
            )
    if seed is None:
        seed = int(np.random.default_rng().integers(2**31))
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidInput(f"seed must be an int >= 0 or None, got {seed!r}")
    job = Job(model, frame, as_targets(targets), dict(options), int(seed))
    job.key = fingerprint(job)
    return job


#: Largest coordinate of a target's translation (m): 1000 km, beyond any robot's reach.
_MAX_TRANSLATION = 1e6


def as_targets(targets: npt.ArrayLike | Sequence[pin.SE3]) -> np.ndarray:
    """``targets`` as an ``(N, 4, 4)`` float64 array of rigid transforms (N ≥ 1), each with
    finite real entries and a translation within 1e6 m of the origin (:class:`InvalidInput`
    otherwise)."""
    if isinstance(targets, pin.SE3):
        raise InvalidInput("targets must be a sequence of poses; wrap a single pin.SE3 in a list")
    if isinstance(targets, Sequence) and targets and isinstance(targets[0], pin.SE3):
        if not all(isinstance(t, pin.SE3) for t in targets):
            raise InvalidInput("targets mixes pin.SE3 with other types")
        arr = np.array([t.homogeneous for t in targets if isinstance(t, pin.SE3)])
    else:
        try:
            arr = real_array(targets, "targets")  # complex numbers refused, not cast
        except InvalidInput as exc:
            raise InvalidInput(
                f"targets must be an N × 4 × 4 array of real numbers or a list of pin.SE3, "
                f"got {type(targets).__name__} ({exc})"
            ) from None
    if arr.ndim != 3 or arr.shape[1:] != (4, 4) or arr.shape[0] == 0:
        raise InvalidInput(
            f"targets must be an N × 4 × 4 array (N >= 1) or a list of pin.SE3, got shape "
            f"{arr.shape}"
        )
    finite = np.isfinite(arr).all(axis=(1, 2))
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise InvalidInput(
            f"targets {bad[:10].tolist()} contain NaN or inf ({bad.size} of {len(arr)})"
        )
    far = np.abs(arr[:, :3, 3]).max(axis=1) > _MAX_TRANSLATION
    if far.any():
        bad = np.flatnonzero(far)
        raise InvalidInput(
            f"targets {bad[:10].tolist()} have a translation beyond {_MAX_TRANSLATION:g} m "
            f"({bad.size} of {len(arr)}): no robot reaches there, and the pose error would "
            "overflow"
        )
    # RᵀR = I from the six dot products of the columns, det R = c₀ · (c₁ × c₂) > 0
    # (column-wise: ≈ 10× faster than a batched matmul and det on 3 × 3 blocks)
    c0, c1, c2 = arr[:, :3, 0], arr[:, :3, 1], arr[:, :3, 2]
    dot = partial(np.einsum, "ij,ij->i")
    err = np.max(
        np.abs([dot(c0, c0) - 1.0, dot(c1, c1) - 1.0, dot(c2, c2) - 1.0,
                dot(c0, c1), dot(c0, c2), dot(c1, c2)]),
        axis=0,
    )  # fmt: skip
    last_row = np.abs(arr[:, 3] - (0.0, 0.0, 0.0, 1.0)).max(axis=1)
    reflection = dot(c0, np.cross(c1, c2)) < 0
    bad_rigid = (err > 1e-6) | reflection | (last_row > 1e-9)
    if bad_rigid.any():
        i = int(np.flatnonzero(bad_rigid)[0])
        if last_row[i] > 1e-9:
            why = f"its last row is {arr[i, 3].tolist()}, not [0, 0, 0, 1] (transposed?)"
        elif err[i] > 1e-6:
            why = f"its rotation part is not orthonormal (|RᵀR − I| = {err[i]:.3g})"
        else:
            why = "its rotation part is a reflection (det R < 0)"
        raise InvalidInput(
            f"targets[{i}] is not a rigid transform: {why}; {int(bad_rigid.sum())} such target(s)"
        )
    return np.ascontiguousarray(arr)


def fingerprint(job: Job) -> str:
    """A hash of everything a problem's answer depends on (model, frame, targets, options,
    seed): a resumed job must match the one that wrote the output."""
    h = hashlib.sha256()
    try:
        h.update(pickle.dumps(job.model))
    except (pickle.PicklingError, TypeError, RuntimeError):  # pragma: no cover
        h.update(f"{job.model.name}:{job.model.nq}:{job.model.nv}".encode())
    h.update(job.frame.encode())
    h.update(job.targets.tobytes())
    h.update(repr(sorted((k, repr(v)) for k, v in job.options.items())).encode())
    h.update(str(job.seed).encode())
    return h.hexdigest()[:32]


def empty_results(n: int, nq: int) -> dict[str, np.ndarray]:
    """Result arrays for ``n`` problems (``taskik.batch.result.FIELDS``, of their
    ``DTYPES``; q NaN, success False until filled)."""
    return {
        "q": np.full((n, nq), np.nan),
        "success": np.zeros(n, dtype=bool),
        "iterations": np.zeros(n, dtype=np.int64),
        "searches": np.zeros(n, dtype=np.int64),
        "error": np.full(n, np.nan),
        "time": np.zeros(n),
    }


def solve_chunk(
    job: Job, start: int, stop: int, targets: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Solve problems ``start ≤ i < stop`` of ``job`` (``targets``: theirs, when the job
    does not hold them); the result arrays of the chunk (``taskik.batch.result.FIELDS``)
    and ``worker`` (``"pid@host"``)."""
    model, options, seed = job.model, job.options, job.seed
    out = empty_results(stop - start, model.nq)
    q, success, iterations, searches = out["q"], out["success"], out["iterations"], out["searches"]
    error, seconds = out["error"], out["time"]
    task = FrameTask(job.frame)
    if targets is None:
        targets = job.targets[start:stop]
    for k, i in enumerate(range(start, stop)):
        task.set_target(pin.SE3(targets[k]))
        r = solve_posture(model, [task], rng=problem_seed(seed, i), **options)
        q[k] = r.q
        success[k] = r.success
        iterations[k] = r.iterations
        searches[k] = r.searches
        error[k] = r.error
        seconds[k] = r.time
    out["worker"] = np.array(worker_name())
    return out


def worker_name() -> str:
    """``"pid@host"`` of the calling process."""
    return f"{os.getpid()}@{socket.gethostname()}"


def chunks(todo: np.ndarray, size: int, tail: int = 0) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges of at most ``size`` problems covering the indices where
    ``todo`` is True, in order. ``tail`` > 0 (the workers): guided sizes, each chunk at
    most ``⌈remaining / (2 · tail)⌉`` problems (and at least ``MIN_TAIL``), so that the last
    chunks are small and the workers finish together."""
    out: list[tuple[int, int]] = []
    idx = np.flatnonzero(todo)
    if idx.size == 0:
        return out
    breaks = np.flatnonzero(np.diff(idx) != 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1])).tolist()
    stops = np.concatenate((idx[breaks] + 1, [idx[-1] + 1])).tolist()
    remaining = int(idx.size)
    for a, b in zip(starts, stops, strict=True):
        while a < b:
            k = size
            if tail > 0:
                k = min(size, max(MIN_TAIL, -(-remaining // (2 * tail))))
            k = min(k, b - a)
            out.append((a, a + k))
            a += k
            remaining -= k
    return out


def default_chunk_size(n: int, workers: int) -> int:
    """:data:`DEFAULT_CHUNK`, smaller when there would be fewer than 4 chunks per worker."""
    return max(1, min(DEFAULT_CHUNK, -(-n // (4 * workers))))
