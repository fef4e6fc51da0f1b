"""The viewer: shapes where the links are, the IK loop following a moved target, and the
page drawn for real by headless Chromium (skipped, with the reason in the test summary, where no
Chromium is installed; `.ci/run` installs it, and sets TASKIK_REQUIRE_CHROMIUM=1 so that CI
fails instead of skipping)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import numpy as np
import pinocchio as pin
import pytest
from headless_page import HeadlessPage

import taskik
from taskik import geometry
from taskik.limits import default_limits
from taskik.viewer import Viewer, default_frames, robot_shapes, skeleton_shapes
from taskik.viewer.collisions import ACTIVE_COLOR, NEAR_COLOR
from taskik.viewer.nodes import placement_of, wxyz
from taskik.viewer.shapes import LINK_COLOR, OBSTACLE_COLOR, obstacle_shapes


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


def test_meshes_of_example_robot_data_robot(talos):
    robot = talos
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


# -- obstacles and near pairs of a CollisionLimit ------------------------------------------
def obstacle_pose(rpy, xyz):
    return pin.SE3(pin.rpy.rpyToMatrix(np.array(rpy, dtype=float)), np.array(xyz, dtype=float))


def every_kind_of_obstacle():
    """One obstacle of each kind, each turned and moved, far from the Panda (none near)."""
    corners = 0.1 * np.vstack([np.eye(3), -np.eye(3)])  # an octahedron, 0.1 m to its tips
    faces = np.array([[a, b, c] for a in (0, 3) for b in (1, 4) for c in (2, 5)])
    floor = geometry.halfspace("floor", (0.0, 0.0, 1.0), -0.3)
    floor.move_to(obstacle_pose([0.2, -0.1, 0.0], [0.0, 0.0, -0.5]))
    return [
        geometry.sphere("ball", 0.05, obstacle_pose([0, 0, 0], [2.0, 0.0, 0.5])),
        geometry.capsule("pole", 0.03, 0.4, obstacle_pose([0.3, 0, 0], [2.0, 1.0, 0.5])),
        geometry.box("crate", [0.1, 0.2, 0.3], obstacle_pose([0, 0.4, 0.2], [2.0, -1.0, 0.5])),
        geometry.cylinder("can", 0.05, 0.2, obstacle_pose([0, 0, 1.0], [-2.0, 0.0, 0.5])),
        floor,
        geometry.mesh("rock", corners, faces, obstacle_pose([1, 0, 0], [-2, 1, 0.5])),
    ]


def drag(gizmo, pose):
    """What viser does when the page moves a gizmo (``_handle_transform_controls_updates``):
    set its pose, then call its callbacks, even if the gizmo was removed meanwhile."""
    from viser import TransformControlsEvent

    gizmo._impl.position = np.array(pose.translation)
    gizmo._impl.wxyz = wxyz(pose.rotation)
    event = TransformControlsEvent(client=None, client_id=None, target=gizmo, phase="update")
    for callback in gizmo._impl_aux.update_cb:  # those registered with gizmo.on_update
        callback(event)


def assert_same_pose(a, b, atol=1e-9):
    np.testing.assert_allclose(a.homogeneous, b.homogeneous, atol=atol)


def gizmo_pose(gizmo):
    return placement_of(gizmo.position, gizmo.wxyz)


@pytest.fixture
def panda_with_ball():
    """A Panda viewer whose CollisionLimit has a ball 4 cm in front of the hand's capsule."""
    robot = taskik.robots.load("panda")
    hand = robot.configuration().get_transform_frame_to_world("panda_hand").translation
    ball = geometry.sphere("ball", 0.04, hand + np.array([0.15, 0.0, 0.0]))
    limit = taskik.limits.CollisionLimit(robot, self_collision=False, obstacles=[ball])
    viewer = Viewer(robot, port=free_port(), limits=[*default_limits(robot.model), limit])
    yield viewer, limit, ball
    viewer.stop()


