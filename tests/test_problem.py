"""The QP of one step: P, r, G, h and the box, against hand-built references."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import FrameTask, Limit, NoSolutionFound, PositionTask, PostureTask, VelocityLimit


def test_p_and_r_equal_the_hand_built_reference(ur5):
    conf = ur5.configuration()
    dt, damping = 0.02, 1e-3
    frame = FrameTask(
        "tool0", position_cost=[1.0, 2.0, 3.0], orientation_cost=0.5, gain=0.7, lm_damping=0.1
    )
    T = conf.get_transform_frame_to_world("tool0")
    T.translation = T.translation + np.array([0.05, -0.02, 0.01])
    frame.set_target(T)
    posture = PostureTask(cost=0.1, gain=0.3)
    posture.set_target(ur5.q0 + 0.2)
    problem = taskik.build_ik(conf, [frame, posture], dt, limits=[], damping=damping)

    P = np.zeros((6, 6))
    r = np.zeros(6)
    mu = 0.0
    for task in (frame, posture):
        e, J = task.compute_error_and_jacobian(conf)
        W = np.diag(np.broadcast_to(task.cost, e.shape))
        P += J.T @ W.T @ W @ J
        r -= J.T @ W.T @ W @ (task.gain * e / dt)
        mu += task.lm_damping * np.linalg.norm(W @ (task.gain * e)) ** 2  # pink's μ
    P += (mu + damping) * np.eye(6)
    assert np.allclose(problem.P, P, rtol=1e-12, atol=1e-9)
    assert np.allclose(problem.r, r, rtol=1e-12, atol=1e-9)
    assert problem.mu == pytest.approx(mu)
    assert problem.lb is None and problem.G is None


def test_unconstrained_step_solves_the_normal_equations(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.01, 0, 0])
    posture = PostureTask(1e-2)
    posture.set_target(ur5.q0)
    problem = taskik.build_ik(conf, [task, posture], 0.01, limits=[])
    v = taskik.solve_ik(conf, [task, posture], 0.01, limits=[])
    assert np.allclose(problem.P @ v, -problem.r, atol=1e-8)


class FixedBox(Limit):
    """A hard box that forces joint 0 to move forward (for conflict tests)."""

    name = "forward"

    def __init__(self, model):
        self.model = model

    def compute_box(self, configuration, dt):
        return np.array([0]), np.array([1.0]), np.array([2.0])


def test_conflicting_hard_limits_are_named(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    limits = [FixedBox(ur5.model), VelocityLimit(ur5.model, {"shoulder_pan_joint": 0.5})]
    with pytest.raises(NoSolutionFound, match=r"shoulder_pan_joint: forward limit lower bound 1"):
        taskik.solve_ik(conf, [task], 0.01, limits=limits, strict=True)


class HalfSpace(Limit):
    """Inequality rows G v ≤ h on the first two joints."""

    name = "halfspace"

    def __init__(self, model, h):
        self.model, self.h = model, h

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((1, configuration.nv))
        G[0, :2] = 1.0
        return G, np.array([self.h])


def test_inequality_rows_are_stacked_and_respected(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 0.5)
    problem = taskik.build_ik(conf, [task], 0.01, limits=[HalfSpace(ur5.model, 0.1)])
    assert problem.G.shape == (1, 6) and problem.h.tolist() == [0.1]
    v = taskik.solve_ik(conf, [task], 0.01, limits=[HalfSpace(ur5.model, 0.1)])
    assert v[0] + v[1] <= 0.1 + 1e-8


def test_infeasible_inequalities_raise_with_solver_and_limits(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    limits = [HalfSpace(ur5.model, -10.0), VelocityLimit(ur5.model)]
    with pytest.raises(NoSolutionFound, match=r"'daqp'.*halfspace"):
        taskik.solve_ik(conf, [task], 0.01, limits=limits, strict=True)


def test_build_ik_returns_independent_copies(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 0.1)
    first = taskik.build_ik(conf, [task], 0.01)
    assert isinstance(first, taskik.Problem) and first.nv == 6
    first.P[:] = 0.0
    second = taskik.build_ik(conf, [task], 0.01)
    assert np.allclose(second.P, np.eye(6), atol=1e-9)


def test_every_error_is_a_taskik_error():
    for error in (
        taskik.InvalidInput,
        taskik.InvalidConfiguration,
        taskik.UnknownName,
        taskik.TargetNotSet,
        taskik.NoSolutionFound,
        taskik.NotWithinConfigurationLimits,
    ):
        assert issubclass(error, taskik.TaskikError)
    assert issubclass(taskik.InvalidInput, ValueError)
    assert issubclass(taskik.UnknownName, KeyError)


class SoftBox(Limit):
    """A soft box on some joints, like the position limits (clipped into the hard box)."""

    hard = False

    def __init__(self, name, indices, lower, upper):
        self.name = name
        self.indices = np.array(indices)
        self.lower, self.upper = np.array(lower, float), np.array(upper, float)

    def compute_box(self, configuration, dt):
        return self.indices, self.lower, self.upper


def test_two_soft_boxes_merge_as_max_of_lowers_and_min_of_uppers(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 1.0)  # far: the step presses on the upper bounds
    a = SoftBox("a", [0, 1, 2], [-1.0, -2.0, 0.3], [1.0, 0.5, 3.0])
    b = SoftBox("b", [1, 2, 3], [-0.5, -4.0, -1.0], [2.0, 1.0, 4.0])
    hard = VelocityLimit(ur5.model, {"shoulder_pan_joint": 0.8, "wrist_1_joint": 0.7})
    problem = taskik.build_ik(conf, [task], 0.01, limits=[a, b, hard])
    inf = np.inf
    lower = [-0.8, -0.5, 0.3, -0.7, -inf, -inf]  # joint 0 clipped into the hard box
    upper = [0.8, 0.5, 1.0, 0.7, inf, inf]
    assert problem.lb.tolist() == lower and problem.ub.tolist() == upper
    # same merge with the soft boxes in the other order, and the step stays in the box
    problem = taskik.build_ik(conf, [task], 0.01, limits=[hard, b, a])
    assert problem.lb.tolist() == lower and problem.ub.tolist() == upper
    v = taskik.solve_ik(conf, [task], 0.01, limits=[a, b, hard])
    assert np.all(v >= np.array(lower)) and np.all(v <= np.array(upper))
    assert v[1] == pytest.approx(0.5) and v[2] == pytest.approx(1.0)


def test_two_soft_boxes_that_exclude_each_other_are_named(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    a = SoftBox("first", [2], [1.0], [2.0])
    b = SoftBox("second", [2], [-2.0], [-1.0])
    with pytest.raises(
        NoSolutionFound, match=r"v\[2\]: first limit lower bound 1 > second limit upper bound -1"
    ):
        taskik.solve_ik(conf, [task], 0.01, limits=[a, b], strict=True)
    # one soft box alone is never in conflict
    assert taskik.solve_ik(conf, [task], 0.01, limits=[a])[2] == pytest.approx(1.0)
    # the message names the limit with the highest lower and the one with the lowest upper
    # bound, only where they cross (boxes that touch are fine)
    c = SoftBox("third", [2], [-3.0], [10.0])
    touching = [SoftBox("left", [1], [0.0], [1.0]), SoftBox("right", [1], [1.0], [2.0])]
    with pytest.raises(NoSolutionFound) as info:
        taskik.solve_ik(conf, [task], 0.01, limits=[c, a, *touching, b], strict=True)
    message = str(info.value)
    assert "v[2]: first limit lower bound 1 > second limit upper bound -1" in message
    assert "v[1]" not in message and "third" not in message


def test_problem_lists_its_limits_and_boxes(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 0.1)
    limits = [VelocityLimit(ur5.model), HalfSpace(ur5.model, 0.1)]
    problem = taskik.build_ik(conf, [task], 0.01, limits=limits)
    assert problem.limits == limits
    assert [box.limit for box in problem.boxes] == limits[:1]


def test_bad_lists_and_dt_are_named(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(taskik.InvalidInput, match=r"^limits must contain Limit objects"):
        taskik.build_ik(conf, [task], 0.01, limits=["velocity"])
    with pytest.raises(taskik.InvalidInput, match=r"^limits must be a list of Limit objects"):
        taskik.build_ik(conf, [task], 0.01, limits="velocity")
    with pytest.raises(taskik.InvalidInput, match=r"^dt must be"):
        taskik.build_ik(conf, [task], 0.0)


def test_levels_must_be_a_non_empty_sequence_of_task_lists():
    from taskik.validation import check_levels

    task = PostureTask()
    assert check_levels(([task],)) == [[task]]
    for bad in ([], "levels", iter([[task]])):
        with pytest.raises(taskik.InvalidInput, match="levels must be a non-empty list"):
            check_levels(bad)


class MovingWall(Limit):
    """A hard box that depends on q and dt (not static): v[0] ≤ (0.5 − q[0]) / dt."""

    name = "wall"

    def compute_box(self, configuration, dt):
        return np.array([0]), np.array([-np.inf]), np.array([(0.5 - configuration.q[0]) / dt])


class StaticBoxAndRow(Limit):
    """A static hard limit with both a box (|v1| ≤ 1) and a row (v2 + v3 ≤ 0.1)."""

    static = True
    name = "static"

    def compute_box(self, configuration, dt):
        return np.array([1]), np.array([-1.0]), np.array([1.0])

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((1, configuration.nv))
        G[0, 2:4] = 1.0
        return G, np.array([0.1])


def test_dynamic_hard_boxes_follow_q_and_dt_and_static_rows_are_kept(ur5):
    task = PostureTask()
    task.set_target(ur5.q0 + 2.0)
    tasks, limits = [task], [MovingWall(), StaticBoxAndRow()]
    for q0, dt in ((0.0, 0.01), (0.3, 0.01), (0.3, 0.02)):
        q = ur5.q0.copy()
        q[0] = q0
        conf = ur5.configuration(q)
        problem = taskik.build_ik(conf, tasks, dt, limits=limits)
        assert problem.ub[0] == pytest.approx((0.5 - q0) / dt) and problem.ub[1] == 1.0
        v = taskik.solve_ik(conf, tasks, dt, limits=limits)
        assert v[0] == pytest.approx((0.5 - q0) / dt) and v[2] + v[3] <= 0.1 + 1e-9


def test_a_zero_velocity_limit_holds_its_joint(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 0.5)
    v = taskik.solve_ik(conf, [task], 0.01, limits=[VelocityLimit(ur5.model, {"elbow_joint": 0.0})])
    assert v[2] == 0.0 and abs(v[1]) > 1.0


def test_position_limit_box_is_reported_as_computed(panda):
    conf = panda.configuration()
    limit = taskik.ConfigurationLimit(panda.model, gain=0.5)
    task = PostureTask()
    task.set_target(panda.q0)
    problem = taskik.build_ik(conf, [task], 0.02, limits=[limit])
    (box,) = [b for b in problem.boxes if b.limit is limit]
    idx, lower, upper = limit.compute_box(conf, 0.02)
    assert np.array_equal(box.lower, lower) and np.array_equal(box.upper, upper)
    assert (box.lower < 0).all() and (box.upper > 0).all()


def test_an_empty_task_list_is_a_zero_step(ur5):
    assert np.array_equal(taskik.solve_ik(ur5.configuration(), [], 0.01), np.zeros(6))


class PinAndRow(Limit):
    """Not static: a hard box that pins v[4] to 0.2, and a row v[0] + v[1] ≤ 0.1 / dt."""

    name = "pin"

    def compute_box(self, configuration, dt):
        return np.array([4]), np.array([0.2]), np.array([0.2])

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((1, configuration.nv))
        G[0, :2] = 1.0
        return G, np.array([0.1 / dt])


def test_soft_boxes_outside_the_hard_box_are_clipped_into_it(ur5):
    """General merge path (several soft boxes, a dynamic hard box, rows): a soft bound beyond
    the hard box is clipped to it, touching boxes leave a single value, a hard box may pin."""
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 1.0)
    hard = VelocityLimit(ur5.model, {"shoulder_pan_joint": 0.8, "wrist_1_joint": 0.7})
    above = SoftBox("above", [0], [2.0], [3.0])  # lower bound above the hard upper 0.8
    below = SoftBox("below", [3], [-3.0], [-2.0])  # upper bound below the hard lower −0.7
    left, right = SoftBox("left", [2], [0.0], [0.5]), SoftBox("right", [2], [0.5], [1.0])
    limits = [hard, above, below, left, right, PinAndRow()]
    for dt in (0.01, 0.02):
        problem = taskik.build_ik(conf, [task], dt, limits=limits)
        assert problem.lb[[0, 2, 3, 4]].tolist() == [0.8, 0.5, -0.7, 0.2]
        assert problem.ub[[0, 2, 3, 4]].tolist() == [0.8, 0.5, -0.7, 0.2]
        assert problem.h.tolist() == [pytest.approx(0.1 / dt)]
        v = taskik.solve_ik(conf, [task], dt, limits=limits)
        assert v[[0, 2, 3, 4]].tolist() == [0.8, 0.5, -0.7, 0.2]
        assert v[0] + v[1] <= 0.1 / dt + 1e-9


def test_a_conflict_is_named_when_two_limits_give_the_same_bounds(ur5):
    """Two limits with identical bounds on v[2] both exclude a third: the message names one
    of them and the third, with the bounds that cross."""
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    first = SoftBox("first", [2], [1.0], [2.0])
    twin = SoftBox("twin", [2], [1.0], [2.0])
    below = SoftBox("below", [2], [-2.0], [-1.0])
    with pytest.raises(NoSolutionFound) as info:
        taskik.solve_ik(conf, [task], 0.01, limits=[first, twin, below], strict=True)
    message = str(info.value)
    assert "limit lower bound 1 > below limit upper bound -1" in message
    assert "v[2]: first limit" in message or "v[2]: twin limit" in message


@pytest.mark.parametrize("min_nv", [1, None])
@pytest.mark.parametrize("robot_name", ["ur5", "humanoid"])
def test_diagonal_tasks_enter_p_on_its_diagonal_with_the_same_rows(
    robot_name, min_nv, request, monkeypatch
):
    """A posture or damping at the end of the list (Jacobian a constant selection I[idx])
    gives the same A, c, P and r as the dense stacking, step after step, and after a change
    of its cost; a posture that is not last stays dense. (``min_nv=1`` takes the diagonal
    path at any nv; by default it starts at ``DIAGONAL_MIN_NV``.)"""
    if min_nv is not None:
        monkeypatch.setattr(taskik.problem, "DIAGONAL_MIN_NV", min_nv)
    threshold = taskik.problem.DIAGONAL_MIN_NV

    robot = request.getfixturevalue(robot_name)
    conf = robot.configuration()
    frame = robot.end_effectors[0] if robot_name == "humanoid" else "tool0"
    hand = PositionTask(frame, cost=2.0, gain=0.5)
    hand.set_target(conf.get_transform_frame_to_world(frame).translation + [0.05, 0.0, -0.02])
    posture = PostureTask(cost=np.linspace(0.1, 1.0, conf.nv - (6 if conf.nq > conf.nv else 0)))
    posture.set_target(robot.q0)
    damping = taskik.DampingTask(0.3)
    dt = 0.01
    for tasks, diagonal in (
        ([hand, posture, damping], 2),
        ([posture, hand], 0),
        ([hand, posture], 1),
    ):
        asm = taskik.problem.Assembler(conf, tasks, [])
        # (at small nv the dense AᵀA is cheaper: the rows stay in it)
        assert len(asm._diagonal) == (diagonal if conf.nv >= threshold else 0)
        for step in range(3):
            if step == 2:
                posture.cost = posture.cost * 3.0  # a new weight reaches the written rows
            conf.update(
                pin.normalize(conf.model, robot.q0 + 0.05 * step * (np.arange(conf.nq) % 3 == 1))
            )
            P, r, *_ = asm.assemble(conf, dt, 1e-9)
            A = np.vstack(
                [
                    np.broadcast_to(t.cost, (len(e),))[:, None] * J
                    for t in tasks
                    for e, J in [t.compute_error_and_jacobian(conf)]
                ]
            )
            c = np.concatenate(
                [
                    np.broadcast_to(t.cost, e.shape) * t.gain * e / dt
                    for t in tasks
                    for e, _ in [t.compute_error_and_jacobian(conf)]
                ]
            )
            assert np.array_equal(asm.A, A)
            assert np.allclose(asm.c, c, rtol=1e-14, atol=0)
            assert np.allclose(P, A.T @ A + 1e-9 * np.eye(conf.nv), rtol=1e-13, atol=1e-12)
            assert np.allclose(r, -A.T @ c, rtol=1e-13, atol=1e-9)
        posture.cost = posture.cost / 3.0


def test_a_posture_task_that_changes_its_jacobian_is_not_taken_as_diagonal(ur5, monkeypatch):
    monkeypatch.setattr(taskik.problem, "DIAGONAL_MIN_NV", 1)

    class Scaled(PostureTask):
        def compute_error_and_jacobian(self, configuration):
            e, J = super().compute_error_and_jacobian(configuration)
            return e, 2.0 * J

    conf = ur5.configuration()
    task = Scaled(1.0)
    task.set_target(ur5.q0 + 0.1)
    asm = taskik.problem.Assembler(conf, [task], [])
    P, *_ = asm.assemble(conf, 0.01, 0.0)
    assert asm._diagonal == []
    assert np.allclose(P, 4.0 * np.eye(6))
    assert task.selection(conf) is None
    assert np.array_equal(PostureTask(1.0).selection(conf), np.arange(6))
