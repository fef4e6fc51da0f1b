"""CollisionLimit: the velocity damper's rows, closed loops that stay out of collision, a start
in penetration, a moving obstacle, conflicts that name the pairs, and bad input."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import taskik
from taskik import geometry
from taskik.exceptions import InvalidInput, NoSolutionFound, UnknownName
from taskik.geometry import convexify
from taskik.limits.collision import CollisionLimit

DT = 0.01


def arm_and_ball(offset=(0.0, 0.2, 0.0), radius=0.08, **options):
    """UR5 at q0, a ball between its tool and a target 0.4 m along +y."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0")
    ball = geometry.sphere("ball", radius, tool.translation + np.asarray(offset))
    limit = CollisionLimit(robot, obstacles=[ball], **options)
    target = tool.copy()
    target.translation = tool.translation + np.array([0.0, 0.4, 0.0])
    task = taskik.FrameTask("tool0", 1.0, 0.1)
    task.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    return robot, conf, ball, limit, [task, posture], target


def closest(limit: CollisionLimit, conf: taskik.Configuration) -> float:
    """The closest monitored pair (pairs beyond the detection distance are farther)."""
    near = limit.distances(conf).distance
    return float(near.min()) if len(near) else limit.detection_distance


def run(conf, tasks, limits, steps, watch, dt=DT, levels=False, strict=False):
    low = np.inf
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, dt, limits, strict=strict)
        assert np.all(np.isfinite(v))
        conf.integrate_inplace(v, dt)
        low = min(low, closest(watch, conf))
    return low


# ------------------------------------------------------------------------------ the rows
def test_rows_are_the_velocity_damper():
    robot, conf, _, limit, _, _ = arm_and_ball(offset=(0.0, 0.13, 0.0))
    G_rows, h = limit.compute_inequalities(conf, DT)
    near = limit.distances(conf)
    span = limit.detection_distance - limit.safety_distance - limit.buffer
    k = min(limit.speed / span, limit.gain / DT)
    n = len(near.pairs)
    np.testing.assert_allclose(h[:n], k * (near.distance - limit.safety_distance - limit.buffer))
    np.testing.assert_allclose(G_rows[:n], -near.gradient)
    # four tilt rows per pair of non-spheres (the ball is one: none here), same bound
    assert len(h) == n + 4 * int((near.lever > 0).sum())
    assert limit.rate(DT) == pytest.approx(0.5 / 0.038)
    assert limit.rate(1.0) == pytest.approx(0.5)  # long steps: half the margin at most
    # a step on the boundary of the row approaches the ball by h·dt, to first order
    i = int(np.argmin(near.distance))
    g = G_rows[i]
    v = g * h[i] / (g @ g)
    after = taskik.Configuration(robot.model, pin.integrate(robot.model, conf.q, v * 1e-3))
    d_after = limit.distances(after, all_pairs=True)
    row = np.flatnonzero(d_after.pairs == near.pairs[i])[0]
    assert d_after.distance[row] - near.distance[i] == pytest.approx(-h[i] * 1e-3, rel=1e-3)


def test_no_rows_when_every_pair_is_far():
    _, conf, _, limit, _, _ = arm_and_ball(offset=(0.0, 1.0, 0.0), self_collision=False)
    assert limit.compute_inequalities(conf, DT) is None
    assert limit.row_names() == []


# ------------------------------------------------------------------------------ loops
def test_the_arm_goes_around_the_ball_without_touching_it():
    robot, conf, _, limit, tasks, target = arm_and_ball()
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    low = run(conf, tasks, limits, 400, limit)
    assert low >= limit.safety_distance - 1e-4
    # without the limit the same loop goes through it
    robot, conf, _, watch, tasks, _ = arm_and_ball()
    plain = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    assert run(conf, tasks, plain, 400, watch) < 0.0


def test_levels_keep_the_limit_too():
    robot, conf, _, limit, (task, posture), _ = arm_and_ball()
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    low = run(conf, [[task], [posture]], limits, 300, limit)
    assert low >= limit.safety_distance - 1e-4


