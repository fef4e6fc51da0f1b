"""Tasks and limits given wrongly typed arguments: a clear taskik error, never a bare
exception and never a silently wrong task (causes found by fuzzing their constructors)."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik import InvalidInput
from taskik.limits import BaseVelocityLimit, ConeLimit
from taskik.tasks import (
    AxisAlignmentTask,
    ComTask,
    DampingTask,
    FrameTask,
    JointCouplingTask,
    ManipulabilityTask,
    PositionTask,
    PostureTask,
)

PAIR = ["shoulder_pan_joint", "elbow_joint"]


# ------------------------------------------------------------------ joint lists
def test_the_universe_is_not_a_joint_to_couple(ur5):
    # it was accepted and acted on the model's last velocity coordinate (its idx_v is -1)
    for joints in (["universe", "elbow_joint"], ("universe",), np.array(["universe"])):
        with pytest.raises(InvalidInput, match="'universe' is Pinocchio's fixed world"):
            JointCouplingTask(joints, np.ones((1, len(joints))))
    task = JointCouplingTask(["elbow_joint"], [[1.0]])
    with pytest.raises(InvalidInput, match="'universe'"):
        task.joints = ["universe"]
    assert task.joints == ["elbow_joint"]  # unchanged by the refused assignment


@pytest.mark.parametrize(
    "joints",
    [
        np.array(PAIR),
        tuple(PAIR),
        iter(PAIR),
        (name for name in PAIR),
        np.array(PAIR, dtype=object),
    ],
    ids=["array", "tuple", "iterator", "generator", "object array"],
)
def test_joint_names_of_any_iterable_give_the_task_of_the_list(ur5, rng, joints):
    conf = ur5.configuration(ur5.random_configuration(rng))
    A, b = [[1.0, -2.0]], [0.1]
    reference = JointCouplingTask(PAIR, A, b)
    task = JointCouplingTask(joints, A, b)
    assert task.joints == PAIR and all(type(n) is str for n in task.joints)
    e, J = task.compute_error_and_jacobian(conf)
    e_ref, J_ref = reference.compute_error_and_jacobian(conf)
    np.testing.assert_array_equal(e, e_ref)
    np.testing.assert_array_equal(J, J_ref)
    v = taskik.solve_ik(conf, [task, DampingTask(1e-6)], 0.05, limits=[])
    assert abs(float(J[0] @ v - e[0] / 0.05)) < 1e-3 * abs(e[0] / 0.05) + 1e-9


@pytest.mark.parametrize(
    "joints, message",
    [
        (None, "joints must be joint names"),
        (3, "joints must be joint names"),
        (np.nan, "joints must be joint names"),
        (b"elbow_joint", "joints must be joint names"),
        ([1, 2], "joint names \\(str\\), got int 1"),
        (np.array([1.0, 2.0]), "joint names \\(str\\), got float"),
        ([], "joints must be distinct and not empty"),
        (np.array([], dtype=str), "joints must be distinct and not empty"),
        (iter([]), "joints must be distinct and not empty"),
        (["elbow_joint", "elbow_joint"], "joints must be distinct"),
    ],
)
def test_joints_that_are_not_names_are_refused(joints, message):
    with pytest.raises(InvalidInput, match=message):
        JointCouplingTask(joints, [[1.0, 1.0]])


# ------------------------------------------------------------------ option strings
def test_option_strings_given_as_arrays_are_refused(humanoid):
    # `array in ("end", "target")` raised numpy's "truth value of an array is ambiguous"
    with pytest.raises(InvalidInput, match="jacobian must be 'end' or 'target'"):
        PositionTask("tool0", jacobian=np.ones(3))
    for kwargs, message in (({"shape": np.ones(2)}, "shape"), ({"frame": np.ones(2)}, "frame")):
        with pytest.raises(InvalidInput, match=f"BaseVelocityLimit {message} must be"):
            BaseVelocityLimit(humanoid.model, linear=1.0, **kwargs)


# ------------------------------------------------------------------ numbers beyond float
BIG = 10**400  # a Python int no float can hold: float() raised OverflowError


@pytest.mark.parametrize(
    "build",
    [
        lambda: PostureTask(cost=BIG),
        lambda: FrameTask("tool0", position_cost=BIG),
        lambda: FrameTask("tool0", gain=BIG),
        lambda: PostureTask(lm_damping=BIG),
        lambda: AxisAlignmentTask("tool0", axis=[BIG, 0, 0]),
        lambda: ManipulabilityTask("tool0", target=BIG),
        lambda: JointCouplingTask(PAIR, [[BIG, 1.0]]),
        lambda: ConeLimit("tool0", [0, 0, 1.0], [0, 0, 1.0], 0.5, faces=BIG),
    ],
)
def test_integers_beyond_the_float_range_are_refused(build):
    with pytest.raises(InvalidInput, match="float range|must be|beyond"):
        build()


def test_polytopes_of_absurd_size_are_refused_before_allocating(humanoid):
    with pytest.raises(InvalidInput, match=r"faces must be an integer in \[3, 1024\]"):
        ConeLimit("tool0", [0, 0, 1.0], [0, 0, 1.0], 0.5, faces=10**9)
    with pytest.raises(InvalidInput, match=r"vertices must be an integer in \[4, 4096\]"):
        BaseVelocityLimit(humanoid.model, linear=1.0, shape="norm", vertices=10**9)


@pytest.mark.parametrize(
    "task",
    [
        FrameTask("tool0"),
        AxisAlignmentTask("tool0", direction=[0, 0, 1.0]),
        ManipulabilityTask("tool0", 0.1),
        JointCouplingTask(PAIR, [[1.0, -1.0]]),
        PostureTask(),
        DampingTask(),
        ComTask(),
    ],
    ids=lambda t: type(t).__name__,
)
def test_a_task_evaluated_on_something_else_than_a_configuration_says_so(ur5, task):
    # (a bare AttributeError before: 'Robot' object has no attribute 'get_frame_id', ...)
    if isinstance(task, PostureTask):
        task.set_target(ur5.q0)
    if isinstance(task, FrameTask | ComTask):
        task.set_target_from_configuration(ur5.configuration())
    for wrong in (ur5, ur5.model, None):
        with pytest.raises(InvalidInput, match="needs a taskik.Configuration"):
            task.compute_error_and_jacobian(wrong)
    if isinstance(task, ManipulabilityTask):
        with pytest.raises(InvalidInput, match="needs a taskik.Configuration"):
            task.manipulability(ur5)
        for rows in (None, ["all"]):
            with pytest.raises(InvalidInput, match="rows must be"):
                task.rows = rows
        with pytest.raises(InvalidInput, match="target must be"):
            task.target = "high"
        assert task.rows == "all" and task.target == 0.1
