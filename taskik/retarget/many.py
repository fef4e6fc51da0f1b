"""Many clips at once: :func:`retarget_many` retargets each clip file to
``<output_dir>/<clip stem>.npz``, the clips spread over every core (the batch package's
local engine) or over a Ray cluster (its Ray engine).

One clip is one chunk of the job: a worker reads the clip file, retargets it exactly as
:func:`taskik.retarget.retarget` does in one process, and sends the result back; the caller
alone writes each output file, through a temporary file and a rename (a file is complete
or absent). A clip whose worker dies is given to another worker (local engine) or retried
by Ray, and accepted once. A rerun skips the clips whose output file already holds a
retargeting onto the same robot with the same steps (resume).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import robots
from ..batch.local import cpu_count, run_local
from ..batch.problems import worker_name
from ..batch.solve import ENGINES, progress_bar
from ..exceptions import InvalidInput
from ..robots import Robot
from .clip import as_path
from .mapping import RetargetMapping, load_mapping
from .result import RetargetResult, load_result
from .solver import DEFAULT_STEPS, _as_count, _as_robot, retarget

#: Options of :func:`taskik.retarget.retarget` that :func:`retarget_many` passes on.
OPTIONS = ("steps", "first_steps", "q_start", "solver")


@dataclass(frozen=True)
class ClipSummary:
    """One clip of a :func:`retarget_many` job.

    Attributes:
        input: the clip file.
        output: its result file (``.npz``, read with :func:`taskik.retarget.load_result`).
        frames: frames in the clip.
        frames_per_second: frames retargeted per second of the worker's solve time.
        mean_position_error: mean keypoint position error over frames and tasks (m).
        max_position_error: largest keypoint position error (m).
        solve_time: the worker's solve time (s).
        resumed: True when the output was already there and the clip was skipped.
        worker: who solved it (``"pid@host"``, ``"/node"`` on Ray; ``""`` when resumed).
    """

    input: Path
    output: Path
    frames: int
    frames_per_second: float
    mean_position_error: float
    max_position_error: float
    solve_time: float
    resumed: bool
    worker: str

    @classmethod
    def of(cls, path: Path, output: Path, result: RetargetResult, worker: str) -> ClipSummary:
        """The summary of ``result`` (``worker=""``: read back from an earlier run)."""
        return cls(
            path,
            output,
            result.n_frames,
            result.frames_per_second,
            float(result.position_errors.mean()),
            float(result.position_errors.max()),
            result.solve_time,
            not worker,
            worker,
        )


@dataclass
class RetargetBatch:
    """What :func:`retarget_many` returns: one :class:`ClipSummary` per clip, in the order
    of the clips given, and the job's wall time (s)."""

    clips: list[ClipSummary]
    wall_time: float
    robot: str = ""
    workers: list[str] = field(default_factory=list)

    @property
    def frames(self) -> int:
        """Frames retargeted by this run (resumed clips not counted)."""
        return sum(c.frames for c in self.clips if not c.resumed)

    @property
    def frames_per_second(self) -> float:
        """Frames retargeted by this run per second of wall time, all workers together."""
        return self.frames / self.wall_time if self.wall_time > 0 else float("inf")

    def __str__(self) -> str:
        lines = [
            f"{c.input.name}: {c.frames} frames, {c.frames_per_second:,.0f} frames/s, position "
            f"error mean {c.mean_position_error * 1e3:.1f} mm, max "
            f"{c.max_position_error * 1e3:.1f} mm -> {c.output}"
            + (" (already done)" if c.resumed else "")
            for c in self.clips
        ]
        resumed = sum(c.resumed for c in self.clips)
        lines.append(
            f"{len(self.clips)} clips onto {self.robot} ({resumed} already done): "
            f"{self.frames} frames in {self.wall_time:.2f} s, "
            f"{self.frames_per_second:,.0f} frames/s on {len(set(self.workers))} workers"
        )
        return "\n".join(lines)


def retarget_clip(
    robot: Robot, path: Path, mapping: RetargetMapping, options: dict[str, Any]
) -> RetargetResult:
    """One clip of a job, in a worker (a module-level name, so that a test can replace it)."""
    return retarget(robot, path, mapping, **options)


