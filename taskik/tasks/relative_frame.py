"""Pose of a frame expressed in another frame of the robot."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from ._frames import FrameName, as_se3, require_target, target_alias
from .frame import _MJCF_FRAME_TYPES, FrameTask
from .task import positional_gains


def _mink_name(name: str | None, mink_name: str | None, mink_type: str | None, which: str) -> str:
    """The frame (``which`` is ``frame``) or root of a task given by taskik's argument or by
    mink's keywords ``frame_name=``/``root_name=``, with mink's type checked."""
    if name is not None and mink_name is not None:
        raise InvalidInput(
            f"RelativeFrameTask got two {which}s: {name!r} and {which}_name={mink_name!r}"
        )
    name = name if name is not None else mink_name
    if name is None:
        raise InvalidInput(
            f"RelativeFrameTask needs a {which} name: RelativeFrameTask(frame, root, ...), "
            "e.g. RelativeFrameTask('left_hand', 'right_hand')"
        )
    if mink_type is not None and mink_type not in _MJCF_FRAME_TYPES:
        raise InvalidInput(
            f"{which}_type must be 'body' or 'site' (mink's names of MJCF objects that become "
            f"frames of the same name), got {mink_type!r}"
            + (": a MuJoCo geom is not a frame, put a site on it" if mink_type == "geom" else "")
        )
    return name


class RelativeFrameTask(FrameTask):
    """Drive the pose ``T = rootMframe(q) = oMroot⁻¹ oMframe`` to a target ``T*``.

    Error: ``e = −log6(T*⁻¹ T)``. Jacobian: ``J = Jlog6(T*⁻¹ T) (J_frame − Ad(T⁻¹) J_root)``
    with both frame Jacobians in LOCAL, i.e. the body twist of ``frame`` relative to ``root``.
    Useful for bimanual tasks (one hand relative to the other) or a tool relative to the base.
    The target is ``target``, also readable and settable under pink's name
    ``transform_target_to_root``.

    Args:
        frame: the moving frame.
        root: the frame in which the pose is expressed.
        position_cost, orientation_cost, gain, lm_damping: see :class:`FrameTask`.
        frame_name, frame_type, root_name, root_type: mink's keywords: ``frame_name`` is
            ``frame`` and ``root_name`` is ``root``; a type, ``"body"`` or ``"site"``, is
            checked and needs nothing more (``pin.buildModelFromMJCF`` names their frames
            after them). mink's positional order, ``RelativeFrameTask(frame_name,
            frame_type, root_name, root_type, position_cost, orientation_cost, gain,
            lm_damping)`` (the last two optional), is taken too: a cost that is a string in
            the third place tells it apart.
    """

    root = FrameName()
    transform_target_to_root = target_alias("transform_target_to_root")

    def __init__(
        self,
        frame: str | None = None,
        root: str | None = None,
        position_cost: npt.ArrayLike = 1.0,
        orientation_cost: npt.ArrayLike = 1.0,
        *mink_args: object,
        gain: float = 1.0,
        lm_damping: float = 0.0,
        frame_name: str | None = None,
        frame_type: str | None = None,
        root_name: str | None = None,
        root_type: str | None = None,
    ) -> None:
        if mink_args:  # mink's order: frame_name, frame_type, root_name, root_type, costs
            if not isinstance(position_cost, str) or len(mink_args) < 2:
                raise InvalidInput(
                    f"RelativeFrameTask takes four arguments by position, (frame, root, "
                    f"position_cost, orientation_cost), or mink's eight, (frame_name, "
                    f"frame_type, root_name, root_type, position_cost, orientation_cost, gain, "
                    f"lm_damping), the last two optional; got {4 + len(mink_args)}: write "
                    "RelativeFrameTask(frame, root, position_cost=..., orientation_cost=...)"
                )
            for name, given in (("frame_type", root), ("root_type", orientation_cost)):
                if not isinstance(given, str):
                    raise InvalidInput(
                        f"{name} must be 'body' or 'site' in mink's order (frame_name, "
                        f"frame_type, root_name, root_type, ...), got {given!r}"
                    )
            for name, by_keyword in (
                ("frame_type", frame_type),
                ("root_name", root_name),
                ("root_type", root_type),
            ):
                if by_keyword is not None:
                    raise InvalidInput(
                        f"RelativeFrameTask got {name} twice, by position (mink's order) "
                        "and by keyword"
                    )
            frame_type, root_name, root_type = root, position_cost, orientation_cost  # type: ignore[assignment]
            root = None
            position_cost, orientation_cost = mink_args[:2]  # type: ignore[assignment]
            if len(mink_args) > 2:
                gain, lm_damping = positional_gains(
                    "RelativeFrameTask", "orientation_cost", mink_args[2:], gain, lm_damping
                )
        frame = _mink_name(frame, frame_name, frame_type, "frame")
        root = _mink_name(root, root_name, root_type, "root")
        if isinstance(position_cost, str):  # mink's order: frame, frame_type, root, root_type
            raise InvalidInput(
                f"RelativeFrameTask's third argument is position_cost, got {position_cost!r} "
                f"(mink's order, frame_name, frame_type, root_name, root_type?): write "
                f"RelativeFrameTask(frame_name=..., root_name=..., position_cost=..., ...)"
            )
        super().__init__(frame, position_cost, orientation_cost, gain=gain, lm_damping=lm_damping)
        self.root = root

    def plan_key(self) -> object:
        """``(RelativeFrameTask, frame, root)`` (see :meth:`Task.plan_key`)."""
        if type(self) is not RelativeFrameTask:
            return id(self)
        return (RelativeFrameTask, self.frame, self.root)

    def set_target(self, target: pin.SE3 | npt.ArrayLike) -> None:
        """Target pose of ``frame`` in ``root``: ``pin.SE3`` or 4×4 homogeneous matrix."""
        self._target = as_se3(target)

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = configuration.get_transform(self.frame, self.root)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        fid = self.frame.id(configuration)
        rid = self.root.id(configuration)
        oMf = configuration.data.oMf
        T = oMf[rid].actInv(oMf[fid])
        M = target.actInv(T)
        J_rel = configuration.get_frame_jacobian(fid) - T.inverse().action @ (
            configuration.get_frame_jacobian(rid)
        )
        return -pin.log6(M).vector, pin.Jlog6(M) @ J_rel

    @property
    def transform_target_to_world(self) -> pin.SE3 | None:
        """Not a world pose: the target of this task is in ``root``."""
        raise AttributeError(
            "RelativeFrameTask's target is a pose in its root frame: read "
            "transform_target_to_root (or target)"
        )

    @transform_target_to_world.setter
    def transform_target_to_world(self, value: object) -> None:
        raise InvalidInput(
            "RelativeFrameTask's target is a pose in its root frame, not in the world: set "
            "transform_target_to_root (or target, or call set_target)"
        )

    def __repr__(self) -> str:
        return f"RelativeFrameTask({self.frame.name!r}, root={self.root.name!r})"
