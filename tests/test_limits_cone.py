"""ConeLimit: a frame axis stays within a half-angle of a world direction."""

import numpy as np
import pinocchio as pin
import pytest
from task_checks import ROBOTS, configurations, fd_rate

import taskik
from taskik import FrameTask, InvalidInput, PostureTask
from taskik.limits.cone import ConeLimit


@pytest.mark.parametrize("name", ROBOTS)
def test_row_is_minus_the_rate_of_the_margin(name, rng):
    frame = ROBOTS[name][0]
    for conf in configurations(name, rng, 2):
        axis = np.array([0.0, 1.0, 0.3])
        a = conf.get_transform_frame_to_world(frame).rotation @ axis
        tilt = rng.standard_normal(3)
        d = pin.exp3(0.3 * tilt / np.linalg.norm(tilt)) @ a  # at most 0.3 rad from the axis
        cone = ConeLimit(frame, axis, d, 0.8, gain=0.4)
        G, h = cone.compute_inequalities(conf, 0.1)
        assert G.shape == (8, conf.nv)
        assert np.allclose(h, 0.4 * cone.margins(conf) / 0.1)
        for _ in range(2):
            v = rng.standard_normal(conf.nv)
            fd = fd_rate(cone.margins, conf, v)
            assert np.linalg.norm(-G @ v - fd) <= 1e-6 * np.linalg.norm(fd) + 1e-9


def test_margins_on_the_axis_and_on_an_edge(ur5):
    conf = ur5.configuration()
    z = conf.get_transform_frame_to_world("tool0").rotation[:, 2]
    cone = ConeLimit("tool0", [0.0, 0.0, 1.0], z, 0.3, faces=6)
    inner = np.arctan(np.tan(0.3) * np.cos(np.pi / 6))
    assert np.allclose(cone.margins(conf), np.sin(inner))  # every face, from the axis
    # an axis tilted by exactly α toward an edge (between faces 0 and 1): both at 0
    R = conf.get_transform_frame_to_world("tool0").rotation
    edge = cone.normals[0] + cone.normals[1]
    edge -= (edge @ z) * z
    tilted = np.cos(0.3) * z + np.sin(0.3) * edge / np.linalg.norm(edge)
    h = ConeLimit("tool0", R.T @ tilted, z, 0.3, faces=6).margins(conf)
    assert np.count_nonzero(np.abs(h) < 1e-12) == 2 and (h > -1e-12).all(), h


def axis_angle(conf, frame, direction):
    a = conf.get_transform_frame_to_world(frame).rotation[:, 2]
    return float(np.arccos(np.clip(a @ direction / np.linalg.norm(direction), -1.0, 1.0)))


@pytest.mark.parametrize("levels", [False, True])
def test_the_cone_holds_while_a_task_pulls_out_of_it(panda, levels):
    conf = panda.configuration()
    down = conf.get_transform_frame_to_world("panda_hand").rotation[:, 2]
    cone = ConeLimit("panda_hand", [0.0, 0.0, 1.0], down, 0.2)
    pull = FrameTask("panda_hand", position_cost=0.0, orientation_cost=1.0)
    target = conf.get_transform_frame_to_world("panda_hand")
    target.rotation = target.rotation @ pin.exp3(np.array([0.8, 0.0, 0.0]))
    pull.set_target(target)
    limits = [*taskik.limits.default_limits(panda.model), cone]
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    tasks = [[pull], [posture]] if levels else [pull]
    worst = 0.0
    for _ in range(40):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.05, limits=limits), 0.05)
        worst = max(worst, axis_angle(conf, "panda_hand", down))
    assert 0.17 < worst < 0.2 + 1e-3  # at the edge, not across it (linearisation: 1e-3)


def test_from_outside_the_cone_the_axis_comes_back(panda):
    conf = panda.configuration()
    z = conf.get_transform_frame_to_world("panda_hand").rotation[:, 2]
    tilted = pin.exp3(np.array([0.6, 0.0, 0.0])) @ z
    cone = ConeLimit("panda_hand", [0.0, 0.0, 1.0], tilted, 0.2, gain=0.5)
    assert cone.margins(conf).min() < 0
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    for _ in range(30):
        v = taskik.solve_ik(conf, [posture], 0.05, limits=[cone])
        conf.integrate_inplace(v, 0.05)
    assert cone.margins(conf).min() > -1e-6


def angle_to(conf, frame, d):
    a = conf.get_transform_frame_to_world(frame).rotation[:, 2]
    return float(np.arctan2(np.linalg.norm(np.cross(a, d)), a @ d))


def test_outside_one_row_brings_the_angle_back(ur5, rng):
    conf = ur5.configuration()
    z = conf.get_transform_frame_to_world("tool0").rotation[:, 2]
    d = pin.exp3(np.cross(z, [1.0, 0.0, 0.0])) @ z  # about 1 rad away
    cone = ConeLimit("tool0", [0.0, 0.0, 1.0], d, 0.3, gain=0.4)
    assert cone.margins(conf).min() < 0
    G, h = cone.compute_inequalities(conf, 0.05)
    assert G.shape == (1, 6)
    for _ in range(2):  # the row is the rate of the angle θ to d
        v = rng.standard_normal(conf.nv)
        fd = fd_rate(lambda c: angle_to(c, "tool0", d), conf, v)
        assert G[0] @ v == pytest.approx(fd, rel=1e-6)
    inner = np.arctan(np.tan(0.3) * np.cos(np.pi / 8))
    assert h[0] == pytest.approx(-0.4 * (angle_to(conf, "tool0", d) - inner) / 0.05)


