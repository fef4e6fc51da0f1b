"""Tracking through a singularity: the planar 2R is pulled past full stretch and back."""

from __future__ import annotations

import numpy as np

import taskik
from taskik import solve_ik

DT = 0.01


def peak_joint_step(planar_2r, backend, **options) -> float:
    c2 = (1.2**2 - 1.0 - 0.49) / 1.4
    t2 = np.arccos(c2)
    q0 = np.array([-np.arctan2(0.7 * np.sin(t2), 1.0 + 0.7 * c2), t2])  # elbow at (1.2, 0)
    conf = planar_2r.configuration(q0)
    task = taskik.PositionTask("ee", gain=0.5)
    peak = 0.0
    for k in range(1, 301):
        x = 1.2 + 0.6 * np.sin(np.pi * k * DT / 3.0) ** 2  # out to 1.8 (> 1.7) and back
        task.set_target(np.array([x, 0.0, 0.0]))
        v = solve_ik(conf, [task], DT, backend=backend, **options)
        peak = max(peak, float(np.abs(v).max()) * DT)
        conf.integrate_inplace(v, DT)
    return peak


def test_bounded_steps_through_a_singularity_except_pinv(planar_2r):
    bounded = {
        "dls": peak_joint_step(planar_2r, "dls", lam=0.1),
        "sdls": peak_joint_step(planar_2r, "sdls"),
        "regularized": peak_joint_step(planar_2r, "regularized", gamma0=0.5, sigma_thr=0.3),
    }
    pinv = peak_joint_step(planar_2r, "pinv")
    for name, peak in bounded.items():
        assert peak < 0.8, name  # rad per step, every step
    assert bounded["sdls"] <= np.pi / 4 + 1e-12
    assert pinv > 10.0  # rad per step
    assert pinv > 30.0 * max(bounded.values())
