"""Robot models: bundled ones built from published parameters, URDF files, and, with the
``robots`` extra, the models of example-robot-data."""

from __future__ import annotations

import builtins
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, check_model
from ..exceptions import InvalidInput, UnknownName, check_finite_array
from ..geometry import fit_capsules
from . import buss, models, parsed


@dataclass
class Robot:
    """A loaded robot: its Pinocchio model, a reference configuration and its end effectors.

    ``collision_model`` is its collision geometry (the URDF's for example-robot-data robots
    and URDF files, capsules fitted to the links for bundled robots) and ``srdf`` the SRDF
    file whose disabled pairs self-collision avoidance skips (None when there is none).
    """

    name: str
    model: pin.Model
    q0: np.ndarray
    end_effectors: tuple[str, ...] = ()
    visual_model: pin.GeometryModel | None = field(default=None, repr=False)
    collision_model: pin.GeometryModel | None = field(default=None, repr=False)
    srdf: Path | None = None

    def configuration(self, q: np.ndarray | None = None) -> Configuration:
        """A :class:`Configuration` at ``q`` (``q0`` by default)."""
        return Configuration(self.model, self.q0.copy() if q is None else q)

    def random_configuration(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A random q inside the joint limits (bounded joints) or ``q0`` ± π (others)."""
        return random_configuration(self.model, self.q0, rng)


def random_configuration(
    model: pin.Model, q0: np.ndarray, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Uniform sample within the finite joint limits (``q0`` ± π for unbounded 1-DoF joints);
    continuous joints uniform on the circle; a free-flyer at ``q0``'s position ± 0.1 m with the
    orientation ``exp3(ω)``, each component of ω uniform in ±0.3 rad. ``rng``: a numpy
    Generator, a seed (int) or None."""
    check_model(model, "random_configuration")
    q0 = check_finite_array(q0, "q0", (model.nq,))
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        rng = np.random.default_rng(rng) if rng >= 0 else None
        if rng is None:
            raise InvalidInput("a seed must be >= 0")
    if not (rng is None or isinstance(rng, np.random.Generator)):
        raise InvalidInput(f"rng must be a numpy Generator, a seed or None, got {rng!r}")
    rng = np.random.default_rng() if rng is None else rng
    q = np.array(q0, dtype=float)
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    for joint in model.joints[1:]:
        iq = joint.idx_q
        if joint.nq == 1:
            a, b = lo[iq], hi[iq]
            if abs(a) > 1e300 or abs(b) > 1e300:
                a, b = q0[iq] - np.pi, q0[iq] + np.pi
            q[iq] = rng.uniform(a, b)
        elif joint.nq == 2 and joint.nv == 1:
            t = rng.uniform(-np.pi, np.pi)
            q[iq : iq + 2] = np.cos(t), np.sin(t)
        elif joint.shortname() == "JointModelFreeFlyer":
            q[iq : iq + 3] += rng.uniform(-0.1, 0.1, 3)
            quat = pin.Quaternion(pin.exp3(rng.uniform(-0.3, 0.3, 3)))
            q[iq + 3 : iq + 7] = quat.coeffs()
    return q


def _buss_y() -> Robot:
    model = buss.build_y()
    return Robot("buss_y", model, np.zeros(model.nq), ("effector_1", "effector_2"))


def _buss_double_y() -> Robot:
    model = buss.build_double_y()
    names = tuple(name for name, _, _ in buss.DOUBLE_Y_EFFECTORS)
    return Robot("buss_double_y", model, np.zeros(model.nq), names)


def _ur5() -> Robot:
    model = models.build_ur5()
    q0 = np.array([0.0, -np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, 0.0])
    return Robot("ur5", model, q0, ("tool0",), None, fit_capsules(model, 0.05))


def _panda() -> Robot:
    model = models.build_panda()
    q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    return Robot("panda", model, q0, ("panda_hand",), None, fit_capsules(model, 0.06))


def _planar_2r() -> Robot:
    model = models.build_planar((1.0, 0.7), "planar_2r")
    return Robot("planar_2r", model, np.array([0.3, 0.6]), ("ee",), None, fit_capsules(model, 0.05))


def _planar_3r() -> Robot:
    model = models.build_planar((1.0, 0.7, 0.5), "planar_3r")
    q0 = np.array([0.3, 0.6, 0.4])
    return Robot("planar_3r", model, q0, ("ee",), None, fit_capsules(model, 0.05))


def _humanoid() -> Robot:
    model = models.build_humanoid()
    q0 = pin.neutral(model)
    # knees bent (hip −0.3, knee +0.6, ankle −0.3 rad of pitch: feet flat), arms slightly out
    pose = {"shoulder2": -0.3, "elbow": 0.6, "wrist2": -0.3}
    for side in ("rleg", "lleg"):
        for joint, angle in pose.items():
            q0[model.joints[model.getJointId(f"{side}_{joint}_joint")].idx_q] = angle
    for side, sign in (("rarm", -1.0), ("larm", 1.0)):
        q0[model.joints[model.getJointId(f"{side}_shoulder1_joint")].idx_q] = sign * 0.2
        q0[model.joints[model.getJointId(f"{side}_elbow_joint")].idx_q] = -0.4
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    q0[2] = -data.oMf[model.getFrameId("lleg_effector_body")].translation[2]  # feet at z = 0
    return Robot(
        "humanoid",
        model,
        q0,
        ("lleg_effector_body", "rleg_effector_body", "larm_effector_body", "rarm_effector_body"),
        None,
        pin.buildSampleGeometryModelHumanoid(model),  # spheres and capsules on the limbs
    )


_BUNDLED = {
    "ur5": _ur5,
    "panda": _panda,
    "planar_2r": _planar_2r,
    "planar_3r": _planar_3r,
    "humanoid": _humanoid,
    "buss_y": _buss_y,
    "buss_double_y": _buss_double_y,
}


#: End-effector frames of example-robot-data robots (which carry no such list): feet first,
#: then hands, for humanoids.
END_EFFECTORS: dict[str, tuple[str, ...]] = {
    "talos": (
        "left_sole_link",
        "right_sole_link",
        "gripper_left_base_link",
        "gripper_right_base_link",
    ),
    "g1": (
        "left_ankle_roll_link",
        "right_ankle_roll_link",
        "left_rubber_hand",
        "right_rubber_hand",
    ),
    "ur5": ("tool0",),
    "ur10": ("tool0",),
    "panda": ("panda_hand",),
}


def _example_robot_data_names() -> builtins.list[str]:
    try:
        from example_robot_data.robots_loader import ROBOTS
    except ImportError:
        return []
    return sorted(ROBOTS)


def _srdf_of(loaded: object) -> Path | None:
    """The SRDF file of an example-robot-data loader (a robot it has loaded), if any."""
    path = getattr(loaded, "srdf_path", None)
    return Path(path).resolve() if path and Path(path).is_file() else None


def _parse(name: str) -> parsed.Parsed:
    """Parse example-robot-data's robot ``name``: one loader, which parses the URDF and its
    meshes and knows the SRDF's path. :class:`InvalidInput` naming the robot when the loader
    fails (a file missing or unreadable, a format this Pinocchio cannot read)."""
    from example_robot_data.robots_loader import ROBOTS

    try:
        loaded = ROBOTS[name]()
    except (ValueError, RuntimeError, OSError, ImportError) as exc:
        raise InvalidInput(f"example-robot-data could not load the robot {name!r}: {exc}") from exc
    wrapper = loaded.robot
    q0 = np.array(wrapper.q0, dtype=float)
    return parsed.Parsed(
        wrapper.model, q0, wrapper.visual_model, wrapper.collision_model, _srdf_of(loaded)
    )


def clear_cache(*names: str) -> None:
    """Forget the parses of the example-robot-data robots ``names`` (of every robot parsed
    so far in this process when no name is given), and the memory their meshes hold: the
    next :func:`load` of each parses its files again.

    Not needed for correctness: :func:`load` parses a robot again by itself when its URDF,
    SRDF or a mesh file changes on disk (size or modification time), and every robot it
    returns is a copy that shares nothing with the cache.
    """
    if not all(isinstance(n, str) for n in names):
        raise InvalidInput(f"robot names must be strings, got {names!r}")
    parsed.clear(*(n[4:] if n.startswith("erd:") else n for n in names))


def list() -> builtins.list[str]:  # noqa: A001 - mirrors the documented API name
    """Names accepted by :func:`load`: bundled robots, then example-robot-data's if installed."""
    return [*_BUNDLED, *(n for n in _example_robot_data_names() if n not in _BUNDLED)]


def load(name: str) -> Robot:
    """Load a robot by name.

    Bundled (no download): ``ur5``, ``panda``, ``planar_2r``, ``planar_3r``, ``humanoid``.
    With the ``robots`` extra (``pip install -e '.[robots]'`` from a clone, or ``pip install
    example-robot-data``): every robot of
    example-robot-data, e.g. ``talos``, ``g1``, ``ur10``; prefix ``erd:`` to force it
    (``erd:ur5`` is example-robot-data's UR5 URDF rather than the DH model).

    An example-robot-data robot is parsed (its URDF, SRDF and every mesh: about 1 s of CPU
    for Talos, 2.5 s for G1) once per process and kept; each call returns a deep copy of
    that parse (its own ``pin.Model``, visual and collision ``GeometryModel`` with their own
    meshes, ``q0``), so a robot can be edited without touching the next one. The kept parse
    is read again when the URDF's, the SRDF's or a mesh file's size or modification time
    changes; :func:`clear_cache` drops it. Concurrent calls from several threads are safe
    (the parse runs once). Bundled robots are built anew at each call (a few ms).
    """
    if not isinstance(name, str):
        raise InvalidInput(f"robot name must be a string, got {type(name).__name__}")
    if name in _BUNDLED:
        return _BUNDLED[name]()
    erd_name = name[4:] if name.startswith("erd:") else name
    erd = _example_robot_data_names()
    if erd_name in erd:
        robot = parsed.parsed(erd_name, lambda: _parse(erd_name))
        frames = END_EFFECTORS.get(erd_name, ())
        if not all(robot.model.existFrame(f) for f in frames):
            frames = ()
        return Robot(
            erd_name,
            robot.model,
            robot.q0,
            frames,
            robot.visual_model,
            robot.collision_model,
            robot.srdf,
        )
    hint = (
        ""
        if erd
        else " (for example-robot-data's robots, install the robots extra: pip install -e "
        "'.[robots]' from a clone, or pip install example-robot-data)"
    )
    err = UnknownName("robot", name, [*dict.fromkeys([*_BUNDLED, *erd])])
    err.args = (str(err) + hint,)
    raise err


def _package_dirs(package_dirs: object) -> builtins.list[str]:
    """``package_dirs`` of :func:`load_urdf` as a list of folder names: None (none), one
    folder (a str or a Path) or a list or tuple of them; :class:`InvalidInput` otherwise."""
    if package_dirs is None:
        return []
    if isinstance(package_dirs, str | os.PathLike):
        package_dirs = [package_dirs]
    if not isinstance(package_dirs, builtins.list | tuple) or not all(
        isinstance(d, str | os.PathLike) for d in package_dirs
    ):
        raise InvalidInput(
            "package_dirs must be a folder or a list of folders (str or Path), got "
            f"{package_dirs!r}"
        )
    return [os.fspath(d) for d in package_dirs]


def check_joints(model: pin.Model, source: str) -> None:
    """:class:`InvalidInput` naming the joint of ``model`` (read from ``source``) whose
    position limits are crossed (a lower bound above the upper one: no configuration
    satisfies them) or whose axis is zero (it moves nothing: ``<axis xyz="0 0 0">``)."""
    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    data = model.createData()
    pin.computeJointJacobians(model, data, pin.neutral(model))
    for jid in range(1, model.njoints):
        joint, name = model.joints[jid], model.names[jid]
        q = slice(joint.idx_q, joint.idx_q + joint.nq)
        crossed = np.flatnonzero(lower[q] > upper[q])
        if crossed.size:
            k = int(crossed[0]) + joint.idx_q
            raise InvalidInput(
                f"{source}: joint {name!r} has its lower limit {lower[k]:g} above its upper "
                f"limit {upper[k]:g}; no position satisfies them (swap them?)"
            )
        J = np.reshape(pin.getJointJacobian(model, data, jid, pin.LOCAL), (6, model.nv))
        S = J[:, joint.idx_v : joint.idx_v + joint.nv]  # (nv = 1: the binding gives (6,))
        norms = np.linalg.norm(S, axis=0)
        if not (np.isfinite(norms).all() and (norms > 1e-12).all()):
            raise InvalidInput(
                f"{source}: joint {name!r} has a zero axis (it moves nothing); give its <axis "
                'xyz="..."> a non-zero direction'
            )


def load_urdf(
    path: str | Path,
    floating_base: bool = False,
    package_dirs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    srdf: str | Path | None = None,
) -> Robot:
    """Load a URDF file; ``floating_base=True`` adds a free-flyer root joint.

    ``srdf``: the robot's SRDF file; its disabled collision pairs are skipped by
    :class:`taskik.CollisionLimit`, and its ``half_sitting`` (or first) reference
    posture, if any, becomes ``q0``.

    Meshes are resolved through ``package_dirs`` (one folder or a list of folders; and
    ROS_PACKAGE_PATH); the geometry models are None when meshes cannot be found (kinematics
    does not need them).

    Raises:
        InvalidInput: a missing or unreadable file, arguments of the wrong type, or a joint
            whose limits are crossed (lower > upper) or whose axis is zero (named).
    """
    if not isinstance(floating_base, bool | np.bool_):
        raise InvalidInput(f"floating_base must be True or False, got {floating_base!r}")
    if not isinstance(path, str | os.PathLike):
        raise InvalidInput(f"path must be a file path, got {type(path).__name__}")
    path = Path(path)
    dirs = _package_dirs(package_dirs)
    if srdf is not None and not isinstance(srdf, str | os.PathLike):
        raise InvalidInput(f"srdf must be a file path or None, got {type(srdf).__name__}")
    if not path.is_file():
        raise InvalidInput(f"URDF file not found: {path}")
    root = pin.JointModelFreeFlyer() if floating_base else None
    try:
        model = (
            pin.buildModelFromUrdf(str(path), root) if root else pin.buildModelFromUrdf(str(path))
        )
    except (RuntimeError, ValueError) as exc:
        raise InvalidInput(f"could not parse URDF {path}: {exc}") from exc
    check_joints(model, f"URDF {path}")
    visual = collision = None
    try:
        dirs = dirs or [str(path.parent)]
        visual = pin.buildGeomFromUrdf(model, str(path), pin.GeometryType.VISUAL, package_dirs=dirs)
        collision = pin.buildGeomFromUrdf(
            model, str(path), pin.GeometryType.COLLISION, package_dirs=dirs
        )
    except (RuntimeError, ValueError):
        pass
    q0 = pin.neutral(model)
    srdf_path = None
    if srdf is not None:
        srdf_path = Path(srdf)
        if not srdf_path.is_file():
            raise InvalidInput(f"SRDF file not found: {srdf_path}")
        try:
            pin.loadReferenceConfigurations(model, str(srdf_path), False)
        except (RuntimeError, ValueError) as exc:
            raise InvalidInput(f"could not read SRDF {srdf_path}: {exc}") from exc
        postures = builtins.list(model.referenceConfigurations.keys())
        if postures:
            name = "half_sitting" if "half_sitting" in postures else postures[0]
            q0 = np.array(model.referenceConfigurations[name], dtype=float)
    return Robot(path.stem, model, q0, (), visual, collision, srdf_path)
