"""Pose of a frame in the world."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from ._frames import FrameName, FrameRef, as_se3, require_target, target_alias, target_property
from .task import Task, check_cost, is_plain_cost, plain_gains, positional_gains

_LOCAL = pin.LOCAL
_frame_jacobian = pin.getFrameJacobian

#: mink's frame types that pin.buildModelFromMJCF turns into frames of the same name.
_MJCF_FRAME_TYPES = ("body", "site")


def _mink_frame(frame: str | None, frame_name: str | None, frame_type: str | None) -> str:
    """The frame name of ``FrameTask(frame_name=..., frame_type=...)`` (mink's keywords)."""
    if frame is not None and frame_name is not None:
        raise InvalidInput(f"FrameTask got two frames: {frame!r} and frame_name={frame_name!r}")
    name = frame if frame is not None else frame_name
    if name is None:
        raise InvalidInput("FrameTask needs a frame name: FrameTask('tool0', ...)")
    if frame_type == "geom":
        raise InvalidInput(
            f"frame_type='geom': a MuJoCo geom is not a frame of the Pinocchio model "
            f"(pin.buildModelFromMJCF makes frames of bodies and sites): regulate a site placed "
            f"on the geom, or add a frame where it is, model.addFrame(pin.Frame({name!r}, "
            f"joint, placement, pin.FrameType.OP_FRAME)), and write FrameTask({name!r}, ...)"
        )
    if frame_type is not None and frame_type not in _MJCF_FRAME_TYPES:
        raise InvalidInput(
            f"frame_type must be 'body' or 'site' (mink's names of MJCF objects that become "
            f"frames of the same name), got {frame_type!r}: write FrameTask({name!r}, ...)"
        )
    return name


#: The cost vectors of plain scalar costs, ``(position_cost, orientation_cost)`` -> the six
#: weights, read-only: tasks built with the same numbers share one array (a task's costs are
#: replaced when changed, never written in place). Keyed by value (``1`` and ``1.0`` are
#: the same weights).
_COSTS: dict[tuple[float, float], np.ndarray] = {}


def _shared_costs(pc: float, oc: float) -> np.ndarray:
    """The read-only weights ``[pc, pc, pc, oc, oc, oc]`` (plain costs, checked by the
    caller), one array per pair of values."""
    cost = _COSTS.get((pc, oc))
    if cost is None:
        cost = np.array((pc, pc, pc, oc, oc, oc), dtype=float)
        cost.flags.writeable = False
        if len(_COSTS) >= 64:
            _COSTS.clear()
        _COSTS[(pc, oc)] = cost
    return cost


class FrameTask(Task):
    """Drive the pose ``T = oMf(q)`` of a frame to a target ``T*`` in SE(3).

    Error (a body twist, ``[linear; angular]``, in the target frame):
    ``e = −log6(T*⁻¹ T)``, zero when the frame is on target.
    Jacobian: ``J = Jlog6(T*⁻¹ T) · J_f``, where ``J_f`` is the frame Jacobian in the LOCAL
    frame, so that ``J v`` is the rate of ``log6(T*⁻¹ T)``.

    The frame reads back as its name (``task.frame == "tool0"``); the target is ``target``,
    also readable and settable under pink's name ``transform_target_to_world``.

    Args:
        frame: frame name.
        position_cost: weight of the 3 translation rows (1/m), scalar or 3-vector.
        orientation_cost: weight of the 3 rotation rows (1/rad), scalar or 3-vector.
        gain, lm_damping: see :class:`Task`.
        frame_name, frame_type: mink's keywords: ``frame_name`` is ``frame``; ``frame_type``
            ``"body"`` or ``"site"`` is checked and needs nothing more, since
            ``pin.buildModelFromMJCF`` names the frame of an MJCF body or site after it
            (a geom has no frame: :class:`InvalidInput` says what to write). mink's
            positional order, ``FrameTask(frame_name, frame_type, position_cost,
            orientation_cost, gain, lm_damping)`` (the last two optional), is taken too: a
            frame type in the second place tells it apart.
    """

    dim = 6
    frame = FrameName()
    _frame: FrameRef  # (the name with its cached index, set through `frame`)
    target = target_property(lambda task, value: as_se3(value), "a pin.SE3 in the world frame")
    transform_target_to_world = target_alias("transform_target_to_world")

    def __init__(
        self,
        frame: str | None = None,
        position_cost: npt.ArrayLike = 1.0,
        orientation_cost: npt.ArrayLike = 1.0,
        *mink_args: object,
        gain: float = 1.0,
        lm_damping: float = 0.0,
        frame_name: str | None = None,
        frame_type: str | None = None,
    ) -> None:
        if (  # the common case (a task list built anew each step): no call of the checks
            type(frame) is str
            and type(position_cost) is float
            and type(orientation_cost) is float
            and not mink_args
            and frame_name is None
            and frame_type is None
            and plain_gains(gain, lm_damping)
        ):
            cost = _COSTS.get((position_cost, orientation_cost))
            if cost is not None:
                self._frame = str.__new__(FrameRef, frame)  # (a str: FrameRef's check)
                self._target: pin.SE3 | None = None
                self._cost = cost
                self._gain = gain
                self._lm_damping = lm_damping
                self._version = 1
                return
        if mink_args:  # mink's order, FrameTask(frame_name, frame_type, position_cost, ...)
            if not isinstance(position_cost, str):
                raise InvalidInput(
                    f"FrameTask takes three arguments by position, (frame, position_cost, "
                    f"orientation_cost), or mink's (frame_name, frame_type, position_cost, "
                    f"orientation_cost, gain, lm_damping); got {3 + len(mink_args)} with "
                    f"position_cost={position_cost!r}: write FrameTask({frame!r}, "
                    "position_cost=..., orientation_cost=..., gain=..., lm_damping=...)"
                )
            if frame_type is not None:
                raise InvalidInput(
                    f"FrameTask got frame_type twice, {position_cost!r} by position and "
                    f"frame_type={frame_type!r}"
                )
            frame_type, position_cost, orientation_cost = (
                position_cost,
                orientation_cost,
                mink_args[0],  # type: ignore[assignment]
            )
            if len(mink_args) > 1:
                gain, lm_damping = positional_gains(
                    "FrameTask", "orientation_cost", mink_args[1:], gain, lm_damping
                )
        if frame is None or frame_name is not None or frame_type is not None:
            frame = _mink_frame(frame, frame_name, frame_type)
        if isinstance(position_cost, str):  # mink's FrameTask(frame_name, frame_type, ...)
            raise InvalidInput(
                f"FrameTask's second argument is position_cost, got {position_cost!r} (mink's "
                f"frame_type? mink's order gives both costs after it, FrameTask({frame!r}, "
                f"{position_cost!r}, position_cost, orientation_cost)): write "
                f"FrameTask({frame!r}, position_cost=..., orientation_cost=...)"
            )
        self.frame = frame
        self._target = None
        pc, oc = position_cost, orientation_cost
        if is_plain_cost(pc) and is_plain_cost(oc):  # (the common case, without array checks)
            self._cost = _shared_costs(pc, oc)
            self._set_gains(gain, lm_damping)
        else:  # (None is refused here: in set_costs it means "unchanged")
            super().__init__(cost=1.0, gain=gain, lm_damping=lm_damping)
            self._cost[:3] = check_cost(pc, 3, "position_cost")
            self._cost[3:] = check_cost(oc, 3, "orientation_cost")

    def adopt(self, resolved: Task) -> None:
        """The frame index of ``resolved`` (see :meth:`Task.adopt`): its resolved frame
        reference itself when it names the same frame (the name and its index, per model)."""
        if type(resolved) is FrameTask:
            ref, other = self._frame, resolved._frame
            if ref is not other and ref._model is None and str.__eq__(ref, other):
                self._frame = other
            else:
                ref.adopt(other)

    def plan_key(self) -> object:
        """``(FrameTask, frame)``: the rows depend on nothing else (see :meth:`Task.plan_key`)."""
        return (FrameTask, self._frame) if type(self) is FrameTask else id(self)

    def set_costs(
        self,
        position_cost: npt.ArrayLike | None = None,
        orientation_cost: npt.ArrayLike | None = None,
    ) -> None:
        """Change the translation and/or rotation weights (the same values again are no
        change)."""
        cost = self._cost.copy()
        if position_cost is not None:
            cost[:3] = check_cost(position_cost, 3, "position_cost")
        if orientation_cost is not None:
            cost[3:] = check_cost(orientation_cost, 3, "orientation_cost")
        if not (cost == self._cost).all():
            self._cost = cost
            self._bump()

    def set_position_cost(self, position_cost: npt.ArrayLike) -> None:
        """Change the translation weights (1/m), scalar or 3-vector (pink's name)."""
        if position_cost is None:  # (set_costs reads None as 'unchanged')
            raise InvalidInput("FrameTask position_cost must be a scalar or a 3-vector, got None")
        self.set_costs(position_cost=position_cost)

    def set_orientation_cost(self, orientation_cost: npt.ArrayLike) -> None:
        """Change the rotation weights (1/rad), scalar or 3-vector (pink's name)."""
        if orientation_cost is None:  # (set_costs reads None as 'unchanged')
            raise InvalidInput(
                "FrameTask orientation_cost must be a scalar or a 3-vector, got None"
            )
        self.set_costs(orientation_cost=orientation_cost)

    @property
    def position_cost(self) -> np.ndarray:
        """Weights of the translation rows (1/m), read-only."""
        return self.cost[:3]

    @property
    def orientation_cost(self) -> np.ndarray:
        """Weights of the rotation rows (1/rad), read-only."""
        return self.cost[3:]

    def set_target(self, target: pin.SE3 | npt.ArrayLike) -> None:
        """Target pose in the world frame: ``pin.SE3`` or 4×4 homogeneous matrix."""
        self._target = as_se3(target)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = configuration.get_transform_frame_to_world(self.frame)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        if type(configuration) is not Configuration:  # (a subclass is fine)
            configuration = check_configuration(configuration, "FrameTask")
        e, J = np.empty(6), np.empty((6, configuration.nv))
        self.write_rows(configuration, J, e)
        return e, J

    def write_rows(
        self, configuration: Configuration, J_out: np.ndarray, e_out: np.ndarray
    ) -> None:
        """``compute_error_and_jacobian`` written into ``J_out`` and ``e_out`` (the
        step's stacked rows: no intermediate arrays)."""
        # (the property reads _target; a subclass may define its own)
        target = self._target if type(self) is FrameTask else self.target
        if target is None:
            target = require_target(target, self)  # (raises TargetNotSet)
        ref = self._frame  # (its index, resolved once per model)
        fid = ref._id if ref._model is configuration.model else ref.id(configuration)
        M = target.actInv(configuration._oMf[fid])
        np.negative(pin.log6(M).vector, out=e_out)
        jacobians = configuration._frame_jacobians
        J = jacobians.get(fid)
        if J is None:
            if configuration._nv > 1:  # (kept until the next update, as _frame_jacobian does)
                J = jacobians[fid] = _frame_jacobian(
                    configuration.model, configuration.data, fid, _LOCAL
                )
            else:  # (no degree of freedom, or one: Pinocchio's vector or crash, handled there)
                J = configuration._frame_jacobian(fid, _LOCAL)
        pin.Jlog6(M).dot(J, out=J_out)  # (np.dot's product without its dispatch)

    def __repr__(self) -> str:
        return f"FrameTask({self.frame.name!r}, cost={self._cost.tolist()}, gain={self.gain})"
