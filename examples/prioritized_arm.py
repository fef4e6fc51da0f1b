"""Strict priorities on a 7-DoF arm: the tool keeps its pose while the elbow moves.

Level 0 holds the Panda's hand pose (6 rows); level 1 asks the elbow (``panda_link4``) to move
15 cm sideways; level 2 regularises the posture. The arm has one redundant DoF, so the elbow
can only swing on its self-motion manifold: it gets as close as the tool pose allows, and the
tool never moves, whatever the elbow asks. Joint position and velocity limits hold at every
level. Compare with the same tasks weighted in one level, where the elbow drags the tool.

Run: ``python examples/prioritized_arm.py``
"""

from __future__ import annotations

import numpy as np

import taskik
from taskik.hierarchy import hierarchy_report

DT = 0.01


def make_tasks(conf: taskik.Configuration, robot):
    tool = taskik.FrameTask("panda_hand", position_cost=1.0, orientation_cost=1.0)
    tool.set_target_from_configuration(conf)
    elbow = taskik.PositionTask("panda_link4", gain=0.2)
    start = conf.get_transform_frame_to_world("panda_link4").translation
    elbow.set_target(start + np.array([0.0, 0.15, 0.0]))
    posture = taskik.PostureTask(cost=1e-2, gain=0.1)
    posture.set_target(robot.q0)
    return tool, elbow, posture, start


def run(prioritized: bool, steps: int = 400) -> dict[str, float]:
    """Returns the worst tool pose error over the run and the final elbow error."""
    robot = taskik.robots.load("panda")
    conf = robot.configuration()
    tool, elbow, posture, start = make_tasks(conf, robot)
    levels = [[tool], [elbow], [posture]]
    tasks = levels if prioritized else [tool, elbow, posture]
    worst_tool = 0.0
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, DT)
        conf.integrate_inplace(v, DT)
        worst_tool = max(worst_tool, float(np.linalg.norm(tool.compute_error(conf))))
    moved = conf.get_transform_frame_to_world("panda_link4").translation - start
    label = "prioritized [[tool], [elbow], [posture]]" if prioritized else "weighted, one level"
    print(f"{label}:")
    print(f"  worst tool pose error over the run: {worst_tool:.2e}")
    print(f"  elbow moved by {np.round(moved, 3)} m (asked [0, 0.15, 0])")
    print(f"  elbow still {np.linalg.norm(elbow.compute_error(conf)):.3f} m from its target")
    if prioritized:
        print(hierarchy_report(conf, levels, DT, taskik.solve_ik(conf, levels, DT)))
    return {"worst_tool": worst_tool, "elbow": float(np.linalg.norm(elbow.compute_error(conf)))}


def main() -> dict[str, dict[str, float]]:
    """Both runs, prioritized then weighted; returns their results."""
    prioritized = run(prioritized=True)
    print()
    return {"prioritized": prioritized, "weighted": run(prioritized=False)}


if __name__ == "__main__":
    main()
