"""Step controls (ClampMag, ClampMaxAbs, servo eq. 43, pose-change convergence) and Buss's
alternate Jacobian of PositionTask."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import InvalidInput, solve_ik
from taskik.steps import (
    PoseChangeConvergence,
    clamp_mag,
    clamp_max_abs,
    clip_joint_step,
    pose_change,
    servo_velocity,
)


def test_clamp_mag_by_hand():
    assert np.allclose(clamp_mag([3.0, 4.0], 1.0), [0.6, 0.8])
    assert np.allclose(clamp_mag([3.0, 4.0], 10.0), [3.0, 4.0])
    assert np.allclose(clamp_mag([0.0, 0.0, 0.0], 1.0), 0.0)
    with pytest.raises(InvalidInput):
        clamp_mag([1.0], 0.0)


def test_clamp_max_abs_is_williams_eq_31():
    assert np.allclose(clamp_max_abs([1.0, -4.0, 2.0], 2.0), [0.5, -2.0, 1.0])
    assert np.allclose(clamp_max_abs([1.0, -1.5], 2.0), [1.0, -1.5])  # no overshoot scaling up
    assert np.allclose(clip_joint_step([1.0, -4.0, 2.0], [2.0, 3.0, 0.5]), [1.0, -3.0, 0.5])


def test_servo_velocity_eq_43_with_separate_caps():
    e = np.array([0.3, 0.0, 0.4, 0.0, 0.2, 0.0])
    nu, stopped = servo_velocity(e, 2.0, 1.0, max_linear=0.5, max_angular=1.0)
    assert not stopped
    assert np.allclose(nu, [0.3, 0.0, 0.4, 0.0, 0.2, 0.0])  # k_t e_t = (0.6, 0, 0.8) capped
    nu, _ = servo_velocity(e, 2.0, 1.0, max_linear=5.0, max_angular=0.1)
    assert np.allclose(nu, [0.6, 0.0, 0.8, 0.0, 0.1, 0.0])  # only ω capped
    nu, stopped = servo_velocity(0.001 * e, 2.0, 1.0, stop_translation=0.01, stop_rotation=0.01)
    assert stopped and not nu.any()
    _, stopped = servo_velocity(e * [0, 0, 0, 1, 1, 1], 2.0, 1.0, 1, 1, 0.01, 0.01)
    assert not stopped  # translation done, rotation not: keep going


def test_pose_change():
    a = pin.SE3(np.eye(3), np.zeros(3))
    b = pin.SE3(np.eye(3), np.array([0.0, 0.3, 0.0]))
    assert pose_change(a, b) == pytest.approx(0.3)
    c = pin.SE3(pin.exp3(np.array([0.0, 0.0, 0.1])), np.zeros(3))
    assert pose_change(a, c) == pytest.approx(math.sqrt(4 * (1 - math.cos(0.1))), rel=1e-12)


def test_pose_change_test_terminates_on_unreachable_targets(planar_2r):
    for target, reachable in (([3.0, 1.0, 0.0], False), ([1.0, 0.8, 0.0], True)):
        conf = planar_2r.configuration()
        task = taskik.PositionTask("ee", gain=0.5)
        task.set_target(np.array(target))
        stop = PoseChangeConvergence("ee", epsilon=1e-6)
        for _ in range(2000):
            if stop.update(conf):
                break
            conf.integrate_inplace(
                solve_ik(conf, [task], 1.0, backend="dls", lam=0.3, max_task_error=0.3), 1.0
            )
        else:
            pytest.fail(f"no stop after 2000 iterations (target {target}, Δ = {stop.delta})")
        assert stop.delta <= 1e-6
        error = np.linalg.norm(task.compute_error(conf))
        if reachable:
            assert error < 1e-4
        else:  # as close as the arm gets: stretched toward the target
            assert error == pytest.approx(np.linalg.norm(target) - 1.7, abs=1e-3)


def test_alternate_jacobian_is_the_jacobian_at_the_target(ur5, rng):
    for _ in range(3):
        q = ur5.random_configuration(rng)
        conf = ur5.configuration(q)
        T = conf.get_transform_frame_to_world("tool0")
        target = T.translation + rng.normal(scale=0.2, size=3)
        alternate = taskik.PositionTask("tool0", jacobian="target")
        alternate.set_target(target)
        # the point of the end link that currently coincides with the target
        attached = taskik.PositionTask("tool0", offset=T.actInv(target))
        attached.set_target(target)
        J_alt = alternate.compute_jacobian(conf)
        assert np.allclose(J_alt, attached.compute_jacobian(conf), atol=1e-12)
        # finite differences of that attached point
        eps = 1e-7
        J_fd = np.empty((3, ur5.model.nv))
        for j in range(ur5.model.nv):
            dq = np.zeros(ur5.model.nv)
            dq[j] = eps
            conf_j = ur5.configuration(pin.integrate(ur5.model, q, dq))
            point = conf_j.get_transform_frame_to_world("tool0").act(T.actInv(target))
            J_fd[:, j] = (point - target) / eps
        assert np.allclose(J_alt, J_fd, atol=1e-6)
        # the error and the default Jacobian are unchanged
        end = taskik.PositionTask("tool0")
        end.set_target(target)
        e_alt, _ = alternate.compute_error_and_jacobian(conf)
        assert np.array_equal(e_alt, end.compute_error(conf))
        assert not np.allclose(end.compute_jacobian(conf), J_alt)
    with pytest.raises(InvalidInput, match="jacobian must be 'end' or 'target'"):
        taskik.PositionTask("tool0", jacobian="targets")
