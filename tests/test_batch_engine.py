"""The pieces of taskik.batch under the entry point: the chunk plan, the local engine's
fault handling and the on-disk store."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_batch import assert_same, loop, reachable_targets

from taskik.batch import WorkerLost, solve_poses
from taskik.batch import solve as batch_solve
from taskik.batch.local import run_local
from taskik.batch.problems import MIN_TAIL, chunks, solve_chunk
from taskik.exceptions import UnknownName


@given(
    todo=st.lists(st.booleans(), min_size=1, max_size=400),
    size=st.integers(1, 64),
    tail=st.integers(0, 4),
)
def test_chunks_cover_each_remaining_problem_once_in_order(todo, size, tail):
    mask = np.array(todo)
    plan = chunks(mask, size, tail)
    covered = [i for start, stop in plan for i in range(start, stop)]
    assert covered == np.flatnonzero(mask).tolist()  # each once, in order
    assert all(0 < stop - start <= size for start, stop in plan)
    assert all(mask[start:stop].all() for start, stop in plan)  # no chunk spans a gap


def test_the_guided_tail_shrinks_to_min_tail():
    """Chunks of at most ⌈remaining / (2 · workers)⌉ (≥ MIN_TAIL): full chunks first, then
    ever smaller ones, the last ones MIN_TAIL or less."""
    plan = chunks(np.ones(10_000, dtype=bool), 256, tail=2)
    sizes = [stop - start for start, stop in plan]
    assert sizes[0] == 256 and sizes[-2] == MIN_TAIL and sizes[-1] <= MIN_TAIL
    assert all(a >= b for a, b in zip(sizes, sizes[1:], strict=False))
    remaining = 10_000
    for k in sizes:
        assert k <= max(MIN_TAIL, -(-remaining // 4))
        remaining -= k
    assert chunks(np.ones(100, dtype=bool), 7) == [(s, min(s + 7, 100)) for s in range(0, 100, 7)]


def _dies_on(start_index: int, marker: str | None):
    """A chunk solver (installed before the workers fork) whose process exits when it is
    given the chunk starting at ``start_index`` (not the caller's first problem): every
    time, or only while ``marker`` does not exist (it creates it)."""

    def solve(job, start, stop, targets=None):
        if start == start_index and (marker is None or not os.path.exists(marker)):
            if marker is not None:
                open(marker, "w").close()
            os._exit(3)
        return solve_chunk(job, start, stop, targets)

    return solve


def test_a_chunk_whose_worker_dies_once_is_solved_again(monkeypatch, tmp_path, ur5):
    targets = reachable_targets(ur5, "tool0", 60, seed=12)
    monkeypatch.setattr(batch_solve, "solve_chunk", _dies_on(21, str(tmp_path / "died")))
    got = solve_poses(ur5, "tool0", targets, workers=2, chunk_size=10)
    assert (tmp_path / "died").exists()
    assert_same(got, loop(ur5, "tool0", targets))
    assert len(got.workers) == 1 + 6  # the first problem, then 6 chunks, each once


def test_a_chunk_that_always_kills_its_worker_stops_the_job(monkeypatch, ur5):
    targets = reachable_targets(ur5, "tool0", 40, seed=13)
    monkeypatch.setattr(batch_solve, "solve_chunk", _dies_on(11, None))
    with pytest.raises(WorkerLost, match=r"problems 11\.\.20 lost their worker 4 times"):
        solve_poses(ur5, "tool0", targets, workers=2, chunk_size=10)


def test_an_unreadable_part_is_solved_again(tmp_path, ur5):
    """A damaged chunk file (not a complete npz) is dropped on resume and its problems
    solved; the other parts are read back."""
    targets = reachable_targets(ur5, "tool0", 30, seed=14)
    output = tmp_path / "r.npz"
    parts = tmp_path / "r.npz.parts"
    full = solve_poses(ur5, "tool0", targets, workers=1, chunk_size=10)
    # a run that stopped after its chunks: replay what it would have left on disk
    from taskik.batch.problems import make_job
    from taskik.batch.store import Store

    store = Store(output, make_job(ur5, "tool0", targets, 0, {}))
    store.open()
    values = {name: getattr(full, name) for name in ("q", "success", "iterations")}
    values |= {name: getattr(full, name) for name in ("searches", "error", "time")}
    store.write(0, 10, {k: v[0:10] for k, v in values.items()})
    store.write(10, 20, {k: v[10:20] for k, v in values.items()})
    store.close()  # (the stopped run's lock released)
    (parts / f"{10:010d}-{20:010d}.npz").write_bytes(b"truncated")
    with pytest.warns(RuntimeWarning, match=r"not an \.npz archive.*10\.\.19 are solved again"):
        resumed = solve_poses(ur5, "tool0", targets, workers=1, chunk_size=10, output=output)
    assert_same(resumed, full)
    # problems 10..29 solved: 10 in the caller first, then 11..19 and 20..29
    assert len(resumed.workers) == 3
    assert not parts.exists()


def _fails_on_chunk_3(start: int, stop: int) -> dict[str, np.ndarray]:
    if start == 3:
        raise UnknownName("frame", "tool1", ["tool0", "base"])
    return {"value": np.arange(start, stop), "worker": np.array("w")}


def test_an_error_whose_constructor_is_not_its_args_reaches_the_caller_as_itself():
    """UnknownName(kind, name, candidates) does not unpickle from its message: the engine
    sends its type, args and attributes and rebuilds it in the caller."""
    seen: list[tuple[int, int]] = []
    with pytest.raises(UnknownName, match="unknown frame 'tool1'; did you mean 'tool0'") as e:
        run_local(
            _fails_on_chunk_3,
            [(k, k + 1) for k in range(6)],
            2,
            lambda a, b, out: seen.append((a, b)),
        )
    assert isinstance(e.value, KeyError)
    assert (3, 4) not in seen
