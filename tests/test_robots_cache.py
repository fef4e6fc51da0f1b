"""taskik.robots.load parses an example-robot-data robot once per process: each call returns
a deep copy of the kept parse, equal to a fresh parse and sharing nothing mutable with the
cache or another call's robot; a file changed on disk is read again; threads loading at once
parse once and each get their own robot.

Most tests use a copy of example-robot-data's FingerEdu (0.6 MB of meshes, an SRDF, a
parse of about 0.1 s) put in a temporary folder, so that its files can be edited, and
registered under a name of its own; the copy's loader reads its files from there.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.robots import parsed

robots_loader = pytest.importorskip("example_robot_data.robots_loader")

NAME = "finger_edu_copy"


@pytest.fixture
def finger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """FingerEdu's files copied under ``tmp_path`` (its description folder is returned) and
    registered with example-robot-data as ``NAME``; its cached parse dropped afterwards."""
    original = robots_loader.FingerEduLoader
    source = parsed.source_files("finger_edu")
    assert source is not None
    root = tmp_path / "share" / "example-robot-data" / "robots"
    description = root / original.path
    shutil.copytree(Path(source[0]).parents[1], description)
    copy = type("FingerEduCopyLoader", (original,), {"model_path": str(root)})
    monkeypatch.setitem(robots_loader.ROBOTS, NAME, copy)
    taskik.robots.clear_cache(NAME)
    yield description
    taskik.robots.clear_cache(NAME)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URDF files example-robot-data's loaders parse while the test runs, in order."""
    from pinocchio.robot_wrapper import RobotWrapper

    seen: list[str] = []
    build = RobotWrapper.BuildFromURDF

    def counted(*args, **kwargs):
        seen.append(str(args[0]))
        return build(*args, **kwargs)

    monkeypatch.setattr(RobotWrapper, "BuildFromURDF", staticmethod(counted))
    return seen


def _fresh(name: str) -> taskik.robots.Robot:
    """``name`` parsed from its files now, bypassing the cache."""
    p = taskik.robots._parse(name)
    return taskik.robots.Robot(name, p.model, p.q0, (), p.visual_model, p.collision_model, p.srdf)


def _vertices(geometry: object) -> np.ndarray | None:
    """The vertices of a mesh (a coal BVH model), None for other shapes."""
    if not hasattr(geometry, "num_vertices"):
        return None
    return np.array([np.array(geometry.vertex(i)) for i in range(geometry.num_vertices)])


def _assert_same(robot: taskik.robots.Robot, fresh: taskik.robots.Robot) -> None:
    """``robot`` equals ``fresh`` in every value load() hands out (exactly: both are the
    same files' parse, one of them copied)."""
    a, b = robot.model, fresh.model
    assert (a.nq, a.nv, a.njoints, a.nframes) == (b.nq, b.nv, b.njoints, b.nframes)
    assert list(a.names) == list(b.names)
    for limit in ("lowerPositionLimit", "upperPositionLimit", "velocityLimit", "effortLimit"):
        np.testing.assert_array_equal(getattr(a, limit), getattr(b, limit), err_msg=limit)
    for fa, fb in zip(a.frames, b.frames, strict=True):
        assert fa.name == fb.name and fa.parentJoint == fb.parentJoint
        np.testing.assert_array_equal(fa.placement.homogeneous, fb.placement.homogeneous)
    for ja, jb in zip(a.jointPlacements, b.jointPlacements, strict=True):
        np.testing.assert_array_equal(ja.homogeneous, jb.homogeneous)
    assert a == b  # (Pinocchio's comparison of every member, inertias included)
    np.testing.assert_array_equal(robot.q0, fresh.q0)
    assert robot.srdf == fresh.srdf
    for which in ("visual_model", "collision_model"):
        ga, gb = getattr(robot, which), getattr(fresh, which)
        assert [g.name for g in ga.geometryObjects] == [g.name for g in gb.geometryObjects]
        for oa, ob in zip(ga.geometryObjects, gb.geometryObjects, strict=True):
            assert (oa.parentJoint, oa.parentFrame, oa.meshPath) == (
                ob.parentJoint,
                ob.parentFrame,
                ob.meshPath,
            )
            np.testing.assert_array_equal(oa.placement.homogeneous, ob.placement.homogeneous)
            va, vb = _vertices(oa.geometry), _vertices(ob.geometry)
            assert (va is None) == (vb is None), oa.name
            if va is not None:
                np.testing.assert_array_equal(va, vb, err_msg=oa.name)
        pairs = [(p.first, p.second) for p in ga.collisionPairs]
        assert pairs == [(p.first, p.second) for p in gb.collisionPairs]


