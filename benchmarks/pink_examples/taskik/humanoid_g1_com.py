# A port of pink's example examples/humanoid_g1_com.py (https://github.com/stephane-caron/pink,
# commit f568e80), licensed under the Apache License, Version 2.0; pink's NOTICE: Copyright
# 2022 Stéphane Caron, 2023-2025 Inria, 2024 Ivan Domrachev and Simeon Nedelchev, 2026
# Stéphane Caron, 2026 CNRS. Changed for taskik's benchmark (benchmarks/pink_examples/run.py),
# example-robot-data's robot of the same name
# instead of robot_descriptions; the display, plotting and real-time rate-limiter lines
# dropped (dt = 1/200 s); a fixed number of steps; in flying_dual_arm_ur3, pin.GeometryObject
# with the argument order of Pinocchio 3 and later; the imports renamed to taskik's (run.py
# renames them back to run pink's version).
"""G1 humanoid squat by regulating CoM."""

import numpy as np
import pinocchio as pin
import qpsolvers
from example_robot_data import load

import taskik
from taskik import solve_ik
from taskik.tasks import ComTask, FrameTask, PostureTask

NB_STEPS = 1600  # number of steps to run the example for

if __name__ == "__main__":
    robot = load("g1")

    q_ref = np.zeros(robot.nq)
    q_ref[2] = 0.72
    q_ref[6] = 1.0

    configuration = taskik.Configuration(robot.model, robot.data, q_ref)
    pelvis_orientation_task = FrameTask(
        "pelvis",
        position_cost=0.0,  # [cost] / [m]
        orientation_cost=10.0,  # [cost] / [rad]
    )

    com_task = ComTask(cost=200.0)
    com_task.set_target_from_configuration(configuration)

    posture_task = PostureTask(
        cost=1e-1,  # [cost] / [rad]
    )

    tasks = [pelvis_orientation_task, posture_task, com_task]

    for foot in ["right_ankle_roll_link", "left_ankle_roll_link"]:
        task = FrameTask(
            foot,
            position_cost=[2.0, 2.0, 200],  # [cost] / [m]
            orientation_cost=10.0,  # [cost] / [rad]
        )
        tasks.append(task)

    for arm_points in ["right_wrist_yaw_link", "left_wrist_yaw_link"]:
        task = FrameTask(
            arm_points,
            position_cost=4.0,  # [cost] / [m]
            orientation_cost=0.0,  # [cost] / [rad]
        )
        tasks.append(task)

    for task in tasks:
        task.set_target_from_configuration(configuration)
        if isinstance(task, FrameTask):
            target = task.transform_target_to_world
            if task.frame in ["right_wrist_yaw_link", "left_wrist_yaw_link"]:
                target.translation += np.array([-0.1, 0.0, -0.2])
                task.set_target(target)

    # Select QP solver
    solver = qpsolvers.available_solvers[0]
    if "daqp" in qpsolvers.available_solvers:
        solver = "daqp"
    elif "osqp" in qpsolvers.available_solvers:
        solver = "osqp"

    dt = 1.0 / 200.0
    t = 0.0  # [s]
    period = 2
    omega = 2 * np.pi / period

    for _ in range(NB_STEPS):
        pin.centerOfMass(robot.model, robot.data, configuration.q)
        com = robot.data.com[0]
        # Update CoM target
        Az = 0.05
        desired_com = np.zeros(3)
        desired_com[2] = 0.55 + Az * np.sin(omega * t)
        com_task.set_target(desired_com)

        velocity = solve_ik(
            configuration,
            tasks,
            dt,
            solver=solver,
            damping=0.01,
            safety_break=False,
        )
        configuration.integrate_inplace(velocity, dt)

        t += dt
