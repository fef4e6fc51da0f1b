"""solve_ik: what it accepts as a configuration."""

from __future__ import annotations

import numpy as np

import taskik


def test_a_subclass_of_configuration_is_a_configuration(ur5, rng):
    class Logged(taskik.Configuration):
        """A configuration with extra bookkeeping of its own."""

    q = ur5.random_configuration(rng)
    conf, sub = ur5.configuration(q), Logged(ur5.model, q)
    task = taskik.PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + 0.05)
    v = taskik.solve_ik(conf, [task], 0.01, adaptive=False)
    assert np.abs(v).max() > 0.1
    assert np.allclose(taskik.solve_ik(sub, [task], 0.01, adaptive=False), v, atol=1e-12)
