"""MuJoCo next to taskik: configuration vectors and mocap targets between the two.

A MuJoCo model file (MJCF) loads into Pinocchio with ``pinocchio.buildModelFromMJCF``; taskik
then solves on the Pinocchio model while MuJoCo keeps simulating and viewing. What differs
between the two is the order of a quaternion: MuJoCo writes a free or ball joint's
orientation ``w, x, y, z``, Pinocchio ``x, y, z, w``. These helpers convert MuJoCo's
``qpos`` and Pinocchio's ``q`` into each other, keep MuJoCo's data at a configuration's q
after every update (:class:`MujocoMirror`, given to ``taskik.Configuration(robot,
mirror=...)``), read a mocap body's pose as a ``pin.SE3`` target (:func:`mocap_se3`, and
mink's :meth:`SE3.from_mocap_id` and :meth:`SE3.from_mocap_name`), and put a mocap body at a
body, site or geom (:func:`move_mocap_to_frame`, also ``taskik.move_mocap_to_frame``).

MuJoCo itself is not a dependency: this module imports without it; the functions that take
MuJoCo's ``MjModel`` and ``MjData`` (named ``mj_model``, ``mj_data``) only read and write
their arrays, and :func:`write_configuration` and :class:`MujocoMirror` import ``mujoco`` to
run its kinematics.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from .configuration import Configuration, check_configuration, check_model
from .exceptions import InvalidInput, UnknownName, check_finite_array

__all__ = [
    "SE3",
    "MujocoMirror",
    "move_mocap_to_frame",
    "mocap_se3",
    "q_from_qpos",
    "qpos_from_q",
    "write_configuration",
]


def _layout(model: pin.Model) -> list[tuple[str, int, int]]:
    """Per joint of ``model``: its kind (``free``, ``ball``, ``plain``), index in q, nq."""
    layout = []
    for joint in list(model.joints)[1:]:
        kind = joint.shortname()
        if kind == "JointModelFreeFlyer":
            layout.append(("free", joint.idx_q, 7))
        elif kind == "JointModelSpherical":
            layout.append(("ball", joint.idx_q, 4))
        elif joint.nq == joint.nv:
            layout.append(("plain", joint.idx_q, joint.nq))
        else:
            raise InvalidInput(
                f"joint {model.names[joint.id]!r} ({kind}) has no MuJoCo counterpart: "
                "only free, ball, hinge and slide joints convert"
            )
    return layout


def _check_size(vector: npt.ArrayLike, size: int, name: str, model: pin.Model) -> np.ndarray:
    values = check_finite_array(vector, name)
    if values.shape != (size,):
        raise InvalidInput(
            f"{name} must have shape ({size},) for model {model.name!r}, got {values.shape} "
            "(a scene's free objects or other robots have joints of their own: convert the "
            "robot's part of qpos)"
        )
    return values


def q_from_qpos(model: pin.Model, qpos: npt.ArrayLike) -> np.ndarray:
    """Pinocchio's configuration of a MuJoCo ``qpos`` of the same MJCF model.

    Joint by joint, in the model's order (both libraries order joints depth-first in the
    file's order): a free joint's ``x, y, z, qw, qx, qy, qz`` becomes ``x, y, z, qx, qy, qz,
    qw``, a ball joint's ``qw, qx, qy, qz`` becomes ``qx, qy, qz, qw``, hinge and slide
    coordinates (rad, m) are copied.

    Args:
        model: the Pinocchio model built from the MJCF file (``pin.buildModelFromMJCF``).
        qpos: MuJoCo's ``data.qpos`` (or a keyframe's ``qpos``), size ``model.nq``.

    Returns:
        q, size ``model.nq``, for ``taskik.Configuration(model, q)`` or ``update(q)``.

    Raises:
        InvalidInput: qpos is not a finite vector of size ``model.nq``, or the model has a
            joint MuJoCo does not have.
    """
    model = check_model(model, "q_from_qpos")
    qpos = _check_size(qpos, model.nq, "qpos", model)
    q = qpos.copy()
    for kind, i, _ in _layout(model):
        if kind == "free":
            q[i + 3 : i + 7] = qpos[[i + 4, i + 5, i + 6, i + 3]]
        elif kind == "ball":
            q[i : i + 4] = qpos[[i + 1, i + 2, i + 3, i]]
    return q


def qpos_from_q(model: pin.Model, q: npt.ArrayLike) -> np.ndarray:
    """MuJoCo's ``qpos`` of a Pinocchio configuration: the inverse of :func:`q_from_qpos`.

    Args:
        model: the Pinocchio model built from the MJCF file.
        q: a configuration of ``model`` (``configuration.q``), size ``model.nq``.

    Returns:
        qpos, size ``model.nq``, to write into MuJoCo's ``data.qpos``.
    """
    model = check_model(model, "qpos_from_q")
    q = _check_size(q, model.nq, "q", model)
    qpos = q.copy()
    for kind, i, _ in _layout(model):
        if kind == "free":
            qpos[i + 3 : i + 7] = q[[i + 6, i + 3, i + 4, i + 5]]
        elif kind == "ball":
            qpos[i : i + 4] = q[[i + 3, i, i + 1, i + 2]]
    return qpos


def _mujoco_names(mj_model: Any, kind: str) -> list[str]:
    """The names of MuJoCo's ``body``, ``site`` or ``geom`` elements of ``mj_model``."""
    try:
        count = int(getattr(mj_model, "n" + kind))
        return [getattr(mj_model, kind)(k).name for k in range(count)]
    except (AttributeError, TypeError, ValueError):
        raise InvalidInput(
            f"mj_model must be MuJoCo's MjModel (its {kind} names are looked up), got "
            f"{type(mj_model).__name__}"
        ) from None