def test_obstacle_shapes_of_the_primitives_are_the_collision_shapes():
    ball, pole, crate, can, _, _ = every_kind_of_obstacle()
    for obstacle in (ball, pole, crate, can):
        anchor, _ = obstacle_shapes(obstacle)
        assert_same_pose(anchor, pin.SE3.Identity())  # the gizmo sits on the pose
    (sphere,) = obstacle_shapes(ball)[1]
    assert (sphere.kind, sphere.radius) == ("sphere", 0.05)
    (box,) = obstacle_shapes(crate)[1]
    assert box.kind == "box" and box.size == pytest.approx((0.1, 0.2, 0.3))
    (cylinder,) = obstacle_shapes(can)[1]
    assert (cylinder.kind, cylinder.radius, cylinder.length) == (
        "cylinder",
        0.05,
        pytest.approx(0.2),
    )
    body, *caps = obstacle_shapes(pole)[1]
    assert (body.kind, body.radius, body.length) == ("cylinder", 0.03, pytest.approx(0.4))
    ends = sorted(cap.placement.translation[2] for cap in caps)
    assert [c.kind for c in caps] == ["sphere", "sphere"] and ends == pytest.approx([-0.2, 0.2])
    assert all(s.color == OBSTACLE_COLOR for s in (sphere, box, cylinder, body, *caps))


def test_half_space_is_a_plate_whose_top_face_is_the_plane():
    floor = every_kind_of_obstacle()[4]
    anchor, (plate,) = obstacle_shapes(floor, extent=3.0)
    assert plate.kind == "box" and plate.size == pytest.approx((3.0, 3.0, 0.03))
    # the plane n·x = d of the obstacle's frame, in the world
    n = floor.pose.rotation @ np.array([0.0, 0.0, 1.0])
    d = -0.3 + n @ floor.pose.translation
    top = floor.pose * anchor  # the gizmo: on the plane, z along the normal
    assert n @ top.translation == pytest.approx(d, abs=1e-12)
    np.testing.assert_allclose(top.rotation[:, 2], n, atol=1e-12)
    centre = top * plate.placement  # the plate lies below the plane, its top face on it
    assert n @ centre.translation == pytest.approx(d - 0.015, abs=1e-12)
    np.testing.assert_allclose(centre.rotation[:, 2], n, atol=1e-12)


def test_mesh_obstacle_is_drawn_as_the_hull_its_distances_use():
    rock = every_kind_of_obstacle()[5]
    _, (hull,) = obstacle_shapes(rock)
    assert hull.kind == "mesh" and hull.faces.shape == (rock.geometry.num_polygons, 3)
    assert hull.faces.min() >= 0 and hull.faces.max() < len(hull.vertices)
    np.testing.assert_allclose(np.abs(hull.vertices).max(axis=0), 0.1, atol=1e-9)
    assert np.linalg.norm(hull.vertices, axis=1) == pytest.approx(0.1)  # the tips only
    assert hull.vertices.shape == (6, 3) and len(hull.faces) == 8  # the octahedron itself


def test_other_coal_geometry_is_drawn_as_its_bounding_box():
    import coal

    blob = geometry.Obstacle("blob", coal.Ellipsoid(0.1, 0.2, 0.3))
    _, (box,) = obstacle_shapes(blob)
    assert box.kind == "box" and box.size == pytest.approx((0.2, 0.4, 0.6))


def test_viewer_draws_every_obstacle_under_a_gizmo_at_its_pose():
    robot = taskik.robots.load("panda")
    obstacles = every_kind_of_obstacle()
    limit = taskik.limits.CollisionLimit(robot, obstacles=obstacles)
    viewer = Viewer(robot, port=free_port(), limits=[limit])
    try:
        drawing = viewer.collisions
        assert sorted(drawing.gizmos) == sorted(o.name for o in obstacles)
        for obstacle in obstacles:
            anchor, shapes = obstacle_shapes(obstacle, 4 * viewer._size)
            gizmo = drawing.gizmos[obstacle.name]
            assert gizmo.name == f"/obstacles/{obstacle.name}"
            assert_same_pose(gizmo_pose(gizmo), obstacle.pose * anchor)
            nodes = drawing.shapes[obstacle.name]
            assert len(nodes) == len(shapes)
            assert all(node.name.startswith(f"{gizmo.name}/") for node in nodes)
            for node, shape in zip(nodes, shapes, strict=True):  # placed in the gizmo's frame
                assert_same_pose(gizmo_pose(node), shape.placement)
        assert viewer.near == [] and drawing.segments == {}  # all far from the arm
    finally:
        viewer.stop()


