"""Seed 004's joint limits by a change of variable θ = β(z), for the unconstrained backends."""

import math
import runpy
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import taskik
from taskik import ConfigurationLimit, InvalidInput, PositionTask, VelocityLimit, solve_ik
from taskik.backends.joint_limit_map import JointLimitMap, beta, beta_inverse, beta_prime
from taskik.limits.acceleration import AccelerationLimit
from taskik.limits.frozen import FrozenJoints

DT = 0.01
LOWER, UPPER = np.array([-0.5, 0.2, -3.0]), np.array([0.8, 0.3, 1.0])


def test_beta_maps_the_real_line_onto_the_range():
    z = np.array([-1e12, -3.0, 0.0, 0.5, 1e12])
    lo, hi = np.full(5, -0.5), np.full(5, 0.8)
    theta = beta(z, lo, hi)
    assert np.all(np.diff(theta) > 0)
    assert theta[2] == pytest.approx(0.15)  # z = 0: the middle
    assert theta[0] == pytest.approx(-0.5) and theta[-1] == pytest.approx(0.8)
    # the thesis's formula, written out for one value
    assert theta[3] == pytest.approx(1.3 / math.pi * math.atan(0.5) + 0.15)


def test_beta_prime_is_the_derivative():
    z = np.linspace(-4.0, 4.0, 17)
    lo, hi = np.full_like(z, -0.5), np.full_like(z, 0.8)
    h = 1e-6
    fd = (beta(z + h, lo, hi) - beta(z - h, lo, hi)) / (2 * h)
    assert np.allclose(beta_prime(z, lo, hi), fd, rtol=1e-8, atol=1e-12)
    assert beta_prime(np.array([0.0]), lo[:1], hi[:1])[0] == pytest.approx(1.3 / math.pi)


def test_beta_inverse_inverts_and_clamps():
    theta = np.array([-0.49, 0.0, 0.15, 0.79])
    lo, hi = np.full(4, -0.5), np.full(4, 0.8)
    z = beta_inverse(theta, lo, hi)
    assert np.allclose(beta(z, lo, hi), theta)
    assert z[2] == pytest.approx(0.0)
    at = beta_inverse(np.array([-0.5, 0.8, 2.0, -7.0]), lo, hi, z_max=1e6)
    assert at.tolist() == [-1e6, 1e6, 1e6, -1e6]


def test_away_from_the_limits_the_step_is_the_plain_one_to_first_order():
    lmap = JointLimitMap()
    theta, theta_dot = np.array([0.1, 0.25, -1.0]), np.array([0.3, -0.2, 1.0])
    for dt in (1e-3, 1e-4):
        v = lmap.step(theta, theta_dot, LOWER, UPPER, dt)
        assert np.allclose(v, theta_dot, rtol=50 * dt)


def test_threshold_holds_a_joint_at_its_limit_and_lets_it_leave():
    lmap = JointLimitMap("threshold")
    at_upper = np.array([0.8])
    lo, hi = LOWER[:1], UPPER[:1]
    assert lmap.held(at_upper, np.array([1.0]), lo, hi).all()
    assert abs(lmap.step(at_upper, np.array([5.0]), lo, hi, DT)[0]) < 1e-6  # held
    assert not lmap.held(at_upper, np.array([-1.0]), lo, hi).any()
    assert lmap.step(at_upper, np.array([-2.0]), lo, hi, DT)[0] == pytest.approx(-2.0)  # leaves


def test_damped_inversion_slows_the_approach_by_beta_prime_over_beta_prime_plus_lambda():
    lmap = JointLimitMap("damped", damping=0.1)
    lo, hi = LOWER[:1], UPPER[:1]
    z = np.array([3.0])
    theta = beta(z, lo, hi)
    g = 1.0 / (1.0 + 9.0)
    v = lmap.step(theta, np.array([1.0]), lo, hi, 1e-7)
    assert v[0] == pytest.approx(g / (g + 0.1), rel=1e-4)  # first order: θ̇ β'/(β' + s λ₂)


def test_a_joint_outside_its_range_comes_back_at_the_recovery_gain():
    v = JointLimitMap().step(np.array([1.0]), np.array([3.0]), LOWER[:1], UPPER[:1], DT, 0.5)
    assert v[0] == pytest.approx(0.5 * (0.8 - 1.0) / DT)


@settings(max_examples=300)
@given(
    fraction=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3),
    theta_dot=st.lists(st.floats(-1e4, 1e4), min_size=3, max_size=3),
    dt=st.floats(1e-4, 0.5),
    inversion=st.sampled_from(["threshold", "damped"]),
)
def test_the_step_never_crosses_a_limit(fraction, theta_dot, dt, inversion):
    theta = LOWER + np.array(fraction) * (UPPER - LOWER)
    v = JointLimitMap(inversion).step(theta, np.array(theta_dot), LOWER, UPPER, dt)
    after = theta + v * dt
    assert np.all(after >= LOWER) and np.all(after <= UPPER)
    # and it moves the way θ̇ asks (or not at all)
    assert np.all(v * np.array(theta_dot) >= 0.0)


