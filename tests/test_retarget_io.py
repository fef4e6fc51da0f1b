"""Clip, mapping and result files of taskik.retarget: round trips through .npz, CSV, JSON and
YAML, the `taskik retarget` command, and bad input (malformed files, NaN frames, missing
keypoints, unknown frames), each refused with an error that names the file, the frame and
the keypoint, and nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import taskik
from taskik.retarget import (
    Clip,
    RetargetMapping,
    clip_from_arrays,
    load_clip,
    load_mapping,
    load_result,
    main,
    retarget,
    retarget_file,
    sample_clip_path,
    sample_mapping_path,
    save_clip,
)
from taskik.retarget import clip as clip_module

NAMES = ("pelvis", "left_foot", "right_hand")


def small_clip(n: int = 4) -> Clip:
    rng = np.random.default_rng(3)
    positions = rng.normal(size=(n, 3, 3))
    quat = rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    contact = np.arange(n) % 2 == 0
    return clip_from_arrays(NAMES, positions, 25.0, {"pelvis": quat}, {"left_foot": contact})


def assert_same_clip(a: Clip, b: Clip) -> None:
    assert a.names == b.names and a.fps == b.fps
    np.testing.assert_array_equal(a.positions, b.positions)
    assert a.orientations.keys() == b.orientations.keys()
    for k in a.orientations:
        np.testing.assert_array_equal(a.orientations[k], b.orientations[k])
    assert a.contacts.keys() == b.contacts.keys()
    for k in a.contacts:
        np.testing.assert_array_equal(a.contacts[k], b.contacts[k])


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_a_clip_reads_back_exactly_as_written(tmp_path, suffix):
    clip = small_clip()
    path = save_clip(clip, tmp_path / f"clip{suffix}")
    back = load_clip(path)
    assert_same_clip(clip, back)
    assert back.source == str(path)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_csv_layout_is_the_documented_one(tmp_path):
    path = save_clip(small_clip(2), tmp_path / "clip.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == "# fps: 25.0"
    assert lines[1] == (
        "time,pelvis.x,pelvis.y,pelvis.z,pelvis.qx,pelvis.qy,pelvis.qz,pelvis.qw,"
        "left_foot.x,left_foot.y,left_foot.z,left_foot.contact,"
        "right_hand.x,right_hand.y,right_hand.z"
    )
    assert lines[3].startswith("0.04000000000000000")  # time of frame 1 at 25 fps


def test_a_csv_without_an_fps_line_takes_the_rate_from_the_time_column(tmp_path):
    path = tmp_path / "clip.csv"
    path.write_text("time,a.x,a.y,a.z\n0,0,0,1\n0.01,0,0,1.1\n0.02,0,0,1.2\n")
    clip = load_clip(path)
    assert clip.fps == pytest.approx(100.0)
    np.testing.assert_allclose(clip.position("a")[:, 2], [1.0, 1.1, 1.2])
    path.write_text("time,a.x,a.y,a.z\n0,0,0,1\n0.01,0,0,1.1\n0.03,0,0,1.2\n")
    with pytest.raises(taskik.InvalidInput, match="equal steps"):
        load_clip(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("x,a.x,a.y,a.z\n0,0,0,0\n", "must start with 'time'"),
        ("time,a.x,a.y\n0,0,0\n", r"columns \['a.z'\] are missing"),
        ("time,a.x,a.y,a.z,a.w\n0,0,0,0,0\n", "column 5 'a.w' is not"),
        ("# fps: 30\ntime,a.x,a.y,a.z\n0,0,0,0\n0,1,1\n", r"line 4 \(frame 1\) has 3 values"),
        ("# fps: 30\ntime,a.x,a.y,a.z\n0,0,zero,0\n", r"line 3 \(frame 0\).*zero"),
        ("# fps: 30\ntime,a.x,a.y,a.z\n0,0,nan,0\n", "frame 0, keypoint 'a' has a NaN"),
        ("# fps: 30\ntime,a.x,a.y,a.z,a.contact\n0,0,0,0,2\n", "frame 0, a.contact must be 0 or 1"),
        ("# rate: 30\ntime,a.x,a.y,a.z\n0,0,0,0\n", "line 1 must be '# fps: <rate>'"),
        ("# fps: -3\ntime,a.x,a.y,a.z\n0,0,0,0\n", "fps must be finite and > 0"),
        ("time,a.x,a.y,a.z\n", "at least one frame"),
    ],
)
def test_a_malformed_csv_clip_is_named_with_its_line_or_frame(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(taskik.InvalidInput, match=message) as info:
        load_clip(path)
    assert str(path) in str(info.value)


def test_a_malformed_npz_clip_is_named(tmp_path):
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file")
    with pytest.raises(taskik.InvalidInput, match="garbage.npz is not a readable .npz"):
        load_clip(garbage)
    partial = tmp_path / "partial.npz"
    np.savez(partial, names=np.array(["a"]), fps=np.array(30.0))
    with pytest.raises(taskik.InvalidInput, match="partial.npz has no 'positions' array"):
        load_clip(partial)
    shaped = tmp_path / "shaped.npz"
    np.savez(shaped, names=np.array(["a", "b"]), positions=np.zeros((3, 1, 3)), fps=30.0)
    with pytest.raises(taskik.InvalidInput, match=r"shaped.npz: positions must .* \(N, 2, 3\)"):
        load_clip(shaped)
    with pytest.raises(taskik.InvalidInput, match="clip file not found"):
        load_clip(tmp_path / "absent.npz")
    with pytest.raises(taskik.InvalidInput, match="unknown format '.bvh'"):
        load_clip(tmp_path / "walk.bvh")


def test_a_nan_frame_is_named_by_frame_and_keypoint(tmp_path):
    clip = small_clip(6)
    positions = clip.positions.copy()
    positions[4, 2, 1] = np.nan
    path = tmp_path / "nan.npz"
    np.savez(path, names=np.array(NAMES), positions=positions, fps=25.0)
    with pytest.raises(
        taskik.InvalidInput, match=r"nan.npz: frame 4, keypoint 'right_hand' has a NaN"
    ):
        load_clip(path)
    quats = clip.orientations["pelvis"].copy()
    quats[2] = [0.0, 0.0, 0.0, 2.0]
    with pytest.raises(taskik.InvalidInput, match="frame 2, keypoint 'pelvis'.*not a unit"):
        clip_from_arrays(NAMES, clip.positions, 25.0, {"pelvis": quats})


def test_clip_arrays_are_checked():
    positions = np.zeros((2, 3, 3))
    with pytest.raises(taskik.InvalidInput, match="keypoint names repeated"):
        clip_from_arrays(("a", "a", "b"), positions, 30.0)
    with pytest.raises(taskik.UnknownName, match="unknown keypoint 'pelvic'.*'pelvis'"):
        clip_from_arrays(NAMES, positions, 30.0, contacts={"pelvic": [0, 1]})
    with pytest.raises(taskik.InvalidInput, match="contacts of 'pelvis' must be 2 booleans"):
        clip_from_arrays(NAMES, positions, 30.0, contacts={"pelvis": [0, 1, 1]})
    with pytest.raises(taskik.InvalidInput, match="no frames"):
        clip_from_arrays(NAMES, np.zeros((0, 3, 3)), 30.0)


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    path = save_clip(small_clip(), tmp_path / "clip.npz")
    before = path.read_bytes()

    def broken(handle, **arrays):
        handle.write(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(clip_module.np, "savez_compressed", broken)
    with pytest.raises(taskik.InvalidInput, match=r"cannot write .*clip.npz: disk full"):
        save_clip(small_clip(5), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.npz"]
    with pytest.raises(taskik.InvalidInput, match="folder .* does not exist"):
        save_clip(small_clip(), tmp_path / "missing" / "clip.npz")


def test_mappings_read_from_a_dict_json_and_yaml_alike(tmp_path):
    data = json.loads(sample_mapping_path("g1").read_text())
    mapping = load_mapping(data)
    assert len(mapping.tasks) == 17 and mapping.scale is None
    assert mapping.tasks[0].orientation_cost == 0.3
    assert load_mapping(sample_mapping_path("g1")) == mapping
    assert RetargetMapping.from_dict(mapping.to_dict()) == mapping
    yaml = pytest.importorskip("yaml")  # optional: PyYAML reads .yaml mappings
    path = tmp_path / "g1.yaml"
    path.write_text(yaml.safe_dump(data))
    assert load_mapping(path) == mapping


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"task": []}, "unknown key 'task'; did you mean 'tasks'"),
        ({"tasks": []}, "'tasks' must be a non-empty list"),
        ({"tasks": [{"keypoint": "a"}]}, r"tasks\[0\]: 'frame' must be a non-empty string"),
        ({"tasks": [{"keypoint": "a", "frame": "f", "cost": 1}]}, "unknown key 'cost'"),
        (
            {"tasks": [{"keypoint": "a", "frame": "f", "position_cost": -1}]},
            r"tasks\[0\] \(keypoint 'a'\): position_cost must be finite and >= 0",
        ),
        (
            {"tasks": [{"keypoint": "a", "frame": "f", "offset": [0, 0]}]},
            r"offset must have shape \(3,\)",
        ),
        (
            {"tasks": [{"keypoint": "a", "frame": "f", "rotation_offset": [0, 0, 0, 2]}]},
            "rotation_offset must be a unit quaternion",
        ),
        ({"scale": 0, "tasks": [{"keypoint": "a", "frame": "f"}]}, "scale must be finite and > 0"),
        ({"rest_frame": -1, "tasks": [{"keypoint": "a", "frame": "f"}]}, "rest_frame must be"),
    ],
)
def test_a_malformed_mapping_names_the_entry(data, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        load_mapping(data)


def test_a_mapping_file_is_named_when_it_cannot_be_read(tmp_path):
    bad = tmp_path / "map.json"
    bad.write_text("{not json")
    with pytest.raises(taskik.InvalidInput, match="map.json is not valid JSON"):
        load_mapping(bad)
    with pytest.raises(taskik.InvalidInput, match="unknown format '.txt'"):
        (tmp_path / "map.txt").write_text("{}")
        load_mapping(tmp_path / "map.txt")
    with pytest.raises(taskik.InvalidInput, match="mapping file not found"):
        load_mapping(tmp_path / "absent.json")
    (tmp_path / "entry.json").write_text(json.dumps({"tasks": [{"keypoint": "a"}]}))
    with pytest.raises(taskik.InvalidInput, match=r"mapping .*entry.json: tasks\[0\]"):
        load_mapping(tmp_path / "entry.json")


def test_a_mapping_naming_an_unknown_frame_suggests_close_names(humanoid):
    clip = load_clip(sample_clip_path())
    mapping = {"tasks": [{"keypoint": "left_hand", "frame": "larm_efector_body"}]}
    with pytest.raises(taskik.UnknownName, match="unknown frame 'larm_efector_body'") as info:
        retarget(humanoid, clip, mapping)
    assert "larm_effector_body" in info.value.close_matches
    assert "keypoint 'left_hand'" in str(info.value) and "'humanoid'" in str(info.value)


def test_a_mapping_naming_a_keypoint_the_clip_lacks_names_the_clip_file(humanoid):
    mapping = {"tasks": [{"keypoint": "left_wrist", "frame": "larm_effector_body"}]}
    with pytest.raises(taskik.UnknownName, match="talos_squat_wave.npz: unknown keypoint") as info:
        retarget(humanoid, sample_clip_path(), mapping)
    assert "left_ankle" in info.value.close_matches or "left_hand" in str(info.value)


def test_an_orientation_asked_of_a_keypoint_without_one_is_refused(humanoid):
    mapping = {
        "tasks": [{"keypoint": "left_hand", "frame": "larm_effector_body", "orientation_cost": 1}]
    }
    with pytest.raises(taskik.InvalidInput, match="orientation of keypoint 'left_hand'"):
        retarget(humanoid, sample_clip_path(), mapping)
    with pytest.raises(taskik.InvalidInput, match="rest_frame 500: clip .* has 121 frames"):
        retarget(
            humanoid,
            sample_clip_path(),
            {
                "rest_frame": 500,
                "tasks": [{"keypoint": "left_hand", "frame": "larm_effector_body"}],
            },
        )


def test_a_result_reads_back_exactly_and_is_written_whole(tmp_path, humanoid):
    result = retarget(humanoid, sample_clip_path(), sample_mapping_path("humanoid"))
    path = result.save(tmp_path / "out.npz")
    back = load_result(path)
    np.testing.assert_array_equal(back.q, result.q)
    np.testing.assert_array_equal(back.position_errors, result.position_errors)
    np.testing.assert_array_equal(back.orientation_errors, result.orientation_errors)
    assert (back.keypoints, back.frames, back.robot) == (
        result.keypoints,
        result.frames,
        "humanoid",
    )
    assert (back.fps, back.scale, back.steps, back.solve_time) == (
        result.fps,
        result.scale,
        result.steps,
        result.solve_time,
    )
    assert [p.name for p in tmp_path.iterdir()] == ["out.npz"]
    with pytest.raises(taskik.InvalidInput, match="use a .npz file name"):
        result.save(tmp_path / "out.csv")
    with pytest.raises(taskik.InvalidInput, match="retarget result file .* has no 'q'"):
        save_clip(small_clip(), tmp_path / "clip.npz")
        load_result(tmp_path / "clip.npz")


def test_nothing_is_written_when_the_input_is_bad(tmp_path):
    out = tmp_path / "out.npz"
    with pytest.raises(taskik.UnknownName):
        retarget_file(
            sample_clip_path(), out, "humanoid", {"tasks": [{"keypoint": "x", "frame": "y"}]}
        )
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_the_output_and_reports(tmp_path, capsys):
    out = tmp_path / "humanoid.npz"
    args = [str(sample_clip_path()), str(out), "--robot", "humanoid"]
    assert main([*args, "--mapping", str(sample_mapping_path("humanoid"))]) == 0
    printed = capsys.readouterr().out
    assert "121 frames of humanoid at 30 fps" in printed and str(out) in printed
    assert load_result(out).n_frames == 121


def test_the_command_refuses_bad_input_with_exit_status_2_and_no_output(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"tasks": [{"keypoint": "left_hand", "frame": "hand"}]}))
    out = tmp_path / "out.npz"
    status = main([str(sample_clip_path()), str(out), "--robot", "humanoid", "--mapping", str(bad)])
    assert status == 2
    assert "unknown frame 'hand'" in capsys.readouterr().err
    assert not out.exists()
    assert Path(sample_clip_path()).is_file()  # the input is untouched
