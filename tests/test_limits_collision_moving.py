"""CollisionLimit among moving obstacles: an obstacle the robot cannot escape is relaxed and
reported (never let through unreported), the obstacles' motion and the lookahead belong to a
step (a second evaluation of one step sees them again; adding an obstacle keeps the others'
history), the lookahead counts an obstacle's rotation, and the report flags the rows the
obstacle's motion binds."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from test_limits_collision import talos, talos_limit

import taskik
from taskik import geometry
from taskik.geometry import CollisionScene
from taskik.limits.collision import CollisionLimit

DT = 0.01


def ball_at_the_shoulder(speed: float = 0.3):
    """UR5 at q0; a ball moving along −x at ``speed`` m/s straight at the axis of the first
    joint, below the second: the first link (turned by the first joint only) has no
    velocity along the ball's path, so no motion escapes it."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    ball = geometry.sphere("ball", 0.05, [0.2, 0.0, 0.0])
    limit = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    return robot, conf, ball, limit, [posture], limits


def test_an_obstacle_the_robot_cannot_escape_is_relaxed_and_named():
    """Every step that ends with a pair closer than d_s − 0.1 mm names it as relaxed (the
    separation cap once swallowed the obstacle's motion: the row read 0·v ≤ 0, always met,
    and the ball went 2 cm into the link with nothing reported)."""
    _, conf, ball, limit, tasks, limits = ball_at_the_shoulder()
    names = limit.pair_names
    close = unreported = 0
    for k in range(40):
        ball.move_to([0.2 - 0.3 * DT * (k + 1), 0.0, 0.0])
        v = taskik.solve_ik(conf, tasks, DT, limits)
        named = {r.row for r in taskik.last_relaxation(conf).rows}
        conf.integrate_inplace(v, DT)
        every = limit.distances(conf, all_pairs=True)
        for pair, d in zip(every.pairs, every.distance, strict=True):
            if d < limit.safety_distance - 1e-4:
                close += 1
                unreported += names[pair] not in named
    assert close >= 5  # the ball does reach the link: the scene cannot be escaped
    assert unreported == 0


def test_an_obstacles_move_is_reported_a_step_ahead_within_the_relaxations_depth():
    """The rows carry the obstacles' predicted move over the next step, so the relaxation of
    step k names the approach that the obstacle's move at the start of step k+1 brings, and
    its depth (``slack · dt``) covers it: the moving-obstacle soak counts such an approach
    as foreseen. Here the ball comes on at 3 mm per step into a link that no joint moves
    along the normal (it alone closes the gap)."""
    _, conf, ball, limit, tasks, limits = ball_at_the_shoulder()
    i = limit.pair_names.index("shoulder_pan_joint_link / ball")

    def distance() -> float:
        every = limit.distances(conf, all_pairs=True)
        return float(every.distance[np.flatnonzero(every.pairs == i)[0]])

    before, depth, checked = distance(), 0.0, 0
    for k in range(40):
        ball.move_to([0.2 - 0.3 * DT * (k + 1), 0.0, 0.0])
        v = taskik.solve_ik(conf, tasks, DT, limits)
        conf.integrate_inplace(v, DT)
        after = distance()
        if after < limit.safety_distance and k > 1:  # (the motion is known from step 2 on)
            checked += 1
            assert after >= before - depth - 1e-5  # within what the last step reported
        rows = taskik.last_relaxation(conf).rows
        depth = max((r.depth for r in rows if r.row == limit.pair_names[i]), default=0.0)
        if after < limit.safety_distance and k > 1:
            assert depth >= 0.003 * 0.9  # the next 3 mm are reported now
        before = after
    assert checked >= 5


def test_the_row_of_a_pair_inside_d_s_still_carries_the_obstacles_motion():
    """Closer than d_s the robot is asked to separate at most at ξ (the cap); the obstacle's
    approach comes on top of that, so the row asks for more than ξ when the ball comes on."""
    _, conf, ball, limit, _, _ = ball_at_the_shoulder()
    ball.move_to([0.09, 0.0, 0.0])
    limit.compute_inequalities(conf, DT)
    ball.move_to([0.085, 0.0, 0.0])  # 5 mm toward the link in this step: 0.5 m/s
    _, h = limit.compute_inequalities(conf, DT)
    near = limit.distances(conf)
    i = limit.pair_names.index("shoulder_pan_joint_link / ball")
    row = int(np.flatnonzero(near.pairs == i)[0])
    assert near.distance[row] < limit.safety_distance
    # the cap (max(h, −min(ξ, reach)), here 0: the link has no reach along n) less the
    # ball's 0.5 m/s
    assert h[row] < -0.4


