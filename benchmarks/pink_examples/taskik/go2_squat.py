# A port of pink's example examples/barriers/go2_squat.py (https://github.com/stephane-caron/pink,
# commit f568e80), licensed under the Apache License, Version 2.0; pink's NOTICE: Copyright
# 2022 Stéphane Caron, 2023-2025 Inria, 2024 Ivan Domrachev and Simeon Nedelchev, 2026
# Stéphane Caron, 2026 CNRS. Changed for taskik's benchmark (benchmarks/pink_examples/run.py),
# example-robot-data's robot of the same name
# instead of robot_descriptions; the display, plotting and real-time rate-limiter lines
# dropped (dt = 1/200 s); a fixed number of steps; in flying_dual_arm_ur3, pin.GeometryObject
# with the argument order of Pinocchio 3 and later; the imports renamed to taskik's (run.py
# renames them back to run pink's version).
"""Go2 squat with z-axis barrier."""

import numpy as np
import pinocchio as pin
import qpsolvers
from example_robot_data import load

import taskik
from taskik import solve_ik
from taskik.limits import PositionBarrier
from taskik.tasks import FrameTask, PostureTask

NB_STEPS = 1600  # number of steps to run the example for

if __name__ == "__main__":
    robot = load("go2")

    q_ref = np.array(
        [
            -0.0,
            0.0,
            0.3,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.8,
            -1.57,
            0.0,
            0.8,
            -1.57,
            0.0,
            0.8,
            -1.57,
            0.0,
            0.8,
            -1.57,
        ]
    )

    configuration = taskik.Configuration(robot.model, robot.data, q_ref)

    base_task = FrameTask(
        "base",
        position_cost=50.0,  # [cost] / [m]
        orientation_cost=1.0,  # [cost] / [rad]
    )

    posture_task = PostureTask(
        cost=1e-5,  # [cost] / [rad]
    )

    pos_barrier = PositionBarrier(
        "base",
        indices=[1, 2],
        p_max=np.array([0, 0.35]),
        gain=np.array([100.0, 100.0]),
        safe_displacement_gain=1.0,
    )
    barriers = [pos_barrier]

    tasks = [base_task, posture_task]

    for foot in ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]:
        task = FrameTask(
            foot,
            position_cost=200.0,  # [cost] / [m]
            orientation_cost=0.0,  # [cost] / [rad]
        )
        tasks.append(task)

    for task in tasks:
        task.set_target_from_configuration(configuration)

    # Select QP solver
    solver = qpsolvers.available_solvers[0]
    if "osqp" in qpsolvers.available_solvers:
        solver = "osqp"

    dt = 1.0 / 200.0
    t = 0.0  # [s]
    period = 4
    omega = 2 * np.pi / period
    for _ in range(NB_STEPS):
        # Update task targets
        end_effector_target = base_task.transform_target_to_world
        phase = (t // period) % 2
        Ay = 0.1 * (1 - phase)
        Az = 0.2 * phase

        end_effector_target.translation[1] = 0.0 + Ay * np.sin(omega * t)
        end_effector_target.translation[2] = 0.3 + Az * np.sin(omega * t)

        velocity = solve_ik(
            configuration,
            tasks,
            dt,
            solver=solver,
            barriers=barriers,
        )
        configuration.integrate_inplace(velocity, dt)

        t += dt
