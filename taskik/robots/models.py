"""Kinematic models built in code from published parameters (no download needed)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

# UR5, standard Denavit–Hartenberg parameters (Universal Robots' published values), m / rad.
UR5_DH_D = (0.089159, 0.0, 0.0, 0.10915, 0.09465, 0.0823)
UR5_DH_A = (0.0, -0.425, -0.39225, 0.0, 0.0, 0.0)
UR5_DH_ALPHA = (np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0)
UR5_MASSES = (3.7, 8.393, 2.275, 1.219, 1.219, 0.1879)
UR5_JOINTS = (
    "shoulder_pan_joint",
    "shoulder_lift_joint",
    "elbow_joint",
    "wrist_1_joint",
    "wrist_2_joint",
    "wrist_3_joint",
)
UR5_LINKS = (
    "shoulder_link",
    "upper_arm_link",
    "forearm_link",
    "wrist_1_link",
    "wrist_2_link",
    "wrist_3_link",
)
UR5_VELOCITY_LIMIT = np.pi  # rad/s, every joint (180°/s)

# Franka Emika Panda, modified (Craig) DH parameters from Franka's documentation.
PANDA_A = (0.0, 0.0, 0.0, 0.0825, -0.0825, 0.0, 0.088)
PANDA_D = (0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.0)
PANDA_ALPHA = (0.0, -np.pi / 2, np.pi / 2, np.pi / 2, -np.pi / 2, np.pi / 2, np.pi / 2)
PANDA_Q_MIN = (-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973)
PANDA_Q_MAX = (2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973)
PANDA_V_MAX = (2.1750, 2.1750, 2.1750, 2.1750, 2.6100, 2.6100, 2.6100)
PANDA_MASSES = (4.97, 0.65, 3.23, 3.59, 1.23, 1.67, 0.74)
PANDA_FLANGE_D = 0.107
PANDA_TCP_D = 0.1034


def _dh_standard(d: float, a: float, alpha: float) -> pin.SE3:
    """Fixed part of a standard DH link: ``Tz(d) Tx(a) Rx(α)`` (after the joint's Rz(θ))."""
    return pin.SE3(pin.utils.rotate("x", alpha), np.array([a, 0.0, d]))


def _dh_modified(a: float, alpha: float, d: float) -> pin.SE3:
    """Placement of a modified-DH joint in its parent: ``Rx(α) Tx(a) Tz(d)``."""
    R = pin.utils.rotate("x", alpha)
    return pin.SE3(R, np.array([a, 0.0, 0.0]) + R @ np.array([0.0, 0.0, d]))


def _link_inertia(mass: float, segment: np.ndarray) -> tuple[pin.Inertia, pin.SE3]:
    """A slender link: mass at the middle of the segment to the next joint."""
    length = max(float(np.linalg.norm(segment)), 0.05)
    radius = 0.04
    return pin.Inertia.FromCylinder(mass, radius, length), pin.SE3(np.eye(3), 0.5 * segment)


def _add_revolute(
    model: pin.Model,
    parent: int,
    name: str,
    placement: pin.SE3,
    lo: float,
    hi: float,
    vmax: float,
) -> int:
    jid = model.addJoint(
        parent,
        pin.JointModelRZ(),
        placement,
        name,
        np.array([1e3]),  # effort
        np.array([vmax]),
        np.array([lo]),
        np.array([hi]),
    )
    model.addJointFrame(jid)
    return jid


def _add_body_frame(
    model: pin.Model, jid: int, name: str, placement: pin.SE3 | None = None
) -> None:
    placement = pin.SE3.Identity() if placement is None else placement
    parent_frame = model.getFrameId(model.names[jid])
    model.addFrame(pin.Frame(name, jid, parent_frame, placement, pin.FrameType.OP_FRAME))


def build_ur5() -> pin.Model:
    """UR5 from its DH parameters; joint limits ±2π, velocity limits π rad/s; frame ``tool0``."""
    model = pin.Model()
    model.name = "ur5"
    parent, placement = 0, pin.SE3.Identity()
    for i in range(6):
        jid = _add_revolute(
            model, parent, UR5_JOINTS[i], placement, -2 * np.pi, 2 * np.pi, UR5_VELOCITY_LIMIT
        )
        link = _dh_standard(UR5_DH_D[i], UR5_DH_A[i], UR5_DH_ALPHA[i])
        model.appendBodyToJoint(jid, *_link_inertia(UR5_MASSES[i], link.translation))
        _add_body_frame(model, jid, UR5_LINKS[i])
        parent, placement = jid, link
    _add_body_frame(model, parent, "tool0", placement)
    return model


def build_panda() -> pin.Model:
    """Franka Panda (7 DoF) from modified DH; published limits; frames ``panda_link8``,
    ``panda_hand`` (−45° about z) and ``panda_hand_tcp`` (10.34 cm further along z)."""
    model = pin.Model()
    model.name = "panda"
    parent = 0
    for i in range(7):
        placement = _dh_modified(PANDA_A[i], PANDA_ALPHA[i], PANDA_D[i])
        jid = _add_revolute(
            model,
            parent,
            f"panda_joint{i + 1}",
            placement,
            PANDA_Q_MIN[i],
            PANDA_Q_MAX[i],
            PANDA_V_MAX[i],
        )
        nxt = PANDA_D[i + 1] if i + 1 < 7 else PANDA_FLANGE_D
        model.appendBodyToJoint(jid, *_link_inertia(PANDA_MASSES[i], np.array([0, 0, nxt])))
        _add_body_frame(model, jid, f"panda_link{i + 1}")
        parent = jid
    flange = pin.SE3(np.eye(3), np.array([0.0, 0.0, PANDA_FLANGE_D]))
    hand = flange * pin.SE3(pin.utils.rotate("z", -np.pi / 4), np.zeros(3))
    tcp = hand * pin.SE3(np.eye(3), np.array([0.0, 0.0, PANDA_TCP_D]))
    _add_body_frame(model, parent, "panda_link8", flange)
    _add_body_frame(model, parent, "panda_hand", hand)
    _add_body_frame(model, parent, "panda_hand_tcp", tcp)
    model.appendBodyToJoint(parent, pin.Inertia.FromSphere(0.73, 0.05), hand)
    return model


def build_planar(lengths: tuple[float, ...], name: str) -> pin.Model:
    """Planar serial arm in the x–y plane, joints about z, links along x; frame ``ee``.

    Joint limits ±π, velocity limits 10 rad/s; each link has a point mass of 1 kg at its middle.
    """
    model = pin.Model()
    model.name = name
    parent, placement = 0, pin.SE3.Identity()
    for i, length in enumerate(lengths):
        jid = _add_revolute(model, parent, f"joint{i + 1}", placement, -np.pi, np.pi, 10.0)
        model.appendBodyToJoint(jid, *_link_inertia(1.0, np.array([length, 0.0, 0.0])))
        _add_body_frame(model, jid, f"link{i + 1}")
        parent, placement = jid, pin.SE3(np.eye(3), np.array([length, 0.0, 0.0]))
    _add_body_frame(model, parent, "ee", placement)
    return model


def build_humanoid() -> pin.Model:
    """Pinocchio's sample humanoid with a free-flyer base (nq = 35, nv = 34).

    End effectors ``lleg_effector_body``, ``rleg_effector_body`` (feet, 2.1 m below the base
    at the neutral posture), ``larm_effector_body``, ``rarm_effector_body`` (hands).
    """
    model = pin.buildSampleModelHumanoid(True)
    model.name = "humanoid"
    # The sample places every body's centre of mass 0.5 m along +z of its joint, while the
    # limbs extend along −z: put each mass halfway to the next joint of its chain instead.
    children: dict[int, int] = {}
    for jid in range(2, model.njoints):
        children.setdefault(model.parents[jid], jid)
    for jid in range(1, model.njoints):
        inertia = model.inertias[jid]
        segment = model.jointPlacements[children[jid]].translation if jid in children else 0.0
        lever = 0.5 * np.asarray(segment) * np.ones(3)
        model.inertias[jid] = pin.Inertia(inertia.mass, lever, inertia.inertia)
    return model
