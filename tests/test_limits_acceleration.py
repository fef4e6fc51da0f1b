"""AccelerationLimit: |v − v_prev| ≤ a_max dt, and the braking bound that keeps position limits."""

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import taskik
from taskik import ConfigurationLimit, InvalidInput, PostureTask, UnknownName, VelocityLimit
from taskik.limits import BaseVelocityLimit, FrozenJoints
from taskik.limits.acceleration import AccelerationLimit, braking_speed


def test_box_is_previous_velocity_plus_minus_a_dt(ur5):
    conf = ur5.configuration()
    lim = AccelerationLimit(ur5.model, 2.0, braking=False)
    v = np.linspace(-0.3, 0.3, 6)
    conf.integrate_inplace(v, 0.01)
    idx, lo, hi = lim.compute_box(conf, 0.02)
    assert idx.tolist() == list(range(6))
    assert np.allclose(lo, v - 2.0 * 0.02) and np.allclose(hi, v + 2.0 * 0.02)


def test_without_a_last_step_the_robot_is_taken_at_rest(ur5):
    conf = ur5.configuration()
    lim = AccelerationLimit(ur5.model, 3.0, braking=False)
    conf.integrate_inplace(np.full(6, 0.5), 0.01)
    conf.update(conf.q.copy())  # q set from outside: the last step is forgotten
    _, lo, hi = lim.compute_box(conf, 0.01)
    assert np.allclose(lo, -0.03) and np.allclose(hi, 0.03)


def test_braking_speed_stops_exactly_at_the_limit():
    a, dt = np.array([2.0, 7.0, 0.5]), 0.01
    d = np.array([0.3, 1e-4, 2.0])
    u = braking_speed(d, a, dt)
    # this step's displacement plus the braking distance is exactly the distance left
    assert np.allclose(u * dt + u**2 / (2 * a), d)
    assert np.allclose(braking_speed(d, a, 1e-9), np.sqrt(2 * a * d))  # continuous limit
    assert braking_speed(np.array([-0.1]), np.array([1.0]), dt)[0] == 0.0  # past the limit


def test_braking_bound_tightens_the_box_near_a_limit(planar_2r):
    model = planar_2r.model
    conf = taskik.Configuration(model, np.array([np.pi - 0.056, 0.0]))
    conf.integrate_inplace(np.array([0.6, 0.0]), 0.01)  # 0.05 rad left, at 0.6 rad/s
    lim = AccelerationLimit(model, {"joint1": 4.0})
    idx, lo, hi = lim.compute_box(conf, 0.01)
    assert idx.tolist() == [0]
    u = braking_speed(np.array([0.05]), np.array([4.0]), 0.01)[0]
    assert 0.56 < u < 0.64  # inside the acceleration box [0.56, 0.64]
    assert np.isclose(hi[0], u)
    assert np.isclose(lo[0], 0.56)  # far from the lower limit: the acceleration bound


def test_moving_too_fast_toward_a_limit_brakes_at_full_acceleration(planar_2r):
    conf = taskik.Configuration(planar_2r.model, np.array([np.pi - 0.1, 0.0]))
    conf.integrate_inplace(np.array([5.0, 0.0]), 0.01)  # 5 rad/s, 0.05 rad from the limit
    lim = AccelerationLimit(planar_2r.model, 1.0)
    _, lo, hi = lim.compute_box(conf, 0.01)
    assert np.isclose(lo[0], 4.99) and np.isclose(hi[0], 4.99)  # never an empty box


def closed_loop(model, limits, q0, target, a_max, dt, steps):
    """Drive joint1 toward ``target``; return the joint1 trajectory and the velocity changes."""
    conf = taskik.Configuration(model, q0)
    task = PostureTask()
    task.set_target(target)
    qs, dv, v_prev = [], [], np.zeros(model.nv)
    for _ in range(steps):
        v = taskik.solve_ik(conf, [task], dt, limits=limits, adaptive=False)
        dv.append(np.abs(v - v_prev).max())
        v_prev = v
        conf.integrate_inplace(v, dt)
        qs.append(conf.q[0])
    return np.array(qs), np.array(dv)


