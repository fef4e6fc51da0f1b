"""Retargeting the shipped clip (Talos squatting, waving, lifting a foot) onto Talos itself,
G1 and the bundled humanoid: the keypoints are followed within stated bounds, joint position
and velocity limits hold on every frame, feet in contact stay on the ground; and the rules
of one frame (the scale, the velocity cap at the clip's rate, the contact height, the
rotation offset from the rest pose) each checked on a problem whose answer is known."""

from __future__ import annotations

import concurrent.futures
import functools
import pickle

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import taskik
from taskik.retarget import (
    DEFAULT_STEPS,
    clip_from_arrays,
    estimate_scale,
    load_clip,
    retarget,
    retarget_file,
    sample_clip_path,
    sample_mapping_path,
)
from taskik.retarget.solver import FIRST_FRAME_STEPS

#: Largest keypoint error (m) on any frame, and largest per-frame mean, per robot. Talos
#: follows its own keypoints (the answer is its own motion); G1 and the bundled humanoid have
#: other proportions than Talos (scaled to Talos's height, G1's arms are ~40 % shorter and its
#: shoulders 11 cm lower; the humanoid's legs are longer and its head at shoulder height),
#: which no joint motion can undo: their bounds are the proportion mismatch, measured
#: (0.39 / 0.11 m for G1, 0.45 / 0.24 m for the humanoid), plus a margin.
BOUNDS = {"talos": (0.005, 0.001), "g1": (0.45, 0.13), "humanoid": (0.50, 0.27)}


@functools.cache
def load(name: str) -> taskik.robots.Robot:
    return taskik.robots.load(name)


@pytest.fixture(scope="module")
def clip():
    return load_clip(sample_clip_path())


@pytest.fixture(scope="module")
def source_q():
    return np.load(sample_clip_path())["source_q"]


@pytest.fixture(scope="module", params=sorted(BOUNDS))
def case(request, clip):
    robot = load(request.param)
    return robot, retarget(robot, clip, sample_mapping_path(request.param))


def frame_steps(model: pin.Model, q: np.ndarray) -> np.ndarray:
    """(N − 1, nv): the motion q_i ⊖ q_{i−1} between consecutive frames."""
    return np.array([pin.difference(model, a, b) for a, b in zip(q[:-1], q[1:], strict=True)])


def test_the_shipped_clip_is_small_and_whole(clip):
    assert sample_clip_path().stat().st_size < 200_000
    assert clip.n_frames == 121 and clip.fps == 30.0
    assert len(clip.names) >= 12
    assert set(clip.contacts) == {"left_foot", "right_foot"}
    assert clip.contacts["right_foot"].all()
    assert not clip.contacts["left_foot"].all()  # the left foot is lifted for a while


def test_keypoint_errors_below_the_stated_bound_on_every_frame(case, clip):
    robot, result = case
    worst, mean = BOUNDS[robot.name]
    assert result.q.shape == (clip.n_frames, robot.model.nq)
    assert result.position_errors.shape == (clip.n_frames, len(result.keypoints))
    assert result.position_errors.max() < worst
    assert result.position_errors.mean(axis=1).max() < mean
    assert result.fps == clip.fps and result.steps == DEFAULT_STEPS


def test_joint_position_limits_hold_on_every_frame(case):
    robot, result = case
    model = robot.model
    ranges = taskik.configuration.PositionRanges(model)
    q = result.q[:, ranges.q_indices]
    assert (q >= ranges.lower - 1e-9).all() and (q <= ranges.upper + 1e-9).all()
    for row in result.q:  # and every configuration is a valid one (unit quaternion)
        robot.configuration(row)


def test_no_frame_to_frame_jump_above_the_velocity_limit_times_dt(case, clip):
    robot, result = case
    model = robot.model
    cap = np.asarray(model.velocityLimit) / clip.fps  # per frame
    bounded = cap < 1e10
    motion = np.abs(frame_steps(model, result.q))[:, bounded]
    assert (motion <= cap[bounded] * (1 + 1e-9)).all()