def test_a_start_in_penetration_pushes_out():
    robot, conf, ball, limit, (_, posture), _ = arm_and_ball()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball.move_to(tool + [0.0, 0.0, 0.05])  # the tool is inside the ball
    start = closest(limit, conf)
    assert start < -0.02
    limits = [taskik.VelocityLimit(robot.model), limit]
    distances = []
    for _ in range(200):
        v = taskik.solve_ik(conf, [posture], DT, limits)
        conf.integrate_inplace(v, DT)
        distances.append(closest(limit, conf))
    assert distances[-1] >= limit.safety_distance - 1e-4
    assert np.all(np.diff(distances[: np.argmax(np.array(distances) >= 0)]) > 0)


def test_a_moving_obstacle_pushes_the_arm_away():
    robot, conf, ball, limit, (_, posture), _ = arm_and_ball(offset=(0.0, 0.3, 0.0))
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    start = conf.get_transform_frame_to_world("tool0").translation.copy()
    centre = ball.pose.translation.copy()
    low = np.inf
    for k in range(150):  # the ball moves 0.3 m toward the tool at 0.2 m/s
        ball.move_to(centre - [0.0, 0.2 * DT * (k + 1), 0.0])
        v = taskik.solve_ik(conf, [posture], DT, limits)
        conf.integrate_inplace(v, DT)
        low = min(low, closest(limit, conf))
    moved = conf.get_transform_frame_to_world("tool0").translation - start
    assert low >= limit.safety_distance - 1e-3
    # the ball ends where the tool started: the tool was pushed out of its way
    assert np.linalg.norm(moved) > 0.08 + 0.05 + limit.safety_distance - 1e-3


def test_self_collision_of_the_humanoid_crossing_its_arms():
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    limit = CollisionLimit(robot)
    feet = [taskik.FrameTask(f, 1.0, 1.0) for f in robot.end_effectors[:2]]
    for task in feet:
        task.set_target(conf.get_transform_frame_to_world(task.frame))
    hand = taskik.PositionTask("rarm_effector_body", 1.0)
    hip = conf.get_transform_frame_to_world("lleg_shoulder1_body").translation
    hand.set_target(hip + [0.3, 0.0, 0.0])
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    low = run(conf, [*feet, hand, posture], limits, 300, limit)
    assert low >= limit.safety_distance - 1e-4
    # the plain loop brings the arm into the body
    conf = robot.configuration()
    plain = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    assert run(conf, [*feet, hand, posture], plain, 300, limit) < limit.safety_distance - 1e-3


# ------------------------------------------------------------------------------ reports
def test_report_lists_near_pairs_closest_first_with_the_active_rows():
    robot, conf, _, limit, tasks, _ = arm_and_ball(offset=(0.0, 0.12, 0.0))
    limits = [taskik.VelocityLimit(robot.model), limit]
    v = taskik.solve_ik(conf, tasks, DT, limits)
    report = limit.report(conf, v, DT)
    assert len(report.names) >= 1 and np.all(np.diff(report.distances) >= 0)
    assert report.active.any()
    assert "ball" in str(report) and "active" in str(report)
    assert report.segments.shape == (len(report.names), 2, 3)
    assert not limit.report(conf).active.any()


def test_a_conflict_names_the_pairs():
    robot, conf, ball, limit, (_, posture), _ = arm_and_ball()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball.move_to(tool)  # deep inside, and joints allowed to move at 1e-6 rad/s only
    slow = robot.model.copy()
    slow.velocityLimit[:] = 1e-6
    with pytest.raises(NoSolutionFound, match="ball"):
        taskik.solve_ik(conf, [posture], DT, [taskik.VelocityLimit(slow), limit], strict=True)


# ------------------------------------------------------------------------------ input
def test_bad_input_is_named():
    robot = taskik.robots.load("ur5")
    with pytest.raises(InvalidInput, match="collision geometry"):
        CollisionLimit(robot.model)
    with pytest.raises(InvalidInput, match="detection_distance"):
        CollisionLimit(robot, safety_distance=0.05, detection_distance=0.05)
    with pytest.raises(UnknownName, match="shoulder_lift_joint_link"):
        CollisionLimit(robot, self_collision=[("shoulder_lift_joint_lnk", "wrist_1_joint_link")])
    limit = CollisionLimit(robot, self_collision=False)
    assert limit.pair_names == []
    limit.add_obstacle(geometry.sphere("b", 0.1, [1.0, 0.0, 0.0]))
    assert len(limit.pair_names) == len(robot.collision_model.geometryObjects)
    with pytest.raises(UnknownName):
        limit.remove_obstacle("c")
    assert limit.remove_obstacle("b").name == "b" and limit.obstacles == []


