"""Regularized-Jacobian backend (the dissertation of seed 004; see the design note
``regularized-jacobian.md``).

Near a singularity the pseudoinverse and DLS give no motion along the singular direction
(``rank J⁺ ≤ rank J``). The regularized Jacobian replaces, for the duration of the
singularity, the tracked quantity by one whose first-order motion stands in for the
second-order motion of the real one:

- **Position** of a point ``p``: track the fictitious point ``p + γ r`` attached to the same
  body, whose Jacobian is ``J_V − γ r̂ J_Ω = J_V + γ [ω_1×r … ω_n×r]``. ``r`` is the unit
  linear-velocity column of the joint nearest the point (``r ∈ Ran J_V``).
- **Orientation**: the spherical representation with the last joint axis ``ω_r``,
  ``J_S = M J_Ω`` with ``M = ω_rω_rᵀ − ω̂_r`` (orthogonal), regularized as
  ``J_S + γ P⊥ [ω_1×r, …, ω_{n−1}×r, 0]`` with ``P⊥ = I − ω_rω_rᵀ`` and
  ``r = normalize(ω_{n−1} × ω_r)``. Since ``M`` is orthogonal the rows are put back in the
  task's own coordinates as ``J_Ω + γ Mᵀ P⊥ [ω_i × r]``, so the task velocity is unchanged.

``γ`` is switched on smoothly as the block's smallest singular value ``σ`` falls below
``σ_thr``: ``|γ| = |γ_0| · max(0, 1 − σ/σ_thr)²``; away from singularities ``γ = 0`` and the
method is the pseudoinverse. The sign of ``γ`` selects the branch (elbow up / down): with
``branch="fixed"`` it is the sign of ``γ_0``; with ``branch="auto"`` it is chosen when the
block enters the singular region (the sign that gives the better-conditioned regularized
block, the sign of ``γ_0`` on a tie, e.g. exactly at the singularity) and then held until
``γ`` returns to 0, so the branch does not flip inside the singular region — unless the
arm has crossed to the other branch anyway (e.g. pulled by an unreachable target), which
shows as the held sign giving a regularized block less than half as well conditioned as
the other sign: holding it then would drive ``J_reg`` through its own singularity
``γ = γ*``, so the sign follows the arm.

Which singular value is ``σ``: the one of index ``r_g`` (the block's generic rank), so that
directions no configuration can reach (the out-of-plane direction of a planar arm) do not
count as singular. For a position block ``r_g = min(#joints moving the point, rank of the
span of the planes ⟂ ω_i and of the prismatic directions)``; for an orientation block
``r_g = 1`` when all joint axes are parallel, else ``min(3, #revolute joints)``.

This module works on arrays: a :class:`RegularizedBlock` describes one 3-D sub-block of the
stacked system (its rows, the map ``L`` from the world velocity of the block to those rows,
and the world Jacobians ``J_V``, ``J_Ω``); :mod:`taskik.backends.unconstrained` builds the
blocks from the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import InvalidInput, check_scalar, real_scalar
from .pseudoinverse import DEFAULT_RCOND, solve_pinv

_TOL = 1e-9


def skew(x: np.ndarray) -> np.ndarray:
    """``x̂`` with ``x̂ y = x × y``."""
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


@dataclass
class RegularizedBlock:
    """One regularizable 3-D block of the stacked system ``A v ≈ c``.

    The rows ``A[rows]`` contain the term ``L @ J`` where ``J`` is ``linear`` (world velocity
    of a point, 3 × n) for ``kind="position"`` and ``angular`` (world angular velocity of the
    body, 3 × n) for ``kind="orientation"``. ``angular`` is needed for both kinds.
    ``key`` identifies the block from one step to the next (branch memory).
    """

    kind: str
    rows: slice
    L: np.ndarray
    angular: np.ndarray
    linear: np.ndarray | None = None
    key: object = None


def _linear(block: RegularizedBlock) -> np.ndarray:
    """``J_V`` of a position block."""
    assert block.linear is not None, "a position block needs its linear Jacobian"
    return block.linear


def _tracked(block: RegularizedBlock) -> np.ndarray:
    """The Jacobian the block's rows contain: ``J_V`` (position) or ``J_Ω`` (orientation)."""
    return _linear(block) if block.kind == "position" else block.angular


