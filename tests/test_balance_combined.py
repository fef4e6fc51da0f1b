"""The balance limit together with the other limits, and its guarantee as a property.

Balance with collision avoidance and the joint limits, in weighted steps, priority levels
and ``solve_posture``; random reach targets on Talos and G1: with the limit every
configuration of the loop passes the independent static-balance check with the margin,
without it most loops pass through configurations that would fall; and single support on
every humanoid. (The robots are loaded once for the module: G1's meshes take seconds.)
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import taskik
from taskik.contacts import both_feet, check_static_balance, one_foot
from taskik.limits import BalanceLimit, CollisionLimit

MARGIN = 0.01
#: what an independent check may find below the margin: the region the limit uses lags the
#: feet by at most its tolerance (1 mm), and a step's first-order prediction of the CoM
#: misses by a fraction of a millimetre (measured worst: 0.85 mm on the seeded targets below)
SLACK = 0.003

ROBOTS: dict[str, taskik.robots.Robot] = {}


def robot_named(name: str) -> taskik.robots.Robot:
    if name not in ROBOTS:
        ROBOTS[name] = taskik.robots.load(name)
    return ROBOTS[name]


def reach_loop(
    robot: taskik.robots.Robot,
    offset: np.ndarray,
    arm: int,
    balance: bool,
    steps: int = 100,
    until_fall: bool = False,
) -> list[float]:
    """Both feet held, one hand sent to ``offset`` from where it is, the base's velocity
    bounded (1 m/s, 2 rad/s); the independent check's margin (m) at every configuration
    (-inf where no contact forces hold the robot), up to the first such one if
    ``until_fall``."""
    conf = robot.configuration()
    feet = both_feet(robot, conf)
    hand = taskik.PositionTask(robot.end_effectors[arm], cost=1.0, lm_damping=1.0)
    hand.set_target(
        conf.get_transform_frame_to_world(robot.end_effectors[arm]).translation + offset
    )
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    tasks = [*(c.task(conf) for c in feet), hand, posture]
    limits = [
        *taskik.limits.default_limits(robot.model),
        taskik.BaseVelocityLimit(robot.model, linear=1.0, angular=2.0),
    ]
    if balance:
        limits.append(BalanceLimit(feet, margin=MARGIN))
    margins = []
    for _ in range(steps):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, 0.01, limits=limits), 0.01)
        check = check_static_balance(conf, feet)
        margins.append(check.margin if check.stable else -np.inf)
        if until_fall and not check.stable:
            break
    return margins


@pytest.mark.parametrize("name", ["talos", "g1"])
@settings(max_examples=2)
@given(
    offset=st.tuples(st.floats(0.2, 1.2), st.floats(-0.5, 0.5), st.floats(-0.6, 0.2)),
    arm=st.sampled_from([2, 3]),
)
def test_random_reaches_with_the_limit_stay_statically_balanced(name, offset, arm):
    """Two random reaches per robot (every robot every run; ``benchmarks/balance.py`` runs
    500 such problems), every configuration of each 100-step loop checked."""
    margins = reach_loop(robot_named(name), np.array(offset), arm, balance=True)
    assert min(margins) > MARGIN - SLACK


def test_without_the_limit_most_random_reaches_pass_through_unstable_postures():
    """The same loops without the limit, on seeded targets (the property test's ranges):
    measured, 19 of 20 Talos loops and 20 of 20 G1 loops have a configuration no contact
    forces can hold (with the limit: none, worst margin 9.2 mm), 8 of them checked here,
    each up to its first such configuration."""
    rng = np.random.default_rng(0)
    falls = {}
    for name in ("talos", "g1"):
        robot = robot_named(name)
        falls[name] = 0
        for k in range(4):
            offset = rng.uniform([0.2, -0.5, -0.6], [1.2, 0.5, 0.2])
            margins = reach_loop(robot, offset, 2 + k % 2, balance=False, until_fall=True)
            falls[name] += min(margins) < 0.0
    assert falls["talos"] >= 3 and falls["g1"] >= 3


@pytest.mark.parametrize("name", ["g1", "talos", "humanoid"])
def test_on_one_foot_the_com_moves_over_it_and_stays(name):
    """Single support from a double-support posture: the CoM starts outside the one sole's
    polygon, the rows bring it in at the damper's rate, and from then on every step keeps
    the margin while the other foot lifts 10 cm."""
    robot = robot_named(name)
    conf = robot.configuration()
    stance = one_foot(robot, conf, "left")
    assert check_static_balance(conf, stance).margin < 0.0  # both feet down, CoM between
    held = stance[0].task(conf, cost=10.0)
    other = robot.end_effectors[1]
    up = conf.get_transform_frame_to_world(other).copy()
    up.translation[2] += 0.1  # (the other foot lifted 10 cm)
    lift = taskik.FrameTask(other, position_cost=1.0, orientation_cost=1.0)
    lift.set_target(up)
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(robot.q0)
    limit = BalanceLimit(stance, margin=0.01)
    limits = [*taskik.limits.default_limits(robot.model), limit]
    margins = []
    for _ in range(200):
        conf.integrate_inplace(
            taskik.solve_ik(conf, [held, lift, posture], 0.01, limits=limits), 0.01
        )
        margins.append(limit.balance_margin(conf))
    inside = int(np.argmax(np.array(margins) >= 0.01 - 1e-3))
    assert inside < 20  # in within 20 steps (measured: 0 to 6)
    assert min(margins[inside:]) > 0.01 - 1e-3
    assert np.linalg.norm(lift.compute_error(conf)) < 0.01  # and the foot did lift
    final = check_static_balance(conf, stance)
    assert final.stable and final.margin > 0.009


@pytest.fixture(scope="module")
def talos():
    return robot_named("talos")


def _obstacle_scene(talos):
    """Talos with both feet down, a hand sent forward and down into a ball: it must lean
    to the edge of its soles and stop short of the ball."""
    conf = talos.configuration()
    feet = both_feet(talos, conf)
    frame = talos.end_effectors[3]
    start = conf.get_transform_frame_to_world(frame).translation
    hand = taskik.PositionTask(frame, cost=1.0, lm_damping=1.0)
    hand.set_target(start + [0.7, 0.0, -0.3])
    ball = taskik.geometry.sphere("ball", 0.1, start + [0.72, 0.0, -0.3])  # (on the target)
    # (a detection distance beyond what one step can move the arm: 13 cm at the first)
    collision = CollisionLimit(
        talos, self_collision=False, obstacles=[ball], detection_distance=0.3
    )
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target(talos.q0)
    balance = BalanceLimit(feet, margin=MARGIN)
    # (the base bounded, as the balance docs advise)
    base = taskik.BaseVelocityLimit(talos.model, linear=1.0, angular=2.0)
    limits = [*taskik.limits.default_limits(talos.model), base, collision, balance]
    return conf, feet, [c.task(conf) for c in feet], hand, posture, collision, limits


def _holds(conf, feet, collision, talos) -> tuple[float, float, bool]:
    """(balance margin, smallest distance to the ball, within the joint limits)."""
    check = check_static_balance(conf, feet)
    distance = float(collision.distances(conf, all_pairs=True).distance.min())
    q, model = conf.q, talos.model
    inside = bool(
        (q[7:] >= model.lowerPositionLimit[7:] - 1e-9).all()
        and (q[7:] <= model.upperPositionLimit[7:] + 1e-9).all()
    )
    return (check.margin if check.stable else -np.inf), distance, inside


@pytest.mark.parametrize("levels", [False, True])
def test_balance_collision_and_joint_limits_hold_together(talos, levels):
    """Weighted and in priority levels: at every step the CoM keeps the balance margin, the
    arm stays clear of the ball, and every joint stays in its range; no row had to give way."""
    conf, feet, held, hand, posture, collision, limits = _obstacle_scene(talos)
    tasks = [held, [hand], [posture]] if levels else [*held, hand, posture]
    margins = []
    for _ in range(150):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
        relaxed = taskik.last_relaxation(conf)
        assert relaxed is None or not (relaxed.rows or relaxed.bounds or relaxed.fallback)
        conf.integrate_inplace(v, 0.01)
        margin, distance, inside = _holds(conf, feet, collision, talos)
        assert margin > MARGIN - SLACK
        assert distance > 0.0  # (the safety distance is 1 cm: never touching)
        assert inside
        margins.append(margin)
    assert min(margins) < MARGIN + 0.002  # it did lean to the edge (measured: 9.8 mm)
    assert float(np.linalg.norm(hand.compute_error(conf))) > 0.1  # and stopped short


def test_solve_posture_with_balance_collision_and_joint_limits(talos):
    conf, feet, held, hand, posture, collision, limits = _obstacle_scene(talos)
    result = taskik.solve_posture(
        conf, [*held, hand, posture], method="qp", limits=limits, max_searches=1,
        max_iterations=150,
    )  # fmt: skip
    final = taskik.Configuration(talos.model, result.q)
    margin, distance, inside = _holds(final, feet, collision, talos)
    assert margin > MARGIN - SLACK and distance > 0.0 and inside