# -------------------------------------------------------------- through solve_ik's backends
def narrow_planar_3r():
    model = pin.Model(taskik.robots.load("planar_3r").model)
    model.lowerPositionLimit[:] = [-np.pi, -0.5, -1.0]
    model.upperPositionLimit[:] = [np.pi, 0.8, 1.0]
    return model


BEYOND = np.array([0.5, 0.9, 0.0])  # needs joint2 and joint3 past their upper limits
WITHIN = np.array([2.0, 0.5, 0.0])  # reachable inside the ranges


def run(model, backend, target, conf=None, steps=300, **options):
    conf = conf or taskik.Configuration(model, np.array([0.3, 0.3, 0.2]))
    task = PositionTask("ee", gain=0.1)
    task.set_target(target)
    limits = [ConfigurationLimit(model)]
    qs = []
    for _ in range(steps):
        v = solve_ik(conf, [task], DT, limits=limits, backend=backend, **options)
        conf.integrate_inplace(v, DT)
        qs.append(conf.q.copy())
    return conf, np.array(qs), float(np.linalg.norm(task.compute_error_and_jacobian(conf)[0]))


@pytest.mark.parametrize("backend", ["pinv", "dls", "sdls", "regularized", "transpose"])
def test_driven_into_a_limit_the_arm_never_crosses_it_and_leaves_when_the_target_allows(backend):
    model = narrow_planar_3r()
    conf, qs, _ = run(model, backend, BEYOND)
    assert np.all(qs >= model.lowerPositionLimit) and np.all(qs <= model.upperPositionLimit)
    assert qs[-1, 1] > 0.8 - 1e-3 and qs[-1, 2] > 1.0 - 1e-3  # pressed against both limits
    steps = 3000 if backend == "transpose" else 300
    conf, qs, error = run(model, backend, WITHIN, conf, steps)
    assert np.all(qs >= model.lowerPositionLimit) and np.all(qs <= model.upperPositionLimit)
    assert qs[-1, 1] < 0.7 and qs[-1, 2] < 0.9  # both left their limits
    assert error < 1e-3


def test_the_mapped_step_matches_the_qp_box_on_the_same_run():
    model = narrow_planar_3r()
    _, qs_map, beyond_map = run(model, "dls", BEYOND)
    _, qs_qp, beyond_qp = run(model, "qp", BEYOND)
    # both end pressed against the same limits with the same residual error
    assert beyond_map == pytest.approx(beyond_qp, abs=2e-3)
    assert np.allclose(qs_map[-1, 1:], qs_qp[-1, 1:], atol=2e-3)


def test_without_the_map_the_backend_crosses_the_limit():
    model = narrow_planar_3r()
    conf = taskik.Configuration(model, np.array([0.3, 0.3, 0.2]))
    task = PositionTask("ee", gain=0.1)
    task.set_target(BEYOND)
    for _ in range(300):
        conf.integrate_inplace(solve_ik(conf, [task], DT, limits=[], backend="dls"), DT)
    assert conf.q[1] > 0.8 or conf.q[2] > 1.0


def test_velocity_limits_scale_the_whole_step(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.2, 0.1, 0.0])
    free = solve_ik(conf, [task], DT, limits=[ConfigurationLimit(ur5.model)], backend="dls")
    caps = VelocityLimit(ur5.model, np.full(6, 0.5))
    v = solve_ik(conf, [task], DT, limits=[ConfigurationLimit(ur5.model), caps], backend="dls")
    assert np.abs(v).max() == pytest.approx(0.5)
    assert np.allclose(v, free * (0.5 / np.abs(free).max()))  # same direction


def test_options_and_refusals_are_named(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation)
    accel = AccelerationLimit(ur5.model, 1.0)
    with pytest.raises(InvalidInput, match="ConfigurationLimit.*VelocityLimit.*FrozenJoints.*Acc"):
        solve_ik(conf, [task], DT, limits=[accel], backend="dls")
    with pytest.raises(InvalidInput, match="joint_limit_map must be a JointLimitMap"):
        solve_ik(
            conf,
            [task],
            DT,
            limits=[ConfigurationLimit(ur5.model)],
            backend="dls",
            joint_limit_map="damped",
        )
    with pytest.raises(InvalidInput, match="inversion"):
        JointLimitMap("svd")
    with pytest.raises(InvalidInput, match="threshold"):
        JointLimitMap(threshold=2.0)
    damped = JointLimitMap("damped", damping=0.05)
    v = solve_ik(
        conf,
        [task],
        DT,
        limits=[ConfigurationLimit(ur5.model)],
        backend="pinv",
        joint_limit_map=damped,
    )
    assert np.isfinite(v).all()