def test_talos_retargeted_onto_itself_gives_its_own_motion_back(clip, source_q):
    robot = load("talos")
    result = retarget(robot, clip, sample_mapping_path("talos"))
    assert result.scale == 1.0
    model = robot.model
    diff = np.abs([pin.difference(model, a, b) for a, b in zip(source_q, result.q, strict=True)])
    legs_torso = [
        i
        for j in model.joints[2:]
        if model.names[j.id].startswith(("leg_", "torso_"))
        for i in range(j.idx_v, j.idx_v + j.nv)
    ]
    assert len(legs_torso) == 14
    assert diff[:, legs_torso].max() < 0.01  # rad: legs and torso follow exactly
    assert diff[:, :6].max() < 0.005  # the base (m, rad)
    assert np.nanmax(result.orientation_errors) < 0.02


def _frame_point(model, q, frame, offset=(0.0, 0.0, 0.0)):
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[model.getFrameId(frame)].act(np.array(offset))


def test_g1_squats_and_waves_like_talos_and_keeps_its_feet_on_the_ground(clip):
    robot = load("g1")
    result = retarget(robot, clip, sample_mapping_path("g1"))
    model, q = robot.model, result.q
    pelvis = np.array([_frame_point(model, row, "pelvis")[2] for row in q])
    talos_pelvis = clip.position("pelvis")[:, 2]
    # the squat: 10 cm down at 1 s on Talos, scaled on G1
    drop = pelvis[0] - pelvis[30]
    assert drop == pytest.approx(result.scale * (talos_pelvis[0] - talos_pelvis[30]), rel=0.2)
    hand = np.array([_frame_point(model, row, "right_rubber_hand")[2] for row in q])
    assert hand[60] > hand[0] + 0.2  # the raised, waving arm
    sole = (0.0, 0.0, -0.035)
    for side in ("left", "right"):
        contact = clip.contacts[f"{side}_foot"]
        heights = np.array(
            [_frame_point(model, row, f"{side}_ankle_roll_link", sole)[2] for row in q]
        )
        # on the ground plane z = 0 within 1 cm (9 mm measured at 2 steps per frame: the other
        # tasks pull and the steps of a frame do not fully converge; < 1 mm at 10 steps)
        assert np.abs(heights[contact]).max() < 0.012
        if side == "left":
            assert heights[~contact].max() > 0.03  # lifted while Talos lifts it


def test_scale_is_the_ratio_of_vertical_spans():
    keypoints = np.array([[0.0, 0.0, 0.0], [0.1, 0.2, 1.5], [0.3, 0.0, 0.9]])
    robot_points = np.array([[5.0, 1.0, 2.0], [4.0, 0.0, 2.6], [4.5, 0.0, 2.3]])
    assert estimate_scale(keypoints, robot_points) == pytest.approx(0.6 / 1.5)
    with pytest.raises(taskik.InvalidInput, match="give 'scale' in the mapping"):
        estimate_scale(np.zeros((3, 3)), robot_points)


def _robot_clip(robot, frames, scale, n=3):
    """A clip of ``frames``' positions at q0 divided by ``scale`` (a robot ``1/scale`` times
    smaller), still for ``n`` frames."""
    points = np.array([_frame_point(robot.model, robot.q0, f) for f in frames]) / scale
    return clip_from_arrays(frames, np.repeat(points[None], n, axis=0), 30.0)


def _mapping(frames, **extra):
    return {"tasks": [{"keypoint": f, "frame": f} for f in frames], **extra}


def test_a_robot_twice_as_small_is_scaled_back_and_reached_at_its_rest_pose(humanoid):
    frames = ("lleg_effector_body", "rleg_effector_body", "larm_effector_body", "head2_body")
    clip = _robot_clip(humanoid, frames, 2.0)
    result = retarget(humanoid, clip, _mapping(frames))
    assert result.scale == pytest.approx(2.0)
    assert result.position_errors.max() < 1e-4
    given = retarget(humanoid, clip, _mapping(frames, scale=1.0))  # a given scale is used
    assert given.scale == 1.0 and given.position_errors[0].max() > 0.01


