"""Robot configuration with its kinematics cache.

:class:`Configuration` is the only object in taskik that calls Pinocchio's kinematics
algorithms. One call to :meth:`Configuration.update` runs forward kinematics, all joint
Jacobians and frame placements once; every task and limit then reads from that cache.
The centre of mass and its Jacobian are computed on first request after an update.

This module is longer than 500 lines: besides the class, it holds the checks of q every
other module uses (sizes, unit quaternions, position ranges) and the entry points pink's
and mink's users call by name (``Configuration(model)`` at the model's ``qpos0``,
``update_from_keyframe``, ``tangent``); they share the class's private caches.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from .exceptions import (
    InvalidConfiguration,
    InvalidInput,
    NotWithinConfigurationLimits,
    TaskikError,
    UnknownName,
    check_finite_array,
    check_positive_scalar,
    check_scalar,
)
from .plan_cache import PlanCache

LOCAL = pin.ReferenceFrame.LOCAL

# (the kinematics pass of every update, bound once)
_joint_jacobians, _frame_placements = pin.computeJointJacobians, pin.updateFramePlacements
_FLOAT64 = np.dtype(np.float64)
_isfinite = math.isfinite

#: Tolerance on the norm of quaternions / unit complex numbers inside q.
UNIT_NORM_TOLERANCE = 1e-6


def _unit_norm_blocks(model: pin.Model) -> list[tuple[slice, str]]:
    """Slices of q that must be unit quaternions or unit complex numbers, with their kind."""
    blocks: list[tuple[slice, str]] = []
    for joint in model.joints[1:]:
        kind = joint.shortname()
        iq = joint.idx_q
        if kind == "JointModelFreeFlyer":
            blocks.append((slice(iq + 3, iq + 7), "quaternion"))
        elif kind == "JointModelSpherical":
            blocks.append((slice(iq, iq + 4), "quaternion"))
        elif kind == "JointModelPlanar":
            blocks.append((slice(iq + 2, iq + 4), "unit complex"))
        elif joint.nq == 2 and joint.nv == 1:  # unbounded (continuous) revolute joints
            blocks.append((slice(iq, iq + 2), "unit complex"))
    return blocks


#: Attributes a Configuration gives a model that has none, ``name → factory(model)`` (pink's
#: ``model.configuration_limit``, ``velocity_limit``, filled by :mod:`taskik.limits`).
MODEL_ATTRIBUTES: dict[str, Callable[[pin.Model], object]] = {}


#: Kinds of root joint that make a robot's base (floating or mobile) rather than its first joint.
BASE_JOINT_KINDS = ("JointModelFreeFlyer", "JointModelPlanar", "JointModelTranslation")


def base_velocity_count(model: pin.Model) -> int:
    """Number of velocity coordinates of the robot's base, the first ``v[:n]``; 0 without one.

    The base is the root joint (the model's first joint) when it is a free flyer, a planar
    joint (mobile base: x, y, yaw), a 3-D translation, or is named ``"root_joint"``
    (Pinocchio's name for the root joint given to ``buildModelFromUrdf``, pink's test). The
    first revolute joint of a fixed-base arm is not a base.
    """
    if model.njoints < 2:
        return 0
    root = model.joints[1]
    if root.shortname() in BASE_JOINT_KINDS or model.names[1] == "root_joint":
        return int(root.nv)
    return 0


def _check_unit_norms(blocks: list[tuple[slice, str]], q: np.ndarray | list[float]) -> None:
    """Raise :class:`InvalidConfiguration` naming the first block of q that is not unit-norm
    (q as an array or as a list of floats: ``math.hypot`` of a few floats is the cheapest)."""
    for sl, what in blocks:
        norm = math.hypot(*q[sl])
        if abs(norm - 1.0) > UNIT_NORM_TOLERANCE:
            raise InvalidConfiguration(
                f"{what} q[{sl.start}:{sl.stop}] has norm {norm:.6g}, expected 1 "
                "(use pinocchio.normalize(model, q))"
            )


def finite_limit_mask(values: np.ndarray) -> np.ndarray:
    """Pinocchio writes 'no limit' as ±max double; treat |x| ≥ 1e300 as unbounded."""
    return np.isfinite(values) & (np.abs(values) < 1e300)


def check_configuration(configuration: object, who: str) -> Configuration:
    """``configuration`` when it is a :class:`Configuration`; :class:`InvalidInput` naming
    ``who`` (and the fix, when a pinocchio model was given) otherwise."""
    if isinstance(configuration, Configuration):
        return configuration
    hint = (
        " (wrap the model: taskik.Configuration(model, q))"
        if isinstance(configuration, pin.Model)
        else ""
    )
    raise InvalidInput(
        f"{who} needs a taskik.Configuration, got {type(configuration).__name__}{hint}"
    )


def check_model(model: object, who: str) -> pin.Model:
    """``model`` when it is a ``pinocchio.Model``; :class:`InvalidInput` naming ``who`` (and,
    for MuJoCo's ``MjModel``, how to build Pinocchio's model of the same MJCF file)."""
    if not isinstance(model, pin.Model):
        hint = ""
        if type(model).__name__ == "MjModel":
            hint = (
                ": taskik works on Pinocchio's model of the same MJCF file, "
                'robot = pinocchio.buildModelFromMJCF("robot.xml") (the robot\'s file, not a '
                "scene that <include>s it); keep MuJoCo's model and data for simulating and "
                "viewing, in step with the configuration through "
                "Configuration(robot, mirror=taskik.mjcf.MujocoMirror(mj_model, mj_data))"
            )
        raise InvalidInput(f"{who} needs a pinocchio.Model, got {type(model).__name__}{hint}")
    return model


def q_shape_message(what: str, shape: tuple[int, ...], model: pin.Model) -> str:
    """Why a vector of ``shape`` is not a configuration of ``model`` (``what`` names it):
    a vector of another model's size, a velocity (nv values) given for a configuration,
    or several configurations at once."""
    nq, nv = model.nq, model.nv
    label = f"the model {model.name!r}" if model.name else "the model"
    rule = f"{what} must have shape ({nq},) for {label}"
    if len(shape) != 1:
        rows = " (several configurations? give one row)" if shape[-1:] == (nq,) else ""
        return f"{rule}, got an array of shape {shape}{rows}"
    n = shape[0]
    if n == nv != nq:
        return (
            f"{what} has {n} values, nv of {label} (the size of a velocity), but a "
            f"configuration has nq = {nq} ({rule}); a velocity moves q through "
            "configuration.integrate(v, dt)"
        )
    return f"{what} has {n} values but {label} has nq = {nq}: it belongs to another model ({rule})"


def velocity_index_name(model: pin.Model, i: int) -> str:
    """Name of the joint that owns velocity index ``i`` (with the DoF when it has several);
    :class:`InvalidInput` unless ``i`` is an int in [0, nv) (a bool or a float is refused)."""
    if not isinstance(model, pin.Model):
        raise InvalidInput(f"velocity_index_name needs a pinocchio.Model, got {model!r}")
    if (
        not isinstance(i, int | np.integer)
        or isinstance(i, bool | np.bool_)
        or not 0 <= i < model.nv
    ):
        raise InvalidInput(f"velocity index i must be an int in [0, {model.nv}), got {i!r}")
    for jid in range(1, model.njoints):
        j = model.joints[jid]
        if j.idx_v <= i < j.idx_v + j.nv:
            name = model.names[jid]
            return name if j.nv == 1 else f"{name}[{i - j.idx_v}]"
    return f"v[{i}]"


class Tangent:
    """Constant arrays of the tangent space (dimension nv), pink's ``configuration.tangent``:
    ``eye`` (nv × nv), ``ones`` and ``zeros`` (nv), all read-only."""

    __slots__ = ("dim", "eye", "ones", "zeros")

    def __init__(self, nv: int) -> None:
        self.dim = nv
        self.eye, self.ones, self.zeros = np.eye(nv), np.ones(nv), np.zeros(nv)
        for array in (self.eye, self.ones, self.zeros):
            array.flags.writeable = False


def one_coordinate_joints(model: pin.Model) -> list[tuple[int, int]]:
    """``(index in q, index in v)`` of every joint with one coordinate moved by one velocity
    (revolute, prismatic), the ones inside a composite joint included: MJCF's body with
    several ``<joint>`` elements is one ``JointModelComposite`` in Pinocchio, whose hinges
    and slides each keep their own coordinate and range."""
    found: list[tuple[int, int]] = []
    for joint in model.joints[1:]:
        if joint.nq == 1 and joint.nv == 1:
            found.append((joint.idx_q, joint.idx_v))
        elif joint.shortname() == "JointModelComposite":
            for part in joint.extract().joints:
                if part.nq == 1 and part.nv == 1:
                    found.append((part.idx_q, part.idx_v))
    return found


def limit_bytes(model: pin.Model) -> tuple[bytes, bytes]:
    """The model's position limits as they are now, ``lowerPositionLimit`` and
    ``upperPositionLimit`` as bytes: state read from them is current while these compare
    equal (bit for bit, about 0.5 µs; ``np.array_equal`` costs 12 µs on Talos)."""
    return model.lowerPositionLimit.tobytes(), model.upperPositionLimit.tobytes()


class PositionRanges:
    """The finite position ranges ``[lower, upper]`` of a model's 1-DoF joints (revolute,
    prismatic, and those inside a composite joint: :func:`one_coordinate_joints`):
    ``q[q_indices]`` is bounded, ``v[v_indices]`` moves it. Continuous joints, spherical
    joints and the floating base have no such range and are left out.

    Raises:
        InvalidInput: a joint's lower limit is above its upper limit.
    """

    __slots__ = ("model", "q_indices", "v_indices", "lower", "upper", "_seen")

    def __init__(self, model: pin.Model) -> None:
        iq: list[int] = []
        iv: list[int] = []
        lo, hi = model.lowerPositionLimit, model.upperPositionLimit
        for k, kv in one_coordinate_joints(model):
            if finite_limit_mask(lo[k : k + 1])[0] and finite_limit_mask(hi[k : k + 1])[0]:
                iq.append(k)
                iv.append(kv)
        self.model = model
        self.q_indices = np.array(iq, dtype=int)
        self.v_indices = np.array(iv, dtype=int)
        self.lower = np.array(lo[self.q_indices], dtype=float)
        self.upper = np.array(hi[self.q_indices], dtype=float)
        self._seen = limit_bytes(model)
        bad = np.flatnonzero(self.lower > self.upper)
        if bad.size:
            k = self.q_indices[bad[0]]
            raise InvalidInput(f"joint position limits at q[{k}] have lower > upper")

    def current(self) -> bool:
        """Whether the model's limits still equal those these ranges were read from (a
        model whose ``lowerPositionLimit`` or ``upperPositionLimit`` was edited in place
        must be read again: kept state follows values, not the model object)."""
        return limit_bytes(self.model) == self._seen

    def check(self, q: np.ndarray, tol: float = 1e-6) -> None:
        """Raise :class:`NotWithinConfigurationLimits` naming the first joint out of range."""
        if type(tol) is not float or not 0.0 <= tol < math.inf:
            tol = check_scalar(tol, "tol", 0.0)
        qs = np.asarray(q)[self.q_indices]
        bad = np.flatnonzero((qs < self.lower - tol) | (qs > self.upper + tol))
        if bad.size:
            k = bad[0]
            name = velocity_index_name(self.model, self.v_indices[k])
            raise NotWithinConfigurationLimits(
                f"joint {name} at {qs[k]:.6g} is outside [{self.lower[k]:.6g}, {self.upper[k]:.6g}]"
            )


class ConfigurationMirror(Protocol):
    """What a configuration keeps in step with its q: an object with ``write(configuration)``,
    called at the end of every :meth:`Configuration.update` (so after ``update_from_keyframe``
    and ``integrate_inplace`` too). :class:`taskik.mjcf.MujocoMirror` is one: it writes q into
    MuJoCo's data, for its viewer and its mocap bodies."""

    def write(self, configuration: Configuration) -> None:
        """Take the configuration's new q (its kinematics are up to date)."""


