"""docs/coming_from_pink.md is a tested page: its Python snippets run, in order, in one
namespace; and where pink is installed, a pink loop and its port give the same velocities to
1e-12 at every step (UR5 and Panda of example-robot-data, default limits, a moving target
mutated in place as pink's examples do, gain < 1 and Levenberg–Marquardt damping)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pages import python_blocks

import taskik
from taskik.configuration import custom_configuration_vector

PAGE = Path(__file__).resolve().parent.parent / "docs" / "coming_from_pink.md"


def snippets() -> list[str]:
    return python_blocks("docs/coming_from_pink.md")


def test_the_page_has_snippets_for_each_trip_up():
    code = "\n".join(snippets())
    for name in (
        "transform_target_to_world",
        "custom_configuration_vector",
        "compute_jacobian",
        "include_base",
        "set_position_cost",
        "VelocityLimit(",
    ):
        assert name in code, name


def test_the_snippets_run_in_order():
    pytest.importorskip("example_robot_data")
    namespace: dict[str, object] = {"__name__": "coming_from_pink"}
    for k, code in enumerate(snippets()):
        try:
            exec(compile(code, f"{PAGE.name}[snippet {k}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message names the snippet
            raise AssertionError(f"snippet {k} of {PAGE.name} failed: {exc!r}\n{code}") from exc


# ----------------------------------------------------------------------- against pink
ROBOTS = {
    "ur5": ("tool0", dict(shoulder_lift_joint=-1.2, elbow_joint=1.4, wrist_1_joint=-1.7)),
    "panda": ("panda_hand", dict(panda_joint2=-0.6, panda_joint4=-2.2, panda_joint6=1.6)),
}


def run_loop(lib, robot, frame, q0, steps=40, dt=0.01):
    """pink's example loop, written once for both libraries: a frame task with gain < 1 and
    LM damping, a posture task, default limits, and a target moved in place every tick."""
    if lib is taskik:
        conf = taskik.Configuration(robot.model, robot.model.createData(), q0)
        solve = lambda tasks: taskik.solve_ik(conf, tasks, dt, solver="daqp", adaptive=False)  # noqa: E731
    else:
        conf = lib.Configuration(robot.model, robot.model.createData(), q0)
        solve = lambda tasks: lib.solve_ik(conf, tasks, dt, solver="daqp")  # noqa: E731
    ns = taskik if lib is taskik else lib.tasks
    hand = ns.FrameTask(frame, position_cost=1.0, orientation_cost=0.5)
    hand.gain, hand.lm_damping = 0.4, 1.0
    posture = ns.PostureTask(cost=1e-2)
    tasks = [hand, posture]
    for task in tasks:
        task.set_target_from_configuration(conf)
    start = hand.transform_target_to_world.translation.copy()
    velocities = []
    for k in range(steps):
        hand.transform_target_to_world.translation[:] = start + [0.3, 0.2 * np.sin(0.5 * k), -0.2]
        v = solve(tasks)
        velocities.append(v)
        conf.integrate_inplace(v, dt)
    return np.array(velocities)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_a_ported_loop_gives_pinks_velocities(name):
    pink = pytest.importorskip("pink", reason="pin-pink (the bench extra) compares the steps")
    erd = pytest.importorskip("example_robot_data")
    robot = erd.load(name)
    frame, joints = ROBOTS[name]
    q0 = custom_configuration_vector(robot, **joints)
    ours = run_loop(taskik, robot, frame, q0)
    theirs = run_loop(pink, robot, frame, q0)
    scale = max(1.0, np.abs(theirs).max())
    assert np.abs(ours - theirs).max() <= 1e-12 * scale
    assert np.abs(theirs).max() > 1.0  # the loop moves (and the LM term with gain 0.4 counts)