def test_each_frame_moves_a_joint_by_at_most_v_max_over_fps_and_the_cap_is_reached(ur5):
    # a hand target that jumps 0.3 m between frames: the step is capped at v_max / fps
    frames = ("tool0",)
    start = _frame_point(ur5.model, ur5.q0, "tool0")
    positions = np.array([start, start + [0.0, 0.3, -0.2], start + [0.0, 0.3, -0.2]])[:, None]
    for fps, steps in ((30.0, 1), (30.0, 4), (120.0, 2)):
        clip = clip_from_arrays(frames, positions, fps)
        result = retarget(ur5, clip, _mapping(frames, scale=1.0), steps=steps)
        motion = np.abs(frame_steps(ur5.model, result.q))
        cap = np.asarray(ur5.model.velocityLimit) / fps
        assert (motion <= cap * (1 + 1e-9)).all()
        assert motion[0].max() == pytest.approx(cap.max(), rel=1e-6)  # the cap binds


def test_a_foot_in_contact_is_held_at_its_rest_height_with_a_heavier_vertical_weight(humanoid):
    frames = ("lleg_effector_body", "rleg_effector_body", "chest2_body")
    clip0 = _robot_clip(humanoid, frames, 1.0, n=4)
    positions = clip0.positions.copy()
    positions[1:, 0, 2] += 0.05  # the left foot's keypoint rises 5 cm from frame 1 on ...
    contact = np.array([True, True, False, False])  # ... but touches the ground on frame 1
    clip = clip_from_arrays(frames, positions, 30.0, contacts={frames[0]: contact})
    result = retarget(humanoid, clip, _mapping(frames, scale=1.0), steps=20)
    foot_z = [_frame_point(humanoid.model, q, frames[0])[2] for q in result.q]
    rest_z = clip0.positions[0, 0, 2]
    assert foot_z[1] == pytest.approx(rest_z, abs=1e-3)  # held on the ground
    assert foot_z[3] == pytest.approx(rest_z + 0.05, abs=1e-3)  # free: follows the keypoint
    assert result.position_errors[1, 0] < 1e-3  # its target is the ground, not the keypoint


def test_rotation_offset_from_the_rest_pose_makes_the_rest_frame_exact(humanoid):
    frames = ("lleg_effector_body", "rleg_effector_body", "larm_effector_body")
    clip0 = _robot_clip(humanoid, frames, 1.0)
    # keypoint orientations unrelated to the robot's frames: a fixed turn of 0.7 rad
    turn = pin.Quaternion(pin.exp3(np.array([0.3, -0.5, 0.4]))).coeffs()
    quats = {f: np.tile(turn, (3, 1)) for f in frames}
    clip = clip_from_arrays(frames, clip0.positions, 30.0, orientations=quats)
    mapping = _mapping(frames, scale=1.0)
    for task in mapping["tasks"]:
        task["orientation_cost"] = 1.0
    result = retarget(humanoid, clip, mapping)
    assert np.nanmax(result.orientation_errors) < 1e-6
    assert np.abs(result.q[0] - humanoid.q0).max() < 1e-6  # nothing to move: already there
    for task in mapping["tasks"]:
        task["rotation_offset"] = [0.0, 0.0, 0.0, 1.0]  # given instead: R* = R_keypoint
    given = retarget(humanoid, clip, mapping, first_steps=200)
    assert np.abs(given.q[0] - humanoid.q0).max() > 0.1  # the frames turn toward R_keypoint
    data = humanoid.model.createData()
    pin.framesForwardKinematics(humanoid.model, data, given.q[0])
    hand = data.oMf[humanoid.model.getFrameId("larm_effector_body")].rotation
    target = pin.Quaternion(turn).toRotationMatrix()
    assert np.linalg.norm(pin.log3(target.T @ hand)) == pytest.approx(
        given.orientation_errors[0, 2], abs=1e-9
    )
    assert given.orientation_errors[0, 2] < 0.05


def test_more_steps_per_frame_track_closer(clip):
    robot = load("talos")
    errors = [
        retarget(robot, clip, sample_mapping_path("talos"), steps=s).position_errors.max()
        for s in (1, 3)
    ]
    assert errors[1] < 0.5 * errors[0]


