"""Jacobian-transpose backend: ``v = α Aᵀ c``.

Buss ("Introduction to Inverse Kinematics with Jacobian Transpose, Pseudoinverse and Damped
Least Squares methods", §3) and Williams ("A Tutorial on Differential Inverse Kinematics",
Theorem 2): ``⟨c, AAᵀc⟩ = ‖Aᵀc‖² ≥ 0``, so ``Aᵀc`` never increases the linearised error for
a small enough step, and the step

    α = ⟨c, AAᵀc⟩ / ‖AAᵀc‖²

minimises ``‖α AAᵀc − c‖``, the residual of the linearised system after the step. The
backend works on arrays: ``A`` (m × n) and ``c`` (m) are any least-squares system
``A v ≈ c``; it knows nothing of robots.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dnrm2


def transpose_step_size(A: np.ndarray, c: np.ndarray) -> float:
    """The step ``α = ⟨c, AAᵀc⟩ / ‖AAᵀc‖²`` of Williams' Theorem 2 (0 when ``AAᵀc = 0``)."""
    g = c @ A  # Aᵀc
    Ag = A @ g  # AAᵀc
    den = float(Ag @ Ag)
    if den == 0.0:
        return 0.0
    return float(g @ g) / den  # ⟨c, AAᵀc⟩ = ‖Aᵀc‖²


def solve_transpose(A: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``v = α Aᵀ c`` with the error-minimising step ``α`` of :func:`transpose_step_size`.

    Args:
        A: system matrix (m × n), e.g. the stacked weighted task Jacobians.
        c: right-hand side (m), e.g. the stacked weighted task velocities (units of ``A v``).

    Returns:
        v (n). Zero when ``Aᵀc = 0`` (c orthogonal to the range of A).
    """
    g = c @ A
    Ag = A @ g
    # the norms by BLAS's scaled nrm2: no overflow of the squares (|Ag| up to 1.8e308)
    den = dnrm2(Ag) if len(Ag) else 0.0
    if den == 0.0:
        return np.zeros(A.shape[1])
    ratio = dnrm2(g) / den
    g *= ratio * ratio  # α = ‖Aᵀc‖² / ‖AAᵀc‖²
    return g
