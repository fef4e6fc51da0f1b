"""The conflict rule (taskik.relax): when the limits leave no step, the default step is the
one that violates them the least, and says which rows gave way; strict=True raises."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import (
    AccelerationLimit,
    FrameTask,
    FrozenJoints,
    InvalidInput,
    NoSolutionFound,
    PostureTask,
    VelocityLimit,
    geometry,
)
from taskik.relax import (
    DEFAULT_RANK,
    RELAX_RANKS,
    Relaxation,
    last_relaxation,
    least_violation,
    relax_rank,
)

DT = 0.01


class Rows(taskik.Limit):
    """Inequality rows ``G v ≤ h`` with a name per row, at a chosen rank."""

    def __init__(self, name, G, h, names=None):
        self.name = name
        self.G, self.h = np.atleast_2d(np.asarray(G, float)), np.asarray(h, float)
        self.names = names

    def compute_inequalities(self, configuration, dt):
        return self.G, self.h

    def row_names(self):
        return list(self.names) if self.names is not None else []


class Early(Rows):
    relax_rank = 10


class Late(Rows):
    relax_rank = 30


class Never(Rows):
    relax_rank = None


def e0(nv, sign=1.0):
    row = np.zeros(nv)
    row[0] = sign
    return row


def wall(nv, cls=Rows, name="wall"):
    """v0 ≤ −0.1 and v0 ≥ 0.1: no v meets both."""
    return cls(name, [e0(nv), e0(nv, -1.0)], [-0.1, -0.1], ["v0 <= -0.1", "v0 >= 0.1"])


def posture(robot, offset=0.2):
    task = PostureTask()
    task.set_target(robot.q0 + offset)
    return task


# ------------------------------------------------------------------ a pinned Panda
def pinned_panda():
    """Panda with its hand 12 cm above a table (a half-space) and a plate above the arm."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    top = hand.translation[2] - 0.12
    table = geometry.halfspace("table", [0.0, 0.0, 1.0], top)
    plate = geometry.box("plate", [1.5, 1.5, 0.04], hand.translation + [0.0, 0.0, 0.35])
    collisions = taskik.CollisionLimit(robot, obstacles=[table, plate])
    task = FrameTask("panda_hand", 1.0, 0.1)
    task.set_target(hand.copy())
    rest = PostureTask(1e-3)
    rest.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), VelocityLimit(robot.model), collisions]
    return robot, conf, hand, top, plate, [task, rest], limits


def lower_plate(plate, hand, top, k):
    """The plate comes down at 0.5 m/s until 6 cm above the table (less than the arm)."""
    z = max(hand.translation[2] + 0.35 - 0.5 * DT * (k + 1), top + 0.06)
    plate.move_to(pin.SE3(np.eye(3), np.r_[hand.translation[:2], z]))


def test_an_arm_pinned_between_a_moving_plate_and_a_table_keeps_moving_and_says_why():
    """The plate comes down onto the arm until less room is left than the arm is thick: the
    old default raised NoSolutionFound; now every step returns a motion within the joint
    ranges and velocity limits, and the steps where a pair had to give way name it."""
    robot, conf, hand, top, plate, tasks, limits = pinned_panda()
    model = robot.model
    relaxed_steps = fallbacks = 0
    names = set()
    for k in range(80):
        lower_plate(plate, hand, top, k)
        v = taskik.solve_ik(conf, tasks, DT, limits)
        assert np.isfinite(v).all()
        assert np.all(np.abs(v) <= model.velocityLimit + 1e-12)  # the box holds
        relaxation = last_relaxation(conf)
        if relaxation:
            relaxed_steps += 1
            assert relaxation.v is v and relaxation.dt == DT
            # the relaxed QP can fail at the edge of its slack to rounding (1 step in 69 with
            # some OpenBLAS kernels, 0 with others): the least-violation step is taken then
            fallbacks += relaxation.fallback
            for row in relaxation.rows:
                assert row.limit == "collision" and row.slack > 0.0
                assert row.depth == pytest.approx(row.slack * DT)
                names.add(row.row)
        conf.integrate_inplace(v, DT)
        assert np.all(conf.q >= model.lowerPositionLimit - 1e-9)
        assert np.all(conf.q <= model.upperPositionLimit + 1e-9)
    assert relaxed_steps >= 20  # (the plate pins the arm for the last ~50 steps)
    assert fallbacks <= 0.05 * relaxed_steps
    assert any("plate" in n for n in names) and any("table" in n for n in names)


