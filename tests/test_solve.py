"""solve_ik: closed-loop convergence, solvers, bad input, the step report."""

import numpy as np
import pinocchio as pin
import pytest
import qpsolvers

import taskik
from taskik import ComTask, FrameTask, InvalidInput, PositionTask, PostureTask


def servo(conf, tasks, dt=0.01, steps=400, **kwargs):
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, dt, **kwargs), dt)


@pytest.mark.parametrize("robot_name, frame", [("ur5", "tool0"), ("panda", "panda_hand")])
def test_closed_loop_reaches_a_reachable_pose(robot_name, frame, rng):
    robot = taskik.robots.load(robot_name)
    q_goal = robot.random_configuration(rng)
    q_goal = pin.integrate(robot.model, robot.q0, 0.3 * (q_goal - robot.q0))
    goal = robot.configuration(q_goal).get_transform_frame_to_world(frame)
    conf = robot.configuration()
    task = FrameTask(frame, 1.0, 1.0)
    task.set_target(goal)
    servo(conf, [task], steps=600)
    T = conf.get_transform_frame_to_world(frame)
    assert np.linalg.norm(T.translation - goal.translation) < 1e-6
    assert np.linalg.norm(pin.log3(T.rotation.T @ goal.rotation)) < 1e-6


def test_humanoid_feet_held_while_the_com_shifts(humanoid):
    conf = humanoid.configuration()
    feet = [FrameTask(f, 10.0, 10.0) for f in ("lleg_effector_body", "rleg_effector_body")]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    com = ComTask(1.0, lm_damping=1.0)
    com.set_target(conf.com + np.array([0.0, 0.04, -0.02]))
    posture = PostureTask(1e-3)
    posture.set_target(humanoid.q0)
    servo(conf, [*feet, com, posture], steps=400)
    assert np.linalg.norm(com.compute_error(conf)) < 1e-3
    for foot in feet:
        assert np.linalg.norm(foot.compute_error(conf)) < 1e-4
    assert abs(np.linalg.norm(conf.q[3:7]) - 1.0) < 1e-12
    conf.check_limits()


def test_singular_hessian_with_saturated_bounds_is_still_solved(panda):
    """7-DoF arm, one 6-D task, tiny damping: P is singular; the step must still be exact."""
    conf = panda.configuration()
    task = FrameTask("panda_hand")
    T = conf.get_transform_frame_to_world("panda_hand")
    T.translation = T.translation + np.array([0.2, -0.3, 0.1])
    task.set_target(T)
    for _ in range(30):
        v = taskik.solve_ik(conf, [task], 0.01)
        problem = taskik.build_ik(conf, [task], 0.01)
        ref = qpsolvers.solve_qp(
            problem.P,
            problem.r,
            lb=problem.lb,
            ub=problem.ub,
            solver="osqp",
            eps_abs=1e-10,
            eps_rel=1e-10,
            max_iter=100000,
        )
        cost = 0.5 * v @ problem.P @ v + problem.r @ v
        ref_cost = 0.5 * ref @ problem.P @ ref + problem.r @ ref
        assert cost <= ref_cost + 1e-6 * abs(ref_cost)
        assert (v >= problem.lb - 1e-9).all() and (v <= problem.ub + 1e-9).all()
        conf.integrate_inplace(v, 0.01)


def test_any_qpsolvers_solver_gives_the_same_step(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.02, 0.01, 0])
    posture = PostureTask(1e-2)
    posture.set_target(ur5.q0)
    v_daqp = taskik.solve_ik(conf, [task, posture], 0.01, solver="daqp")
    options = {"osqp": {"eps_abs": 1e-9, "eps_rel": 1e-9, "polishing": True}}
    for solver in qpsolvers.available_solvers:
        v = taskik.solve_ik(conf, [task, posture], 0.01, solver=solver, **options.get(solver, {}))
        assert np.allclose(v, v_daqp, atol=1e-6), solver


def test_default_solver_is_daqp():
    assert taskik.default_solver() == "daqp"