@pytest.mark.parametrize("with_position_limit", [True, False])
def test_closed_loop_never_crosses_with_braking_and_crosses_without(planar_2r, with_position_limit):
    model = planar_2r.model
    a, dt = 5.0, 0.01
    q0, target = np.array([0.0, 0.0]), np.array([4.0, 0.0])  # 4 rad: past the limit π

    def limits(braking):
        out = [AccelerationLimit(model, a, braking=braking), VelocityLimit(model)]
        return out + ([ConfigurationLimit(model)] if with_position_limit else [])

    qs, dv = closed_loop(model, limits(True), q0, target, a, dt, 300)
    assert qs.max() <= np.pi + 1e-9
    assert qs[-1] > np.pi - 1e-3  # it does reach the limit
    assert dv.max() <= a * dt + 1e-9
    qs_free, dv_free = closed_loop(model, limits(False), q0, target, a, dt, 300)
    assert qs_free.max() > np.pi + 0.05  # arrives too fast to stop: the limit is crossed
    assert dv_free.max() <= a * dt + 1e-9


@settings(max_examples=15)
@given(
    a=st.floats(0.5, 50.0),
    dt=st.floats(0.002, 0.05),
    start=st.floats(-3.0, 3.0),
    target=st.floats(-6.0, 6.0),
)
def test_bound_and_position_limits_hold_in_closed_loop(planar_2r, a, dt, start, target):
    model = planar_2r.model
    limits = [AccelerationLimit(model, a), VelocityLimit(model)]
    qs, dv = closed_loop(model, limits, np.array([start, 0.0]), np.array([target, 0.0]), a, dt, 80)
    assert np.abs(qs).max() <= np.pi + 1e-9
    assert dv.max() <= a * dt * (1 + 1e-9) + 1e-12


def test_bad_caps_are_named(ur5):
    with pytest.raises(InvalidInput, match="a_max"):
        AccelerationLimit(ur5.model, -1.0)
    with pytest.raises(InvalidInput, match="acceleration limit"):
        AccelerationLimit(ur5.model, {"elbow_joint": -1.0})
    with pytest.raises(UnknownName, match="elbow_joint"):
        AccelerationLimit(ur5.model, {"elbow": 1.0})
    with pytest.raises(InvalidInput, match="braking"):
        AccelerationLimit(ur5.model, 1.0, braking="yes")


def test_in_priority_levels_with_the_other_limits(humanoid):
    """Feet over hand over posture, with position, velocity, acceleration, base-norm and
    frozen-joint limits together: every bound holds at every step and the hand gets there."""
    model, conf = humanoid.model, humanoid.configuration()
    feet = [taskik.FrameTask(f) for f in humanoid.end_effectors[:2]]
    hand = taskik.FrameTask(humanoid.end_effectors[2])
    for task in [*feet, hand]:
        task.set_target(conf.get_transform_frame_to_world(task.frame))
    hand.set_target(hand.target * pin.SE3(np.eye(3), np.array([0.1, 0.05, 0.1])))
    posture = PostureTask(1e-2)
    posture.set_target(conf.q)
    base = BaseVelocityLimit(model, linear=0.3, angular=0.5, shape="norm")
    frozen = FrozenJoints(model, ["larm_elbow_joint"])
    limits = [*taskik.limits.default_limits(model), AccelerationLimit(model, 10.0), base, frozen]
    elbow = frozen.indices[0]
    v_prev = np.zeros(model.nv)
    for _ in range(150):
        v = taskik.solve_ik(conf, [feet, [hand], [posture]], 0.01, limits=limits)
        assert np.abs(v - v_prev).max() <= 10.0 * 0.01 + 1e-9
        assert np.linalg.norm(v[:3]) <= 0.3 + 1e-7 and np.linalg.norm(v[3:6]) <= 0.5 + 1e-7
        assert v[elbow] == 0.0
        v_prev = v
        conf.integrate_inplace(v, 0.01)
    conf.check_limits()
    assert np.linalg.norm(hand.compute_error_and_jacobian(conf)[0]) < 1e-3


