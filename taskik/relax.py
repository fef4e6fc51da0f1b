"""The conflict rule: when the limits leave no step, the step that violates them the least.

A step's QP ``min ½ vᵀPv + rᵀv  s.t.  G v ≤ h,  lb ≤ v ≤ ub`` has no solution when the
limits conflict: an obstacle pins an arm against a table, a cone and a collision pair pull
a tool apart. Unless ``strict=True``, :func:`taskik.solve_ik` (weighted or prioritized) then
still returns a step, in two stages:

1. **The least violation**, which depends on the limits only (not on the tasks). The box
   ``lb ≤ v ≤ ub`` (joint position ranges and velocity limits) never gives way. The
   inequality rows give way in *tiers*, by :func:`relax_rank` (lower gives way first).
   Tier by tier, from the one that gives way last, the smallest slack ``s ≥ 0`` with
   ``G_t v ≤ h_t + s`` is found while the tiers above hold (with the slack they were given)
   and the tiers below are dropped::

       min  ½ Σ_i (s_i / ρ_i)² + ½ ε ‖v‖²     s.t.  lb ≤ v ≤ ub,
                                                    G_hard v ≤ h_hard,
                                                    G_above v ≤ h_above + s_above,
                                                    G_t v ≤ h_t + s,  s ≥ 0

   so a tier gives way only as much as dropping every row of the tiers below cannot avoid.
   Within a tier, ``ρ_i = max(h_i, 0) + REFERENCE_SPEED ‖G_i‖`` is the room the row has:
   a velocity damper (collision pairs, cone faces) allows ``h_i = k·margin``, so the row
   whose pair is furthest inside its safe region (the largest margin left) gives way
   first, and a row at its margin or past it (``h_i ≤ 0``) the least; ``REFERENCE_SPEED``
   (rad/s of joint speed along the row) keeps the weights finite. ``ε`` (``EPS``)
   only makes the problem strictly convex (the smallest such ``v``).
2. **The best step within the relaxed rows**: the step's own QP (or each level of the
   hierarchy) with ``h + s``; the relaxed rows are then met as the loosened limit.

The slack ``s_i`` is in the row's units per second (m/s for a collision pair: how much
faster the pair may approach than its damper allowed); ``s_i dt`` is how much farther the
step moves against the row (m for a collision pair). :func:`last_relaxation` tells which
rows gave way in the last step on a configuration and by how much; :func:`taskik.report`
lists them too.

Hard boxes that exclude each other (an :class:`~taskik.AccelerationLimit` against
:class:`~taskik.FrozenJoints` on a moving joint) leave no velocity for that joint; the
relaxed step takes the slowest velocity between the crossed bounds, the value of
``[ub_i, lb_i]`` nearest 0, and says so (``Relaxation.bounds``).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .backends.qp import daqp_solve
from .configuration import Configuration, check_configuration
from .exceptions import InvalidInput, check_finite_array, check_scalar, real_array
from .limits.balance import BalanceLimit
from .limits.base_velocity import BaseVelocityLimit
from .limits.collision import CollisionLimit
from .limits.cone import ConeLimit
from .limits.limit import Limit

__all__ = [
    "EPS",
    "REFERENCE_SPEED",
    "RELAX_RANKS",
    "Relaxation",
    "RelaxedRow",
    "last_relaxation",
    "least_violation",
    "relax_rank",
]

#: Joint speed (rad/s) along a row that counts as its room when it has none left: the
#: scale ``ρ_i = max(h_i, 0) + REFERENCE_SPEED ‖G_i‖`` against which its slack is weighed.
REFERENCE_SPEED = 0.01

#: Weight of ``½ ‖v‖²`` (v in rad/s) in the least-violation problem, against the unitless
#: ``½ Σ (s_i / ρ_i)²``: it only picks the smallest ``v`` among those of least slack,
#: and shifts the slack by about ``EPS ‖v‖² / 2`` of its cost (1e-4 of it at 1 rad/s).
EPS = 1e-4

#: A row counts as relaxed when its slack exceeds this, in its units per second (m/s for a
#: collision pair: 1e-7 m/s closes 1e-9 m in a 10 ms step).
RELAXED_TOL = 1e-7

#: The order in which the built-in limits' rows give way (lower first; None: never).
#: Cones are preferences on a tool's direction; collision rows keep bodies apart; balance
#: rows keep the robot standing. A limit of
#: another type gives way at ``DEFAULT_RANK``, unless its class sets ``relax_rank``
#: (a number, or None for rows that must never give way). See the Limits page for why.
RELAX_RANKS: dict[type[Limit], float | None] = {
    ConeLimit: 10.0,
    CollisionLimit: 30.0,
    BalanceLimit: 40.0,  # past its margin the robot tips over: after collisions
    BaseVelocityLimit: None,  # velocity caps as rows: hard, and v = 0 always meets them
}

#: The rank of an inequality limit that is neither built in nor sets ``relax_rank``.
DEFAULT_RANK = 20.0


def relax_rank(limit: Limit) -> float | None:
    """When ``limit``'s rows give way, against the others (lower first); None for never.

    A class attribute ``relax_rank`` (a number, or None) on the limit decides; otherwise
    ``RELAX_RANKS`` by type, else ``DEFAULT_RANK``.
    """
    if not isinstance(limit, Limit):
        raise InvalidInput(f"relax_rank needs a taskik.Limit, got {type(limit).__name__}")
    own = getattr(type(limit), "relax_rank", _UNSET)
    if own is not _UNSET:
        return None if own is None else check_scalar(own, f"{type(limit).__name__}.relax_rank")
    for kind, rank in RELAX_RANKS.items():
        if isinstance(limit, kind):
            return rank
    return DEFAULT_RANK


_UNSET = object()


@dataclass(frozen=True)
class RelaxedRow:
    """One inequality row that gave way in a step.

    Attributes:
        limit: the limit's name (``Limit.name``).
        row: what the row stands for (``Limit.row_names()``, e.g. a collision pair
            ``"panda_link7 / table"``), else ``"<limit> row <j>"``.
        index: the row's index in the step's stacked ``G``.
        rank: its tier (:func:`relax_rank`).
        allowed: ``h_i``, what the limit allowed (row units per second: m/s for a pair).
        slack: ``s_i ≥ 0``, by how much the step exceeds it (same units).
        depth: ``s_i dt``, how much farther the step moves against the row than the limit
            allowed (m for a collision pair, rad for a cone face).
    """

    limit: str
    row: str
    index: int
    rank: float
    allowed: float
    slack: float
    depth: float


@dataclass
class Relaxation:
    """What gave way in a relaxed step (see :mod:`taskik.relax`); empty when nothing did.

    Attributes:
        rows: the relaxed rows, largest depth first.
        bounds: crossed hard bounds set to the slowest velocity between them (descriptions).
        fallback: the step's QP had no solution even with the relaxed rows (numerically),
            and the step is the least-violating motion itself, which ignores the tasks.
        dt: the step's duration (s).
        v: the step returned.
    """

    rows: list[RelaxedRow] = field(default_factory=list)
    bounds: list[str] = field(default_factory=list)
    fallback: bool = False
    dt: float = 0.0
    v: np.ndarray | None = None

    def __bool__(self) -> bool:
        return bool(self.rows or self.bounds or self.fallback)

    @property
    def max_depth(self) -> float:
        """The largest ``depth`` of a relaxed row (0 without any)."""
        return max((r.depth for r in self.rows), default=0.0)

    def __str__(self) -> str:
        if not self:
            return "relaxed rows: none"
        lines = [f"relaxed rows: {len(self.rows)}" + (" (fallback step)" if self.fallback else "")]
        lines += [
            f"  {r.limit:<12} {r.row[:40]:<40} allowed {r.allowed:+.4g}, "
            f"slack {r.slack:.4g}/s, depth {r.depth:.4g}"
            for r in self.rows
        ]
        lines += [f"  bound: {b}" for b in self.bounds]
        return "\n".join(lines)


# ------------------------------------------------------------------ the last relaxation
_LAST: weakref.WeakKeyDictionary[Configuration, Relaxation] = weakref.WeakKeyDictionary()
_RECORDED = False  # whether _LAST may hold an entry


def last_relaxation(configuration: Configuration) -> Relaxation:
    """What gave way in the last step computed on ``configuration`` (by
    :func:`taskik.solve_ik` or ``taskik.hierarchy.solve_hierarchy``); an empty
    :class:`Relaxation` (false) when the limits did not conflict.

    Raises:
        InvalidInput: ``configuration`` is not a :class:`taskik.Configuration`.
    """
    if type(configuration) is not Configuration:  # (a subclass is fine)
        configuration = check_configuration(configuration, "last_relaxation")
    return _LAST.get(configuration) or Relaxation()


def record(configuration: Configuration, relaxation: Relaxation | None) -> None:
    """Keep ``relaxation`` as the last step's on ``configuration`` (None: nothing gave way)."""
    global _RECORDED
    if relaxation:
        _LAST[configuration] = relaxation
        _RECORDED = True
    elif _RECORDED:  # (a flag: cheaper to test at every step than the weak mapping's length)
        _LAST.pop(configuration, None)
        _RECORDED = bool(_LAST)


