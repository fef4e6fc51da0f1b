"""taskik.plots: PNGs of task errors and joint trajectories, and clear errors."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

import taskik
from taskik import plots


def run_ur5(steps: int = 40):
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = taskik.FrameTask("tool0", gain=0.5)
    target = conf.get_transform_frame_to_world("tool0")
    target.translation += np.array([0.1, 0.0, -0.1])
    tool.set_target(target)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    recorder = plots.Recorder([tool, posture])
    dt = 0.01
    for k in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, [tool, posture], dt), dt)
        recorder.record(k * dt, conf)
    return robot, recorder


def png_size(path):
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG"
        return image.size, np.asarray(image.convert("L"))


def test_recorder_saves_both_plots(tmp_path):
    robot, recorder = run_ur5()
    assert recorder.labels == ["FrameTask(tool0)", "PostureTask"]
    errors = recorder.errors["FrameTask(tool0)"]
    assert len(errors) == 40 and errors[-1] < errors[0] / 10  # the run converges
    (w, h), pixels = png_size(recorder.plot_task_errors(tmp_path / "errors.png"))
    assert (w, h) == (700, 400) and pixels.std() > 10  # not a blank image
    (w, h), pixels = png_size(recorder.plot_joints(tmp_path / "out" / "joints.png"))
    assert w == 4 * 320 and h == 2 * 220  # six joints: 4 columns, 2 rows
    assert pixels.std() > 10


def test_joint_plot_selects_joints_and_names_unknown_ones(tmp_path):
    robot, recorder = run_ur5(5)
    path = plots.plot_joint_trajectories(
        recorder.times, recorder.qs, robot.model, tmp_path / "j.png", joints=["elbow_joint"]
    )
    assert png_size(path)[0] == (320, 220)
    with pytest.raises(taskik.UnknownName, match="elbow_joint"):
        recorder.plot_joints(tmp_path / "k.png", joints=["elbow"])


def test_bad_input_is_named(tmp_path):
    robot, recorder = run_ur5(3)
    with pytest.raises(taskik.InvalidInput, match=r"\.png"):
        recorder.plot_task_errors(tmp_path / "errors.pdf")
    with pytest.raises(taskik.InvalidInput, match="one entry per"):
        plots.plot_task_errors([0.0, 1.0], {"a": [1.0, 2.0, 3.0]}, tmp_path / "e.png")
    with pytest.raises(taskik.InvalidInput, match="nq = 6"):
        plots.plot_joint_trajectories([0.0], np.zeros((1, 5)), robot.model, tmp_path / "q.png")
    with pytest.raises(taskik.InvalidInput, match="no sample"):
        plots.Recorder([]).plot_joints(tmp_path / "q.png")


def test_missing_matplotlib_gives_a_clear_error(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"from a clone, pip install -e '\.\[plot\]'"):
        plots.plot_task_errors([0.0], {"a": [1.0]}, tmp_path / "e.png")