def test_the_example_presses_against_the_limits_and_leaves_them(monkeypatch, tmp_path):
    monkeypatch.setenv("TASKIK_SMOKE", "1")
    monkeypatch.chdir(tmp_path)
    path = Path(__file__).resolve().parent.parent / "examples" / "joint_limit_map.py"
    results = runpy.run_path(str(path), run_name="example_joint_limit_map")["main"]()
    dls, qp = results["dls"], results["qp"]
    assert dls["margin"] >= 0.0 and qp["margin"] >= 0.0  # no crossing
    assert dls["beyond_joint2"] == pytest.approx(0.8, abs=1e-4)  # pressed against it
    assert dls["beyond_error"] == pytest.approx(qp["beyond_error"], abs=5e-3)  # 0.664, 0.663
    assert dls["within_joint2"] < 0.7  # left the limit
    assert dls["within_error"] < 1e-4 and qp["within_error"] < 1e-4  # 7e-6, 6e-6 measured
    braked = results["qp, a_max = 2"]  # the QP with an acceleration limit and its braking
    assert braked["margin"] >= 0.0 and braked["max_acceleration"] <= 2.0 + 1e-9
    assert braked["beyond_joint2"] == pytest.approx(0.8, abs=1e-4)


@pytest.mark.parametrize("backend", ["pinv", "dls", "sdls", "regularized", "transpose"])
def test_frozen_joints_are_solved_out_and_the_others_take_over(ur5, backend):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.0, 0.0, 0.05])
    frozen = FrozenJoints(ur5.model, ["shoulder_lift_joint"])
    limits = [frozen, ConfigurationLimit(ur5.model)]
    v = solve_ik(conf, [task], DT, limits=limits, backend=backend)
    assert v[1] == 0.0 and np.abs(v).max() > 0
    A = task.compute_error_and_jacobian(conf)[1]
    if backend in ("pinv", "dls"):  # the least-squares step on the five other joints
        free = [0, 2, 3, 4, 5]
        expected = solve_ik(conf, [task], DT, limits=[], backend=backend)
        assert np.linalg.norm(A @ v - 0.05 / DT * np.array([0, 0, 1])) < np.linalg.norm(
            A @ (expected * np.isin(np.arange(6), free)) - 0.05 / DT * np.array([0, 0, 1])
        )


def test_max_joint_step_holds_after_the_re_solve():
    model = narrow_planar_3r()
    conf = taskik.Configuration(model, np.array([0.3, 0.8, 1.0]))  # at both limits: held
    task = PositionTask("ee", gain=0.1)
    task.set_target(BEYOND)
    for _ in range(100):
        v = solve_ik(
            conf,
            [task],
            DT,
            limits=[ConfigurationLimit(model)],
            backend="dls",
            max_joint_step=0.005,
        )
        assert np.abs(v).max() * DT <= 0.005 + 1e-12
        conf.integrate_inplace(v, DT)
    assert conf.q[1] <= 0.8 and conf.q[2] <= 1.0


def test_held_where_the_inversion_nearly_stops_the_joint():
    lo, hi = LOWER[:1], UPPER[:1]
    theta = beta(np.array([20.0]), lo, hi)  # β'/s = 1/401: under λ₂ = 0.01, over λ₁ = 1e-8
    push, pull = np.array([1.0]), np.array([-1.0])
    assert JointLimitMap("damped", damping=0.01).held(theta, push, lo, hi).all()
    assert not JointLimitMap("damped", damping=0.001).held(theta, push, lo, hi).any()
    assert not JointLimitMap("damped", damping=0.01).held(theta, pull, lo, hi).any()
    assert not JointLimitMap("threshold").held(theta, push, lo, hi).any()


def test_a_zero_width_range_holds_the_joint_without_nan():
    lo, hi = np.array([0.2, -1.0]), np.array([0.2, 1.0])
    lmap = JointLimitMap()
    with np.errstate(all="raise"):
        v = lmap.step(np.array([0.2, 0.0]), np.array([3.0, 0.5]), lo, hi, DT)
        held = lmap.held(np.array([0.2, 0.0]), np.array([3.0, 0.5]), lo, hi)
    assert v[0] == 0.0 and v[1] == pytest.approx(0.5, rel=1e-3)
    assert not held.any()
    v = lmap.step(np.array([0.25, 0.0]), np.array([3.0, 0.5]), lo, hi, DT, recovery_gain=0.5)
    assert v[0] == pytest.approx(0.5 * (0.2 - 0.25) / DT)