# ------------------------------------------------------------------------------ property
@settings(max_examples=35, deadline=None)
@given(
    kind=st.sampled_from(["sphere", "box", "cylinder", "capsule"]),
    centre=st.tuples(*[st.floats(-0.3, 0.3)] * 3),
    rpy=st.tuples(*[st.floats(-1.5, 1.5)] * 3),
    radius=st.floats(0.03, 0.15),
    goal=st.tuples(*[st.floats(-0.5, 0.5)] * 3),
)
# a start 10.3 mm from a box face, between d_s (10 mm) and d_s + buffer (12 mm): the pair must
# separate, and with the four tilt rows as well as its damper row the first step had no
# solution (found by a random run)
@example(
    kind="box", centre=(-0.298828125, -0.173828125, -0.09765625), rpy=(-0.5, 0.0, 0.0),
    radius=0.125, goal=(0.0, 0.0, 0.0),
)  # fmt: skip
def test_random_obstacles_and_targets_never_break_the_safety_distance(
    kind, centre, rpy, radius, goal
):
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    pose = pin.SE3(pin.rpy.rpyToMatrix(*rpy), hand.translation + np.asarray(centre))
    ball = {
        "sphere": lambda: geometry.sphere("ball", radius, pose),
        "box": lambda: geometry.box("ball", [radius, 2 * radius, 1.5 * radius], pose),
        "cylinder": lambda: geometry.cylinder("ball", radius, 3 * radius, pose),
        "capsule": lambda: geometry.capsule("ball", radius, 3 * radius, pose),
    }[kind]()
    limit = CollisionLimit(robot, obstacles=[ball])
    if closest(limit, conf) < limit.safety_distance:
        ball.move_to(hand.translation + [0.0, 0.0, 1.0])  # not a start in collision here
    task = taskik.FrameTask("panda_hand", 1.0, 0.0)
    target = hand.copy()
    target.translation = hand.translation + np.asarray(goal)  # maybe inside the ball
    task.set_target(target)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    # 150 steps: over the examples CI replays, the closest approach comes by step 112 (the
    # hand then presses against the obstacle, or its target is reached)
    low = run(conf, [task, posture], limits, 150, limit)
    assert low >= limit.safety_distance - 1e-4


# ------------------------------------------------------------------------------ posture
def hand_under_a_block():
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    block = geometry.box("block", [0.3, 0.3, 0.1], hand.translation + [0.0, 0.0, -0.12])
    limit = CollisionLimit(robot, obstacles=[block])
    task = taskik.FrameTask("panda_hand", 1.0, 0.0)
    target = hand.copy()
    target.translation = hand.translation + [0.0, 0.0, -0.25]  # under the block
    task.set_target(target)
    return robot, conf, limit, task


def test_solve_posture_finds_a_configuration_clear_of_obstacles():
    robot, conf, limit, task = hand_under_a_block()
    options = {"method": "qp", "max_searches": 5, "max_iterations": 100, "rng": 0}
    free = taskik.solve_posture(conf, [task], **options)
    assert free.success and limit.clearance(robot.configuration(free.q)) < -0.05  # through
    clear = taskik.solve_posture(conf, [task], limits=[limit], **options)
    assert clear.success
    assert limit.clearance(robot.configuration(clear.q)) >= -1e-4
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    levels = taskik.solve_posture(conf, [[task], [posture]], limits=[limit], **options)
    assert limit.clearance(robot.configuration(levels.q)) >= -1e-4


def test_long_steps_watch_every_pair():
    robot, conf, limit, _ = hand_under_a_block()
    rows_long = limit.compute_inequalities(conf, 1.0)
    rows_short = limit.compute_inequalities(conf, DT)
    assert len(rows_long[1]) == len(limit.pair_names)  # one row each: no tilt rows
    assert rows_short is None or len(rows_short[1]) < len(limit.pair_names)


def test_solve_posture_refuses_limits_where_steps_have_no_inequalities():
    _, conf, limit, task = hand_under_a_block()
    with pytest.raises(InvalidInput, match="method='qp'"):
        taskik.solve_posture(conf, [task], limits=[limit])


