"""KineticEnergyTask: vᵀ M(q) v in place of ‖v‖²."""

import numpy as np
import pinocchio as pin
import pytest
from task_checks import ROBOTS, configurations

import taskik
from taskik import DampingTask, FrameTask, InvalidInput
from taskik.tasks import KineticEnergyTask


@pytest.mark.parametrize("name", ROBOTS)
def test_term_is_twice_the_kinetic_energy(name, rng):
    for conf in configurations(name, rng, 2):
        task = KineticEnergyTask(cost=0.5)
        A, c, mu = task.compute_term(conf, 0.01)
        assert np.array_equal(c, np.zeros(conf.nv)) and mu == 0.0
        v = rng.standard_normal(conf.nv)
        data = conf.model.createData()
        energy = pin.computeKineticEnergy(conf.model, data, conf.q, v)  # ½ vᵀ M v
        assert float(np.sum((A @ v) ** 2)) == pytest.approx(0.25 * 2 * energy, rel=1e-10)


def test_the_kinematics_cache_is_left_as_it_was(humanoid, rng):
    conf = humanoid.configuration(humanoid.random_configuration(rng))
    J = conf.get_frame_jacobian("larm_effector_body").copy()
    com, Jcom = conf.com, conf.com_jacobian.copy()
    KineticEnergyTask().compute_jacobian(conf)
    conf._frame_jacobians.clear()  # read the Jacobian again from data
    assert np.array_equal(conf.get_frame_jacobian("larm_effector_body"), J)
    assert np.array_equal(conf.com, com) and np.array_equal(conf.com_jacobian, Jcom)


def test_mass_matrix_follows_the_configuration(panda):
    conf = panda.configuration()
    task = KineticEnergyTask()
    U0 = task.compute_jacobian(conf).copy()
    assert task.compute_jacobian(conf) is task.compute_jacobian(conf)  # cached per update
    conf.update(panda.q0 + 0.3)
    U1 = task.compute_jacobian(conf)
    M = pin.crba(panda.model, panda.model.createData(), conf.q)
    assert np.allclose(U1.T @ U1, np.triu(M) + np.triu(M, 1).T)
    assert not np.allclose(U0, U1)


def test_step_solves_the_normal_equations_with_the_mass_matrix(humanoid):
    """min ‖W_h (J v − Kp e / dt)‖² + w² vᵀ M v  ⇔  (W_h² JᵀJ + w² M) v = W_h² Jᵀ e / dt."""
    conf = humanoid.configuration()
    hand = FrameTask("larm_effector_body", 1.0, 0.0)
    target = conf.get_transform_frame_to_world("larm_effector_body")
    target.translation = target.translation + np.array([0.1, 0.05, 0.05])
    hand.set_target(target)
    e, J = hand.compute_error_and_jacobian(conf)
    M = KineticEnergyTask().mass_matrix(conf)
    W = np.diag([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    expected = np.linalg.solve(J.T @ W @ J + 0.01**2 * M, J.T @ W @ e / 0.1)
    v = taskik.solve_ik(conf, [hand, KineticEnergyTask(0.01)], 0.1, limits=[], damping=0.0)
    assert np.allclose(v, expected, rtol=1e-6, atol=1e-9)
    # the inertia metric moves the heavy base less than ‖v‖² does
    plain = taskik.solve_ik(conf, [hand, DampingTask(0.01)], 0.1, limits=[], damping=0.0)
    assert np.linalg.norm(v[:3]) < np.linalg.norm(plain[:3])


def test_levels_accept_it(ur5):
    conf = ur5.configuration()
    hand = FrameTask("tool0", 1.0, 1.0)
    hand.set_target_from_configuration(conf)
    v = taskik.solve_ik(conf, [[hand], [KineticEnergyTask()]], 0.1)
    assert np.allclose(v, 0.0, atol=1e-9)


def test_cost_must_be_a_scalar():
    with pytest.raises(InvalidInput, match="cost must be a scalar"):
        KineticEnergyTask(cost=[1.0, 2.0])
    with pytest.raises(InvalidInput, match=">= 0"):
        KineticEnergyTask(cost=-1.0)


def test_massless_joint_is_named(ur5):
    model = pin.Model(ur5.model)
    model.inertias[6] = pin.Inertia.Zero()  # wrist 3: no mass, no inertia
    model.inertias[5] = pin.Inertia.Zero()
    conf = taskik.Configuration(model, ur5.q0)
    with pytest.raises(InvalidInput, match="not positive definite"):
        KineticEnergyTask().compute_jacobian(conf)
