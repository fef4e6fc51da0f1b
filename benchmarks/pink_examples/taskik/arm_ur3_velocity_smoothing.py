# A port of pink's example examples/arm_ur3_velocity_smoothing.py (https://github.com/stephane-caron/pink,
# commit f568e80), licensed under the Apache License, Version 2.0; pink's NOTICE: Copyright
# 2022 Stéphane Caron, 2023-2025 Inria, 2024 Ivan Domrachev and Simeon Nedelchev, 2026
# Stéphane Caron, 2026 CNRS. Changed for taskik's benchmark (benchmarks/pink_examples/run.py),
# example-robot-data's robot of the same name
# instead of robot_descriptions; the display, plotting and real-time rate-limiter lines
# dropped (dt = 1/200 s); a fixed number of steps; in flying_dual_arm_ur3, pin.GeometryObject
# with the argument order of Pinocchio 3 and later; the imports renamed to taskik's (run.py
# renames them back to run pink's version).
"""UR3 arm tracking a target, first without then with velocity smoothing."""

import numpy as np
import qpsolvers
from example_robot_data import load

import taskik
from taskik import solve_ik
from taskik.limits import AccelerationLimit
from taskik.tasks import DampingTask, FrameTask, PostureTask
from taskik.utils import custom_configuration_vector

NB_STEPS = 3000  # number of steps to run the example for

if __name__ == "__main__":
    robot = load("ur3")

    # Define inverse kinematics tasks and limits
    end_effector_task = FrameTask(
        "tool0",
        position_cost=1.0,  # [cost] / [m]
        orientation_cost=1.0,  # [cost] / [rad]
        lm_damping=1.0,  # tuned for this setup
    )
    posture_task = PostureTask(
        cost=1e-3,  # [cost] / [rad]
    )
    damping_task = DampingTask(
        cost=1e-1,  # [cost] * [s] / [rad]
    )
    acceleration_limit = AccelerationLimit(
        robot.model,
        np.full(
            robot.model.nv,
            20.0,  # [rad] / [s]^2
        ),
    )

    # Initial configuration and task setup
    q_ref = custom_configuration_vector(
        robot,
        shoulder_lift_joint=1.0,
        shoulder_pan_joint=1.0,
        elbow_joint=1.0,
    )
    configuration = taskik.Configuration(robot.model, robot.data, q_ref)
    end_effector_task.set_target_from_configuration(configuration)
    posture_task.set_target_from_configuration(configuration)

    # Select QP solver
    solver = qpsolvers.available_solvers[0]
    if "daqp" in qpsolvers.available_solvers:
        solver = "daqp"

    dt = 1.0 / 200.0
    configurations, velocities, times = [], [], []
    t = 0.0  # [s]
    max_ever = -1.0
    for step in range(NB_STEPS):
        # Update task targets
        end_effector_target = end_effector_task.transform_target_to_world
        end_effector_target.translation[1] = 0.5 + 0.1 * np.sin(2.0 * t)
        end_effector_target.translation[2] = 0.2

        if step < NB_STEPS // 2:
            # First half: no velocity smoothing
            end_effector_task.gain = 1.0
            tasks = (end_effector_task, posture_task)
            limits = (
                configuration.model.configuration_limit,
                configuration.model.velocity_limit,
            )
        else:  # step >= NB_STEPS // 2
            # Second half: velocity smoothing by:
            # 1. Reducing the task gain
            # 2. Switching from a posture to a damping task
            # 3. Adding an acceleration limit
            end_effector_task.gain = 0.4
            tasks = (end_effector_task, damping_task)
            limits = (
                configuration.model.configuration_limit,
                configuration.model.velocity_limit,
                acceleration_limit,
            )

        # Compute velocity and integrate it into next configuration
        velocity = solve_ik(
            configuration, tasks, dt, solver=solver, limits=limits
        )
        Delta_q = velocity * dt
        configuration.integrate_inplace(velocity, dt)
        acceleration_limit.set_last_integration(velocity, dt)

        # Append plotting data to lists
        configurations.append(configuration.q)
        times.append(t)
        velocities.append(velocity)

        t += dt
