"""Position and velocity limits: what their constructors accept and refuse (with messages
that name the limit), and the boxes they give at the edges (one joint, no joint)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import ConfigurationLimit, InvalidInput, VelocityLimit

DT = 0.01


def chain(n, joint=pin.JointModelRZ, lower=-1.0, upper=1.0, velocity=2.0):
    """A serial chain of n joints named j0, j1… with the given position and velocity limits."""
    model = pin.Model()
    parent = 0
    for k in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.2, 0.0, 0.0]))
        parent = model.addJoint(
            parent,
            joint(),
            placement,
            f"j{k}",
            np.array([1e3]),
            np.array([velocity]),
            np.array([lower]),
            np.array([upper]),
        )
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    return model


# ---------------------------------------------------------------- constructors
@pytest.mark.parametrize("not_a_model", [None, "ur5", np.zeros(6)])
def test_limits_built_without_a_model_name_themselves(ur5, not_a_model):
    with pytest.raises(InvalidInput, match="^VelocityLimit needs a pinocchio.Model"):
        VelocityLimit(not_a_model)
    with pytest.raises(InvalidInput, match="^ConfigurationLimit needs a pinocchio.Model"):
        ConfigurationLimit(not_a_model)


@pytest.mark.parametrize("gain", [0.0, -0.5, 1.5, np.nan])
def test_a_bad_position_limit_gain_names_the_limit_and_the_range(ur5, gain):
    with pytest.raises(InvalidInput, match=r"^ConfigurationLimit gain must be in \(0, 1\]"):
        ConfigurationLimit(ur5.model, gain=gain)


def test_an_empty_mapping_bounds_no_velocity(ur5):
    limit = VelocityLimit(ur5.model, {})
    idx, lower, upper = limit.compute_box(ur5.configuration(), DT)
    assert idx.dtype.kind == "i" and idx.shape == lower.shape == upper.shape == (0,)
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.5)
    v = taskik.solve_ik(ur5.configuration(), [task], DT, limits=[limit])
    assert np.allclose(v, 0.5 / DT)


@pytest.mark.parametrize("caps", ["fast", [[1.0, 2.0], [3.0]], object()])
def test_caps_that_are_not_numbers_are_refused_also_for_a_single_joint(caps):
    """A one-joint model takes a vector of one cap; anything that is not numbers is refused
    (it is never read as an arbitrary value of the right length)."""
    model = chain(1)
    assert np.array_equal(VelocityLimit(model, [0.5]).v_max, [0.5])
    with pytest.raises(InvalidInput, match="vector of nv = 1 velocity caps or a mapping"):
        VelocityLimit(model, caps)


def test_a_cap_given_as_none_is_refused_not_taken_for_unbounded(ur5):
    caps = [1.0, None, 1.0, 1.0, 1.0, 1.0]
    with pytest.raises(InvalidInput, match=r"\(the caps must be real numbers, got \[1.0, None"):
        VelocityLimit(ur5.model, caps)
    # unbounded is written inf
    caps[1] = np.inf
    assert VelocityLimit(ur5.model, caps).indices.tolist() == [0, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("caps", "why"), [(["1.5"] * 6, "text"), ([True] * 6, "boolean"), ([1j] * 6, "complex")]
)
def test_caps_given_as_text_booleans_or_complex_numbers_are_refused(ur5, caps, why):
    """numpy reads "1.5" and True as 1.5 and 1.0: the caps are refused, saying why."""
    with pytest.raises(InvalidInput, match=rf"\(the caps must be real numbers, got {why} values\)"):
        VelocityLimit(ur5.model, caps)
