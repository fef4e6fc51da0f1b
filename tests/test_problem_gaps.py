"""build_ik and the assembler of one step: behaviour the other problem tests leave open."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik import InvalidInput


def test_build_ik_names_itself_when_given_something_else_than_a_configuration(ur5):
    task = taskik.PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match=r"^build_ik needs a taskik\.Configuration, got Model"):
        taskik.build_ik(ur5.model, [task], 0.01)


def _reach_and_posture(ur5, conf, hand_cost=1.0, posture_cost=0.1, gain=1.0):
    hand = taskik.PositionTask("tool0", cost=hand_cost, gain=gain)
    hand.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.03, -0.02, 0.01])
    posture = taskik.PostureTask(cost=posture_cost, gain=gain)
    posture.set_target(ur5.q0 + 0.3)
    return [hand, posture]


def _fresh_step(ur5, q, tasks):
    """The step of a configuration that has never stepped (no cached plan)."""
    return taskik.solve_ik(ur5.configuration(q), tasks, 0.01, adaptive=False)


@pytest.mark.parametrize(
    "change",
    [
        {"hand_cost": 3.0, "posture_cost": 2.0},  # other costs
        {"gain": 0.4},  # another gain
        {},  # the same weights
    ],
)
def test_a_new_list_of_the_same_structure_steps_with_its_own_weights(ur5, change):
    """A list of new tasks (the same kinds: a list built anew each step) is stepped with
    the costs and gains of its tasks, whatever those of the list before it were."""
    conf = ur5.configuration()
    old = _reach_and_posture(ur5, conf)
    taskik.solve_ik(conf, old, 0.01, adaptive=False)
    new = _reach_and_posture(ur5, conf, **change)
    v = taskik.solve_ik(conf, new, 0.01, adaptive=False)
    assert np.allclose(v, _fresh_step(ur5, conf.q, new), rtol=1e-9, atol=1e-9)
    if change:
        assert not np.allclose(v, _fresh_step(ur5, conf.q, old), atol=1e-6)


def test_a_new_list_after_a_cost_change_of_the_old_one_steps_with_its_own_weights(ur5):
    """Costs changed on the tasks of the last list, then a list of new tasks with those
    costs: the step uses the new list's costs (not those the old list was stepped with)."""
    conf = ur5.configuration()
    old = _reach_and_posture(ur5, conf)
    taskik.solve_ik(conf, old, 0.01, adaptive=False)
    old[0].cost, old[1].cost = 3.0, 2.0
    new = _reach_and_posture(ur5, conf, hand_cost=3.0, posture_cost=2.0)
    v = taskik.solve_ik(conf, new, 0.01, adaptive=False)
    assert np.allclose(v, _fresh_step(ur5, conf.q, new), rtol=1e-9, atol=1e-9)
    assert not np.allclose(v, _fresh_step(ur5, conf.q, _reach_and_posture(ur5, conf)), atol=1e-6)


def test_the_regularized_branch_is_held_for_a_tuple_of_tasks_too(planar_2r):
    """The state kept between steps of one task list (here the regularized backend's held
    branch) is kept when the same tasks come as a tuple at every step."""
    task = taskik.PositionTask("ee")
    task.set_target(np.array([1.69, 0.0, 0.0]))  # just inside the stretched arm's reach
    opts = {"backend": "regularized", "gamma0": -0.5, "sigma_thr": 0.2}
    conf = planar_2r.configuration(np.array([0.0, 0.05]))
    taskik.solve_ik(conf, (task,), 0.01, **opts)  # enters the singular region with θ2 > 0
    conf.update(np.zeros(2))
    held = taskik.solve_ik(conf, (task,), 0.01, **opts)  # exactly singular: held branch
    at_zero = planar_2r.configuration(np.zeros(2))
    positive = taskik.solve_ik(at_zero, [task], 0.01, **{**opts, "gamma0": 0.5})
    assert np.abs(held).max() > 0.1
    assert np.allclose(held, positive, rtol=1e-9)


class _SoftBox(taskik.Limit):
    """A soft box (like the position limits) on some joints."""

    hard = False

    def __init__(self, name, indices, lower, upper):
        self.name = name
        self.box = np.array(indices), np.array(lower, float), np.array(upper, float)

    def compute_box(self, configuration, dt):
        return self.box


def test_soft_boxes_that_exclude_each_other_are_refused_before_any_solver(ur5):
    """Two soft boxes with no common point: build_ik raises (no solver was asked) and names
    both limits, rather than returning a QP whose box is empty."""
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0)
    limits = [_SoftBox("up", [2], [1.0], [2.0]), _SoftBox("down", [2], [-2.0], [-1.0])]
    with pytest.raises(taskik.NoSolutionFound) as info:
        taskik.build_ik(conf, [task], 0.01, limits=limits)
    assert info.value.solver == "(none)" and info.value.status == "inconsistent bounds"
    assert info.value.conflicts == ["v[2]: up limit lower bound 1 > down limit upper bound -1"]
    # the same with a third soft box that agrees with both
    limits.append(_SoftBox("wide", [2], [-5.0], [5.0]))
    with pytest.raises(taskik.NoSolutionFound, match="inconsistent bounds"):
        taskik.build_ik(conf, [task], 0.01, limits=limits)


