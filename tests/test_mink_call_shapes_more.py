"""mink's remaining constructor shapes (read from mink's source): taken with mink's meaning
where the call is unambiguous, refused with a TaskikError that shows the taskik call where it
is not; never a bare TypeError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import taskik

MODELS = Path(__file__).resolve().parent.parent / "benchmarks" / "mink_examples"


@pytest.fixture(scope="module")
def arm7() -> pin.Model:
    return pin.buildModelFromMJCF(str(MODELS / "arm7.xml"))


def home(model: pin.Model) -> taskik.Configuration:
    return taskik.Configuration(model, model.referenceConfigurations["home"])


# ------------------------------------------------------------------- ConfigurationLimit
def test_configuration_limit_takes_minks_margin_by_position_and_keyword(arm7):
    """mink's ConfigurationLimit(model, gain, min_distance_from_limits): the bounds are
    ``gain (lower + d − q) / dt`` and ``gain (upper − d − q) / dt`` (before, a TypeError)."""
    conf, dt, d = home(arm7), 0.01, 0.05
    lower, upper = arm7.lowerPositionLimit, arm7.upperPositionLimit
    for limit in (
        taskik.ConfigurationLimit(arm7, 0.95, d),
        taskik.ConfigurationLimit(arm7, gain=0.95, min_distance_from_limits=d),
        taskik.ConfigurationLimit(model=arm7, min_distance_from_limits=d, gain=0.95),
    ):
        idx, lo, hi = limit.compute_box(conf, dt)
        assert idx.tolist() == list(range(7))
        assert np.allclose(lo, 0.95 * (lower + d - conf.q) / dt, rtol=1e-12, atol=1e-12)
        assert np.allclose(hi, 0.95 * (upper - d - conf.q) / dt, rtol=1e-12, atol=1e-12)
        assert "min_distance_from_limits=0.05" in repr(limit)
    plain = taskik.ConfigurationLimit(arm7, 0.95)
    assert plain.min_distance_from_limits == 0.0 and np.array_equal(plain.q_max, upper)


def test_a_margin_keeps_the_joint_that_far_inside_and_a_negative_one_lets_it_out(arm7):
    """A loop driving joint1 past its upper limit stops d inside it (d > 0) or |d| beyond
    it (d < 0), to within a thousandth of d."""
    upper = arm7.upperPositionLimit[0]
    for d in (0.1, -0.05):
        conf = home(arm7)
        posture = taskik.PostureTask(1.0)
        goal = conf.q.copy()
        goal[0] = upper + 1.0
        posture.set_target(goal)
        limits = [taskik.ConfigurationLimit(arm7, 0.95, d)]
        for _ in range(200):
            v = taskik.solve_ik(conf, [posture], 0.01, limits=limits, adaptive=False)
            conf.integrate_inplace(v, 0.01)
        assert abs(conf.q[0] - (upper - d)) < 1e-3 * abs(d)


@pytest.mark.parametrize(
    "margin, message",
    [
        (float("nan"), r"min_distance_from_limits must be finite"),
        ("0.1", r"min_distance_from_limits must be"),
        (10.0, r"leaves joint joint1 no range: its limits \[-2\.9\d*, 2\.9\d*\]"),
    ],
)
def test_a_margin_that_is_not_a_number_or_empties_a_range_is_refused(arm7, margin, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.ConfigurationLimit(arm7, 0.95, margin)


def test_safety_break_still_checks_the_models_ranges(arm7):
    """The margin shapes the step's bounds, not the check of q (mink's check_limits reads
    the model's ranges too): a q inside the range but within d of a limit passes."""
    conf = home(arm7)
    q = conf.q.copy()
    q[0] = arm7.upperPositionLimit[0] - 0.01
    conf.update(q)
    limit = taskik.ConfigurationLimit(arm7, 0.95, 0.05)
    limit.check(conf.q)
    posture = taskik.PostureTask(1.0)
    posture.set_target_from_configuration(conf)
    v = taskik.solve_ik(conf, [posture], 0.01, "daqp", 1e-3, True, limits=[limit])
    assert np.isfinite(v).all()


# --------------------------------------------------------------------- VelocityLimit
def test_velocity_limit_takes_minks_velocities_keyword(arm7):
    """mink's VelocityLimit(model=..., velocities={joint: cap}) (before, a TypeError); the
    joints not named are unbounded, as in mink; an empty mapping bounds nothing."""
    conf = home(arm7)
    caps = {"joint2": 1.5, "joint1": 0.5}
    for limit in (
        taskik.VelocityLimit(model=arm7, velocities=caps),
        taskik.VelocityLimit(arm7, velocities=caps),
        taskik.VelocityLimit(arm7, caps),
    ):
        idx, lo, hi = limit.compute_box(conf, 0.01)
        assert idx.tolist() == [0, 1] and hi.tolist() == [0.5, 1.5] and lo.tolist() == [-0.5, -1.5]
    assert taskik.VelocityLimit(arm7, velocities={}).indices.size == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"limits": {"joint1": 1.0}, "velocities": {"joint2": 1.0}}, r"two sets of caps"),
        ({"velocities": np.ones(7)}, r"velocities= .* must be a mapping .*VelocityLimit\(model"),
        ({"velocities": {"nope": 1.0}}, r"nope"),
    ],
)
def test_velocity_limit_refusals_show_the_taskik_call(arm7, kwargs, message):
    with pytest.raises(taskik.TaskikError, match=message):
        taskik.VelocityLimit(arm7, **kwargs)


