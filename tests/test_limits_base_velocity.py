"""BaseVelocityLimit: per-axis (local or world) and norm caps on a floating or mobile base."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import FrameTask, InvalidInput
from taskik.limits.base_velocity import BaseVelocityLimit, inscribed_polytope

DT = 0.01


def far_base_target(conf, frame, shift, turn):
    """A target for the base frame ``shift`` m and ``turn`` rad (about (1, 1, 1)) away."""
    T = conf.get_transform_frame_to_world(frame)
    axis = np.ones(3) / np.sqrt(3.0)
    return T * pin.SE3(pin.exp3(turn * axis), np.asarray(shift, dtype=float))


def base_step(conf, frame, limits, shift=(1.0, -2.0, 0.5), turn=1.0):
    task = FrameTask(frame)
    task.set_target(far_base_target(conf, frame, shift, turn))
    return taskik.solve_ik(conf, [task], DT, limits=limits, adaptive=False)


@pytest.fixture(scope="module")
def tilted_humanoid(humanoid):
    q = humanoid.q0.copy()
    q[3:7] = pin.Quaternion(pin.exp3(np.array([0.3, -0.5, 1.0]))).coeffs()  # base rotated
    return taskik.Configuration(humanoid.model, q)


def test_local_box_caps_each_axis_of_the_base_twist(humanoid, tilted_humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=[0.5, 0.2, 0.1], angular=0.3)
    assert lim.static  # a box on v, merged once
    v = base_step(tilted_humanoid, "root_joint", [lim])
    assert np.all(np.abs(v[:3]) <= [0.5, 0.2, 0.1])
    assert np.all(np.abs(v[3:6]) <= 0.3)
    assert np.isclose(np.abs(v[:3]), [0.5, 0.2, 0.1]).all()  # the caps are what stops it


def test_world_box_caps_the_world_velocity_not_the_local_one(humanoid, tilted_humanoid):
    conf = tilted_humanoid
    R = conf.data.oMi[1].rotation
    lim = BaseVelocityLimit(humanoid.model, linear=[10.0, 10.0, 0.05], frame="world")
    v = base_step(conf, "root_joint", [lim], shift=(0.0, 0.0, 1.0))  # straight up, world z
    world = R @ v[:3]
    assert abs(world[2]) <= 0.05 + 1e-9 and np.isclose(abs(world[2]), 0.05)
    assert not np.isclose(abs(v[2]), 0.05)  # in the tilted base frame it is another number
    G, h = lim.compute_inequalities(conf, DT)
    assert np.allclose(G[:3, :3], R) and np.allclose(G[3:, :3], -R) and h[2] == 0.05


def test_norm_caps_hold_whatever_the_direction(humanoid, tilted_humanoid, rng):
    lim = BaseVelocityLimit(humanoid.model, linear=0.4, angular=0.6, shape="norm")
    for _ in range(5):
        shift = rng.normal(size=3)
        v = base_step(tilted_humanoid, "root_joint", [lim], shift=shift, turn=rng.normal())
        assert np.linalg.norm(v[:3]) <= 0.4 + 1e-7
        assert np.linalg.norm(v[3:6]) <= 0.6 + 1e-7
        assert np.linalg.norm(v[:3]) >= 0.88 * 0.4  # the inscribed polyhedron's inradius


@pytest.mark.parametrize(("dim", "vertices"), [(2, 16), (3, 32), (3, 12)])
def test_inscribed_polytope_lies_in_the_ball_and_touches_it(dim, vertices, rng):
    poly = inscribed_polytope(dim, vertices)
    N, b = poly[:, :-1], poly[:, -1]
    assert np.allclose(np.linalg.norm(N, axis=1), 1.0)
    # the furthest point of the polytope in any direction u is on the unit sphere at most
    for u in rng.normal(size=(200, dim)):
        u /= np.linalg.norm(u)
        t = np.min(b / np.maximum(N @ u, 1e-12))  # ray t·u leaves the polytope at t
        assert t <= 1.0 + 1e-9 and t >= b.min() - 1e-9
    if dim == 2:
        assert np.allclose(b, np.cos(np.pi / vertices))


def test_planar_base_norm_and_yaw_caps():
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "root_joint")
    model.appendBodyToJoint(joint, pin.Inertia.FromBox(20.0, 0.6, 0.4, 0.3), pin.SE3.Identity())
    model.addBodyFrame("base_link", joint, pin.SE3.Identity(), 0)
    conf = taskik.Configuration(model, np.array([0.0, 0.0, np.cos(0.7), np.sin(0.7)]))
    task = FrameTask("base_link")
    task.set_target(pin.SE3(pin.rpy.rpyToMatrix(0, 0, -1.0), np.array([2.0, 1.0, 0.0])))
    lim = BaseVelocityLimit(model, linear=0.5, angular=0.2, shape="norm", vertices=16)
    v = taskik.solve_ik(conf, [task], DT, limits=[lim], adaptive=False)
    assert np.cos(np.pi / 16) * 0.5 - 1e-7 <= np.linalg.norm(v[:2]) <= 0.5 + 1e-7
    assert np.isclose(v[2], -0.2)
    world = BaseVelocityLimit(model, linear=[0.3, 0.1], frame="world")
    v = taskik.solve_ik(conf, [task], DT, limits=[world], adaptive=False)
    c, s = np.cos(0.7), np.sin(0.7)
    vw = np.array([[c, -s], [s, c]]) @ v[:2]
    assert np.all(np.abs(vw) <= [0.3 + 1e-9, 0.1 + 1e-9]) and np.isclose(abs(vw[1]), 0.1)


def test_errors_name_the_problem(ur5, humanoid):
    with pytest.raises(InvalidInput, match="shoulder_pan_joint"):
        BaseVelocityLimit(ur5.model, linear=1.0)
    with pytest.raises(InvalidInput, match="one per axis"):
        BaseVelocityLimit(humanoid.model, linear=[1.0, 2.0])
    with pytest.raises(InvalidInput, match="scalar"):
        BaseVelocityLimit(humanoid.model, linear=[1.0, 2.0, 3.0], shape="norm")
    with pytest.raises(InvalidInput, match="linear or an angular"):
        BaseVelocityLimit(humanoid.model)
    with pytest.raises(InvalidInput, match="shape"):
        BaseVelocityLimit(humanoid.model, linear=1.0, shape="ball")
    with pytest.raises(InvalidInput, match="frame"):
        BaseVelocityLimit(humanoid.model, linear=1.0, frame="base")
    with pytest.raises(InvalidInput, match="vertices"):
        BaseVelocityLimit(humanoid.model, linear=1.0, shape="norm", vertices=2)
    with pytest.raises(InvalidInput, match="angular cap"):
        BaseVelocityLimit(humanoid.model, angular=-1.0)


def test_conflicts_name_the_base(humanoid, tilted_humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=0.1)
    assert lim.describe_index(humanoid.model, 1) == "base linear velocity v[1] (root_joint)"
    assert "root_joint" not in lim.describe_index(humanoid.model, 10)


def planar_base(yaw=0.7):
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "root_joint")
    model.appendBodyToJoint(joint, pin.Inertia.FromBox(20.0, 0.6, 0.4, 0.3), pin.SE3.Identity())
    model.addBodyFrame("base_link", joint, pin.SE3.Identity(), 0)
    return taskik.Configuration(model, np.array([0.0, 0.0, np.cos(yaw), np.sin(yaw)]))


def planar_step(conf, lim, goal_yaw, goal=(2.0, 1.0)):
    task = FrameTask("base_link")
    task.set_target(pin.SE3(pin.rpy.rpyToMatrix(0, 0, goal_yaw), np.array([*goal, 0.0])))
    return taskik.solve_ik(conf, [task], DT, limits=[lim], adaptive=False)


@pytest.mark.parametrize("goal_yaw", [2.0, -1.0])
def test_yaw_rate_norm_cap_holds_both_ways(goal_yaw):
    conf = planar_base()
    lim = BaseVelocityLimit(conf.model, angular=0.2, shape="norm")
    v = planar_step(conf, lim, goal_yaw)
    assert v[2] == pytest.approx(0.2 * np.sign(goal_yaw - 0.7))


def test_world_box_on_a_planar_base_caps_the_yaw_rate_and_the_world_velocity():
    conf = planar_base()
    lim = BaseVelocityLimit(conf.model, linear=[0.3, 0.1], angular=0.2, frame="world")
    v = planar_step(conf, lim, 2.0)
    assert v[2] == pytest.approx(0.2)  # the yaw rate is the same in both frames
    c, s = np.cos(0.7), np.sin(0.7)
    vw = np.array([[c, -s], [s, c]]) @ v[:2]
    assert np.all(np.abs(vw) <= [0.3 + 1e-9, 0.1 + 1e-9]) and np.isclose(abs(vw[1]), 0.1)


def test_caps_that_are_not_reached_change_nothing(humanoid, tilted_humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=100.0, angular=100.0)
    free = base_step(tilted_humanoid, "root_joint", [], shift=(0.01, 0.0, 0.0), turn=0.01)
    v = base_step(tilted_humanoid, "root_joint", [lim], shift=(0.01, 0.0, 0.0), turn=0.01)
    assert np.abs(v[:6]).max() < 10.0
    assert v == pytest.approx(free, abs=1e-9)


def test_a_zero_cap_holds_the_base_still(humanoid, tilted_humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=0.0)
    v = base_step(tilted_humanoid, "root_joint", [lim])
    assert np.all(v[:3] == 0.0) and np.abs(v[3:6]).max() > 0.1


def test_a_translation_base_in_the_world_frame_is_a_static_box():
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelTranslation(), pin.SE3.Identity(), "slider")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.1), pin.SE3.Identity())
    conf = taskik.Configuration(model, np.zeros(3))
    lim = BaseVelocityLimit(model, linear=[0.1, 0.2, 0.3], frame="world")
    assert lim.static  # no rotation: world axes are the base axes
    idx, lower, upper = lim.compute_box(conf, DT)
    assert idx.tolist() == [0, 1, 2] and upper.tolist() == [0.1, 0.2, 0.3]
    assert lower.tolist() == [-0.1, -0.2, -0.3]
    assert lim.compute_inequalities(conf, DT) is None


def test_default_polyhedron_has_32_vertices(humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=1.0, shape="norm")
    G, h = lim.compute_inequalities(humanoid.configuration(), DT)
    assert np.array_equal(G[:, :3], inscribed_polytope(3, 32)[:, :3])
    assert len(G) == 2 * 32 - 4  # a triangulated hull of 32 points: 60 faces


def test_polyhedron_vertices_are_the_fibonacci_lattice():
    """The hull's vertices: z_k = 1 − (2k + 1)/n, azimuths a golden angle apart."""
    from scipy.spatial import HalfspaceIntersection

    n = 32
    poly = inscribed_polytope(3, n)
    vertices = HalfspaceIntersection(
        np.column_stack([poly[:, :3], -poly[:, 3]]), np.zeros(3)
    ).intersections
    vertices = np.unique(np.round(vertices, 9), axis=0)
    vertices = vertices[np.argsort(-vertices[:, 2])]
    assert len(vertices) == n
    assert vertices[:, 2] == pytest.approx(1.0 - (2.0 * np.arange(n) + 1.0) / n)
    step = np.diff(np.arctan2(vertices[:, 1], vertices[:, 0])) % (2 * np.pi)
    golden = np.pi * (3.0 - np.sqrt(5.0))
    assert np.allclose(step, golden, atol=1e-6) or np.allclose(step, 2 * np.pi - golden, atol=1e-6)


