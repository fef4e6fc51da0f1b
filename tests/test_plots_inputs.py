"""Bad input to taskik.plots gets an InvalidInput naming it, and leaves no figure open (the
fuzzer's findings on the plots module: bare TypeError/OSError/AttributeError, NaN or complex
times and 2-D error series accepted, an open figure left behind by every failed plot)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

import taskik
from taskik import plots


@pytest.fixture
def run(ur5):
    conf = taskik.Configuration(ur5.model, ur5.q0)
    task = taskik.FrameTask("tool0")
    task.set_target_from_configuration(conf)
    times = np.linspace(0.0, 0.2, 3)
    qs = np.tile(ur5.q0, (3, 1))
    return ur5.model, conf, task, times, qs


def _no_new_figure(before: list[int]) -> None:
    assert plt.get_fignums() == before, "a failed plot left a figure open"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (None, "path"),
        (3, "path"),
        ("/proc/taskik_no_such_dir/p.png", "cannot write"),
        ("DIR", "directory"),
        ("UNDER_FILE", "cannot write"),
    ],
)
def test_unwritable_or_wrong_paths_are_named(run, tmp_path, path, words):
    model, _, _, times, qs = run
    if path == "DIR":
        path = tmp_path / "a.png"
        path.mkdir()
    elif path == "UNDER_FILE":
        (tmp_path / "f").write_text("x")
        path = tmp_path / "f" / "p.png"
    before = plt.get_fignums()
    with pytest.raises(taskik.InvalidInput, match=words):
        plots.plot_task_errors(times, {"a": np.ones(3)}, path)
    with pytest.raises(taskik.InvalidInput, match=words):
        plots.plot_joint_trajectories(times, qs, model, path)
    _no_new_figure(before)


@pytest.mark.parametrize(
    ("times", "errors", "words"),
    [
        ("abc", {"a": np.ones(3)}, "times"),
        (np.linspace(0, 1, 3) + 1j, {"a": np.ones(3)}, "times"),
        (np.linspace(0, 1, 3), [np.ones(3)], "errors"),
        (np.linspace(0, 1, 3), {"a": "abc"}, "error values"),
        (np.linspace(0, 1, 3), {"a": np.ones((3, 2))}, "1-D"),
        (np.linspace(0, 1, 3), {"a": np.ones(4)}, "times"),
    ],
)
def test_plot_task_errors_names_bad_series(tmp_path, times, errors, words):
    before = plt.get_fignums()
    with pytest.raises(taskik.InvalidInput, match=words):
        plots.plot_task_errors(times, errors, tmp_path / "e.png")
    _no_new_figure(before)


def test_plot_joint_trajectories_names_bad_model_qs_and_joints(run, tmp_path):
    model, _, _, times, qs = run
    before = plt.get_fignums()
    for bad_model in (None, "ur5"):
        with pytest.raises(taskik.InvalidInput, match="pinocchio.Model"):
            plots.plot_joint_trajectories(times, qs, bad_model, tmp_path / "j.png")
    with pytest.raises(taskik.InvalidInput, match="qs"):
        plots.plot_joint_trajectories(times, "abc", model, tmp_path / "j.png")
    with pytest.raises(taskik.InvalidInput, match="joints"):
        plots.plot_joint_trajectories(times, qs, model, tmp_path / "j.png", joints="elbow_joint")
    with pytest.raises(taskik.InvalidInput, match="joints"):
        plots.plot_joint_trajectories(times, qs, model, tmp_path / "j.png", joints=[3])
    _no_new_figure(before)


def test_recorder_checks_its_tasks_time_and_configuration(run, ur5, humanoid):
    _, conf, task, _, _ = run
    for bad in (None, "abc", [None], task):
        with pytest.raises(taskik.InvalidInput, match="task"):
            plots.Recorder(bad)
    rec = plots.Recorder([task])
    for t in (math.nan, math.inf, True, "0.0", None, 1j):
        with pytest.raises(taskik.InvalidInput, match="time t"):
            rec.record(t, conf)
    for c in (None, ur5.model, ur5.q0):
        with pytest.raises(taskik.InvalidInput, match="Configuration"):
            rec.record(0.0, c)
    assert rec.times == [] and rec.qs == []  # nothing half-recorded
    rec.record(0.0, conf)
    other = taskik.Configuration(humanoid.model, humanoid.q0)
    with pytest.raises(taskik.TaskikError):
        rec.record(0.1, other)
    assert len(rec.times) == len(rec.qs) == len(rec.errors[rec.labels[0]]) == 1


def test_a_valid_plot_is_still_written(run, tmp_path):
    model, conf, task, times, qs = run
    before = plt.get_fignums()
    p = plots.plot_task_errors(times, {"a": np.ones(3)}, tmp_path / "sub" / "e.png")
    assert p.read_bytes()[:4] == b"\x89PNG"
    p = plots.plot_joint_trajectories(times, qs, model, tmp_path / "j.png", joints=["elbow_joint"])
    assert p.read_bytes()[:4] == b"\x89PNG"
    _no_new_figure(before)