def generic_rank(block: RegularizedBlock) -> int:
    """Rank the block has away from singularities, from its joint geometry (see module doc)."""
    Jw = block.angular
    wn = np.sqrt((Jw * Jw).sum(axis=0))
    scale = max(float(wn.max(initial=0.0)), 1.0)
    revolute = wn > _TOL * scale
    if block.kind == "orientation":
        n_rev = int(revolute.sum())
        if n_rev == 0:
            return 0
        W = Jw[:, revolute] / wn[revolute]
        return 1 if np.linalg.matrix_rank(W, tol=1e-6) <= 1 else min(3, n_rev)
    Jv = _linear(block)
    vn = np.sqrt((Jv * Jv).sum(axis=0))
    vscale = max(float(vn.max(initial=0.0)), 1.0)
    prismatic = ~revolute & (vn > _TOL * vscale)
    n_moving = int(revolute.sum() + prismatic.sum())
    W = Jw[:, revolute] / wn[revolute]
    G = len(W.T) * np.eye(3) - W @ W.T  # Σ (I − ω̂ω̂ᵀ): planes ⟂ each axis
    if prismatic.any():
        P = Jv[:, prismatic] / vn[prismatic]
        G = G + P @ P.T
    rank = int((np.linalg.eigvalsh(G) > 1e-6 * max(len(W.T), 1)).sum())
    return min(n_moving, rank)


def regularization_direction(block: RegularizedBlock) -> tuple[np.ndarray, int] | None:
    """``(r, k)``: the direction ``r`` and the column ``k`` of the joint ``ω_r`` (orientation;
    -1 for position), or None when the block cannot be regularized."""
    if block.kind == "position":
        Jv = _linear(block)
        vn = np.sqrt((Jv * Jv).sum(axis=0))
        nz = np.flatnonzero(vn > _TOL * max(float(vn.max(initial=0.0)), 1.0))
        if nz.size == 0:
            return None
        k = nz[-1]
        return Jv[:, k] / vn[k], -1
    Jw = block.angular
    wn = np.sqrt((Jw * Jw).sum(axis=0))
    nz = np.flatnonzero(wn > _TOL * max(float(wn.max(initial=0.0)), 1.0))
    if nz.size < 2:
        return None
    k = nz[-1]
    w_r = Jw[:, k] / wn[k]
    for j in nz[-2::-1]:
        x = np.cross(Jw[:, j] / wn[j], w_r)
        nx = np.linalg.norm(x)
        if nx > 1e-6:
            return x / nx, k
    return None


def correction(block: RegularizedBlock, r: np.ndarray, k: int) -> np.ndarray:
    """``ΔJ`` per unit ``γ`` (3 × n): ``−r̂ J_Ω`` (position) or ``Mᵀ P⊥ [ω_i × r, 0]``."""
    C = -skew(r) @ block.angular  # columns ω_i × r
    if block.kind == "position":
        return C
    Jw = block.angular
    w_r = Jw[:, k] / np.linalg.norm(Jw[:, k])
    C[:, k] = 0.0
    P_r = np.outer(w_r, w_r)
    Mt = P_r + skew(w_r)  # Mᵀ, M = ω_rω_rᵀ − ω̂_r
    return Mt @ ((np.eye(3) - P_r) @ C)