def test_progress_is_reported_after_every_frame(humanoid):
    frames = ("lleg_effector_body", "head2_body")
    calls = []
    retarget(
        humanoid,
        _robot_clip(humanoid, frames, 1.0, n=5),
        _mapping(frames),
        progress=lambda i, n: calls.append((i, n)),
    )
    assert calls == [(i, 5) for i in range(1, 6)]


def test_retarget_file_is_a_picklable_function_that_writes_its_output(tmp_path, clip):
    assert pickle.loads(pickle.dumps(retarget_file)) is retarget_file
    out = tmp_path / "g1.npz"
    summary = retarget_file(sample_clip_path(), out, "humanoid", sample_mapping_path("humanoid"))
    assert out.is_file() and summary["frames"] == clip.n_frames
    assert summary["max_position_error"] < BOUNDS["humanoid"][0]


def test_first_frame_steps_and_steps_must_be_counts(humanoid, clip):
    for bad in (0, 1.5, True):
        with pytest.raises(taskik.InvalidInput, match="steps must be an integer >= 1"):
            retarget(humanoid, clip, sample_mapping_path("humanoid"), steps=bad)
    with pytest.raises(taskik.InvalidInput, match="first_steps must be an integer >= 1"):
        retarget(humanoid, clip, sample_mapping_path("humanoid"), first_steps=0)
    assert FIRST_FRAME_STEPS >= 10


@settings(max_examples=25)
@given(
    fps=st.floats(10.0, 240.0),
    steps=st.integers(1, 4),
    jumps=st.lists(st.tuples(*[st.floats(-0.3, 0.3)] * 3), min_size=1, max_size=4),
)
def test_property_no_joint_moves_more_than_v_max_over_fps_between_frames(fps, steps, jumps):
    ur5 = load("ur5")
    start = _frame_point(ur5.model, ur5.q0, "tool0")
    positions = np.array([start, *(start + np.array(j) for j in jumps)])[:, None]
    clip = clip_from_arrays(("tool0",), positions, fps)
    result = retarget(ur5, clip, _mapping(("tool0",), scale=1.0), steps=steps)
    motion = np.abs(frame_steps(ur5.model, result.q))
    assert (motion <= np.asarray(ur5.model.velocityLimit) / fps * (1 + 1e-9)).all()


def test_retarget_file_runs_in_worker_processes(tmp_path):
    outputs = [tmp_path / f"clip{i}.npz" for i in range(2)]
    args = [
        (sample_clip_path(), out, "humanoid", sample_mapping_path("humanoid")) for out in outputs
    ]
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        summaries = list(pool.map(retarget_file, *zip(*args, strict=True)))
    assert [s["output"] for s in summaries] == [str(o) for o in outputs]
    first, second = (np.load(o)["q"] for o in outputs)
    np.testing.assert_array_equal(first, second)  # the same clip gives the same answer


def test_extra_limits_reach_every_step_and_change_nothing_while_inactive():
    import taskik
    from taskik.exceptions import InvalidInput
    from taskik.retarget import (
        load_clip,
        load_mapping,
        retarget,
        sample_clip_path,
        sample_mapping_path,
    )

    robot = taskik.robots.load("humanoid")
    clip = load_clip(sample_clip_path())
    mapping = load_mapping(sample_mapping_path("humanoid"))
    collisions = taskik.CollisionLimit(robot)
    free = retarget(robot, clip, mapping)
    kept = retarget(robot, clip, mapping, limits=[collisions])
    assert min(collisions.clearance(robot.configuration(q)) for q in kept.q) >= -1e-4
    # the limbs stay far apart: no row binds. The QP with inactive rows differs by rounding,
    # which the closed loop carries from frame to frame: 5.6e-9 rad under one BLAS kernel
    # (SandyBridge, two threads); a row that binds moves q by orders of magnitude more
    np.testing.assert_allclose(free.q, kept.q, rtol=0, atol=1e-6)
    with pytest.raises(InvalidInput):
        retarget(robot, clip, mapping, limits=["collision"])
