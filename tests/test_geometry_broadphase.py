"""The broadphase of CollisionScene: bounding capsules that contain their shapes, the distance
between segments, and lower bounds on the distances that let GJK run on the pairs that may be
near only; the distances it keeps equal a direct coal computation."""

from __future__ import annotations

import coal
import numpy as np
import pinocchio as pin
import pytest
from test_geometry import every_obstacle_kind
from test_limits_collision import robot_named, talos, talos_limit

import taskik
from taskik import geometry
from taskik.geometry.scene import _bounding_capsule, _segment_distances
from taskik.limits.collision import CollisionLimit

DT = 0.01


def brute_segment_distance(p1, q1, p2, q2, n=401):
    s = np.linspace(0.0, 1.0, n)
    a = p1 + np.outer(s, q1 - p1)
    b = p2 + np.outer(s, q2 - p2)
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)).min()


def test_segment_distances_match_a_dense_search():
    rng = np.random.default_rng(0)
    p1, q1, p2, q2 = (rng.standard_normal((60, 3)) for _ in range(4))
    q1[:10] = p1[:10]  # points
    q2[5:15] = p2[5:15]
    q2[20:30] = p2[20:30] + 2.0 * (q1[20:30] - p1[20:30])  # parallel
    p2[30:35] = p1[30:35] + 0.5 * (q1[30:35] - p1[30:35])  # crossing
    q2[30:35] = p2[30:35] + rng.standard_normal((5, 3))
    fast = _segment_distances(p1, q1, p2, q2)
    for k in range(60):
        slow = brute_segment_distance(p1[k], q1[k], p2[k], q2[k])
        # the dense search is within half a sample of the exact distance, above it
        assert fast[k] <= slow + 1e-12 and fast[k] >= slow - 0.02, k


