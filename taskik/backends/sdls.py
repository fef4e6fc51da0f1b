"""Selectively damped least squares (Buss and Kim, "Selectively Damped Least Squares for
Inverse Kinematics", Journal of Graphics Tools 10(3), 2005).

With ``A = Σ σ_i u_i v_iᵀ`` and the rows of ``A`` split into groups ``l`` (one group per end
effector: the 3 rows of a point, or of an orientation), each singular direction gets its own
bound on the joint change it may cause:

    α_i = u_iᵀ e                                  (component of the desired change)
    N_i = Σ_l ‖u_{l,i}‖                           (size of the unit task change u_i)
    M_i = σ_i⁻¹ Σ_j |v_{j,i}| Σ_l ‖ρ_{l,j}‖          (task change caused by the joint change
                                                    σ_i⁻¹ v_i; ρ_{l,j} = A[l, j])
    γ_i = γ_max · min(1, N_i / M_i)
    φ_i = ClampMaxAbs(σ_i⁻¹ α_i v_i, γ_i)
    Δθ  = ClampMaxAbs(Σ_i φ_i, γ_max)

where ``ClampMaxAbs(w, d)`` scales ``w`` so that ``max_j |w_j| ≤ d``. Directions whose
unit joint motion moves the end effectors much more than their own size (near a singularity,
``M_i ≫ N_i``) are damped the most. ``e`` and ``Δθ`` are a displacement over one update
(``γ_max`` is an angle per update, π/4 in the paper).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Buss and Kim's maximum joint change per update (rad).
DEFAULT_GAMMA_MAX = np.pi / 4


def group_starts(sizes: Sequence[int]) -> np.ndarray:
    """Start index of each row group, from the group sizes (for :func:`solve_sdls`)."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)


def solve_sdls(
    A: np.ndarray,
    e: np.ndarray,
    starts: np.ndarray | None = None,
    gamma_max: float = DEFAULT_GAMMA_MAX,
    rcond: float = 1e-12,
) -> np.ndarray:
    """Joint change ``Δθ`` (n) of selectively damped least squares for ``A Δθ ≈ e``.

    Args:
        A: system matrix (m × n).
        e: desired change of the task values over one update (m).
        starts: first row of each contiguous row group (end effector); by default groups
            of 3 rows when m is a multiple of 3, else one group per row.
        gamma_max: largest joint change per update (rad), > 0.
        rcond: singular values below ``rcond · σ_max`` are skipped.
    """
    m, n = A.shape
    if starts is None:
        starts = np.arange(0, m, 3 if m % 3 == 0 else 1, dtype=np.intp)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(n)
    keep = s > rcond * s[0]
    U, s, Vt = U[:, keep], s[keep], Vt[keep]
    inv_s = 1.0 / s
    alpha = e @ U
    N = np.sqrt(np.add.reduceat(U * U, starts, axis=0)).sum(axis=0)
    rho = np.sqrt(np.add.reduceat(A * A, starts, axis=0)).sum(axis=0)  # Σ_l ‖ρ_{l,j}‖
    M = inv_s * (np.abs(Vt) @ rho)
    gamma = gamma_max * np.minimum(1.0, N / np.maximum(M, 1e-300))
    phi = (alpha * inv_s)[:, None] * Vt
    peak = np.abs(phi).max(axis=1)
    scale = np.where(peak > gamma, gamma / np.maximum(peak, 1e-300), 1.0)
    dtheta = scale @ phi
    peak = np.abs(dtheta).max()
    if peak > gamma_max:
        dtheta *= gamma_max / peak
    return dtheta