def test_editing_the_task_list_or_costs_is_taken_into_account(ur5):
    conf = ur5.configuration()
    a = PositionTask("tool0", cost=1.0)
    a.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.02, 0, 0])
    b = PostureTask(cost=1.0)
    b.set_target(ur5.q0 + 0.3)
    tasks = [a]
    v1 = taskik.solve_ik(conf, tasks, 0.01, limits=[])
    tasks.append(b)
    v2 = taskik.solve_ik(conf, tasks, 0.01, limits=[])
    assert not np.allclose(v1, v2)
    b.cost = 1e-9
    v3 = taskik.solve_ik(conf, tasks, 0.01, limits=[])
    assert np.allclose(v3, v1, atol=1e-6)
    b.cost = 1.0
    assert np.allclose(taskik.solve_ik(conf, tasks, 0.01, limits=[]), v2)


@pytest.mark.parametrize("dt", [0.0, -1.0, np.nan, np.inf, "0.01"])
def test_bad_dt(ur5, dt):
    task = PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match="dt"):
        taskik.solve_ik(ur5.configuration(), [task], dt)


def test_bad_task_list(ur5):
    with pytest.raises(InvalidInput, match="Task objects"):
        taskik.solve_ik(ur5.configuration(), ["tool0"], 0.01)
    with pytest.raises(InvalidInput, match="Limit objects"):
        taskik.solve_ik(ur5.configuration(), [PostureTask()], 0.01, limits=["velocity"])


def test_unknown_solver_lists_the_installed_ones(ur5):
    task = PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match="did you mean 'daqp'.*installed"):
        taskik.solve_ik(ur5.configuration(), [task], 0.01, solver="daq")


def test_negative_damping(ur5):
    task = PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(InvalidInput, match="damping"):
        taskik.solve_ik(ur5.configuration(), [task], 0.01, damping=-1.0)


def test_report_lists_tasks_and_active_bounds(ur5):
    conf = ur5.configuration()
    task = FrameTask("tool0")
    T = conf.get_transform_frame_to_world("tool0")
    T.translation = T.translation + np.array([0.3, 0.0, 0.0])  # far: velocity limits saturate
    task.set_target(T)
    v = taskik.solve_ik(conf, [task], 0.01)
    rep = taskik.report(conf, [task], 0.01, v)
    assert isinstance(rep, taskik.StepReport)
    assert rep.tasks[0].error_norm == pytest.approx(np.linalg.norm(task.compute_error(conf)))
    assert rep.active and all(b.limit == "velocity" for b in rep.active)
    text = str(rep)
    assert "FrameTask('tool0'" in text and "velocity" in text


def test_a_list_edited_in_place_between_steps_is_seen(ur5):
    """The one-entry cache of the last task list compares contents, not just the list object."""
    conf = ur5.configuration()
    a = PostureTask(cost=1.0)
    a.set_target(ur5.q0 + 0.1)
    b = PostureTask(cost=1.0)
    b.set_target(ur5.q0 - 0.1)
    tasks = [a]
    v_a = taskik.solve_ik(conf, tasks, 0.01, limits=[])
    tasks[0] = b
    v_b = taskik.solve_ik(conf, tasks, 0.01, limits=[])
    assert np.allclose(v_a, -v_b) and not np.allclose(v_a, v_b)


