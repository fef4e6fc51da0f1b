"""Input validation of what a limit of one's own returns: every malformed box or row set
is refused with :class:`taskik.InvalidInput` naming the limit and the problem, and the
damping of a step is checked by name."""

from __future__ import annotations

import numpy as np
import pytest

import taskik

DT = 0.01
NV = 6  # the UR5


class GivenBox(taskik.Limit):
    """A limit of one's own that returns a fixed box ``(indices, lower, upper)``."""

    name = "mine"

    def __init__(self, indices, lower, upper):
        self.box = indices, lower, upper

    def compute_box(self, configuration, dt):
        return self.box


class GivenRows(taskik.Limit):
    """A limit of one's own that returns fixed rows ``G v <= h``."""

    name = "mine"

    def __init__(self, G, h):
        self.rows = G, h

    def compute_inequalities(self, configuration, dt):
        return self.rows


def step(ur5, limit):
    conf = ur5.configuration()
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.1)
    return taskik.solve_ik(conf, [task], DT, limits=[limit])


@pytest.mark.parametrize(
    ("indices", "why"),
    [
        (np.array([1.0, 2.0]), "float indices"),
        (np.array([[1, 2]]), "a 2-D array of indices in range"),
        (np.array([-1, 2]), "a negative index (the largest in range)"),
        (np.array([1, NV]), "the index nv (one past the last)"),
    ],
)
def test_box_indices_must_be_a_flat_integer_array_in_range(ur5, indices, why):
    lower, upper = -np.ones(indices.shape), np.ones(indices.shape)
    with pytest.raises(taskik.InvalidInput, match=rf"'mine' gave box indices .* \[0, {NV}\)"):
        step(ur5, GivenBox(indices, lower, upper))


def test_box_indices_at_both_ends_of_the_range_are_accepted(ur5):
    v = step(ur5, GivenBox(np.array([0, NV - 1]), [-0.5, -0.5], [0.5, 0.5]))
    assert v[0] == pytest.approx(0.5) and v[NV - 1] == pytest.approx(0.5)
    assert v[1] == pytest.approx(0.1 / DT)


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ([-1.0], [1.0, 1.0]),  # the lower bounds are short
        ([-1.0, -1.0], [1.0]),  # the upper bounds are short
        ([-1.0, -1.0, -1.0], [1.0, 1.0]),
    ],
)
def test_box_bounds_must_have_one_value_per_index(ur5, lower, upper):
    with pytest.raises(taskik.InvalidInput, match="'mine' gave 2 indices but bounds of shapes"):
        step(ur5, GivenBox(np.array([1, 2]), lower, upper))


@pytest.mark.parametrize(
    ("lower", "upper"),
    [([None, -1.0], [1.0, 1.0]), ([-1.0, -1.0], [1.0, None])],
)
def test_a_bound_given_as_none_is_refused_not_taken_for_unbounded(ur5, lower, upper):
    """±inf means unbounded; None is not a number, and the limit is named."""
    with pytest.raises(taskik.InvalidInput, match="bounds of limit 'mine' must be real numbers"):
        step(ur5, GivenBox(np.array([1, 2]), lower, upper))


def test_bounds_given_as_lists_of_integers_are_read_as_floats(ur5):
    v = step(ur5, GivenBox(np.array([1, 2]), [-2, 0], [2, 0]))
    assert v[1] == pytest.approx(2.0) and v[2] == 0.0 and v[0] == pytest.approx(0.1 / DT)


def rows(n_rows, width, fill=1.0):
    G = np.zeros((n_rows, width))
    G[:, 0] = fill
    return G


@pytest.mark.parametrize(
    ("G", "h"),
    [
        (rows(1, NV + 1), [0.5]),  # one column too many, h right
        (rows(2, NV - 1), [0.5, 0.5]),  # one column short, h right
        (rows(1, NV)[0], [0.5]),  # a flat G
        (rows(2, NV), [0.5]),  # h short
        (rows(1, NV), [0.5, 0.5]),  # h long
    ],
)
def test_rows_must_be_k_by_nv_with_one_bound_each(ur5, G, h):
    with pytest.raises(taskik.InvalidInput, match=rf"'mine' gave rows G .*expected \(k, {NV}\)"):
        step(ur5, GivenRows(G, h))