def _edit(robot: taskik.robots.Robot) -> None:
    """Change, in place, every mutable value of ``robot``: its model's limits and a frame's
    placement, a geometry object's placement and a mesh's vertices (both geometry models),
    q0 and the collision pairs; and check that each change took hold."""
    model = robot.model
    lower = model.lowerPositionLimit
    lower[-1] -= 0.5
    model.lowerPositionLimit = lower
    frame = model.frames[model.nframes - 1]
    frame.placement = pin.SE3(np.eye(3), np.array([0.1, 0.2, 0.3]))
    model.frames[model.nframes - 1] = frame
    assert np.allclose(model.frames[model.nframes - 1].placement.translation, [0.1, 0.2, 0.3])
    robot.q0[:] += 0.25
    for gm in (robot.visual_model, robot.collision_model):
        obj = gm.geometryObjects[0]
        obj.placement = pin.SE3(np.eye(3), np.array([1.0, 2.0, 3.0]))
        assert np.allclose(gm.geometryObjects[0].placement.translation, [1.0, 2.0, 3.0])
        mesh = next(g.geometry for g in gm.geometryObjects if _vertices(g.geometry) is not None)
        before = _vertices(mesh)
        mesh.beginReplaceModel()
        for i in range(mesh.num_vertices):
            mesh.replaceVertex(np.array(mesh.vertex(i)) + 0.5)
        mesh.endReplaceModel(True, True)
        assert np.allclose(_vertices(mesh), before + 0.5)  # the edit reached the mesh
    robot.collision_model.removeAllCollisionPairs()


@pytest.mark.parametrize("name", ["finger", "go2"])
def test_a_second_load_equals_a_fresh_parse_and_shares_nothing(name, finger, parses):
    """Equal to a fresh parse in every value, the second load parses nothing; and the
    first robot edited everywhere (limits, a frame, geometry placements, mesh vertices, q0,
    collision pairs) leaves the next load equal to a fresh parse: nothing is shared."""
    name = NAME if name == "finger" else name
    taskik.robots.clear_cache(name)
    first = taskik.robots.load(name)
    second = taskik.robots.load(name)
    assert len(parses) == 1, parses  # the second load was a copy
    assert parsed.cached().count(name) == 1
    fresh = _fresh(name)
    _assert_same(first, fresh)
    _assert_same(second, fresh)
    _edit(first)
    _assert_same(second, fresh)  # a robot loaded before the edit
    _assert_same(taskik.robots.load(name), fresh)  # and one loaded after it
    assert len(parses) == 2  # (the fresh parse)
    if name == NAME:  # the copy's files are those parsed
        assert first.srdf is not None and first.srdf.is_relative_to(finger)
        for gm in (fresh.visual_model, fresh.collision_model):
            assert all(
                Path(g.meshPath).resolve().is_relative_to(finger) for g in gm.geometryObjects
            )


def test_an_edited_file_is_read_again(finger, parses):
    """The SRDF edited (a new reference posture) changes the next load's q0; a mesh file
    touched (its modification time only) is parsed again; unchanged files are not."""
    srdf = finger / "srdf" / "finger_edu.srdf"
    mesh = finger / "meshes" / "upper_link.stl"
    before = taskik.robots.load(NAME)
    np.testing.assert_array_equal(before.q0, np.zeros(3))
    key = parsed.key(NAME, parsed.mesh_files(before.collision_model))
    assert key is not None and key == parsed.key(NAME, parsed.mesh_files(before.visual_model))

    text = srdf.read_text()
    assert text.count('name="finger_base_to_upper_joint" value="0.0"') == 1
    srdf.write_text(text.replace('upper_joint" value="0.0"', 'upper_joint" value="0.25"'))
    after = taskik.robots.load(NAME)
    np.testing.assert_array_equal(after.q0, [0.25, 0.0, 0.0])
    assert len(parses) == 2

    taskik.robots.load(NAME)
    assert len(parses) == 2  # nothing changed since

    stat = mesh.stat()
    os.utime(mesh, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**10))
    assert parsed.key(NAME, parsed.mesh_files(before.collision_model)) != key
    np.testing.assert_array_equal(taskik.robots.load(NAME).q0, [0.25, 0.0, 0.0])
    assert len(parses) == 3  # the touched mesh: parsed again
    taskik.robots.load(NAME)
    assert len(parses) == 3

    mesh.unlink()  # a mesh gone: parsed again (not served from the cache), which fails
    with pytest.raises(taskik.InvalidInput, match="could not load the robot 'finger_edu_copy'"):
        taskik.robots.load(NAME)
    assert len(parses) == 4 and NAME not in parsed.cached()