def test_dragging_a_gizmo_moves_its_obstacle():
    robot = taskik.robots.load("panda")
    obstacles = every_kind_of_obstacle()
    viewer = Viewer(
        robot, port=free_port(), limits=[taskik.limits.CollisionLimit(robot, obstacles=obstacles)]
    )
    try:
        for obstacle in obstacles:
            gizmo = viewer.collisions.gizmos[obstacle.name]
            before = gizmo_pose(gizmo)
            moved = obstacle_pose([0.1, 0.2, 0.3], [0.0, 0.1, -0.2]) * before
            drag(gizmo, moved)
            anchor, _ = obstacle_shapes(obstacle, 4 * viewer._size)
            assert_same_pose(obstacle.pose * anchor, moved, atol=1e-7)
        floor = obstacles[4]  # the floor's plane went where its plate was dragged
        top = floor.pose * obstacle_shapes(floor)[0]
        normal = floor.pose.rotation[:, 2]
        assert normal @ top.translation == pytest.approx(
            floor.geometry.d + normal @ floor.pose.translation
        )
        with pytest.raises(taskik.UnknownName, match="ball"):
            viewer.move_obstacle("bal", pin.SE3.Identity())
    finally:
        viewer.stop()


def test_a_drag_waits_for_the_step_to_release_the_lock(panda_with_ball):
    viewer, _, ball = panda_with_ball
    before = ball.pose.copy()
    target = obstacle_pose([0, 0, 0], [1.0, 1.0, 1.0])
    with viewer._lock:  # what the IK step holds while it reads the obstacles
        mover = threading.Thread(target=drag, args=(viewer.collisions.gizmos["ball"], target))
        mover.start()
        mover.join(timeout=0.2)
        assert mover.is_alive()
        assert_same_pose(ball.pose, before)
    mover.join(timeout=5.0)
    assert_same_pose(ball.pose, target, atol=1e-7)


def test_obstacles_moved_added_or_removed_by_code_are_redrawn(panda_with_ball):
    viewer, limit, ball = panda_with_ball
    ball.move_to(np.array([0.0, 2.0, 1.0]))
    limit.add_obstacle(geometry.box("crate", [0.2, 0.2, 0.2], np.array([1.5, 0.0, 0.1])))
    viewer.refresh()
    assert_same_pose(gizmo_pose(viewer.collisions.gizmos["ball"]), ball.pose)
    assert sorted(viewer.collisions.gizmos) == ["ball", "crate"]
    gizmo = viewer.collisions.gizmos["ball"]
    limit.remove_obstacle("ball")
    viewer.refresh()
    assert sorted(viewer.collisions.gizmos) == ["crate"]
    assert sorted(viewer.collisions.shapes) == ["crate"]
    before = ball.pose.copy()
    drag(gizmo, obstacle_pose([0, 0, 0], [1.0, 1.0, 1.0]))  # a late drag of the removed gizmo
    assert_same_pose(ball.pose, before)


def test_obstacles_changed_in_place_are_redrawn(panda_with_ball):
    """A pose changed in place moves the gizmo; a shape resized in place is drawn again."""
    viewer, limit, ball = panda_with_ball
    ball.pose.translation = np.array([0.0, 2.0, 1.0])  # in place: no move_to
    viewer.refresh()
    assert_same_pose(gizmo_pose(viewer.collisions.gizmos["ball"]), ball.pose)
    before = viewer.collisions.shapes["ball"]
    ball.geometry.radius = 0.2
    viewer.refresh()
    assert viewer.collisions.shapes["ball"] is not before  # the new radius, drawn


def test_near_pairs_get_segments_that_go_when_the_pair_is_far(panda_with_ball):
    viewer, limit, ball = panda_with_ball
    report = limit.report(viewer.configuration)
    assert len(report.names) >= 1  # the hand's capsule and the ball, within 5 cm
    segments = viewer.collisions.segments
    assert sorted(segments) == sorted(n.replace(" / ", "--") for n in report.names)
    for name, points in zip(report.names, report.segments, strict=True):
        handle = segments[name.replace(" / ", "--")]
        assert handle.name == f"/collision_pairs/{name.replace(' / ', '--')}"
        np.testing.assert_allclose(handle.points[0], points, atol=1e-6)
        np.testing.assert_array_equal(handle.colors[0], [NEAR_COLOR, NEAR_COLOR])  # no step yet
    viewer.move_obstacle("ball", pin.SE3(np.eye(3), np.array([0.0, 2.0, 1.0])))
    viewer.refresh()
    assert viewer.near == [] and segments == {}


