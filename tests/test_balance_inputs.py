"""Bad input to the contacts and the balance limit: each case a defect the input fuzzer
(tests/fuzz.py, gen_balance) found, now a clear TaskikError (or the right answer)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import taskik
from taskik.contacts import (
    Contact,
    ContactSet,
    both_feet,
    check_static_balance,
    equilibrium_forces,
    feet_and_hand,
    support_region,
)
from taskik.contacts.equilibrium import edge_distances
from taskik.exceptions import InvalidInput, TaskikError
from taskik.limits import BalanceLimit


@pytest.fixture(scope="module")
def stance(humanoid):
    conf = humanoid.configuration()
    return conf, both_feet(humanoid, conf)


def _flat_set() -> ContactSet:
    points = np.array([[0.1, 0.1, 0.0], [-0.1, 0.1, 0.0], [-0.1, -0.1, 0.0], [0.1, -0.1, 0.0]])
    return ContactSet(points, np.tile([0.0, 0.0, 1.0], (4, 1)), np.full(4, 0.7))


BAD = {
    # a float number of edges was truncated (3.5 → 3), a huge one allocated gigabytes
    "check_static_balance(edges=3.5)": (
        lambda conf, feet: check_static_balance(conf, feet, 3.5),
        "edges",
    ),
    "BalanceLimit(edges=10**9)": (lambda conf, feet: BalanceLimit(feet, edges=10**9), "edges"),
    "support_region(edges=10**9)": (lambda conf, feet: support_region(_flat_set(), 10**9), "edges"),
    "equilibrium_forces(edges=65)": (
        lambda conf, feet: equilibrium_forces(_flat_set(), np.zeros(3), 65),
        "edges",
    ),
    # a contact set was not checked: NaN points gave a NaN region
    "ContactSet(NaN points)": (
        lambda conf, feet: ContactSet(
            np.full((4, 3), math.nan), np.tile([0.0, 0.0, 1.0], (4, 1)), np.full(4, 0.7)
        ),
        "NaN",
    ),
    "ContactSet(friction 0)": (
        lambda conf, feet: ContactSet(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]), np.zeros(1)),
        "friction",
    ),
    # a list of Contact where a ContactSet is expected: AttributeError
    "support_region(list of Contact)": (lambda conf, feet: support_region(feet), "ContactSet"),
    "equilibrium_forces(com of length 4)": (
        lambda conf, feet: equilibrium_forces(_flat_set(), np.zeros(4)),
        "com",
    ),
    # edge_distances of an empty polygon: ValueError
    "edge_distances(no vertex)": (
        lambda conf, feet: edge_distances(np.zeros((0, 2)), np.zeros(2)),
        "vertices",
    ),
    # stance helpers given no Robot, or another robot's: AttributeError or garbage
    "both_feet(None)": (lambda conf, feet: both_feet(None, conf), "Robot"),
    "both_feet(a pinocchio model)": (lambda conf, feet: both_feet(conf.model, conf), "Robot"),
    "both_feet(robot of another model)": (
        lambda conf, feet: both_feet(taskik.robots.load("ur5"), conf),
        "model",
    ),
    "feet_and_hand(hand=3)": (
        lambda conf, feet: feet_and_hand(taskik.robots.load("humanoid"), conf, 3, (0, 0, 1)),
        "hand",
    ),
    # friction so large the linear programmes lose their accuracy
    "Contact(friction=1e3)": (lambda conf, feet: Contact("f", [0, 0, 0], friction=1e3), "friction"),
    "Contact.rectangle(length=1e300)": (
        lambda conf, feet: Contact.rectangle("f", 1e300, 0.1),
        "length",
    ),
    # direct calls of the limit with a bad dt or configuration: ZeroDivisionError,
    # AttributeError
    "compute_inequalities(dt=0)": (
        lambda conf, feet: BalanceLimit(feet).compute_inequalities(conf, 0.0),
        "dt",
    ),
    "status(None)": (lambda conf, feet: BalanceLimit(feet).status(None), "Configuration"),
    # a margin of 1e300 overflowed in the relaxation (a RuntimeWarning, then garbage)
    "BalanceLimit(margin=1e300)": (lambda conf, feet: BalanceLimit(feet, margin=1e300), "margin"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_balance_input_is_named(stance, case):
    conf, feet = stance
    make, word = BAD[case]
    with pytest.raises(TaskikError, match=word):
        make(conf, feet)


def test_a_huge_normal_is_normalised_not_zeroed():
    """(0, 0, 1e300): its norm overflowed to inf and the stored normal was (0, 0, 0)."""
    contact = Contact("f", [0.0, 0.0, 0.0], normal=[0.0, 0.0, 1e300])
    np.testing.assert_allclose(contact.normal, [0.0, 0.0, 1.0], atol=1e-15)


def test_contacts_that_hold_nothing_give_an_empty_region_not_an_exception(stance):
    """A hand on a ceiling alone (normal down) holds the CoM nowhere: the check says so
    (not stable, margin -inf) instead of raising a bare ValueError."""
    conf, feet = stance
    ceiling = Contact(feet[0].frame.name, feet[0].points, normal=[0.0, 0.0, -1.0])
    check = check_static_balance(conf, [ceiling])
    assert not check.stable and check.forces is None
    assert check.margin == -math.inf and not len(check.region.vertices)
    with pytest.raises(InvalidInput, match="nowhere"):
        BalanceLimit([ceiling]).compute_inequalities(conf, 0.01)


@pytest.mark.parametrize(
    ("field", "value"),
    [("points", np.zeros((4, 3))), ("normal", (1.0, 0.0, 0.0)), ("friction", 0.1),
     ("held", False), ("frame", "universe")],
)  # fmt: skip
def test_a_contact_is_fixed_once_made_so_no_limit_misses_a_change(stance, field, value):
    """A BalanceLimit reads its contacts when it is made: a contact changed afterwards would
    be silently ignored. Assigning a field is refused, the arrays are read-only."""
    _, contacts = stance
    contact = contacts[0]
    before = (contact.points.copy(), contact.normal.copy(), contact.friction, contact.held)
    with pytest.raises(InvalidInput, match=rf"fixed once made \(its {field}"):
        setattr(contact, field, value)
    with pytest.raises(ValueError, match="read-only"):
        contact.points[0, 0] += 0.1
    with pytest.raises(ValueError, match="read-only"):
        contact.normal[0] = 1.0
    assert np.array_equal(contact.points, before[0]) and np.array_equal(contact.normal, before[1])
    assert (contact.friction, contact.held) == before[2:]
    fresh = Contact(contact.frame.name, contact.points, contact.normal)  # from its arrays
    assert fresh.points.flags.writeable is False and fresh.points is not contact.points
