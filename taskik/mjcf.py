"""MuJoCo next to taskik: configuration vectors and mocap targets between the two.

A MuJoCo model file (MJCF) loads into Pinocchio with ``pinocchio.buildModelFromMJCF``; taskik
then solves on the Pinocchio model while MuJoCo keeps simulating and viewing. What differs
between the two is the order of a quaternion: MuJoCo writes a free or ball joint's
orientation ``w, x, y, z``, Pinocchio ``x, y, z, w``. These helpers convert MuJoCo's
``qpos`` and Pinocchio's ``q`` into each other, read a mocap body's pose as a ``pin.SE3``
target, and put a mocap body at a body, site or geom (the three things mink's examples use
MuJoCo for).

MuJoCo itself is not a dependency: the functions that take MuJoCo's ``MjModel`` and ``MjData``
(named ``mj_model``, ``mj_data``) only read and write their arrays, and
:func:`write_configuration` imports ``mujoco`` to run its kinematics.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from .configuration import Configuration
from .exceptions import InvalidInput, UnknownName, check_finite_array

__all__ = [
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
    q = _check_size(q, model.nq, "q", model)
    qpos = q.copy()
    for kind, i, _ in _layout(model):
        if kind == "free":
            qpos[i + 3 : i + 7] = q[[i + 6, i + 3, i + 4, i + 5]]
        elif kind == "ball":
            qpos[i : i + 4] = q[[i + 3, i, i + 1, i + 2]]
    return qpos


def _mocap_index(mj_model: Any, mocap: int | str) -> int:
    """The mocap index of a body given by name, or a mocap index (checked)."""
    if isinstance(mocap, str):
        names = [mj_model.body(b).name for b in range(mj_model.nbody)]
        if mocap not in names:
            raise UnknownName("body", mocap, names)
        index = int(mj_model.body(mocap).mocapid[0])
        if index < 0:
            raise InvalidInput(f'body {mocap!r} is not a mocap body (mocap="true" in the MJCF)')
        return index
    if isinstance(mocap, bool) or not isinstance(mocap, int | np.integer):
        raise InvalidInput(f"a mocap body is a name or a mocap index, got {mocap!r}")
    if not 0 <= mocap < mj_model.nmocap:
        raise InvalidInput(
            f"mocap index {mocap} is out of range: the model has {mj_model.nmocap} mocap bodies"
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
    position = check_finite_array(mj_data.mocap_pos[index], "mocap_pos")
    w, x, y, z = check_finite_array(mj_data.mocap_quat[index], "mocap_quat")
    norm = float(np.sqrt(w * w + x * x + y * y + z * z))
    if norm == 0.0:
        raise InvalidInput(f"mocap body {mocap!r} has a zero quaternion")
    rotation = pin.Quaternion(w / norm, x / norm, y / norm, z / norm).toRotationMatrix()
    return pin.SE3(rotation, position.copy())


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
    if frame_type not in ("body", "site", "geom"):
        raise InvalidInput(f'frame_type must be "body", "site" or "geom", got {frame_type!r}')
    index = _mocap_index(mj_model, mocap_name)
    count = getattr(mj_model, "n" + frame_type)
    names = [getattr(mj_model, frame_type)(k).name for k in range(count)]
    if frame_name not in names:
        raise UnknownName(frame_type, frame_name, names)
    frame = getattr(mj_data, frame_type)(frame_name)
    mj_data.mocap_pos[index] = frame.xpos
    x, y, z, w = pin.Quaternion(np.reshape(frame.xmat, (3, 3))).coeffs()
    mj_data.mocap_quat[index] = [w, x, y, z]


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
    qpos = qpos_from_q(configuration.model, configuration.q)
    if mj_model.nq != qpos.size:
        raise InvalidInput(
            f"the MuJoCo model has nq = {mj_model.nq}, the configuration's model "
            f"{configuration.model.name!r} {qpos.size}: they are not the same robot"
        )
    mujoco = importlib.import_module("mujoco")
    mj_data.qpos[:] = qpos
    mujoco.mj_kinematics(mj_model, mj_data)
    mujoco.mj_comPos(mj_model, mj_data)