def test_strict_keeps_the_error_of_a_conflict():
    robot, conf, hand, top, plate, tasks, limits = pinned_panda()
    with pytest.raises(NoSolutionFound, match="plate|table"):
        for k in range(80):
            lower_plate(plate, hand, top, k)
            v = taskik.solve_ik(conf, tasks, DT, limits, strict=True)
            conf.integrate_inplace(v, DT)


def test_the_report_lists_the_relaxed_rows_of_its_step(ur5):
    conf = ur5.configuration()
    task = posture(ur5)
    limits = [wall(ur5.model.nv), VelocityLimit(ur5.model)]
    v = taskik.solve_ik(conf, [task], DT, limits)
    text = str(taskik.report(conf, [task], DT, v, limits))
    assert "relaxed rows: 2" in text and "v0 <= -0.1" in text and "v0 >= 0.1" in text
    # another v is not that step: no relaxation is claimed for it
    assert taskik.report(conf, [task], DT, v + 1e-3, limits).relaxed is None
    # a step without conflict clears it
    taskik.solve_ik(conf, [task], DT, [VelocityLimit(ur5.model)])
    assert not last_relaxation(conf) and str(last_relaxation(conf)) == "relaxed rows: none"


# ------------------------------------------------------------------ the least violation
def test_two_rows_that_exclude_each_other_meet_halfway_and_the_rest_is_the_tasks(ur5):
    """v0 ≤ −0.1 and v0 ≥ 0.1 with the same room: each gives way by 0.1 (v0 = 0), and the
    other joints do what the task asks, as without the rows."""
    conf = ur5.configuration()
    task = posture(ur5)
    v = taskik.solve_ik(conf, [task], DT, [wall(6), VelocityLimit(ur5.model)])
    rows = last_relaxation(conf).rows
    free = taskik.solve_ik(conf, [task], DT, [VelocityLimit(ur5.model)], adaptive=False)
    assert abs(v[0]) < 1e-6
    assert np.abs(v[1:] - free[1:]).max() < 1e-6
    assert sorted(r.row for r in rows) == ["v0 <= -0.1", "v0 >= 0.1"]
    assert all(r.slack == pytest.approx(0.1, abs=1e-6) for r in rows)


def test_the_row_with_more_room_gives_way_first():
    """v0 ≤ 0.5 (room 0.5) against v0 ≥ 0.8 (no room, h = −0.8): the roomy row gives
    way by nearly all of the 0.3 (weights ∝ 1/ρ²: ρ = 0.51 against 0.01)."""
    G = np.array([[1.0, 0.0], [-1.0, 0.0]])
    h = np.array([0.5, -0.8])
    slack, v = least_violation(G, h, None, None, np.array([20.0, 20.0]))
    assert slack.sum() == pytest.approx(0.3, abs=1e-6)
    assert slack[0] > 1000 * slack[1]
    assert np.all(G @ v <= h + slack + 1e-6)