def test_a_second_evaluation_of_a_step_sees_the_same_obstacle_motion():
    """The rows of one step asked twice (a strict solve that raised, then the default one;
    another priority level) are the same: the motion is not consumed by the first call."""
    robot, conf, ball, limit, _, _ = ball_at_the_shoulder()
    ball.move_to([0.16, 0.0, 0.0])
    limit.compute_inequalities(conf, DT)
    ball.move_to([0.15, 0.0, 0.0])  # 1 cm toward the link
    _, h_first = limit.compute_inequalities(conf, DT)
    _, h_again = limit.compute_inequalities(conf, DT)
    np.testing.assert_allclose(h_again, h_first, rtol=0.0, atol=1e-6)
    fresh = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    _, h_static = fresh.compute_inequalities(conf, DT)
    names = limit.row_names()
    static = dict(zip(fresh.row_names(), h_static, strict=True))
    i = names.index("shoulder_pan_joint_link / ball")
    # the motion (−1 cm along the normal per step, −1 m/s) is in both calls' rows
    assert h_again[i] < static["shoulder_pan_joint_link / ball"] - 0.9


def test_adding_an_obstacle_keeps_the_motion_of_the_others():
    """Adding or removing an obstacle rebuilds the scene; the others' motion over the step is
    still seen (the history is kept by name, by value)."""
    robot, conf, ball, limit, _, _ = ball_at_the_shoulder()
    ball.move_to([0.16, 0.0, 0.0])
    limit.compute_inequalities(conf, DT)
    ball.move_to([0.15, 0.0, 0.0])
    far = geometry.sphere("far", 0.05, [3.0, 3.0, 3.0])
    limit.add_obstacle(far)
    _, h_moving = limit.compute_inequalities(conf, DT)
    reference = CollisionLimit(robot, obstacles=[ball, far], self_collision=False)
    _, h_static = reference.compute_inequalities(conf, DT)
    moving = dict(zip(limit.row_names(), h_moving, strict=True))
    static = dict(zip(reference.row_names(), h_static, strict=True))
    name = "shoulder_pan_joint_link / ball"
    assert moving[name] < static[name] - 0.9  # −1 cm per 10 ms step


def test_the_lookahead_is_the_same_when_a_step_is_evaluated_twice():
    """The same step key and placements: the same widened detection, not none."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.05, tool + [0.0, 0.31, 0.0])
    scene = CollisionScene(robot.model, robot.collision_model, [], [ball])
    scene.distances(conf.data, 0.05, lookahead=True, step=b"0")
    ball.move_to(tool + [0.0, 0.25, 0.0])  # 6 cm in one step: 9 cm from the arm now
    first = scene.distances(conf.data, 0.05, lookahead=True, step=b"1").pairs
    again = scene.distances(conf.data, 0.05, lookahead=True, step=b"1").pairs
    assert len(first) >= 1  # beyond d_i, watched because it comes on fast
    assert len(scene.distances(conf.data, 0.05).pairs) == 0
    np.testing.assert_array_equal(again, first)
    # a new step in which nothing moved: no widening left
    assert len(scene.distances(conf.data, 0.05, lookahead=True, step=b"2").pairs) == 0


def test_the_lookahead_counts_an_obstacle_turning_about_its_centre():
    """A 1 m bar swung about its centre moves its ends by 5 cm per step while its centre
    stays: the pair is watched before the end reaches the detection distance."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    # a bar along x, centred 0.5 m along +y of the tool, its end swinging toward the tool
    centre = tool + [0.0, 0.5, 0.0]

    def at(angle: float) -> pin.SE3:
        return pin.SE3(pin.utils.rotate("z", angle), centre)

    bar = geometry.box("bar", [1.0, 0.04, 0.04], at(1.2))
    scene = CollisionScene(robot.model, robot.collision_model, [], [bar])
    scene.distances(conf.data, 0.05, lookahead=True, step=b"0")
    bar.pose = at(1.3)
    near = scene.distances(conf.data, 0.05, lookahead=True, step=b"1")
    every = scene.distances(conf.data, 0.05, all_pairs=True)
    gap = float(every.distance.min())
    assert 0.05 + 0.005 < gap < 0.05 + 2 * 0.05 - 0.005  # beyond d_i, within twice the swing
    assert len(near.pairs) >= 1