def test_the_example_scenes_stay_clear_and_do_their_job():
    import runpy
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "collision_avoidance.py"
    scenes = runpy.run_path(str(path), run_name="example")
    panda_low, panda_miss = scenes["panda_behind_a_box"](True)
    hip_low, hip_miss = scenes["humanoid_hand_to_hip"](True)
    ball_low, pushed = scenes["ball_pushes_the_arm"](True)
    assert min(panda_low, hip_low, ball_low) >= 0.01 - 1e-4
    assert panda_miss < 1e-3 and hip_miss < 1e-3  # reached behind the box / the hip
    assert pushed > 0.08 + 0.05 + 0.01 - 1e-3  # out of the ball's way
    assert scenes["panda_behind_a_box"](False)[0] < 0  # without it: through the box


@settings(max_examples=5, deadline=None)
@given(
    right=st.tuples(*[st.floats(-0.4, 0.4)] * 3),
    left=st.tuples(*[st.floats(-0.4, 0.4)] * 3),
)
def test_talos_self_collision_holds_for_random_hand_targets(right, left):
    """Five hand targets × 200 steps here; ``benchmarks/collisions.py --soak`` runs 10,000 and
    more.

    Talos's links are convex hulls of meshes, whose flat faces slide side on: without the
    tilt rows this undercut d_s by 3.5 mm (right hand (−0.125, 0.25, −0.125))."""
    robot = talos()
    conf = robot.configuration()
    limit = talos_limit()
    tasks = []
    for frame in robot.end_effectors[:2]:
        foot = taskik.FrameTask(frame, 1.0, 1.0)
        foot.set_target_from_configuration(conf)
        tasks.append(foot)
    for frame, offset in zip(robot.end_effectors[2:], (left, right), strict=True):
        hand = taskik.PositionTask(frame, 1.0)
        hand.set_target(conf.get_transform_frame_to_world(frame).translation + offset)
        tasks.append(hand)
    posture = taskik.PostureTask(1e-2)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    assert run(conf, [*tasks, posture], limits, 200, limit) >= limit.safety_distance - 1e-4


_TALOS: list = []


def talos() -> taskik.robots.Robot:
    """Talos, loaded once for the collision tests (its meshes take seconds to load), and
    its collision meshes' convex hulls, computed once (CollisionLimit hulls them again
    otherwise: a second)."""
    if not _TALOS:
        robot = taskik.robots.load("talos")
        _TALOS.extend([robot, convexify(robot.collision_model)])
    return _TALOS[0]


def talos_limit(**options) -> CollisionLimit:
    """``CollisionLimit(talos(), **options)`` on the hulls computed once: the same limit
    (hulls are convex: convexify leaves them as they are)."""
    robot = talos()
    return CollisionLimit(robot, geometry_model=_TALOS[1], **options)


def robot_named(name: str) -> taskik.robots.Robot:
    """A bundled robot, Talos loaded once."""
    return talos() if name == "talos" else taskik.robots.load(name)


def test_it_composes_with_the_other_limits():
    robot, conf, _, limit, tasks, _ = arm_and_ball()
    model = robot.model
    limits = [
        taskik.ConfigurationLimit(model),
        taskik.VelocityLimit(model),
        taskik.AccelerationLimit(model, 500.0),
        taskik.FrozenJoints(model, ["wrist_3_joint"]),
        limit,
    ]
    wrist = model.joints[model.getJointId("wrist_3_joint")].idx_q
    start = conf.q[wrist]
    low = run(conf, tasks, limits, 300, limit)
    assert low >= limit.safety_distance - 1e-4
    assert conf.q[wrist] == start


def test_a_damper_the_acceleration_limit_cannot_follow_is_a_named_conflict():
    # the damper asks a fast pair to slow down within a step or two; with 10 rad/s² the
    # arm cannot brake that hard, and the error says which pair could not be kept (the
    # lookahead and the bound on how far the velocity box lets a pair approach give the
    # pair its row early: at 15 rad/s² and above the arm now brakes in time)
    robot, conf, _, limit, tasks, _ = arm_and_ball(self_collision=False)
    model = robot.model
    limits = [taskik.VelocityLimit(model), taskik.AccelerationLimit(model, 10.0), limit]
    with pytest.raises(NoSolutionFound, match="/ ball"):
        run(conf, tasks, limits, 300, limit, strict=True)


