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
from test_limits_collision import robot_named, talos_limit

import taskik
from taskik import geometry
from taskik.geometry.scene import _PLACED_FOR, CollisionScene
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
    """Random velocities within the model's limits (large, changing steps; the Panda among
    obstacles that move and turn): at every step the running bounds stay below coal's
    distances, the pairs within their threshold all get rows, and most pairs cost no GJK
    (the bound skips them)."""
    excess, missed, skipped, joint = loop_violations(robot_named(name), steps=80)
    assert excess <= 1e-6 and missed == 0
    assert skipped > 0.5  # the bound does skip pairs, not only the check above
    if name == "panda":  # (its bounds mostly lowered in joint space; Talos's random motion
        # screens pairs at every step: its bounds come from the shapes' moves, placed anyway)
        assert joint > 40


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


def turning_rod(with_q: bool, lever_scale: float = 1.0) -> tuple[bool, int]:
    """The rod turns about its centre (which does not move) until its tip meets a ball 3 cm
    off the tip's circle, at 6 mm per step. Returns whether the tip came within the
    detection distance, and the steps at which a pair within its threshold went without
    rows. ``with_q``: the bounds lowered in joint space (its lever about the joint is the
    bounding sphere's radius, which the tip reaches: tight), else from the placements;
    ``lever_scale`` scales that lever."""
    ball = geometry.sphere("ball", 0.03, [0.0, 0.26, 0.0])
    model, scene = rod_scene([ball])
    scene._levers.P *= lever_scale
    conf = taskik.Configuration(model, np.zeros(1))
    met, missed = False, 0
    for step in range(60):
        conf.update(np.array([step * 0.03]))  # up to 1.8 rad (the ball is at π / 2)
        q = conf.q if with_q else None
        near = scene.near_rows(conf.data, 0.05, step=conf.q.tobytes(), q=q)
        truth = direct_distances(scene)
        met |= bool(truth[0] < 0.05)
        missed += int(truth[0] < scene._screen[1][0] - 1e-6 and 0 not in near.pairs)
        if lever_scale == 1.0:
            check_bounds(scene, near.pairs)
    return met, missed


@pytest.mark.parametrize("with_q", [True, False])
def test_a_turning_rod_whose_centre_stays_put_is_seen_coming(with_q):
    """The bound must count the rotation (the joint's lever, or r ‖R − R_before‖ from the
    placements), or the pair, measured far once, would be skipped while the tip sweeps
    into the ball."""
    assert turning_rod(with_q) == (True, 0)


def test_levers_half_too_short_let_a_pair_within_its_threshold_go_unseen():
    """With the rod's lever halved, the pair is skipped while the tip is within the
    detection distance: the property the loops check catches a lever too short."""
    met, missed = turning_rod(True, lever_scale=0.5)
    assert met and missed > 0


@pytest.mark.parametrize("with_q", [True, False])
def test_moving_and_turning_obstacles_are_seen_coming(with_q):
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
        near = scene.near_rows(conf.data, 0.05, step=step, q=conf.q if with_q else None)
        met |= check_bounds(scene, near.pairs) < 0.05
    assert met.all()


def exotic_scene():
    """A free-flyer carrying a branch of each joint kind the levers bound (revolute,
    prismatic, spherical, unbounded revolute; ZYX spherical, unaligned prismatic and
    revolute) and a planar joint, below which the levers are unbounded; a shape on every
    body, every pair of shapes on different bodies watched."""
    model = pin.Model()
    inertia = pin.Inertia.FromSphere(1.0, 0.05)
    shapes = []

    def add(parent, joint, where, name, shape):
        j = model.addJoint(parent, joint, pin.SE3(np.eye(3), np.array(where)), name)
        model.appendBodyToJoint(j, inertia, pin.SE3.Identity())
        shapes.append((j, shape))
        return j

    base = add(0, pin.JointModelFreeFlyer(), [0, 0, 0], "base", coal.Box(0.1, 0.2, 0.05))
    j = add(base, pin.JointModelRX(), [0.0, 0.0, 0.15], "rx", coal.Capsule(0.02, 0.1))
    j = add(j, pin.JointModelPZ(), [0.1, 0.0, 0.0], "pz", coal.Sphere(0.03))
    j = add(j, pin.JointModelSpherical(), [0.0, 0.1, 0.0], "ball", coal.Cylinder(0.02, 0.1))
    add(j, pin.JointModelRUBZ(), [0.1, 0.0, 0.0], "rubz", coal.Box(0.05, 0.02, 0.1))
    j = add(base, pin.JointModelRY(), [0.0, 0.2, 0.0], "ry", coal.Capsule(0.02, 0.15))
    j = add(j, pin.JointModelSphericalZYX(), [0.15, 0.0, 0.0], "zyx", coal.Sphere(0.04))
    axis = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)
    j = add(j, pin.JointModelPrismaticUnaligned(axis), [0, 0, 0.1], "slide", coal.Sphere(0.02))
    add(j, pin.JointModelRevoluteUnaligned(axis), [0.1, 0, 0], "turn", coal.Capsule(0.01, 0.1))
    j = add(base, pin.JointModelPlanar(), [-0.2, 0.0, 0.0], "planar", coal.Sphere(0.03))
    add(j, pin.JointModelRZ(), [0.1, 0.0, 0.0], "below", coal.Box(0.04, 0.04, 0.04))
    for name in ("pz", "slide"):  # ranges of ±0.1 m (a configuration may leave them)
        k = model.joints[model.getJointId(name)].idx_q
        model.lowerPositionLimit[k], model.upperPositionLimit[k] = -0.1, 0.1
    gm = pin.GeometryModel()
    for k, (joint, shape) in enumerate(shapes):
        placement = pin.SE3(pin.utils.rotate("x", 0.3 * k), np.array([0.02 * k, 0.01, 0.0]))
        gm.addGeometryObject(pin.GeometryObject(f"s{k}", joint, placement, shape))
    pairs = [(a, b) for a in range(len(shapes)) for b in range(a + 1, len(shapes))]
    return model, CollisionScene(model, gm, pairs, [geometry.sphere("ball", 0.05, [0.3, 0, 0])])


