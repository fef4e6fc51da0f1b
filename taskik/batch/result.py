"""The outcome of a batch: one row per problem, in the order of the targets; and how batch
files are written (atomically, with a checksum) and read back (checked)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import InvalidInput, TaskikError

#: Result arrays of a batch, by name (one row per problem).
FIELDS = ("q", "success", "iterations", "searches", "error", "time")

#: dtype of each result array (``q`` is ``(N, nq)``, the others ``(N,)``).
DTYPES = {
    "q": np.dtype(np.float64),
    "success": np.dtype(np.bool_),
    "iterations": np.dtype(np.int64),
    "searches": np.dtype(np.int64),
    "error": np.dtype(np.float64),
    "time": np.dtype(np.float64),
}


class OutputError(TaskikError, OSError):
    """The output of a batch cannot be written: its directory is missing, read-only or
    full, or a path it needs is taken by something else. The message names the path and
    the system's reason."""


def digest(arrays: Mapping[str, np.ndarray], *meta: object) -> str:
    """SHA-256 (hex) of ``arrays`` (each name, dtype, shape and bytes, in sorted name
    order) and of ``meta`` (their text): what a batch file stores to prove it is whole."""
    h = hashlib.sha256()
    for item in meta:
        h.update(repr(item).encode())
        h.update(b"\0")
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; a no-op where directories cannot be
    opened, e.g. Windows)."""
    if os.name == "nt":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_npz(path: Path, arrays: Mapping[str, np.ndarray], tmp: Path | None = None) -> None:
    """Write ``arrays`` to ``path`` (``.npz``) complete or not at all: into ``tmp`` (by
    default a hidden name beside ``path``), flushed to disk (fsync), renamed over ``path``
    (``os.replace``, atomic), the directory synced. :class:`OutputError` when the system
    refuses (nothing is left at ``tmp``)."""
    if tmp is None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_directory(path.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {path}: {reason}") from exc


def read_npz(
    path: Path, names: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, np.ndarray] | str:
    """The arrays ``names`` (and those of ``optional`` it has) of the ``.npz`` file
    ``path``, or why they cannot be read (not a file, not a zip, truncated, a CRC error, a
    missing array, pickled data...)."""
    try:
        with open(path, "rb") as raw:  # (ours: closed whatever numpy raises)
            head = raw.read(4)
            if head != b"PK\x03\x04":  # (numpy would take anything else for a pickle)
                return "empty" if not head else "not an .npz archive (overwritten or truncated)"
            raw.seek(0)
            with np.load(raw, allow_pickle=False) as f:
                missing = [name for name in names if name not in f.files]
                if missing:
                    return f"no array {', '.join(repr(m) for m in missing)}"
                return {name: f[name] for name in (*names, *optional) if name in f.files}
    except Exception as exc:  # whatever a damaged file makes numpy or zipfile raise
        return f"unreadable ({type(exc).__name__}: {exc})"


def check_rows(arrays: Mapping[str, np.ndarray], n: int, nq: int | None = None) -> str:
    """Why ``arrays`` are not ``n`` result rows (:data:`FIELDS`, their dtypes, ``q`` of
    width ``nq`` when given); ``""`` when they are."""
    for name in FIELDS:
        a = np.asarray(arrays[name])
        if name == "q" and a.ndim != 2:
            return f"'q' has shape {a.shape}, expected {n} rows of nq values"
        shape: tuple[int, ...] = (n,) if name != "q" else (n, a.shape[1] if nq is None else nq)
        if a.shape != shape:
            return f"{name!r} has shape {a.shape}, expected {shape}"
        if a.dtype != DTYPES[name]:
            return f"{name!r} has dtype {a.dtype}, expected {DTYPES[name]}"
    return ""


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

    def _arrays(self) -> dict[str, Any]:
        arrays: dict[str, Any] = {name: getattr(self, name) for name in FIELDS}
        arrays["seed"] = np.int64(self.seed)
        arrays["key"] = np.array(self.key)
        arrays["checksum"] = np.array(
            digest({name: arrays[name] for name in FIELDS}, "result", self.seed, self.key)
        )
        return arrays

    def save(self, path: str | os.PathLike[str], *, _tmp: Path | None = None) -> Path:
        """Write the arrays, the seed, the key and a SHA-256 checksum of them to ``path``
        (``.npz``), atomically (a temporary file flushed to disk, then renamed over
        ``path``); returns the path.

        Raises:
            OutputError: the file cannot be written (the message says why).
        """
        path = _as_path(path, "path")
        write_npz(path, self._arrays(), _tmp)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BatchResult:
        """Read a result written by :meth:`save`, checked: every array present, one row
        per problem in each, and the checksum (when the file has one) matching the data.

        Raises:
            InvalidInput: ``path`` is missing, not a batch result file, or damaged
                (truncated, corrupted, arrays of the wrong length); the message says which.
        """
        path = _as_path(path, "path")
        if not path.exists():
            raise InvalidInput(f"{path} does not exist")
        found = read_npz(path, (*FIELDS, "seed", "key"), ("checksum",))
        if isinstance(found, str):
            raise InvalidInput(f"{path} is not a readable batch result file: {found}")
        if found["seed"].shape != () or found["key"].shape != ():
            raise InvalidInput(f"{path} is damaged: its seed or key is not a scalar")
        seed, key = int(found["seed"]), str(found["key"])
        success = found["success"]
        why = check_rows(found, success.shape[0] if success.ndim == 1 else -1)
        if why:
            raise InvalidInput(f"{path} is damaged: {why}")
        if "checksum" in found:  # (files written before checksums: their rows are checked)
            expected = digest({name: found[name] for name in FIELDS}, "result", seed, key)
            if str(found["checksum"]) != expected:
                raise InvalidInput(
                    f"{path} is damaged: its checksum does not match its data (corrupted "
                    "after it was written)"
                )
        return cls(
            q=found["q"],
            success=found["success"],
            iterations=found["iterations"],
            searches=found["searches"],
            error=found["error"],
            time=found["time"],
            seed=seed,
            key=key,
        )


def _as_path(path: object, name: str) -> Path:
    """``path`` as a Path; :class:`InvalidInput` for anything but a non-empty str or
    os.PathLike."""
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise InvalidInput(f"{name} must be a file path (str or os.PathLike), got {path!r}")
    out = Path(path)
    if str(path) == "" or out.name in ("", ".", ".."):
        raise InvalidInput(f"{name} must name a file, got {str(path)!r}")
    return out