class ClipJob:
    """The work of a job: clip ``i`` of ``paths`` retargeted, as a chunk ``[i, i + 1)``
    (``taskik.batch.local.Work``). Pickled (spawned workers, Ray) without the robot,
    which a worker loads by name once and keeps."""

    def __init__(
        self,
        robot: Robot,
        paths: list[Path],
        mapping: RetargetMapping,
        options: dict[str, Any],
    ) -> None:
        self.robot: Robot | None = robot
        self.name = robot.name
        self.paths = paths
        self.mapping = mapping
        self.options = options

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "robot": None}  # (the G1's geometry pickles to 850 MB)

    def __call__(self, start: int, stop: int) -> dict[str, np.ndarray]:
        if stop != start + 1:
            raise ValueError(f"a clip job's chunks hold one clip, got {start}..{stop - 1}")
        if self.robot is None:
            self.robot = robots.load(self.name)
        r = retarget_clip(self.robot, self.paths[start], self.mapping, self.options)
        return {**r.arrays(), "worker": np.array(worker_name())}


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InvalidInput(
            f"retarget_many: unknown option(s) {', '.join(unknown)}; the retarget options "
            f"are {', '.join(OPTIONS)} (progress: a bool of retarget_many)"
        )
    for name in ("steps", "first_steps"):
        if name in options:
            options[name] = _as_count(options[name], name)
    return options


def _clip_paths(clips: Sequence[str | os.PathLike[str]]) -> list[Path]:
    if isinstance(clips, str | os.PathLike):
        raise InvalidInput("clips must be a list of clip files, got a single path")
    if isinstance(clips, bytes) or not isinstance(clips, Iterable):
        raise InvalidInput(f"clips must be a list of clip files, got {type(clips).__name__}")
    paths = [as_path(c, "each clip") for c in clips]
    missing = [str(p) for p in paths if not _is_file(p)]
    if missing:
        raise InvalidInput(f"clip file(s) not found: {', '.join(missing)}")
    stems: dict[str, Path] = {}
    for p in paths:
        if p.stem in stems:
            raise InvalidInput(
                f"clips {stems[p.stem]} and {p} would both be written to {p.stem}.npz; "
                "rename one or retarget them into different output folders"
            )
        stems[p.stem] = p
    return paths


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long, ...: not a clip file either
        return False


def _finished(output: Path, robot: str, steps: int) -> RetargetResult | None:
    """The result already in ``output`` (None: absent); InvalidInput when it holds
    something else than a retargeting onto ``robot`` with ``steps`` steps."""
    if not output.exists():
        return None
    try:
        old = load_result(output)
    except InvalidInput as exc:
        raise InvalidInput(
            f"{output} exists and is not a retarget result ({exc}); remove it or choose "
            "another output_dir"
        ) from None
    if old.robot != robot or old.steps != steps:
        raise InvalidInput(
            f"{output} holds a retargeting onto {old.robot} with {old.steps} steps/frame, not "
            f"{robot} with {steps}; remove it or choose another output_dir"
        )
    return old