def shape_points(shape, rng):
    """Points on the surface of ``shape`` (its own frame)."""
    u = rng.standard_normal((400, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    if isinstance(shape, coal.Box):
        h = np.asarray(shape.halfSide)
        return np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    if isinstance(shape, coal.Capsule):
        return u * shape.radius + np.outer(np.sign(u[:, 2]), [0, 0, shape.halfLength])
    if isinstance(shape, coal.Cylinder):
        rim = u[:, :2] / np.linalg.norm(u[:, :2], axis=1, keepdims=True) * shape.radius
        return np.column_stack([rim, np.sign(u[:, 2]) * shape.halfLength])
    if isinstance(shape, coal.Sphere):
        return u * shape.radius
    return np.asarray(shape.points(), dtype=float)


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_bounding_capsules_contain_their_shapes(name):
    robot = robot_named(name)
    shapes = [o.geometry for o in geometry.convexify(robot.collision_model).geometryObjects]
    shapes += [o.geometry for o in every_obstacle_kind(np.zeros(3)) if o.kind != "halfspace"]
    rng = np.random.default_rng(1)
    for shape in shapes:
        shape.computeLocalAABB()
        capsule = _bounding_capsule(shape, np.asarray(shape.aabb_center), shape.aabb_radius)
        points = shape_points(shape, rng)
        k = len(points)
        gap = _segment_distances(
            np.tile(capsule[0], (k, 1)), np.tile(capsule[1], (k, 1)), points, points
        )
        assert gap.max() <= capsule[2, 0] + 1e-9, type(shape).__name__


def direct_distances(scene: geometry.CollisionScene) -> np.ndarray:
    """Every pair's distance by coal.distance on the shapes placed at the scene's last
    evaluation (its own placements are made only when GJK runs: placed here), with the
    scene's requests."""
    gm, gd = scene.geometry_model, scene.geometry_data
    if scene._data is not None:
        pin.updateGeometryPlacements(scene.model, scene._data, gm, gd)
    out = np.empty(len(scene.pairs))
    for k, (a, b) in enumerate(scene.pairs):
        A, B = gd.oMg[int(a)], gd.oMg[int(b)]
        out[k] = coal.distance(
            gm.geometryObjects[int(a)].geometry,
            coal.Transform3s(A.rotation, A.translation),
            gm.geometryObjects[int(b)].geometry,
            coal.Transform3s(B.rotation, B.translation),
            gd.distanceRequests[k],
            coal.DistanceResult(),
        )
    return out


def check_step(limit, conf, calls=None):
    """The near pairs are exactly those a direct coal computation finds within d_i (to
    1e-6 m), with the same distances; returns (near pairs, GJK calls of the step)."""
    before = calls[0] if calls else 0
    near = limit.distances(conf)
    gjk = (calls[0] - before) if calls else 0
    truth = direct_distances(limit.scene)
    inside = truth < limit.detection_distance - 1e-6
    outside = truth > limit.detection_distance + 1e-6
    found = np.zeros(len(truth), dtype=bool)
    found[near.pairs] = True
    assert not np.any(inside & ~found) and not np.any(outside & found)
    np.testing.assert_allclose(near.distance, truth[near.pairs], rtol=0, atol=1e-6)
    return len(near.pairs), gjk


def test_talos_loop_near_pairs_and_distances_equal_coal_and_gjk_follows_the_near_pairs(
    monkeypatch,
):
    """Along a closed loop (right hand to the left hip), every step: the pairs kept and their
    distances are coal's; and GJK runs on about as many pairs as are near (29), not on the
    110 candidates of bounding spheres nor on the 882 pairs monitored."""
    robot = talos()
    conf = robot.configuration()
    limit = talos_limit()
    calls = [0]
    compute = pin.computeDistance

    def counting(*args):
        calls[0] += 1
        return compute(*args)

    monkeypatch.setattr(pin, "computeDistance", counting)
    tasks = []
    for frame in robot.end_effectors[:2]:
        foot = taskik.FrameTask(frame, 1.0, 1.0)
        foot.set_target_from_configuration(conf)
        tasks.append(foot)
    hand = taskik.PositionTask("gripper_right_base_link", 1.0)
    hip = conf.get_transform_frame_to_world("leg_left_1_link").translation
    hand.set_target(hip + [0.25, 0.0, 0.05])
    posture = taskik.PostureTask(1e-2)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    counts = []
    for step in range(120):
        v = taskik.solve_ik(conf, [*tasks, hand, posture], DT, limits)
        conf.integrate_inplace(v, DT)
        near, gjk = check_step(limit, conf, calls)
        if step >= 10:
            counts.append((near, gjk))
    near, gjk = np.array(counts).T
    assert near.min() > 5  # pairs were near
    assert np.median(gjk) <= 1.5 * np.median(near) + 3


def test_moving_obstacles_of_every_kind_near_pairs_equal_coal():
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand").translation
    obstacles = every_obstacle_kind(hand)
    limit = CollisionLimit(robot, obstacles=obstacles)
    start = [o.pose.translation.copy() for o in obstacles]
    rng = np.random.default_rng(4)
    for step in range(80):
        for o, p in zip(obstacles, start, strict=True):
            if o.kind != "halfspace":  # each moves on a circle, 0.3 m/s
                angle = 3.0 * step * DT
                o.move_to(
                    pin.SE3(o.pose.rotation, p + 0.1 * np.array([np.cos(angle), np.sin(angle), 0]))
                )
        v = rng.standard_normal(robot.model.nv) * 0.5
        conf.integrate_inplace(v, DT)
        check_step(limit, conf)


def test_the_linear_approach_bound_equals_the_per_column_one():
    """``ApproachBound`` (common ancestors' columns from one product) gives the value of
    ``approach_bounds`` (every pair × every column) on Talos's 882 pairs and an obstacle."""
    from taskik.geometry.bounds import ApproachBound, approach_bounds
    from taskik.geometry.scene import _joint_jacobians

    robot = talos()
    limit = talos_limit(obstacles=[geometry.sphere("ball", 0.05, [0.4, 0.0, 1.0])])
    scene = limit.scene
    fast = ApproachBound(scene._support, scene._joint_of, scene.pairs, robot.model.parents)
    conf = robot.configuration()
    rng = np.random.default_rng(1)
    for _ in range(3):
        conf.update(pin.randomConfiguration(robot.model))
        scene._place(conf.data)
        centres, _ = scene._world_centres()
        J = _joint_jacobians(conf.data, robot.model.nv)
        travel = rng.uniform(0.0, 0.02, robot.model.nv)
        support = scene._support[scene._joint_of]
        slow = approach_bounds(J, centres, scene._radii, support, scene.pairs, travel)
        assert np.abs(fast(J, centres, scene._radii, travel) - slow).max() <= 1e-12
        some = np.array([0, 5, len(scene.pairs) - 1])
        part = fast(J, centres, scene._radii, travel, which=some)
        assert np.abs(part - slow[some]).max() <= 1e-12


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_the_relative_approach_bounds_how_fast_every_pair_closes(name):
    """``relative_approach``: over a short step along random velocities (all columns,
    the free-flyer's too), no pair's distance falls faster than the bound (first order), and
    the bound is not vacuous: on a chain, for some pair it is within a factor 10 of the rate
    measured."""
    from taskik.geometry.bounds import relative_approach
    from taskik.geometry.scene import _joint_jacobians

    robot = robot_named(name)
    model = robot.model
    ball = geometry.sphere("ball", 0.05, [0.5, 0.1, 0.4])
    options = {"obstacles": [ball]}
    limit = talos_limit(**options) if name == "talos" else CollisionLimit(robot, **options)
    scene = limit.scene
    conf = robot.configuration()
    rng = np.random.default_rng(5)
    eps = 1e-4
    tight = np.inf
    for _ in range(3):
        q = pin.randomConfiguration(model)
        if model.joints[1].nq == 7:  # (a free-flyer near the origin)
            q[:3] = rng.uniform(-0.1, 0.1, 3)
        conf.update(q)
        before = scene.distances(conf.data, 0.0, all_pairs=True)
        centres, _ = scene._world_centres()
        J = _joint_jacobians(conf.data, model.nv)
        support = scene._support.astype(float)
        for _ in range(4):
            v = rng.standard_normal(model.nv)
            bound = relative_approach(
                J, v, support, scene._joint_of, centres, scene._radii, scene.pairs
            )
            conf.update(pin.integrate(model, q, v * eps))
            after = scene.distances(conf.data, 0.0, all_pairs=True)
            rate = (before.distance - after.distance) / eps
            # (GJK's and EPA's tolerances, 1e-7 m, over the step: 2e-3 m/s)
            bad = np.flatnonzero(rate > bound * 1.01 + 2e-3)
            assert not len(bad), (rate[bad], bound[bad], before.distance[bad])
            closing = rate > 1e-2
            if closing.any():
                tight = min(tight, float((bound[closing] / rate[closing]).min()))
            conf.update(q)
        if model.joints[1].nq == 7:  # the base alone moves every body alike: no pair closes
            v = np.zeros(model.nv)
            v[:6] = rng.standard_normal(6)
            bound = relative_approach(
                J, v, support, scene._joint_of, centres, scene._radii, scene.pairs
            )
            assert bound[scene.pairs[:, 1] < scene.n_robot].max() <= 1e-9
    assert tight < 10.0


def test_the_relative_approach_is_tight_for_a_turning_rod():
    """A rod of length 0.4 m turning about its middle at 1 rad/s, its tip heading for a ball:
    the tip closes at 0.2 m/s; the bound (the rod's bounding sphere, radius ≈ 0.21 m, times
    the turn rate) holds and is within 10 % of it: a factor on the turning term shows."""
    import coal

    from taskik.geometry.bounds import relative_approach
    from taskik.geometry.scene import CollisionScene, _joint_jacobians

    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "turn")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.1), pin.SE3.Identity())
    along_x = pin.SE3(pin.utils.rotate("y", np.pi / 2), np.zeros(3))
    rod = pin.GeometryObject("rod", joint, along_x, coal.Capsule(0.01, 0.4))
    geometry_model = pin.GeometryModel()
    geometry_model.addGeometryObject(rod)
    ball = geometry.sphere("ball", 0.03, [0.2, 0.08, 0.0])
    scene = CollisionScene(model, geometry_model, [], [ball])
    conf = taskik.Configuration(model, np.zeros(1))
    eps = 1e-4
    before = scene.distances(conf.data, 0.0, all_pairs=True).distance
    centres, _ = scene._world_centres()
    J = _joint_jacobians(conf.data, 1)
    v = np.ones(1)
    support = scene._support.astype(float)
    bound = relative_approach(J, v, support, scene._joint_of, centres, scene._radii, scene.pairs)
    conf.update(pin.integrate(model, np.zeros(1), v * eps))
    rate = (before - scene.distances(conf.data, 0.0, all_pairs=True).distance) / eps
    assert rate[0] == pytest.approx(0.2, rel=0.02)
    assert rate[0] <= bound[0] <= 1.1 * rate[0]
