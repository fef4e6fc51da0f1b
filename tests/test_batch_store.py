"""The output of taskik.batch.solve_poses as a store that cannot lie: parts that fail their
check are solved again (never trusted, never spread over other problems), output paths
that cannot work are named by a TaskikError, files read back are checked, and an
exception raised in a worker reaches the caller with its type, message and traceback."""

from __future__ import annotations

import json
import re
import shutil
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_batch import assert_same, loop, reachable_targets

from taskik.batch import BatchResult, OutputError, WorkerError, solve_poses
from taskik.batch import solve as batch_solve
from taskik.batch.local import WorkerTraceback, run_local
from taskik.batch.problems import solve_chunk
from taskik.batch.store import Store
from taskik.exceptions import InvalidInput, TaskikError

N, CHUNK = 30, 10  # parts 0-1 (the caller's first problem), 1-11, 11-21, 21-30


def part(parts: Path, start: int, stop: int) -> Path:
    return parts / f"{start:010d}-{stop:010d}.npz"


@pytest.fixture(scope="module")
def job(ur5):
    targets = reachable_targets(ur5, "tool0", N, seed=21)
    return ur5, targets, loop(ur5, "tool0", targets)


def stopped_run(robot, targets, output: Path) -> Path:
    """The parts a run leaves when it stops before writing its result (its finish
    skipped); returns the parts directory."""
    finish = Store.finish
    Store.finish = lambda self, result: None  # type: ignore[method-assign]
    try:
        solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    finally:
        Store.finish = finish  # type: ignore[method-assign]
    parts = output.with_name(output.name + ".parts")
    assert sorted(p.name for p in parts.glob("*.npz")) == [
        part(parts, *r).name for r in [(0, 1), (1, 11), (11, 21), (21, 30)]
    ]
    return parts


def rewrite(path: Path, change) -> None:
    """Rewrite the npz ``path`` (a valid zip again) with ``change(arrays)``."""
    with np.load(path) as f:
        arrays = {name: f[name] for name in f.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def truncate(parts: Path) -> None:
    p = part(parts, 11, 21)
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def corrupt(parts: Path) -> None:
    """Eight bytes flipped inside the solutions (the values of ``q.npy``, the archive's
    first member, stored uncompressed)."""
    p = part(parts, 11, 21)
    data = bytearray(p.read_bytes())
    npy = data.index(b"\x93NUMPY")  # magic, version (2 bytes), header length (2), header
    values = npy + 10 + int.from_bytes(data[npy + 8 : npy + 10], "little")
    for k in range(values + 8, values + 16):  # q[0, 1]
        data[k] ^= 0x5A
    p.write_bytes(bytes(data))


def too_few_rows(parts: Path) -> None:
    """Every array of the part cut to its first row (a valid npz)."""

    def cut(arrays):
        for name, value in arrays.items():
            if value.ndim:  # (not the key nor the checksum)
                arrays[name] = value[:1]

    rewrite(part(parts, 11, 21), cut)


def wrong_indices(parts: Path) -> None:
    """The part of problems 1..10 copied over the part of problems 11..20."""
    shutil.copyfile(part(parts, 1, 11), part(parts, 11, 21))


def other_values(parts: Path) -> None:
    """A whole, readable part whose solutions were changed after it was written."""

    def shift(arrays):
        arrays["q"] = arrays["q"] + 0.25

    rewrite(part(parts, 11, 21), shift)


def emptied(parts: Path) -> None:
    part(parts, 11, 21).write_bytes(b"")


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (truncate, r"unreadable|not an \.npz"),
        (corrupt, "unreadable|checksum"),
        (too_few_rows, r"shape \(1, 6\), expected \(10, 6\)"),
        (wrong_indices, r"not problems 11\.\.20|checksum"),
        (other_values, "checksum does not match"),
        (emptied, "empty"),
    ],
)
def test_a_damaged_part_is_solved_again_never_trusted(tmp_path, job, damage, why):
    """The resume drops the damaged part (a warning names it and why), solves its ten
    problems again and keeps the three good parts: the loop's answers, every row."""
    robot, targets, expected = job
    output = tmp_path / "out.npz"
    parts = stopped_run(robot, targets, output)
    damage(parts)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    assert_same(resumed, expected)  # (not the damaged part's rows)
    assert len(resumed.workers) == 2  # only problems 11..20 solved again: 11, then 12..20
    said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(said) == 1 and re.search(why, said[0]), said
    assert "0000000011-0000000021.npz" in said[0] and "11..20 are solved again" in said[0]
    assert_same(BatchResult.load(output), expected)
    assert not parts.exists()