def retarget_many(
    robot: Robot | str,
    clips: Sequence[str | os.PathLike[str]],
    mapping: RetargetMapping | dict[str, Any] | str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    engine: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool = False,
    **retarget_options: Any,
) -> RetargetBatch:
    """Retarget every clip file of ``clips`` onto ``robot`` through ``mapping``, clip ``c``
    to ``output_dir/<c's stem>.npz``, on every core (``engine="local"``) or on a Ray
    cluster (``engine="ray"``).

    Each output is bit for bit what ``retarget_file(c, output_dir / f"{c.stem}.npz", robot,
    mapping, **retarget_options)`` writes (but ``solve_time``), whatever the engine and the
    number of workers. A clip whose output file already holds a retargeting onto the same
    robot with the same ``steps`` is skipped (a stopped job, run again, resumes). A clip
    whose worker dies is retargeted again by another worker; each clip is written once,
    by the caller, through a temporary file and a rename. An error in one clip (bad file,
    failed QP) stops the job and is raised here; the clips finished so far stay written.

    Args:
        robot: a :class:`taskik.robots.Robot` or a name for :func:`taskik.robots.load`.
            Spawned workers and Ray workers load it by name.
        clips: clip files (``.npz`` / ``.csv``); their stems must differ.
        mapping: a :class:`RetargetMapping`, its dict form, or a ``.json`` / ``.yaml`` file.
        output_dir: folder of the result files (made when missing).
        engine: ``"local"`` (processes on this machine, no server) or ``"ray"`` (Ray tasks,
            ``pip install -e '.[distributed]'`` from a clone, or ``pip install 'ray[default]'``;
            the clip files must be readable by every
            node, e.g. on a shared file system; the outputs are written by the caller).
        workers: local processes (default: the cores this process may use; 1: retarget in
            this process). Unused by Ray, which uses the cluster's CPUs.
        address: Ray cluster address (``None``: a local Ray, ``"auto"``,
            ``"ray://host:port"``), used when Ray is not initialised yet.
        progress: show a progress bar (tqdm) counting clips.
        **retarget_options: ``steps``, ``first_steps``, ``q_start``, ``solver`` of
            :func:`taskik.retarget.retarget`, the same for every clip.

    Returns:
        A :class:`RetargetBatch`: per clip (in the order given) its frames, frames/s, mean
        and largest keypoint error and output path, and the job's frames/s.

    Raises:
        InvalidInput: a missing clip file (all are named), two clips with one stem, an
            existing output that is not this job's, a bad engine, worker count or option;
            a malformed clip (raised from its worker, naming the file).
        UnknownName: an unknown robot, a mapping frame the robot lacks or a keypoint a clip
            lacks (close names suggested).
        NoSolutionFound: a QP failed (the clip and frame are named).
        ImportError: ``engine="ray"`` without Ray installed.
    """
    t0 = time.perf_counter()
    if not isinstance(engine, str) or engine not in ENGINES:
        raise InvalidInput(f"engine must be one of {ENGINES}, got {engine!r}")
    workers = cpu_count() if workers is None else _as_count(workers, "workers")
    options = _check_options(dict(retarget_options))
    if not isinstance(progress, bool | np.bool_):
        raise InvalidInput(f"progress must be True or False, got {progress!r}")
    paths = _clip_paths(clips)
    robot = _as_robot(robot)
    if engine == "ray" and robot.name not in robots.list():
        raise InvalidInput(
            f"engine='ray' loads the robot by name in each worker; {robot.name!r} is not one "
            "of taskik.robots.list()"
        )
    mapping = load_mapping(mapping)
    out_dir = as_path(output_dir, "output_dir")
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise InvalidInput(f"output_dir {out_dir} is a file, not a folder")
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInput(f"cannot make output_dir {out_dir}: {exc.strerror or exc}") from exc
    outputs = [out_dir / f"{p.stem}.npz" for p in paths]
    steps = options.get("steps", DEFAULT_STEPS)
    summaries: list[ClipSummary | None] = [None] * len(paths)
    for i, (path, output) in enumerate(zip(paths, outputs, strict=True)):
        old = _finished(output, robot.name, steps)
        if old is not None:
            summaries[i] = ClipSummary.of(path, output, old, "")
        for stale in out_dir.glob(f".{output.name}.*.tmp"):  # a write cut short by a kill
            stale.unlink(missing_ok=True)
    todo = [(i, i + 1) for i, s in enumerate(summaries) if s is None]
    bar = progress_bar(len(paths), len(paths) - len(todo), " clips", False) if progress else None

    def on_chunk(start: int, stop: int, arrays: dict[str, np.ndarray]) -> None:
        result = RetargetResult.from_arrays(arrays)
        result.save(outputs[start])
        summaries[start] = ClipSummary.of(
            paths[start], outputs[start], result, str(arrays["worker"])
        )
        if bar is not None:
            bar.update(1)

    # absolute: a Ray worker's working folder is not the caller's
    job = ClipJob(robot, [p.resolve() for p in paths], mapping, options)
    try:
        if engine == "ray":
            from ..batch.ray_engine import run_ray_work

            names = run_ray_work(job, todo, on_chunk, address=address, label="clips")
        else:
            names = run_local(job, todo, workers, on_chunk, label="clips")
    finally:
        if bar is not None:
            bar.close()
    done = [s for s in summaries if s is not None]
    return RetargetBatch(done, time.perf_counter() - t0, robot.name, names)
