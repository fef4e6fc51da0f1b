"""LowAccelerationTask: ‖W (v − v_prev)‖², v_prev from the last applied step."""

import numpy as np
import pytest

import taskik
from taskik import FrameTask, InvalidInput
from taskik.tasks import LowAccelerationTask


def test_without_a_previous_step_it_is_a_damping_task(ur5):
    conf = ur5.configuration()
    A, c, mu = LowAccelerationTask(cost=0.3).compute_term(conf, 0.01)
    assert np.allclose(A, 0.3 * np.eye(6)) and np.array_equal(c, np.zeros(6)) and mu == 0.0


def test_after_a_step_the_term_asks_for_the_last_velocity(ur5, rng):
    conf = ur5.configuration()
    v_prev = rng.standard_normal(6)
    conf.integrate_inplace(v_prev, 0.02)
    task = LowAccelerationTask(cost=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert np.allclose(task.compute_error(conf), 0.02 * v_prev)
    A, c, _ = task.compute_term(conf, 0.02)
    w = np.arange(1.0, 7.0)
    assert np.allclose(A, np.diag(w)) and np.allclose(c, w * v_prev)  # ‖W (v − v_prev)‖²
    task.gain = 0.5
    assert np.allclose(task.compute_term(conf, 0.02)[1], 0.5 * w * v_prev)
    conf.update(conf.q)  # q set from outside: no previous step any more
    assert np.array_equal(task.compute_error(conf), np.zeros(6))


def hand_jump_run(panda, smooth):
    """The hand servoed to a target that jumps at step 20; the largest change of v between
    two steps after the first (the first starts from rest)."""
    conf = panda.configuration()
    hand = FrameTask("panda_hand", 1.0, 1.0, gain=0.3)
    hand.set_target_from_configuration(conf)
    target = hand.target.copy()
    vs = []
    for k in range(40):
        if k in (0, 20):
            target.translation = target.translation + np.array([0.05, -0.05, 0.03])
            hand.set_target(target)
        v = taskik.solve_ik(conf, [hand] if smooth is None else [hand, smooth], 0.02)
        conf.integrate_inplace(v, 0.02)
        vs.append(v)
    jumps = np.linalg.norm(np.diff(vs, axis=0), axis=1)
    return jumps.max(), np.linalg.norm(hand.compute_error(conf)[:3])


def test_a_target_jump_is_followed_with_smaller_velocity_changes(panda):
    plain_jump, plain_error = hand_jump_run(panda, None)
    smooth_jump, error = hand_jump_run(panda, LowAccelerationTask(cost=0.3))
    assert smooth_jump < 0.5 * plain_jump, (smooth_jump, plain_jump)
    assert plain_error < error < 0.05  # later, but on its way


def test_in_levels_the_null_space_keeps_the_last_velocity(panda, rng):
    conf = panda.configuration()
    v_prev = rng.standard_normal(7)
    conf.integrate_inplace(v_prev, 0.01)
    hand = FrameTask("panda_hand", 1.0, 0.0)  # position only: a 4-D null space
    hand.set_target_from_configuration(conf)
    v = taskik.solve_ik(conf, [[hand], [LowAccelerationTask()]], 0.01, limits=[])
    J = hand.compute_jacobian(conf)[:3]
    assert np.allclose(v, v_prev - np.linalg.pinv(J) @ (J @ v_prev), atol=1e-6)


def test_cost_shape_is_checked_against_the_model(ur5):
    task = LowAccelerationTask(cost=np.ones(3))
    with pytest.raises(InvalidInput, match=r"shape \(6,\)"):
        task.compute_error(ur5.configuration())