def test_an_earlier_tier_gives_way_entirely_before_a_later_one_gives_at_all(ur5):
    conf = ur5.configuration()
    task = posture(ur5)
    nv = ur5.model.nv
    early = Early("early", [e0(nv)], [-0.1], ["early v0 <= -0.1"])
    late = Late("late", [e0(nv, -1.0)], [-0.1], ["late v0 >= 0.1"])
    v = taskik.solve_ik(conf, [task], DT, [early, late, VelocityLimit(ur5.model)])
    assert v[0] >= 0.1 - 1e-7  # the late row holds (to the solver's tolerance)
    (row,) = last_relaxation(conf).rows
    assert row.row == "early v0 <= -0.1" and row.rank == 10.0
    assert row.slack == pytest.approx(v[0] + 0.1, abs=1e-7)


def test_rows_that_never_give_way_hold_and_the_others_give_way(ur5):
    conf = ur5.configuration()
    task = posture(ur5)
    nv = ur5.model.nv
    never = Never("never", [e0(nv)], [-0.1], ["never v0 <= -0.1"])
    other = Rows("other", [e0(nv, -1.0)], [-0.1], ["v0 >= 0.1"])
    v = taskik.solve_ik(conf, [task], DT, [never, other, VelocityLimit(ur5.model)])
    assert v[0] <= -0.1 + 1e-7
    assert [r.row for r in last_relaxation(conf).rows] == ["v0 >= 0.1"]


def test_the_ranks_of_the_built_in_limits(ur5):
    assert relax_rank(taskik.ConeLimit("tool0", [0, 0, 1], [0, 0, 1], 0.3)) == 10.0
    assert relax_rank(Rows("x", [e0(6)], [0.0])) == DEFAULT_RANK == 20.0
    assert RELAX_RANKS[taskik.CollisionLimit] == 30.0 < RELAX_RANKS[taskik.BalanceLimit]
    assert relax_rank(taskik.BaseVelocityLimit(taskik.robots.load("humanoid").model, 1.0)) is None
    assert relax_rank(Never("n", [e0(6)], [0.0])) is None and relax_rank(Late("l", [], [])) == 30


def test_crossed_hard_bounds_take_the_slowest_velocity_between_them(ur5):
    """An elbow moving at 0.5 rad/s frozen under a 1 rad/s² acceleration limit: the bounds
    [0.49, 0.51] and [0, 0] cross; the step holds the elbow (v = 0, nearest 0 in [0, 0.49])
    and names both limits; strict=True raises as before."""
    conf = ur5.configuration()
    limits = [AccelerationLimit(ur5.model, 1.0), FrozenJoints(ur5.model, ["elbow_joint"])]
    task = posture(ur5, 0.3)
    conf.integrate_inplace(np.full(6, 0.5), DT)
    v = taskik.solve_ik(conf, [task], DT, limits)
    assert v[2] == 0.0
    assert np.all(np.abs(np.delete(v, 2) - 0.5) <= 1.0 * DT + 1e-12)  # the others: a_max
    relaxation = last_relaxation(conf)
    assert relaxation and not relaxation.rows
    assert any("acceleration" in b and "frozen" in b for b in relaxation.bounds)
    assert "bound:" in str(relaxation)
    with pytest.raises(NoSolutionFound, match="acceleration.*frozen joints"):
        taskik.solve_ik(conf, [task], DT, limits, strict=True)


# ------------------------------------------------------------------ feasible steps
def test_a_step_whose_limits_do_not_conflict_is_the_strict_step():
    """The Panda reaching around a box on a table (rows active, no conflict): the default
    and strict loops take the same steps, and no relaxation is recorded."""
    robot = taskik.robots.load("panda")
    confs = [robot.configuration(), robot.configuration()]
    hand = confs[0].get_transform_frame_to_world("panda_hand")
    table = geometry.halfspace("table", [0.0, 0.0, 1.0], hand.translation[2] - 0.45)
    box = geometry.box("box", [0.08, 0.3, 0.25], hand.translation + [0.15, 0.0, -0.33])
    loops = []
    for _ in confs:
        task = FrameTask("panda_hand", 1.0, 0.1)
        target = hand.copy()
        target.translation = hand.translation + [0.3, 0.0, -0.2]
        task.set_target(target)
        limits = [
            taskik.ConfigurationLimit(robot.model),
            VelocityLimit(robot.model),
            taskik.CollisionLimit(robot, obstacles=[table, box]),
        ]
        loops.append(([task], limits))
    with_rows = 0
    for _ in range(150):
        steps = []
        for conf, (tasks, limits), strict in zip(confs, loops, (False, True), strict=True):
            steps.append(taskik.solve_ik(conf, tasks, DT, limits, strict=strict))
            with_rows += limits[2].compute_inequalities(conf, DT) is not None
        assert np.abs(steps[0] - steps[1]).max() <= 1e-12
        assert not last_relaxation(confs[0])
        for conf, v in zip(confs, steps, strict=True):
            conf.integrate_inplace(v, DT)
    assert with_rows > 50  # (the rows were there)


