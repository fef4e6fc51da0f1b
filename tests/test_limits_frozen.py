"""FrozenJoints: a subset of the joints held still, by name, composed with the other limits."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import (
    ConfigurationLimit,
    FrameTask,
    InvalidInput,
    NoSolutionFound,
    PostureTask,
    UnknownName,
    VelocityLimit,
)
from taskik.limits.acceleration import AccelerationLimit
from taskik.limits.frozen import FrozenJoints

DT = 0.01


def reach(conf, frame="tool0", shift=(0.1, -0.1, 0.1)):
    task = FrameTask(frame)
    T = conf.get_transform_frame_to_world(frame)
    task.set_target(pin.SE3(T.rotation, T.translation + np.asarray(shift)))
    return task


def test_frozen_joints_do_not_move_and_the_others_do_the_work(ur5):
    conf = ur5.configuration()
    task = reach(conf, shift=(0.0, 0.0, 0.1))  # in the arm's plane: no pan needed
    frozen = FrozenJoints(ur5.model, ["shoulder_pan_joint", "wrist_3_joint"])
    assert frozen.indices.tolist() == [0, 5] and frozen.free_indices.tolist() == [1, 2, 3, 4]
    q0 = conf.q.copy()
    error0 = np.linalg.norm(task.compute_error_and_jacobian(conf)[0])
    for _ in range(30):
        v = taskik.solve_ik(conf, [task], DT, limits=[frozen, VelocityLimit(ur5.model)])
        assert v[0] == 0.0 and v[5] == 0.0
        conf.integrate_inplace(v, DT)
    assert conf.q[0] == q0[0] and conf.q[5] == q0[5]
    assert not np.allclose(conf.q[1:5], q0[1:5])
    assert np.linalg.norm(task.compute_error_and_jacobian(conf)[0]) < 0.5 * error0


def test_all_but_solves_on_the_named_joints_only(ur5):
    frozen = FrozenJoints.all_but(ur5.model, ["elbow_joint", "wrist_1_joint"])
    assert frozen.free_indices.tolist() == [2, 3]
    conf = ur5.configuration()
    v = taskik.solve_ik(conf, [reach(conf)], DT, limits=[frozen])
    assert np.count_nonzero(v) == 2 and v[2] != 0.0


def test_a_free_flyer_freezes_all_six_velocities(humanoid):
    frozen = FrozenJoints(humanoid.model, "root_joint")  # one name as a plain string
    assert frozen.indices.tolist() == list(range(6))
    conf = humanoid.configuration()
    v = taskik.solve_ik(conf, [reach(conf, "larm_effector_body")], DT, limits=[frozen])
    assert not v[:6].any() and np.abs(v[6:]).max() > 0


def test_frozen_wins_over_a_position_limit_it_is_outside_of(ur5):
    q = ur5.q0.copy()
    q[2] = ur5.model.upperPositionLimit[2] + 0.2  # elbow past its upper limit
    conf = taskik.Configuration(ur5.model, q)
    posture = PostureTask()
    posture.set_target(q)
    limits = [ConfigurationLimit(ur5.model), VelocityLimit(ur5.model)]
    v = taskik.solve_ik(conf, [posture], DT, limits=limits)
    assert v[2] < -1.0  # unfrozen, the position limit pushes it back
    v = taskik.solve_ik(
        conf, [posture], DT, limits=[*limits, FrozenJoints(ur5.model, ["elbow_joint"])]
    )
    assert v[2] == 0.0  # frozen: the box is [0, 0], not empty


def test_in_priority_levels_too(ur5):
    conf = ur5.configuration()
    posture = PostureTask()
    posture.set_target(ur5.q0)
    frozen = FrozenJoints(ur5.model, ["elbow_joint"])
    v = taskik.solve_ik(conf, [[reach(conf)], [posture]], DT, limits=[frozen])
    assert v[2] == 0.0 and np.abs(v).max() > 0


def test_freezing_a_moving_joint_against_an_acceleration_limit_names_both(ur5):
    conf = ur5.configuration()
    limits = [AccelerationLimit(ur5.model, 1.0), FrozenJoints(ur5.model, ["elbow_joint"])]
    task = reach(conf)
    v = taskik.solve_ik(conf, [task], DT, limits=limits)  # at rest: freezing is fine
    assert v[2] == 0.0
    conf.integrate_inplace(np.full(6, 0.5), DT)  # the elbow moved at 0.5 rad/s
    with pytest.raises(NoSolutionFound, match="acceleration.*frozen joints"):
        taskik.solve_ik(conf, [task], DT, limits=limits, strict=True)


def test_names_are_checked(ur5):
    with pytest.raises(UnknownName, match="did you mean 'elbow_joint'"):
        FrozenJoints(ur5.model, ["elbow"])
    with pytest.raises(UnknownName, match="wrist_1_joint"):
        FrozenJoints.all_but(ur5.model, ["wrist_1"])
    with pytest.raises(InvalidInput, match="joint names"):
        FrozenJoints(ur5.model, [2])
    with pytest.raises(InvalidInput, match="joint names"):
        FrozenJoints(ur5.model, 3)


def test_freezing_no_joint_changes_no_step(ur5):
    conf = ur5.configuration()
    frozen = FrozenJoints(ur5.model, [])
    assert frozen.indices.dtype.kind == "i" and frozen.free_indices.tolist() == list(range(6))
    task = reach(conf)
    for backend in ("qp", "dls"):  # the unconstrained backends index with the frozen set
        free = taskik.solve_ik(conf, [task], DT, limits=[], backend=backend)
        v = taskik.solve_ik(conf, [task], DT, limits=[frozen], backend=backend)
        assert v == pytest.approx(free, abs=1e-9)


def test_the_box_cannot_be_changed_by_its_reader(ur5):
    frozen = FrozenJoints(ur5.model, ["elbow_joint"])
    indices, lower, upper = frozen.compute_box(ur5.configuration(), DT)
    with pytest.raises(ValueError, match="read-only"):
        lower[0] = -1.0
    with pytest.raises(ValueError, match="read-only"):
        upper[0] = 1.0


def test_the_universe_is_not_a_joint_to_freeze(ur5):
    with pytest.raises(UnknownName, match="'universe'"):
        FrozenJoints(ur5.model, ["universe"])


def test_messages_name_the_constructor(ur5):
    with pytest.raises(InvalidInput, match="^FrozenJoints needs a pinocchio.Model"):
        FrozenJoints(ur5, ["elbow_joint"])
    with pytest.raises(InvalidInput, match=r"^FrozenJoints takes joint names \(str\)"):
        FrozenJoints(ur5.model, [2])
    with pytest.raises(InvalidInput, match=r"^FrozenJoints.all_but takes joint names \(a list"):
        FrozenJoints.all_but(ur5.model, 3)
