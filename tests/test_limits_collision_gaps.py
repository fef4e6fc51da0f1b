"""CollisionLimit: the report's text and flags, the clearance, the names of the rows, the
shape of the tilt rows, the separation cap and the constructor's checks."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from test_limits_collision import DT, arm_and_ball, hand_under_a_block, panda_behind_block, run

import taskik
from taskik import geometry
from taskik.exceptions import InvalidInput
from taskik.limits.collision import CollisionLimit, CollisionReport


def test_report_text():
    report = CollisionReport(
        ("a / b", "c / d", "e / f"),
        np.array([0.005, 0.01, 0.03]),
        np.array([True, False, False]),
        np.zeros((3, 2, 3)),
        7,
        0.01,
    )
    assert str(report) == (
        "3 of 7 monitored pairs near:\n"
        "      5.00 mm  a / b active  BELOW SAFETY\n"
        "     10.00 mm  c / d\n"
        "     30.00 mm  e / f"
    )
    empty = CollisionReport((), np.zeros(0), np.zeros(0, dtype=bool), np.zeros((0, 2, 3)), 4, 0.01)
    assert str(empty) == "no pair within the detection distance (4 monitored)"


def test_report_flags_are_booleans_and_a_step_at_rest_binds_nothing():
    robot, conf, _, limit, _, _ = arm_and_ball(offset=(0.0, 0.18, 0.0))
    report = limit.report(conf)
    assert len(report.names) >= 1 and min(report.distances) > 0.013  # > d_s + buffer
    assert report.monitored == len(limit.pair_names)
    assert report.active.dtype == bool and not report.active.any()
    at_rest = limit.report(conf, np.zeros(robot.model.nv), DT)
    assert at_rest.active.dtype == bool and not at_rest.active.any()


def test_report_reads_a_step_of_one_second_by_default():
    """A long step (1.5 s) that binds the ball's rows there does not bind them read as 1 s
    (which allows more of the margin)."""
    robot, conf, _, limit, tasks, _ = arm_and_ball(offset=(0.0, 0.18, 0.0), self_collision=False)
    v = taskik.solve_ik(conf, tasks, 1.5, [limit])
    assert limit.report(conf, v, 1.5).active.any()
    assert not limit.report(conf, v).active.any()
    assert limit.report(conf, v, 2.0).active.any()


def test_a_report_leaves_the_obstacle_motion_to_the_next_step():
    def scene():
        _, conf, ball, limit, _, _ = arm_and_ball(offset=(0.0, 0.13, 0.0), self_collision=False)
        limit.compute_inequalities(conf, DT)
        ball.move_to(ball.pose.translation - [0.0, 0.01, 0.0])  # 1 cm toward the tool
        return conf, limit

    conf, limit = scene()
    _, h = limit.compute_inequalities(conf, DT)
    conf, reported = scene()
    reported.report(conf, np.zeros(conf.nv), DT)
    _, h_after_report = reported.compute_inequalities(conf, DT)
    assert h_after_report == pytest.approx(h)


def test_clearance_watches_every_pair_beyond_the_detection_distance():
    _, conf, _, limit, _, _ = arm_and_ball(offset=(0.0, 1.0, 0.0), self_collision=False)
    assert limit.compute_inequalities(conf, DT) is None  # nothing within 5 cm
    every = limit.distances(conf, all_pairs=True).distance
    assert limit.clearance(conf) == pytest.approx(every.min() - 0.01)
    assert 0.5 < limit.clearance(conf) < 1.0
    robot = taskik.robots.load("ur5")
    assert CollisionLimit(robot, self_collision=False).clearance(conf) == np.inf  # no pair


def test_row_names_before_a_step_and_after_a_step_without_rows():
    _, conf, ball, limit, _, _ = arm_and_ball(offset=(0.0, 0.13, 0.0), self_collision=False)
    assert limit.row_names() == []
    assert limit.compute_inequalities(conf, DT) is not None and limit.row_names()
    ball.move_to(ball.pose.translation + [0.0, 1.0, 0.0])
    limit.compute_inequalities(conf, DT)  # the ball's motion: it may still give rows
    conf.integrate_inplace(np.full(conf.nv, 1e-3), DT)  # the next step: the ball stayed
    assert limit.compute_inequalities(conf, DT) is None
    assert limit.row_names() == []


def test_long_steps_name_one_row_per_pair():
    _, conf, limit, _ = hand_under_a_block()
    G, h = limit.compute_inequalities(conf, 1.0)
    assert sorted(limit.row_names()) == sorted(limit.pair_names) and len(h) == len(G)


def test_tilt_rows_are_symmetric_about_the_damper_row():
    """Per pair with a lever, rows G ± ℓ t₁·ω ± ℓ t₂·ω (in the order ++, +−, −+, −−) with the
    damper row's bound: opposite rows average to the damper row."""
    robot, conf, limit, task = panda_behind_block()
    run(conf, [task], [taskik.VelocityLimit(robot.model), limit], 40, limit)
    G, h = limit.compute_inequalities(conf, DT)
    names = limit.row_names()
    n = len(limit.distances(conf).pairs)
    tilted = names[n:]
    assert len(tilted) >= 4 and len(tilted) % 4 == 0
    for k in range(0, len(tilted), 4):
        damper = names.index(tilted[k])
        assert damper < n and tilted[k : k + 4] == [tilted[k]] * 4
        rows = G[n + k : n + k + 4]
        assert np.allclose(rows[0] + rows[3], 2 * G[damper], atol=1e-12)
        assert np.allclose(rows[1] + rows[2], 2 * G[damper], atol=1e-12)
        assert np.allclose(rows[0] + rows[1], 2 * G[damper] + (rows[0] - rows[2]), atol=1e-12)
        assert np.linalg.norm(rows[0] - G[damper]) > 1e-6  # a lever: the rows differ
        assert np.all(h[n + k : n + k + 4] == h[damper])