def test_the_joint_levers_bound_how_much_closer_any_motion_brings_a_pair():
    """For random motions of every size (small steps, large ones, teleports, prismatic
    joints beyond their ranges) of a model with every kind of joint, every pair's distance
    falls by at most ``P @ |q ⊖ q_before|``; the pairs of the planar joint's shapes with the
    obstacle (its translation is unbounded) are marked unbounded; and the bound is tight enough that
    halving the levers breaks it on the same motions."""
    model, scene = exotic_scene()
    names = [o.name for o in scene.geometry_model.geometryObjects]
    # the planar joint's shapes against the obstacle: the free-flyer's rotation turns them
    # about a point the planar joint may have slid any distance from (against the robot's
    # other shapes, the free-flyer moves both and cancels)
    below = {names.index("s9"), names.index("s10")}
    ball = names.index("ball")
    expected = np.array([int(a) in below and int(b) == ball for a, b in scene.pairs])
    rng = np.random.default_rng(3)
    worst, halved = -np.inf, 0
    for trial in range(60):
        q0 = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        scale = (0.01, 0.1, 1.0, 5.0)[trial % 4]
        q1 = pin.integrate(model, q0, scale * rng.standard_normal(model.nv))
        d = []
        for q in (q0, q1):
            conf = taskik.Configuration(model, q)
            d.append(scene.distances(conf.data, 0.0, all_pairs=True, q=q).distance)
        step = np.abs(pin.difference(model, q0, q1))
        bound = scene._levers.P @ step  # (its ranges cover q0 and q1)
        fall = (d[0] - d[1])[~expected]
        worst = max(worst, float(np.max(fall - bound[~expected])))
        halved += int(np.sum(fall > 0.5 * bound[~expected] + 1e-6))
    np.testing.assert_array_equal(scene._levers.unbounded, expected)
    assert worst <= 1e-6
    assert halved > 0


def loop_violations(robot, lever_scale=1.0, teleport=(), steps=60):
    """A random loop within the velocity limits (large, changing steps; CollisionLimit's
    checked steps; the Panda among a ball and a crate moving and turning at 0.3 m/s and
    2 rad/s): per step, check_bounds' properties counted instead of asserted. Returns the
    largest excess of a bound over coal's distance, the count of pairs within their
    threshold left without rows, the median share of pairs the bound skipped, and the steps
    whose bounds were lowered in joint space (the others: by the shapes' moves).
    ``lever_scale`` scales the joints' levers; ``teleport``: the steps after which q jumps
    to a random configuration (a user setting q between steps)."""
    obstacles = []
    conf = robot.configuration()
    if robot.name == "panda":
        hand = conf.get_transform_frame_to_world("panda_hand").translation
        obstacles = [
            geometry.sphere("ball", 0.05, hand + [0.1, 0.0, 0.0]),
            geometry.box("crate", [0.1, 0.2, 0.05], hand + [0.0, 0.15, -0.1]),
        ]
    talos = robot.name == "talos"  # (its hulls computed once)
    limit = talos_limit() if talos else CollisionLimit(robot, obstacles=obstacles)
    scene = limit.scene
    scene._levers.P *= lever_scale
    rng = np.random.default_rng(7)
    v_max = np.minimum(np.asarray(robot.model.velocityLimit), 3.0)
    low, high = robot.model.lowerPositionLimit, robot.model.upperPositionLimit
    excess, missed, skipped, joint = -np.inf, 0, [], 0
    for step in range(steps):
        for k, o in enumerate(obstacles):
            angle = 2.0 * step * DT + k
            centre = hand + [0.1 * np.cos(angle), 0.1 * np.sin(angle), -0.05 * k]
            o.move_to(pin.SE3(pin.utils.rotate("z", angle), centre))
        limit.expect_check()
        limit.compute_inequalities(conf, DT)
        joint += scene._joint_mode
        truth = direct_distances(scene)
        threshold = scene._screen[1]
        excess = max(excess, float(np.max(scene._lower - truth)))
        inside = truth < threshold - 1e-6
        given = np.zeros(len(truth), dtype=bool)
        given[limit._last.pairs] = True
        missed += int(np.sum(inside & ~given))
        skipped.append(np.mean(scene._lower >= threshold))
        if step in teleport:
            q = pin.randomConfiguration(robot.model, np.maximum(low, -3), np.minimum(high, 3))
        else:
            scale = 0.2 if step % 20 < 10 else 1.0
            v = rng.uniform(-1.0, 1.0, robot.model.nv) * v_max * scale
            q = np.clip(pin.integrate(robot.model, conf.q, v * DT), low, high)
        conf.update(q)
    return excess, missed, float(np.median(skipped)), joint