def test_the_report_flags_the_rows_an_approaching_obstacle_binds():
    """At the step just solved, the report's flags are those of the step's rows, the
    obstacle's motion included (they once left it out: a pair pushed away by a ball coming
    on was reported inactive)."""
    _, conf, ball, limit, tasks, limits = ball_at_the_shoulder()
    ball.move_to([0.14, 0.0, 0.0])
    taskik.solve_ik(conf, tasks, DT, limits)
    flagged = 0
    for k in range(5):
        ball.move_to([0.14 - 0.005 * (k + 1), 0.0, 0.0])  # 0.5 m/s
        v = taskik.solve_ik(conf, tasks, DT, limits)
        G, h = limit.compute_inequalities(conf, DT)
        held = {n for n, on in zip(limit.row_names(), G @ v >= h - 1e-9, strict=True) if on}
        report = limit.report(conf, v, DT)
        assert {n for n, on in zip(report.names, report.active, strict=True) if on} == held
        flagged += "shoulder_pan_joint_link / ball" in held
        conf.integrate_inplace(v, DT)
    assert flagged >= 1


@pytest.mark.parametrize("commit", [True, False])
def test_obstacle_steps_are_rigid_displacements(commit):
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    ball = geometry.sphere("ball", 0.05, [1.0, 0.0, 0.0])
    scene = CollisionScene(robot.model, robot.collision_model, [], [ball])
    scene.distances(conf.data, 0.05)
    assert np.allclose(scene.obstacle_steps(b"a"), np.eye(4))  # first seen: no motion
    before = pin.SE3(ball.pose)
    ball.pose = pin.SE3(pin.utils.rotate("x", 0.3), np.array([1.0, 0.2, 0.1]))
    scene.distances(conf.data, 0.05)
    D = scene.obstacle_steps(b"b", commit=commit)[0]
    np.testing.assert_allclose(D @ before.homogeneous, ball.pose.homogeneous, atol=1e-12)
    again = scene.obstacle_steps(b"b")[0]  # the same step (committed or now)
    np.testing.assert_allclose(again, D, atol=1e-12)


def test_an_obstacle_speeding_up_is_predicted_to_keep_speeding_up():
    """Moves of 2 then 4 mm toward the link: the next is taken as 6 mm (constant
    acceleration), not 4 (the last step's pace, which left ``a dt²`` per step uncounted);
    a ball braking (6 then 4 mm) is still taken at 4 mm, the more pessimistic guess."""

    def bound(first: float, second: float) -> float:
        _, conf, ball, limit, _, _ = ball_at_the_shoulder()
        x = 0.13 + first + second  # (the same end for every pair of moves)
        for dx in (0.0, first, second):
            x -= dx
            ball.move_to([x, 0.0, 0.0])
            rows = limit.compute_inequalities(conf, DT)
        assert rows is not None
        h = rows[1]
        return float(h[limit.row_names().index("shoulder_pan_joint_link / ball")])

    steady = bound(0.004, 0.004)
    assert bound(0.002, 0.004) < steady - 0.15  # −0.2 m/s more: 2 mm more in 10 ms
    assert bound(0.006, 0.004) == pytest.approx(steady, abs=0.02)


def test_an_obstacle_moving_away_gives_no_room_in_advance():
    """A ball that moved 1 cm away in the last step may stop: the row allows what it would
    allow the ball at rest there, not 1 m/s more (the Panda that followed receding
    obstacles into the room they were about to leave ended up 2.4 mm inside d_s)."""
    robot, conf, ball, limit, _, _ = ball_at_the_shoulder()
    ball.move_to([0.12, 0.0, 0.0])
    limit.compute_inequalities(conf, DT)
    ball.move_to([0.13, 0.0, 0.0])
    _, h_away = limit.compute_inequalities(conf, DT)
    still = CollisionLimit(robot, obstacles=[ball], self_collision=False)
    _, h_still = still.compute_inequalities(conf, DT)
    away = dict(zip(limit.row_names(), h_away, strict=True))
    static = dict(zip(still.row_names(), h_still, strict=True))
    name = "shoulder_pan_joint_link / ball"
    assert away[name] == pytest.approx(static[name], abs=1e-3)


def test_a_pair_beyond_the_detection_distance_cannot_be_crossed_in_one_step():
    """Talos's hand at rest 7 cm from a ball (beyond d_i = 5 cm), sent through it: within
    its velocity limits the arm can move 11 cm in one 10 ms step. Without a row for the pair
    the first step went 45 mm into the ball (no lookahead yet: the arm had not moved); the
    pairs within d_i plus how far the velocity box lets them approach get rows, and d_s
    holds."""
    robot = talos()
    conf = robot.configuration()
    frame = robot.end_effectors[3]
    start = conf.get_transform_frame_to_world(frame).translation
    way = np.array([0.7, 0.0, -0.3]) / np.linalg.norm([0.7, 0.0, -0.3])
    hand = taskik.PositionTask(frame, cost=1.0, lm_damping=1.0)
    hand.set_target(start + way)
    ball = geometry.sphere("ball", 0.1, start + 0.27 * way)
    limit = talos_limit(self_collision=False, obstacles=[ball])
    assert limit.clearance(conf) + limit.safety_distance > limit.detection_distance
    base = taskik.BaseVelocityLimit(robot.model, linear=1.0, angular=2.0)
    limits = [*taskik.limits.default_limits(robot.model), base, limit]
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    for _ in range(5):
        conf.integrate_inplace(taskik.solve_ik(conf, [hand, posture], DT, limits), DT)
        assert limit.clearance(conf) > -1e-4


