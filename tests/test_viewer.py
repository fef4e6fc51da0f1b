"""The viewer: shapes where the links are, the IK loop following a moved target, and the
page drawn for real by headless Chromium (Debian's package, installed by `make test`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.viewer import Viewer, default_frames, robot_shapes, skeleton_shapes
from taskik.viewer.shapes import LINK_COLOR

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=800,600",
    "--virtual-time-budget=8000",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def world_ends(model, shape, q):
    """World positions of the two ends of a cylinder shape at q."""
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    placement = data.oMi[shape.joint] * shape.placement
    half = placement.rotation[:, 2] * shape.length / 2
    return placement.translation - half, placement.translation + half


def test_skeleton_of_planar_arm_joins_its_joints_and_end_effector():
    robot = taskik.robots.load("planar_2r")
    q = np.array([0.4, -0.9])
    conf = robot.configuration(q)
    shapes = skeleton_shapes(robot.model)
    cylinders = [s for s in shapes if s.kind == "cylinder"]
    assert sorted(round(s.length, 6) for s in cylinders) == [0.7, 1.0]
    elbow = conf.data.oMi[2].translation
    ee = conf.get_transform_frame_to_world("ee").translation
    segments = [world_ends(robot.model, s, q) for s in cylinders]
    expected = [(np.zeros(3), elbow), (elbow, ee)]
    for (a, b), (ea, eb) in zip(sorted(segments, key=lambda s: s[0][0]), expected, strict=True):
        np.testing.assert_allclose(a, ea, atol=1e-12)
        np.testing.assert_allclose(b, eb, atol=1e-12)
    assert all(s.radius == pytest.approx(0.08) for s in cylinders)  # 8 % of the longest link
    assert sum(s.kind == "sphere" for s in shapes) >= 3  # two joints and the end effector


def test_skeleton_of_every_bundled_robot_reaches_its_end_effectors():
    for name in ("ur5", "panda", "humanoid", "buss_double_y"):
        robot = taskik.robots.load(name)
        conf = robot.configuration()
        ends = [
            e
            for s in skeleton_shapes(robot.model)
            if s.kind == "cylinder"
            for e in world_ends(robot.model, s, robot.q0)
        ]
        for frame in robot.end_effectors:
            point = conf.get_transform_frame_to_world(frame).translation
            assert min(np.linalg.norm(e - point) for e in ends) < 1e-9, (name, frame)


def test_meshes_of_example_robot_data_robot():
    robot = taskik.robots.load("talos")
    shapes = robot_shapes(robot)
    meshes = [s for s in shapes if s.kind == "mesh"]
    assert len(meshes) == sum(
        1
        for g in robot.visual_model.geometryObjects
        if g.meshPath and type(g.geometry).__name__.startswith("BVH")
    )
    for mesh in meshes:
        assert mesh.vertices.shape[1] == 3 and mesh.faces.max() < len(mesh.vertices)
    assert {s.kind for s in shapes} >= {"mesh", "cylinder", "box"}
    assert default_frames(robot)[0] == "left_sole_link"


def test_viewer_follows_a_moved_target_within_limits():
    robot = taskik.robots.load("panda")
    viewer = Viewer(robot, host="127.0.0.1", port=free_port(), dt=0.02)
    try:
        start = viewer.configuration.get_transform_frame_to_world("panda_hand")
        target = pin.SE3(start.rotation, start.translation + np.array([0.1, -0.1, 0.05]))
        viewer.set_target("panda_hand", target)  # what dragging the gizmo does
        for _ in range(300):
            viewer.step()
        reached = viewer.configuration.get_transform_frame_to_world("panda_hand")
        assert np.linalg.norm(reached.translation - target.translation) < 1e-3
        q = viewer.configuration.q
        assert (q >= robot.model.lowerPositionLimit).all()
        assert (q <= robot.model.upperPositionLimit).all()
        viewer.reset()
        np.testing.assert_allclose(viewer.configuration.q, robot.q0)
        with pytest.raises(taskik.UnknownName, match="panda_hand"):
            viewer.set_target("panda_hnd", target)
    finally:
        viewer.stop()


def test_viewer_rejects_unknown_frame():
    with pytest.raises(taskik.UnknownName, match="tool0"):
        Viewer(taskik.robots.load("ur5"), frames=["tool"], port=free_port())


# -- the page, drawn by a real browser ---------------------------------------------------
@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail(
            "Debian's chromium is needed: `make test` installs it (apt-get install chromium)"
        )
    return path


def screenshot(chromium: str, url: str, out: Path, attempts: int = 3) -> np.ndarray:
    """Screenshot of ``url``; a headless Chromium that hangs (seen once under heavy load,
    with the page's websocket open) is killed and started again."""
    from PIL import Image

    for attempt in range(attempts):
        with tempfile.TemporaryDirectory() as profile:
            try:
                subprocess.run(
                    [
                        chromium,
                        *CHROMIUM_FLAGS,
                        f"--user-data-dir={profile}",
                        f"--screenshot={out}",
                        url,
                    ],
                    capture_output=True,
                    timeout=45,
                    check=True,
                )
            except subprocess.TimeoutExpired:
                if attempt == attempts - 1:
                    raise
                continue
        return np.asarray(Image.open(out).convert("RGB")).astype(int)
    raise AssertionError("unreachable")


def link_pixels(image: np.ndarray) -> int:
    """Pixels of the links' orange (any shade of it), outside the page's top-left notice."""
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    base = np.array(LINK_COLOR) / max(LINK_COLOR)
    scale = r / base[0]
    shade = (np.abs(g - base[1] * scale) < 25) & (np.abs(b - base[2] * scale) < 25)
    orange = shade & (r > 90) & (r - b > 80)
    orange[:170, :330] = False  # the "software WebGL" notice has an orange bar
    return int(orange.sum())


def wait_for_page(url: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.communicate()[1]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"no page at {url} after {timeout} s")


def test_browser_draws_the_robot(chromium, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "taskik.cli", "view", "ur5", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_for_page(url, server)
        # The scene and the camera reach the page over a websocket after it loads: under load
        # a screenshot can come before them, so take up to eight, two seconds apart.
        for attempt in range(8):
            robot = screenshot(chromium, url, tmp_path / f"ur5_{attempt}.png")
            if link_pixels(robot) > 5000:
                break
            time.sleep(2.0)
    finally:
        server.terminate()
        server.wait(timeout=10)

    # The same page with an empty scene: what a blank canvas looks like.
    import viser

    empty_server = viser.ViserServer(host="127.0.0.1", port=free_port(), verbose=False)
    try:
        empty = screenshot(
            chromium, f"http://127.0.0.1:{empty_server.get_port()}", tmp_path / "empty.png"
        )
    finally:
        empty_server.stop()

    assert robot.shape == empty.shape == (600, 800, 3)
    drawn, blank = link_pixels(robot), link_pixels(empty)
    assert blank < 50, blank
    assert drawn > 5000, drawn  # the arm covers a good part of the view
    changed = np.abs(robot - empty).sum(axis=2) > 60
    assert changed.mean() > 0.05
