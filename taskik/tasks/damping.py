"""Velocity damping: prefer small joint velocities."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from .task import Task, check_cost


class DampingTask(Task):
    """Minimise the joint velocity: error ``e = 0``, Jacobian ``I`` (nv × nv).

    The term is ``‖W v‖²``: a uniform (or per-joint) Tikhonov regulariser of the step.

    Args:
        cost: weight (s/rad), scalar or one per velocity (nv).
    """

    def __init__(self, cost: npt.ArrayLike = 1.0) -> None:
        self._eye: np.ndarray | None = None
        super().__init__(cost=cost)

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
