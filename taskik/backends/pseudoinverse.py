"""Pseudoinverse backend: ``v = A⁺ c`` by singular value decomposition.

With ``A = Σ σ_i u_i v_iᵀ`` (Buss, "Introduction to Inverse Kinematics ...", §4 and §6),

    A⁺ = Σ_{σ_i > rcond·σ_max} σ_i⁻¹ v_i u_iᵀ.

``v`` is the minimum-norm minimiser of ``‖A v − c‖``. Singular values under the relative
cut-off ``rcond`` are treated as zero; close to (but above) the cut-off the step grows like
``1/σ_min``, which is why the pseudoinverse misbehaves near singularities.
"""

from __future__ import annotations

import numpy as np

#: Default relative singular-value cut-off of the pseudoinverse.
DEFAULT_RCOND = 1e-10


def solve_pinv(A: np.ndarray, c: np.ndarray, rcond: float = DEFAULT_RCOND) -> np.ndarray:
    """``v = A⁺ c`` with singular values below ``rcond · σ_max`` dropped.

    Args:
        A: system matrix (m × n).
        c: right-hand side (m).
        rcond: relative cut-off in [0, 1).

    Returns:
        v (n), the minimum-norm least-squares solution.
    """
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(A.shape[1])
    keep = s > rcond * s[0]
    coef = (c @ U[:, keep]) / s[keep]
    return coef @ Vt[keep]
