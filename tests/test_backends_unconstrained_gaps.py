"""Unconstrained backends: frozen joints under DLS and the regularized backend (the same step
as the model with the joints locked), rows without a cost under the error-dependent
dampings, the recovery gain of the position limit, and the names in their errors."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import InvalidInput, solve_ik
from taskik.limits.frozen import FrozenJoints

DT = 0.01


def tool_task(conf, offset, frame="tool0", orientation_cost=0.5):
    task = taskik.FrameTask(frame, 1.0, orientation_cost)
    task.set_target(conf.get_transform_frame_to_world(frame) * pin.exp6(np.asarray(offset)))
    return task


def locked(robot, q, joints):
    """The configuration ``q`` of the model with the (one-DoF) ``joints`` locked there."""
    ids = [robot.model.getJointId(name) for name in joints]
    locked_q = [robot.model.joints[j].idx_q for j in ids]
    model = pin.buildReducedModel(robot.model, ids, q)
    return taskik.Configuration(model, np.delete(q, locked_q))


@pytest.mark.parametrize("damping", [0.0, 1e-12, 0.05])
def test_dls_with_a_frozen_joint_is_dls_on_the_model_with_that_joint_locked(ur5, damping):
    """Six rows on the UR5 (the normal equations): the other joints take the step they have
    when the frozen joint is not in the model at all, with the same λ and damping."""
    q = ur5.q0 + np.array([0.1, -0.3, 0.4, -0.2, 0.3, 0.1])
    conf = ur5.configuration(q)
    task = tool_task(conf, [0.02, -0.03, 0.01, 0.1, -0.05, 0.08])
    frozen = FrozenJoints(ur5.model, ["elbow_joint"])
    v = solve_ik(conf, [task], DT, [frozen], backend="dls", lam=0.1, damping=damping)
    small = locked(ur5, q, ["elbow_joint"])
    v_small = solve_ik(small, [task], DT, backend="dls", lam=0.1, damping=damping)
    assert v[2] == 0.0
    assert np.allclose(np.delete(v, 2), v_small, rtol=0.0, atol=1e-10)


def test_dls_keeps_a_frozen_joint_still_when_lambda_squared_equals_the_damping(ur5):
    q = ur5.q0 + np.array([0.1, -0.3, 0.4, -0.2, 0.3, 0.1])
    conf = ur5.configuration(q)
    task = tool_task(conf, [0.02, -0.03, 0.01, 0.1, -0.05, 0.08])
    frozen = FrozenJoints(ur5.model, ["wrist_2_joint"])
    v = solve_ik(conf, [task], DT, [frozen], backend="dls", lam=0.5, damping=0.25)
    assert v[4] == 0.0 and np.isfinite(v).all() and np.abs(v).max() > 0.0


def test_regularized_step_with_a_frozen_joint_is_the_step_of_the_locked_model(ur5):
    """Near the wrist singularity (γ switched on) the regularization of the kept joints does
    not use the frozen joint's column: the step is that of the model without the joint."""
    q = ur5.q0.copy()
    q[4] = 0.02  # wrist 2 near zero: wrist 1 and wrist 3 nearly aligned
    conf = ur5.configuration(q)
    task = tool_task(conf, [0.01, 0.02, -0.01, 0.05, 0.04, -0.03])
    frozen = FrozenJoints(ur5.model, ["shoulder_pan_joint"])
    v = solve_ik(conf, [task], DT, [frozen], backend="regularized")
    small = locked(ur5, q, ["shoulder_pan_joint"])
    v_small = solve_ik(small, [task], DT, backend="regularized")
    v_free = solve_ik(conf, [task], DT, backend="regularized")
    assert v[0] == 0.0
    assert np.allclose(v[1:], v_small, rtol=0.0, atol=1e-9)
    assert not np.allclose(v[1:], v_free[1:], atol=1e-6)  # the frozen column mattered


@pytest.mark.parametrize("kind", ["chan", "sugihara"])
def test_error_energy_counts_only_the_rows_with_a_cost(panda, kind):
    """A frame task whose orientation is free (cost 0): the Chan and Sugihara dampings use
    E = ½ Σ (w e)² of the position rows, as a constant λ² = λE (Chan) or E + w̄ would."""
    conf = panda.configuration(panda.q0)
    task = tool_task(conf, [0.03, -0.02, 0.04, 0.2, 0.1, -0.1], "panda_hand", 0.0)
    e, _ = task.compute_error_and_jacobian(conf)
    energy = 0.5 * float(np.sum(e[:3] ** 2))  # position cost 1, orientation cost 0
    v = solve_ik(conf, [task], DT, backend="dls", damping_kind=kind, lam=0.1, damping=0.0)
    same = np.sqrt(0.1 * energy if kind == "chan" else energy + 1e-3)
    v_constant = solve_ik(conf, [task], DT, backend="dls", lam=same, damping=0.0)
    assert energy > 1e-4 and np.isfinite(v).all()
    assert np.allclose(v, v_constant, rtol=1e-9, atol=0.0)


def test_refusals_name_the_backend_and_the_option(ur5):
    conf = ur5.configuration()
    task = tool_task(conf, [0.02, 0.0, 0.0, 0.0, 0.0, 0.0])
    cone = taskik.limits.ConeLimit("tool0", [0, 0, 1], [0, 0, 1], 0.5)
    with pytest.raises(InvalidInput, match="^backend 'sdls' solves an unconstrained"):
        solve_ik(conf, [task], DT, [cone], backend="sdls")
    with pytest.raises(InvalidInput, match=r"^gamma0 \(a non-zero number\) must be a real number"):
        solve_ik(conf, [task], DT, backend="regularized", gamma0="0.5")
    with pytest.raises(InvalidInput, match="^w_bar "):
        solve_ik(conf, [task], DT, backend="dls", damping_kind="sugihara", w_bar=np.nan)


@pytest.mark.parametrize("backend", ["dls", "pinv"])
def test_a_joint_outside_its_range_comes_back_at_the_position_limits_gain(ur5, backend):
    q = ur5.q0.copy()
    upper = ur5.model.upperPositionLimit[1]
    q[1] = upper + 0.2  # the shoulder lift 0.2 rad past its upper limit
    conf = ur5.configuration(q)
    task = tool_task(conf, [0.02, -0.01, 0.03, 0.0, 0.0, 0.0])
    limit = taskik.ConfigurationLimit(ur5.model, gain=0.2)
    v = solve_ik(conf, [task], DT, [limit], backend=backend)
    assert v[1] == pytest.approx(0.2 * (upper - q[1]) / DT)


@pytest.mark.parametrize("backend", ["pinv", "dls", "sdls", "transpose", "regularized"])
def test_a_model_without_joints_gets_an_empty_step(backend):
    conf = taskik.Configuration(pin.Model(), np.zeros(0))
    v = solve_ik(conf, [], DT, backend=backend, max_joint_step=0.1)
    assert v.shape == (0,)
    assert solve_ik(conf, [], DT, backend=backend).shape == (0,)
