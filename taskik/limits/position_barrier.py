"""Keep a frame's position inside bounds along chosen world axes (pink's ``PositionBarrier``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_finite_array, check_scalar
from ..tasks._frames import FrameName
from .limit import Inequalities, Limit

_AXES = "xyz"


class PositionBarrier(Limit):
    """The origin ``p(q)`` of a frame, in the world, stays within ``p_min ≤ p_i ≤ p_max`` on
    the world axes ``i ∈ indices`` (0, 1, 2 for x, y, z): a bound on a frame's position, not
    on a joint.

    Each bound is a margin ``h ≥ 0`` (``h = p_max − p_i`` above, ``h = p_i − p_min`` below)
    kept by a velocity damper (a control barrier function with a linear class-K term): the
    margin may shrink at most at the rate ``gain · h``,

        ḣ ≥ −γ h,   ḣ = ∓ J_i v,

    the rows ``J_i v ≤ γ (p_max − p_i)`` and ``−J_i v ≤ γ (p_i − p_min)``, with ``J_i`` row
    ``i`` of the frame's linear Jacobian in world axes, ``R J_f[:3]`` (``J_f``: the LOCAL
    frame Jacobian, ``R``: the frame's rotation). A step of ``dt`` then closes at most the
    fraction ``γ dt`` of a margin (take ``γ ≤ 1/dt``); started outside (``h < 0``), the rows
    ask the frame to come back at the rate ``γ |h|``. ``γ`` is in 1/s: pink's
    ``PositionBarrier(frame, indices, p_min, p_max, gain)`` gives the same rows (pink writes
    them on the displacement ``Δq = v dt``).

    pink's ``safe_displacement_gain`` ``r`` adds the cost ``r / ‖J_h‖² ‖Δq‖²`` (``J_h``: the
    barrier's rows, Frobenius norm), a damping of the whole step; :meth:`safe_damping` gives
    it, and :func:`taskik.solve_ik` adds it to its ``damping`` for the barriers passed
    with ``barriers=[...]`` (pink's keyword), so such a port takes pink's step.

    Args:
        frame: frame name.
        indices: the world axes bounded (0, 1, 2 for x, y, z), all three by default.
        p_min: lower bounds (m), one per index, or None.
        p_max: upper bounds (m), one per index, or None (at least one of the two).
        gain: ``γ > 0`` (1/s), a scalar or one per row (``p_min`` rows first); a vector of
            one per index is used for both sides, as in pink.
        safe_displacement_gain: pink's ``r ≥ 0`` (see above).
    """

    frame = FrameName()
    hard = False
    name = "position barrier"

    def __init__(
        self,
        frame: str,
        indices: npt.ArrayLike | None = None,
        p_min: npt.ArrayLike | None = None,
        p_max: npt.ArrayLike | None = None,
        gain: npt.ArrayLike = 1.0,
        safe_displacement_gain: float = 0.0,
    ) -> None:
        self.frame = frame
        idx = [0, 1, 2] if indices is None else np.asarray(indices).reshape(-1).tolist()
        if (
            not idx
            or not all(type(i) is int and 0 <= i <= 2 for i in idx)
            or len(set(idx)) != len(idx)
        ):
            raise InvalidInput(
                f"PositionBarrier indices must be distinct axes among 0, 1, 2 (x, y, z), "
                f"got {indices!r}"
            )
        self.indices = np.array(idx, dtype=int)
        if p_min is None and p_max is None:
            raise InvalidInput(f"PositionBarrier on {frame!r} needs p_min, p_max or both")
        k = len(idx)
        self.p_min = None if p_min is None else _bound(p_min, "p_min", k)
        self.p_max = None if p_max is None else _bound(p_max, "p_max", k)
        for name, bound in (("p_min", self.p_min), ("p_max", self.p_max)):
            if bound is not None and bound.shape != (k,):
                raise InvalidInput(
                    f"PositionBarrier {name} must have one value per index ({k}), "
                    f"got {bound.tolist()}"
                )
        if self.p_min is not None and self.p_max is not None and (self.p_min > self.p_max).any():
            raise InvalidInput(
                f"PositionBarrier p_min {self.p_min.tolist()} is above p_max {self.p_max.tolist()}"
            )
        sides = (self.p_min is not None) + (self.p_max is not None)
        dim = sides * k
        g = check_finite_array(gain, "PositionBarrier gain")
        if g.ndim > 1:
            raise InvalidInput(
                f"PositionBarrier gain must be a scalar or a vector, got shape {g.shape}"
            )
        g = g.reshape(-1)
        if g.size == 1:
            g = np.full(dim, float(g[0]))
        elif g.size == k and dim == 2 * k:
            g = np.tile(g, 2)  # (pink: one gain per index, for both sides)
        if g.shape != (dim,) or (g <= 0.0).any():
            raise InvalidInput(
                f"PositionBarrier gain must be > 0, a scalar or {dim} values (or {k}, one "
                f"per index), got {np.asarray(gain).tolist()}"
            )
        #: γ per row (1/s), ``p_min`` rows first
        self.gain = g
        self.safe_displacement_gain = check_scalar(
            safe_displacement_gain, "safe_displacement_gain", 0.0
        )
        self.dim = dim

    def position_jacobian(self, configuration: Configuration) -> tuple[np.ndarray, np.ndarray]:
        """``(p[indices], J[indices])``: the frame's world position on the bounded axes (m)
        and the rows of ``ṗ = J v`` (world axes, ``R J_f[:3]``)."""
        fid = self.frame.id(configuration)
        oMf = configuration._oMf[fid]
        J = oMf.rotation @ configuration._local_frame_jacobian(fid)[:3]
        return oMf.translation[self.indices], J[self.indices]

    def margins(self, configuration: Configuration) -> np.ndarray:
        """``h`` per row (m), ``p − p_min`` rows then ``p_max − p`` rows: all ≥ 0 inside."""
        p, _ = self.position_jacobian(configuration)
        return self._margins(p)

    def _margins(self, p: np.ndarray) -> np.ndarray:
        parts = []
        if self.p_min is not None:
            parts.append(p - self.p_min)
        if self.p_max is not None:
            parts.append(self.p_max - p)
        return np.concatenate(parts)

    def _rows(self, J: np.ndarray) -> np.ndarray:
        """``−∂h/∂q`` per row: ``−J`` for the ``p_min`` rows, ``J`` for the ``p_max`` rows."""
        parts = []
        if self.p_min is not None:
            parts.append(-J)
        if self.p_max is not None:
            parts.append(J)
        return np.vstack(parts)

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities:
        """``(G, h)``: ``G = −∂h/∂q``, ``h = γ · margins`` (``G v ≤ h``)."""
        p, J = self.position_jacobian(configuration)
        return self._rows(J), self.gain * self._margins(p)

    def safe_damping(self, configuration: Configuration) -> float:
        """pink's safe-displacement cost as a damping of ``v``: ``r / ‖J_h‖²`` (Frobenius
        norm of the rows), 0 when ``r = 0`` or the rows vanish."""
        if not self.safe_displacement_gain:
            return 0.0
        _, J = self.position_jacobian(configuration)
        norm2 = float((J * J).sum()) * (self.dim // len(self.indices))
        return self.safe_displacement_gain / norm2 if norm2 > 0.0 else 0.0

    def row_names(self) -> list[str]:
        """``"<frame> <axis> >= p_min"`` and ``"<frame> <axis> <= p_max"`` per row."""
        names = []
        axes = [_AXES[i] for i in self.indices]
        frame = self.frame.name
        if self.p_min is not None:
            names += [f"{frame} {a} >= {b:g}" for a, b in zip(axes, self.p_min, strict=True)]
        if self.p_max is not None:
            names += [f"{frame} {a} <= {b:g}" for a, b in zip(axes, self.p_max, strict=True)]
        return names

    def __repr__(self) -> str:
        return (
            f"PositionBarrier({self.frame.name!r}, indices={self.indices.tolist()}, "
            f"p_min={None if self.p_min is None else self.p_min.tolist()}, "
            f"p_max={None if self.p_max is None else self.p_max.tolist()})"
        )


def _bound(value: npt.ArrayLike, name: str, k: int) -> np.ndarray:
    """A bound of ``k`` coordinates (m) as a vector: a scalar stands for a single index; a
    column or a nested list is refused (below) rather than flattened."""
    bound = check_finite_array(value, name)
    return bound.reshape(1) if bound.ndim == 0 and k == 1 else bound
