"""The running lower bounds of CollisionScene (conservative advancement): a pair's last exact
distance (or bounding-volume gap) lowered at every step by how far any point of its two shapes
moved since. A pair skipped because of its bound is provably farther than its threshold: the
bounds never exceed coal's distances, and no pair within its threshold is ever left out, along
random loops, a turning rod and moving, turning obstacles."""

from __future__ import annotations

import coal
import numpy as np
import pinocchio as pin
import pytest
from test_geometry_broadphase import direct_distances

import taskik
from taskik import geometry
from taskik.geometry.scene import CollisionScene
from taskik.limits.collision import CollisionLimit

DT = 0.01


def check_bounds(scene: CollisionScene, found: np.ndarray) -> np.ndarray:
    """At the placements of the last near_rows: every pair's running bound is at most its
    distance (coal's, 1e-6 m of GJK tolerance); every pair closer than its threshold is among
    ``found`` (the pairs given rows); every pair left out whose bound passes its threshold
    is farther than it. Returns coal's distances."""
    truth = direct_distances(scene)
    assert scene._screen is not None
    threshold = scene._screen[1]
    assert np.all(scene._lower <= truth + 1e-6), np.max(scene._lower - truth)
    inside = truth < threshold - 1e-6
    given = np.zeros(len(truth), dtype=bool)
    given[found] = True
    assert not np.any(inside & ~given), [scene.names[k] for k in np.flatnonzero(inside & ~given)]
    skipped = scene._lower >= threshold
    assert np.all(truth[skipped] >= threshold[skipped] - 1e-9)
    return truth


@pytest.mark.parametrize("name", ["talos", "panda"])
def test_pairs_skipped_by_their_bound_are_farther_than_their_threshold_along_random_loops(name):
    """Random velocities within the model's limits (large, changing steps) and closed-loop
    steps: at every step the running bounds stay below coal's distances, the pairs within
    their threshold all get rows, and most pairs cost no GJK (the bound skips them)."""
    robot = taskik.robots.load(name)
    rng = np.random.default_rng(7)
    obstacles = []
    if name == "panda":
        conf0 = robot.configuration()
        hand = conf0.get_transform_frame_to_world("panda_hand").translation
        obstacles = [
            geometry.sphere("ball", 0.05, hand + [0.1, 0.0, 0.0]),
            geometry.box("crate", [0.1, 0.2, 0.05], hand + [0.0, 0.15, -0.1]),
        ]
    limit = CollisionLimit(robot, obstacles=obstacles)
    scene = limit.scene
    conf = robot.configuration()
    v_max = np.minimum(np.asarray(robot.model.velocityLimit), 3.0)
    skipped = []
    for step in range(150):
        if name == "panda":  # the obstacles move and turn (0.3 m/s, 2 rad/s)
            for k, o in enumerate(obstacles):
                angle = 2.0 * step * DT + k
                centre = hand + [0.1 * np.cos(angle), 0.1 * np.sin(angle), -0.05 * k]
                o.move_to(pin.SE3(pin.utils.rotate("z", angle), centre))
        limit.expect_check()
        limit.compute_inequalities(conf, DT)
        check_bounds(scene, limit._last.pairs)
        skipped.append(np.mean(scene._lower >= scene._screen[1]))
        v = rng.uniform(-1.0, 1.0, robot.model.nv) * v_max * (0.2 if step % 20 < 10 else 1.0)
        q = pin.integrate(robot.model, conf.q, v * DT)
        conf.update(np.clip(q, robot.model.lowerPositionLimit, robot.model.upperPositionLimit))
    assert np.median(skipped) > 0.5  # the bound does skip pairs, not only the check above


def rod_scene(obstacles):
    """A rod 0.4 m long turning about its middle (joint RZ at the origin), along x at q = 0."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "turn")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.1), pin.SE3.Identity())
    along_x = pin.SE3(pin.utils.rotate("y", np.pi / 2), np.zeros(3))
    geometry_model = pin.GeometryModel()
    geometry_model.addGeometryObject(
        pin.GeometryObject("rod", joint, along_x, coal.Capsule(0.01, 0.4))
    )
    return model, CollisionScene(model, geometry_model, [], obstacles)


def test_a_turning_rod_whose_centre_stays_put_is_seen_coming():
    """The rod turns about its centre (which does not move) until its tip meets a ball: the
    bound must count the rotation (r ‖R − R_before‖), or the pair, measured far once, would be
    skipped while the tip sweeps into it."""
    ball = geometry.sphere("ball", 0.03, [0.0, 0.26, 0.0])  # 3 cm off the tip's circle
    model, scene = rod_scene([ball])
    conf = taskik.Configuration(model, np.zeros(1))
    met = False
    for step in range(60):
        conf.update(np.array([step * 0.03]))  # up to 1.8 rad (the ball is at π / 2)
        near = scene.near_rows(conf.data, 0.05, step=conf.q.tobytes())
        truth = check_bounds(scene, near.pairs)
        met |= bool(truth[0] < 0.05)
    assert met  # (the tip did come within the detection distance)


def test_moving_and_turning_obstacles_are_seen_coming():
    """The rod stands still; a ball comes at it along y and a long box turns about its
    centre until its end sweeps across the rod: the bound must count the obstacles' motion,
    their rotation included."""
    ball = geometry.sphere("ball", 0.03, [0.1, 0.3, 0.0])
    plank = geometry.box("plank", [0.5, 0.02, 0.02], [-0.1, 0.0, 0.3])
    model, scene = rod_scene([ball, plank])
    conf = taskik.Configuration(model, np.zeros(1))
    met = np.zeros(2, dtype=bool)
    for step in range(60):
        ball.move_to(pin.SE3(np.eye(3), np.array([0.1, 0.3 - 0.004 * step, 0.0])))
        plank.move_to(pin.SE3(pin.utils.rotate("y", 0.03 * step), np.array([-0.1, 0.0, 0.3])))
        near = scene.near_rows(conf.data, 0.05, step=step)
        met |= check_bounds(scene, near.pairs) < 0.05
    assert met.all()
