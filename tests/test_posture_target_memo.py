"""A posture target set without a configuration is checked on first use; a task list built
anew every step (new PostureTask, same target values) is checked once, and any other
values, or another model, are checked again."""

from __future__ import annotations

import pinocchio as pin
import pytest

import taskik


@pytest.fixture
def free_flyer():
    model = pin.Model()
    root = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root_joint")
    model.appendBodyToJoint(root, pin.Inertia.Random(), pin.SE3.Identity())
    arm = model.addJoint(root, pin.JointModelRZ(), pin.SE3.Identity(), "j1")
    model.appendBodyToJoint(arm, pin.Inertia.Random(), pin.SE3.Identity())
    return model


def counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    check = taskik.Configuration.check_q

    def counted(self, q):
        calls.append(1)
        return check(self, q)

    monkeypatch.setattr(taskik.Configuration, "check_q", counted)
    return calls


def test_the_same_target_values_are_checked_once(free_flyer, monkeypatch):
    conf = taskik.Configuration(free_flyer, pin.neutral(free_flyer))
    calls = counting(monkeypatch)
    for _ in range(5):
        task = taskik.PostureTask(1e-2)
        task.set_target(pin.neutral(free_flyer))
        task.compute_error_and_jacobian(conf)
    assert len(calls) == 1
    other = pin.neutral(free_flyer)
    other[-1] = 0.3
    task = taskik.PostureTask(1e-2)
    task.set_target(other)
    task.compute_error_and_jacobian(conf)
    assert len(calls) == 2


def test_a_bad_target_after_a_good_one_is_still_refused(free_flyer):
    conf = taskik.Configuration(free_flyer, pin.neutral(free_flyer))
    good = taskik.PostureTask(1e-2)
    good.set_target(pin.neutral(free_flyer))
    good.compute_error_and_jacobian(conf)
    bad_q = pin.neutral(free_flyer)
    bad_q[3:7] = [0.0, 0.0, 0.0, 2.0]  # (not a unit quaternion)
    bad = taskik.PostureTask(1e-2)
    bad.set_target(bad_q)
    with pytest.raises(taskik.InvalidConfiguration):
        bad.compute_error_and_jacobian(conf)
    # the same good values on another model object are checked again (and pass)
    copy = pin.Model(free_flyer)
    again = taskik.PostureTask(1e-2)
    again.set_target(pin.neutral(free_flyer))
    again.compute_error_and_jacobian(taskik.Configuration(copy, pin.neutral(copy)))