def test_the_key_is_the_files_values():
    """The key names the URDF and SRDF the loader reads (found without parsing), with their
    sizes and modification times; equal for equal files, None for an unknown robot."""
    key = parsed.key("talos")
    assert key is not None
    name, loader, files = key
    assert (name, loader) == ("talos", "example_robot_data.talos.TalosLoader")
    paths = [Path(p) for p, _, _ in files]
    assert [p.name for p in paths] == ["talos_reduced.urdf", "talos.srdf"]
    assert all(p.is_file() for p in paths)
    assert [(size, mtime) for _, size, mtime in files] == [
        (p.stat().st_size, p.stat().st_mtime_ns) for p in paths
    ]
    assert parsed.key("talos") == key
    assert parsed.key("no such robot") is None


def test_concurrent_loads_parse_once_and_get_independent_robots(finger, parses):
    """Four threads loading at once (started together, a thread switch every microsecond):
    one parse, four robots equal to a fresh parse, none sharing anything with another."""
    start = threading.Barrier(4)

    def load(_: int) -> taskik.robots.Robot:
        start.wait(timeout=60)
        return taskik.robots.load(NAME)

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            robots = list(pool.map(load, range(4)))
    finally:
        sys.setswitchinterval(before)
    assert len(parses) == 1, parses
    fresh = _fresh(NAME)
    _edit(robots[0])
    for robot in robots[1:]:
        _assert_same(robot, fresh)


def test_clear_cache_parses_again_and_checks_its_names(finger, parses):
    taskik.robots.load(NAME)
    assert NAME in parsed.cached()
    taskik.robots.clear_cache(f"erd:{NAME}")
    assert NAME not in parsed.cached()
    taskik.robots.load(NAME)
    assert len(parses) == 2
    with pytest.raises(taskik.InvalidInput, match="strings"):
        taskik.robots.clear_cache(3)  # type: ignore[arg-type]


def test_bundled_robots_are_built_at_each_call():
    a, b = taskik.robots.load("ur5"), taskik.robots.load("ur5")
    a.q0[:] = 1.0
    assert not np.allclose(b.q0, 1.0) and a.model is not b.model
    assert "ur5" not in parsed.cached()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")
def test_a_child_forked_during_a_parse_loads_without_waiting(finger, monkeypatch):
    """A fork while another thread parses (holding the cache's lock) gives a child that
    loads at once, from the parent's kept parses or its own, instead of waiting forever."""
    taskik.robots.load("ur5")  # (nothing to parse: bundled)
    entered, release = threading.Event(), threading.Event()
    original = taskik.robots._parse

    def slow(name: str) -> parsed.Parsed:
        entered.set()
        assert release.wait(60)
        return original(name)

    monkeypatch.setattr(taskik.robots, "_parse", slow)
    thread = threading.Thread(target=taskik.robots.load, args=(NAME,))
    thread.start()
    try:
        assert entered.wait(60)  # the thread holds the lock now
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                monkeypatch.setattr(taskik.robots, "_parse", original)
                status = 0 if taskik.robots.load(NAME).model.nq == 3 else 2
            finally:
                os._exit(status)
        deadline = time.monotonic() + 30
        while (waited := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        if waited[0] == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        assert waited[0] == pid and os.WIFEXITED(waited[1]) and os.WEXITSTATUS(waited[1]) == 0
    finally:
        release.set()
        thread.join(60)