def _mocap_index(mj_model: Any, mocap: int | str) -> int:
    """The mocap index of a body given by name, or a mocap index (checked)."""
    if isinstance(mocap, str):
        names = _mujoco_names(mj_model, "body")
        if mocap not in names:
            raise UnknownName("body", mocap, names)
        index = int(mj_model.body(mocap).mocapid[0])
        if index < 0:
            raise InvalidInput(f'body {mocap!r} is not a mocap body (mocap="true" in the MJCF)')
        return index
    if isinstance(mocap, bool) or not isinstance(mocap, int | np.integer):
        raise InvalidInput(f"a mocap body is a name or a mocap index, got {mocap!r}")
    count = getattr(mj_model, "nmocap", None)
    if isinstance(count, bool) or not isinstance(count, int | np.integer):
        raise InvalidInput(
            f"mj_model must be MuJoCo's MjModel (with nmocap), got {type(mj_model).__name__}"
        )
    if not 0 <= mocap < count:
        raise InvalidInput(
            f"mocap index {mocap} is out of range: the model has {count} mocap bodies"
        )
    return int(mocap)


def mocap_se3(mj_model: Any, mj_data: Any, mocap: int | str) -> pin.SE3:
    """A mocap body's pose in the world, ``T_wm``, as a ``pin.SE3`` (a target for a task).

    The pose is ``mj_data.mocap_pos[i]`` (m) and ``mj_data.mocap_quat[i]`` (``w, x, y, z``,
    normalised here) with ``i`` the body's mocap index; mink's ``SE3.from_mocap_name`` and
    ``SE3.from_mocap_id``.

    Args:
        mj_model: MuJoCo's ``MjModel``.
        mj_data: MuJoCo's ``MjData`` of that model.
        mocap: the mocap body's name, or its mocap index (``mj_model.body(name).mocapid[0]``).

    Raises:
        UnknownName: no body of that name.
        InvalidInput: the body is not a mocap body, the index is out of range, or the
            quaternion is zero or not finite.
    """
    index = _mocap_index(mj_model, mocap)
    return _mocap_pose(mj_data, index, mocap, pin.SE3)


def _mocap_pose(mj_data: Any, index: int, label: object, kind: type[pin.SE3]) -> pin.SE3:
    """The pose of mocap body ``index`` of ``mj_data`` as a ``kind`` (checked values)."""
    try:
        position_row, quat_row = mj_data.mocap_pos[index], mj_data.mocap_quat[index]
    except (AttributeError, IndexError, KeyError, TypeError):
        raise InvalidInput(
            f"mj_data must be MuJoCo's MjData (with mocap_pos and mocap_quat), got "
            f"{type(mj_data).__name__}"
        ) from None
    position = check_finite_array(position_row, "mocap_pos", (3,))
    w, x, y, z = check_finite_array(quat_row, "mocap_quat", (4,))
    norm = float(np.sqrt(w * w + x * x + y * y + z * z))
    if norm == 0.0:
        raise InvalidInput(f"mocap body {label!r} has a zero quaternion")
    rotation = pin.Quaternion(w / norm, x / norm, y / norm, z / norm).toRotationMatrix()
    return kind(rotation, position.copy())


