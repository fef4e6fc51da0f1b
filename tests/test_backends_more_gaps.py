"""Array backends at the edges their documentation states: the relative singular-value
cut-off of the pseudoinverse and of SDLS (exact zeros with a zero cut-off, matrices of any
scale), and the boundary ``β'/s = λ₁`` of the joint-limit map, where a joint still moves and
is therefore not held."""

from __future__ import annotations

import numpy as np
import pytest

from taskik import JointLimitMap
from taskik.backends.joint_limit_map import beta_inverse
from taskik.backends.pseudoinverse import solve_pinv
from taskik.backends.sdls import solve_sdls

RANK_ONE = np.array([[1.0, 0.0], [0.0, 0.0]])  # singular values exactly 1 and 0


# ------------------------------------------------------------------ pseudoinverse
def test_pinv_with_a_zero_cutoff_still_drops_exactly_zero_singular_values():
    """``A⁺ = Σ_{σ_i > rcond·σ_max} σ_i⁻¹ v_i u_iᵀ``: with ``rcond = 0`` a singular value
    that is exactly 0 is not inverted; the step is the finite minimum-norm solution."""
    v = solve_pinv(RANK_ONE, np.array([0.3, 2.0]), rcond=0.0)
    assert np.all(np.isfinite(v))
    assert np.allclose(v, [0.3, 0.0], atol=1e-15)


def test_pinv_drops_a_singular_value_at_the_cutoff():
    """The kept singular values are those strictly above ``rcond·σ_max``."""
    A = np.diag([1.0, 0.5])
    assert np.allclose(solve_pinv(A, np.ones(2), rcond=0.5), [1.0, 0.0], atol=1e-15)
    assert np.allclose(solve_pinv(A, np.ones(2), rcond=0.4999), [1.0, 2.0], atol=1e-15)


# --------------------------------------------------------------------------- SDLS
def test_sdls_with_a_zero_cutoff_still_skips_exactly_zero_singular_values():
    dtheta = solve_sdls(RANK_ONE, np.array([0.1, 0.3]), np.array([0, 1]), rcond=0.0)
    assert np.all(np.isfinite(dtheta))
    assert np.allclose(dtheta, [0.1, 0.0], atol=1e-15)


@pytest.mark.parametrize("scale", [1.0, 1e-5, 1e6])
def test_sdls_cutoff_is_relative_to_the_largest_singular_value(scale):
    """Singular values below ``rcond·σ_max`` are skipped, so scaling ``A`` and ``e`` together
    (other units) gives the same joint change: with σ = (1, 1e-3, 1e-13) the third direction
    is skipped and the second is kept, at any scale."""
    A = scale * np.diag([1.0, 1e-3, 1e-13])
    e = scale * np.array([0.0, 1e-4, 1e-14])  # 0.1 rad along the 2nd and the 3rd direction
    dtheta = solve_sdls(A, e, np.array([0, 1, 2]))
    assert np.allclose(dtheta, [0.0, 0.1, 0.0], rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ joint-limit map
def test_at_exactly_the_threshold_the_joint_still_moves_and_is_not_held():
    """``dβ⁺ = 1/β'`` where ``β'/s ≥ λ₁`` (0 only below), and ``held`` is ``β'/s < λ₁``:
    a joint exactly at ``β'/s = λ₁`` keeps moving toward its limit and is not held."""
    lower, upper = np.array([-1.0]), np.array([1.0])
    theta = np.array([0.7])
    jm0 = JointLimitMap()
    z = beta_inverse(theta, lower, upper, jm0.z_max)
    g = float(1.0 / (1.0 + z[0] * z[0]))  # β'/s at θ
    jm = JointLimitMap(threshold=g)
    scale = (upper - lower) / np.pi
    assert jm.inverse_derivative(z, scale)[0] == pytest.approx(1.0 / (scale[0] * g), rel=1e-15)
    assert not jm.held(theta, np.array([1.0]), lower, upper)[0]
    v = jm.step(theta, np.array([1.0]), lower, upper, 0.01)
    assert v[0] > 0.5  # moves on toward θU (1 rad/s asked)
    # a little closer to the limit it is held and the map stops it
    closer = np.array([0.71])
    assert jm.held(closer, np.array([1.0]), lower, upper)[0]
    assert abs(jm.step(closer, np.array([1.0]), lower, upper, 0.01)[0]) < 1e-12


def test_damped_inversion_holds_strictly_under_lambda():
    """Damped inversion: held where ``β'/s < λ₂``; exactly at ``λ₂`` the joint is not held."""
    lower, upper = np.array([-2.0]), np.array([1.0])
    theta = np.array([0.5])
    z = beta_inverse(theta, lower, upper, 1e8)
    g = float(1.0 / (1.0 + z[0] * z[0]))
    jm = JointLimitMap("damped", damping=g)
    assert not jm.held(theta, np.array([0.3]), lower, upper)[0]
    assert JointLimitMap("damped", damping=g * (1 + 1e-9)).held(
        theta, np.array([0.3]), lower, upper
    )[0]
