"""Seed 004's joint-limit map (unconstrained backends) against the QP's position box.

Robot: the bundled ``planar_3r`` (links 1, 0.7, 0.5 m) with narrowed ranges, joint1 ±π,
joint2 [−0.5, 0.8], joint3 [−1, 1] rad, so that many targets drive a joint into a limit.
Task: ``PositionTask("ee", gain=0.1)``, dt = 0.01 s, limits ``[ConfigurationLimit(model)]``
(gain 0.5) for every method; methods: ``qp`` (the box, DAQP), ``dls`` (λ = 0.1) and ``pinv``
with the map (threshold inversion), ``dls`` with the damped inversion (λ₂ = 0.01), and ``dls``
with the map and ``max_joint_step=0.05`` rad (the small steps the thesis assumes), and plain
``dls`` without limits (what the map costs, and what it prevents).

Episodes (seeded):

- **into and out of a limit**: 300 steps toward a target that needs joint2 and joint3 past
  their upper limits, then 300 steps toward one reachable within the ranges;
- **random**: 40 random targets in the disc of radius 2.2 m (about half of them out of reach
  within the ranges), 300 steps each from q = (0.3, 0.3, 0.2);
- **circle**: the target on a circle of radius 0.6 m about (1.2, 0.6), one revolution in
  6 s (600 steps), whose upper part needs joint2 at its limit.

Measured: the largest excursion past a limit (m or rad, > 0 would be a crossing), the final
position error, the mean error over the run, how many episodes end within 1 mm, and the
median time of one step (``solve_ik`` only, µs). Run: ``python benchmarks/joint_limit_map.py``
(about 20 s); writes ``benchmarks/results/joint_limit_map.txt``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.backends.joint_limit_map import JointLimitMap

DT = 0.01
METHODS = {
    "qp (box)": {"backend": "qp"},
    "dls + map (threshold)": {"backend": "dls"},
    "pinv + map (threshold)": {"backend": "pinv"},
    "dls + map (damped)": {"backend": "dls", "joint_limit_map": JointLimitMap("damped")},
    "dls + map, steps ≤ 0.05": {"backend": "dls", "max_joint_step": 0.05},
    "dls, no limits": {"backend": "dls", "limits": []},
}


def narrow_planar_3r() -> pin.Model:
    model = pin.Model(taskik.robots.load("planar_3r").model)
    model.lowerPositionLimit[:] = [-np.pi, -0.5, -1.0]
    model.upperPositionLimit[:] = [np.pi, 0.8, 1.0]
    return model


def episode(model: pin.Model, targets: np.ndarray, options: dict) -> dict[str, float]:
    """Track ``targets`` (one per step); excursion, final and mean error, step times."""
    conf = taskik.Configuration(model, np.array([0.3, 0.3, 0.2]))
    task = taskik.PositionTask("ee", gain=0.1)
    options = dict(options)
    limits = options.pop("limits", [taskik.ConfigurationLimit(model)])
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    errors, times, excursion = [], [], -np.inf
    for target in targets:
        task.set_target(target)
        t0 = time.perf_counter_ns()
        v = taskik.solve_ik(conf, [task], DT, limits=limits, **options)
        times.append((time.perf_counter_ns() - t0) * 1e-3)
        conf.integrate_inplace(v, DT)
        excursion = max(excursion, float(np.max(np.maximum(conf.q - hi, lo - conf.q))))
        errors.append(float(np.linalg.norm(task.compute_error_and_jacobian(conf)[0])))
    return {
        "excursion": excursion,
        "final": errors[-1],
        "mean": float(np.mean(errors)),
        "time": float(np.median(times)),
    }


def scenarios(rng: np.random.Generator) -> dict[str, list[np.ndarray]]:
    into = np.repeat([[0.5, 0.9, 0.0], [2.0, 0.5, 0.0]], 300, axis=0)
    radius = 2.2 * np.sqrt(rng.uniform(0.05, 1.0, 40))
    angle = rng.uniform(-np.pi, np.pi, 40)
    random = [
        np.repeat([[r * np.cos(a), r * np.sin(a), 0.0]], 300, axis=0)
        for r, a in zip(radius, angle, strict=True)
    ]
    t = np.linspace(0.0, 2 * np.pi, 600)
    circle = np.column_stack([1.2 + 0.6 * np.cos(t), 0.6 + 0.6 * np.sin(t), np.zeros_like(t)])
    return {"into and out of a limit": [into], "random (40)": random, "circle": [circle]}


def main() -> str:
    model = narrow_planar_3r()
    lines = [
        "Joint-limit map (seed 004) vs the QP box: planar_3r, narrowed ranges, dt = 0.01 s",
        "",
        f"{'scenario':<26}{'method':<25}{'excursion':>11}{'final err':>11}"
        f"{'mean err':>10}{'reached':>9}{'step µs':>9}",
    ]
    for name, runs in scenarios(np.random.default_rng(20261123)).items():
        for method, options in METHODS.items():
            results = [episode(model, targets, options) for targets in runs]
            excursion = max(r["excursion"] for r in results)
            final = float(np.median([r["final"] for r in results]))
            mean = float(np.median([r["mean"] for r in results]))
            step = float(np.median([r["time"] for r in results]))
            reached = f"{sum(r['final'] < 1e-3 for r in results)}/{len(results)}"
            lines.append(
                f"{name:<26}{method:<25}{excursion:>11.2e}{final:>11.2e}{mean:>10.4f}"
                f"{reached:>9}{step:>9.1f}"
            )
    lines += [
        "",
        "excursion: largest q − q_max or q_min − q over the run (≤ 0: no crossing);",
        "final/mean err: position error (m), median over the episodes of a scenario;",
        "reached: episodes ending within 1 mm of the target; step: median solve_ik time.",
    ]
    text = "\n".join(lines)
    out = Path(__file__).resolve().parent / "results" / "joint_limit_map.txt"
    out.write_text(text + "\n")
    print(text)
    return text


if __name__ == "__main__":
    main()
