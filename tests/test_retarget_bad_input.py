"""Retargeting given wrongly typed arguments, or paths that cannot be read or written: a
clear InvalidInput naming the argument or the file, never a bare TypeError, OSError,
UnicodeDecodeError or zlib error; a damaged or foreign result file is refused when read
back, never trusted (causes found by fuzzing the retargeting entry points)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import taskik
from taskik import InvalidInput
from taskik.retarget import (
    KeypointTask,
    RetargetMapping,
    RetargetResult,
    clip_from_arrays,
    estimate_scale,
    load_clip,
    load_mapping,
    load_result,
    retarget,
    retarget_many,
    sample_mapping_path,
    save_clip,
)

NAMES = ("pelvis", "left_foot", "right_hand")
LONG = "x" * 300  # longer than a file name may be (ENAMETOOLONG)


def small_clip(n: int = 3):
    rng = np.random.default_rng(5)
    return clip_from_arrays(NAMES, rng.normal(size=(n, 3, 3)), 25.0)


def small_result(n: int = 3) -> RetargetResult:
    return RetargetResult(
        np.zeros((n, 7)),
        ("pelvis",),
        ("root",),
        np.zeros((n, 1)),
        np.full((n, 1), np.nan),
        25.0,
        1.0,
        2,
        0.1,
        "ur5",
    )


MAPPING = {"tasks": [{"keypoint": "right_hand", "frame": "tool0"}], "scale": 1.0}


# ------------------------------------------------------------------ paths of the wrong type
NOT_PATHS = [None, 3, 1.5, b"/tmp/clip.npz", ["a.npz"], {"a": 1}]


@pytest.mark.parametrize("value", NOT_PATHS, ids=lambda v: type(v).__name__)
def test_paths_of_the_wrong_type_are_named(tmp_path, value):
    cases = [
        (lambda: load_clip(value), "clip file must be a file path"),
        (lambda: load_result(value), "retarget result file must be a file path"),
        (lambda: save_clip(small_clip(), value), "clip file must be a file path"),
        (lambda: small_result().save(value), "retarget output must be a file path"),
        (lambda: retarget("ur5", value, MAPPING), "clip file must be a file path"),
        (lambda: retarget_many("ur5", [value], MAPPING, tmp_path), "each clip must be a file"),
        (lambda: retarget_many("ur5", [], MAPPING, value), "output_dir must be a file path"),
    ]
    for call, message in cases:
        with pytest.raises(InvalidInput, match=message):
            call()


def test_a_clip_list_that_is_not_a_list_is_named(tmp_path):
    for clips in (3, None, b"a.npz"):
        with pytest.raises(InvalidInput, match="clips must be a list of clip files"):
            retarget_many("ur5", clips, MAPPING, tmp_path)


# ------------------------------------------------------------------ paths that cannot be read
def test_files_that_cannot_be_read_are_named(tmp_path):
    for suffix, load in ((".npz", load_clip), (".csv", load_clip), (".json", load_mapping)):
        with pytest.raises(InvalidInput, match="cannot read .* name too long"):
            load(tmp_path / (LONG + suffix))
    with pytest.raises(InvalidInput, match="cannot read retarget result file .* too long"):
        load_result(tmp_path / (LONG + ".npz"))
    for name in ("mapping.json", "clip.csv"):
        binary = tmp_path / name
        binary.write_bytes(b"\xff\xfe\x00 not text")
        load = load_mapping if name.endswith(".json") else load_clip
        with pytest.raises(InvalidInput, match=f"{name} is not UTF-8 text"):
            load(binary)
    with pytest.raises(InvalidInput, match="contains a NUL character"):
        load_mapping(str(tmp_path / "a\0b.json"))


# ------------------------------------------------------------------ paths that cannot be written
def test_paths_that_cannot_be_written_are_named_and_leave_nothing(tmp_path):
    folder = tmp_path / "taken.npz"
    folder.mkdir()
    for write in (lambda p: save_clip(small_clip(), p), lambda p: small_result().save(p)):
        with pytest.raises(InvalidInput, match="taken.npz: it is a folder"):
            write(folder)
        with pytest.raises(InvalidInput, match="cannot write .* name too long"):
            write(tmp_path / (LONG + ".npz"))
        with pytest.raises(InvalidInput, match="contains a NUL character"):
            write(str(tmp_path / "a\0b.npz"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.npz"]
    assert not any(folder.iterdir())


def test_an_output_folder_that_cannot_be_made_is_named(tmp_path):
    clip = tmp_path / "c.npz"
    save_clip(small_clip(), clip)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(InvalidInput, match="cannot make output_dir .*afile/out: Not a directory"):
        retarget_many("ur5", [clip], MAPPING, afile / "out", workers=1)
    with pytest.raises(InvalidInput, match="cannot make output_dir .*: File name too long"):
        retarget_many("ur5", [clip], MAPPING, tmp_path / LONG, workers=1)


# ------------------------------------------------------------------ arguments of the wrong type
def test_clip_arrays_of_the_wrong_type_are_named():
    pos = np.zeros((2, 3, 3))
    with pytest.raises(InvalidInput, match="clip names must be a list of keypoint names"):
        clip_from_arrays(Path("names"), pos, 25.0)
    with pytest.raises(InvalidInput, match="keypoint names \\(str\\), got int"):
        clip_from_arrays([1, 2, 3], pos, 25.0)
    for what in ("orientations", "contacts"):
        with pytest.raises(InvalidInput, match=f"clip {what} must be a dict"):
            clip_from_arrays(NAMES, pos, 25.0, **{what: np.zeros((2, 4))})
    with pytest.raises(InvalidInput, match="clip positions must be an array of numbers"):
        clip_from_arrays(NAMES, [[[0.0, 0.0, 0.0]], [[0.0]]], 25.0)
    with pytest.raises(InvalidInput, match="orientations of 'pelvis' must be an array"):
        clip_from_arrays(NAMES, pos, 25.0, {"pelvis": [[0.0, 0, 0, 1], [1.0]]})
    clip = clip_from_arrays(np.array(NAMES), pos, 25.0)  # names as an array: accepted
    assert clip.names == NAMES and all(type(n) is str for n in clip.names)


def test_estimate_scale_refuses_arrays_that_are_not_points():
    with pytest.raises(InvalidInput, match="keypoints must have shape \\(K, 3\\)"):
        estimate_scale(np.ones(3), np.ones((1, 3)))
    with pytest.raises(InvalidInput, match="keypoints must be real numbers"):
        estimate_scale(np.array(["a"]), np.ones((1, 3)))
    with pytest.raises(InvalidInput, match="robot_points must have the shape of keypoints"):
        estimate_scale(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(InvalidInput, match="keypoints must be real numbers"):
        estimate_scale(Path("k"), np.ones((1, 3)))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"solver": np.array(["daqp"])}, "solver must be a QP solver name or None"),
        ({"progress": "yes"}, "progress must be a function"),
        ({"limits": Path("limits")}, "limits must be a list of Limit objects"),
        ({"steps": 10**400}, "steps must be an integer >= 1 \\(at most"),
        ({"first_steps": 10**9}, "first_steps must be an integer >= 1 \\(at most"),
    ],
)
def test_retarget_options_of_the_wrong_type_are_named(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        retarget("ur5", small_clip(), MAPPING, **kwargs)


def test_retarget_many_options_of_the_wrong_type_are_named(tmp_path):
    clip = tmp_path / "c.npz"
    save_clip(small_clip(), clip)
    with pytest.raises(InvalidInput, match="engine must be one of"):
        retarget_many("ur5", [clip], MAPPING, tmp_path / "o", engine=np.array(["local"]))
    with pytest.raises(InvalidInput, match="progress must be True or False"):
        retarget_many("ur5", [clip], MAPPING, tmp_path / "o", progress=np.ones(2))


# ------------------------------------------------------------------ result files checked
def same_result(a: RetargetResult, b: RetargetResult) -> bool:
    x, y = a.arrays(), b.arrays()
    return x.keys() == y.keys() and all(
        np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f") for k in x
    )


def test_a_damaged_result_file_is_refused_or_read_intact_never_garbage(tmp_path):
    """Bytes damaged anywhere in the file: reading it back raises InvalidInput naming it
    (a bad zip structure, a CRC or zlib error), or gives the arrays written when the damage
    hit a byte nothing reads (a header's date); never other arrays, never a bare error."""
    result = small_result()
    path = result.save(tmp_path / "r.npz")
    raw = path.read_bytes()
    refused = 0
    for at in range(0, len(raw), max(1, len(raw) // 200)):
        data = bytearray(raw)
        data[at] ^= 0x5A
        path.write_bytes(bytes(data))
        try:
            back = load_result(path)
        except InvalidInput as exc:
            assert "r.npz" in str(exc)
            refused += 1
        else:
            assert same_result(back, result), at
    assert refused > 100  # most bytes matter (measured: 180 of 200)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"q": np.full((3, 7), np.nan)}, "q must be finite"),
        ({"q": np.array(["a", "b"])}, "q must be finite"),
        ({"frames": np.array(["a", "b"])}, "1 keypoints but 2 frames"),
        ({"keypoints": np.arange(1)}, "keypoints must be a 1-D array of str"),
        ({"fps": np.array("x")}, "fps must be a finite number"),
        ({"steps": np.array(0)}, "must be positive"),
        ({"steps": np.array(1.5)}, "steps must be a finite number"),
        ({"robot": np.array(3)}, "robot must be a name"),
        ({"position_errors": np.zeros((3, 2))}, "position_errors has"),
    ],
)
def test_a_result_file_of_other_content_is_refused(tmp_path, change, message):
    path = tmp_path / "r.npz"
    np.savez(path, **{**small_result().arrays(), **change})
    with pytest.raises(InvalidInput, match=message):
        load_result(path)


def test_a_damaged_output_stops_a_resumed_job_instead_of_being_trusted(tmp_path):
    clip = tmp_path / "c.npz"
    save_clip(small_clip(), clip)
    out = tmp_path / "out"
    out.mkdir()
    raw = bytearray(small_result().save(out / "c.npz").read_bytes())
    raw[len(raw) // 3] ^= 0x5A  # in the compressed q (checked by the zip's CRC)
    (out / "c.npz").write_bytes(bytes(raw))
    with pytest.raises(InvalidInput):
        load_result(out / "c.npz")
    with pytest.raises(InvalidInput, match="c.npz exists and is not a retarget result"):
        retarget_many("ur5", [clip], MAPPING, out, workers=1)


def test_the_shipped_files_still_read(tmp_path):
    mapping = load_mapping(sample_mapping_path("humanoid"))
    assert mapping.tasks and os.fspath(sample_mapping_path("humanoid")).endswith(".json")
    clip = small_clip()
    assert load_clip(save_clip(clip, tmp_path / "c.csv")).n_frames == clip.n_frames
    result = small_result()
    back = load_result(result.save(tmp_path / "r.npz"))
    np.testing.assert_array_equal(back.q, result.q)
    assert back.robot == "ur5" and back.steps == 2 and isinstance(taskik.InvalidInput, type)


# ------------------------------------------------------------------ mapping objects built directly
@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: RetargetMapping(tasks=(1, 2)), "tasks must be KeypointTask objects, got int"),
        (lambda: RetargetMapping(tasks=()), "tasks must be a non-empty list"),
        (lambda: KeypointTask(3, "tool0"), "keypoint must be a non-empty string"),
        (lambda: KeypointTask("a", "tool0", position_cost="x"), "position_cost must be a real"),
        (lambda: KeypointTask("a", "tool0", offset=(1, 2)), r"offset must have shape \(3,\)"),
        (lambda: KeypointTask("a", "tool0", rotation_offset=(0, 0, 0, 2)), "unit quaternion"),
        (lambda: RetargetMapping((KeypointTask("a", "b"),), scale=-1), "scale must be finite"),
        (lambda: RetargetMapping((KeypointTask("a", "b"),), rest_frame=1.5), "rest_frame must"),
    ],
)
def test_mapping_objects_built_directly_are_checked(build, message):
    # they were accepted and failed later in retarget with bare AttributeErrors
    with pytest.raises(InvalidInput, match=message):
        build()


def test_a_mapping_built_directly_equals_the_one_read_from_its_dict():
    direct = RetargetMapping([KeypointTask("right_hand", "tool0", 1)], scale=1)
    assert direct == load_mapping(MAPPING)
    assert isinstance(direct.tasks, tuple) and direct.tasks[0].position_cost == 1.0
