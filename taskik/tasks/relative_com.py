"""Centre of mass expressed in a frame of the robot (a foot, a frame between the feet)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import check_finite_array
from ._frames import FrameName, require_target, target_property
from .task import Task


class RelativeComTask(Task):
    """Drive the centre of mass expressed in a frame, ``c_f = R_fᵀ (c − p_f)``, to ``c_f*``.

    ``c`` is the CoM in the world, ``(R_f, p_f)`` the placement of the frame. Error:
    ``e = c_f* − c_f`` (m, frame coordinates). Jacobian, from
    ``ċ_f = R_fᵀ ċ − v_f − ω_f × c_f``: ``J = R_fᵀ J_com − J_v + [c_f]× J_ω`` with
    ``[J_v; J_ω]`` the LOCAL frame Jacobian. For the CoM between the feet, add a frame there
    (``model.addFrame``) or use a foot's frame with an offset target.

    Args:
        frame: frame name.
        cost: weight (1/m), scalar or 3-vector in the frame's axes (``[1, 1, 0]``: the CoM
            over a point of the sole, its height free).
        gain, lm_damping: see :class:`Task`.
    """

    frame = FrameName()
    dim = 3
    target = target_property(
        lambda task, value: check_finite_array(value, "target", (3,)).copy(),
        "the CoM in the frame's coordinates (m), shape (3,)",
    )

    def __init__(
        self,
        frame: str,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self.frame = frame
        self._target: np.ndarray | None = None
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def plan_key(self) -> object:
        """``(RelativeComTask,)``: its rows are three whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (RelativeComTask,) if type(self) is RelativeComTask else id(self)

    def set_target(self, target: npt.ArrayLike) -> None:
        """Target CoM position in the frame's coordinates (m), shape (3,)."""
        self._target = check_finite_array(target, "target", (3,)).copy()

    def com_in_frame(self, configuration: Configuration) -> np.ndarray:
        """``c_f = R_fᵀ (c − p_f)`` (m)."""
        T = configuration.data.oMf[self.frame.id(configuration)]
        return np.asarray(T.actInv(configuration.com))

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = self.com_in_frame(configuration)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        fid = self.frame.id(configuration)
        T = configuration.data.oMf[fid]
        c_f = T.actInv(configuration.com)
        J_f = configuration.get_frame_jacobian(fid)
        J = T.rotation.T @ configuration.com_jacobian - J_f[:3] + pin.skew(c_f) @ J_f[3:]
        return target - c_f, J

    def __repr__(self) -> str:
        return f"RelativeComTask({self.frame.name!r}, cost={self.cost.tolist()})"
