"""Frozen joints: solve on a subset of the joints without rebuilding the model."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, check_model
from ..exceptions import InvalidInput, UnknownName
from .limit import Box, Limit


def _joint_names(names: Iterable[str] | str, who: str) -> list[str]:
    if isinstance(names, str):
        return [names]
    try:
        out = list(names)
    except TypeError:
        raise InvalidInput(f"{who} takes joint names (a list of str), got {names!r}") from None
    bad = [n for n in out if not isinstance(n, str)]
    if bad:
        raise InvalidInput(f"{who} takes joint names (str), got {bad[0]!r}")
    return out


class FrozenJoints(Limit):
    """Hold the named joints still: ``v[i] = 0`` for each of their velocity coordinates (a hard
    box ``0 ≤ v_i ≤ 0``), so a step moves only the other joints (mink's ``DofFreezingTask``,
    as a limit). The model is not rebuilt; change the frozen set by building another limit.

    Composition: it is hard, so it wins over the position limits (soft): a frozen joint outside
    its range stays where it is instead of being pushed back (the merged box is ``[0, 0]``,
    never empty). With other hard limits it is intersected: a velocity or base cap contains 0
    and never conflicts; an :class:`~taskik.limits.acceleration.AccelerationLimit` conflicts
    when the joint moved faster than ``a_max dt`` in the last step (a stop it forbids): the
    default step then takes the slowest velocity between the two boxes and reports it
    (:func:`taskik.last_relaxation`), and ``strict=True`` raises
    :class:`~taskik.NoSolutionFound` naming both limits. The unconstrained
    backends (``backend="dls"``, ...) honour it too: they solve without the frozen columns.

    Args:
        model: Pinocchio model.
        joints: names of the joints to freeze (every DoF of each: a free flyer's six too).

    Raises:
        UnknownName: a name is not a joint of the model (with the close matches).
    """

    hard = True
    static = True
    well_formed = True  # indices from the model
    name = "frozen joints"

    def __init__(self, model: pin.Model, joints: Iterable[str] | str) -> None:
        self.model = check_model(model, "FrozenJoints")
        self.joints = _joint_names(joints, "FrozenJoints")
        names = list(model.names)
        idx: set[int] = set()
        for name in self.joints:
            if name not in names or name == "universe":
                raise UnknownName("joint", name, names[1:])
            joint = model.joints[names.index(name)]
            idx.update(range(joint.idx_v, joint.idx_v + joint.nv))
        indices = np.array(sorted(idx), dtype=int)
        indices.flags.writeable = False
        self._indices = indices
        self._zeros = np.zeros(len(indices))
        self._zeros.flags.writeable = False
        self._plan_key = (FrozenJoints, model.nv, indices.tobytes())

    @property
    def indices(self) -> np.ndarray:
        """The frozen velocity indices, increasing (read-only)."""
        return self._indices

    @classmethod
    def all_but(cls, model: pin.Model, joints: Iterable[str] | str) -> FrozenJoints:
        """Freeze every joint of the model except the named ones (solve on those only)."""
        keep = _joint_names(joints, "FrozenJoints.all_but")
        names = list(model.names)[1:]
        for name in keep:
            if name not in names:
                raise UnknownName("joint", name, names)
        return cls(model, [n for n in names if n not in keep])

    @property
    def free_indices(self) -> np.ndarray:
        """Velocity indices that the limit leaves free."""
        return np.setdiff1d(np.arange(self.model.nv), self.indices)

    def plan_key(self) -> object:
        """``(FrozenJoints, nv, indices)`` by value (see :meth:`Limit.plan_key`)."""
        return self._plan_key if type(self) is FrozenJoints else id(self)

    def compute_box(self, configuration: Configuration, dt: float) -> Box:
        """``(indices, 0, 0)``: the frozen velocity coordinates, the same at every step."""
        return self.indices, self._zeros, self._zeros

    def __repr__(self) -> str:
        return f"FrozenJoints({self.joints!r})"