def test_defaults_and_the_bounds_of_the_options():
    lmap = JointLimitMap()
    assert (lmap.inversion, lmap.threshold, lmap.damping, lmap.z_max) == (
        "threshold",
        1e-8,
        1e-2,
        1e8,
    )
    assert JointLimitMap(z_max=1.5).z_max == 1.5
    for kwargs, message in [
        ({"threshold": 0.0}, "^JointLimitMap threshold must be"),
        ({"damping": 0.0}, "^JointLimitMap damping must be"),
        ({"damping": -1.0}, "^JointLimitMap damping must be"),
        ({"z_max": 1.0}, "^JointLimitMap z_max must be"),
        ({"z_max": 0.5}, "^JointLimitMap z_max must be"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            JointLimitMap(**kwargs)


def test_a_joint_stopped_by_the_threshold_does_not_move_at_all():
    lo, hi = LOWER[:1], UPPER[:1]
    for z in (2e4, 1e5, 1e8):  # β'/s = 1/(1 + z²) under λ₁ = 1e-8
        theta = beta(np.array([z]), lo, hi)
        assert JointLimitMap().step(theta, np.array([5.0]), lo, hi, DT)[0] == 0.0


def test_a_joint_no_task_moves_stays_exactly_where_it_is():
    lo, hi = np.full(200, -0.5), np.full(200, 0.8)
    theta = np.linspace(-0.49, 0.79, 200)
    for inversion in ("threshold", "damped"):
        v = JointLimitMap(inversion).step(theta, np.zeros(200), lo, hi, DT)
        assert np.all(v == 0.0)


def test_held_needs_a_push_into_the_limit():
    lo, hi = LOWER[:1], UPPER[:1]
    at_upper = np.array([0.8])
    lmap = JointLimitMap()
    assert not lmap.held(at_upper, np.array([0.0]), lo, hi).any()  # not pushed
    assert lmap.held(at_upper, np.array([1e-9]), lo, hi).all()  # pushed, however slowly


def test_held_by_the_damped_inversion_exactly_where_beta_prime_over_s_is_under_lambda():
    lo, hi = LOWER[:1], UPPER[:1]
    lmap = JointLimitMap("damped", damping=0.01)  # held when 1 + z² > 100
    for z_squared, held in ((98.5, False), (99.5, True)):
        theta = beta(np.array([math.sqrt(z_squared)]), lo, hi)
        assert lmap.held(theta, np.array([1.0]), lo, hi).tolist() == [held]


def test_held_uses_the_clamped_z_like_the_step():
    """With z_max = 2, a joint at its limit has z = 2, β'/s = 1/5: over λ₁ = 0.1, not held
    (the step still moves it toward β(2))."""
    lo, hi = LOWER[:1], UPPER[:1]
    lmap = JointLimitMap(threshold=0.1, z_max=2.0)
    assert not lmap.held(np.array([0.75]), np.array([1.0]), lo, hi).any()
    assert JointLimitMap(threshold=0.3, z_max=2.0).held(np.array([0.75]), np.array([1.0]), lo, hi)


def test_held_off_a_zero_width_range_raises_no_floating_point_error():
    """θ beyond a zero-width range (θ − m over a zero width): held when pushed further out,
    as beyond a range of any width."""
    lo, hi = np.array([0.2, 0.2]), np.array([0.2, 0.2 + 1e-12])
    theta, push = np.array([0.25, 0.25]), np.array([3.0, 3.0])
    with np.errstate(all="raise"):
        held = JointLimitMap().held(theta, push, lo, hi)
        back = JointLimitMap().held(theta, -push, lo, hi)
    assert held.tolist() == [True, True] and back.tolist() == [False, False]


def test_the_default_recovery_gain_is_one_half():
    v = JointLimitMap().step(np.array([1.0]), np.array([3.0]), LOWER[:1], UPPER[:1], DT)
    assert v[0] == pytest.approx(0.5 * (0.8 - 1.0) / DT)


def test_a_pinned_joint_does_not_stop_the_recovery_of_the_others():
    lo, hi = np.array([0.2, -1.0, -1.0]), np.array([0.2, 1.0, 1.0])
    v = JointLimitMap().step(np.array([0.2, 1.5, 0.0]), np.array([3.0, 0.0, 0.5]), lo, hi, DT)
    assert v[0] == 0.0
    assert v[1] == pytest.approx(0.5 * (1.0 - 1.5) / DT)
    assert v[2] == pytest.approx(0.5, rel=1e-3)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_step_past_the_middle_stops_at_z_max_from_the_far_limit(sign):
    lo, hi = np.array([-1.0]), np.array([1.0])
    lmap = JointLimitMap(z_max=10.0)
    theta = np.array([-0.9 * sign])  # near one limit, driven hard toward the other
    v = lmap.step(theta, np.array([1e6 * sign]), lo, hi, DT)
    far = beta(np.array([10.0 * sign]), lo, hi)  # as close as z_max lets it come
    assert theta + v * DT == pytest.approx(far, abs=1e-12)
