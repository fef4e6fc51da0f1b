"""Checks shared by the tests of the tasks of issue 15: robots (cached), random
configurations, and the Jacobian of a task against central finite differences."""

from __future__ import annotations

import functools

import numpy as np
import pinocchio as pin

import taskik

#: The robots every new task is checked on, with a hand frame and a second frame.
ROBOTS = {
    "ur5": ("tool0", "shoulder_lift_joint"),
    "panda": ("panda_hand", "panda_link3"),
    "talos": ("gripper_left_base_link", "left_sole_link"),
    "humanoid": ("larm_effector_body", "rleg_effector_body"),
}


@functools.cache
def robot(name: str) -> taskik.robots.Robot:
    return taskik.robots.load(name)


def configurations(name: str, rng: np.random.Generator, n: int = 3):
    """``n`` random configurations of robot ``name``, as Configuration objects."""
    r = robot(name)
    return [r.configuration(r.random_configuration(rng)) for _ in range(n)]


def displaced(conf: taskik.Configuration, v: np.ndarray, eps: float) -> taskik.Configuration:
    return taskik.Configuration(conf.model, pin.integrate(conf.model, conf.q, eps * v))


def fd_rate(f, conf: taskik.Configuration, v: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Central difference of ``f(configuration)`` along ``q ⊕ t v`` at t = 0."""
    plus, minus = displaced(conf, v, eps), displaced(conf, v, -eps)
    return (np.asarray(f(plus)) - np.asarray(f(minus))) / (2 * eps)


def assert_jacobian_matches(task, conf, rng, rtol: float = 1e-6, trials: int = 2) -> None:
    """``J v`` is the rate of the task value ``x = x* − e``: ``J v = −d e/dt`` along v,
    within ``rtol`` of the larger of the two norms (abs floor 1e-9)."""
    J = task.compute_jacobian(conf)
    for _ in range(trials):
        v = rng.standard_normal(conf.nv)
        fd = -fd_rate(task.compute_error, conf, v)
        jv = J @ v
        scale = max(np.linalg.norm(fd), np.linalg.norm(jv))
        assert np.linalg.norm(jv - fd) <= rtol * scale + 1e-9, (task, jv, fd)
        assert scale > 1e-6, (task, "a degenerate direction checks nothing")


def closed_loop(conf, tasks, steps: int, dt: float = 0.05, **kwargs) -> None:
    """Run ``steps`` steps of solve_ik on ``conf`` in place."""
    for _ in range(steps):
        v = taskik.solve_ik(conf, tasks, dt, **kwargs)
        conf.integrate_inplace(v, dt)
