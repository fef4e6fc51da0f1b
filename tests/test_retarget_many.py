"""taskik.retarget.retarget_many: many clip files retargeted at once on the batch package's
engines. Each output is what a loop of retarget_file writes (bit for bit, but the solve
time); a worker that dies has its clip redone and every clip is written once; a rerun skips
finished clips; bad input is named before any worker starts (or, for a clip's content, by
the worker that reads it)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

from taskik.batch import WorkerLost
from taskik.exceptions import InvalidInput, UnknownName
from taskik.retarget import (
    Clip,
    RetargetBatch,
    load_clip,
    load_result,
    main,
    retarget_file,
    retarget_many,
    sample_clip_path,
    sample_mapping_path,
    save_clip,
)
from taskik.retarget import many as many_module

ROBOT = "humanoid"  # bundled: loads in milliseconds in every worker
MAPPING = sample_mapping_path(ROBOT)
OPTIONS = {"steps": 1, "first_steps": 20}


def variant(clip: Clip, k: int) -> Clip:
    """The sample clip from frame ``3k`` on, every other clip played backwards: clips of
    different lengths and motions, so that a mix-up of clips and outputs shows."""
    order = np.arange(3 * k, clip.n_frames)[:: -1 if k % 2 else 1]
    return dataclasses.replace(
        clip,
        positions=clip.positions[order],
        orientations={n: v[order] for n, v in clip.orientations.items()},
        contacts={n: v[order] for n, v in clip.contacts.items()},
    )


def make_clips(folder: Path) -> list[Path]:
    """Five variants of the sample clip, ``folder/take_<k>.npz``."""
    clip = load_clip(sample_clip_path())
    folder.mkdir(exist_ok=True)
    return [save_clip(variant(clip, k), folder / f"take_{k}.npz") for k in range(5)]


def loop_outputs(folder: Path) -> dict[str, Path]:
    """What a loop of retarget_file writes for the clips of make_clips, by clip name."""
    out = {}
    for path in make_clips(folder):
        out[path.name] = folder / f"{path.stem}_result.npz"
        retarget_file(path, out[path.name], ROBOT, MAPPING, **OPTIONS)
    return out


@pytest.fixture
def clips(tmp_path: Path) -> list[Path]:
    return make_clips(tmp_path / "clips")


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return loop_outputs(tmp_path_factory.mktemp("loop"))


def assert_same_as_loop(batch: RetargetBatch, clips: list[Path], loop: dict[str, Path]) -> None:
    assert [c.input for c in batch.clips] == clips  # in the order given
    for summary, clip in zip(batch.clips, clips, strict=True):
        assert summary.output == clip.parent.parent / "out" / clip.name
        got, want = load_result(summary.output), load_result(loop[clip.name])
        assert got.q.shape[0] == load_clip(clip).n_frames == summary.frames
        for name in ("q", "position_errors", "orientation_errors"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        assert (got.keypoints, got.frames, got.robot) == (want.keypoints, want.frames, ROBOT)
        assert (got.fps, got.scale, got.steps) == (want.fps, want.scale, want.steps)
        assert summary.mean_position_error == float(got.position_errors.mean())
        assert summary.max_position_error == float(got.position_errors.max())
        assert summary.frames_per_second == pytest.approx(got.n_frames / got.solve_time)


@pytest.mark.parametrize("workers", [1, 2])
def test_outputs_equal_a_loop_of_retarget_file_bit_for_bit(clips, loop, tmp_path, workers):
    batch = retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=workers, **OPTIONS)
    assert_same_as_loop(batch, clips, loop)
    assert not any(c.resumed for c in batch.clips)
    assert len(batch.workers) == len(clips)  # each clip accepted once
    assert batch.frames == sum(load_clip(c).n_frames for c in clips)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(c.name for c in clips)
    assert "5 clips onto humanoid (0 already done)" in str(batch)


def _dies_on(index: int, marker: Path | None):
    """A clip solver (installed before the workers fork) whose process exits when given
    clip ``index``: every time, or only while ``marker`` does not exist (it creates it)."""
    solve = many_module.retarget_clip

    def dying(robot, path, mapping, options):
        if path.name == f"take_{index}.npz" and (marker is None or not marker.exists()):
            if marker is not None:
                marker.touch()
            os._exit(3)
        return solve(robot, path, mapping, options)

    return dying


def test_a_clip_whose_worker_dies_is_redone_and_every_clip_written_once(
    clips, loop, tmp_path, monkeypatch
):
    marker = tmp_path / "died"
    monkeypatch.setattr(many_module, "retarget_clip", _dies_on(2, marker))
    batch = retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=2, **OPTIONS)
    assert marker.exists()  # a worker did die
    assert_same_as_loop(batch, clips, loop)
    assert len(batch.workers) == len(clips)
    assert not list((tmp_path / "out").glob(".*"))  # no temporary file left


def test_a_clip_that_always_kills_its_worker_stops_the_job(clips, tmp_path, monkeypatch):
    monkeypatch.setattr(many_module, "retarget_clip", _dies_on(1, None))
    with pytest.raises(WorkerLost, match=r"clips 1\.\.1 lost their worker 4 times"):
        retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=2, **OPTIONS)


def test_a_rerun_skips_finished_clips_and_redoes_the_rest(clips, loop, tmp_path):
    out = tmp_path / "out"
    first = retarget_many(ROBOT, clips[:2], MAPPING, out, workers=1, **OPTIONS)
    stamps = {p: p.stat().st_mtime_ns for p in out.iterdir()}
    stale = out / ".take_3.npz.abc.tmp"  # a write cut short by a kill of the caller
    stale.write_bytes(b"half")
    batch = retarget_many(ROBOT, clips, MAPPING, out, workers=2, **OPTIONS)
    assert [c.resumed for c in batch.clips] == [True, True, False, False, False]
    assert batch.clips[:2] == [dataclasses.replace(c, resumed=True, worker="") for c in first.clips]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps  # not rewritten
    assert len(batch.workers) == 3 and not stale.exists()
    assert_same_as_loop(batch, clips, loop)
    again = retarget_many(ROBOT, clips, MAPPING, out, **OPTIONS)
    assert all(c.resumed for c in again.clips) and again.frames == 0 and not again.workers


def test_an_output_of_another_job_is_refused_not_overwritten(clips, tmp_path):
    out = tmp_path / "out"
    retarget_many(ROBOT, clips[:1], MAPPING, out, workers=1, steps=2)
    with pytest.raises(InvalidInput, match=r"take_0\.npz holds a retargeting onto humanoid "):
        retarget_many(ROBOT, clips, MAPPING, out, workers=1, steps=1)
    (out / "take_1.npz").write_text("not a result")
    with pytest.raises(InvalidInput, match=r"take_1\.npz exists and is not a retarget result"):
        retarget_many(ROBOT, clips[1:], MAPPING, out, workers=1)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda c: [*c, c[0].with_name("gone.npz")], InvalidInput, r"not found: .*gone\.npz"),
        (lambda c: [c[0], c[0]], InvalidInput, r"would both be written to take_0\.npz"),
        (lambda c: c[0], InvalidInput, "a list of clip files"),
    ],
)
def test_bad_clip_lists_are_named(clips, tmp_path, change, error, message):
    with pytest.raises(error, match=message):
        retarget_many(ROBOT, change(clips), MAPPING, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything is made


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"robot": "humanoyd"}, UnknownName, "humanoid"),
        ({"engine": "dask"}, InvalidInput, "engine must be one of"),
        ({"workers": 0}, InvalidInput, "workers must be an integer >= 1"),
        ({"steps": 0}, InvalidInput, "steps must be an integer >= 1"),
        ({"rng": 3}, InvalidInput, r"unknown option\(s\) rng"),
    ],
)
def test_bad_arguments_are_named(clips, tmp_path, kwargs, error, message):
    args = {"robot": ROBOT, **kwargs}
    with pytest.raises(error, match=message):
        retarget_many(args.pop("robot"), clips, MAPPING, tmp_path / "out", **args)


def test_a_bad_clip_is_named_by_the_worker_that_reads_it(clips, tmp_path):
    clips[3].write_bytes(b"not an npz file")
    with pytest.raises(InvalidInput, match=r"take_3\.npz"):
        retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=2, **OPTIONS)


def test_a_keypoint_missing_from_a_clip_comes_back_as_unknown_name(clips, tmp_path):
    """UnknownName, raised in a worker, reaches the caller as itself (its constructor does
    not take its message: the engine rebuilds it without calling it)."""
    clip = load_clip(clips[4])
    assert "left_shoulder" in clip.names and "left_shoulder" not in {
        *clip.orientations,
        *clip.contacts,
    }
    renamed = tuple("left_shouldr" if n == "left_shoulder" else n for n in clip.names)
    save_clip(dataclasses.replace(clip, names=renamed), clips[4])
    with pytest.raises(
        UnknownName,
        match=r"take_4\.npz: unknown keypoint 'left_shoulder'; did you mean 'left_shouldr'",
    ):
        retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=2, **OPTIONS)


def test_command_retargets_several_inputs_into_a_folder(clips, loop, tmp_path, capsys):
    argv = ["--robot", ROBOT, "--mapping", str(MAPPING), "--steps", "1", "--first-steps", "20"]
    assert main([*map(str, clips), "--output-dir", str(tmp_path / "out"), *argv]) == 0
    assert "5 clips onto humanoid" in capsys.readouterr().out
    for clip in clips:
        got, want = load_result(tmp_path / "out" / clip.name), load_result(loop[clip.name])
        np.testing.assert_array_equal(got.q, want.q)
    assert main([str(clips[0]), str(tmp_path / "one.npz"), *argv]) == 0  # INPUT OUTPUT
    want = load_result(loop[clips[0].name])
    np.testing.assert_array_equal(load_result(tmp_path / "one.npz").q, want.q)
    with pytest.raises(SystemExit):
        main([*map(str, clips), *argv])  # several inputs, no --output-dir
    assert "--output-dir" in capsys.readouterr().err
    assert main([str(tmp_path / "gone.csv"), "--output-dir", str(tmp_path), *argv]) == 2
    assert "gone.csv" in capsys.readouterr().err


def test_progress_bar_counts_clips_from_the_ones_already_done(clips, tmp_path, capsys):
    retarget_many(ROBOT, clips[:2], MAPPING, tmp_path / "out", workers=1, **OPTIONS)
    capsys.readouterr()
    retarget_many(ROBOT, clips, MAPPING, tmp_path / "out", workers=2, progress=True, **OPTIONS)
    err = capsys.readouterr().err
    assert "2/5" in err and "5/5" in err and "clips" in err
