"""Centre of mass position."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import check_finite_array
from ._frames import require_target, target_alias, target_property
from .task import MAX_COST, Task, plain_gains, positional_gains, shared_cost


class ComTask(Task):
    """Drive the centre of mass ``c(q)`` to a target ``c*`` in the world frame.

    Error: ``e = c* − c`` (m). Jacobian: ``Jcom`` (``ċ = Jcom v``). The target is ``target``,
    also under pink's name ``target_com``.

    Args:
        cost: weight (1/m), scalar or 3-vector (e.g. ``[1, 1, 0]`` for the ground projection).
        gain, lm_damping: see :class:`Task`; by keyword, or after the cost by position, as
            mink's ``ComTask(cost, gain, lm_damping)``.
    """

    dim = 3
    target = target_property(
        lambda task, value: check_finite_array(value, "target", (3,)).copy(),
        "the CoM position in the world frame (m), shape (3,)",
    )
    target_com = target_alias("target_com")

    def __init__(
        self,
        cost: npt.ArrayLike = 1.0,
        *mink_gains: float,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self._target: np.ndarray | None = None
        if (  # the common case (a task list built anew each step): no call of the checks
            type(cost) is float
            and not mink_gains
            and plain_gains(gain, lm_damping)
            and 0.0 <= cost <= MAX_COST
        ):
            self._cost = shared_cost(cost, 3)
            self._gain = gain
            self._lm_damping = lm_damping
            self._version = 1
            return
        if mink_gains:  # mink's ComTask(cost, gain, lm_damping)
            gain, lm_damping = positional_gains("ComTask", "cost", mink_gains, gain, lm_damping)
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def set_cost(self, cost: npt.ArrayLike) -> None:
        """New weights (1/m), scalar or 3-vector (pink's name for assigning ``cost``)."""
        self.cost = cost

    def plan_key(self) -> object:
        """``(ComTask,)`` (see :meth:`Task.plan_key`)."""
        return (ComTask,) if type(self) is ComTask else id(self)

    def set_target(self, target: npt.ArrayLike) -> None:
        """Target CoM position in the world frame (m), shape (3,)."""
        if type(target) is np.ndarray and target.dtype.char == "d" and target.shape == (3,):
            c = target.copy()  # (the common case; a float sum is finite only when every term is)
            x, y, z = c.tolist()
            if math.isfinite(x + y + z):
                self._target = c
                return
        self._target = check_finite_array(target, "target", (3,)).copy()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = configuration.com

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        if type(configuration) is not Configuration:  # (a subclass is fine)
            configuration = check_configuration(configuration, "ComTask")
        return target - configuration.com, configuration.com_jacobian

    def write_rows(
        self, configuration: Configuration, J_out: np.ndarray, e_out: np.ndarray
    ) -> None:
        """``compute_error_and_jacobian`` written into ``J_out`` and ``e_out`` (the step's
        stacked rows, of an exact ``ComTask`` on a :class:`Configuration`: no intermediate
        arrays)."""
        target = self._target
        if target is None:
            target = require_target(target, self)  # (raises TargetNotSet)
        configuration._ensure_com()
        data = configuration.data
        np.subtract(target, data.com[0], out=e_out)
        J = data.Jcom
        J_out[:] = J if J.ndim == 2 else J.reshape(3, 1)  # (one degree of freedom: a vector)
