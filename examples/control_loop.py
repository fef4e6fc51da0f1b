"""A control loop at a fixed rate: the UR5's tool draws a circle, one IK step per tick.

The loop runs at 100 Hz against the wall clock: each tick reads the time, moves the target
along a 10 cm circle, solves one step (joint position and velocity limits on), integrates,
and sleeps until the next tick. Deadlines are absolute (tick k is due at t0 + k·period), so
a late tick does not shift the ones after it. At the end it prints the compute time per
tick, how late the ticks woke up, the deadlines missed and the tracking error. On a robot,
``configuration.integrate_inplace`` would be replaced by sending ``v`` (or ``q + v·dt``) to
the joint controllers and reading the measured ``q`` back with ``configuration.update(q)``.

    python examples/control_loop.py [--rate 100] [--seconds 3]   # TASKIK_SMOKE=1: 0.3 s
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import taskik

SMOKE = os.environ.get("TASKIK_SMOKE") == "1"


def circle(center: np.ndarray, t: float, radius: float = 0.1, period: float = 2.0) -> np.ndarray:
    """A point on a circle in the y–z plane, one turn per ``period`` seconds."""
    phase = 2 * np.pi * t / period
    return center + radius * np.array([0.0, np.cos(phase) - 1.0, np.sin(phase)])


def run(rate: float, seconds: float) -> dict[str, float]:
    robot = taskik.robots.load("ur5")
    conf = robot.configuration()
    tool = taskik.FrameTask("tool0", position_cost=1.0, orientation_cost=0.5, gain=1.0)
    tool.set_target_from_configuration(conf)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    tasks = [tool, posture]
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    center = tool.target.translation.copy()

    period = 1.0 / rate
    ticks = int(round(seconds * rate))
    compute, lateness, errors = np.empty(ticks), np.empty(ticks), np.empty(ticks)
    missed = 0
    t0 = time.perf_counter()
    for k in range(ticks):
        due = t0 + k * period
        now = time.perf_counter()
        lateness[k] = now - due
        target = tool.target.copy()
        target.translation = circle(center, k * period)
        tool.set_target(target)
        v = taskik.solve_ik(conf, tasks, period, limits=limits)
        conf.integrate_inplace(v, period)
        errors[k] = np.linalg.norm(
            conf.get_transform_frame_to_world("tool0").translation - target.translation
        )
        done = time.perf_counter()
        compute[k] = done - now
        next_due = t0 + (k + 1) * period
        if done > next_due:
            missed += 1
        else:
            time.sleep(next_due - done)
    return {
        "ticks": ticks,
        "missed": missed,
        "compute_median_us": float(np.median(compute) * 1e6),
        "compute_max_us": float(compute.max() * 1e6),
        "late_median_us": float(np.median(lateness) * 1e6),
        "late_p99_us": float(np.percentile(lateness, 99) * 1e6),
        "error_mean_mm": float(errors[ticks // 2 :].mean() * 1e3),
        "error_max_mm": float(errors.max() * 1e3),
        "elapsed_s": time.perf_counter() - t0,
    }


def main(rate: float = 100.0, seconds: float = 3.0) -> dict[str, float]:
    """Runs the loop, prints its figures and returns them (see ``run``)."""
    if not rate > 0 or not seconds > 0:
        raise SystemExit("rate and seconds must be positive")
    if SMOKE:
        seconds = min(seconds, 0.3)
    print(f"UR5 tool on a 10 cm circle, {rate:g} Hz for {seconds:g} s")
    s = run(rate, seconds)
    print(f"  {s['ticks']} ticks in {s['elapsed_s']:.2f} s, {s['missed']} deadline(s) missed")
    print(
        f"  compute per tick: median {s['compute_median_us']:.0f} µs, "
        f"max {s['compute_max_us']:.0f} µs (budget {1e6 / rate:.0f} µs)"
    )
    print(f"  wake-up lateness: median {s['late_median_us']:.0f} µs, p99 {s['late_p99_us']:.0f} µs")
    print(f"  tracking error (second half): {s['error_mean_mm']:.2f} mm mean")
    return s


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=100.0, help="loop rate in Hz")
    parser.add_argument("--seconds", type=float, default=3.0, help="duration in s")
    args = parser.parse_args()
    main(args.rate, args.seconds)
