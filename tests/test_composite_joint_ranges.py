"""Hinges and slides inside a composite joint (an MJCF body with several joints) are bounded
like any 1-DoF joint: by ConfigurationLimit and by solve_posture's joint-limit policies."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from mjcf_models import TWO_HINGES

import taskik
from taskik.configuration import PositionRanges
from taskik.posture.joint_limits import JointLimits


@pytest.fixture(scope="module")
def two_hinges(tmp_path_factory) -> pin.Model:
    path = tmp_path_factory.mktemp("mjcf") / "two_hinges.xml"
    path.write_text(TWO_HINGES)
    model = pin.buildModelFromMJCF(str(path))
    assert [j.shortname() for j in model.joints[1:]] == ["JointModelComposite", "JointModelRY"]
    return model


LOWER = np.array([-0.5, -0.3, -1.0])
UPPER = np.array([0.5, 0.4, 1.0])


def test_the_policies_see_the_hinges_inside_the_composite_joint(two_hinges):
    ranges = PositionRanges(two_hinges)
    assert ranges.q_indices.tolist() == [0, 1, 2]
    limits = JointLimits(two_hinges)
    assert limits.idx.tolist() == ranges.q_indices.tolist()
    assert limits.rev.tolist() == [True, True, True]
    assert np.allclose(limits.lo, LOWER) and np.allclose(limits.hi, UPPER)
    q = np.array([0.9, -0.8, 0.2])
    limits.clip(q)
    assert np.allclose(q, [0.5, -0.3, 0.2])
    message = limits.violation(np.array([0.9, 0.0, 0.0]))
    assert message == "q[0] = 0.9 outside [-0.5, 0.5]"


def test_clip_keeps_every_iterate_of_solve_posture_inside_the_composite_ranges(two_hinges):
    """The tip sent where only j1 = 1.2 rad (beyond its 0.5) could take it: with
    joint_limits="clip" the answer keeps j1 and j2 in range (before, j1 ended out of it)."""
    conf = taskik.Configuration(two_hinges, np.zeros(3))
    reach = conf.get_transform_frame_to_world("tip").translation
    q_out = np.array([1.2, 0.2, 0.3])
    out = taskik.Configuration(two_hinges, q_out)
    task = taskik.PositionTask("tip")
    task.set_target(out.get_transform_frame_to_world("tip").translation)
    assert np.linalg.norm(task.target - reach) > 0.1
    result = taskik.solve_posture(
        conf, [task], joint_limits="clip", max_searches=3, max_iterations=30, rng=0
    )
    assert (result.q >= LOWER - 1e-12).all() and (result.q <= UPPER + 1e-12).all(), result.q
    assert not result.success  # out of the ranges' reach


def test_configuration_limit_bounds_the_composite_hinges(two_hinges):
    conf = taskik.Configuration(two_hinges, np.array([0.45, 0.0, 0.0]))
    idx, lo, hi = taskik.ConfigurationLimit(two_hinges, 1.0).compute_box(conf, 0.1)
    assert idx.tolist() == [0, 1, 2]
    assert np.allclose(hi, (UPPER - conf.q) / 0.1) and np.allclose(lo, (LOWER - conf.q) / 0.1)
