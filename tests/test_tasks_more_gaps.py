"""The tasks added with the more_tasks example: what their constructors pass on, the names
their errors give, and small models (one joint, no joint, exactly singular Jacobians)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import InvalidInput, TargetNotSet
from taskik.tasks import (
    AxisAlignmentTask,
    DistanceTask,
    JointCouplingTask,
    KineticEnergyTask,
    LookAtTask,
    LowAccelerationTask,
    ManipulabilityTask,
    RelativeComTask,
)

#: Each task on the UR5, built with its required arguments and the given keywords.
TASKS = {
    "axis alignment": lambda **kw: AxisAlignmentTask("tool0", direction=[0, 0, 1], **kw),
    "look at": lambda **kw: LookAtTask("tool0", target=[1.0, 0.0, 0.5], **kw),
    "distance": lambda **kw: DistanceTask("tool0", "shoulder_lift_joint", 0.3, **kw),
    "joint coupling": lambda **kw: JointCouplingTask(
        ["shoulder_lift_joint", "elbow_joint"], [[-2.0, 1.0]], **kw
    ),
    "manipulability": lambda **kw: ManipulabilityTask("tool0", 0.1, **kw),
    "relative com": lambda **kw: RelativeComTask("tool0", **kw),
}


@pytest.mark.parametrize("name", TASKS)
def test_defaults_are_unit_cost_full_gain_and_no_lm_damping(name):
    task = TASKS[name]()
    assert np.all(task.cost == 1.0)
    assert task.gain == 1.0
    assert task.lm_damping == 0.0


@pytest.mark.parametrize("name", TASKS)
def test_cost_gain_and_lm_damping_are_passed_on(name):
    task = TASKS[name](cost=0.25, gain=0.5, lm_damping=3.0)
    assert np.all(task.cost == 0.25)
    assert task.gain == 0.5
    assert task.lm_damping == 3.0


@pytest.mark.parametrize("name", TASKS)
def test_target_from_a_model_names_the_method_and_the_fix(name, ur5):
    with pytest.raises(InvalidInput, match="set_target_from_configuration needs a taskik"):
        TASKS[name]().set_target_from_configuration(ur5.model)


def test_regularising_tasks_default_to_unit_cost_and_pass_the_gain():
    assert KineticEnergyTask().cost == 1.0
    low = LowAccelerationTask()
    assert low.cost == 1.0 and low.gain == 1.0
    assert LowAccelerationTask(gain=0.5).gain == 0.5


@pytest.mark.parametrize("task_type", [AxisAlignmentTask, LookAtTask])
def test_missing_target_and_repr_name_the_class(task_type, ur5):
    task = task_type("tool0")
    with pytest.raises(TargetNotSet, match=f"^{task_type.__name__} has no target"):
        task.compute_error(ur5.configuration())
    assert repr(task).startswith(f"{task_type.__name__}('tool0', axis=")


def test_look_at_target_is_a_point():
    task = LookAtTask("tool0")
    with pytest.raises(InvalidInput, match=r"target must have shape \(3,\)"):
        task.set_target([1.0, 2.0])


def test_joint_coupling_errors_name_the_argument():
    with pytest.raises(InvalidInput, match="^A contains NaN"):
        JointCouplingTask(["a"], [[np.nan]])
    with pytest.raises(InvalidInput, match="^q_ref contains NaN"):
        JointCouplingTask(["a"], [[1.0]], q_ref=[np.nan])


def test_joint_coupling_cost_has_one_weight_per_row():
    task = JointCouplingTask(["a", "b"], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], cost=2.0)
    assert task.dim == 3
    assert task.cost.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(InvalidInput, match=r"cost must be a scalar or have shape \(3,\)"):
        JointCouplingTask(["a", "b"], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], cost=[1.0, 2.0])


def one_joint_model(nv: int) -> pin.Model:
    """A model with ``nv`` revolute joints (0: the universe only), each with a body."""
    model = pin.Model()
    parent = 0
    for i in range(nv):
        placement = pin.SE3(np.eye(3), np.array([0.4 * (i > 0), 0.0, 0.0]))
        parent = model.addJoint(parent, pin.JointModelRZ(), placement, f"joint{i}")
        inertia = pin.Inertia(1.0, np.array([0.2, 0.0, 0.0]), np.diag([0.01, 0.02, 0.03]))
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return model


def test_regularising_tasks_on_a_one_joint_model():
    model = one_joint_model(1)
    conf = taskik.Configuration(model, np.array([0.3]))
    kinetic = KineticEnergyTask()
    e, J = kinetic.compute_error_and_jacobian(conf)
    assert kinetic.dim == 1 and e.tolist() == [0.0]
    M = pin.crba(model, model.createData(), conf.q)
    assert np.allclose(J @ J.T, M)  # Lᵀ of M = L Lᵀ
    low = LowAccelerationTask()
    e, J = low.compute_error_and_jacobian(conf)
    assert low.dim == 1 and e.tolist() == [0.0] and J.tolist() == [[1.0]]
    conf.integrate_inplace(np.array([2.0]), 0.1)
    assert low.compute_error(conf) == pytest.approx([0.2])  # v_prev dt_prev


def test_low_acceleration_on_a_model_without_joints():
    conf = taskik.Configuration(one_joint_model(0), np.zeros(0))
    task = LowAccelerationTask()
    e, J = task.compute_error_and_jacobian(conf)
    assert e.shape == (0,) and J.shape == (0, 0)


def test_regularising_tasks_follow_the_number_of_joints():
    low, kinetic = LowAccelerationTask(), KineticEnergyTask()
    for nv in (2, 3, 1):
        conf = taskik.Configuration(one_joint_model(nv), np.full(nv, 0.2))
        for task in (low, kinetic):
            e, J = task.compute_error_and_jacobian(conf)
            assert task.dim == nv and e.shape == (nv,) and J.shape == (nv, nv)


def test_manipulability_of_two_configurations_at_the_same_update_count(ur5, rng):
    task = ManipulabilityTask("tool0", 1.0)
    a = ur5.configuration(ur5.random_configuration(rng))
    b = ur5.configuration(ur5.random_configuration(rng))
    assert a._updates == b._updates  # the cache key must tell them apart by identity
    m_a, grad_a = task.gradient(a)
    m_b, grad_b = task.gradient(b)
    assert m_a == pytest.approx(task.manipulability(a))
    assert m_b == pytest.approx(task.manipulability(b))
    assert abs(m_a - m_b) > 1e-6 and not np.allclose(grad_a, grad_b)


def test_manipulability_at_an_exactly_singular_jacobian_is_zero_with_a_zero_gradient():
    """A planar arm's tip cannot move along z: J Jᵀ of the position rows has an exactly
    zero row, np.linalg.solve refuses it, and the gradient goes through the pseudo-inverse."""
    model = one_joint_model(2)
    tip = pin.SE3(np.eye(3), np.array([0.4, 0.0, 0.0]))
    model.addFrame(pin.Frame("tip", 2, 0, tip, pin.FrameType.OP_FRAME))
    conf = taskik.Configuration(model, np.array([0.3, 0.7]))
    task = ManipulabilityTask("tip", 0.5, rows="position")
    J = conf.get_frame_jacobian(model.getFrameId("tip"))[:3]
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(J @ J.T, J)
    m, grad = task.gradient(conf)
    assert m == 0.0
    assert grad.shape == (1, 2) and np.all(grad == 0.0)
    e, J_m = task.compute_error_and_jacobian(conf)
    assert e.tolist() == [0.5] and np.all(J_m == 0.0)