def _check_mirror(mirror: object) -> ConfigurationMirror | None:
    """``mirror`` when it is None or has a ``write`` method; :class:`InvalidInput` otherwise."""
    if mirror is not None and not callable(getattr(mirror, "write", None)):
        raise InvalidInput(
            "mirror must be an object with a write(configuration) method, such as "
            "taskik.mjcf.MujocoMirror(mj_model, mj_data), or None; got "
            f"{type(mirror).__name__}"
        )
    return mirror  # type: ignore[return-value]


class Configuration:
    """A robot model, its data and a configuration ``q``, with cached kinematics.

    ``q`` is rebound, never written in place: :meth:`update` and :meth:`integrate_inplace`
    give ``configuration.q`` a new array (as pink does): an array you hold (a log of q, the q
    you passed in) keeps its values. As pink's, the constructor gives a model without them
    ``model.configuration_limit``, ``model.velocity_limit`` (unless pink is imported).

    Besides the kinematics, a configuration owns ``plans`` (a ``taskik.plan_cache.PlanCache``):
    what the solvers build once per task list and reuse at every step (stacked buffers,
    priority layouts, warm-started QP workspaces). It never changes a result, only the time
    to get it; :meth:`copy` starts with an empty one.

    Args:
        model: Pinocchio model.
        q: configuration vector, size ``model.nq``. Quaternions (free-flyer, spherical
            joints) and the (cos, sin) pairs of continuous joints must be normalised.
            Omitted: the model's reference configuration ``"qpos0"`` if it has one (a model
            built from MJCF does: MuJoCo's ``qpos0``, where mink starts), else
            ``pinocchio.neutral(model)``.
        data: Pinocchio data to reuse; a new one is created when omitted. pink's order,
            ``Configuration(model, data, q)``, is accepted too.
        mirror: keyword only: an object whose ``write(configuration)`` runs after every
            update of q (``update``, ``update_from_keyframe``, ``integrate_inplace``, and
            once here), e.g. ``taskik.mjcf.MujocoMirror(mj_model, mj_data)``, which keeps
            MuJoCo's data at the same configuration, as mink's configuration keeps its own.
            None (default): nothing but Pinocchio's kinematics runs. :meth:`copy` has none.
            ``model`` and ``data`` stay Pinocchio's either way.

    Raises:
        InvalidConfiguration: q has the wrong size, contains NaN/inf or an unnormalised
            quaternion.
        InvalidInput: ``model`` is not a Pinocchio model (MuJoCo's ``MjModel``: the message
            says how to build Pinocchio's), or ``mirror`` has no ``write`` method.
    """

    def __init__(
        self,
        model: pin.Model,
        q: npt.ArrayLike | None = None,
        data: pin.Data | None = None,
        *,
        mirror: ConfigurationMirror | None = None,
    ) -> None:
        check_model(model, "Configuration")
        if isinstance(q, pin.Data) and data is not None and not isinstance(data, pin.Data):
            q, data = data, q  # pink's order, Configuration(model, data, q)
        if isinstance(q, pin.Data) or isinstance(data, np.ndarray | list | tuple):
            raise InvalidInput(
                "the arguments are Configuration(model, q, data=None): q comes second"
            )
        if q is None:
            references = model.referenceConfigurations
            q = references["qpos0"] if "qpos0" in references else pin.neutral(model)
        if data is not None and not (isinstance(data, pin.Data) and model.check(data)):
            raise InvalidInput(
                f"data must be a pinocchio.Data of model {model.name!r} (model.createData()), "
                f"got {type(data).__name__}"
                + (" of another model" if isinstance(data, pin.Data) else "")
            )
        self.model = model
        self.data = data if data is not None else model.createData()
        self._bind_views()
        self._nframes = model.nframes
        self._nv = model.nv
        self._q_shape = (model.nq,)
        self._unit_slices = _unit_norm_blocks(model)
        self._frame_ids = {f.name: i for i, f in enumerate(model.frames)}
        self._joint_ids = {name: i for i, name in enumerate(model.names)}
        self._position_ranges: PositionRanges | None = None
        self._tangent: Tangent | None = None
        #: The solvers' plans for the task lists solved on this configuration.
        self.plans = PlanCache()
        # LOCAL frame Jacobians of this update, by frame id (other reference frames: (id, frame))
        self._frame_jacobians: dict[int | tuple[int, pin.ReferenceFrame], np.ndarray] = {}
        self.q: np.ndarray = np.empty(model.nq)  # (rebound by every change, see above)
        self._updates = 0  # number of kinematics passes (every change of q is one)
        # (update count, v, dt) when q last moved by integrate_inplace(v, dt), else None
        self._last_step: tuple[int, np.ndarray, float] | None = None
        self._mirror = _check_mirror(mirror)
        self.update(q)
        for name, factory in MODEL_ATTRIBUTES.items():  # (not for pink: it would take them)
            if not hasattr(model, name) and "pink" not in sys.modules:
                with contextlib.suppress(AttributeError, TaskikError):
                    setattr(model, name, factory(model))

    def _bind_views(self) -> None:
        """Bind the views into ``data`` that every update rewrites in place: the frame
        placements (read by tasks at every step), the CoM and its Jacobian, and (filled by
        :meth:`_placements`) references to named frames' placements."""
        data = self.data
        self._oMf = data.oMf
        self._com_view: np.ndarray = data.com[0]
        Jcom = data.Jcom
        self._jcom_view: np.ndarray = Jcom if Jcom.ndim == 2 else Jcom.reshape(3, 1)
        self._placement_refs: dict[tuple[str, ...], list[pin.SE3]] = {}

    _VIEWS = ("_oMf", "_com_view", "_jcom_view", "_placement_refs")

    def __getstate__(self) -> dict[str, object]:
        # (a copy or a pickle would turn the views into arrays of their own, no longer
        # written by the copy's updates: they are bound again to the copy's data)
        return {k: v for k, v in self.__dict__.items() if k not in self._VIEWS}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._bind_views()

    # ------------------------------------------------------------------ state
    @property
    def nq(self) -> int:
        """Size of the configuration vector."""
        return self.model.nq

    @property
    def nv(self) -> int:
        """Size of the tangent space (joint velocities), the decision variable of a step."""
        return self.model.nv

    def check_q(self, q: npt.ArrayLike) -> np.ndarray:
        """Return q as a float array; raise :class:`InvalidConfiguration` saying what is wrong."""
        if type(q) is not np.ndarray or q.dtype != np.float64:
            if isinstance(q, str | bytes):
                raise InvalidConfiguration(f"q must be a real vector, got {q!r}")
            try:
                q = check_finite_array(q, "q")
            except InvalidInput as exc:
                raise InvalidConfiguration(f"{exc} (q must be a numeric vector)") from None
        if q.shape != (self.model.nq,):
            raise InvalidConfiguration(q_shape_message("q", q.shape, self.model))
        values = q.tolist()
        if not math.isfinite(sum(values)) and not np.isfinite(q).all():
            bad = np.flatnonzero(~np.isfinite(q))
            raise InvalidConfiguration(f"q contains NaN or inf at index {bad.tolist()}")
        if self._unit_slices:
            _check_unit_norms(self._unit_slices, values)
        return q

    def update(self, q: npt.ArrayLike | None = None) -> None:
        """Set q (if given: a copy, ``configuration.q`` a new array) and run the kinematics
        pass: FK, joint Jacobians, frame placements."""
        if q is not None:
            # (the common case checked inline, as check_q checks it: a float64 vector of the
            # model's size whose sum is finite; anything else takes check_q)
            if (
                type(q) is np.ndarray
                and q.dtype is _FLOAT64
                and q.shape == self._q_shape
                and _isfinite(sum(values := q.tolist()))
            ):
                if self._unit_slices:
                    _check_unit_norms(self._unit_slices, values)
                self.q = q.copy()
            else:
                self.q = np.array(self.check_q(q))
        model, data = self.model, self.data
        _joint_jacobians(model, data, self.q)
        _frame_placements(model, data)
        self._frame_jacobians.clear()
        self._com_ready = False
        self._updates += 1
        self._last_step = None
        if self._mirror is not None:
            self._mirror.write(self)

    @property
    def mirror(self) -> ConfigurationMirror | None:
        """What the configuration keeps in step with q after every update (see the
        constructor's ``mirror``), or None. Setting one writes the current q into it."""
        return self._mirror

    @mirror.setter
    def mirror(self, mirror: ConfigurationMirror | None) -> None:
        self._mirror = _check_mirror(mirror)
        if self._mirror is not None:
            self._mirror.write(self)

    def update_from_keyframe(self, name: str) -> None:
        """Set q to the model's reference configuration ``name`` and run the kinematics.

        A reference configuration is an MJCF ``<key name=...>`` (``buildModelFromMJCF``
        reorders its quaternions) or an SRDF group state; mink's method of the same name.

        Raises:
            UnknownName: the model has no reference configuration of that name.
        """
        references = self.model.referenceConfigurations
        if not isinstance(name, str) or name not in references:
            raise UnknownName("keyframe", name, [entry.key() for entry in references])
        self.update(references[name])

    @property
    def tangent(self) -> Tangent:
        """pink's ``configuration.tangent``: ``eye``, ``ones``, ``zeros`` of size nv."""
        if self._tangent is None:
            self._tangent = Tangent(self.model.nv)
        return self._tangent

    # ------------------------------------------------------------ names → ids
    def get_frame_id(self, name: str) -> int:
        """Index of frame ``name``; :class:`UnknownName` lists close matches if absent."""
        try:
            return self._frame_ids[name]
        except KeyError:
            raise UnknownName("frame", name, self._frame_ids) from None
        except TypeError:
            raise InvalidInput(
                f"a frame name must be a string, got {type(name).__name__} {name!r}"
            ) from None

    def _frame_index(self, frame: str | int) -> int:
        """The index of a frame given by name or by index (checked)."""
        if type(frame) is int and 0 <= frame < self._nframes:
            return frame
        if isinstance(frame, str):
            return self.get_frame_id(frame)
        if isinstance(frame, int | np.integer) and not isinstance(frame, bool):
            if 0 <= frame < self._nframes:
                return int(frame)
            raise InvalidInput(f"frame index {frame} is out of range [0, {self._nframes})")
        raise InvalidInput(f"a frame is a name or an index, got {type(frame).__name__} {frame!r}")

    def get_joint_id(self, name: str) -> int:
        """Index of joint ``name``; :class:`UnknownName` lists close matches if absent."""
        try:
            return self._joint_ids[name]
        except KeyError:
            raise UnknownName("joint", name, self.model.names[1:]) from None
        except TypeError:
            raise InvalidInput(
                f"a joint name must be a string, got {type(name).__name__} {name!r}"
            ) from None

    # ------------------------------------------------------------- kinematics
    def get_transform_frame_to_world(self, frame: str | int) -> pin.SE3:
        """Placement ``oMf`` of a frame in the world (a copy), from the cached kinematics."""
        return pin.SE3(self.data.oMf[self._frame_index(frame)])

    def get_transform(self, frame: str | int, root: str | int) -> pin.SE3:
        """Placement of ``frame`` expressed in ``root``: ``rootMframe = oMroot⁻¹ oMframe``."""
        fid, rid = self._frame_index(frame), self._frame_index(root)
        return self.data.oMf[rid].actInv(self.data.oMf[fid])

    def get_frame_jacobian(
        self, frame: str | int, reference_frame: pin.ReferenceFrame = LOCAL
    ) -> np.ndarray:
        """Frame Jacobian (6 × nv, twist ``[v; ω]``), cached until the next update.

        With ``LOCAL`` (default) ``J v`` is the body twist of the frame, expressed in the frame.
        Do not modify the returned array.
        """
        fid = self._frame_index(frame)
        if reference_frame is LOCAL:
            return self._local_frame_jacobian(fid)
        if not isinstance(reference_frame, pin.ReferenceFrame):
            raise InvalidInput(
                "reference_frame must be a pinocchio.ReferenceFrame (pin.LOCAL, pin.WORLD, "
                f"pin.LOCAL_WORLD_ALIGNED), got {reference_frame!r}"
            )
        J = self._frame_jacobians.get((fid, reference_frame))
        return self._frame_jacobian(fid, reference_frame) if J is None else J

    def _local_frame_jacobian(self, fid: int) -> np.ndarray:
        """:meth:`get_frame_jacobian` in ``LOCAL`` of a valid frame index (no checks)."""
        J = self._frame_jacobians.get(fid)
        return self._frame_jacobian(fid, LOCAL) if J is None else J

    def _frame_jacobian(self, fid: int, reference_frame: pin.ReferenceFrame) -> np.ndarray:
        """``pin.getFrameJacobian``, kept until the next update (under ``fid`` for LOCAL)."""
        if not self._nv:  # (Pinocchio 4.1 crashes on a model without degrees of freedom)
            J = np.zeros((6, 0))
        else:
            J = pin.getFrameJacobian(self.model, self.data, fid, reference_frame)
        if J.ndim == 1:  # one degree of freedom: Pinocchio returns the column as a vector
            J = J.reshape(6, 1)
        self._frame_jacobians[fid if reference_frame is LOCAL else (fid, reference_frame)] = J
        return J

    def _ensure_com(self) -> None:
        if not self._com_ready:
            # Uses the joint placements and Jacobians of the last update: no new FK pass.
            pin.jacobianCenterOfMass(self.model, self.data, False)
            self._com_ready = True

    @property
    def com(self) -> np.ndarray:
        """Centre of mass position in the world frame (m), shape (3,)."""
        self._ensure_com()
        return self._com_view.copy()

    @property
    def com_jacobian(self) -> np.ndarray:
        """Centre of mass Jacobian (3 × nv): ``ċ = Jcom v``. Do not modify (the data's
        own array: the next update's CoM Jacobian is written into it)."""
        self._ensure_com()
        return self._jcom_view  # (one degree of freedom: Pinocchio's vector as a column)

    def _placements(self, names: tuple[str, ...]) -> list[pin.SE3]:
        """The placements ``oMf`` of the frames ``names``, as references into the data that
        every update rewrites (found once per tuple of names in this configuration's name →
        index map; :class:`UnknownName` for a frame the model does not have)."""
        refs = self._placement_refs.get(names)
        if refs is None:
            refs = [self._oMf[self.get_frame_id(name)] for name in names]
            self._placement_refs[names] = refs
        return refs

    # ------------------------------------------------------------ integration
    def _check_step(self, v: npt.ArrayLike, dt: float) -> tuple[np.ndarray, float]:
        if not (
            type(v) is np.ndarray
            and v.shape == (self.model.nv,)
            and v.dtype == np.float64
            and math.isfinite(sum(v.tolist()))  # (no overflow warning for huge finite v)
        ):
            v = check_finite_array(v, "v", (self.model.nv,))
        if not (type(dt) is float and 0.0 < dt < math.inf):
            dt = check_positive_scalar(dt, "dt")
        return v, dt

    def integrate(self, v: npt.ArrayLike, dt: float) -> np.ndarray:
        """Return ``q ⊕ v·dt`` (``pin.integrate``: quaternions, continuous joints)."""
        return self._integrate(*self._check_step(v, dt))

    def _integrate(self, v: np.ndarray, dt: float) -> np.ndarray:
        """:meth:`integrate` of a checked ``v`` and ``dt``."""
        q = pin.integrate(self.model, self.q, v * dt)
        if self._unit_slices:
            q = pin.normalize(self.model, q)
        if not math.isfinite(sum(q.tolist())) and not np.isfinite(q).all():
            raise InvalidInput(
                f"q ⊕ v·dt is not finite (max |v·dt| = {np.abs(v).max() * dt:.3g}): "
                "the step is too large to integrate"
            )
        return q

    def integrate_inplace(self, v: npt.ArrayLike, dt: float) -> None:
        """Set ``q ← q ⊕ v·dt`` (``configuration.q`` a new array, as in pink: arrays read from
        it before keep their values) and update the kinematics."""
        v, dt = self._check_step(v, dt)
        self.q = self._integrate(v, dt)
        self.update()
        self._last_step = (self._updates, v, dt)

    # ---------------------------------------------------------------- limits
    def check_limits(self, tol: float = 1e-6) -> None:
        """Raise :class:`NotWithinConfigurationLimits` if a bounded joint is outside its range
        (by more than ``tol``)."""
        ranges = self._position_ranges
        if ranges is None or not ranges.current():  # (a model's limits edited in place)
            ranges = self._position_ranges = PositionRanges(self.model)
        ranges.check(self.q, tol)

    def copy(self) -> Configuration:
        """An independent configuration on the same model (without the mirror)."""
        return Configuration(self.model, self.q.copy())

    def __repr__(self) -> str:
        return f"Configuration(model={self.model.name!r}, nq={self.nq}, nv={self.nv})"


