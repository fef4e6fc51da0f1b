"""Buss's double-Y (16 joints, 4 end effectors) tracking targets that move in and out of
reach, with the classic unconstrained backends of taskik.

(a) Tracking: one update per 5 ms time step, targets on Buss's sinusoids. DLS, DLS'
    (DLS with Buss's ClampMag of each error, ``max_task_error``) and selectively damped
    least squares; every half second the mean distance of the end effectors to their
    targets and the translational manipulability of the first branch are printed.
(b) Solve to convergence: the targets freeze (one of them out of reach); DLS' iterates
    until the poses stop changing (Williams' Algorithm 1 test), which terminates although
    the targets cannot all be reached. (SDLS, with the hard ClampMaxAbs of the paper,
    keeps chattering by a few cm per update on this unreachable set: it would not stop.)

    python examples/buss_double_y.py
"""

from __future__ import annotations

import numpy as np

import taskik
from taskik.metrics import frame_manipulability
from taskik.robots.buss import BUSS_TIME_STEP, double_y_targets
from taskik.steps import PoseChangeConvergence

DT = BUSS_TIME_STEP
DEG = np.pi / 180.0
METHODS = {
    "DLS  (λ = 1.1)": {"backend": "dls", "lam": 1.1, "max_joint_step": 45 * DEG},
    "DLS' (λ = 0.7, ClampMag 0.4 m)": {
        "backend": "dls",
        "lam": 0.7,
        "max_task_error": 0.4,
        "max_joint_step": 45 * DEG,
    },
    "SDLS (γmax = 45°, ClampMag 0.4 m)": {
        "backend": "sdls",
        "gamma_max": 45 * DEG,
        "max_task_error": 0.4,
    },
}


def tracking() -> dict[str, float]:
    """Returns the mean distance to the targets over the 4 s, per method."""
    robot = taskik.robots.load("buss_double_y")
    print(f"double-Y: {robot.model.nv} joints, end effectors {', '.join(robot.end_effectors)}")
    means = {}
    for name, options in METHODS.items():
        conf = robot.configuration()
        tasks = [taskik.PositionTask(frame) for frame in robot.end_effectors]
        print(f"\n{name}")
        errors = []
        for k in range(1, 801):
            for task, target in zip(tasks, double_y_targets(k * DT), strict=True):
                task.set_target(target)
            conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT, **options), DT)
            errors.append(np.mean([np.linalg.norm(t.compute_error(conf)) for t in tasks]))
            if k % 100 == 0:
                m = frame_manipulability(conf, "effector_1", "translation")
                print(
                    f"  t = {k * DT:4.2f} s  mean error {errors[-1]:.3f} m  "
                    f"manipulability(effector_1) {m:.3f}"
                )
        print(f"  mean error over 4 s: {np.mean(errors):.3f} m")
        means[name] = float(np.mean(errors))
    return means


def solve_to_convergence() -> dict:
    """Returns whether DLS' stopped, after how many iterations, and the final distances."""
    robot = taskik.robots.load("buss_double_y")
    conf = robot.configuration()
    tasks = []
    for frame, target in zip(robot.end_effectors, double_y_targets(0.3), strict=True):
        task = taskik.PositionTask(frame)
        task.set_target(target)
        tasks.append(task)
    stop = PoseChangeConvergence(robot.end_effectors, epsilon=1e-5)
    for iteration in range(1, 5001):  # noqa: B007 - reported below
        v = taskik.solve_ik(conf, tasks, DT, backend="dls", lam=0.7, max_task_error=0.4)
        conf.integrate_inplace(v, DT)
        if stop.update(conf):
            break
    verdict = "stopped" if stop.delta <= 1e-5 else "did not stop"
    print(f"\nfrozen targets: DLS' {verdict} after {iteration} iterations (pose change ≤ 1e-5)")
    distances = {}
    for task in tasks:
        distance = np.linalg.norm(task.compute_error(conf))
        print(f"  {task.frame.name}: distance to target {distance:.3f} m")
        distances[task.frame.name] = float(distance)
    return {"stopped": stop.delta <= 1e-5, "iterations": iteration, "distances": distances}


def main() -> dict:
    """Both parts; returns their results."""
    return {"tracking": tracking(), "frozen": solve_to_convergence()}


if __name__ == "__main__":
    main()
