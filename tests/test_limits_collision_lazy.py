"""The QP of a checked step is given the collision rows that may bind; the others are checked
against the solved step, and the step is the one the QP with every row gives. Strict
priorities keep the rows of every pair the velocity box could bring near (no check)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from test_limits_collision import DT, arm_and_ball, closest, talos, talos_limit

import taskik
from taskik.limits.collision import CollisionLimit


class EveryRow(CollisionLimit):
    """A collision limit whose checked step gives the QP every row of its pairs."""

    def _step_rows_of(self, *args, lazy=False, given=None, first_new=0):
        return super()._step_rows_of(*args)


def test_the_step_is_the_one_every_row_gives():
    """Along a UR5 loop pressing its tool against a ball (rows binding, tilt rows withheld),
    the checked step equals the step of the QP given every row (to DAQP's tolerance), and
    meets every row of the step, given or not."""
    robot, conf, _, limit, tasks, _ = arm_and_ball(offset=(0.0, 0.13, 0.0))
    _, twin_conf, ball, _, twin_tasks, _ = arm_and_ball(offset=(0.0, 0.13, 0.0))
    twin = EveryRow(robot, obstacles=[ball])
    box = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    fewer = 0
    for _ in range(60):
        v = taskik.solve_ik(conf, tasks, DT, [*box, limit], solver="daqp")
        w = taskik.solve_ik(twin_conf, twin_tasks, DT, [*box, twin], solver="daqp")
        np.testing.assert_allclose(v, w, atol=1e-5)
        _, _, _, _, G, h, _ = limit._step_rows
        assert np.all(G @ v <= h + 1e-6)  # (every row of the step, given or not)
        fewer += len(limit.row_names()) < len(h)
        conf.integrate_inplace(v, DT)
        twin_conf.integrate_inplace(w, DT)
    assert fewer > 30  # the QP was given fewer rows than the step has in most steps


def test_a_row_left_out_that_the_step_would_cross_is_added():
    """The guess of which rows may bind is wrong (the last step moved away from the ball):
    the damper row is left out, the solved step would cross it, and the check adds it."""
    robot, conf, _, limit, tasks, _ = arm_and_ball(offset=(0.0, 0.11, 0.0))
    box = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    limit.expect_check()
    limit.compute_inequalities(conf, DT)
    _, _, _, _, G, h, _ = limit._step_rows  # (every row of the step)
    limit._v_hint = 1e3 * np.linalg.lstsq(G, -np.ones(len(h)), rcond=None)[0]  # far away
    limit.expect_check()
    assert limit.compute_inequalities(conf, DT) is None  # (no row may bind, it guesses)
    v = taskik.solve_ik(conf, tasks, DT, [*box, limit], solver="daqp")
    _, _, _, _, G, h, _ = limit._step_rows
    assert np.all(G @ v <= h + 1e-6)
    assert any(name.endswith(" / ball") for name in limit.row_names())  # (added by the check)
    assert (G @ v >= h - 1e-6).any()  # (a row binds: it was needed)


def test_priority_levels_keep_the_safety_distance():
    """Strict priorities (feet, then the right hand across the body to the left hip, then
    the posture) on Talos: without the limit the hand comes closer than 5 mm to the hip, with it
    (the rows of every pair the velocity box could bring near, no check after the solve)
    every pair keeps d_s to 0.1 mm."""
    robot = talos()
    model = robot.model
    q0 = np.array(robot.q0, dtype=float)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    feet = []
    for frame in ("left_sole_link", "right_sole_link", "gripper_left_base_link", "base_link"):
        task = taskik.FrameTask(frame, 1.0, 1.0)
        task.set_target(pin.SE3(data.oMf[model.getFrameId(frame)]))
        feet.append(task)
    reach = taskik.PositionTask("gripper_right_base_link", 1.0)
    hip = data.oMf[model.getFrameId("leg_left_1_link")].translation
    reach.set_target(hip + np.array([0.25, 0.0, 0.05]))
    posture = taskik.PostureTask(1e-2)
    posture.set_target(q0)
    watch = talos_limit()
    lowest = {}
    for name, extra in (("without", []), ("with", [talos_limit()])):
        conf = taskik.Configuration(model, q0)
        limits = [taskik.ConfigurationLimit(model), taskik.VelocityLimit(model), *extra]
        low = np.inf
        for _ in range(150):
            v = taskik.solve_ik(conf, [feet, [reach], [posture]], DT, limits, solver="daqp")
            conf.integrate_inplace(v, DT)
            low = min(low, closest(watch, conf))  # (the pairs within d_i, GJK on those)
        lowest[name] = low
    assert lowest["without"] < watch.safety_distance - 0.005
    assert lowest["with"] >= watch.safety_distance - 1e-4