class RegularizedJacobian:
    """Pseudoinverse of the stacked system with regularized position/orientation blocks.

    Args:
        gamma0: largest ``|γ|`` (m for position blocks; rad-scaled for orientation), about one
            link length; its sign is the default branch. Non-zero.
        sigma_thr: singular value below which ``γ`` is switched on (> 0).
        branch: ``"auto"`` (choose the sign on entering the singular region, then hold it)
            or ``"fixed"`` (always the sign of ``gamma0``).
        rcond: relative singular-value cut-off of the final pseudoinverse, in [0, 1).
    """

    def __init__(
        self,
        gamma0: float = 0.5,
        sigma_thr: float = 0.05,
        branch: str = "auto",
        rcond: float = DEFAULT_RCOND,
    ) -> None:
        if not (np.isfinite(real_scalar(gamma0, "gamma0")) and gamma0 != 0.0):
            raise InvalidInput(f"gamma0 must be finite and non-zero, got {gamma0!r}")
        if not (np.isfinite(real_scalar(sigma_thr, "sigma_thr")) and sigma_thr > 0.0):
            raise InvalidInput(f"sigma_thr must be finite and > 0, got {sigma_thr!r}")
        rcond = check_scalar(rcond, "rcond", 0.0, 1.0, high_open=True)
        if not isinstance(branch, str) or branch not in ("auto", "fixed"):
            raise InvalidInput(f"branch must be 'auto' or 'fixed', got {branch!r}")
        self.gamma0 = float(gamma0)
        self.sigma_thr = float(sigma_thr)
        self.branch = branch
        self.rcond = float(rcond)
        #: A held branch is switched only when its regularized block's smallest singular
        #: value falls below this fraction of the other branch's (the arm crossed over).
        self.hysteresis = 0.5
        self._signs: dict[object, float] = {}  # block key → held sign while γ ≠ 0
        #: γ of each block at the last solve (key → γ), for inspection.
        self.gammas: dict[object, float] = {}

    def reset(self) -> None:
        """Forget the held branches."""
        self._signs.clear()
        self.gammas.clear()

    @staticmethod
    def _sigma(J: np.ndarray, rank: int) -> float:
        s = np.linalg.svd(J, compute_uv=False)
        return float(s[rank - 1]) if rank <= s.size else 0.0

    def block_gamma(
        self, block: RegularizedBlock, s: np.ndarray | None = None
    ) -> tuple[float, np.ndarray | None]:
        """``(γ, ΔJ per unit γ)`` for a block at this step (updates the held branch).

        ``s``: the block's singular values, largest first, if already computed.
        """
        key = block.key
        J = _tracked(block)
        if s is None:
            s = np.linalg.svd(J, compute_uv=False)
        if s.size == 3 and s[2] >= self.sigma_thr:  # full rank and regular: the common case
            self._signs.pop(key, None)
            return 0.0, None
        rank = generic_rank(block)
        if rank == 0:
            self._signs.pop(key, None)
            return 0.0, None
        sigma = float(s[rank - 1]) if rank <= s.size else 0.0
        ramp = max(0.0, 1.0 - sigma / self.sigma_thr)
        if ramp == 0.0:
            self._signs.pop(key, None)
            return 0.0, None
        found = regularization_direction(block)
        if found is None:
            self._signs.pop(key, None)
            return 0.0, None
        dJ = correction(block, *found)
        magnitude = abs(self.gamma0) * ramp * ramp
        sign = self._signs.get(key)
        if self.branch == "fixed":
            sign = float(np.sign(self.gamma0))
        else:
            s_plus = self._sigma(J + magnitude * dJ, rank)
            s_minus = self._sigma(J - magnitude * dJ, rank)
            if sign is None:  # entering the singular region: the better-conditioned branch
                sign = float(np.sign(self.gamma0))
                if abs(s_plus - s_minus) > 1e-9 * (1.0 + max(s_plus, s_minus)):
                    sign = 1.0 if s_plus > s_minus else -1.0
            else:  # held, unless the arm has crossed to the other branch
                held, other = (s_plus, s_minus) if sign > 0 else (s_minus, s_plus)
                if held < self.hysteresis * other:
                    sign = -sign
        self._signs[key] = sign
        return sign * magnitude, dJ

    def regularize(self, A: np.ndarray, blocks: list[RegularizedBlock]) -> np.ndarray:
        """``A`` with every singular block regularized (A itself when none is)."""
        A_reg = A
        gammas: dict[object, float] = {}
        if not blocks:
            self.gammas = gammas
            return A
        # singular values of every block at once: eigenvalues of the 3 × 3 Gram matrices
        Js = np.stack([_tracked(b) for b in blocks])
        grams = Js @ Js.transpose(0, 2, 1)
        sigmas = np.sqrt(np.maximum(np.linalg.eigvalsh(grams), 0.0))[:, ::-1]
        n = Js.shape[2]
        if n < 3:
            sigmas = sigmas[:, :n]
        for block, s in zip(blocks, sigmas, strict=True):
            gamma, dJ = self.block_gamma(block, s)
            gammas[block.key] = gamma
            if gamma != 0.0 and dJ is not None:  # (γ ≠ 0 implies a dJ)
                if A_reg is A:
                    A_reg = A.copy()
                A_reg[block.rows] += (gamma * block.L) @ dJ
        self.gammas = gammas
        return A_reg

    def solve(self, A: np.ndarray, c: np.ndarray, blocks: list[RegularizedBlock]) -> np.ndarray:
        """``v = A_reg⁺ c``."""
        return solve_pinv(self.regularize(A, blocks), c, self.rcond)
