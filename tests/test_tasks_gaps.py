"""Tasks: the posture task's velocity rows on a model without any joint."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

import taskik
from taskik.tasks.posture import actuated_velocity_indices


def test_a_model_without_joints_has_no_actuated_velocity():
    model = pin.Model()  # the universe only
    assert model.njoints == 1
    assert actuated_velocity_indices(model).tolist() == []
    conf = taskik.Configuration(model, np.zeros(0))
    posture = taskik.PostureTask()
    posture.set_target(np.zeros(0))
    assert posture.compute_error(conf).shape == (0,)
