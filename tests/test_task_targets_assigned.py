"""A task's target assigned as an attribute (``task.target = ...`` and pink's names,
``transform_target_to_world``, ``target_q``, ...) goes through set_target's checks: junk is
refused at once with set_target's message, a valid value is stored as set_target stores it,
None clears it; and the stored SE3 or array edited in place is still the target."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import (
    AxisAlignmentTask,
    ComTask,
    DistanceTask,
    FrameTask,
    JointCouplingTask,
    LookAtTask,
    ManipulabilityTask,
    OrientationTask,
    PositionTask,
    PostureTask,
    RelativeComTask,
    RelativeFrameTask,
)

POSE = np.eye(4)
POSE[:3, 3] = [0.3, 0.1, 0.4]

# (task, a valid value, junk, its attribute names): every built-in task with a target
CASES = {
    "frame": (lambda: FrameTask("tool0"), POSE, "junk", ["target", "transform_target_to_world"]),
    "relative frame": (
        lambda: RelativeFrameTask("tool0", "shoulder_link"),
        POSE,
        np.ones((4, 4)),
        ["target", "transform_target_to_root"],
    ),
    "position": (lambda: PositionTask("tool0"), [0.3, 0.1, 0.4], [np.nan, 0, 0], ["target"]),
    "orientation": (lambda: OrientationTask("tool0"), np.eye(3), 2 * np.eye(3), ["target"]),
    "com": (lambda: ComTask(), [0.0, 0.0, 0.5], [1.0, 2.0], ["target", "target_com"]),
    "relative com": (lambda: RelativeComTask("tool0"), [0.0, 0.0, 0.5], "high", ["target"]),
    "posture": (lambda: PostureTask(), [0.1] * 6, np.ones((2, 3)), ["target", "target_q"]),
    "axis": (lambda: AxisAlignmentTask("tool0"), [0.0, 0.0, 2.0], [0, 0, 0], ["target"]),
    "look at": (lambda: LookAtTask("tool0"), [1.0, 0.0, 0.0], [1.0, 0.0], ["target"]),
    "distance": (lambda: DistanceTask("tool0", "shoulder_link"), 0.5, -1.0, ["target"]),
    "manipulability": (lambda: ManipulabilityTask("tool0"), 0.1, "high", ["target"]),
    "coupling": (
        lambda: JointCouplingTask(["shoulder_pan_joint", "elbow_joint"], [[1.0, -1.0]]),
        [0.2],
        [0.2, 0.3],
        ["target"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_assigning_junk_is_refused_with_set_targets_message(case):
    make, _, junk, names = CASES[case]
    with pytest.raises(taskik.InvalidInput) as by_method:
        make().set_target(junk)
    for name in names:
        task = make()
        before = getattr(task, name)
        with pytest.raises(taskik.InvalidInput) as by_attribute:
            setattr(task, name, junk)
        assert str(by_attribute.value) == str(by_method.value)
        assert getattr(task, name) is before  # unchanged


@pytest.mark.parametrize("case", sorted(CASES))
def test_assigning_a_valid_value_stores_what_set_target_stores(case, ur5):
    make, value, _, names = CASES[case]
    conf = ur5.configuration(ur5.q0)
    reference = make()
    reference.set_target(value)
    for name in names:
        task = make()
        setattr(task, name, value)
        stored = getattr(task, name)
        assert type(stored) is type(reference.target)
        if isinstance(stored, pin.SE3):
            assert stored.isApprox(reference.target, 0.0)
        else:
            assert np.array_equal(stored, reference.target)
        e, _ = task.compute_error_and_jacobian(conf)
        assert np.array_equal(e, reference.compute_error_and_jacobian(conf)[0])
        if isinstance(value, list):  # a copy: the caller's list or array is not kept
            assert stored is not value
        if case != "coupling":  # (its target is b = 0 until set: never None)
            setattr(task, name, None)
            assert task.target is None
            with pytest.raises(taskik.TargetNotSet):
                task.compute_error_and_jacobian(conf)


def test_a_coupling_target_cannot_be_cleared():
    task = CASES["coupling"][0]()
    with pytest.raises(taskik.InvalidInput, match="b must"):
        task.target = None
    assert task.target.tolist() == [0.0]


def test_the_stored_target_edited_in_place_is_the_target(ur5):
    """pink's idiom, ``task.transform_target_to_world.translation[0] += ...``, moves the
    target: reading the attribute gives the stored object, not a copy."""
    conf = ur5.configuration(ur5.q0)
    hand = FrameTask("tool0")
    hand.set_target_from_configuration(conf)
    assert np.allclose(hand.compute_error(conf), 0.0)
    hand.transform_target_to_world.translation[0] += 0.05
    assert hand.target is hand.transform_target_to_world
    assert np.linalg.norm(hand.compute_error(conf)[:3]) == pytest.approx(0.05, rel=1e-9)
    point = PositionTask("tool0")
    point.target = conf.get_transform_frame_to_world("tool0").translation
    point.target[2] += 0.02
    assert point.compute_error(conf)[2] == pytest.approx(0.02, rel=1e-9)
    posture = PostureTask()
    posture.target_q = ur5.q0
    posture.target[0] += 0.1
    assert posture.compute_error(conf)[0] == pytest.approx(0.1, rel=1e-9)
    v = taskik.solve_ik(conf, [hand, posture], 0.01, adaptive=False)
    assert np.isfinite(v).all() and np.abs(v).max() > 0.1


def test_a_posture_target_assigned_is_checked_against_the_model_on_first_use(ur5):
    """As set_target without a configuration: the size and the model's quaternions are
    checked at the first step (before, an attribute assigned after a checked target kept
    the "checked" mark and was never looked at)."""
    conf = ur5.configuration(ur5.q0)
    posture = PostureTask()
    posture.set_target_from_configuration(conf)
    posture.target = [0.0] * 7
    with pytest.raises(taskik.InvalidInput, match="posture target"):
        posture.compute_error_and_jacobian(conf)


def test_a_relative_frame_tasks_world_target_is_refused_by_name(ur5):
    """Its target is in the root frame: reading pink's world name says so (AttributeError,
    as for a missing attribute), and assigning it is refused with the name to use (before,
    a bare AttributeError, "property has no setter")."""
    task = RelativeFrameTask("tool0", "shoulder_link")
    with pytest.raises(AttributeError, match="transform_target_to_root"):
        _ = task.transform_target_to_world
    with pytest.raises(taskik.InvalidInput, match="set transform_target_to_root"):
        task.transform_target_to_world = POSE
    assert task.target is None


@pytest.mark.parametrize(
    "make, name, junk, message",
    [
        (lambda: AxisAlignmentTask("tool0"), "axis", [0.0, 0.0, 0.0], "axis must be a non-zero"),
        (lambda: LookAtTask("tool0"), "axis", "z", "axis"),
        (lambda: PositionTask("tool0"), "offset", [np.inf, 0.0, 0.0], "offset contains NaN"),
        (lambda: PositionTask("tool0"), "offset", [0.1, 0.2], "offset must have shape"),
        (lambda: PositionTask("tool0"), "jacobian", "start", "jacobian must be 'end' or"),
    ],
)
def test_the_other_public_attributes_are_checked_when_assigned(make, name, junk, message):
    """The tasks' other plain attributes (an axis, a point's offset, the Jacobian kind) were
    assigned without a check too: they take the constructor's checks now."""
    task = make()
    before = getattr(task, name)
    with pytest.raises(taskik.InvalidInput, match=message):
        setattr(task, name, junk)
    after = getattr(task, name)
    assert after is before or np.array_equal(after, before)


def test_the_other_public_attributes_take_valid_values(ur5):
    conf = ur5.configuration(ur5.q0)
    axis = AxisAlignmentTask("tool0")
    axis.axis = [0.0, 3.0, 0.0]
    assert axis.axis.tolist() == [0.0, 1.0, 0.0]  # normalised, as the constructor does
    point = PositionTask("tool0")
    point.set_target_from_configuration(conf)
    point.offset = [0.0, 0.0, 0.1]
    point.jacobian = "target"
    moved = conf.get_transform_frame_to_world("tool0").act(np.array([0.0, 0.0, 0.1]))
    assert np.allclose(point.point(conf), moved)
    assert np.linalg.norm(point.compute_error(conf)) == pytest.approx(0.1, rel=1e-9)
    point.offset = None
    assert point.offset is None and np.allclose(point.compute_error(conf), 0.0)
