"""FrameTask.set_costs checks each half as its own cost: a vector of the wrong length or a
negative weight is an InvalidInput whose message starts with the argument's name."""

from __future__ import annotations

import numpy as np
import pytest

from taskik import FrameTask, InvalidInput


@pytest.mark.parametrize("name", ["position_cost", "orientation_cost"])
def test_a_cost_vector_of_the_wrong_length_is_refused(name):
    task = FrameTask("tool0")
    with pytest.raises(InvalidInput, match=rf"^{name} must be a scalar or have shape \(3,\)"):
        task.set_costs(**{name: [1.0, 2.0]})
    assert np.array_equal(task.cost, np.ones(6))


@pytest.mark.parametrize("name", ["position_cost", "orientation_cost"])
def test_a_negative_cost_names_its_half(name):
    task = FrameTask("tool0")
    with pytest.raises(InvalidInput, match=rf"^{name} must be >= 0"):
        task.set_costs(**{name: np.array([1.0, -1.0, 1.0])})


def test_each_half_takes_a_vector_of_three():
    task = FrameTask("tool0")
    task.set_costs(position_cost=[1.0, 2.0, 3.0], orientation_cost=np.array([0.1, 0.2, 0.3]))
    assert np.array_equal(task.cost, [1.0, 2.0, 3.0, 0.1, 0.2, 0.3])