def test_a_pair_in_penetration_separates_at_half_what_the_velocity_limits_allow():
    robot = taskik.robots.load("ur5")
    slow = robot.model.copy()
    slow.velocityLimit[:] = 0.05  # rad/s: well under ξ = 0.5 m/s along any gradient
    conf = taskik.Configuration(slow, robot.q0)
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.08, tool + [0.0, 0.0, 0.05])  # the tool is inside
    limit = CollisionLimit(
        slow, geometry_model=robot.collision_model, self_collision=False, obstacles=[ball]
    )
    G, h = limit.compute_inequalities(conf, DT)
    near = limit.distances(conf)
    deep = int(np.argmin(near.distance))
    assert near.distance[deep] < -0.02
    reach = np.abs(G[deep]) @ slow.velocityLimit
    assert reach < limit.speed
    assert h[deep] == pytest.approx(-0.5 * reach)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"safety_distance": -0.01}, "^safety_distance must be finite and >= 0"),
        ({"detection_distance": 0.01}, r"^detection_distance must be finite and > 0\.01"),
        ({"detection_distance": 0.005}, r"^detection_distance must be finite and > 0\.01"),
        ({"speed": 0.0}, "^speed must be finite and > 0"),
        ({"buffer": -0.001}, r"^buffer must be in \[0, 0\.05\]"),
        ({"buffer": 0.06}, r"^buffer must be in \[0, 0\.05\]"),
        ({"buffer": 0.045}, r"^detection_distance must exceed safety_distance \+ buffer"),
        (
            {"safety_distance": 0.25, "buffer": 0.25, "detection_distance": 0.5},
            r"^detection_distance must exceed safety_distance \+ buffer",
        ),
        ({"gain": 0.0}, r"^CollisionLimit gain must be in \(0, 1\]"),
        ({"gain": 1.5}, r"^CollisionLimit gain must be in \(0, 1\]"),
    ],
)
def test_distances_and_speed_are_checked_by_name(options, message):
    with pytest.raises(InvalidInput, match=message):
        CollisionLimit(taskik.robots.load("ur5"), **options)


def test_the_robot_must_give_a_model():
    with pytest.raises(InvalidInput, match="^CollisionLimit needs a pinocchio.Model, got str"):
        CollisionLimit("ur5")


def test_zero_velocity_limits_leave_the_separation_to_the_speed_cap():
    """A velocity limit of 0 (unknown, in many URDFs) does not cap how fast a pair in
    penetration may separate: it asks for ξ."""
    robot = taskik.robots.load("ur5")
    unknown = robot.model.copy()
    unknown.velocityLimit[:] = 0.0
    conf = taskik.Configuration(unknown, robot.q0)
    tool = conf.get_transform_frame_to_world("tool0").translation
    ball = geometry.sphere("ball", 0.08, tool + [0.0, 0.0, 0.05])
    limit = CollisionLimit(
        unknown, geometry_model=robot.collision_model, self_collision=False, obstacles=[ball]
    )
    _, h = limit.compute_inequalities(conf, DT)
    deep = int(np.argmin(limit.distances(conf).distance))
    assert h[deep] == pytest.approx(-limit.speed)


def test_explicit_pairs_are_monitored_by_name():
    robot = taskik.robots.load("ur5")
    names = [o.name for o in robot.collision_model.geometryObjects]
    limit = CollisionLimit(robot, self_collision=[(names[0], names[3])])
    assert limit.pair_names == [f"{names[0]} / {names[3]}"]
    assert limit.selection is None  # no automatic selection was made


def test_srdf_and_reference_configuration_default_to_the_robots():
    robot = taskik.robots.load("talos")
    model, geometry_model = robot.model, robot.collision_model
    default = CollisionLimit(robot)
    explicit = CollisionLimit(model, geometry_model, q_reference=robot.q0, srdf=robot.srdf)
    without_srdf = CollisionLimit(model, geometry_model, q_reference=robot.q0)
    assert default.pair_names == explicit.pair_names
    assert len(without_srdf.pair_names) > len(default.pair_names)  # the SRDF disables pairs
    neutral = CollisionLimit(model, geometry_model, q_reference=pin.neutral(model))
    assert CollisionLimit(model, geometry_model).pair_names == neutral.pair_names


def test_report_flags_a_pair_held_by_a_tilt_row_alone():
    """The report's active pairs are those of the rows that bind, tilt rows included: along
    the block's face, a pair is held by a tilt row while its damper row has room."""
    robot, conf, limit, task = panda_behind_block()
    posture = taskik.PostureTask(1e-3)
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model), limit]
    tilt_only = 0
    for _ in range(30):
        v = taskik.solve_ik(conf, [task, posture], DT, limits)
        rows = limit.compute_inequalities(conf, DT)
        if rows is not None:
            G, h = rows
            names = limit.row_names()
            n = len(limit._last.pairs)  # (the pairs with rows: the lookahead's too)
            binding = G @ v >= h - 1e-9
            held = {names[i] for i in np.flatnonzero(binding)}
            tilt_only += bool(held - {names[i] for i in np.flatnonzero(binding[:n])})
            report = limit.report(conf, v, DT)
            active = zip(report.names, report.active, strict=True)
            assert {name for name, on in active if on} == held
        conf.integrate_inplace(v, DT)
    assert tilt_only > 0