# ------------------------------------------------------------------ the least violation
def row_ranks(row_limits: Sequence[tuple[Limit, int]]) -> np.ndarray:
    """The rank of every stacked row (``inf``: never gives way)."""
    parts = []
    for lim, n in row_limits:
        rank = relax_rank(lim)
        parts.append(np.full(n, math.inf if rank is None else rank))
    return np.concatenate(parts) if parts else np.zeros(0)


def _tier_qp(
    G: np.ndarray,
    h: np.ndarray,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    held: np.ndarray,
    tier: np.ndarray,
    scale: np.ndarray,
) -> np.ndarray | None:
    """``v`` of the least-violation problem of one tier (module docstring), or None.

    ``G``, ``h``, ``scale``: rows normalised to ``‖G_i‖ = 1`` (``scale`` then in rad/s of
    joint speed). ``held``: rows kept as ``G v ≤ h``; ``tier``: rows given a slack
    ``s = scale·σ``. The variables are ``(v, σ)``; DAQP solves the problem through its dual,
    whose matrix ``G Gᵀ / ε + diag(scale²)`` must stay well conditioned: hence ``ε``
    (``EPS``) is not tiny, and is raised once if DAQP fails."""
    nv = G.shape[1]
    m = int(np.count_nonzero(tier))
    rows = np.zeros((int(np.count_nonzero(held)) + m, nv + m))
    n_held = rows.shape[0] - m
    rows[:n_held, :nv] = G[held]
    rows[n_held:, :nv] = G[tier]
    rows[n_held:, nv:] = -np.diag(scale[tier])
    upper = np.concatenate(
        [np.full(nv, np.inf) if ub is None else ub, np.full(m, np.inf), h[held], h[tier]]
    )
    lower = np.concatenate(
        [np.full(nv, -np.inf) if lb is None else lb, np.zeros(m), np.full(len(rows), -np.inf)]
    )
    for eps in (EPS, 100.0 * EPS):
        H = np.diag(np.concatenate([np.full(nv, eps), np.ones(m)]))
        x, _, _ = daqp_solve(H, np.zeros(nv + m), rows, upper, lower, {})
        if x is not None and math.isfinite(float(x @ x)):
            v = x[:nv]
            if lb is not None and ub is not None:
                v = np.clip(v, lb, ub)
            return v
    return None