# ------------------------------------------------------------------ levels, posture
def test_levels_are_solved_within_the_relaxed_rows(ur5):
    conf = ur5.configuration()
    hand = FrameTask("tool0", 1.0, 1.0)
    T = conf.get_transform_frame_to_world("tool0")
    hand.set_target(pin.SE3(T.rotation, T.translation + [0.05, 0.0, 0.0]))
    rest = posture(ur5)
    limits = [wall(6), VelocityLimit(ur5.model)]
    v = taskik.solve_ik(conf, [[hand], [rest]], DT, limits)
    assert abs(v[0]) < 1e-6  # the same least violation as a weighted step
    assert sorted(r.row for r in last_relaxation(conf).rows) == ["v0 <= -0.1", "v0 >= 0.1"]
    assert "relaxed rows: 2" in str(taskik.hierarchy_report(conf, [[hand], [rest]], DT, v, limits))
    # the top level gets all it can with v0 = 0 (as a top level with joint 0 frozen would)
    frozen = taskik.solve_ik(
        conf,
        [[hand], [rest]],
        DT,
        [FrozenJoints(ur5.model, ["shoulder_pan_joint"]), VelocityLimit(ur5.model)],
    )
    assert np.abs(v - frozen).max() < 1e-5
    with pytest.raises(NoSolutionFound, match="v0 <= -0.1"):
        taskik.solve_ik(conf, [[hand], [rest]], DT, limits, strict=True)


def test_solve_posture_steps_through_a_conflict_unless_strict(ur5):
    """A target that needs no motion of joint 0, with rows on v0 that exclude each other: the
    relaxed steps converge; strict=True ends every search at the conflict."""
    conf = ur5.configuration()
    q_goal = ur5.q0.copy()
    q_goal[1:] += 0.2
    task = PostureTask()
    task.set_target(q_goal)
    limits = [wall(6)]
    found = taskik.solve_posture(conf, [task], method="qp", limits=limits, max_searches=2)
    assert found.success
    assert np.abs(found.q - q_goal).max() < 1e-3
    stuck = taskik.solve_posture(
        conf, [task], method="qp", limits=limits, max_searches=2, strict=True
    )
    assert not stuck.success and "QP step failed" in stuck.reason


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_strict_is_a_bool(ur5, bad):
    conf = ur5.configuration()
    for call in (
        lambda: taskik.solve_ik(conf, [posture(ur5)], DT, strict=bad),
        lambda: taskik.solve_ik(conf, [[posture(ur5)]], DT, strict=bad),
        lambda: taskik.solve_posture(conf, [posture(ur5)], strict=bad),
    ):
        with pytest.raises(InvalidInput, match="strict must be True or False"):
            call()


def test_a_solver_failure_without_a_conflict_still_raises(ur5):
    """Options that stop the solver early are not a conflict: nothing gives way, the
    solver's error comes through."""
    conf = ur5.configuration()
    rows = Rows("roomy", [e0(6)], [10.0], ["v0 <= 10"])
    with pytest.raises(NoSolutionFound, match="'daqp'"):
        taskik.solve_ik(conf, [posture(ur5)], DT, [rows], solver="daqp", iter_limit=0)
    assert not last_relaxation(conf)