def test_parts_left_by_an_interrupted_write_are_ignored(tmp_path, job):
    """Temporary files (a write killed before its rename) and a manifest that is not JSON
    do not stop the resume; the parts are checked one by one."""
    robot, targets, expected = job
    output = tmp_path / "out.npz"
    parts = stopped_run(robot, targets, output)
    part(parts, 21, 30).rename(parts / "0000000021-0000000030.npz.123.tmp")
    (parts / "job.json").write_text('{"key": "trunc')
    with pytest.warns(RuntimeWarning, match="job.json is damaged"):
        resumed = solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    assert_same(resumed, expected)
    assert len(resumed.workers) == 2  # problems 21..29: 21, then 22..29


def test_parts_left_beside_a_finished_result_are_removed(tmp_path, job):
    """A run stopped between writing its result and removing its parts: the next call
    returns the result file (nothing solved) and removes the parts."""
    robot, targets, expected = job
    output = tmp_path / "out.npz"
    parts = stopped_run(robot, targets, output)
    solve_poses(robot, "tool0", targets, workers=1).save(output)  # (the same job's key)
    again = solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    assert again.workers == [] and not parts.exists()
    assert_same(again, expected)


def test_a_chunk_of_the_wrong_length_from_an_engine_is_refused(monkeypatch, job):
    """A chunk whose arrays do not have one row per problem is an engine fault: the job
    stops, it is never spread over the chunk's problems."""
    robot, targets, _ = job

    def short(job_, start, stop, targets_=None):
        out = solve_chunk(job_, start, stop, targets_)
        return {k: v[:1] if v.ndim else v for k, v in out.items()}

    monkeypatch.setattr(batch_solve, "solve_chunk", short)
    with pytest.raises(TaskikError, match=r"chunk 1\.\.10 refused: 'q' has shape \(1, 6\)"):
        solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK)


# -- output paths ----------------------------------------------------------------------
def _broken_paths(tmp_path: Path) -> list[tuple[object, type, str]]:
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "blocked.npz.parts").write_text("x")
    (tmp_path / "garbage.npz").write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / "text.npz").write_text("hello")
    return [
        (3, InvalidInput, "output must be a file path"),
        (b"out.npz", InvalidInput, "output must be a file path"),
        ("", InvalidInput, "output must name a file"),
        (tmp_path / "a_dir", InvalidInput, "is a directory"),
        (tmp_path / "a_file" / "out.npz", InvalidInput, "a_file is not a directory"),
        (tmp_path / "missing" / "out.npz", InvalidInput, "missing does not exist"),
        (tmp_path / "blocked.npz", InvalidInput, "blocked.npz.parts is not a directory"),
        (tmp_path / "garbage.npz", InvalidInput, "garbage.npz is not a readable batch"),
        (tmp_path / "text.npz", InvalidInput, r"not an \.npz archive.*left as it is"),
        (Path("/proc/taskik_out.npz"), OutputError, "cannot write output /proc/taskik_out"),
    ]


@pytest.mark.parametrize("case", range(10))
def test_an_output_path_that_cannot_work_is_named_before_any_solve(tmp_path, job, case):
    robot, targets, _ = job
    output, kind, message = _broken_paths(tmp_path)[case]
    if str(output).startswith("/proc") and not Path("/proc/self").exists():
        pytest.skip("no /proc on this system")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(kind, match=message):
        solve_poses(robot, "tool0", targets, workers=1, output=output)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_a_read_only_directory_refuses_a_new_job_but_returns_a_finished_one(
    monkeypatch, tmp_path, job
):
    """A directory that refuses new files: OutputError before any solve for a new job; a
    finished job's result is still read back (reading needs no write access)."""
    import tempfile

    robot, targets, expected = job
    output = tmp_path / "out.npz"
    solve_poses(robot, "tool0", targets, workers=1, output=output)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    again = solve_poses(robot, "tool0", targets, workers=1, output=output)
    assert again.workers == []
    assert_same(again, expected)
    with pytest.raises(OutputError, match=r"refuses a new file \(Permission denied\)"):
        solve_poses(robot, "tool0", targets, workers=1, output=tmp_path / "new.npz")


def test_one_run_at_a_time_writes_an_output(monkeypatch, tmp_path, job):
    """A second run on an output another run holds waits LOCK_WAIT seconds, then stops
    with an OutputError naming the holder; once released, the output is free and no lock
    file is left."""
    import os

    from taskik.batch import store as batch_store
    from taskik.batch.problems import make_job

    robot, targets, expected = job
    output = tmp_path / "out.npz"
    monkeypatch.setattr(batch_store, "LOCK_WAIT", 0.2)
    holder = Store(output, make_job(robot, "tool0", targets, 0, {}))
    holder.open()
    try:
        with pytest.raises(OutputError, match=rf"another run \(pid {os.getpid()}\) is writing"):
            solve_poses(robot, "tool0", targets, workers=1, output=output)
    finally:
        holder.close()
    assert_same(solve_poses(robot, "tool0", targets, workers=1, output=output), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]


