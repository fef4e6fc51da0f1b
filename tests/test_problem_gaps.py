"""Assembly of one step: the description of conflicting boxes when several limits share the
same bounds."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik import Limit, NoSolutionFound, PostureTask


class SoftBox(Limit):
    """A soft box on some joints, like the position limits (clipped into the hard box)."""

    hard = False

    def __init__(self, name, indices, lower, upper):
        self.name = name
        self.indices = np.array(indices)
        self.lower, self.upper = np.array(lower, float), np.array(upper, float)

    def compute_box(self, configuration, dt):
        return self.indices, self.lower, self.upper


def test_a_conflict_is_named_when_two_limits_give_the_same_bounds(ur5):
    """Two limits with identical bounds on v[2] both exclude a third: the message names one
    of them and the third, with the bounds that cross."""
    conf = ur5.configuration()
    task = PostureTask()
    task.set_target(ur5.q0)
    first = SoftBox("first", [2], [1.0], [2.0])
    twin = SoftBox("twin", [2], [1.0], [2.0])
    below = SoftBox("below", [2], [-2.0], [-1.0])
    with pytest.raises(NoSolutionFound) as info:
        taskik.solve_ik(conf, [task], 0.01, limits=[first, twin, below])
    message = str(info.value)
    assert "limit lower bound 1 > below limit upper bound -1" in message
    assert "v[2]: first limit" in message or "v[2]: twin limit" in message