@pytest.mark.parametrize(
    ("G", "h"),
    [
        (rows(1, NV, np.nan), [0.5]),  # NaN in G only
        (rows(1, NV), [np.nan]),  # NaN in h only
        ([[None] + [0.0] * (NV - 1)], [0.5]),  # None in G
        (rows(1, NV), [None]),  # None in h
    ],
)
def test_rows_with_a_nan_or_a_none_anywhere_are_refused_by_name(ur5, G, h):
    nan_or_none = r"'mine'.*gave NaN rows G v <= h|of limit 'mine' must be real numbers"
    with pytest.raises(taskik.InvalidInput, match=nan_or_none):
        step(ur5, GivenRows(G, h))


def test_rows_given_as_nested_lists_of_integers_bound_the_step(ur5):
    G = [[1, 1, 0, 0, 0, 0]]
    v = step(ur5, GivenRows(G, [3]))
    assert v[0] + v[1] == pytest.approx(3.0) and v[2] == pytest.approx(0.1 / DT)


@pytest.mark.parametrize("damping", [-1e-3, np.nan, np.inf, "1e-6"])
def test_a_bad_damping_is_named_in_the_error(ur5, damping):
    task = taskik.PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(taskik.InvalidInput, match="^damping "):
        taskik.solve_ik(ur5.configuration(), [task], DT, damping=damping)


def posture(ur5):
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 0.1)
    return task


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # a generator would be used up by the check: it is refused, never read as no task
        (lambda t: (x for x in [t]), "^tasks must be a list of Task objects, got generator$"),
        (lambda t: {t: 1.0}, "^tasks must be a list of Task objects, got dict$"),
        (lambda t: 5, "^tasks must be a list of Task objects, got int$"),
        (lambda t: "posture", "^tasks must be a list of Task objects, got str$"),
        (
            lambda t: [t, "posture"],
            "^tasks must contain Task objects, got str 'posture' at index 1$",
        ),
    ],
)
def test_a_task_list_that_is_not_a_list_of_tasks_is_refused_by_name(ur5, make, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.solve_ik(ur5.configuration(), make(posture(ur5)), DT)


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda lim: (x for x in [lim]), "generator"),
        (lambda lim: 5, "int"),
        (lambda lim: {lim: 1.0}, "dict"),
    ],
)
def test_a_limit_list_that_is_not_a_list_is_refused_by_name(ur5, make, kind):
    limits = make(taskik.VelocityLimit(ur5.model, {"elbow_joint": 0.0}))
    with pytest.raises(taskik.InvalidInput, match=f"^limits must be a list of Limit .*got {kind}$"):
        taskik.solve_ik(ur5.configuration(), [posture(ur5)], DT, limits=limits)


def test_a_set_of_tasks_is_a_list_of_tasks(ur5):
    v = taskik.solve_ik(ur5.configuration(), {posture(ur5)}, DT, limits=[])
    assert np.allclose(v, 0.1 / DT)


@pytest.mark.parametrize(
    ("lower", "upper", "named"),
    [
        (["-1.5", "-1.5"], [1.0, 1.0], "lower bounds"),
        ([-1.0, -1.0], [True, True], "upper bounds"),
        ([-1.0, -1.0], [1.0 + 0j, 1.0], "upper bounds"),
    ],
)
def test_box_bounds_must_be_real_numbers_not_text_or_booleans(ur5, lower, upper, named):
    """numpy would read "-1.5" and True as numbers: a limit's box is refused instead, with
    the side and the limit named."""
    with pytest.raises(taskik.InvalidInput, match=rf"the {named} of limit 'mine' must be"):
        step(ur5, GivenBox(np.array([1, 2]), lower, upper))


@pytest.mark.parametrize(
    ("G", "h", "named"),
    [
        ([["1"] * NV], [0.1], "rows G"),
        ([[1.0] * NV], [False], "right-hand side h"),
    ],
)
def test_inequality_rows_must_be_real_numbers(ur5, G, h, named):
    with pytest.raises(taskik.InvalidInput, match=rf"the {named} of limit 'mine' must be real"):
        step(ur5, GivenRows(G, h))


def test_infinite_box_bounds_still_mean_unbounded(ur5):
    """Only NaN and non-numbers are refused: ±inf leaves that velocity free."""
    v = step(ur5, GivenBox(np.array([1, 2]), [-np.inf, -0.5], [np.inf, 0.5]))
    assert v[1] == pytest.approx(0.1 / DT) and v[2] == pytest.approx(0.5)