def test_a_measured_velocity_replaces_the_last_step(ur5):
    conf = ur5.configuration()
    lim = AccelerationLimit(ur5.model, 2.0, braking=False)
    measured = np.linspace(0.1, 0.6, 6)
    lim.set_previous_velocity(measured)
    conf.update(conf.q.copy())  # a loop writing measured positions: no last step
    _, lo, hi = lim.compute_box(conf, 0.01)
    assert np.allclose(lo, measured - 0.02) and np.allclose(hi, measured + 0.02)
    lim.set_previous_velocity(None)
    assert np.allclose(lim.compute_box(conf, 0.01)[2], 0.02)  # back to rest
    with pytest.raises(InvalidInput, match="previous velocity"):
        lim.set_previous_velocity([1.0, 2.0])


def test_a_vector_of_caps_bounds_each_coordinate(ur5):
    conf = ur5.configuration()
    caps = np.array([0.5, 1.0, 2.0, 3.0, 4.0, 0.25])
    lim = AccelerationLimit(ur5.model, caps, braking=False)
    assert lim.a_max.tolist() == caps.tolist()
    _, lo, hi = lim.compute_box(conf, 0.1)
    assert np.allclose(hi, caps * 0.1) and np.allclose(lo, -caps * 0.1)


def test_caps_on_the_first_joints_only(ur5):
    conf = ur5.configuration()
    conf.integrate_inplace(np.linspace(0.1, 0.6, 6), 0.01)
    lim = AccelerationLimit(ur5.model, {"shoulder_pan_joint": 1.0, "shoulder_lift_joint": 2.0})
    idx, lo, hi = lim.compute_box(conf, 0.01)  # the q0 of the UR5 is far from its limits
    assert idx.tolist() == [0, 1]
    assert np.allclose(lo, [0.09, 0.18]) and np.allclose(hi, [0.11, 0.22])


def test_braking_toward_the_lower_limit(planar_2r):
    model = planar_2r.model
    conf = taskik.Configuration(model, np.array([0.056 - np.pi, 0.0]))
    conf.integrate_inplace(np.array([-0.6, 0.0]), 0.01)  # 0.05 rad left, at 0.6 rad/s
    lim = AccelerationLimit(model, {"joint1": 4.0})
    _, lo, hi = lim.compute_box(conf, 0.01)
    assert lo[0] == pytest.approx(-braking_speed(np.array([0.05]), np.array([4.0]), 0.01)[0])
    assert lo[0] > -0.6 + 1e-3 and hi[0] == pytest.approx(-0.6 + 0.04)


def test_joints_without_a_position_range_have_no_braking_bound():
    model = pin.Model()
    wheel = model.addJoint(0, pin.JointModelRUBZ(), pin.SE3.Identity(), "wheel")
    model.addJoint(wheel, pin.JointModelRUBZ(), pin.SE3.Identity(), "wheel2")
    conf = taskik.Configuration(model, np.array([1.0, 0.0, 1.0, 0.0]))
    lim = AccelerationLimit(model, 2.0)
    idx, lo, hi = lim.compute_box(conf, 0.1)
    assert idx.tolist() == [0, 1] and lo.tolist() == [-0.2, -0.2] and hi.tolist() == [0.2, 0.2]


def test_caps_must_be_positive_and_messages_name_the_limit(ur5):
    with pytest.raises(InvalidInput, match="^AccelerationLimit needs a pinocchio.Model"):
        AccelerationLimit(ur5, 1.0)
    with pytest.raises(InvalidInput, match="^AccelerationLimit a_max must be finite and > 0"):
        AccelerationLimit(ur5.model, 0.0)
    with pytest.raises(InvalidInput, match=r"^AccelerationLimit a_max must be > 0, got \[1"):
        AccelerationLimit(ur5.model, [1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    vector = "^AccelerationLimit: a_max must be a vector of nv = 6 acceleration caps or a mapping"
    with pytest.raises(InvalidInput, match=vector):
        AccelerationLimit(ur5.model, [1.0, 2.0, 3.0])
    with pytest.raises(InvalidInput, match=vector):
        AccelerationLimit(ur5.model, [1.0, [2.0, 3.0]])  # ragged
    with pytest.raises(InvalidInput, match=r"^previous velocity must have shape \(6,\)"):
        AccelerationLimit(ur5.model, 1.0).set_previous_velocity([1.0, 2.0])