def teleport_misses(robot, lever_scale: float) -> int:
    """Steps at q0, then the user sets q to a far configuration whose hand is near a ball
    (a teleport: no step between); the pairs within their threshold left without rows at
    that step."""
    conf = robot.configuration()
    far = np.clip(
        robot.q0 + np.array([1.2, 0.6, 0.0, 0.6, 0.0, -0.4, 0.0]),
        robot.model.lowerPositionLimit,
        robot.model.upperPositionLimit,
    )
    at_far = taskik.Configuration(robot.model, far)
    hand = at_far.get_transform_frame_to_world("panda_hand").translation
    ball = geometry.sphere("ball", 0.03, hand + [0.0, 0.0, -0.2])
    limit = CollisionLimit(robot, obstacles=[ball])
    assert limit.clearance(conf) > 0.2  # (the ball is far at q0)
    for _ in range(_PLACED_FOR + 3):  # (the first steps place every shape)
        limit.expect_check()
        limit.compute_inequalities(conf, DT)
    limit.scene._levers.P *= lever_scale
    conf.update(far)
    limit.expect_check()
    limit.compute_inequalities(conf, DT)
    assert limit.scene._joint_mode  # (the bounds were lowered in joint space)
    truth = direct_distances(limit.scene)
    assert truth.min() < limit.detection_distance  # (and near at the far configuration)
    inside = truth < limit.scene._screen[1] - 1e-6
    inside[limit._last.pairs] = False
    return int(inside.sum())


def test_a_configuration_set_far_between_steps_lowers_the_bounds(panda):
    """A user sets q to a far configuration between steps (a teleport): the bounds drop
    with the joints' motion (``P @ |q ⊖ q_before|``) and the pair now near gets its row;
    with the levers zeroed (no drop) it would not."""
    assert teleport_misses(panda, 1.0) == 0
    assert teleport_misses(panda, 0.0) > 0


def test_a_joint_of_another_kind_leaves_its_pairs_measured_at_every_step():
    """A helical joint (a screw: neither turning about a fixed point nor sliding alone) has
    no lever: the pairs of the shapes it moves, against another body, are unbounded and are
    measured (their bound reset) at every evaluation lowered in joint space; the others keep
    their joint-space bound."""
    model = pin.Model()
    inertia = pin.Inertia.FromSphere(1.0, 0.05)
    turn = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "turn")
    model.appendBodyToJoint(turn, inertia, pin.SE3.Identity())
    where = pin.SE3(np.eye(3), np.array([0.3, 0.0, 0.0]))
    screw = model.addJoint(turn, pin.JointModelHX(0.05), where, "screw")
    model.appendBodyToJoint(screw, inertia, pin.SE3.Identity())
    gm = pin.GeometryModel()
    gm.addGeometryObject(pin.GeometryObject("arm", turn, pin.SE3.Identity(), coal.Sphere(0.05)))
    gm.addGeometryObject(pin.GeometryObject("tip", screw, pin.SE3.Identity(), coal.Sphere(0.03)))
    scene = CollisionScene(model, gm, [], [geometry.sphere("ball", 0.05, [0.0, 0.8, 0.0])])
    unbounded = [scene.names[k] for k in np.flatnonzero(scene._levers.unbounded)]
    assert unbounded == ["tip / ball"]
    conf = taskik.Configuration(model, np.zeros(2))
    for step in range(_PLACED_FOR + 4):
        conf.update(np.array([0.01 * step, 0.02 * step]))
        scene.near_rows(conf.data, 0.05, step=step, q=conf.q)
        lowered = scene._joint_mode
    assert lowered  # (the last evaluations were lowered in joint space)
    truth = direct_distances(scene)
    assert np.all(scene._lower <= truth + 1e-6) and np.isfinite(scene._lower).all()
    conf.update(np.array([0.2, 0.3]))  # the next evaluation: the tip's bound is reset
    scene._advance(conf.data, conf.q)
    tip = scene.names.index("tip / ball")
    assert scene._joint_mode and scene._lower[tip] == -np.inf
    assert np.isfinite(np.delete(scene._lower, tip)).all()
