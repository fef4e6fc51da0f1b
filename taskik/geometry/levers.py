"""Bounds, fixed per model, on how much closer a joint motion can bring two shapes.

For a shape ``s`` (bounding sphere: centre ``c``, radius ``r`` in its joint's frame) and a
joint ``j`` that moves it, ``L[s, j]`` bounds, in every configuration, the distance from
``j``'s origin to any point of ``s``: the lengths of the joint placements along the chain
from ``j`` down to ``s``'s joint, plus the translation range of any prismatic joint on
the way, plus ``|placement · c| + r``. Moving joint ``j`` alone (the others held) moves
its whole subtree rigidly:

- a revolute joint turning by ``Δθ`` moves every point of ``s`` by at most
  ``2 sin(|Δθ|/2) L ≤ L |Δθ|`` (the point turns about an axis through ``j``'s origin);
- a prismatic joint moves it by ``|Δd|``;
- a free-flyer (or planar, spherical, translation joint) moving by ``M₁ = M₀ exp(ν, ω)``
  (``pin.difference``, local frame) moves a point ``x`` of its body by
  ``|ΔR x + Δp − x| ≤ |Δp| + |ω| |x| ≤ Σ|ν_i| + L Σ|ω_i|``, since ``Δp = V(ω) ν`` with
  ``‖V(ω)‖ ≤ 1``; a ZYX spherical joint turns by at most the sum of its three angles.

Moving the joints from ``q₀`` to ``q₁`` one after another (each intermediate configuration
is one of the model's, and ``L`` holds in all of them) and adding the moves (the triangle
inequality): no point of ``s`` moves farther than ``Σ_k C[s, k] |Δq_k|`` over the
velocity columns ``k`` that move it, with ``C[s, k]`` = ``L[s, j]`` for a column that turns
and 1 for one that translates, ``Δq = pin.difference(q₀, q₁)``. A column that moves both
shapes of a pair moves them as one body and leaves their distance unchanged, so the
distance of the pair ``(a, b)`` falls by at most ``P[p] @ |Δq|`` with
``P[p, k] = C[a, k] + C[b, k]`` over the columns that move one shape only, 0 over those
that move both. The same matrix bounds how fast a velocity ``v`` can bring the pair
closer: ``P[p] @ |v|``.

A joint of another kind (helical, universal, ellipsoid, composite) gives an unbounded
lever to the shapes below it; a mimic joint, to every shape (its motion follows another
joint's column). Their pairs are marked ``unbounded``: the scene measures them at every
evaluation.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__: list[str] = []

_TURNING = (True,)
_SLIDING = (False,)

#: Per kind of joint, per velocity column: True where the column turns the body about the
#: joint's origin (its lever counts), False where it translates it (every point moves by
#: the column's own displacement).
_COLUMNS: dict[str, tuple[bool, ...]] = {
    **dict.fromkeys(
        (
            "JointModelRX",
            "JointModelRY",
            "JointModelRZ",
            "JointModelRevoluteUnaligned",
            "JointModelRUBX",
            "JointModelRUBY",
            "JointModelRUBZ",
            "JointModelRevoluteUnboundedUnaligned",
        ),
        _TURNING,
    ),
    **dict.fromkeys(
        ("JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"),
        _SLIDING,
    ),
    "JointModelFreeFlyer": (False, False, False, True, True, True),
    "JointModelSpherical": (True, True, True),
    "JointModelSphericalZYX": (True, True, True),
    "JointModelTranslation": (False, False, False),
    "JointModelPlanar": (False, False, True),
}

#: The kinds whose own motion does not move their origin (a lever through them keeps its
#: length), and the prismatic ones (their range is added).
_FIXED_ORIGIN = {k for k, cols in _COLUMNS.items() if all(cols)}
_PRISMATIC = {"JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"}


class JointLevers:
    """The matrix ``P`` (pairs × nv) of the module's bound, for a model's shapes and pairs.

    Args:
        model: the Pinocchio model.
        joint_of: (n,) each shape's joint (0 for an obstacle: it gets no lever).
        reach: (n,) per shape, a bound (m) on the distance of its points from its joint's
            origin, ``|placement · c| + r`` (``inf`` for an unbounded shape on the robot).
        support: (n × nv, bool) the columns that move each shape.
        pairs: (k × 2) shape indices.

    ``unbounded`` (k,): the pairs the bound does not cover (their rows of ``P`` are 0).
    Prismatic joints' ranges start at their position limits (1 m when infinite) and grow
    when a configuration leaves them (:meth:`cover`).
    """

    def __init__(
        self,
        model: pin.Model,
        joint_of: np.ndarray,
        reach: np.ndarray,
        support: np.ndarray,
        pairs: np.ndarray,
    ) -> None:
        self.model = model
        self._joint_of = joint_of
        self._reach = reach
        self._support = support
        self._a = np.ascontiguousarray(pairs[:, 0], dtype=np.intp)
        self._b = np.ascontiguousarray(pairs[:, 1], dtype=np.intp)
        kinds = [model.joints[j].shortname() for j in range(model.njoints)]
        self._kinds = kinds
        self._mimic = any(k == "JointModelMimic" for k in kinds[1:])
        # prismatic joints: their q index and the range assumed, |d| ≤ extent
        slides = [j for j in range(1, model.njoints) if kinds[j] in _PRISMATIC]
        self._slide_joints = slides
        self._slide_q = np.array([model.joints[j].idx_q for j in slides], dtype=np.intp)
        low = np.asarray(model.lowerPositionLimit, dtype=float)[self._slide_q]
        high = np.asarray(model.upperPositionLimit, dtype=float)[self._slide_q]
        extent = np.maximum(np.abs(low), np.abs(high))
        self._extent = np.where(np.isfinite(extent) & (extent < 1e6), extent, 1.0)
        #: counts the builds of ``P`` (what a bound kept by the caller was computed with)
        self.version = -1
        self._build()

    def _build(self) -> None:
        model, kinds = self.model, self._kinds
        nv, n = model.nv, len(self._joint_of)
        extent = dict(zip(self._slide_joints, self._extent.tolist(), strict=True))
        C = np.zeros((n, nv))
        for s in range(n):
            j = int(self._joint_of[s])
            lever = float(self._reach[s]) if j > 0 else 0.0
            while j > 0:
                joint = model.joints[j]
                columns = _COLUMNS.get(kinds[j])
                at = slice(joint.idx_v, joint.idx_v + joint.nv)
                if columns is None or self._mimic:
                    C[s, at] = np.inf
                    lever = np.inf
                else:
                    C[s, at] = [lever if turns else 1.0 for turns in columns]
                    # the lever about the parent: this joint's placement, and its own travel
                    lever += float(np.linalg.norm(model.jointPlacements[j].translation))
                    if kinds[j] in _PRISMATIC:
                        lever += extent[j]
                    elif kinds[j] not in _FIXED_ORIGIN:
                        lever = np.inf  # (a free-flyer or planar joint below the root)
                j = int(model.parents[j])
        C[~self._support] = 0.0
        a, b = self._a, self._b
        common = self._support[a] & self._support[b]
        with np.errstate(invalid="ignore"):
            P = np.where(common, 0.0, C[a] + C[b])
        unbounded = np.asarray(~np.isfinite(P).all(axis=1))
        if self._mimic:
            unbounded[:] = len(a) > 0
        P[unbounded] = 0.0
        self.P = P
        self.unbounded = unbounded
        self.version += 1

    def cover(self, q: np.ndarray) -> bool:
        """Grow the prismatic joints' ranges to ``q``'s positions if it leaves them (the
        bound then holds between any two configurations seen); True when ``P`` changed."""
        if not len(self._slide_q):
            return False
        d = np.abs(q[self._slide_q])
        out = d > self._extent
        if not out.any():
            return False
        self._extent = np.where(out, np.maximum(2.0 * self._extent, d), self._extent)
        self._build()
        return True