def custom_configuration_vector(
    robot: object,
    values: Mapping[str, npt.ArrayLike] | None = None,
    /,
    **joints: npt.ArrayLike,
) -> np.ndarray:
    """A configuration vector with the named joints set, the others neutral (pink's helper).

    ``custom_configuration_vector(model, shoulder_lift_joint=-1.2, elbow_joint=1.0)``; names
    that are not Python identifiers go in a mapping, ``(model, {"joint-1": 0.3})``. A value has
    the joint's ``nq`` coordinates, or, for the joints whose q is not their angle: a scalar
    angle (rad) for a continuous joint (stored as cos, sin) and ``[x, y, θ]`` (m, m, rad) for a
    planar joint (stored as x, y, cos θ, sin θ).

    Args:
        robot: a ``pinocchio.Model``, or an object with a ``model`` (a ``RobotWrapper``, a
            ``taskik.robots.Robot``).

    Raises:
        UnknownName: a joint is not in the model (with the closest names).
        InvalidInput: a value has the wrong size, or ``values`` is not a mapping.
        InvalidConfiguration: a quaternion or (cos, sin) pair given raw is not unit-norm.
    """
    model = check_model(getattr(robot, "model", robot), "custom_configuration_vector")
    if values is not None and not isinstance(values, Mapping):
        raise InvalidInput(
            "custom_configuration_vector takes its joint values as a mapping "
            f"{{joint name: value}} or as keywords, got {type(values).__name__} {values!r:.60}"
        )
    q = pin.neutral(model)
    names = list(model.names)
    for name, value in {**(values or {}), **joints}.items():
        if not isinstance(name, str) or name not in names[1:]:
            raise UnknownName("joint", name, names[1:])
        joint = model.joints[names.index(name)]
        x = check_finite_array(value, f"value of joint {name}").reshape(-1)
        if joint.nq == 2 and joint.nv == 1 and x.size == 1:  # continuous joint: an angle
            x = np.array([math.cos(x[0]), math.sin(x[0])])
        elif joint.shortname() == "JointModelPlanar" and x.size == 3:  # x, y, θ
            x = np.array([x[0], x[1], math.cos(x[2]), math.sin(x[2])])
        if x.size != joint.nq:
            raise InvalidInput(
                f"joint {name} ({joint.shortname()}) has {joint.nq} configuration "
                f"coordinates, got {x.size} values"
            )
        q[joint.idx_q : joint.idx_q + joint.nq] = x
    _check_unit_norms(_unit_norm_blocks(model), q)
    return q