# --------------------------------------------------------------------------- ComTask
def test_com_task_takes_minks_gain_and_damping_by_position():
    """mink's ComTask(cost, gain, lm_damping) (before, a TypeError)."""
    task = taskik.ComTask(2.0, 0.5, 0.1)
    assert task.cost.tolist() == [2.0] * 3 and (task.gain, task.lm_damping) == (0.5, 0.1)
    task = taskik.ComTask([1.0, 1.0, 0.0], 0.25)
    assert (task.gain, task.lm_damping) == (0.25, 0.0)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((1.0, 0.5, 0.1, 2.0), {}, r"at most two arguments after cost .*gain=\.\.\."),
        ((1.0, 0.5), {"gain": 0.3}, r"gain twice"),
        ((1.0, 0.5, 0.1), {"lm_damping": 0.3}, r"lm_damping twice"),
        ((1.0, 2.0), {}, r"gain must be in \(0, 1\]"),
        ((1.0, "fast"), {}, r"gain"),
    ],
)
def test_com_task_refusals_name_the_problem(args, kwargs, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.ComTask(*args, **kwargs)


# ------------------------------------------------------------ FrameTask, RelativeFrameTask
def test_frame_task_takes_minks_positional_order(arm7):
    """mink's FrameTask(frame_name, frame_type, position_cost, orientation_cost, gain,
    lm_damping) is taken: the frame type in the second place tells it apart (before, a
    TypeError)."""
    conf = home(arm7)
    ours = taskik.FrameTask("attachment_site", 1.0, 0.5, gain=0.8, lm_damping=1.0)
    for mink_style in (
        taskik.FrameTask("attachment_site", "site", 1.0, 0.5, 0.8, 1.0),
        taskik.FrameTask("attachment_site", "site", 1.0, 0.5, 0.8, lm_damping=1.0),
    ):
        assert mink_style.frame == "attachment_site"
        assert np.array_equal(mink_style.cost, ours.cost)
        assert (mink_style.gain, mink_style.lm_damping) == (0.8, 1.0)
    four = taskik.FrameTask("link7", "body", 2.0, 0.0)
    assert four.cost.tolist() == [2.0] * 3 + [0.0] * 3 and four.gain == 1.0
    four.set_target_from_configuration(conf)
    assert np.allclose(four.compute_error(conf), 0.0)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("a", 1.0, 1.0, 0.5), {}, r"three arguments by position.*FrameTask\('a', position_c"),
        (("a", "site", 1.0, 1.0), {"frame_type": "site"}, r"frame_type twice"),
        (("a", "geom", 1.0, 1.0), {}, r"a MuJoCo geom is not a frame"),
        (("a", "joint", 1.0, 1.0), {}, r"frame_type must be 'body' or 'site'"),
        (("a", "site", 1.0, 1.0, 0.5, 0.1, 3.0), {}, r"at most two arguments after orientation"),
        (("a", "site", 1.0, 1.0, 0.5), {"gain": 0.2}, r"gain twice"),
        (("a", "site", 1.0), {}, r"mink's order gives both costs after it"),
    ],
)
def test_frame_task_positional_refusals_show_the_taskik_call(args, kwargs, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.FrameTask(*args, **kwargs)


def test_relative_frame_task_takes_minks_positional_order(arm7):
    """mink's RelativeFrameTask(frame_name, frame_type, root_name, root_type,
    position_cost, orientation_cost, gain, lm_damping) (before, a TypeError)."""
    conf = home(arm7)
    ours = taskik.RelativeFrameTask("attachment_site", "link3", 1.0, 0.5, gain=0.7)
    mink_style = taskik.RelativeFrameTask(
        "attachment_site", "site", "link3", "body", 1.0, 0.5, 0.7, 0.2
    )
    assert (mink_style.frame, mink_style.root) == ("attachment_site", "link3")
    assert np.array_equal(mink_style.cost, ours.cost)
    assert (mink_style.gain, mink_style.lm_damping) == (0.7, 0.2)
    target = pin.SE3(pin.rpy.rpyToMatrix(0.2, -0.1, 0.3), np.array([0.1, 0.2, 0.3]))
    for task in (mink_style, ours):
        task.set_target(target)
    e, J = mink_style.compute_error_and_jacobian(conf)
    e_ours, J_ours = ours.compute_error_and_jacobian(conf)
    assert np.abs(e).max() > 0.1 and np.array_equal(e, e_ours) and np.array_equal(J, J_ours)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("a", "b", 1.0, 1.0, 0.5), {}, r"four arguments by position.*mink's eight"),
        (("a", "site", "b", "body", 1.0), {}, r"four arguments by position"),
        (("a", "site", "b", "body", 1.0, 1.0), {"root_type": "body"}, r"root_type twice"),
        (("a", "site", "b", "geom", 1.0, 1.0), {}, r"root_type must be .*geom is not"),
        (("a", "site", "b", "body", 1.0, 1.0, 0.5, 0.1, 9.0), {}, r"at most two arguments"),
        (("a", "site", "b", None, 1.0, 1.0), {}, r"root_type must be 'body' or 'site' in mink"),
        (("a", None, "b", "body", 1.0, 1.0), {}, r"frame_type must be 'body' or 'site' in mink"),
    ],
)
def test_relative_frame_task_positional_refusals_show_the_taskik_call(args, kwargs, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.RelativeFrameTask(*args, **kwargs)


def test_damping_task_refuses_a_third_argument_naming_minks_call(arm7):
    """mink's DampingTask is (model, cost) only: a third argument by position was a bare
    TypeError."""
    with pytest.raises(taskik.InvalidInput, match=r"at most two arguments .*DampingTask\(model"):
        taskik.DampingTask(arm7, 1.0, 0.5)
    assert taskik.DampingTask(arm7, 2.0).cost.tolist() == [2.0] * 7