class _Rows(taskik.Limit):
    """Inequality rows from a user limit, with as many columns as asked."""

    name = "user rows"

    def __init__(self, columns):
        self.columns = columns

    def compute_inequalities(self, configuration, dt):
        return np.ones((1, self.columns)), np.array([1.0])


def test_inequality_rows_of_the_wrong_width_from_a_user_limit_name_the_limit(ur5):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match=r"^limit 'user rows' gave rows G \(1, 7\), h \(1,\)"):
        taskik.build_ik(conf, [task], 0.01, limits=[_Rows(7)])
    assert taskik.build_ik(conf, [task], 0.01, limits=[_Rows(6)]).G.shape == (1, 6)


class _StaticCap(taskik.Limit):
    """A static hard cap on one joint, found by name in the configuration's model."""

    static = True
    name = "static cap"

    def __init__(self, joint, cap, indices=None):
        self.joint, self.cap, self.indices = joint, cap, indices

    def compute_box(self, configuration, dt):
        model = configuration.model
        idx = model.joints[model.getJointId(self.joint)].idx_v
        indices = [idx] if self.indices is None else self.indices
        return np.array(indices), np.array([-self.cap]), np.array([self.cap])


def test_a_static_limit_of_ones_own_reads_the_configuration_and_is_checked(ur5):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.5)
    v = taskik.solve_ik(conf, [task], 0.01, limits=[_StaticCap("elbow_joint", 0.2)])
    assert v[2] == pytest.approx(0.2) and v[1] == pytest.approx(50.0)
    with pytest.raises(InvalidInput, match=r"^limit 'static cap' gave box indices \[7\]"):
        taskik.build_ik(conf, [task], 0.01, limits=[_StaticCap("elbow_joint", 0.2, [7])])


class _SoftCap(taskik.Limit):
    """A soft limit of one's own: a box on joint 0 and, optionally, a row v0 + v1 ≤ 0.1."""

    hard = False
    name = "soft cap"

    def __init__(self, box=True, row=True):
        self.box, self.row = box, row

    def compute_box(self, configuration, dt):
        if not self.box:
            return None
        return np.array([0]), np.array([-0.5]), np.array([0.5])

    def compute_inequalities(self, configuration, dt):
        if not self.row:
            return None
        G = np.zeros((1, configuration.nv))
        G[0, :2] = 1.0
        return G, np.array([0.1])


def test_the_rows_of_a_single_soft_limit_are_kept_with_its_box(ur5):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.5)
    problem = taskik.build_ik(conf, [task], 0.01, limits=[_SoftCap()])
    assert problem.G.tolist() == [[1.0, 1.0, 0.0, 0.0, 0.0, 0.0]] and problem.h.tolist() == [0.1]
    assert problem.lb[0] == -0.5 and problem.ub[0] == 0.5
    v = taskik.solve_ik(conf, [task], 0.01, limits=[_SoftCap()])
    assert v[0] + v[1] == pytest.approx(0.1, abs=1e-8) and abs(v[0]) <= 0.5


def test_a_single_soft_limit_that_gives_nothing_leaves_the_step_free(ur5):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.5)
    idle = _SoftCap(box=False, row=False)
    problem = taskik.build_ik(conf, [task], 0.01, limits=[idle])
    assert problem.lb is None and problem.G is None
    assert np.allclose(taskik.solve_ik(conf, [task], 0.01, limits=[idle]), 50.0)


def test_a_task_whose_selection_does_not_match_its_jacobian_keeps_its_jacobian(ur5, monkeypatch):
    """A selection that a task declares but its Jacobian does not follow is not trusted:
    the rows are those of the Jacobian (at any nv)."""
    monkeypatch.setattr(taskik.problem, "DIAGONAL_MIN_NV", 1)

    class Doubled(taskik.PostureTask):
        def compute_error_and_jacobian(self, configuration):
            e, J = super().compute_error_and_jacobian(configuration)
            return e, 2.0 * J

        def selection(self, configuration):
            return np.arange(configuration.nv)

    conf = ur5.configuration()
    task = Doubled()
    task.set_target(ur5.q0 + 0.1)
    problem = taskik.build_ik(conf, [task], 0.01, limits=[])
    assert np.allclose(problem.P, 4.0 * np.eye(6)) and np.allclose(problem.A, 2.0 * np.eye(6))


class _StaticBoxAndTravel(taskik.Limit):
    """A static box |v1| ≤ 1 and a row v0 ≤ 0.001 / dt (a travel per step: depends on dt)."""

    static = True
    name = "travel"

    def compute_box(self, configuration, dt):
        return np.array([1]), np.array([-1.0]), np.array([1.0])

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((1, configuration.nv))
        G[0, 0] = 1.0
        return G, np.array([0.001 / dt])


def test_the_rows_of_a_static_limit_follow_dt(ur5):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.5)
    for dt in (0.01, 0.02):
        problem = taskik.build_ik(conf, [task], dt, limits=[_StaticBoxAndTravel()])
        assert problem.h.tolist() == [pytest.approx(0.001 / dt)] and problem.ub[1] == 1.0
