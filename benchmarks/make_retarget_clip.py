"""Make the retargeting sample clip: Talos (example-robot-data) squats, waves its right arm,
twists its torso and lifts its left foot; its frames are recorded as 17 keypoints.

The motion is a joint trajectory solved with taskik: per frame (30 fps, 4 s), the feet hold
their poses (the left one lifted 6 cm between 2.6 s and 3.4 s), the base follows a squat
(10 cm down and back up over the first 2 s, orientation kept), and a posture task carries
the arm, torso and head angles (the wave), solved to convergence from the previous frame.
Keypoints are the positions of Talos frames (pelvis, torso, feet and ankles also with
orientations); contact flags mark the feet on the ground. The clip file also holds the joint
trajectory (``source_q``) so that tests know the answer: retargeting it back onto Talos with
the identity mapping must give that trajectory again.

Run: ``python benchmarks/make_retarget_clip.py`` (writes taskik/retarget/data/).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.limits import ConfigurationLimit
from taskik.retarget import DATA

FPS = 30.0
DURATION = 4.0

#: keypoint → Talos frame; the ones with an orientation are marked.
TALOS_KEYPOINTS = {
    "pelvis": "base_link",
    "torso": "torso_2_link",
    "head": "head_2_link",
    "left_shoulder": "arm_left_2_link",
    "right_shoulder": "arm_right_2_link",
    "left_elbow": "arm_left_4_link",
    "right_elbow": "arm_right_4_link",
    "left_hand": "gripper_left_base_link",
    "right_hand": "gripper_right_base_link",
    "left_hip": "leg_left_1_link",
    "right_hip": "leg_right_1_link",
    "left_knee": "leg_left_4_link",
    "right_knee": "leg_right_4_link",
    "left_ankle": "leg_left_6_link",
    "right_ankle": "leg_right_6_link",
    "left_foot": "left_sole_link",
    "right_foot": "right_sole_link",
}
WITH_ORIENTATION = ("pelvis", "torso", "left_foot", "right_foot")
CONTACT = {"left_foot": "left_sole_link", "right_foot": "right_sole_link"}

G1_FRAMES = {
    "pelvis": "pelvis",
    "torso": "torso_link",
    "head": "mid360_link",
    "left_shoulder": "left_shoulder_roll_link",
    "right_shoulder": "right_shoulder_roll_link",
    "left_elbow": "left_elbow_link",
    "right_elbow": "right_elbow_link",
    "left_hand": "left_rubber_hand",
    "right_hand": "right_rubber_hand",
    "left_hip": "left_hip_roll_link",
    "right_hip": "right_hip_roll_link",
    "left_knee": "left_knee_link",
    "right_knee": "right_knee_link",
    "left_ankle": "left_ankle_pitch_link",
    "right_ankle": "right_ankle_pitch_link",
    "left_foot": "left_ankle_roll_link",
    "right_foot": "right_ankle_roll_link",
}

#: points of G1 frames that match Talos's keypoints better than the frame origins (m): the
#: soles, 3.5 cm below the ankle roll links, and the pelvis keypoint's height above the hips.
G1_OFFSETS = {
    "left_foot": [0.0, 0.0, -0.035],
    "right_foot": [0.0, 0.0, -0.035],
    "pelvis": [0.0, 0.0, 0.09],
}

HUMANOID_FRAMES = {
    "pelvis": "root_joint",
    "torso": "chest2_body",
    "left_shoulder": "larm_shoulder2_body",
    "right_shoulder": "rarm_shoulder2_body",
    "left_elbow": "larm_elbow_body",
    "right_elbow": "rarm_elbow_body",
    "left_hand": "larm_effector_body",
    "right_hand": "rarm_effector_body",
    "left_hip": "lleg_shoulder2_body",
    "right_hip": "rleg_shoulder2_body",
    "left_foot": "lleg_effector_body",
    "right_foot": "rleg_effector_body",
}


#: keypoints on the way from the pelvis to the end points: where another robot's proportions
#: differ most, so they weigh less than the pelvis, hands, feet and head (0.3 measured best
#: for G1: the squat's depth within 11 %, the feet within 2 cm).
INTERMEDIATE = ("torso", "shoulder", "elbow", "hip", "knee", "ankle")


def smooth(t: np.ndarray | float, t0: float, t1: float) -> np.ndarray:
    """0 before t0, 1 after t1, a cosine ramp in between."""
    s = np.clip((np.asarray(t) - t0) / (t1 - t0), 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(np.pi * s)


def joint_targets(model: pin.Model, q0: np.ndarray, t: float) -> np.ndarray:
    """The posture target at time t: right arm raised and waving, torso twist, head nod."""
    q = q0.copy()

    def setj(name: str, value: float) -> None:
        joint = model.joints[model.getJointId(name)]
        lo = model.lowerPositionLimit[joint.idx_q] + 0.05
        hi = model.upperPositionLimit[joint.idx_q] - 0.05
        q[joint.idx_q] = np.clip(value, lo, hi)

    def q0j(name: str) -> float:
        return float(q0[model.joints[model.getJointId(name)].idx_q])

    raise_arm = float(smooth(t, 0.5, 1.5))
    wave = raise_arm * np.sin(2 * np.pi * 1.2 * max(t - 1.5, 0.0))
    setj("arm_right_2_joint", q0j("arm_right_2_joint") - 1.3 * raise_arm)
    setj("arm_right_4_joint", q0j("arm_right_4_joint") - 0.5 * raise_arm - 0.5 * wave)
    setj("arm_right_1_joint", q0j("arm_right_1_joint") + 0.3 * wave)
    setj("arm_left_1_joint", q0j("arm_left_1_joint") - 0.4 * float(smooth(t, 1.0, 2.5)))
    setj("torso_1_joint", 0.25 * np.sin(2 * np.pi * t / DURATION))
    setj("head_2_joint", 0.2 * float(smooth(t, 2.0, 3.0)))
    return q


def solve_motion() -> tuple[taskik.robots.Robot, np.ndarray]:
    """Talos's joint trajectory (N × nq)."""
    robot = taskik.robots.load("talos")
    model = robot.model
    conf = robot.configuration()
    feet = {}
    for name in ("left_sole_link", "right_sole_link"):
        task = taskik.FrameTask(name, 10.0, 10.0)
        task.set_target_from_configuration(conf)
        feet[name] = task
    left_foot0 = feet["left_sole_link"].target.copy()
    base = taskik.FrameTask("base_link", 10.0, 10.0)
    base.set_target_from_configuration(conf)
    base0 = base.target.copy()
    # the legs follow the feet and the base alone: no posture weight on them
    cost = np.ones(model.nv - 6)
    for joint in model.joints[2:]:
        if model.names[joint.id].startswith("leg_"):
            cost[joint.idx_v - 6] = 0.0
    posture = taskik.PostureTask(cost=cost)
    tasks = [*feet.values(), base, posture]
    limits = [ConfigurationLimit(model)]
    frames = int(round(DURATION * FPS)) + 1
    qs = np.empty((frames, model.nq))
    for i in range(frames):
        t = i / FPS
        squat = float(smooth(t, 0.0, 1.0) - smooth(t, 1.0, 2.0))
        target = base0.copy()
        target.translation = base0.translation + np.array([-0.03 * squat, 0.0, -0.10 * squat])
        base.set_target(target)
        lift = 0.06 * float(smooth(t, 2.6, 3.0) - smooth(t, 3.0, 3.4))
        foot = left_foot0.copy()
        foot.translation = left_foot0.translation + np.array([0.0, 0.0, lift])
        feet["left_sole_link"].set_target(foot)
        posture.set_target(joint_targets(model, robot.q0, t))
        for _ in range(30):
            v = taskik.solve_ik(conf, tasks, 1.0, limits, adaptive=False)
            conf.integrate_inplace(v, 1.0)
        qs[i] = conf.q
    return robot, qs


