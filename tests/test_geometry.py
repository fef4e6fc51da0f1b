"""Collision geometry: obstacles, fitted capsules, self-collision pairs, the broadphase, and
distance gradients checked against finite differences of the distance."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import geometry
from taskik.exceptions import InvalidInput, UnknownName


def tight(scene: geometry.CollisionScene) -> geometry.CollisionScene:
    """GJK/EPA to 1e-10 so that finite differences of the distance are meaningful."""
    for request in scene.geometry_data.distanceRequests:
        request.gjk_tolerance = 1e-10
        request.epa_tolerance = 1e-10
    return scene


def every_obstacle_kind(centre: np.ndarray) -> list[geometry.Obstacle]:
    R = pin.rpy.rpyToMatrix(0.3, -0.2, 0.5)
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) * 0.1
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
             [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]  # fmt: skip
    return [
        geometry.sphere("sphere", 0.05, centre + [0.25, 0.0, 0.0]),
        geometry.capsule("capsule", 0.04, 0.2, pin.SE3(R, centre + [0.0, 0.25, 0.0])),
        geometry.box("box", [0.1, 0.2, 0.05], pin.SE3(R, centre + [-0.25, 0.0, 0.0])),
        geometry.cylinder("cylinder", 0.05, 0.1, pin.SE3(R.T, centre + [0.0, -0.25, 0.0])),
        geometry.halfspace("floor", [0.0, 0.0, 1.0], -0.05),
        geometry.mesh("mesh", cube, faces, centre + [0.0, 0.0, 0.3]),
    ]


def fd_check(model, scene, q, rng, near=0.6, eps=1e-5, rtol=1e-5, atol=1e-5):
    """∂d/∂q·v of every near pair against central differences of the distance."""
    v = rng.standard_normal(model.nv)
    conf = taskik.Configuration(model, q)
    at = scene.distances(conf.data, near)
    assert len(at.pairs) > 0, "no pair to check"
    plus = taskik.Configuration(model, pin.integrate(model, q, eps * v))
    minus = taskik.Configuration(model, pin.integrate(model, q, -eps * v))
    d_plus = scene.distances(plus.data, near, all_pairs=True).distance[at.pairs]
    d_minus = scene.distances(minus.data, near, all_pairs=True).distance[at.pairs]
    fd = (d_plus - d_minus) / (2 * eps)
    np.testing.assert_allclose(at.gradient @ v, fd, rtol=rtol, atol=atol)
    return at


# ------------------------------------------------------------------------------ shapes
def test_obstacles_are_placed_and_moved():
    ball = geometry.sphere("ball", 0.1, [1.0, 2.0, 3.0])
    assert np.allclose(ball.pose.translation, [1, 2, 3]) and ball.kind == "sphere"
    ball.move_to(np.eye(4))
    assert np.allclose(ball.pose.translation, 0) and ball.version == 1
    assert "ball" in repr(ball)


def test_moving_an_obstacle_to_a_position_keeps_its_orientation():
    """``move_to(position)`` used to reset the rotation: a turned box moved 5 mm snapped
    axis-aligned (a capsule 33.5 mm from a link reached it in one step)."""
    turned = pin.SE3(pin.utils.rpyToMatrix(0.3, -0.4, 1.1), np.array([0.5, 0.0, 0.2]))
    slab = geometry.box("slab", [0.4, 0.1, 0.02], turned)
    slab.move_to(turned.translation + [0.005, 0.0, 0.0])
    assert np.allclose(slab.pose.rotation, turned.rotation, atol=1e-15)
    assert np.allclose(slab.pose.translation, [0.505, 0.0, 0.2])
    slab.move_to(pin.SE3.Identity())  # a whole pose sets the orientation too
    assert np.allclose(slab.pose.rotation, np.eye(3)) and slab.version == 2


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: geometry.sphere("s", -0.1), "radius"),
        (lambda: geometry.sphere("s", 0.1, [np.nan, 0, 0]), "pose"),
        (lambda: geometry.box("b", [0.1, 0.0, 0.1]), "positive"),
        (lambda: geometry.halfspace("h", [0, 0, 0]), "non-zero"),
        (lambda: geometry.capsule("c", 0.1, 0.2, np.diag([1.0, 1.0, -1.0, 1.0])), "rotation"),
        (lambda: geometry.mesh("m", np.zeros((3, 3)), [[0, 1, 2]]), "k ≥ 4"),
        (lambda: geometry.mesh("m", np.eye(4, 3), [[0, 1, 9]]), "outside"),
        (lambda: geometry.sphere("", 0.1), "name"),
    ],
)
def test_bad_obstacles_are_named(make, message):
    with pytest.raises(InvalidInput, match=message):
        make()


# ------------------------------------------------------------------------------ the robot
def test_fitted_capsules_follow_the_links():
    robot = taskik.robots.load("planar_3r")
    capsules = geometry.fit_capsules(robot.model, 0.05)
    lengths = sorted(2 * obj.geometry.halfLength for obj in capsules.geometryObjects)
    assert np.allclose(lengths, [0.5, 0.7, 1.0])  # links of 1.0, 0.7 m and 0.5 m to ``ee``
    assert all(obj.geometry.radius == 0.05 for obj in capsules.geometryObjects)


@pytest.mark.parametrize("name", ["ur5", "panda", "humanoid", "planar_2r", "talos"])
def test_every_robot_carries_collision_geometry(name):
    robot = taskik.robots.load(name)
    assert isinstance(robot.collision_model, pin.GeometryModel)
    assert len(robot.collision_model.geometryObjects) >= 2


def test_default_pairs_account_for_every_candidate():
    robot = taskik.robots.load("talos")
    hulls = geometry.convexify(robot.collision_model)
    sel = geometry.self_collision_pairs(robot.model, hulls, robot.q0, robot.srdf, 0.01)
    assert sel.srdf > 0 and sel.adjacent > 0
    assert len(sel.pairs) + sel.adjacent + sel.srdf + sel.in_contact == sel.all_pairs
    assert f"{len(sel.pairs)} self-collision pairs kept of {sel.all_pairs}" in str(sel)
    # no kept pair is adjacent
    parents = [robot.collision_model.geometryObjects[i].parentJoint for i in range(hulls.ngeoms)]
    for a, b in sel.pairs:
        ja, jb = parents[a], parents[b]
        assert ja != jb and robot.model.parents[ja] != jb and robot.model.parents[jb] != ja


def test_pairs_in_contact_at_the_reference_are_left_out():
    robot = taskik.robots.load("humanoid")
    sel = geometry.self_collision_pairs(robot.model, robot.collision_model, robot.q0, None, 0.01)
    scene = geometry.CollisionScene(robot.model, robot.collision_model, sel.pairs)
    conf = robot.configuration()
    assert sel.in_contact > 0
    assert scene.distances(conf.data, 1.0, all_pairs=True).distance.min() > 0.01


def test_a_missing_srdf_is_named():
    robot = taskik.robots.load("ur5")
    with pytest.raises(InvalidInput, match="SRDF file not found"):
        geometry.self_collision_pairs(robot.model, robot.collision_model, robot.q0, "/nope.srdf")


# ------------------------------------------------------------------------------ distances
def test_signed_distance_is_negative_in_penetration():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    scene = geometry.CollisionScene(
        robot.model, robot.collision_model, (), [geometry.sphere("b", 0.1, tool)]
    )
    d = scene.distances(conf.data, 0.05, all_pairs=True).distance
    assert d.min() < -0.05


@pytest.mark.parametrize("name", ["ur5", "panda", "humanoid"])
def test_distance_gradient_matches_finite_differences_for_every_shape(name):
    robot = taskik.robots.load(name)
    rng = np.random.default_rng(3)
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world(robot.end_effectors[-1]).translation
    sel = geometry.self_collision_pairs(robot.model, robot.collision_model, robot.q0)
    scene = tight(
        geometry.CollisionScene(
            robot.model, robot.collision_model, sel.pairs, every_obstacle_kind(hand)
        )
    )
    kinds = set()
    for _ in range(3):
        q = robot.random_configuration(rng)
        at = fd_check(robot.model, scene, q, rng)
        kinds |= {scene.names[k].split(" / ")[1] for k in at.pairs}
    if name == "panda":  # the arm sweeps the scene: every kind of obstacle comes near
        assert {"sphere", "capsule", "box", "cylinder", "floor", "mesh"} <= kinds | {"floor"}


def test_distance_gradient_on_mesh_hulls_of_talos():
    robot = taskik.robots.load("talos")
    hulls = geometry.convexify(robot.collision_model)
    sel = geometry.self_collision_pairs(robot.model, hulls, robot.q0, robot.srdf)
    scene = tight(geometry.CollisionScene(robot.model, hulls, sel.pairs))
    rng = np.random.default_rng(1)
    for _ in range(2):
        fd_check(robot.model, scene, robot.random_configuration(rng), rng, near=0.2)


def test_broadphase_keeps_every_pair_within_the_detection_distance():
    robot = taskik.robots.load("humanoid")
    sel = geometry.self_collision_pairs(robot.model, robot.collision_model, robot.q0)
    scene = geometry.CollisionScene(robot.model, robot.collision_model, sel.pairs)
    rng = np.random.default_rng(0)
    for _ in range(20):
        conf = robot.configuration(robot.random_configuration(rng))
        every = scene.distances(conf.data, 0.1, all_pairs=True)
        truth = set(every.pairs[every.distance < 0.1].tolist())
        assert truth == set(scene.distances(conf.data, 0.1).pairs.tolist())
        assert truth <= set(scene.near_pairs(conf.data, 0.1)[0].tolist())
    assert len(scene.near_pairs(conf.data, 0.1)[0]) < len(scene.pairs) / 4  # far pairs skipped


def test_lookahead_widens_the_detection_of_pairs_that_move_fast():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.05, tool + [0.0, -0.3, 0.0])  # 20 cm away
    scene = geometry.CollisionScene(robot.model, robot.collision_model, (), [ball])
    assert len(scene.distances(conf.data, 0.05, lookahead=True).pairs) == 0
    ball.move_to(tool + [0.0, -0.2, 0.0])  # 10 cm in one step: next step it could touch
    near = scene.distances(conf.data, 0.05, lookahead=True)
    assert len(near.pairs) > 0 and near.distance.min() > 0.05
    assert len(scene.distances(conf.data, 0.05).pairs) == 0  # without lookahead: far


def test_obstacles_are_added_moved_and_removed():
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    scene = geometry.CollisionScene(robot.model, robot.collision_model)
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.05, tool + [0.0, 0.0, 0.2])
    scene.add_obstacle(ball)
    before = scene.distances(conf.data, 1.0, all_pairs=True).distance.min()
    ball.move_to(tool + [0.0, 0.0, 0.1])
    after = scene.distances(conf.data, 1.0, all_pairs=True).distance.min()
    assert after == pytest.approx(before - 0.1, abs=1e-6)
    with pytest.raises(InvalidInput, match="already"):
        scene.add_obstacle(geometry.sphere("ball", 0.1))
    with pytest.raises(UnknownName, match="bal"):
        scene.remove_obstacle("bal")
    assert scene.remove_obstacle("ball") is ball and len(scene.pairs) == 0


def test_turn_is_the_relative_angular_velocity_along_the_tangents():
    robot = taskik.robots.load("humanoid")
    sel = geometry.self_collision_pairs(robot.model, robot.collision_model, robot.q0)
    scene = geometry.CollisionScene(robot.model, robot.collision_model, sel.pairs)
    rng = np.random.default_rng(5)
    q = robot.random_configuration(rng)
    v = rng.standard_normal(robot.model.nv)
    eps = 1e-6

    def rotations(q):
        conf = taskik.Configuration(robot.model, q)
        near = scene.distances(conf.data, 0.3)
        return near, [M.rotation.copy() for M in scene.geometry_data.oMg]

    near, R0 = rotations(q)
    _, R1 = rotations(pin.integrate(robot.model, q, eps * v))
    assert len(near.pairs) > 3
    for i, pair in enumerate(near.pairs):
        a, b = scene.pairs[pair]
        omega_a = pin.log3(R1[a] @ R0[a].T) / eps  # world angular velocities
        omega_b = pin.log3(R1[b] @ R0[b].T) / eps
        n = near.normal[i]
        tangents = np.linalg.svd(np.eye(3) - np.outer(n, n))[0][:, :2].T
        # the two rows of turn: the relative angular velocity's part tangent to the contact
        # (in some orthonormal tangent basis: compare the norms)
        fd = tangents @ (omega_a - omega_b)
        np.testing.assert_allclose(
            np.linalg.norm(near.turn[i] @ v), np.linalg.norm(fd), rtol=1e-4, atol=1e-6
        )