@pytest.mark.parametrize("tilt", [0.0, 1e-14, 1e-12, 1e-10, 1e-8, 1e-4])
def test_opposite_axis_is_not_infeasible_by_itself_and_comes_back(ur5, tilt):
    # with the axis (nearly) opposite d, the rate of dᵀa vanishes: a row on it asked for a
    # velocity growing like 1/sin θ (infeasible for DAQP from θ = π − 1e-12); the row on
    # the angle asks for a velocity of the order of gain·θ/dt, and at θ = π exactly it
    # turns the axis about the direction the joints turn fastest
    conf = ur5.configuration()
    z = conf.get_transform_frame_to_world("tool0").rotation[:, 2]
    turn = np.cross(z, [1.0, 0.0, 0.0])
    d = pin.exp3(tilt * turn / np.linalg.norm(turn)) @ -z
    cone = ConeLimit("tool0", [0.0, 0.0, 1.0], d, 0.3, gain=0.5)
    G, h = cone.compute_inequalities(conf, 0.05)
    assert G.shape == (1, 6) and np.linalg.norm(G) > 0.1 and h[0] < -10.0
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    v = taskik.solve_ik(conf, [posture], 0.05, limits=[cone])
    assert G[0] @ v <= h[0] + 1e-6 and np.abs(v).max() < 100.0
    for _ in range(40):
        conf.integrate_inplace(taskik.solve_ik(conf, [posture], 0.05, limits=[cone]), 0.05)
    assert cone.margins(conf).min() > -1e-6  # back inside the cone


def test_a_frame_that_cannot_turn_toward_d_gets_a_relaxed_row(planar_2r):
    # the planar arm turns its end frame only about the world z axis: with the cone about
    # z, the angle of the x axis to z cannot change, and the row must not ask it to
    conf = planar_2r.configuration()
    x = conf.get_transform_frame_to_world("ee").rotation[:, 0]
    assert abs(x[2]) < 1e-12
    cone = ConeLimit("ee", [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], 0.3)
    G, h = cone.compute_inequalities(conf, 0.05)
    assert G.shape == (1, conf.nv) and np.linalg.norm(G) < 1e-9 and h[0] == 0.0
    posture = PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    taskik.solve_ik(conf, [posture], 0.05, limits=[cone])  # feasible


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"half_angle": 0.0}, r"half_angle must be in \(0, 1.5708\)"),
        ({"half_angle": np.pi / 2}, "half_angle must be in"),
        ({"faces": 2}, r"faces must be an integer in \[3, 1024\]"),
        ({"gain": 0.0}, r"gain must be in \(0, 1\]"),
        ({"axis": [0.0, 0.0, 0.0]}, "axis must be a non-zero"),
        ({"direction": [1.0]}, r"direction must have shape \(3,\)"),
    ],
)
def test_bad_input_is_named(kwargs, message):
    args = {"axis": [0.0, 0.0, 1.0], "direction": [0.0, 0.0, 1.0], "half_angle": 0.5, **kwargs}
    with pytest.raises(InvalidInput, match=message):
        ConeLimit("tool0", **args)


@pytest.mark.parametrize(
    "direction",
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0.6, 0, 0.8], [-0.95, 0.1, 0.3]],
)
def test_the_pyramid_is_inscribed_in_the_cone_about_any_direction(direction):
    alpha, faces = 0.4, 5
    cone = ConeLimit("tool0", [0.0, 0.0, 1.0], direction, alpha, faces=faces)
    d, n = cone.direction, cone.normals
    inner = np.arctan(np.tan(alpha) * np.cos(np.pi / faces))
    assert np.all(np.isfinite(n)) and np.allclose(np.linalg.norm(n, axis=1), 1.0)
    assert np.allclose(n @ d, -np.sin(inner))  # margin sin α' with the axis on d
    tangents = (n + np.sin(inner) * d) / np.cos(inner)
    assert np.allclose(np.linalg.norm(tangents, axis=1), 1.0)
    nxt = np.roll(np.arange(faces), -1)
    # neighbouring faces 2π/faces apart, meeting on an edge of the round cone
    assert np.allclose(np.sum(tangents * tangents[nxt], axis=1), np.cos(2 * np.pi / faces))
    edges = np.cross(n, n[nxt])
    edges *= np.sign(edges @ d)[:, None]
    angles = np.arccos(edges @ d / np.linalg.norm(edges, axis=1))
    assert np.allclose(angles, alpha)


def test_faces_must_be_an_integer_of_at_least_three(ur5):
    conf = ur5.configuration()
    z = conf.get_transform_frame_to_world("tool0").rotation[:, 2]
    cone = ConeLimit("tool0", [0.0, 0.0, 1.0], z, 0.3, faces=3)
    G, h = cone.compute_inequalities(conf, 0.01)  # inside: one row per face
    assert G.shape[0] == 3 and cone.normals.shape == (3, 3)
    with pytest.raises(InvalidInput, match=r"faces must be an integer in \[3, 1024\]"):
        ConeLimit("tool0", [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], 0.3, faces=8.0)