class SE3(pin.SE3):
    """``pin.SE3`` with mink's two constructors from a mocap body, so that mink's
    ``SE3.from_mocap_id(data, i)`` and ``SE3.from_mocap_name(model, data, name)`` run as
    written after ``import taskik as mink`` (the name is ``taskik.SE3``).

    Everything else is ``pin.SE3``'s: ``SE3(rotation, translation)`` (a 3×3 rotation matrix,
    a translation in m), ``SE3(T)`` of a 4×4 homogeneous matrix, ``*``, ``inverse()``,
    ``rotation`` and ``translation`` as properties (mink's are methods), and what they return
    is a ``pin.SE3``. mink's other constructors (``from_rotation_and_translation``,
    ``from_matrix``, ``identity``) are not here: ``pin.SE3(R, p)``, ``pin.SE3(T)``,
    ``pin.SE3.Identity()``.
    """

    @classmethod
    def from_mocap_id(cls, mj_data: Any, mocap_id: int) -> SE3:
        """The pose ``T_wm`` of the mocap body of mocap index ``mocap_id`` (mink's call).

        ``mj_data.mocap_pos[mocap_id]`` (m) and ``mj_data.mocap_quat[mocap_id]`` (``w, x,
        y, z``, normalised here); :func:`mocap_se3` with MuJoCo's model instead checks the
        index against the model and takes a name too.

        Args:
            mj_data: MuJoCo's ``MjData``.
            mocap_id: the mocap index (``mj_model.body(name).mocapid[0]``).

        Raises:
            InvalidInput: the index is not an integer in ``[0, nmocap)``, ``mj_data`` has no
                mocap arrays, or the pose is not finite or its quaternion zero.
        """
        if isinstance(mocap_id, bool) or not isinstance(mocap_id, int | np.integer):
            raise InvalidInput(
                f"mocap_id must be a mocap index (an integer), got {mocap_id!r} (a body's "
                "name: SE3.from_mocap_name(model, data, name))"
            )
        try:
            count = len(mj_data.mocap_pos)
        except (AttributeError, TypeError):
            raise InvalidInput(
                f"mj_data must be MuJoCo's MjData (with mocap_pos and mocap_quat), got "
                f"{type(mj_data).__name__}"
            ) from None
        index = _mocap_index(_MocapCount(count), mocap_id)
        return cast(SE3, _mocap_pose(mj_data, index, mocap_id, cls))

    @classmethod
    def from_mocap_name(cls, mj_model: Any, mj_data: Any, mocap_name: str) -> SE3:
        """The pose ``T_wm`` of the mocap body named ``mocap_name`` (mink's call):
        :func:`mocap_se3` as a ``taskik.SE3``.

        Args:
            mj_model: MuJoCo's ``MjModel``.
            mj_data: MuJoCo's ``MjData`` of that model.
            mocap_name: the body's name (``mocap="true"`` in the MJCF).

        Raises:
            UnknownName: no body of that name (the message lists the closest).
            InvalidInput: the body is not a mocap body, or its pose is not finite.
        """
        if not isinstance(mocap_name, str):
            raise InvalidInput(
                f"mocap_name must be a body's name, got {type(mocap_name).__name__} "
                f"{mocap_name!r} (an index: SE3.from_mocap_id(data, index))"
            )
        index = _mocap_index(mj_model, mocap_name)
        return cast(SE3, _mocap_pose(mj_data, index, mocap_name, cls))


class _MocapCount:
    """Stands for a model with ``nmocap`` mocap bodies, to check an index against the data."""

    def __init__(self, nmocap: int) -> None:
        self.nmocap = nmocap


