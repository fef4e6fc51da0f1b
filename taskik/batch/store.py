"""Finished chunks on disk as a job runs, so that a restarted job resumes; every file
checked when read back, so that the output never holds an answer it cannot prove.

Layout for ``output = "poses.npz"``: while the job runs, ``poses.npz.parts/`` holds
``job.json`` (the job's fingerprint, size and file format) and one
``<start>-<stop>.npz`` per finished chunk (10-digit problem indices). A part holds the
chunk's result arrays, ``index`` (the problem of each row: ``start, ..., stop − 1``), the
job's ``key`` and ``checksum``, the SHA-256 of all of them with ``(start, stop)``. Every
file is written to a temporary name, flushed to disk (fsync), renamed (``os.replace``) and
its directory synced: a file is complete or absent, even across a power cut. At the end,
``poses.npz`` is written the same way (with its own checksum) and the parts are removed.

A restart reads each part back and keeps it only if it passes every check: readable, its
name's range inside the job, every array present with one row per problem of the range
(``q`` of width nq, the dtypes), ``index`` equal to the range, the checksum equal to the
data's. A part that fails any check (truncated, corrupted, too few rows, wrong indices) is
removed, a ``RuntimeWarning`` names it and why, and its problems are solved again:
never trusted, never spread over other problems. A directory, a part or a result file of a
different job (other targets, options, seed, frame or model) is refused. One run at a time
writes an output: a run holds ``.poses.npz.lock`` (``flock``) while it solves.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
import warnings
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows: no lock)
    fcntl = None  # type: ignore[assignment]

import numpy as np

from ..exceptions import InvalidInput, TaskikError
from .problems import Job, empty_results
from .result import (
    FIELDS,
    BatchResult,
    OutputError,
    _as_path,
    check_rows,
    digest,
    read_npz,
    write_npz,
)

#: Format of the parts directory (``job.json``'s ``"format"``); parts of another format
#: are solved again.
FORMAT = 2

#: Seconds a run waits for another run that holds the output (see :meth:`Store._lock`).
LOCK_WAIT = 3.0

#: File name of a part: ``<start>-<stop>.npz``, 10 digits each.
PART = re.compile(r"^(\d{10})-(\d{10})\.npz$")


def part_name(start: int, stop: int) -> str:
    """File name of the part holding problems ``start ≤ i < stop``."""
    return f"{start:010d}-{stop:010d}.npz"


def part_arrays(key: str, start: int, stop: int, values: dict[str, np.ndarray]) -> dict:
    """What the part file of ``[start, stop)`` holds: the result arrays, ``index``, the
    job's ``key`` and the ``checksum`` of all of them."""
    arrays = {name: np.asarray(values[name]) for name in FIELDS}
    arrays["index"] = np.arange(start, stop, dtype=np.int64)
    arrays["checksum"] = np.array(digest(arrays, "part", key, start, stop))
    arrays["key"] = np.array(key)
    return arrays