def test_the_approach_bound_covers_every_velocity_in_the_box():
    """``approach_bounds``: for velocities at the corners of the box, over a short step
    (first order), no pair's distance (self pairs sharing joints, and an obstacle) falls by
    more than the bound."""
    from taskik.geometry.bounds import approach_bounds
    from taskik.geometry.scene import _joint_jacobians

    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    ball = geometry.sphere("ball", 0.05, [0.5, 0.1, 0.4])
    limit = CollisionLimit(robot, obstacles=[ball])
    scene = limit.scene
    rng = np.random.default_rng(3)
    eps = 1e-5
    travel = robot.model.velocityLimit * eps
    for _ in range(4):
        q = pin.randomConfiguration(robot.model)
        conf.update(q)
        before = scene.distances(conf.data, 0.0, all_pairs=True)
        centres, _ = scene._world_centres()
        support = scene._support[scene._joint_of]
        J = _joint_jacobians(conf.data, robot.model.nv)
        bound = approach_bounds(J, centres, scene._radii, support, scene.pairs, travel)
        assert (bound > 0).all()
        for _ in range(8):
            v = robot.model.velocityLimit * rng.choice([-1.0, 1.0], robot.model.nv)
            conf.update(pin.integrate(robot.model, q, v * eps))
            after = scene.distances(conf.data, 0.0, all_pairs=True)
            approach = before.distance - after.distance
            assert (approach <= bound * 1.01 + 1e-7).all()


def test_a_face_contact_inside_d_s_cannot_come_closer_unreported():
    """A seeded moment of the moving-obstacle soak: a slab coming down at 4 cm/s on the
    Panda's second link, which only the first two joints move, already inside ``d_s``. The
    closest point alternates between a hull vertex no joint moves along the normal (its row
    ``0·v ≤ h < 0`` is relaxed and named) and a neighbour of the same face, whose row the
    step met at first order while turning the face brought the first vertex nearer: three
    steps ended closer, unreported. The tilt rows of a pair closer than ``d_s`` now hold it
    (no point within the lever may approach, beyond what the obstacle's motion forces), so
    every step that brings it closer names it."""
    robot = taskik.robots.load("panda")
    q = [-1.50775559, -1.62975131, 1.53553349, -0.7775728, 2.4796858, 2.04111686, 0.785]
    conf = robot.configuration(np.array(q))
    # the slab's centre over the 45 steps (a swing, to 0.014 mm)
    path = np.array(
        [
            [5.03248246e-06, 2.94574741e-06, -4.26654631e-06],
            [3.59008222e-04, 2.10144307e-04, -3.04367718e-04],
            [1.83529173e-01, -8.79103681e-02, 4.30201940e-01],
        ]
    )

    def at(k: int) -> np.ndarray:
        return path[0] * k * k + path[1] * k + path[2]

    slab = geometry.box("slab", [0.37035052, 0.3543889, 0.04791242], at(0))
    table = geometry.halfspace("table", [0.0, 0.0, 1.0], 0.0)
    limit = CollisionLimit(robot, obstacles=[table, slab])
    hand = taskik.PositionTask("panda_hand", 1.0)
    hand.set_target([0.303, 0.7868, 0.2659])
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    names = limit.pair_names

    def distances() -> np.ndarray:
        every = limit.distances(conf, all_pairs=True)
        d = np.full(len(names), np.inf)
        d[every.pairs] = every.distance
        return d

    before = distances()
    closer = unreported = 0
    for k in range(45):
        if k == 10:
            hand.set_target([0.5477, 0.5822, 0.3847])
        slab.move_to(at(k + 1))
        v = taskik.solve_ik(conf, [hand, posture], DT, limits)
        relaxation = taskik.last_relaxation(conf)
        named = {r.row for r in relaxation.rows} if relaxation else set()
        conf.integrate_inplace(v, DT)
        after = distances()
        for i in np.flatnonzero((after < limit.safety_distance - 1e-4) & (after < before - 1e-4)):
            closer += 1
            unreported += names[i] not in named
        before = after
    assert closer >= 3  # the slab does push the link in
    assert unreported == 0
