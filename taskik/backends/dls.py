"""Damped least squares (Levenberg–Marquardt) backend.

Minimises ``‖A v − c‖² + vᵀ W_n v`` (Wampler; Nakamura and Hanafusa), i.e.

    (AᵀA + W_n) v = Aᵀ c.

With ``W_n = λ² I`` this is Buss's form ``v = Aᵀ(AAᵀ + λ²I)⁻¹ c`` ("Introduction to Inverse
Kinematics ...", eq. 11), equal to the SVD form ``Σ σ_i/(σ_i² + λ²) v_i u_iᵀ c`` (eq. 14).
The error-dependent dampings of the Haviland–Corke tutorial ("Manipulator Differential
Kinematics", eqs. 50–51), with ``E = ½ eᵀ W_e e`` the weighted squared task error:

- ``"constant"`` (Wampler): ``W_n = λ² I``;
- ``"chan"`` (Chan and Lawrence): ``W_n = λ E I``;
- ``"sugihara"``: ``W_n = E I + diag(w̄)``.

Arrays only: this module knows nothing of robots.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidInput

DAMPING_KINDS = ("constant", "chan", "sugihara")


def damping_diagonal(
    kind: str, lam: float, error_energy: float, w_bar: float | np.ndarray, n: int
) -> np.ndarray:
    """Diagonal of ``W_n`` (n) for a damping kind.

    Args:
        kind: ``"constant"`` (``λ²``), ``"chan"`` (``λ E``) or ``"sugihara"`` (``E + w̄``).
        lam: the constant ``λ`` (≥ 0).
        error_energy: ``E = ½ eᵀ W_e e`` (used by ``"chan"`` and ``"sugihara"``).
        w_bar: Sugihara's bias ``w̄``, scalar or one per joint (≥ 0), typically
            ``0.01 l² … l²`` with ``l`` a typical link length.
        n: number of joints.
    """
    if kind == "constant":
        return np.full(n, lam * lam)
    if kind == "chan":
        return np.full(n, lam * error_energy)
    if kind == "sugihara":
        return error_energy + np.broadcast_to(np.asarray(w_bar, dtype=float), (n,))
    raise InvalidInput(f"damping_kind must be one of {DAMPING_KINDS}, got {kind!r}")


def solve_dls(A: np.ndarray, c: np.ndarray, damping: float | np.ndarray) -> np.ndarray:
    """``v = (AᵀA + W_n)⁻¹ Aᵀ c`` (normal equations).

    Args:
        A: system matrix (m × n).
        c: right-hand side (m).
        damping: ``W_n``: a scalar ``λ²`` (then, when m < n, the smaller m × m system
            ``(AAᵀ + λ²I) f = c``, ``v = Aᵀ f`` is solved instead) or its diagonal (n).
    """
    m, n = A.shape
    if np.ndim(damping) == 0:
        lam2 = float(damping)
        if m < n:
            H = A @ A.T
            H.flat[:: m + 1] += lam2
            try:
                return np.linalg.solve(H, c) @ A
            except np.linalg.LinAlgError as exc:
                raise InvalidInput(_singular(H)) from exc
        H = A.T @ A
        H.flat[:: n + 1] += lam2
    else:
        H = A.T @ A
        H.flat[:: n + 1] += damping
    try:
        return np.linalg.solve(H, c @ A)
    except np.linalg.LinAlgError as exc:
        raise InvalidInput(_singular(H)) from exc


def solve_dls_normal(P: np.ndarray, g: np.ndarray, diagonal: np.ndarray | float) -> np.ndarray:
    """``v = (P + diag(W_n))⁻¹ g`` for a precomputed ``P = AᵀA (+ μ I)`` and ``g = Aᵀc``."""
    H = P.copy()
    H.flat[:: P.shape[0] + 1] += diagonal
    try:
        return np.linalg.solve(H, g)
    except np.linalg.LinAlgError as exc:
        raise InvalidInput(_singular(H)) from exc


def _singular(H: np.ndarray) -> str:
    """Why the damped system ``H`` could not be solved (numpy found it singular)."""
    with np.errstate(all="ignore"):
        size = float(np.abs(H).max(initial=0.0))
    return (
        "damped least squares: the damped normal equations (AᵀA + W_n) v = Aᵀc are singular "
        f"to working precision (largest entry {size:.3g}): the damping is zero or negligible "
        "against AᵀA, whose entries are out of range (a task Jacobian or error far too large, "
        "e.g. a target out of reach by many orders of magnitude)"
    )


def solve_dls_svd(A: np.ndarray, c: np.ndarray, lam: float) -> np.ndarray:
    """SVD form ``v = Σ σ_i/(σ_i² + λ²) (u_iᵀ c) v_i`` (Buss, eq. 14) for constant λ."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return ((c @ U) * (s / (s * s + lam * lam))) @ Vt
