"""Finished chunks on disk as a job runs, so that a restarted job resumes.

Layout for ``output = "poses.npz"``: while the job runs, ``poses.npz.parts/`` holds
``job.json`` (the job's fingerprint and size) and one ``<start>-<stop>.npz`` per finished
chunk, each written to a temporary name and renamed (a file is complete or absent); at the
end, ``poses.npz`` is written the same way and the parts are removed. A restart reads the
parts back, solves only the problems no part holds, and refuses a directory written by a
different job (other targets, options, seed, frame or model).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from ..exceptions import InvalidInput
from .problems import FIELDS, Job, empty_results
from .result import BatchResult


class Store:
    """The output of one job: its finished chunks, then its result file."""

    def __init__(self, path: str | os.PathLike[str], job: Job) -> None:
        self.path = Path(path)
        self.parts = self.path.with_name(self.path.name + ".parts")
        self.job = job
        self.started = False  # parts directory and manifest made

    def open(self) -> tuple[dict[str, np.ndarray], np.ndarray, BatchResult | None]:
        """``(arrays, done, finished)``: the result arrays filled from the parts already
        written, which problems they hold, and the whole result when the output file of
        this job already exists (nothing left to do)."""
        job = self.job
        if self.path.exists():
            old = BatchResult.load(self.path)
            if old.key != job.key:
                raise InvalidInput(
                    f"{self.path} holds the result of a different job (other targets, "
                    "options, seed, frame or model); remove it or choose another output"
                )
            return {}, np.ones(job.size, dtype=bool), old
        arrays = empty_results(job.size, job.model.nq)
        done = np.zeros(job.size, dtype=bool)
        manifest = self.parts / "job.json"
        if manifest.exists():
            meta = json.loads(manifest.read_text())
            if meta.get("key") != job.key or meta.get("size") != job.size:
                raise InvalidInput(
                    f"{self.parts} holds the chunks of a different job (other targets, "
                    "options, seed, frame or model); remove it or choose another output"
                )
            for part in sorted(self.parts.glob("*-*.npz")):
                self._read_part(part, arrays, done)
        return arrays, done, None

    def _start(self) -> None:
        """The parts directory and its manifest, made with the first chunk (a job that
        fails before any chunk is done leaves nothing behind)."""
        manifest = self.parts / "job.json"
        if not manifest.exists():
            self.parts.mkdir(parents=True, exist_ok=True)
            tmp = manifest.with_suffix(".tmp")
            tmp.write_text(json.dumps({"key": self.job.key, "size": self.job.size}))
            os.replace(tmp, manifest)

    def _read_part(self, part: Path, arrays: dict[str, np.ndarray], done: np.ndarray) -> None:
        try:
            start, stop = (int(x) for x in part.stem.split("-"))
            with np.load(part) as f:
                values = {name: f[name] for name in FIELDS}
        except (OSError, ValueError, KeyError):
            part.unlink()  # unreadable (not one of ours, or damaged): solved again
            return
        if not 0 <= start < stop <= len(done) or done[start:stop].any():
            part.unlink()  # overlapping or out of range: never written by this job's runs
            return
        for name in FIELDS:
            arrays[name][start:stop] = values[name]
        done[start:stop] = True

    def write(self, start: int, stop: int, values: dict[str, np.ndarray]) -> None:
        """Write the chunk ``[start, stop)`` (complete or not at all)."""
        if not self.started:
            self._start()
            self.started = True
        final = self.parts / f"{start:010d}-{stop:010d}.npz"
        tmp = self.parts / f"{start:010d}-{stop:010d}.tmp"
        with open(tmp, "wb") as f:
            np.savez(f, **{name: values[name] for name in FIELDS})  # type: ignore[arg-type]
        os.replace(tmp, final)

    def finish(self, result: BatchResult) -> None:
        """Write the result file, then remove the parts."""
        result.save(self.path)
        shutil.rmtree(self.parts, ignore_errors=True)