def panda_behind_block():
    """The Panda's hand (position only) sent 0.5 m behind a box next to it: a link slides
    along the box's face. Returns ``(robot, configuration, limit, hand task)``."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    hand = conf.get_transform_frame_to_world("panda_hand")
    block = geometry.box("block", [0.125, 0.25, 0.1875], hand.translation + [0, -0.25, 0])
    limit = CollisionLimit(robot, obstacles=[block])
    task = taskik.FrameTask("panda_hand", 1.0, 0.0)
    target = hand.copy()
    target.translation = hand.translation + [0.0, -0.5, 0.0]  # behind the block
    task.set_target(target)
    return robot, conf, limit, task


def test_tilt_rows_keep_a_link_sliding_along_a_box_face_clear():
    """Without the four tilt rows a pair (box face, capsule side) was driven 19 mm past d_s:
    the closest points alone do not see a rotation of a face contact."""
    robot, conf, limit, task = panda_behind_block()
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    assert run(conf, [task, posture], limits, 300, limit) >= limit.safety_distance - 1e-4
    near = limit.distances(conf)
    assert (near.lever > 0).any()  # capsule and box: tilt rows were in play


def hand_toward_a_ball():
    """Talos's hand at rest 7 cm from a ball (beyond d_i = 5 cm) and a velocity that
    drives it into the ball within one 10 ms step (5 m/s along the way to it)."""
    robot = talos()
    conf = robot.configuration()
    frame = robot.end_effectors[3]
    start = conf.get_transform_frame_to_world(frame).translation
    way = np.array([0.7, 0.0, -0.3]) / np.linalg.norm([0.7, 0.0, -0.3])
    ball = geometry.sphere("ball", 0.1, start + 0.27 * way)
    limit = talos_limit(self_collision=False, obstacles=[ball])
    J = pin.getFrameJacobian(
        robot.model, conf.data, robot.model.getFrameId(frame), pin.LOCAL_WORLD_ALIGNED
    )[:3, 6:]  # (the base at rest)
    v = np.zeros(robot.model.nv)
    v[6:] = np.linalg.lstsq(J, 5.0 * way, rcond=None)[0]
    return robot, conf, limit, v


def test_a_checked_step_gets_the_rows_of_the_pairs_it_would_bring_too_close():
    """Announced (``expect_check``, as ``solve_ik`` does), the rows are those of the pairs
    within d_i: none here; ``check_step`` passes a step at rest and, for a step that drives
    the hand into the ball, returns the rows with the pair's row, which that step breaks.
    Not announced, the rows cover every velocity of the box: the pair has its row at once."""
    _, conf, limit, v = hand_toward_a_ball()
    assert limit.clearance(conf) + limit.safety_distance > limit.detection_distance
    rows = limit.compute_inequalities(conf, DT)
    assert rows is not None and any(n.endswith("/ ball") for n in limit.row_names())
    limit.expect_check()
    assert limit.compute_inequalities(conf, DT) is None
    assert limit.check_step(conf, np.zeros(conf.nv), DT) is None
    rows = limit.check_step(conf, v, DT)
    assert rows is not None
    G, h = rows
    names = limit.row_names()
    assert len(names) == len(h) and all(n.endswith("/ ball") for n in names)
    assert (G @ v > h + 0.1).any()  # the step would go into the ball: its row forbids it
    # a check at another q (a step not announced) checks nothing
    conf.integrate_inplace(0.01 * v, DT)
    assert limit.check_step(conf, v, DT) is None


def test_rows_grow_with_the_near_pairs_not_with_the_monitored_ones():
    """Talos's 882 self-collision pairs at its reference posture: the step of ``solve_ik``
    gives rows to the pairs within the detection distance and to no other (the rest are
    checked after the solve); the rows that cover every velocity of the box are many more."""
    robot = talos()
    conf = robot.configuration()
    limit = talos_limit()
    within = limit.distances(conf, all_pairs=True)
    near = {limit.pair_names[k] for k in within.pairs[within.distance < 0.05]}
    box = limit.compute_inequalities(conf, DT)
    assert box is not None
    every = set(limit.row_names())
    posture = taskik.PostureTask(1e-2)
    posture.set_target(robot.q0)
    limits = [*taskik.limits.default_limits(robot.model), limit]
    start = taskik.Configuration(robot.model, robot.q0)
    v = taskik.solve_ik(start, [posture], DT, limits)
    # the step's rows are those of the near pairs (the QP is given those that may bind)
    assert set(limit.report(start, v, DT).names) == near
    assert set(limit.row_names()) <= near
    assert len(every) > 2 * len(near)
