"""Helpers under the names pink's ``pink.utils`` gives them, so that a pink script ports by
renaming its imports.

- :func:`custom_configuration_vector`: a configuration with named joints set (taskik's own,
  :func:`taskik.configuration.custom_configuration_vector`).
- :func:`get_root_joint_dim`: ``(nq, nv)`` of the joint named ``root_joint``, ``(0, 0)``
  without one (pink's rule for what a posture leaves out).
- :func:`get_joint_idx`: ``(idx_q, idx_v)`` of a joint by name.
- :class:`VectorSpace`: the read-only ``eye``, ``ones`` and ``zeros`` of a dimension
  (``configuration.tangent`` is one).

pink's ``process_collision_pairs`` has no counterpart here: taskik's collision limits take
their pairs from :mod:`taskik.geometry` (see ``docs/coming_from_pink.md``).
"""

from __future__ import annotations

import numbers

import numpy as np
import pinocchio as pin

from .configuration import Tangent, check_model, custom_configuration_vector
from .exceptions import InvalidInput, UnknownName

__all__ = ["VectorSpace", "custom_configuration_vector", "get_joint_idx", "get_root_joint_dim"]


class VectorSpace(Tangent):
    """The constant arrays of a vector space of dimension ``dim``: ``eye`` (dim × dim),
    ``ones`` and ``zeros`` (dim), read-only (pink's ``pink.utils.VectorSpace``)."""

    __slots__ = ()

    def __init__(self, dim: int) -> None:
        if not isinstance(dim, numbers.Integral) or isinstance(dim, bool | np.bool_) or dim < 0:
            raise InvalidInput(f"VectorSpace dim must be an integer >= 0, got {dim!r}")
        super().__init__(int(dim))


def get_root_joint_dim(model: pin.Model) -> tuple[int, int]:
    """``(nq, nv)`` of the joint named ``root_joint`` (Pinocchio's name for the root joint
    given to ``buildModelFromUrdf``), ``(0, 0)`` when the model has none. A free flyer named
    otherwise gives ``(0, 0)``, as in pink."""
    model = check_model(model, "get_root_joint_dim")
    if not model.existJointName("root_joint"):
        return 0, 0
    joint = model.joints[model.getJointId("root_joint")]
    return int(joint.nq), int(joint.nv)


def get_joint_idx(model: pin.Model, joint_name: str) -> tuple[int, int]:
    """``(idx_q, idx_v)``: where joint ``joint_name``'s coordinates start in q and in v.

    Raises:
        UnknownName: no joint has that name (with the closest names).
    """
    model = check_model(model, "get_joint_idx")
    if not isinstance(joint_name, str) or not model.existJointName(joint_name):
        raise UnknownName("joint", joint_name, list(model.names)[1:])
    joint = model.joints[model.getJointId(joint_name)]
    return int(joint.idx_q), int(joint.idx_v)
