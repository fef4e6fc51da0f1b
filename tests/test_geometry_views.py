"""The views of taskik.geometry.views: Pinocchio's joint placements and coal's distance
results read in place. They read the same values as the accessors, at every step; a scene
whose views cannot be made, or read other values, uses the accessors and gives the same
distances; a copied scene reads its own memory, never the original's."""

from __future__ import annotations

import copy

import numpy as np
import pinocchio as pin
import pytest
from test_limits_collision import robot_named, talos_limit

import taskik
from taskik.geometry import scene as scene_module
from taskik.geometry import views

DT = 0.01


def random_walk(model: pin.Model, steps: int, seed: int = 0):
    """Configurations along a random walk within the model's velocity limits."""
    rng = np.random.default_rng(seed)
    q = pin.neutral(model)
    v_max = np.minimum(np.asarray(model.velocityLimit), 2.0)
    for _ in range(steps):
        q = pin.integrate(model, q, rng.uniform(-v_max, v_max) * DT * 5)
        yield q


@pytest.mark.parametrize("name", ["talos", "panda", "ur5"])
def test_the_joint_view_reads_every_placement_as_the_accessors_do(name):
    robot = robot_named(name)
    conf = taskik.Configuration(robot.model)
    view = views.joint_view(conf.data)
    assert view is not None  # (Pinocchio's layout: the view is made)
    for q in random_walk(robot.model, 5):
        conf.update(q)
        H = np.array([M.homogeneous for M in conf.data.oMi])
        assert np.array_equal(views.rotations(view), H[:, :3, :3])
        assert np.array_equal(view[:, 9:], H[:, :3, 3])


def test_the_result_view_reads_every_pair_as_the_accessors_do():
    limit = talos_limit()
    scene = limit.scene
    conf = taskik.Configuration(limit.model)
    for q in random_walk(limit.model, 3):
        conf.update(q)
        limit.distances(conf, all_pairs=True)  # (every pair's result computed)
        fields, distance = views.result_views(scene.geometry_data)
        results = scene.geometry_data.distanceResults
        assert np.array_equal(distance, [r.min_distance for r in results])
        assert np.array_equal(fields[0], [r.normal for r in results])
        assert np.array_equal(fields[1], [r.getNearestPoint1() for r in results])
        assert np.array_equal(fields[2], [r.getNearestPoint2() for r in results])


def loop(limit, steps: int = 40, seed: int = 1):
    """The distances of the limit's rows and every pair's, along a random walk."""
    conf = taskik.Configuration(limit.model)
    found = []
    for q in random_walk(limit.model, steps, seed):
        conf.update(q)
        near = limit.scene.near_rows(conf.data, limit.detection_distance, q.tobytes(), q=q)
        every = limit.distances(conf, all_pairs=True)
        found.append(
            (near.pairs, near.distance, near.point_a, near.normal, near.gradient, every.distance)
        )
    return found


def same(a, b) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x, y)
        for one, other in zip(a, b, strict=True)
        for x, y in zip(one, other, strict=True)
    )


def test_a_scene_without_views_gives_the_same_distances_to_the_bit(monkeypatch):
    """The views read what the accessors read: a scene that cannot make them (both
    refused) gives the same pairs, distances, points and gradients at every step."""
    with_views = talos_limit()
    found = loop(with_views)
    assert with_views.scene._results_checked and with_views.scene._joints[2] is not None
    monkeypatch.setattr(scene_module, "result_views", lambda data: None)
    monkeypatch.setattr(scene_module, "joint_view", lambda data: None)
    without = talos_limit()
    assert same(loop(without), found)
    assert without.scene._results is None and without.scene._joints[2] is None


def test_a_result_view_that_reads_elsewhere_is_caught_and_left(monkeypatch):
    """A layout other than the one expected (the view 8 bytes off): its first reading
    differs from the accessors', so the scene drops it and keeps the accessors; the
    distances are still coal's."""
    good = talos_limit()
    found = loop(good, steps=10)

    def shifted(geometry_data):
        fields, distance = views.result_views(geometry_data)
        start = fields[0, 0]
        off = np.lib.stride_tricks.as_strided(
            start[1:], shape=fields.shape, strides=fields.strides, writeable=False
        )
        return off, distance

    monkeypatch.setattr(scene_module, "result_views", shifted)
    bad = talos_limit()
    assert bad.scene._results is not None
    assert same(loop(bad, steps=10), found)
    assert bad.scene._results is None  # (dropped at its first reading)


def test_a_copied_scene_reads_its_own_results_not_the_originals():
    """A deep copy makes its views again from its own geometry data: moving the original
    afterwards does not change what the copy reads (a copied view would be an array of
    its own, or read the original's memory)."""
    limit = talos_limit()
    model = limit.model
    walk = list(random_walk(model, 4, seed=3))
    conf = taskik.Configuration(model, walk[0])
    limit.distances(conf, all_pairs=True)
    twin = copy.deepcopy(limit)
    assert twin.scene._results is not None
    assert twin.scene._results[1].ctypes.data != limit.scene._results[1].ctypes.data
    other = taskik.Configuration(model, walk[3])
    mine = twin.distances(other, all_pairs=True)
    limit.distances(conf, all_pairs=True)  # (the original computes at another q)
    results = twin.scene.geometry_data.distanceResults
    assert np.array_equal(mine.distance, [r.min_distance for r in results])
    fresh = talos_limit().distances(other, all_pairs=True)
    assert np.allclose(mine.distance, fresh.distance, atol=1e-6)


def test_a_moved_joint_vector_is_read_again():
    """A data whose placements moved in memory (its vector reallocated) is read from where
    they lie now: the scene compares the address at each evaluation."""
    robot = robot_named("ur5")
    limit = taskik.CollisionLimit(robot)
    scene = limit.scene
    conf = taskik.Configuration(robot.model)
    H = scene._joint_placements(conf.data).copy()
    before = scene._joints[1]
    placements = conf.data.oMi
    placements.reserve(1000 * len(placements))  # (a new buffer, the same placements)
    assert views.joint_address(conf.data) != before
    assert np.array_equal(scene._joint_placements(conf.data), H)
    assert scene._joints[1] == views.joint_address(conf.data)
