"""Joint velocity limits."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_model
from ..exceptions import InvalidInput, UnknownName, check_finite_array, real_array
from .limit import Box, Limit, finite_limit_mask


def _as_vector(limits: object, nv: int) -> np.ndarray:
    """A vector of nv velocity caps; :class:`InvalidInput` naming the two accepted forms."""
    try:
        arr = real_array(limits, "the caps")
    except InvalidInput as exc:
        arr, why = np.empty(0), f" ({exc})"
    else:
        why = ""
    if arr.shape != (nv,):
        raise InvalidInput(
            f"limits must be a vector of nv = {nv} velocity caps or a mapping "
            f"joint name -> velocity limit, got {limits!r}{why}"
        )
    return arr


class VelocityLimit(Limit):
    """Box ``−v_max ≤ v ≤ v_max`` (rad/s or m/s), a hard limit.

    Args:
        model: Pinocchio model.
        limits: None to use ``model.velocityLimit``; a vector of nv caps (pink's
            ``velocity_limit``, e.g. to bound continuous joints or a mobile base, which their
            URDF cannot); or a mapping ``joint name → limit`` (a scalar, or one value per DoF of
            the joint: a planar base takes ``[vx, vy, ω]``), joints not in it unbounded. In a
            vector, ``inf`` (or Pinocchio's ±max double) leaves an entry unbounded; unlike
            pink, a 0 cap holds that velocity at 0.
        velocities: keyword only, mink's name for the mapping form of ``limits``
            (``VelocityLimit(model=model, velocities={"joint1": 1.5})``; joints not in it
            unbounded, as in mink). Not with ``limits``.
    """

    hard = True
    static = True
    well_formed = True  # indices from the model, checked finite values
    name = "velocity"

    def __init__(
        self,
        model: pin.Model,
        limits: Mapping[str, npt.ArrayLike] | npt.ArrayLike | None = None,
        *,
        velocities: Mapping[str, npt.ArrayLike] | None = None,
    ) -> None:
        self.model = check_model(model, "VelocityLimit")
        if velocities is not None:  # mink's keyword: a mapping joint name -> cap
            if limits is not None:
                raise InvalidInput(
                    "VelocityLimit got two sets of caps, limits and mink's velocities=: "
                    "give one, VelocityLimit(model, {joint: cap, ...})"
                )
            if not isinstance(velocities, Mapping):
                raise InvalidInput(
                    f"velocities= (mink's keyword) must be a mapping joint name -> velocity "
                    f"limit, got {type(velocities).__name__}: for a vector of nv caps write "
                    "VelocityLimit(model, caps)"
                )
            limits = velocities
        if limits is None or not isinstance(limits, Mapping):
            if limits is None:
                vmax = np.array(model.velocityLimit, dtype=float)
            else:
                vmax = _as_vector(limits, model.nv)
            if vmax.shape != (model.nv,):
                raise InvalidInput(f"model.velocityLimit has shape {vmax.shape}, not ({model.nv},)")
            if np.isnan(vmax).any():
                raise InvalidInput(f"velocity limits contain NaN at {np.isnan(vmax).nonzero()[0]}")
            if (vmax < 0).any():  # (−inf or −1e300 is no way to leave a joint free: +inf is)
                raise InvalidInput(
                    f"velocity limits must be >= 0 (inf leaves one free), got {vmax[vmax < 0]} "
                    f"at {np.flatnonzero(vmax < 0)}"
                )
            mask = finite_limit_mask(vmax)
            idx = np.flatnonzero(mask)
            values = vmax[idx]
        else:
            idx_l: list[int] = []
            val_l: list[float] = []
            names = list(model.names)
            for name, value in limits.items():
                if not isinstance(name, str) or name not in names or name == "universe":
                    raise UnknownName("joint", name, names[1:])
                joint = model.joints[names.index(name)]
                arr = check_finite_array(value, f"velocity limit of {name}")
                if arr.shape not in ((), (joint.nv,)):
                    raise InvalidInput(
                        f"velocity limit of {name} must be a scalar or {joint.nv} values, "
                        f"got shape {arr.shape}"
                    )
                arr = np.broadcast_to(arr, (joint.nv,))
                idx_l.extend(range(joint.idx_v, joint.idx_v + joint.nv))
                val_l.extend(arr.tolist())
            idx, values = np.array(idx_l, dtype=int), np.array(val_l, dtype=float)
        if not np.isfinite(values).all() or (values < 0).any():
            raise InvalidInput(f"velocity limits must be finite and >= 0, got {values}")
        order = np.argsort(idx)
        indices = idx[order]
        indices.flags.writeable = False
        self._indices = indices
        self._index_bytes = indices.tobytes()
        self.v_max = values[order]

    @property
    def indices(self) -> np.ndarray:
        """The bounded velocity indices, increasing (read-only)."""
        return self._indices

    @property
    def v_max(self) -> np.ndarray:
        """The caps of ``v[indices]`` (rad/s or m/s), finite and >= 0: assign new caps (a
        scalar, or one per index) or edit them in place. A plan works the merged box out
        from the caps once and is keyed by their values (:meth:`plan_key`), so either way
        the next step obeys the new caps."""
        return self._v_max

    @v_max.setter
    def v_max(self, caps: npt.ArrayLike) -> None:
        self._v_max = self._checked_caps(caps)
        self._caps_seen = self._v_max.tobytes()

    def _checked_caps(self, caps: npt.ArrayLike) -> np.ndarray:
        """``caps`` as ``len(indices)`` floats of their own; InvalidInput if they are not
        finite numbers >= 0 of that length (or a scalar)."""
        arr = check_finite_array(caps, "v_max")
        n = len(self._indices)
        if arr.ndim == 0:
            arr = np.full(n, float(arr))
        if arr.shape != (n,):
            raise InvalidInput(f"v_max must be a scalar or {n} caps, got shape {arr.shape}")
        if (arr < 0).any():
            raise InvalidInput(f"velocity limits must be >= 0, got {arr}")
        return np.array(arr, dtype=float)  # (a copy of its own)

    def _caps(self) -> bytes:
        """The caps' bytes, checked again when they were edited in place since last seen."""
        caps = self._v_max.tobytes()
        if caps != self._caps_seen:
            self._checked_caps(self._v_max)  # (InvalidInput: a NaN or a negative cap)
            self._caps_seen = caps
        return caps

    def plan_key(self) -> object:
        """``(VelocityLimit, nv, indices, caps)`` by value: the merged box of a plan is
        worked out from the caps once, so new caps (assigned or edited in place) select
        another plan (see :meth:`Limit.plan_key`).

        Raises:
            InvalidInput: a cap edited in place is NaN, infinite or negative.
        """
        if type(self) is not VelocityLimit:
            return id(self)
        return (VelocityLimit, self.model.nv, self._index_bytes, self._caps())

    def compute_box(self, configuration: Configuration, dt: float) -> Box:
        """``(indices, −v_max, v_max)`` (rad/s, m/s), the same at every step."""
        self._caps()
        return self.indices, -self.v_max, self.v_max

    def __repr__(self) -> str:
        return f"VelocityLimit(joints={len(self.indices)})"