def record(robot: taskik.robots.Robot, qs: np.ndarray) -> dict[str, np.ndarray]:
    """The clip arrays (taskik.retarget.clip layout) and the source trajectory."""
    model = robot.model
    data = model.createData()
    names = list(TALOS_KEYPOINTS)
    positions = np.empty((len(qs), len(names), 3))
    quats = np.empty((len(qs), len(WITH_ORIENTATION), 4))
    for i, q in enumerate(qs):
        pin.framesForwardKinematics(model, data, q)
        for k, name in enumerate(names):
            positions[i, k] = data.oMf[model.getFrameId(TALOS_KEYPOINTS[name])].translation
        for k, name in enumerate(WITH_ORIENTATION):
            M = data.oMf[model.getFrameId(TALOS_KEYPOINTS[name])]
            quats[i, k] = pin.Quaternion(M.rotation).coeffs()
    foot_z = positions[:, [names.index(k) for k in CONTACT], 2]
    contacts = foot_z < 1e-3  # on the ground plane z = 0
    return {
        "names": np.array(names),
        "positions": positions,
        "fps": np.array(FPS),
        "orientation_names": np.array(WITH_ORIENTATION),
        "orientations": quats,
        "contact_names": np.array(list(CONTACT)),
        "contacts": contacts,
        "source_q": qs,
        "source_robot": np.array("talos"),
    }


def mapping(
    frames: dict[str, str],
    orientation: tuple[str, ...],
    scale: float | None,
    offsets: dict[str, list[float]] | None = None,
    intermediate_cost: float = 1.0,
) -> dict:
    """A mapping file's content: every keypoint of ``frames``, orientations for some; the
    keypoints between the pelvis and the hands, feet and head weigh ``intermediate_cost``."""
    tasks = []
    for keypoint, frame in frames.items():
        middle = keypoint.endswith(INTERMEDIATE)
        cost = intermediate_cost if middle else 1.0
        entry: dict[str, object] = {"keypoint": keypoint, "frame": frame, "position_cost": cost}
        if keypoint in orientation:
            entry["orientation_cost"] = 0.3
        if offsets and keypoint in offsets:
            entry["offset"] = offsets[keypoint]
        tasks.append(entry)
    return {"scale": scale, "posture_cost": 0.01, "contact_cost": 100.0, "tasks": tasks}


def main() -> Path:
    robot, qs = solve_motion()
    arrays = record(robot, qs)
    DATA.mkdir(exist_ok=True)
    out = DATA / "talos_squat_wave.npz"
    np.savez_compressed(out, **arrays)
    files = {
        "talos": mapping(TALOS_KEYPOINTS, WITH_ORIENTATION, 1.0),
        "g1": mapping(
            G1_FRAMES, ("pelvis", "torso", "left_foot", "right_foot"), None, G1_OFFSETS, 0.3
        ),
        "humanoid": mapping(
            HUMANOID_FRAMES, ("pelvis", "left_foot", "right_foot"), None, None, 0.3
        ),
    }
    for robot_name, content in files.items():
        (DATA / f"{robot_name}.json").write_text(json.dumps(content, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB, {len(qs)} frames) and mappings")
    return out


if __name__ == "__main__":
    main()