def _in_place_edit_tasks(ur5):
    conf = ur5.configuration()
    T = conf.get_transform_frame_to_world("tool0")
    tool = PositionTask("tool0", cost=1.0)
    tool.set_target(T.translation + [0.05, -0.03, 0.02])
    low = PostureTask(cost=1.0)
    low.set_target(ur5.q0 + 0.3)
    high = PostureTask(cost=[0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    high.set_target(ur5.q0 - 0.4)
    return conf, tool, low, high


def test_a_flat_list_edited_in_place_steps_like_a_fresh_list(ur5):
    conf, tool, low, high = _in_place_edit_tasks(ur5)
    fresh = ur5.configuration()  # its own plan cache

    def step(tasks, limits=None):
        return taskik.solve_ik(conf, tasks, 0.01, limits=limits)

    def reference(tasks, limits=None):
        return taskik.solve_ik(
            fresh, list(tasks), 0.01, limits=None if limits is None else list(limits)
        )

    tasks = [tool, low, high]
    first = step(tasks)
    assert np.allclose(first, reference(tasks))
    tasks.remove(low)
    assert np.allclose(step(tasks), reference([tool, high]))
    assert not np.allclose(step(tasks), first)
    tasks.reverse()  # same tasks, other order: same step
    assert np.allclose(step(tasks), reference([tool, high]))
    tasks.insert(1, low)
    assert np.allclose(step(tasks), first)
    limits = []
    free = step(tasks, limits)
    limits.append(taskik.VelocityLimit(ur5.model, {"shoulder_pan_joint": 0.05}))
    bounded = step(tasks, limits)
    assert abs(free[0]) > 0.06 and abs(bounded[0]) <= 0.05 + 1e-9
    assert np.allclose(bounded, reference(tasks, limits))


def test_levels_edited_in_place_step_like_fresh_levels(ur5):
    conf, tool, low, high = _in_place_edit_tasks(ur5)
    fresh = ur5.configuration()

    def step(levels):
        return taskik.solve_ik(conf, levels, 0.01, limits=[])

    def reference(levels):
        return taskik.solve_ik(fresh, [list(level) for level in levels], 0.01, limits=[])

    levels = [[tool], [low]]
    first = step(levels)
    assert np.allclose(first, reference([[tool], [low]]))
    levels[1].append(high)  # a task added to a level
    assert np.allclose(step(levels), reference([[tool], [low, high]]))
    assert not np.allclose(step(levels), first)
    levels[1].remove(high)
    assert np.allclose(step(levels), first)
    levels.insert(1, [high])  # a level added between the two
    assert np.allclose(step(levels), reference([[tool], [high], [low]]))
    assert not np.allclose(step(levels), first)
    levels.pop(1)
    assert np.allclose(step(levels), first)
    levels.reverse()  # priorities swapped
    assert np.allclose(step(levels), reference([[low], [tool]]))
    assert not np.allclose(step(levels), first)


def test_steps_meet_saturated_bounds_exactly(panda, rng):
    """DAQP meets bounds to about 1e-9 here; the step (weighted or prioritized) is projected
    onto the box, so the bounds hold with no tolerance at all."""
    posture = PostureTask(1e-2)
    posture.set_target(panda.q0)
    for _ in range(15):
        conf = panda.configuration(panda.random_configuration(rng))
        task = FrameTask("panda_hand")
        T = conf.get_transform_frame_to_world("panda_hand")
        T.translation = T.translation + rng.normal(0.0, 0.3, 3)
        task.set_target(T)
        problem = taskik.build_ik(conf, [task, posture], 0.01)
        for tasks in ([task, posture], [[task], [posture]]):
            v = taskik.solve_ik(conf, tasks, 0.01)
            assert (v >= problem.lb).all() and (v <= problem.ub).all()
            assert np.isclose(v, problem.lb).any() or np.isclose(v, problem.ub).any()


def test_daqp_options_are_passed_on_the_weighted_step(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.3, -0.2, 0.1])
    joints = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint")
    limits = [taskik.VelocityLimit(ur5.model, {j: 0.05 for j in joints})]
    v = taskik.solve_ik(conf, [task], 0.01, limits=limits, solver="daqp")
    assert np.allclose(np.abs(v[:3]), 0.05)
    with pytest.raises(taskik.NoSolutionFound, match="'daqp'"):
        taskik.solve_ik(conf, [task], 0.01, limits=limits, solver="daqp", iter_limit=1)


def test_warm_started_steps_equal_cold_steps_along_a_trajectory(humanoid):
    """The DAQP workspaces kept between steps (one per task list, one per priority level)
    are updated with each step's QP: every step equals the same QP solved from scratch.
    The joints start near their upper limits and are pushed beyond: the position-limit
    bounds bind and shrink at every step."""
    q = humanoid.q0.copy()
    upper = humanoid.model.upperPositionLimit
    near = np.isfinite(upper[7:]) & (upper[7:] < 10.0)
    q[7:] = np.where(near, upper[7:] - 0.05, q[7:])
    conf = humanoid.configuration(q)
    feet = [FrameTask(f) for f in ("lleg_effector_body", "rleg_effector_body")]
    for t in feet:
        t.set_target_from_configuration(conf)
    hand = PositionTask("larm_effector_body")
    hand.set_target(conf.get_transform_frame_to_world("larm_effector_body").translation + 0.3)
    posture = PostureTask(1.0)
    target = q.copy()
    target[7:] += 0.5
    posture.set_target(target)
    slow = taskik.VelocityLimit(humanoid.model, {n: 5.0 for n in humanoid.model.names[2:]})
    limits = [taskik.ConfigurationLimit(humanoid.model), slow]
    weighted = [*feet, hand, posture]
    levels = [feet, [hand], [posture]]
    for _ in range(5):
        for tasks in (weighted, levels):
            # the plain step on both (the loop's adaptive damping would differ from a fresh copy)
            warm = taskik.solve_ik(conf, tasks, 0.01, limits=limits, adaptive=False)
            cold = taskik.solve_ik(conf.copy(), tasks, 0.01, limits=limits, adaptive=False)
            assert np.allclose(warm, cold, atol=1e-9)
        conf.integrate_inplace(warm, 0.01)


def test_a_model_given_for_the_configuration_is_named_with_the_fix(ur5):
    task = PostureTask()
    task.set_target(ur5.q0)
    hint = r"\(wrap the model: taskik\.Configuration\(model, q\)\)"
    with pytest.raises(InvalidInput, match=r"^configuration must be .*got Model " + hint):
        taskik.solve_ik(ur5.model, [task], 0.01)
    with pytest.raises(InvalidInput, match=r"got str$"):
        taskik.solve_ik("ur5", [task], 0.01)
    with pytest.raises(InvalidInput, match=r"got Data$"):
        taskik.solve_ik(ur5.model.createData(), [task], 0.01)


def test_an_integer_dt_is_a_number_of_seconds(ur5):
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0 + 0.1)
    assert np.array_equal(taskik.solve_ik(conf, [task], 1), taskik.solve_ik(conf, [task], 1.0))


