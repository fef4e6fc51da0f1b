"""The posture task on every kind of joint layout: which rows it drives and which joints make
it a Lie-group task (a spherical first joint, a free flyer or planar base included with
``include_base``), its layout shared between tasks on one model, the copies it keeps of its
target, the checks it defers to first use, and what it tells the assembler and the plan cache
(``selection``, ``plan_key``) when subclassed."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from task_checks import fd_rate

import taskik
from taskik import InvalidInput, PostureTask
from taskik.tasks.posture import actuated_velocity_indices, root_joint_velocity_count

OFFSET = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.3]))
JOINTS = {
    "free_flyer": pin.JointModelFreeFlyer,
    "planar": pin.JointModelPlanar,
    "translation": pin.JointModelTranslation,
    "spherical": pin.JointModelSpherical,
    "continuous": pin.JointModelRUBZ,
    "revolute": pin.JointModelRY,
    "prismatic": pin.JointModelPX,
}


def chain(*kinds, root_name="joint0"):
    """A serial chain of the given joints (the first one named ``root_name``)."""
    model = pin.Model()
    parent = 0
    for k, kind in enumerate(kinds):
        name = root_name if k == 0 else f"joint{k}"
        parent = model.addJoint(parent, JOINTS[kind](), OFFSET, name)
        model.appendBodyToJoint(parent, pin.Inertia.FromSphere(1.0, 0.05), pin.SE3.Identity())
    return model


def random_pair(model, rng, spread=0.7):
    q = pin.integrate(model, pin.neutral(model), rng.normal(size=model.nv))
    return q, pin.integrate(model, q, spread * rng.normal(size=model.nv))


def check_posture(model, task, rng, rows):
    """e = −(q ⊖ q*) on ``rows`` and J = ∂(q ⊖ q*)/∂q there, against finite differences."""
    q, target = random_pair(model, rng)
    task.set_target(target)
    conf = taskik.Configuration(model, q)
    e, J = task.compute_error_and_jacobian(conf)
    assert np.allclose(e, -pin.difference(model, target, q)[rows], atol=1e-12)
    assert J.shape == (len(rows), model.nv)
    v = rng.normal(size=model.nv)
    fd = -fd_rate(task.compute_error, conf, v, eps=1e-6)
    assert np.allclose(J @ v, fd, atol=1e-6)
    return e, J


@pytest.mark.parametrize(
    "kinds, include_base, first_row, lie",
    [
        (("spherical", "revolute", "revolute"), False, 0, True),  # the first joint is 3-DoF
        (("revolute", "revolute", "spherical"), False, 0, True),
        (("revolute", "prismatic", "revolute"), False, 0, False),
        (("free_flyer", "revolute", "prismatic"), False, 6, False),
        (("free_flyer", "revolute", "prismatic"), True, 0, True),  # the base's quaternion
        (("planar", "revolute", "revolute"), False, 3, False),
        (("planar", "revolute", "revolute"), True, 0, True),  # the base's (cos, sin)
        (("translation", "revolute"), True, 0, True),  # 3-DoF: the general path
        (("free_flyer", "continuous", "revolute"), False, 6, True),
    ],
)
def test_rows_and_lie_group_path_of_every_layout(kinds, include_base, first_row, lie, rng):
    """The task drives v[first_row:]; its Jacobian is a constant selection (announced by
    ``selection``) exactly when every driven joint is a vector-space joint, and the Lie-group
    difference and its Jacobian otherwise; both match finite differences."""
    model = chain(*kinds)
    rows = np.arange(first_row, model.nv)
    task = PostureTask(include_base=include_base)
    e, J = check_posture(model, task, rng, rows)
    assert task.dim == len(rows) == len(e)
    conf = taskik.Configuration(model, pin.neutral(model))
    selection = task.selection(conf)
    if lie:
        assert selection is None
    else:
        assert np.array_equal(selection, rows) and np.array_equal(J, np.eye(model.nv)[rows])


def test_a_root_joint_named_root_joint_is_a_base_even_if_revolute(rng):
    model = chain("revolute", "spherical", "revolute", root_name="root_joint")
    check_posture(model, PostureTask(), rng, np.arange(1, model.nv))
    check_posture(model, PostureTask(include_base=True), rng, np.arange(model.nv))


def test_postures_with_and_without_the_base_on_one_model_keep_their_own_rows(humanoid, rng):
    """Postures with and without the base, built anew and alternating on one model (their
    layouts are kept per model and per choice), each keep their rows."""
    model = humanoid.model
    q, target = random_pair(model, rng, 0.2)
    conf = taskik.Configuration(model, q)
    for _ in range(2):
        for include_base, first in ((True, 0), (False, 6)):
            task = PostureTask(include_base=include_base)
            task.set_target(target)
            e = task.compute_error(conf)
            assert np.allclose(e, -pin.difference(model, target, q)[first:], atol=1e-12)


def test_the_jacobian_of_a_vector_space_posture_is_read_only(ur5):
    """The constant selection is shared by every posture on the model: writing into the
    returned Jacobian is refused, not carried over to the next task."""
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    _, J = task.compute_error_and_jacobian(conf)
    with pytest.raises(ValueError, match="read-only"):
        J[0, 0] = 5.0
    rows = task.selection(conf)
    with pytest.raises(ValueError, match="read-only"):
        rows[0] = 3
    other = PostureTask()
    other.set_target(ur5.q0)
    assert np.array_equal(other.compute_jacobian(conf), np.eye(6))


def test_the_target_is_a_copy_of_the_callers_array(ur5):
    conf = ur5.configuration()
    mine = ur5.q0 + 0.2
    task = PostureTask()
    task.set_target(mine)
    mine += 1.0
    assert np.allclose(task.compute_error(conf), 0.2)
    # the same from a configuration that moves on afterwards
    task.set_target_from_configuration(conf)
    conf.integrate_inplace(np.full(6, 0.1), 1.0)
    assert np.allclose(task.compute_error(conf), -0.1)


def test_a_target_set_without_configuration_is_checked_at_first_use(rng):
    """Its size and its unit quaternions are checked against the model it is used with."""
    model = chain("spherical", "revolute")
    conf = taskik.Configuration(model, pin.neutral(model))
    task = PostureTask()
    task.set_target(np.array([2.0, 0.0, 0.0, 0.0, 0.1]))  # a quaternion of norm 2
    with pytest.raises(taskik.InvalidConfiguration, match="norm 2"):
        task.compute_error(conf)
    task.set_target(np.zeros(4))
    with pytest.raises(
        InvalidInput,
        match=r"posture target has 4 values, nv of the model \(the size of a velocity\), but a "
        r"configuration has nq = 5",
    ):
        task.compute_error(conf)
    task.set_target(np.zeros(3))
    with pytest.raises(InvalidInput, match=r"has 3 values but the model has nq = 5: it belongs"):
        task.compute_error(conf)
    task.set_target(pin.neutral(model))
    assert np.allclose(task.compute_error(conf), 0.0)
    with pytest.raises(InvalidInput, match="1-D vector"):
        task.set_target(np.zeros((1, 5)))


def test_a_cost_vector_set_after_use_is_checked_against_the_model(ur5, humanoid):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    task.compute_error(conf)
    task.cost = np.ones(5)  # the arm has 6 joints
    with pytest.raises(InvalidInput, match=r"shape \(6,\) for model"):
        task.compute_error_and_jacobian(conf)
    task.cost = np.arange(1.0, 7.0)
    assert task.compute_error(conf).shape == (6,)
    # one task used on two models: the shape is checked against each in turn
    other = humanoid.configuration()
    task.set_target_from_configuration(other)
    with pytest.raises(InvalidInput, match=r"shape \(28,\)"):
        task.compute_error(other)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_include_base_is_a_boolean_or_none(value):
    assert PostureTask(include_base=value).include_base is bool(value)
    assert PostureTask().include_base is None


@pytest.mark.parametrize("value", [1, 0, "yes"])
def test_include_base_refuses_other_values(value):
    with pytest.raises(InvalidInput, match="include_base must be None, True or False"):
        PostureTask(include_base=value)


class ScaledPosture(PostureTask):
    """A posture whose error and Jacobian are scaled: not a selection any more."""

    def compute_error_and_jacobian(self, configuration):
        e, J = super().compute_error_and_jacobian(configuration)
        return 2.0 * e, 2.0 * J


def test_a_subclass_has_its_own_plan_key_and_no_selection(ur5):
    conf = ur5.configuration()
    assert PostureTask().plan_key() == (PostureTask, None)
    assert PostureTask(include_base=False).plan_key() == (PostureTask, False)
    assert PostureTask(include_base=True).plan_key() == (PostureTask, True)
    task = ScaledPosture()
    assert task.plan_key() == id(task)
    assert task.selection(conf) is None
    task.set_target(ur5.q0 + 0.1)
    assert np.allclose(task.compute_jacobian(conf), 2.0 * np.eye(6))


def test_actuated_velocity_indices_leave_the_base_out_by_default(humanoid, ur5):
    # pink's rule by default: the root joint named root_joint is left out, nothing else
    assert humanoid.model.names[1] == "root_joint"
    assert np.array_equal(actuated_velocity_indices(humanoid.model), np.arange(6, 34))
    assert np.array_equal(actuated_velocity_indices(humanoid.model, True), np.arange(34))
    assert np.array_equal(actuated_velocity_indices(ur5.model), np.arange(6))
    planar = chain("planar", "revolute")
    assert planar.names[1] != "root_joint" and root_joint_velocity_count(planar) == 0
    assert root_joint_velocity_count(humanoid.model) == 6
    assert actuated_velocity_indices(planar).tolist() == [0, 1, 2, 3]
    assert actuated_velocity_indices(planar, include_base=False).tolist() == [3]
    assert actuated_velocity_indices(planar, include_base=True).tolist() == [0, 1, 2, 3]
