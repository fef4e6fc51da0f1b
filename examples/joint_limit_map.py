"""Joint limits without a QP: the change of variable θ = β(z) (seed 004) under backend="dls".

A planar 3R arm (joint2 in [−0.5, 0.8] rad, joint3 in [−1, 1] rad) reaches for a point that
would need both joints past their upper limits: it presses against the limits, never crosses
them, then leaves them when the target moves back within reach. The QP's position box runs
the same episode for comparison, and once more with an acceleration limit (|Δv| ≤ a_max dt)
whose braking bound slows each joint in time to stop at its limit.

    python examples/joint_limit_map.py
"""

from __future__ import annotations

import os

import numpy as np
import pinocchio as pin

import taskik
from taskik.limits import AccelerationLimit

DT = 0.01
STEPS = 120 if os.environ.get("TASKIK_SMOKE") else 300


def arm() -> pin.Model:
    model = pin.Model(taskik.robots.load("planar_3r").model)
    model.lowerPositionLimit[:] = [-np.pi, -0.5, -1.0]
    model.upperPositionLimit[:] = [np.pi, 0.8, 1.0]
    return model


def run(model: pin.Model, backend: str, a_max: float | None = None) -> dict[str, float]:
    conf = taskik.Configuration(model, np.array([0.3, 0.3, 0.2]))
    task = taskik.PositionTask("ee", gain=0.1)
    limits: list[taskik.limits.Limit] = [taskik.ConfigurationLimit(model)]
    if a_max is not None:
        limits.append(AccelerationLimit(model, a_max))
    margin = np.inf  # smallest distance to a limit over the run (< 0: crossed)
    out: dict[str, float] = {"max_acceleration": 0.0}
    v_prev = np.zeros(model.nv)
    for phase, target in (("beyond", [0.5, 0.9, 0.0]), ("within", [2.0, 0.5, 0.0])):
        task.set_target(np.array(target))
        for _ in range(STEPS):
            v = taskik.solve_ik(conf, [task], DT, limits=limits, backend=backend)
            accel = float(np.abs(v - v_prev).max()) / DT
            out["max_acceleration"] = max(out["max_acceleration"], accel)
            v_prev = v
            conf.integrate_inplace(v, DT)
            gap = np.minimum(conf.q - model.lowerPositionLimit, model.upperPositionLimit - conf.q)
            margin = min(margin, float(gap.min()))
        out[f"{phase}_error"] = float(np.linalg.norm(task.compute_error_and_jacobian(conf)[0]))
        out[f"{phase}_joint2"] = float(conf.q[1])
    out["margin"] = margin
    return out


def main() -> dict[str, dict[str, float]]:
    model = arm()
    results = {backend: run(model, backend) for backend in ("dls", "qp")}
    results["qp, a_max = 2"] = run(model, "qp", a_max=2.0)
    for backend, r in results.items():
        print(
            f"{backend:>13}: target beyond the limits: error {r['beyond_error']:.3f} m, "
            f"joint2 {r['beyond_joint2']:.4f} (limit 0.8); target within: error "
            f"{r['within_error']:.1e} m, joint2 {r['within_joint2']:.3f}; "
            f"closest to a limit {r['margin']:.1e} rad; largest |Δv|/dt "
            f"{r['max_acceleration']:.3g} rad/s²"
        )
    return results


if __name__ == "__main__":
    main()