@pytest.mark.parametrize(
    "keyword, value, hint",
    [
        ("constraints", ["task"], r"a priority level in taskik: solve_ik\(configuration, \[\["),
        ("barriers", ["barrier"], "barriers= takes taskik limits"),
    ],
)
def test_pinks_keywords_name_the_taskik_way(ur5, keyword, value, hint):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target_from_configuration(conf)
    whose = "pink's(?: and mink's)?"  # (constraints= is mink's too)
    with pytest.raises(InvalidInput, match=f"no {keyword}= keyword \\({whose}\\): .*{hint}"):
        taskik.solve_ik(conf, [task], 0.01, **{keyword: value})


def test_pinks_keywords_that_ask_for_what_taskik_does_are_accepted(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + 0.01)
    v = taskik.solve_ik(conf, [task], 0.01, adaptive=False)
    same = taskik.solve_ik(
        conf, [task], 0.01, adaptive=False, safety_break=False, constraints=[], barriers=None
    )
    assert np.allclose(v, same, rtol=0, atol=1e-9)  # (warm-started QP, damping 1e-12)


def test_a_solver_name_in_pinks_fourth_place_is_the_solver(ur5):
    conf = ur5.configuration()
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + 0.01)
    v = taskik.solve_ik(conf, [task], 0.01, "daqp", adaptive=False)
    same = taskik.solve_ik(conf, [task], 0.01, solver="daqp", adaptive=False)
    assert np.allclose(v, same, rtol=0, atol=1e-9)  # (warm-started QP, damping 1e-12)