def relaxable(h: np.ndarray | None, lb: np.ndarray | None, ub: np.ndarray | None) -> bool:
    """Whether the rows ``G v ≤ h`` of a failed QP can be relaxed: no NaN in ``h`` or the box
    and no row that no ``v`` can meet (``h = −inf``); an unbounded velocity (a floating
    base's ±inf box) is relaxed like any other."""
    if h is not None and not bool((h > -np.inf).all()):
        return False
    return not any(x is not None and bool(np.isnan(x).any()) for x in (lb, ub))


def least_violation(
    G: np.ndarray,
    h: np.ndarray,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    ranks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(s, v)``: the slack ``s ≥ 0`` of every row (0 on rows that hold) with which
    ``G v ≤ h + s`` and the box have a solution, tier by tier (module docstring), and a
    ``v`` that meets them. None when even that fails (the box and the hard rows alone
    have no common point, or the solver fails).

    Raises:
        InvalidInput: ``G`` (m × n), ``h`` (m), ``lb`` and ``ub`` (n, or None) and ``ranks``
            (m, ``inf`` for a row that never gives way) do not fit, or hold NaN (or, but for
            ``ranks`` and the box's ±inf, inf).
    """
    G = check_finite_array(G, "G")
    if G.ndim != 2:
        raise InvalidInput(f"G must be a matrix (rows × nv), got shape {G.shape}")
    m, n = G.shape
    h = check_finite_array(h, "h", (m,))
    ranks = real_array(ranks, "ranks")
    if ranks.shape != (m,) or np.isnan(ranks).any():
        raise InvalidInput(f"ranks must be {m} numbers (one per row of G), got {ranks.shape}")
    box = []
    for name, bound in (("lb", lb), ("ub", ub)):
        b = None if bound is None else real_array(bound, name)
        if b is not None and (b.shape != (n,) or np.isnan(b).any()):
            raise InvalidInput(f"{name} must be {n} numbers (±inf for none), got {b.shape}")
        box.append(b)
    return _least_violation(G, h, box[0], box[1], ranks)


def _least_violation(
    G: np.ndarray,
    h: np.ndarray,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    ranks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`least_violation` on arrays already checked."""
    h = np.asarray(h, dtype=float)
    norms = np.sqrt(np.einsum("ij,ij->i", G, G))
    # rows without a direction (G_i = 0 to rounding: a body no joint moves along the row)
    # hold whatever v is, or give way by their whole −h_i: they leave the QPs
    flat = norms <= 1e-12 * max(1.0, float(norms.max(initial=0.0)))
    if flat.any():
        keep = ~flat
        found = _least_violation(G[keep], h[keep], lb, ub, ranks[keep]) if keep.any() else None
        if found is None and keep.any():
            return None
        v = found[1] if found is not None else rest_within(lb, ub, G.shape[1])
        slack = np.zeros(len(h))
        if found is not None:
            slack[keep] = found[0]
        slack[flat] = np.maximum(G[flat] @ v - h[flat], 0.0)
        return slack, v
    scale = np.maximum(h / norms, 0.0) + REFERENCE_SPEED
    hard = ~np.isfinite(ranks)
    tiers = sorted(set(ranks[~hard].tolist()), reverse=True)
    args = (G, h, norms, lb, ub, ranks)
    found = _cascade(*args, hard, tiers, scale) if tiers else None
    if found is None and hard.any():
        # the box and the rows that never give way conflict (a base's speed caps against a
        # recovery the position limits ask): those rows give way, last of all
        found = _cascade(*args, ~hard & hard, [math.inf, *tiers], scale)
    return found


def _cascade(
    G: np.ndarray,
    h: np.ndarray,
    unit: np.ndarray,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    ranks: np.ndarray,
    held: np.ndarray,
    tiers: list[float],
    scale: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The tiers in ``tiers`` order (the one that gives way last first), the rows ``held``
    always kept: ``(slack, v)``, or None when a tier's problem has no solution."""
    slack = np.zeros(len(h))
    h_eff = h.copy()
    held = held.copy()
    G_unit = G / unit[:, None]
    v: np.ndarray | None = None
    for t in tiers:
        tier = ranks == t
        v = _tier_qp(G_unit, h_eff / unit, lb, ub, held, tier, scale)
        if v is None:
            return None
        _take(G, h, h_eff, slack, tier, v)
        held |= tier
    return None if v is None else (slack, v)


def _take(
    G: np.ndarray,
    h: np.ndarray,
    h_eff: np.ndarray,
    slack: np.ndarray,
    tier: np.ndarray,
    v: np.ndarray,
) -> None:
    """Fix the slack of ``tier`` at what ``v`` needs: ``s = max(G v − h, 0)``, and its rows'
    bounds at ``h + s`` plus a rounding allowance (so that ``v`` itself meets them)."""
    s = np.maximum(G[tier] @ v - h[tier], 0.0)
    slack[tier] = s
    h_eff[tier] = h[tier] + s + 1e-9 * (1.0 + np.abs(h[tier]))


def describe(
    slack: np.ndarray,
    h: np.ndarray,
    ranks: np.ndarray,
    row_limits: Sequence[tuple[Limit, int]],
    dt: float,
) -> list[RelaxedRow]:
    """The rows whose slack exceeds ``RELAXED_TOL``, named, largest depth first; rows
    of one limit with the same name (a collision pair's damper and tilt rows) are one
    entry, with the largest slack among them."""
    found: dict[tuple[int, str], RelaxedRow] = {}
    start = 0
    for k, (lim, n) in enumerate(row_limits):
        own = slack[start : start + n]
        hit = np.flatnonzero(own > RELAXED_TOL)
        if len(hit):
            names = lim.row_names()
            if len(names) != n:
                names = [f"{lim.name} row {j}" for j in range(n)]
            for j in hit:
                i = start + int(j)
                s = float(slack[i])
                key = (k, names[j])
                if key not in found or found[key].slack < s:
                    found[key] = RelaxedRow(
                        lim.name, names[j], i, float(ranks[i]), float(h[i]), s, s * dt
                    )
        start += n
    return sorted(found.values(), key=lambda r: -r.depth)


# ------------------------------------------------------------------ the relaxed step
def relaxed_rows(
    G: np.ndarray | None,
    h: np.ndarray | None,
    lb: np.ndarray | None,
    ub: np.ndarray | None,
    row_limits: Sequence[tuple[Limit, int]],
    dt: float,
) -> tuple[np.ndarray | None, np.ndarray | None, Relaxation]:
    """Stage 1 of the module docstring: ``(h + s, v, relaxation)``, with ``v`` the
    least-violating motion; ``(None, None, …)`` when there are no rows or even that fails."""
    relaxation = Relaxation(dt=dt)
    if G is None or h is None:
        return None, None, relaxation
    ranks = row_ranks(row_limits)
    if len(ranks) != len(h):  # (rows without a known limit: every row gives way alike)
        ranks = np.full(len(h), DEFAULT_RANK)
    found = _least_violation(G, h, lb, ub, ranks)
    if found is None:
        return None, None, relaxation
    slack, v = found
    relaxation.rows = describe(slack, h, ranks, row_limits, dt)
    # (rows that gave way get a rounding allowance, so that the best step's QP is not
    # refused by the width of a rounding error; rows that hold keep their bound)
    return h + np.where(slack > 0.0, slack + 1e-9 * (1.0 + np.abs(h)), 0.0), v, relaxation


def rest_within(lb: np.ndarray | None, ub: np.ndarray | None, nv: int) -> np.ndarray:
    """The slowest velocity in the box (``clip(0, lb, ub)``): the last resort."""
    v = np.zeros(nv)
    if lb is not None and ub is not None:
        np.clip(v, lb, ub, out=v)
    return v