def test_pairs_whose_rows_bind_the_step_are_red_and_the_arm_keeps_clear(panda_with_ball):
    viewer, limit, ball = panda_with_ball
    hand = viewer.configuration.get_transform_frame_to_world("panda_hand")
    viewer.set_target("panda_hand", pin.SE3(hand.rotation, ball.pose.translation))  # inside it
    closest, seen_active = np.inf, False
    for _ in range(40):
        viewer.step()
        closest = min(closest, limit.clearance(viewer.configuration))
        for pair in viewer.near:
            color = viewer.collisions.segments[pair.name.replace(" / ", "--")].colors[0, 0]
            np.testing.assert_array_equal(color, ACTIVE_COLOR if pair.active else NEAR_COLOR)
            seen_active |= pair.active
    assert seen_active  # the limit held the hand back...
    assert closest > -1e-4  # ...at the safety distance (clearance = d − d_s)
    viewer.refresh()  # no step: nothing binds
    assert viewer.near and not any(pair.active for pair in viewer.near)


# -- the page, drawn by a real browser ---------------------------------------------------
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_CHROMIUM = (
    "no headless Chromium on PATH (looked for {names}): install it to run the browser test, "
    "e.g. `sudo apt-get install chromium` (Debian) or `sudo apt-get install chromium-browser` "
    "(Ubuntu); `.ci/run` installs it"
)


def find_chromium() -> str | None:
    """The first Chromium (or Chrome) on PATH, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


def chromium_or_skip(path: str | None, required: bool) -> str:
    """``path``; without one, a skip naming what to install, or a failure when ``required``
    (CI, which installs Chromium: a missing browser there is a broken setup, not a skip)."""
    if path is not None:
        return path
    reason = NO_CHROMIUM.format(names=", ".join(CHROMIUM_NAMES))
    if required:
        pytest.fail(reason + " (TASKIK_REQUIRE_CHROMIUM is set)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip(find_chromium(), os.environ.get("TASKIK_REQUIRE_CHROMIUM") == "1")


def test_browser_test_skips_with_what_to_install_and_runs_where_chromium_is(monkeypatch):
    """No Chromium: a skip that names the package (or a failure where it is required);
    a Chromium on PATH: its path, so the browser test runs."""
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        chromium_or_skip(None, required=False)
    with pytest.raises(pytest.fail.Exception, match="TASKIK_REQUIRE_CHROMIUM"):
        chromium_or_skip(None, required=True)
    assert chromium_or_skip("/opt/chromium", required=False) == "/opt/chromium"
    monkeypatch.setenv("PATH", "")
    assert find_chromium() is None


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
    """The UR5 drawn by a real browser: its links' orange covers a good part of the view,
    where the same page with an empty scene has none. One browser shows both pages, the
    empty scene first (three seconds after it opened), then the robot's, while the robot's
    server starts meanwhile."""
    import viser
    from PIL import Image

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
    empty_server = viser.ViserServer(host="127.0.0.1", port=free_port(), verbose=False)
    try:
        with HeadlessPage(chromium, f"http://127.0.0.1:{empty_server.get_port()}") as page:
            # the page with an empty scene, three seconds after it opened: a blank canvas
            empty = page.screenshot_until(lambda image: False, timeout=3.0)
            empty_server.stop()
            wait_for_page(url, server)
            page.navigate(url)
            # The scene and the camera reach the page over a websocket after it loads: the
            # same live page is captured every half second until the arm is drawn (120 s at
            # most).
            robot = page.screenshot_until(lambda image: link_pixels(image) > 5000, timeout=120.0)
        Image.fromarray(robot.astype(np.uint8)).save(tmp_path / "ur5.png")
    finally:
        empty_server.stop()
        server.terminate()
        server.wait(timeout=10)

    assert robot.shape == empty.shape == (600, 800, 3)
    drawn, blank = link_pixels(robot), link_pixels(empty)
    assert blank < 50, blank
    assert drawn > 5000, drawn  # the arm covers a good part of the view
    changed = np.abs(robot - empty).sum(axis=2) > 60
    assert changed.mean() > 0.05
