"""Low acceleration: prefer a step close to the last one (smooth teleoperation)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from .task import Task, check_cost


class LowAccelerationTask(Task):
    """Penalise the change of velocity between two steps: the term ``‖W (v − v_prev)‖²``.

    ``v_prev`` is the velocity of the step that brought the configuration where it is,
    ``integrate_inplace(v_prev, dt_prev)``; after any other change of q (``update``) or
    before the first step, there is none and the task is a :class:`DampingTask`.

    Error: ``e = v_prev · dt_prev`` (rad, m: the last displacement), "Jacobian" ``J = I``
    (nv × nv), so the step asks ``v dt ≈ Kp v_prev dt_prev``: ``v ≈ v_prev`` for a constant
    ``dt`` and gain 1 (a gain < 1 blends toward rest). With ``W = 1/a`` (a in rad/s per
    step) the term is ``‖Δv / a‖²``.

    Args:
        cost: weight (s/rad, s/m), scalar or one per velocity (nv).
        gain: see :class:`Task` (1 by default: no pull toward rest).
    """

    def __init__(self, cost: npt.ArrayLike = 1.0, *, gain: float = 1.0) -> None:
        self._eye = np.empty((0, 0))
        self._zeros = np.empty(0)
        super().__init__(cost=cost, gain=gain)

    def plan_key(self) -> object:
        """``(LowAccelerationTask,)``: its rows are nv whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (LowAccelerationTask,) if type(self) is LowAccelerationTask else id(self)

    def _set_cost(self, value: npt.ArrayLike) -> None:
        self._cost = check_cost(value, None)
        self._bump()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """The task has no target; provided so task lists can be initialised uniformly."""

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        configuration = check_configuration(configuration, "LowAccelerationTask")
        nv = configuration.nv
        if self._cost.ndim == 1 and self._cost.shape != (nv,):
            raise InvalidInput(
                f"LowAccelerationTask cost must be a scalar or have shape ({nv},), "
                f"got {self._cost.shape}"
            )
        if self._eye.shape[0] != nv:
            self._eye = np.eye(nv)
            self._zeros = np.zeros(nv)
            self.dim = nv
        last = configuration._last_step
        if last is None or last[0] != configuration._updates:
            return self._zeros, self._eye
        return last[1] * last[2], self._eye
