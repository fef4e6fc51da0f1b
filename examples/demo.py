"""taskik's main demo (``make demo``): a UR5 servoing its tool, then a humanoid posture.

(a) The UR5's tool visits four poses; each step solves one QP with the joint position and
    velocity limits; the residual is printed as it converges.
(b) A floating-base humanoid keeps both feet in place, shifts its centre of mass and
    reaches with its right hand; the final error of every task is printed.
"""

from __future__ import annotations

import time

import numpy as np
import pinocchio as pin

import taskik

DT = 0.01
TOL = 1e-5  # pose error norm (m and rad) at which a pose counts as reached


def ur5_servoing() -> list[tuple[int, float]]:
    """Returns (steps taken, final |e|) per pose."""
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = taskik.FrameTask("tool0", position_cost=1.0, orientation_cost=0.5, gain=0.5)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    tasks = [tool, posture]
    start = conf.get_transform_frame_to_world("tool0")
    offsets = [
        ([0.10, 0.15, -0.10], [0.0, 0.0, 0.5]),
        ([-0.15, 0.20, 0.05], [0.3, 0.0, 0.0]),
        ([0.05, -0.20, 0.15], [0.0, -0.4, 0.2]),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ]
    print("(a) UR5: tool servoing through 4 poses, dt = 10 ms, joint limits on")
    q_min, q_max = robot.model.lowerPositionLimit, robot.model.upperPositionLimit
    reached = []
    for k, (dp, drot) in enumerate(offsets, 1):
        target = pin.SE3(start.rotation @ pin.exp3(np.array(drot)), start.translation + dp)
        tool.set_target(target)
        print(f"  pose {k}: ", end="")
        for step in range(1, 301):
            v = taskik.solve_ik(conf, tasks, DT)
            conf.integrate_inplace(v, DT)
            assert (conf.q >= q_min).all() and (conf.q <= q_max).all()
            err = np.linalg.norm(tool.compute_error(conf))
            if step in (1, 10, 30, 100) or err < TOL:
                print(f"step {step:3d} |e| = {err:.1e}", end="; " if err >= TOL else "\n")
            if err < TOL:
                break
        else:
            print(f"stopped after 300 steps at |e| = {err:.1e}")
        reached.append((step, float(err)))
    return reached


def humanoid_posture() -> dict[str, float]:
    """Returns the final |e| of each task but the posture."""
    robot = taskik.robots.load("humanoid")
    conf = robot.configuration()
    feet = [
        taskik.FrameTask(name, position_cost=10.0, orientation_cost=10.0)
        for name in ("lleg_effector_body", "rleg_effector_body")
    ]
    for foot in feet:
        foot.set_target_from_configuration(conf)
    com = taskik.ComTask(cost=1.0, lm_damping=1.0)
    com.set_target(conf.com + np.array([0.0, 0.04, -0.02]))
    hand = taskik.PositionTask("rarm_effector_body", cost=1.0, lm_damping=1.0)
    hand.set_target(
        conf.get_transform_frame_to_world("rarm_effector_body").translation + [0.25, 0.1, 0.2]
    )
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    tasks = [*feet, com, hand, posture]
    print("\n(b) humanoid: feet held, CoM shifted 4 cm left and 2 cm down, right hand reaching")
    t0 = time.perf_counter()
    for _ in range(600):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT), DT)
    per_step = (time.perf_counter() - t0) / 600 * 1e6
    print(f"600 steps (nv = {robot.model.nv}), {per_step:.0f} µs per step including kinematics")
    v = taskik.solve_ik(conf, tasks, DT)
    print(taskik.report(conf, tasks, DT, v))
    names = ("left foot", "right foot", "com", "hand")
    return {
        n: float(np.linalg.norm(t.compute_error(conf)))
        for n, t in zip(names, tasks[:4], strict=True)
    }


def main() -> dict:
    """Runs both parts and returns their results (UR5 poses, humanoid task errors)."""
    t0 = time.perf_counter()
    ur5 = ur5_servoing()
    humanoid = humanoid_posture()
    print(f"\ndemo finished in {1e3 * (time.perf_counter() - t0):.0f} ms")
    return {"ur5_poses": ur5, "humanoid_errors": humanoid}


if __name__ == "__main__":
    main()
