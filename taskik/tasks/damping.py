"""Velocity damping: prefer small joint velocities."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from .posture import _ONE, _is_a_model
from .task import Task, check_cost


def _free_joint_velocities(model: object) -> tuple[int, list[int]]:
    """``(nv, the velocity indices of free joints)`` of a Pinocchio model or MuJoCo's
    ``MjModel`` (both order velocities joint by joint, in the MJCF file's order)."""
    if isinstance(model, pin.Model):
        free = [j.idx_v for j in model.joints[1:] if j.shortname() == "JointModelFreeFlyer"]
        nv = model.nv
    else:  # (MuJoCo's model: mjJNT_FREE is 0)
        mujoco_model: Any = model
        types, starts = mujoco_model.jnt_type, mujoco_model.jnt_dofadr
        free = [int(starts[j]) for j in range(len(types)) if int(types[j]) == 0]
        nv = int(mujoco_model.nv)
    return nv, [i for start in free for i in range(start, start + 6)]


class DampingTask(Task):
    """Minimise the joint velocity: error ``e = 0``, Jacobian ``I`` (nv × nv).

    The term is ``‖W v‖²``: a uniform (or per-joint) Tikhonov regulariser of the step.

    mink's call, ``DampingTask(model, cost)`` (or ``model=``), is taken with mink's meaning:
    the cost (a scalar, or one entry per velocity) is checked against the model's nv at
    once, and the velocities of its free joints get weight 0 (mink's damping leaves a
    floating base undamped); ``DampingTask(cost)`` damps every velocity.

    Args:
        cost: weight (s/rad; s/m for a prismatic joint's or a base's translation), scalar
            or one per velocity (nv); first or by keyword, not both; 1.0 if neither.
        model: optional, mink's ``DampingTask(model, cost)`` (first or by keyword): the
            Pinocchio model or MuJoCo's ``MjModel`` of the same MJCF file.

    Raises:
        InvalidInput: two costs or two models, a cost of another shape than the model's
            velocity, a model that is neither, or more than two arguments by position.
    """

    def __init__(
        self,
        model_or_cost: pin.Model | npt.ArrayLike = _ONE,
        /,
        cost: npt.ArrayLike = _ONE,
        *extra: object,
        model: pin.Model | object | None = None,
    ) -> None:
        if extra:  # (mink's DampingTask has no gain or lm_damping either)
            raise InvalidInput(
                f"DampingTask takes at most two arguments by position, mink's (model, cost), "
                f"got {2 + len(extra)}: a damping has no target, gain or lm_damping; write "
                "DampingTask(model, cost) or DampingTask(cost)"
            )
        if _is_a_model(model_or_cost):  # mink's DampingTask(model, cost)
            if model is not None:
                raise InvalidInput("DampingTask got two models, first and model=")
            model = model_or_cost
        elif cost is _ONE:  # DampingTask(1e-2), DampingTask()
            cost = model_or_cost
        elif model_or_cost is not _ONE:
            raise InvalidInput(f"DampingTask got two costs, {model_or_cost!r} and cost={cost!r}")
        self._eye: np.ndarray | None = None
        super().__init__(cost=1.0 if cost is _ONE else cost)
        if model is not None:
            self._set_cost(self._mink_cost(model))

    def _mink_cost(self, model: object) -> np.ndarray:
        """mink's damping on ``model``: the cost per velocity, zero on the free joints'."""
        if not _is_a_model(model):
            raise InvalidInput(
                "DampingTask's model must be a pinocchio.Model (or mink's mujoco.MjModel), "
                f"got {type(model).__name__}; DampingTask(cost) needs no model"
            )
        nv, free = _free_joint_velocities(model)
        cost = self._cost.reshape(-1) if self._cost.ndim else self._cost
        if cost.shape not in ((), (1,), (nv,)):
            raise InvalidInput(
                f"DampingTask cost must be a scalar or have shape ({nv},) for this model, "
                f"got {self._cost.shape}"
            )
        weights = np.full(nv, float(cost[0])) if cost.shape == (1,) else np.broadcast_to(cost, nv)
        weights = np.array(weights, dtype=float)
        weights[free] = 0.0
        return weights

    def _set_cost(self, value: npt.ArrayLike) -> None:
        self._cost = check_cost(value, None)
        self._bump()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """The damping task has no target; provided so task lists can be initialised uniformly."""

    def plan_key(self) -> object:
        """``(DampingTask,)`` (see :meth:`Task.plan_key`)."""
        return (DampingTask,) if type(self) is DampingTask else id(self)

    def selection(self, configuration: Configuration) -> np.ndarray | None:
        """Every velocity index: ``J = I``."""
        if type(self).compute_error_and_jacobian is not DampingTask.compute_error_and_jacobian:
            return None
        return np.arange(configuration.nv)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        if type(configuration) is not Configuration:  # (a subclass is fine)
            configuration = check_configuration(configuration, "DampingTask")
        nv = configuration.nv
        if self._cost.ndim == 1 and self._cost.shape != (nv,):
            raise InvalidInput(f"DampingTask cost must be a scalar or have shape ({nv},)")
        if self._eye is None or self._eye.shape[0] != nv:
            self._eye = np.eye(nv)
            self.dim = nv
        return np.zeros(nv), self._eye
