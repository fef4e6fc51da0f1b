"""Metrics against hand-computed values on the planar arms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from taskik import InvalidInput, robots
from taskik.metrics import (
    condition_number,
    frame_condition_number,
    frame_jacobian,
    frame_manipulability,
    manipulability,
    singular_values,
)

L1, L2 = 1.0, 0.7


def planar_xy_jacobian(t1: float, t2: float) -> np.ndarray:
    s1, c1, s12, c12 = math.sin(t1), math.cos(t1), math.sin(t1 + t2), math.cos(t1 + t2)
    return np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])


@pytest.mark.parametrize("q", [(0.3, 0.6), (-1.0, 2.5), (0.7, -0.4), (0.0, 0.0)])
def test_planar_2r_by_hand(planar_2r, q):
    conf = planar_2r.configuration(np.array(q))
    J = frame_jacobian(conf, "ee")
    assert np.allclose(J[:2], planar_xy_jacobian(*q), atol=1e-12)
    # Yoshikawa on the x–y rows: |det J| = l1 l2 |sin θ2|
    assert manipulability(J, [0, 1]) == pytest.approx(L1 * L2 * abs(math.sin(q[1])), abs=1e-12)
    assert frame_manipulability(conf, "ee", [0, 1]) == pytest.approx(
        L1 * L2 * abs(math.sin(q[1])), abs=1e-12
    )
    # 2 × 2 singular values from trace and determinant: σ² = (T ± √(T² − 4D²)) / 2
    Jxy = planar_xy_jacobian(*q)
    T, D = float((Jxy**2).sum()), abs(float(np.linalg.det(Jxy)))
    root = math.sqrt(max(T * T - 4 * D * D, 0.0))
    s_hand = np.sqrt([(T + root) / 2, max((T - root) / 2, 0.0)])
    assert np.allclose(singular_values(J, [0, 1]), s_hand, atol=1e-9)
    kappa = condition_number(J, [0, 1])
    if q[1] == 0.0:
        assert kappa == math.inf  # full stretch
    else:
        assert kappa == pytest.approx(s_hand[0] / s_hand[1], rel=1e-9)
    # the 3 translational rows of a 2-joint arm can never span space: m = 0
    assert manipulability(J, "translation") == 0.0
    # rotational rows: only ω_z = θ̇1 + θ̇2 → Ĵ = [1, 1], m = √2, κ = 1
    assert manipulability(J, [5]) == pytest.approx(math.sqrt(2.0))
    assert condition_number(J, [5]) == pytest.approx(1.0)


def test_planar_3r_rotation_and_stretch():
    arm = robots.load("planar_3r")
    conf = arm.configuration(np.array([0.2, 0.0, 0.0]))  # straight: 1 + 0.7 + 0.5
    J = frame_jacobian(conf, "ee")
    assert manipulability(J, [5]) == pytest.approx(math.sqrt(3.0))
    # straight arm: x–y rows [[−s·2.2, −s·1.2, −s·0.5], [c·2.2, c·1.2, c·0.5]] have rank 1
    assert manipulability(J, [0, 1]) == pytest.approx(0.0, abs=1e-12)
    assert singular_values(J, [0, 1])[0] == pytest.approx(
        math.sqrt(2.2**2 + 1.2**2 + 0.5**2), rel=1e-12
    )


def test_translation_and_rotation_rows_are_separate(ur5, rng):
    conf = ur5.configuration(ur5.random_configuration(rng))
    J = frame_jacobian(conf, "tool0")
    assert manipulability(J, "translation") == pytest.approx(
        math.sqrt(np.linalg.det(J[:3] @ J[:3].T)), rel=1e-9
    )
    assert manipulability(J, "rotation") == pytest.approx(
        math.sqrt(np.linalg.det(J[3:] @ J[3:].T)), rel=1e-9
    )
    s = np.linalg.svd(J[3:], compute_uv=False)
    assert frame_condition_number(conf, "tool0", "rotation") == pytest.approx(s[0] / s[-1])
    # LOCAL and world-aligned rows give the same metrics
    local = conf.get_frame_jacobian("tool0")
    assert manipulability(local, "translation") == pytest.approx(
        manipulability(J, "translation"), rel=1e-9
    )


def test_bad_rows_are_rejected():
    with pytest.raises(InvalidInput, match="part must be one of"):
        manipulability(np.eye(6), "linear")
    with pytest.raises(InvalidInput, match="needs a 6-row Jacobian"):
        manipulability(np.eye(3), "rotation")
    with pytest.raises(InvalidInput, match="out of range"):
        condition_number(np.eye(3), [0, 5])
