"""Centre of mass position."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration, check_configuration
from ..exceptions import check_finite_array
from ._frames import require_target, target_alias
from .task import Task


class ComTask(Task):
    """Drive the centre of mass ``c(q)`` to a target ``c*`` in the world frame.

    Error: ``e = c* − c`` (m). Jacobian: ``Jcom`` (``ċ = Jcom v``). The target is ``target``,
    also under pink's name ``target_com``.

    Args:
        cost: weight (1/m), scalar or 3-vector (e.g. ``[1, 1, 0]`` for the ground projection).
    """

    dim = 3
    target_com = target_alias("target_com")

    def __init__(
        self, cost: npt.ArrayLike = 1.0, *, gain: float = 1.0, lm_damping: float = 0.0
    ) -> None:
        self.target: np.ndarray | None = None
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def set_cost(self, cost: npt.ArrayLike) -> None:
        """New weights (1/m), scalar or 3-vector (pink's name for assigning ``cost``)."""
        self.cost = cost

    def plan_key(self) -> object:
        """``(ComTask,)`` (see :meth:`Task.plan_key`)."""
        return (ComTask,) if type(self) is ComTask else id(self)

    def set_target(self, target: npt.ArrayLike) -> None:
        """Target CoM position in the world frame (m), shape (3,)."""
        self.target = check_finite_array(target, "target", (3,)).copy()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self.target = configuration.com

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        if type(configuration) is not Configuration:  # (a subclass is fine)
            configuration = check_configuration(configuration, "ComTask")
        return target - configuration.com, configuration.com_jacobian
