"""Rank-revealing factorisation of a level's Jacobian: its rank, a basis of its null space
and the level's damped least-squares optimum (used by the strict priorities of
:mod:`taskik.hierarchy` and by :func:`taskik.hierarchy_report`), and the rows of the
constraints a level holds, in the coordinates of that basis."""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy.linalg.lapack import dgeqp3 as _dgeqp3
from scipy.linalg.lapack import dorgqr as _dorgqr
from scipy.linalg.lapack import dposv as _dposv

from .exceptions import InvalidInput, NoSolutionFound, check_finite_array, check_scalar

_EPS = float(np.finfo(float).eps)

#: Directions of ``A_k Z`` with a QR diagonal below ``RANK_RTOL · ‖A_k‖_F`` count as taken by
#: the higher levels (what remains of them is rounding noise).
RANK_RTOL = 1e-12


class LevelSplit:
    """Rank-revealing factorisation of one level's reduced Jacobian ``B = A_k Z`` (m × r).

    Column-pivoted QR (LAPACK ``dgeqp3``) ``Bᵀ Π = [Q1 Q2] R``: the rank counts
    ``|R_ii| > max(max(m, r) ε |R_00|, RANK_RTOL · scale)``, with ``scale`` the norm of the
    level's own ``A_k``: once the higher levels have taken its directions, what is left of
    ``A_k Z`` is rounding noise that must not count as rank. ``Q1`` (r × rank)
    spans the row space of ``B`` and ``Q2`` (r × (r − rank)) its null space. ``Q`` is formed
    (LAPACK ``dorgqr``) only when needed.
    """

    __slots__ = ("B", "rank", "_qr", "_tau", "_Q")

    def __init__(self, B: np.ndarray, scale: float = 0.0) -> None:
        self.B = B
        m, r = B.shape
        self._Q: np.ndarray | None = None
        self._qr: np.ndarray | None
        self._tau: np.ndarray | None
        if min(m, r) == 0:
            self.rank, self._qr, self._tau = 0, None, None
            return
        qr, _, tau, _, info = _dgeqp3(B.T)
        if info:  # pragma: no cover - only on invalid arguments
            raise NoSolutionFound("QR", f"LAPACK dgeqp3 info {info}")
        diag = np.abs(qr.diagonal())
        tol = max(max(m, r) * _EPS * diag[0], RANK_RTOL * scale)
        self.rank = int(np.count_nonzero(diag > tol))
        self._qr, self._tau = qr, tau

    def _q(self) -> np.ndarray:
        """The full orthogonal ``Q = [Q1 Q2]`` (r × r)."""
        if self._Q is None:
            m, r = self.B.shape
            qr = self._qr
            if qr is None:
                self._Q = np.eye(r)
                return self._Q
            if m < r:  # dorgqr builds Q in place from the reflectors in the first m columns
                buf = np.empty((r, r), order="F")
                buf[:, :m] = qr
                qr = buf
            elif m > r:
                qr = qr[:, :r]
            self._Q = _dorgqr(qr, self._tau, overwrite_a=1)[0]
        return self._Q

    @property
    def null(self) -> np.ndarray:
        """Orthonormal basis ``Q2`` of the null space of ``B``."""
        r = self.B.shape[1]
        if self.rank == r:
            return np.zeros((r, 0))
        return self._q()[:, self.rank :]

    def solve(self, d: np.ndarray, lam: float, w: np.ndarray | None) -> np.ndarray:
        """Unconstrained optimum of the level: ``z = argmin ‖B z − d‖² + λ ‖w + z‖²``.

        ``w = Zᵀ v_{k−1}`` (None when zero); ``λ = 0`` means the limit ``λ → 0⁺`` (least
        squares, then least ``‖v‖``). Three equivalent forms, chosen for conditioning:
        independent rows: ``z = Bᵀ (B Bᵀ + λ I)⁻¹ (d + B w) − w`` (damped least squares);
        independent columns: ``(BᵀB + λ I) z = Bᵀ d − λ w``; otherwise, with ``C = B Q1``
        (full column rank), ``(CᵀC + λ I) a = Cᵀ d − λ Q1ᵀ w`` and ``z = Q1 (a + Q1ᵀ w) − w``.
        """
        B, rank = self.B, self.rank
        m, r = B.shape
        if rank == m and m:  # independent rows
            if w is not None:
                d = d + B @ w
            M = B @ B.T
            M.reshape(-1)[:: m + 1] += lam
            _, y, info = _dposv(M, d)
            z = y @ B if not info else np.linalg.lstsq(B, d, rcond=None)[0]
            if w is not None:
                z -= w
            return z
        if rank == r and r:  # independent columns (no direction left free)
            M = B.T @ B
            M.reshape(-1)[:: r + 1] += lam
            g = d @ B
            if lam and w is not None:
                g -= lam * w
            _, z, info = _dposv(M, g)
            return z if not info else np.linalg.lstsq(B, d, rcond=None)[0]
        Q1 = self._q()[:, :rank]
        if rank:
            C = B @ Q1
            M = C.T @ C
            M.reshape(-1)[:: rank + 1] += lam
            rhs = d @ C
            w1 = None if w is None else w @ Q1
            if lam and w1 is not None:
                rhs -= lam * w1
            _, a, info = _dposv(M, rhs)
            if info:  # CᵀC underflows (tiny costs, no damping): least squares on C itself
                a = np.linalg.lstsq(C, d, rcond=None)[0]
        else:
            a, w1 = np.zeros(0), None if w is None else np.zeros(0)
        if w is None:
            return Q1 @ a
        return Q1 @ (a + w1) - w


def null_basis(B: np.ndarray, scale: float = 0.0) -> tuple[np.ndarray, int]:
    """Orthonormal basis of the null space of ``B`` (m × r, finite) and the rank of ``B``
    (see LevelSplit; ``scale`` ≥ 0 the norm below which what is left counts as noise).

    Raises:
        InvalidInput: ``B`` is not a finite real matrix, or ``scale`` not a finite number ≥ 0.
    """
    B = check_finite_array(B, "B")
    if B.ndim != 2:
        raise InvalidInput(f"B must be a matrix (m × r), got shape {B.shape}")
    split = LevelSplit(B, check_scalar(scale, "scale", 0.0))
    return split.null, split.rank


def constraint_rows(
    idx: np.ndarray, nv: int, Z: np.ndarray | None, G: np.ndarray | None, unit: bool = True
) -> np.ndarray:
    """Rows of the constraints ``idx`` (sorted; nv box rows, then the rows of G) in the
    level's coordinates (``v`` when ``Z`` is None, else ``z`` with ``v = v_{k−1} + Z z``);
    rows of G scaled to unit norm when ``unit`` (box rows have norm ≤ 1)."""
    n_box = int(np.searchsorted(idx, nv))
    box = idx[:n_box]
    C = _eye(nv)[box] if Z is None else Z[box]
    if n_box < len(idx):
        assert G is not None, "constraint indices past nv are rows of G"
        gen = idx[n_box:] - nv
        Cg = G[gen] if Z is None else G[gen] @ Z
        if unit:
            norms = np.sqrt(np.einsum("ij,ij->i", Cg, Cg))
            norms[norms == 0.0] = 1.0
            Cg /= norms[:, None]
        C = np.vstack([C, Cg])
    return C


@cache
def _eye(n: int) -> np.ndarray:
    return np.eye(n)