class Store:
    """The output of one job: its finished chunks, then its result file.

    Raises (from any method): :class:`InvalidInput` for a path that cannot be an output
    (not a path, a directory, in a missing directory) or that holds another job's files;
    :class:`OutputError` when the system refuses a write.
    """

    def __init__(self, path: str | os.PathLike[str], job: Job) -> None:
        self.path = _as_path(path, "output")
        self.parts = self.path.with_name(self.path.name + ".parts")
        self.manifest = self.parts / "job.json"
        self.job = job
        self.started = False  # parts directory and manifest made
        self.rejected: list[tuple[str, str]] = []  # (part file, why) dropped by open()
        self.resumed = 0  # problems read back from parts by open()
        self._lock_fd: int | None = None  # held from open() to close()
        self._lock_path = self.path

    # -- reading back ------------------------------------------------------------------
    def open(self) -> tuple[dict[str, np.ndarray], np.ndarray, BatchResult | None]:
        """``(arrays, done, finished)``: the result arrays filled from the parts already
        written and checked, which problems they hold, and the whole result when the
        output file of this job already exists (nothing left to do)."""
        job = self.job
        self._check_path()
        if self.path.exists():  # (read only: a finished job needs no write access)
            return {}, np.ones(job.size, dtype=bool), self._finished()
        self._probe()
        self._lock()
        if self.path.exists():  # (finished by the run that held the lock)
            return {}, np.ones(job.size, dtype=bool), self._finished()
        arrays = empty_results(job.size, job.model.nq)
        done = np.zeros(job.size, dtype=bool)
        if self.parts.exists():
            if not self.parts.is_dir():
                raise InvalidInput(
                    f"{self.parts} is not a directory; this output keeps its finished "
                    "chunks there: remove it or choose another output"
                )
            current = self._read_manifest()
            self._read_parts(arrays, done)
            self.resumed = int(done.sum())
            if not current:  # (a damaged or older manifest: written anew)
                self._write_manifest()
            self.started = True
        return arrays, done, None

    def _check_path(self) -> None:
        """Fail before any work when the output cannot be one: its directory missing or
        not a directory, or the output a directory."""
        parent = self.path.parent
        if not parent.is_dir():
            what = "does not exist" if not parent.exists() else "is not a directory"
            raise InvalidInput(f"output {self.path}: its directory {parent} {what}")
        if self.path.is_dir():
            raise InvalidInput(f"output {self.path} is a directory; give a file path (.npz)")

    def _probe(self) -> None:
        """Fail before any work when the output's directory refuses a new file."""
        parent = self.path.parent
        try:  # a probe file, removed at once (a job that fails leaves nothing behind)
            fd, probe = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".probe", dir=parent)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise OutputError(
                f"cannot write output {self.path}: its directory {parent} refuses a new "
                f"file ({exc.strerror or exc})"
            ) from exc

    def _lock(self) -> None:
        """Hold ``.<output>.lock`` (``flock``, exclusive) until :meth:`close`: one run at a
        time writes an output. Another run holding it is waited for up to
        :data:`LOCK_WAIT` seconds (the workers of a killed caller, which keep the lock,
        exit when they finish their chunk), then :class:`OutputError`. A no-op where
        ``fcntl`` is missing (Windows)."""
        if fcntl is None:  # pragma: no cover
            return
        path = self.path.with_name(f".{self.path.name}.lock")
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise OutputError(f"cannot make {path}: {exc.strerror or exc}") from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
                os.close(fd)
                if time.monotonic() > deadline:
                    raise OutputError(
                        f"another run (pid {holder}) is writing {self.path}; wait for it, or "
                        "if it was stopped, for its workers to exit (at the end of their "
                        "chunk), then call again"
                    ) from None
                time.sleep(0.05)
                continue
            try:  # (the file a finishing run removed: lock the new one instead)
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd, self._lock_path = fd, path

    def close(self) -> None:
        """Release the output (its lock file removed); the parts stay for a resume."""
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                self._lock_path.unlink()
            os.close(self._lock_fd)
            self._lock_fd = None

    def _finished(self) -> BatchResult:
        """The existing output file, checked and of this job (the parts a run stopped
        between writing it and removing them are removed)."""
        try:
            old = BatchResult.load(self.path)
        except InvalidInput as exc:
            raise InvalidInput(
                f"{exc}; it is left as it is: remove it to solve the job again, or choose "
                "another output"
            ) from None
        if old.key != self.job.key:
            raise InvalidInput(
                f"{self.path} holds the result of a different job (other targets, "
                "options, seed, frame or model); remove it or choose another output"
            )
        if len(old) != self.job.size or old.q.shape[1] != self.job.model.nq:
            raise InvalidInput(f"{self.path} is damaged: its arrays do not fit the job")
        if self.parts.is_dir() and self._manifest_key() == self.job.key:
            shutil.rmtree(self.parts, ignore_errors=True)
        return old

    def _manifest_key(self) -> str | None:
        try:
            meta = json.loads(self.manifest.read_text())
            return str(meta["key"]) if isinstance(meta, dict) else None
        except (OSError, ValueError, KeyError, UnicodeDecodeError):
            return None

    def _read_manifest(self) -> bool:
        """Whether ``job.json`` is this job's, in this format. A manifest of another job
        is refused; a damaged or missing one (its parts are checked one by one anyway)
        is written anew after the parts are read."""
        try:
            meta = json.loads(self.manifest.read_text())
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except FileNotFoundError:
            return False
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            warnings.warn(
                f"{self.manifest} is damaged ({exc}); its parts are checked one by one",
                RuntimeWarning,
                stacklevel=4,
            )
            return False
        if meta.get("key") != self.job.key or meta.get("size") != self.job.size:
            raise InvalidInput(
                f"{self.parts} holds the chunks of a different job (other targets, "
                "options, seed, frame or model); remove it or choose another output"
            )
        return bool(meta.get("format") == FORMAT)

    def _read_parts(self, arrays: dict[str, np.ndarray], done: np.ndarray) -> None:
        """Fill ``arrays`` and ``done`` from the parts that pass every check; remove the
        others (and temporary files of interrupted writes)."""
        found = []
        for entry in self.parts.iterdir():
            match = PART.match(entry.name)
            if match:
                found.append((int(match[1]), int(match[2]), entry))
            elif entry.name.endswith(".tmp"):
                self._remove(entry)
        for start, stop, entry in sorted(found):
            why = self._check_part(entry, start, stop, done)
            if isinstance(why, str):
                self.rejected.append((entry.name, why))
                warnings.warn(
                    f"{entry}: {why}; problems {start}..{stop - 1} are solved again",
                    RuntimeWarning,
                    stacklevel=4,
                )
                self._remove(entry)
                continue
            for name in FIELDS:
                arrays[name][start:stop] = why[name]
            done[start:stop] = True

    def _check_part(
        self, entry: Path, start: int, stop: int, done: np.ndarray
    ) -> dict[str, np.ndarray] | str:
        """The arrays of the part ``entry`` named ``[start, stop)``, or why it fails."""
        if not start < stop <= len(done):
            return f"its range is outside the job's {len(done)} problems"
        if done[start:stop].any():
            return "it overlaps a part already read (a copy)"
        found = read_npz(entry, (*FIELDS, "index", "key", "checksum"))
        if isinstance(found, str):
            return found
        why = check_rows(found, stop - start, self.job.model.nq)
        if why:
            return why
        index = found["index"]
        if index.dtype != np.int64 or not np.array_equal(index, np.arange(start, stop)):
            return f"its rows are not problems {start}..{stop - 1} (index differs)"
        if found["checksum"].shape != () or found["key"].shape != ():
            return "its checksum or key is not a scalar"
        key = str(found["key"])
        data = {name: found[name] for name in (*FIELDS, "index")}
        if str(found["checksum"]) != digest(data, "part", key, start, stop):
            return "its checksum does not match its data (corrupted)"
        if key != self.job.key:
            raise InvalidInput(
                f"{entry} is a chunk of a different job (other targets, options, seed, "
                "frame or model); remove it or choose another output"
            )
        return found

    def _remove(self, entry: Path) -> None:
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise OutputError(f"cannot remove the damaged part {entry}: {exc.strerror}") from exc

    # -- writing -----------------------------------------------------------------------
    def _write_manifest(self) -> None:
        meta = {"format": FORMAT, "key": self.job.key, "size": self.job.size}
        tmp = self.parts / f"job.json.{os.getpid()}.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(meta, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.manifest)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise OutputError(f"cannot write {self.manifest}: {exc.strerror or exc}") from exc

    def _start(self) -> None:
        """The parts directory and its manifest, made with the first chunk (a job that
        fails before any chunk is done leaves nothing behind)."""
        try:
            self.parts.mkdir(exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot make {self.parts}: {exc.strerror or exc}") from exc
        if not self.parts.is_dir():
            raise OutputError(f"cannot make {self.parts}: a file of that name exists")
        self._write_manifest()

    def write(self, start: int, stop: int, values: dict[str, np.ndarray]) -> None:
        """Write the chunk ``[start, stop)`` (complete or not at all)."""
        why = check_rows(values, stop - start, self.job.model.nq)
        if why:  # (an engine's fault: never written)
            raise TaskikError(f"chunk {start}..{stop - 1} is malformed, not written: {why}")
        if not self.started:
            self._start()
            self.started = True
        name = part_name(start, stop)
        write_npz(
            self.parts / name,
            part_arrays(self.job.key, start, stop, values),
            self.parts / f"{name}.{os.getpid()}.tmp",
        )

    def finish(self, result: BatchResult) -> None:
        """Write the result file (its temporary file among the parts: a run stopped while
        writing it resumes from the parts), then remove the parts."""
        if not self.started:  # (every problem came from the parts: none written now)
            self._start()
            self.started = True
        result.save(self.path, _tmp=self.parts / f"result.{os.getpid()}.tmp")
        shutil.rmtree(self.parts, ignore_errors=True)
