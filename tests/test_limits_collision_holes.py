"""CollisionLimit and taskik.geometry on inputs nobody tuned them for: a half-space table,
the second-order loss of fast steps, degenerate meshes, non-finite and duplicated inputs,
obstacles changed in place, malformed poses, a geometry model of another robot, row names
after the scene changed, and obstacles very far away."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import geometry
from taskik.limits.collision import CollisionLimit

DT = 0.01


def closest(limit: CollisionLimit, conf: taskik.Configuration) -> float:
    return float(limit.distances(conf, all_pairs=True).distance.min())


def panda_pressing_on(table: geometry.Obstacle, episodes: int = 4) -> float:
    """The Panda's hand (position only) sent 0.55 m down, through ``table``, to random places:
    links slide along the table at the joints' velocity limits. The closest distance (m)."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    limit = CollisionLimit(robot, obstacles=[table])
    task = taskik.FrameTask("panda_hand", 1.0, 0.0)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    rng = np.random.default_rng(0)
    low = np.inf
    for _ in range(episodes):
        target = hand.copy()
        target.translation = hand.translation + [*rng.uniform(-0.4, 0.4, 2), -0.55]
        task.set_target(target)
        for _ in range(150):
            v = taskik.solve_ik(conf, [task, posture], DT, limits)
            conf.integrate_inplace(v, DT)
            low = min(low, closest(limit, conf))
    return low


# ------------------------------------------------------------------------------ half-space
def test_a_half_space_table_keeps_the_safety_distance():
    """The table as a half-space had no tilt rows (its bounding radius is 0): a link went to
    1.8 mm of it for d_s = 10 mm, where the same table as a box kept its distance."""
    low = panda_pressing_on(geometry.halfspace("table", [0.0, 0.0, 1.0], 0.2))
    assert low >= 0.01 - 1e-4


def test_a_box_table_keeps_the_safety_distance_at_full_joint_speed():
    """Held at the edge of the buffer, a link swung at the velocity limits lost ~0.17 mm a step
    to the curvature of its path (second order, which the rows do not see), and ended 9.84 mm
    from the box for d_s = 10 mm: the last step's loss is now asked back."""
    low = panda_pressing_on(geometry.box("table", [2.0, 2.0, 0.2], [0.3, 0.0, 0.1]))
    assert low >= 0.01 - 1e-4


def test_every_pair_of_a_flat_or_long_shape_has_a_lever():
    """Tilt rows (a lever ℓ > 0) for every pair but those with a sphere (point contacts)."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) * 0.1
    hand = conf.get_transform_frame_to_world("panda_hand").translation
    obstacles = [
        geometry.sphere("sphere", 0.05, hand + [0.2, 0.0, 0.0]),
        geometry.capsule("capsule", 0.04, 0.2, hand + [0.0, 0.2, 0.0]),
        geometry.box("box", [0.1, 0.2, 0.05], hand + [-0.2, 0.0, 0.0]),
        geometry.cylinder("cylinder", 0.05, 0.1, hand + [0.0, -0.2, 0.0]),
        geometry.halfspace("floor", [0.0, 0.0, 1.0], 0.0),
        geometry.mesh("mesh", cube, [[0, 1, 2]], hand + [0.0, 0.0, 0.3]),
    ]
    limit = CollisionLimit(robot, obstacles=obstacles, self_collision=False)
    every = limit.distances(conf, all_pairs=True)
    for k, pair in enumerate(every.pairs):
        obstacle = limit.pair_names[pair].split(" / ")[1]
        robot_shape = limit.scene.geometry_model.geometryObjects[int(limit.scene.pairs[pair, 0])]
        point_contact = obstacle == "sphere" or type(robot_shape.geometry).__name__ == "Sphere"
        assert (every.lever[k] == 0) == point_contact, limit.pair_names[pair]
        assert np.isfinite(every.lever[k])


def test_the_last_steps_second_order_loss_is_asked_back():
    """h = k (d − d_s − buffer) − loss / dt, loss = clip(−(d₁ − d₀ − g₀·(q₁ ⊖ q₀)), 0, buffer):
    the distance the pair lost in the last step beyond its first-order prediction."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.08, tool + [0.0, 0.13, 0.0])
    rng = np.random.default_rng(2)
    seen = 0
    for _ in range(20):
        limit = CollisionLimit(robot, obstacles=[ball], self_collision=False)
        start = robot.configuration()
        limit.compute_inequalities(start, DT)
        before = limit.distances(start)
        v = rng.standard_normal(robot.model.nv) * 2.0
        moved = robot.configuration(pin.integrate(robot.model, start.q, v * DT))
        _, h = limit.compute_inequalities(moved, DT)
        after = limit.distances(moved)
        common, now, then = np.intersect1d(after.pairs, before.pairs, return_indices=True)
        predicted = before.distance[then] + before.gradient[then] @ (v * DT)
        loss = np.clip(predicted - after.distance[now], 0.0, limit.buffer)
        damper = limit.rate(DT) * (after.distance - limit.safety_distance - limit.buffer)
        expected = damper.copy()
        expected[now] -= loss / DT
        reach = 0.5 * (np.abs(after.gradient) @ robot.model.velocityLimit)
        expected = np.maximum(expected, -np.minimum(limit.speed, reach))
        np.testing.assert_allclose(h[: len(after.pairs)], expected, rtol=1e-9, atol=1e-12)
        seen += int(np.any(loss > 1e-6) and len(common) > 0)
    assert seen >= 3  # the loss was at work, not zero every time