def move_mocap_to_frame(
    mj_model: Any, mj_data: Any, mocap_name: str, frame_name: str, frame_type: str
) -> None:
    """Put a mocap body at a body, site or geom of MuJoCo's data (mink's function of the name).

    Copies the pose MuJoCo computed for the frame (``mj_data.site(name).xpos`` and
    ``.xmat``, and the same for a body or a geom) into the mocap body's ``mocap_pos`` and
    ``mocap_quat`` (``w, x, y, z``); MuJoCo's kinematics must be current
    (:func:`write_configuration`, or ``mujoco.mj_forward``).

    Args:
        mj_model: MuJoCo's ``MjModel``.
        mj_data: MuJoCo's ``MjData`` of that model.
        mocap_name: the mocap body to move.
        frame_name: the body, site or geom to put it at.
        frame_type: ``"body"``, ``"site"`` or ``"geom"``.

    Raises:
        UnknownName: no mocap body or frame of that name.
        InvalidInput: ``frame_type`` is none of the three, or the body is not a mocap body.
    """
    if not isinstance(frame_type, str) or frame_type not in ("body", "site", "geom"):
        raise InvalidInput(f'frame_type must be "body", "site" or "geom", got {frame_type!r}')
    if not isinstance(mocap_name, str):
        raise InvalidInput(
            f"mocap_name must be a mocap body's name, got {type(mocap_name).__name__} "
            f"{mocap_name!r}"
        )
    index = _mocap_index(mj_model, mocap_name)
    names = _mujoco_names(mj_model, frame_type)
    if not isinstance(frame_name, str) or frame_name not in names:
        raise UnknownName(frame_type, frame_name, names)
    try:
        frame = getattr(mj_data, frame_type)(frame_name)
        position = check_finite_array(frame.xpos, f"the {frame_type}'s position", (3,))
        rotation = check_finite_array(frame.xmat, f"the {frame_type}'s rotation").reshape(3, 3)
        mocap_pos, mocap_quat = mj_data.mocap_pos, mj_data.mocap_quat
    except (AttributeError, TypeError, KeyError, ValueError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(
            f"mj_data must be MuJoCo's MjData of mj_model (its {frame_type} {frame_name!r} "
            f"and mocap arrays are read), got {type(mj_data).__name__}"
        ) from None
    mocap_pos[index] = position
    x, y, z, w = pin.Quaternion(rotation).coeffs()
    mocap_quat[index] = [w, x, y, z]


def write_configuration(mj_model: Any, mj_data: Any, configuration: Configuration) -> None:
    """Write a taskik configuration into MuJoCo's data, for its viewer or its sensors.

    Sets ``mj_data.qpos`` to :func:`qpos_from_q` of ``configuration.q`` and runs MuJoCo's
    ``mj_kinematics`` and ``mj_comPos`` (the poses of bodies, sites and geoms, the subtree
    centres of mass), what mink's configuration does to its data on every update.

    Args:
        mj_model: MuJoCo's ``MjModel`` of the MJCF file the configuration's model was built
            from (a scene around the robot is fine if it adds no joints).
        mj_data: MuJoCo's ``MjData`` of that model.
        configuration: the taskik configuration.

    Raises:
        InvalidInput: the MuJoCo model does not have the configuration's number of
            coordinates.
    """
    configuration = check_configuration(configuration, "write_configuration")
    _write(_import_mujoco("write_configuration"), mj_model, mj_data, configuration)


def _import_mujoco(who: str) -> Any:
    """The ``mujoco`` module; an ImportError saying how to install it."""
    try:
        return importlib.import_module("mujoco")
    except ImportError as exc:
        raise ImportError(
            f"{who} runs MuJoCo's kinematics and needs MuJoCo: pip install mujoco "
            "(or taskik's bench extra)"
        ) from exc


def _write(mujoco: Any, mj_model: Any, mj_data: Any, configuration: Configuration) -> None:
    """:func:`write_configuration` with ``mujoco`` imported and the configuration checked."""
    qpos = qpos_from_q(configuration.model, configuration.q)
    nq = getattr(mj_model, "nq", None)
    if isinstance(nq, bool) or not isinstance(nq, int | np.integer):
        raise InvalidInput(
            f"mj_model must be MuJoCo's MjModel (with nq), got {type(mj_model).__name__}"
        )
    if nq != qpos.size:
        raise InvalidInput(
            f"the MuJoCo model has nq = {nq}, the configuration's model "
            f"{configuration.model.name!r} {qpos.size}: they are not the same robot"
        )
    target = getattr(mj_data, "qpos", None)
    if not isinstance(target, np.ndarray) or target.shape != (nq,):
        raise InvalidInput(
            f"mj_data must be MuJoCo's MjData of that model (qpos of shape ({nq},)), got "
            f"{type(mj_data).__name__}"
        )
    target[:] = qpos
    try:
        mujoco.mj_kinematics(mj_model, mj_data)
        mujoco.mj_comPos(mj_model, mj_data)
    except TypeError:
        raise InvalidInput(
            f"mj_model and mj_data must be MuJoCo's MjModel and MjData, got "
            f"{type(mj_model).__name__} and {type(mj_data).__name__}"
        ) from None


def _limited_slides(mujoco: Any, mj_model: Any) -> list[tuple[str, float, float]]:
    """Name and range (m) of every limited slide joint of ``mj_model``."""
    slides = []
    for j in range(int(mj_model.njnt)):
        if int(mj_model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_SLIDE) and bool(
            mj_model.jnt_limited[j]
        ):
            low, high = (float(x) for x in mj_model.jnt_range[j])
            slides.append((mj_model.joint(j).name, low, high))
    return slides


def _restore_slide_ranges(model: pin.Model, slides: list[tuple[str, float, float]]) -> None:
    """Give ``model``'s slide joints MuJoCo's ranges where Pinocchio scaled them by π/180."""
    fixed = []
    for name, low, high in slides:
        if not model.existJointName(name):
            continue
        i = model.joints[model.getJointId(name)].idx_q
        got = (model.lowerPositionLimit[i], model.upperPositionLimit[i])
        scaled = (low * np.pi / 180.0, high * np.pi / 180.0)
        if got != (low, high) and np.allclose(got, scaled, rtol=1e-9, atol=0.0):
            model.lowerPositionLimit[i], model.upperPositionLimit[i] = low, high
            fixed.append(f"{name} [{low:g}, {high:g}] m (was [{got[0]:.4g}, {got[1]:.4g}])")
    if fixed:
        warnings.warn(
            "the Pinocchio model's slide joint ranges were MuJoCo's times pi/180 "
            "(pinocchio.buildModelFromMJCF reads them as angles under "
            '<compiler angle="degree"/>): restored from the MuJoCo model: ' + "; ".join(fixed),
            UserWarning,
            stacklevel=4,
        )


class MujocoMirror:
    """MuJoCo's model and data kept at a taskik configuration's q: give it to
    ``taskik.Configuration(robot, mirror=MujocoMirror(mj_model, mj_data))``.

    After every update of the configuration (``update``, ``update_from_keyframe``,
    ``integrate_inplace``, and once at construction), :meth:`write` sets ``mj_data.qpos`` to
    the configuration's q (a free or ball joint's quaternion reordered to MuJoCo's ``w, x,
    y, z``) and runs MuJoCo's ``mj_kinematics`` and ``mj_comPos``: the poses of bodies, sites
    and geoms (m) and the subtree centres of mass are those of q, for MuJoCo's viewer, for
    :func:`move_mocap_to_frame` and for mocap targets placed at a site. That is what mink's
    configuration does to its own data; taskik's ``configuration.model`` and ``.data`` stay
    Pinocchio's, and ``mirror.model``, ``mirror.data`` are MuJoCo's.

    A configuration without a mirror runs no MuJoCo code. Give the mirror a data that is not
    being simulated: written at every update, its ``qpos`` is the IK configuration's.

    Args:
        mj_model: MuJoCo's ``MjModel`` of the MJCF file the robot's Pinocchio model was built
            from (a scene around the robot is fine if it adds no joints).
        mj_data: MuJoCo's ``MjData`` of ``mj_model``; None (default): a new one,
            ``mujoco.MjData(mj_model)``.

    Raises:
        ImportError: MuJoCo is not installed.
        InvalidInput: ``mj_model`` is not MuJoCo's model, or ``mj_data`` not its data; at the
            first write, the model has not the configuration's number of coordinates.
    """

    def __init__(self, mj_model: Any, mj_data: Any | None = None) -> None:
        self._mujoco = _import_mujoco("MujocoMirror")
        if not isinstance(mj_model, self._mujoco.MjModel):
            raise InvalidInput(
                f"MujocoMirror needs MuJoCo's MjModel, got {type(mj_model).__name__} (the "
                "Pinocchio model goes to taskik.Configuration)"
            )
        if mj_data is None:
            mj_data = self._mujoco.MjData(mj_model)
        elif not isinstance(mj_data, self._mujoco.MjData) or mj_data.qpos.shape != (mj_model.nq,):
            raise InvalidInput(
                f"MujocoMirror's mj_data must be MuJoCo's MjData of mj_model "
                f"(mujoco.MjData(mj_model)), got {type(mj_data).__name__}"
                + (" of another model" if isinstance(mj_data, self._mujoco.MjData) else "")
            )
        #: MuJoCo's ``MjModel``.
        self.model = mj_model
        #: MuJoCo's ``MjData``, at the configuration's q after every update.
        self.data = mj_data
        self._slides = _limited_slides(self._mujoco, mj_model)

    def write(self, configuration: Configuration) -> None:
        """Put ``self.data`` at the configuration's q: :func:`write_configuration`.

        First, where a limited slide joint's range in the Pinocchio model is MuJoCo's range
        times π/180 (``pinocchio.buildModelFromMJCF`` 4.1 converts slide ranges as angles
        under ``<compiler angle="degree"/>``, MuJoCo's default), the Pinocchio model gets
        MuJoCo's range (m) back, with a ``UserWarning`` naming the joints. Build limits
        (``ConfigurationLimit(model)``) after the configuration, as mink's examples do.

        Raises:
            InvalidInput: the MuJoCo model has not the configuration's number of coordinates.
        """
        if self._slides:
            _restore_slide_ranges(configuration.model, self._slides)
        _write(self._mujoco, self.model, self.data, configuration)

    def __repr__(self) -> str:
        return f"MujocoMirror(nq={self.model.nq}, nmocap={self.model.nmocap})"