def test_vertices_must_be_an_integer_of_at_least_four(humanoid):
    for vertices in (4, np.int64(5)):
        lim = BaseVelocityLimit(humanoid.model, linear=1.0, shape="norm", vertices=vertices)
        assert lim.compute_inequalities(humanoid.configuration(), DT)[0].shape[0] >= 4
    for vertices in (8.0, True):
        with pytest.raises(InvalidInput, match=r"vertices must be an integer in \[4, 4096\]"):
            BaseVelocityLimit(humanoid.model, linear=1.0, shape="norm", vertices=vertices)


def test_messages_name_the_limit_and_the_root_joint(humanoid):
    with pytest.raises(InvalidInput, match="^BaseVelocityLimit needs a pinocchio.Model"):
        BaseVelocityLimit(humanoid, linear=1.0)
    with pytest.raises(InvalidInput, match="has no joints$"):
        BaseVelocityLimit(pin.Model(), linear=1.0)
    model = pin.Model()
    model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "hinge")
    with pytest.raises(InvalidInput, match="has 'hinge' is a JointModelRZ$"):
        BaseVelocityLimit(model, linear=1.0)
    with pytest.raises(InvalidInput, match="^BaseVelocityLimit linear cap contains NaN"):
        BaseVelocityLimit(humanoid.model, linear=np.nan)
    with pytest.raises(InvalidInput, match=r"must be a scalar >= 0 for shape='norm' on a"):
        BaseVelocityLimit(humanoid.model, linear=[1.0, 2.0, 3.0], shape="norm")
    with pytest.raises(InvalidInput, match=r"scalar >= 0 or 3 values \(one per axis\) for"):
        BaseVelocityLimit(humanoid.model, linear=[1.0, 2.0])


def test_repr_lists_the_caps(humanoid):
    lim = BaseVelocityLimit(humanoid.model, linear=0.5, angular=[1, 2, 3])
    assert repr(lim) == (
        "BaseVelocityLimit(linear=[0.5, 0.5, 0.5], angular=[1.0, 2.0, 3.0], "
        "shape='box', frame='local')"
    )
