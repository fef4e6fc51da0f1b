"""The task base class and the damping task: how a task written pink's way is read, and
how a task is told apart from another one when the solvers reuse a plan between steps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import DampingTask

DT = 0.1


def selection_jacobian(rows, nv):
    """The selection ``I[rows]`` (len(rows) × nv)."""
    J = np.zeros((len(rows), nv))
    J[np.arange(len(rows)), rows] = 1.0
    return J


class ColumnError(taskik.Task):
    """pink's pair with the error as a column (k × 1), as ``J @ dq`` of a 2-D dq gives."""

    def compute_error(self, configuration):
        return np.array([[0.1], [0.2]])

    def compute_jacobian(self, configuration):
        return selection_jacobian([0, 1], configuration.nv)


class ScalarError(taskik.Task):
    """pink's pair for a one-row task: a scalar error and the Jacobian as a flat vector."""

    def compute_error(self, configuration):
        return 0.1

    def compute_jacobian(self, configuration):
        return selection_jacobian([2], configuration.nv)[0]


class ExactValues(taskik.Task):
    """pink's pair written with exact fractions (lists of Fraction), not floats."""

    def compute_error(self, configuration):
        return [Fraction(1, 10), Fraction(1, 5)]

    def compute_jacobian(self, configuration):
        nv = configuration.nv
        return [[Fraction(int(j == i)) for j in range(nv)] for i in (3, 4)]


@pytest.mark.parametrize(
    ("task_type", "e_p", "rows"),
    [
        (ColumnError, [0.1, 0.2], [0, 1]),
        (ScalarError, [0.1], [2]),
        (ExactValues, [0.1, 0.2], [3, 4]),
    ],
)
def test_pinks_pair_is_read_as_a_float_error_vector_and_a_float_jacobian_matrix(
    ur5, task_type, e_p, rows
):
    conf = ur5.configuration()
    e, J = task_type().compute_error_and_jacobian(conf)
    assert e.shape == (len(rows),) and e.dtype == np.float64
    assert J.shape == (len(rows), conf.nv) and J.dtype == np.float64
    assert np.allclose(e, -np.array(e_p), rtol=0, atol=1e-15)
    assert np.array_equal(J, selection_jacobian(rows, conf.nv))
    # the step drives pink's error to zero: J v = −Kp e_p / dt on the selected joints
    v = taskik.solve_ik(conf, [task_type()], DT, limits=[])
    expected = np.zeros(conf.nv)
    expected[rows] = -np.array(e_p) / DT
    assert np.allclose(v, expected, rtol=0, atol=1e-9)


class WrongRows(taskik.Task):
    """pink's pair with a Jacobian of 3 rows for an error of 4 (a bug in the task)."""

    def compute_error(self, configuration):
        return np.full(4, 0.1)

    def compute_jacobian(self, configuration):
        return selection_jacobian([0, 1, 2], configuration.nv)


def test_a_jacobian_with_the_wrong_number_of_rows_is_named_not_reshaped(ur5):
    conf = ur5.configuration()
    e, J = WrongRows().compute_error_and_jacobian(conf)
    assert e.shape == (4,) and J.shape == (3, conf.nv)  # as given: a 2-D J is not reshaped
    with pytest.raises(taskik.InvalidInput, match=r"Jacobian shape \(3, 6\) does not match"):
        taskik.solve_ik(conf, [WrongRows()], DT, limits=[])


class JointError(taskik.Task):
    """Move the given joints by the given amounts: e = amounts, J = I[joints]."""

    def __init__(self, joints, amounts):
        super().__init__(cost=np.ones(len(joints)))
        self.joints = list(joints)
        self.amounts = np.array(amounts, dtype=float)

    def compute_error_and_jacobian(self, configuration):
        return self.amounts.copy(), selection_jacobian(self.joints, configuration.nv)