def test_an_empty_relaxation_is_false_and_says_so():
    empty = Relaxation()
    assert not empty and empty.max_depth == 0.0 and str(empty) == "relaxed rows: none"


def test_a_row_no_joint_can_move_gives_way_by_all_it_asks(ur5):
    """A row whose gradient is zero to rounding (1e-17: a body no joint moves along the row,
    pushed by an obstacle) with h = −0.05: it gives way by 0.05, named, and the other rows
    are relaxed as without it (it was a failed least-violation problem, then a fallback)."""
    conf = ur5.configuration()
    stuck = Rows("stuck", [1e-17 * e0(6)[::-1]], [-0.05], ["link0 / plate"])
    limits = [stuck, wall(6), VelocityLimit(ur5.model)]
    v = taskik.solve_ik(conf, [posture(ur5)], DT, limits)
    assert not last_relaxation(conf).fallback
    rows = {r.row: r for r in last_relaxation(conf).rows}
    assert set(rows) == {"link0 / plate", "v0 <= -0.1", "v0 >= 0.1"}
    assert rows["link0 / plate"].slack == pytest.approx(0.05)
    assert abs(v[0]) < 1e-6


def test_a_rank_that_is_not_a_number_is_named():
    class Odd(Rows):
        relax_rank = "high"

    with pytest.raises(InvalidInput, match="Odd.relax_rank must be a real number"):
        relax_rank(Odd("odd", [e0(6)], [0.0]))


def test_a_joint_outside_its_range_still_returns_while_rows_give_way(ur5):
    """q[0] past its upper limit: the position box asks joint 0 back (v0 < 0, the soft box
    clipped into the velocity limit, as before); a row asking v0 ≥ 0.1 conflicts with it.
    The box holds, the row gives way, and the joint heads back into its range."""
    model = ur5.model
    q = ur5.q0.copy()
    q[0] = model.upperPositionLimit[0] + 0.05
    conf = taskik.Configuration(model, q)
    limits = [
        taskik.ConfigurationLimit(model),
        VelocityLimit(model),
        Rows("push", [e0(6, -1.0)], [-0.1], ["v0 >= 0.1"]),
    ]
    v = taskik.solve_ik(conf, [posture(ur5, 0.0)], DT, limits)
    box = taskik.build_ik(conf, [posture(ur5, 0.0)], DT, limits[:2])
    assert box.ub[0] < 0.0 and v[0] <= box.ub[0] + 1e-12
    (row,) = last_relaxation(conf).rows
    assert row.row == "v0 >= 0.1" and row.slack == pytest.approx(0.1 - v[0], abs=1e-7)
    with pytest.raises(NoSolutionFound, match="v0 >= 0.1"):
        taskik.solve_ik(conf, [posture(ur5, 0.0)], DT, limits, strict=True)


@pytest.mark.parametrize("levels", [False, True])
def test_a_floating_base_without_speed_caps_still_gets_a_relaxed_step(levels):
    """The box of a floating base is unbounded (±inf): the conflicting rows give way as on a
    fixed base (the relaxation refused any infinite bound, and the loop stopped)."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    task = PostureTask()
    task.set_target(robot.q0)
    limits = [wall(robot.model.nv), *taskik.limits.default_limits(robot.model)]
    tasks = [[task]] if levels else [task]
    v = taskik.solve_ik(conf, tasks, DT, limits)
    assert np.isfinite(v).all() and abs(v[0]) < 1e-6
    rows = last_relaxation(conf).rows
    assert sorted(r.row for r in rows) == ["v0 <= -0.1", "v0 >= 0.1"]
    with pytest.raises(NoSolutionFound):
        taskik.solve_ik(conf, tasks, DT, limits, strict=True)