def test_a_write_refused_by_the_system_is_an_output_error(monkeypatch, tmp_path, job):
    """A disk that fills up mid-run: OutputError naming the file and the reason; the
    parts written before it are kept for the resume."""
    robot, targets, expected = job
    calls = {"n": 0}
    savez = np.savez

    def full_disk(file, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return savez(file, *args, **kwargs)

    monkeypatch.setattr(np, "savez", full_disk)
    output = tmp_path / "out.npz"
    with pytest.raises(OutputError, match=r"cannot write .*\.npz: No space left on device"):
        solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    monkeypatch.setattr(np, "savez", savez)
    parts = output.with_name("out.npz.parts")
    assert not list(parts.glob("*.tmp"))  # the half-written file removed
    resumed = solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    assert_same(resumed, expected)
    assert len(resumed.workers) == 3  # 11, 12..21, 22..29: the two parts written are kept


def test_a_damaged_result_file_is_refused_not_returned(tmp_path, job):
    """The finished job's file read back is checked: changed solutions (a valid zip) and
    a truncated file are refused with InvalidInput, never returned as the answer."""
    robot, targets, expected = job
    output = tmp_path / "out.npz"
    solve_poses(robot, "tool0", targets, workers=1, chunk_size=CHUNK, output=output)
    whole = output.read_bytes()
    rewrite(output, lambda arrays: arrays.update(q=arrays["q"][::-1].copy()))
    with pytest.raises(InvalidInput, match="checksum does not match"):
        solve_poses(robot, "tool0", targets, workers=1, output=output)
    with pytest.raises(InvalidInput, match="checksum does not match"):
        BatchResult.load(output)
    output.write_bytes(whole[: len(whole) // 3])
    with pytest.raises(InvalidInput, match="not a readable batch result"):
        BatchResult.load(output)
    output.write_bytes(whole)
    assert_same(BatchResult.load(output), expected)


def test_a_result_file_with_rows_missing_is_refused(tmp_path, job):
    robot, targets, expected = job
    path = expected.save(tmp_path / "r.npz")
    rewrite(path, lambda arrays: arrays.update(error=arrays["error"][:-1]))
    with pytest.raises(InvalidInput, match=r"'error' has shape \(29,\), expected \(30,\)"):
        BatchResult.load(path)
    with pytest.raises(InvalidInput, match="does not exist"):
        BatchResult.load(tmp_path / "nothing.npz")


def test_a_result_file_written_without_a_checksum_still_loads(tmp_path, job):
    """Files saved before checksums were written: read back, their rows checked."""
    _, _, expected = job
    path = expected.save(tmp_path / "r.npz")
    rewrite(path, lambda arrays: arrays.pop("checksum"))
    assert_same(BatchResult.load(path), expected)


# -- errors raised in workers ----------------------------------------------------------
class _Unpicklable(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.lock = threading.Lock()  # (cannot be pickled)


def _raise_unpicklable_on_3(start: int, stop: int) -> dict[str, np.ndarray]:
    if start == 3:
        raise _Unpicklable("the solver state is broken")
    return {"value": np.arange(start, stop), "worker": np.array("w")}


def _raise_value_error_on_3(start: int, stop: int) -> dict[str, np.ndarray]:
    if start == 3:
        raise ValueError("bad value in chunk 3")
    return {"value": np.arange(start, stop), "worker": np.array("w")}


def _unpicklable_result_on_3(start: int, stop: int) -> dict[str, object]:
    out: dict[str, object] = {"value": np.arange(start, stop), "worker": np.array("w")}
    if start == 3:
        out["state"] = threading.Lock()
    return out


def test_an_unpicklable_worker_error_comes_back_with_type_message_and_traceback():
    seen: list[tuple[int, int]] = []
    with pytest.raises(WorkerError) as e:
        run_local(
            _raise_unpicklable_on_3,
            [(k, k + 1) for k in range(6)],
            2,
            lambda a, b, out: seen.append((a, b)),
        )
    err = e.value
    assert err.type_name == f"{__name__}._Unpicklable"
    assert err.message == "the solver state is broken"
    assert "in _raise_unpicklable_on_3" in err.traceback
    assert 'raise _Unpicklable("the solver state is broken")' in err.traceback
    assert "raised in a worker on problems 3..3" in str(err)
    assert err.traceback.strip() in str(err)
    assert (3, 4) not in seen


def test_a_picklable_worker_error_is_itself_with_the_worker_traceback_as_cause():
    with pytest.raises(ValueError, match="bad value in chunk 3") as e:
        run_local(_raise_value_error_on_3, [(k, k + 1) for k in range(6)], 2, lambda *a: None)
    cause = e.value.__cause__
    assert isinstance(cause, WorkerTraceback)
    assert "in _raise_value_error_on_3" in cause.text and "ValueError" in cause.text


def test_a_result_that_cannot_be_pickled_is_an_error_not_a_lost_worker():
    with pytest.raises(WorkerError, match=r"its result: cannot pickle") as e:
        run_local(_unpicklable_result_on_3, [(k, k + 1) for k in range(6)], 2, lambda *a: None)
    assert e.value.type_name.endswith("TypeError")


def test_a_worker_error_survives_pickling():
    import pickle

    err = WorkerError("m.Error", "text", "Traceback...\n", "in a worker on problems 1..2")
    back = pickle.loads(pickle.dumps(err))
    assert (back.type_name, back.message, back.traceback, str(back)) == (
        "m.Error",
        "text",
        "Traceback...\n",
        str(err),
    )


def test_solve_poses_names_the_problems_whose_worker_raised(monkeypatch, job):
    robot, targets, _ = job

    def solve(job_, start, stop, targets_=None):
        if start == 11:
            raise _Unpicklable(f"cannot solve {start}")
        return solve_chunk(job_, start, stop, targets_)

    monkeypatch.setattr(batch_solve, "solve_chunk", solve)
    with pytest.raises(WorkerError, match=r"_Unpicklable: cannot solve 11 .*problems 11\.\.20"):
        solve_poses(robot, "tool0", targets, workers=2, chunk_size=CHUNK)


def test_the_ray_task_sends_an_unpicklable_error_as_a_worker_error(monkeypatch, job):
    """Ray pickles a task's exception itself: the task (run here as a plain function)
    turns one that cannot be pickled into a WorkerError first, and lets others through."""
    from taskik.batch import ray_engine
    from taskik.batch.problems import make_job

    robot, targets, _ = job
    batch_job = make_job(robot, "tool0", targets, 0, {})
    monkeypatch.setitem(ray_engine._JOBS, batch_job.key, batch_job)
    meta = (batch_job.key, "tool0", {}, 0)

    def solve(job_, start, stop, targets_=None):
        raise (_Unpicklable if start == 11 else ValueError)(f"cannot solve {start}")

    monkeypatch.setattr(ray_engine, "solve_chunk", solve)
    with pytest.raises(WorkerError, match=r"_Unpicklable: cannot solve 11 .*problems 11\.\.20"):
        ray_engine._chunk_task(meta, [None], targets[11:21], 11, 21)
    with pytest.raises(ValueError, match="cannot solve 1"):
        ray_engine._chunk_task(meta, [None], targets[1:11], 1, 11)


def test_the_manifest_records_format_key_and_size(tmp_path, job):
    robot, targets, _ = job
    parts = stopped_run(robot, targets, tmp_path / "out.npz")
    meta = json.loads((parts / "job.json").read_text())
    assert meta["size"] == N and meta["format"] == 2 and len(meta["key"]) == 32


# -- the integrity scenario of benchmarks/batch_integrity.py, small ------------------------
def test_killed_callers_killed_workers_and_damaged_parts_leave_every_answer_once(tmp_path):
    """A few hundred problems through the benchmark's scenario: a worker and the caller
    killed in each of two runs (SIGKILL, then SIGTERM), four parts damaged by hand
    (truncated, corrupted, cut to one row, one value moved by one ulp in a valid archive),
    a last run to the end: exactly the damaged
    parts rejected, every problem answered once, the loop's answer bit for bit. The
    workers sleep per chunk (the answers do not change) so that each run can be hurt;
    every process started is stopped, and the scenario has a deadline."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "batch_integrity.py"
    spec = importlib.util.spec_from_file_location("batch_integrity", path)
    assert spec is not None and spec.loader is not None
    integrity = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = integrity
    try:
        spec.loader.exec_module(integrity)
        report = integrity.run(320, 8, 0.05, tmp_path / "work", timeout=240.0)
    finally:
        sys.modules.pop(spec.name, None)
    assert report["rows"] == report["problems"] == 320
    assert report["answered_once"] == 320, report["lines"]
    assert report["equal_to_loop"] == 320, report["lines"]
    assert report["rejected"] == report["damaged"] and len(report["damaged"]) == 4
    assert report["resumed_by_run_3"] + report["solved_by_run_3"] == 320
    assert report["written_total"] == 320 + report["rejected_problems"] == 320 + 4 * 8
    assert 0 < report["resumed_by_run_3"] <= 320 - 4 * 8  # the good parts were kept