def test_tasks_of_my_own_in_lists_built_anew_each_step_keep_their_own_rows(ur5):
    """A task of one's own is keyed by its identity: another one of another size, in a new
    list, gets a plan of its own, not the last task's rows."""
    conf = ur5.configuration()
    tasks = [
        JointError([0], [0.05]),
        JointError([1, 2], [0.02, -0.04]),
        JointError([3], [0.01]),
        JointError([4], [-0.03]),
    ]
    assert len({t.plan_key() for t in tasks}) == len(tasks)
    for task in tasks:
        v = taskik.solve_ik(conf, [task], DT, limits=[])
        expected = np.zeros(conf.nv)
        expected[task.joints] = task.amounts / DT
        assert np.allclose(v, expected, rtol=0, atol=1e-9), type(task).__name__


def long_chain(n):
    """A serial chain of n revolute joints: from nv = 40 on, the step puts the trailing
    tasks whose Jacobian is a selection (damping, posture) on the diagonal of P."""
    model = pin.Model()
    parent = 0
    for k in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.1, 0.0, 0.0]))
        parent = model.addJoint(parent, pin.JointModelRZ(), placement, f"j{k}")
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    return model


class DoubleDamping(DampingTask):
    """A damping whose Jacobian is 2 I (it overrides the error and Jacobian)."""

    def compute_error_and_jacobian(self, configuration):
        return np.zeros(configuration.nv), 2.0 * np.eye(configuration.nv)


class HalfDamping(DampingTask):
    """A damping of every other joint, one row each (the others are free)."""

    def compute_error_and_jacobian(self, configuration):
        rows = np.arange(0, configuration.nv, 2)
        return np.zeros(len(rows)), selection_jacobian(rows, configuration.nv)


@pytest.mark.parametrize("nv", [6, 48])
def test_damping_subclasses_with_their_own_jacobian_are_not_taken_for_the_damping(nv):
    """A plain DampingTask is keyed by its type (a new one each step reuses the plan); a
    subclass with another Jacobian is keyed by its identity, so its own Jacobian is used,
    also on a long chain where a plain damping goes on the diagonal of P."""
    assert DampingTask(0.5).plan_key() == DampingTask(2.0).plan_key() == (DampingTask,)
    assert DoubleDamping().plan_key() != DoubleDamping().plan_key()
    assert DoubleDamping().plan_key() != (DampingTask,)
    model = long_chain(nv)
    conf = taskik.Configuration(model, pin.neutral(model))
    moves = JointError([0, 1, 2], [0.05, -0.04, 0.03])
    steps = {}
    for damping_type in (DampingTask, DoubleDamping, HalfDamping, DampingTask, HalfDamping):
        damping = damping_type(0.5)
        v = taskik.solve_ik(conf, [moves, damping], DT, limits=[])
        # alone: J_d = diag(s) with s = 1, 2 or 1 on every other joint, so
        # v_j = (e_j / dt) / (1 + (0.5 s_j)²) on the moved joints and 0 elsewhere
        s = np.abs(damping.compute_jacobian(conf)[:, :3]).sum(axis=0)
        expected = np.zeros(nv)
        expected[:3] = moves.amounts / DT / (1.0 + (0.5 * s) ** 2)
        assert np.allclose(v, expected, rtol=0, atol=1e-9), damping_type.__name__
        steps[damping_type] = v
    # the three dampings give three different steps (the test can tell them apart)
    a, b, c = steps.values()
    assert min(np.abs(a - b).max(), np.abs(a - c).max(), np.abs(b - c).max()) > 1e-3


@pytest.mark.parametrize("cost", ["1.5", None, b"1"])
def test_a_cost_that_is_not_a_number_names_both_accepted_forms(cost):
    """A task of fixed size says how many numbers a vector cost takes; a posture task (its
    size is the model's) says one per row, never a vector of "None" numbers."""
    with pytest.raises(taskik.InvalidInput, match=r"cost must be a number or a vector of 3 "):
        taskik.PositionTask("tool0", cost=cost)
    with pytest.raises(taskik.InvalidInput) as info:
        taskik.PostureTask(cost=cost)
    assert str(info.value).startswith("cost must be a number or one number per row, got ")
    assert "None numbers" not in str(info.value)
