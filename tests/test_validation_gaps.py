"""Input validation: a limit built for another model is rejected also when that model
differs from the configuration's in one respect only."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik


def chain(joints) -> pin.Model:
    """A serial chain of ``(name, joint model)`` with unit links along x."""
    model = pin.Model()
    parent = 0
    for name, joint in joints:
        placement = pin.SE3(np.eye(3), np.array([1.0, 0.0, 0.0]))
        parent = model.addJoint(parent, joint, placement, name)
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    return model


def posture_step(model, limit):
    conf = taskik.Configuration(model, pin.neutral(model))
    task = taskik.PostureTask()
    task.set_target(pin.neutral(model))
    return taskik.solve_ik(conf, [task], 0.01, limits=[limit])


@pytest.mark.parametrize(
    "other",
    [
        # the same joints under other names (same nq and nv)
        [("x", pin.JointModelRZ()), ("y", pin.JointModelRZ())],
        # a continuous joint (cos, sin: nq = 2) in place of a revolute one (same names, nv)
        [("a", pin.JointModelRZ()), ("b", pin.JointModelRUBZ())],
    ],
)
def test_a_limit_built_for_a_model_that_differs_in_one_respect_is_rejected(other):
    model = chain([("a", pin.JointModelRZ()), ("b", pin.JointModelRZ())])
    own = chain(other)
    assert own.nv == model.nv
    names = list(own.names[1:])
    limit = taskik.VelocityLimit(own, dict.fromkeys(names, 1.0))
    with pytest.raises(taskik.InvalidInput, match="was built for model"):
        posture_step(model, limit)
    # the same limit on its own model, and an equal limit built for this model, are fine
    assert posture_step(own, limit).shape == (own.nv,)
    same = taskik.VelocityLimit(model, {"a": 1.0, "b": 1.0})
    assert posture_step(model, same).shape == (model.nv,)
