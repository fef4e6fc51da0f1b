"""Strict task priorities (taskik.hierarchy): what each level may take, on levels whose rows
are given outright (a task of constant rows), so that every expected step is a number.

Covered here: a level's direction counts however small its singular value is against the
level's others, while rows that differ from a higher level's by less than ``RANK_RTOL`` of
their norm take nothing (with and without a QP, with and without a limit the level holds);
the adaptive damping of a closed loop across levels (each level's share, the merits carried
down); limits handed down as equalities; ``solver=`` reaching every level; the defaults and
checks of ``solve_hierarchy`` called directly.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
import qpsolvers

import taskik
import taskik.hierarchy
from taskik import InvalidInput, NoSolutionFound
from taskik.backends.qp import DaqpWorkspace
from taskik.hierarchy import get_plan, solve_hierarchy

DT = 0.1
NU = 2.0  # ν of a closed loop that the adaptive damping has started to damp


class Rows(taskik.Task):
    """A task of constant rows: Jacobian ``J`` and error ``e`` whatever the configuration."""

    def __init__(self, J, e, cost=1.0):
        super().__init__(cost)
        self.J = np.atleast_2d(np.asarray(J, dtype=float))
        self.e = np.atleast_1d(np.asarray(e, dtype=float))

    def compute_error_and_jacobian(self, configuration):
        return self.e.copy(), self.J.copy()


class Box(taskik.Limit):
    """Bounds ``lower ≤ v[idx] ≤ upper`` (±inf: unbounded on that side)."""

    name = "box"

    def __init__(self, idx, lower, upper):
        self.box = np.asarray(idx), np.asarray(lower, float), np.asarray(upper, float)

    def compute_box(self, configuration, dt):
        return tuple(a.copy() for a in self.box)


class Inequalities(taskik.Limit):
    """Rows ``G v ≤ h`` (no box)."""

    name = "rows"

    def __init__(self, G, h):
        self.G, self.h = np.asarray(G, dtype=float), np.asarray(h, dtype=float)

    def compute_inequalities(self, configuration, dt):
        return self.G.copy(), self.h.copy()


def e(nv, *pairs):
    """The row with ``x`` at column ``i`` for every ``(i, x)`` in ``pairs``."""
    row = np.zeros(nv)
    for i, x in pairs:
        row[i] = x
    return row


@pytest.fixture
def conf(ur5):
    return ur5.configuration()


def with_nu(conf, levels, limits, nu=NU):
    """The loop's adaptive damping (the levels' plan), set to damp with ``ν = nu``."""
    control = get_plan(conf, levels, limits).adaptive
    control.nu = nu
    return control


# --------------------------------------------------------- what a level's rank includes
def near_singular_top(nv):
    """Top level: v0 and v1 asked for, v1 through a row 1e-13 times smaller (a direction of
    the level all the same); below, a level asking v1 for something else."""
    top = Rows([e(nv, (0, 1.0)), e(nv, (1, 1e-13))], [0.1, 1e-14])
    return [[top], [Rows(e(nv, (1, 1.0)), 0.5)]]


def test_a_top_level_with_a_tiny_singular_value_gets_all_it_asks_without_damping(conf):
    """With damping 0 a level alone in its freedom gets what it asks for, whatever the size
    of its rows: v0 = v1 = 0.1 / dt (e / dt with the 1e-13 row), and the level below cannot
    move v1, which belongs to the top level."""
    levels = near_singular_top(conf.nv)
    v = solve_hierarchy(conf, levels, DT, limits=[], damping=0.0)
    np.testing.assert_allclose(v[:2], [1.0, 1.0], rtol=1e-9)
    assert not v[2:].any()


@pytest.mark.parametrize("method", ["auto", "cascade"])
def test_a_lower_level_never_moves_a_tiny_direction_of_the_top_level(conf, method):
    """Relative to the level's own norm a singular value of 1e-13 is still rank at the top
    (there is no higher level whose rounding noise it could be): the level below leaves v1 at
    what the top level alone gives, solved with or without a QP."""
    levels = near_singular_top(conf.nv)
    alone = solve_hierarchy(conf, levels[:1], DT, limits=[], method=method)
    both = solve_hierarchy(conf, levels, DT, limits=[], method=method)
    assert abs(both[1] - alone[1]) < 1e-9
    assert abs(both[1]) < 1e-6  # (the damping 1e-12 leaves the 1e-13 row almost nothing)


def test_a_top_level_holding_a_row_keeps_its_tiny_direction_from_the_levels_below(conf):
    """The top level asks v2 past a row v2 ≤ 0.05 (which it then holds as an equality) and
    v1 through a 1e-13 row: its directions are those of its rows and the held row together,
    the tiny one included, so the level below (asking v1) leaves v1 alone."""
    nv = conf.nv
    top = Rows([e(nv, (0, 1.0)), e(nv, (1, 1e-13)), e(nv, (2, 1.0))], [0.1, 1e-14, 0.3])
    levels = [[top], [Rows(e(nv, (1, 1.0)), 0.5)]]
    limits = [Inequalities([e(nv, (2, 1.0))], [0.05])]
    alone = solve_hierarchy(conf, levels[:1], DT, limits=limits)
    both = solve_hierarchy(conf, levels, DT, limits=limits)
    assert alone[2] == pytest.approx(0.05, abs=1e-9)  # the row holds the top level back
    assert abs(both[1] - alone[1]) < 1e-9
    assert both[2] == pytest.approx(0.05, abs=1e-9)


def echo_levels(nv, below):
    """v0 at the top; a level asking v0 again through a row that differs from the top's by
    1e-13 in v1 (no direction of its own: what remains is below RANK_RTOL of its norm); then
    ``below``."""
    return [
        [Rows(e(nv, (0, 1.0)), 0.1)],
        [Rows(e(nv, (0, 1.0), (1, 1e-13)), 0.1)],
        below,
    ]


def test_an_echo_of_a_higher_level_takes_no_freedom_under_the_cascade(conf):
    """method='cascade' solves the echo level through its QP: its 1e-13 remainder is not
    rank (on the scale of its own rows), so the level below still gets v1 = 0.4 / dt."""
    levels = echo_levels(conf.nv, [Rows(e(conf.nv, (1, 1.0)), 0.4)])
    v = solve_hierarchy(conf, levels, DT, limits=[], method="cascade")
    assert v[0] == pytest.approx(1.0, rel=1e-9)
    assert v[1] == pytest.approx(4.0, rel=1e-9)


def test_an_echo_holding_a_bound_takes_only_the_bound_direction(conf):
    """The echo level also asks v2 past a bound v2 ≤ 0.05, which it holds: it takes the
    direction of that bound (the level below cannot move v2), not the 1e-13 remainder (the
    level below still gets v1 = 0.4 / dt)."""
    nv = conf.nv
    levels = [
        [Rows(e(nv, (0, 1.0)), 0.1)],
        [Rows([e(nv, (0, 1.0), (1, 1e-13)), e(nv, (2, 1.0))], [0.1, 0.3])],
        [Rows([e(nv, (1, 1.0)), e(nv, (2, 1.0))], [0.4, -0.4])],
    ]
    v = solve_hierarchy(conf, levels, DT, limits=[Box([2], [-np.inf], [0.05])])
    assert v[2] == pytest.approx(0.05, abs=1e-9)  # not pulled back to -4 by the last level
    assert v[1] == pytest.approx(4.0, rel=1e-6)


# ------------------------------------------------ the adaptive damping across the levels
def test_each_level_is_damped_by_its_merit_and_those_of_the_levels_above(conf):
    """While ν > 0, level k's damping is ν (M_0 + … + M_k) (merits M = ‖W e‖²): with one
    coordinate per level, v_k = (e_k / dt) / (1 + ν Σ_{h ≤ k} M_h)."""
    nv = conf.nv
    errors = [0.2, 0.3, 0.4]
    levels = [[Rows(e(nv, (k, 1.0)), x)] for k, x in enumerate(errors)]
    control = with_nu(conf, levels, [])
    v = solve_hierarchy(conf, levels, DT, limits=[])
    merits = np.cumsum(np.square(errors))
    np.testing.assert_allclose(v[:3], np.divide(errors, DT) / (1.0 + NU * merits), rtol=1e-9)
    assert control.shares == [1.0, 1.0, 1.0]


def test_a_level_with_no_direction_of_its_own_neither_damps_the_levels_below_nor_counts(conf):
    """A level asking v0 against the top level (every direction of its rows taken) gets the
    share 0: the level below it is damped by ν (M_0 + M_2) only."""
    nv = conf.nv
    levels = [
        [Rows(e(nv, (0, 1.0)), 0.2)],
        [Rows(e(nv, (0, 1.0)), 0.5)],
        [Rows(e(nv, (2, 1.0)), 0.4)],
    ]
    control = with_nu(conf, levels, [])
    v = solve_hierarchy(conf, levels, DT, limits=[])
    assert control.shares == [1.0, 0.0, 1.0]
    assert v[2] == pytest.approx(4.0 / (1.0 + NU * (0.04 + 0.16)), rel=1e-9)


def test_the_lowest_level_always_counts_in_the_ratio(conf):
    """Pins the current rule: the lowest level's share is never computed (the loop ends
    there), so it stays 1 even when every direction of its rows is taken by a level above
    (here it asks v0 against the top level)."""
    nv = conf.nv
    levels = [
        [Rows(e(nv, (0, 1.0)), 0.2)],
        [Rows(e(nv, (1, 1.0)), 0.3)],
        [Rows(e(nv, (0, 1.0)), 0.5)],
    ]
    control = with_nu(conf, levels, [])
    solve_hierarchy(conf, levels, DT, limits=[])
    assert control.shares == [1.0, 1.0, 1.0]


def test_the_cascade_gives_an_echo_level_no_share(conf):
    """Under method='cascade' (each level's QP solved), the echo level of ``echo_levels``
    has no direction of its own either: share 0, and the level below is damped by
    ν (M_0 + M_2), not by its merit too."""
    nv = conf.nv
    levels = echo_levels(nv, [Rows(e(nv, (2, 1.0)), 0.4)])
    levels[1][0].e = np.array([0.6])  # (against the top level: a merit of its own)
    control = with_nu(conf, levels, [])
    v = solve_hierarchy(conf, levels, DT, limits=[], method="cascade")
    assert control.shares == [1.0, 0.0, 1.0]
    assert v[2] == pytest.approx(4.0 / (1.0 + NU * (0.01 + 0.16)), rel=1e-7)


def test_the_cascade_counts_a_top_level_of_tiny_rows(conf):
    """A top level whose weighted rows are 1e-13 (cost 1e-13 on an error of 1e12: merit
    0.01) still has its direction: share 1, and its merit damps the level below it,
    ν (M_0 + M_1) = ν (0.01 + 0.09)."""
    nv = conf.nv
    levels = [[Rows(e(nv, (0, 1.0)), 1e12, cost=1e-13)], [Rows(e(nv, (1, 1.0)), 0.3)]]
    control = with_nu(conf, levels, [])
    v = solve_hierarchy(conf, levels, DT, limits=[], method="cascade")
    assert control.shares[0] == 1.0
    assert v[1] == pytest.approx(3.0 / (1.0 + NU * (0.01 + 0.09)), rel=1e-7)


def test_solve_hierarchy_called_directly_adapts_its_damping_by_default(conf):
    """solve_hierarchy's default is the adaptive step of solve_ik: with ν > 0 the step is
    damped, where ``adaptive=False`` gives the plain one."""
    nv = conf.nv
    levels = [[Rows(e(nv, (0, 1.0)), 0.2)], [Rows(e(nv, (1, 1.0)), 0.3)]]
    with_nu(conf, levels, [])
    default = solve_hierarchy(conf, levels, DT, limits=[])
    plain = solve_hierarchy(conf, levels, DT, limits=[], adaptive=False)
    np.testing.assert_allclose(plain[:2], [2.0, 3.0], rtol=1e-9)
    np.testing.assert_allclose(default[:2], [2.0 / 1.08, 3.0 / 1.26], rtol=1e-9)


# ------------------------------------------------------ limits handed down as equalities
def test_a_one_sided_bound_still_binds_the_levels_below_a_held_bound(conf):
    """Bounds v0 ≤ 0.1 (held by the top level, which asks v0 = 1) and v3 ≤ 0.05, each
    one-sided: the level asking v3 + v4 = 1 / dt gets it within v3 ≤ 0.05 (v4 makes up the
    rest), as it does without the top level."""
    nv = conf.nv
    low = Rows(e(nv, (3, 1.0), (4, 1.0)), 0.1)
    limits = [Box([0, 3], [-np.inf, -np.inf], [0.1, 0.05])]
    v = solve_hierarchy(conf, [[Rows(e(nv, (0, 1.0)), 1.0)], [low]], DT, limits=limits)
    assert v[0] == pytest.approx(0.1, abs=1e-9)
    assert v[3] == pytest.approx(0.05, abs=1e-9)
    assert v[3] + v[4] == pytest.approx(1.0, rel=1e-6)


def test_a_row_held_by_a_lower_level_keeps_only_its_own_direction(conf):
    """Rows G v ≤ h without a box; the second level holds the fourth row (v2 ≤ 0.05, asked
    v2 = 3): the level below keeps every other direction and gets v3 = 0.4 / dt."""
    nv = conf.nv
    G = [e(nv, (5, 1.0)), e(nv, (5, -1.0)), e(nv, (4, 1.0)), e(nv, (2, 1.0))]
    limits = [Inequalities(G, [10.0, 10.0, 10.0, 0.05])]
    levels = [
        [Rows(e(nv, (0, 1.0)), 0.1)],
        [Rows(e(nv, (2, 1.0)), 0.3)],
        [Rows([e(nv, (3, 1.0)), e(nv, (2, 1.0))], [0.4, -0.4])],
    ]
    v = solve_hierarchy(conf, levels, DT, limits=limits)
    assert v[2] == pytest.approx(0.05, abs=1e-9)
    assert v[3] == pytest.approx(4.0, rel=1e-6)


# ------------------------------------------------------ solver, defaults and checks
def test_a_damping_that_is_not_a_real_number_is_refused_even_at_the_default_value(conf):
    """The damping is checked whatever its value: a Decimal equal to the default 1e-12 is
    not a real number for taskik and raises InvalidInput, as any other Decimal does."""
    levels = [[Rows(e(conf.nv, (0, 1.0)), 0.1)]]
    for damping in (Decimal(1e-12), Decimal("0.5")):
        with pytest.raises(InvalidInput, match="damping must be a real number"):
            solve_hierarchy(conf, levels, DT, limits=[], damping=damping)


def count_daqp(monkeypatch):
    """Count the QPs DAQP solves for the hierarchy (warm workspaces and cold calls)."""
    calls = []
    warm, cold = DaqpWorkspace.solve, taskik.hierarchy.daqp_solve

    def counted_warm(self, *args, **kwargs):
        calls.append("warm")
        return warm(self, *args, **kwargs)

    def counted_cold(*args, **kwargs):
        calls.append("cold")
        return cold(*args, **kwargs)

    monkeypatch.setattr(DaqpWorkspace, "solve", counted_warm)
    monkeypatch.setattr(taskik.hierarchy, "daqp_solve", counted_cold)
    return calls


def cascade_levels(nv):
    return [[Rows(e(nv, (0, 1.0)), 0.1)], [Rows(e(nv, (1, 1.0)), 0.2)]]


def test_another_solver_solves_every_level_without_daqp(conf, monkeypatch):
    """solver='quadprog': every level's QP goes to quadprog (no DAQP workspace stands in for
    it, warm or cold); with daqp the same cascade does use DAQP, for the same step."""
    calls = count_daqp(monkeypatch)
    levels = cascade_levels(conf.nv)
    v = solve_hierarchy(conf, levels, DT, limits=[], method="cascade", solver="quadprog")
    assert calls == []
    np.testing.assert_allclose(v[:2], [1.0, 2.0], rtol=1e-9)
    w = solve_hierarchy(conf, levels, DT, limits=[], method="cascade", solver="daqp")
    assert len(calls) == 2
    np.testing.assert_allclose(w, v, atol=1e-9)


@pytest.mark.parametrize(
    ("extras", "words"),
    [({}, r"\(no details\)"), ({"why": "odd"}, r"\(\{'why': 'odd'\}\)")],
    ids=["without details", "with details"],
)
def test_a_lower_level_the_solver_fails_names_the_level_and_the_solvers_details(
    conf, monkeypatch, extras, words
):
    """A qpsolvers solver that finds no solution at level 1 (it is asked after the top
    level's QP): NoSolutionFound names the level and what the solver said, or says that it
    gave no details."""
    real, asked = qpsolvers.solve_problem, []

    def fails_after_the_top_level(problem, solver, **kwargs):
        asked.append(solver)
        if len(asked) == 1:
            return real(problem, solver=solver, **kwargs)
        failed = qpsolvers.Solution(problem)
        failed.found, failed.extras = False, extras
        return failed

    monkeypatch.setattr(qpsolvers, "solve_problem", fails_after_the_top_level)
    with pytest.raises(NoSolutionFound, match=f"level 1: not found {words}"):
        solve_hierarchy(
            conf, cascade_levels(conf.nv), DT, limits=[], method="cascade", solver="quadprog"
        )
    assert asked == ["quadprog", "quadprog"]


@pytest.mark.parametrize("where", ["bound", "row"])
def test_an_optimum_exactly_on_a_limit_is_taken_without_a_qp(conf, monkeypatch, where):
    """The feasibility test of a level's unconstrained optimum is exact, and a point on a
    bound or on a row meets it: a level asking v0 onto ``v0 ≥ v0*`` (or ``v0 ≤ v0*``) gets
    v0* with no QP solved, the step of the same level without the limit."""
    nv = conf.nv
    levels = [[Rows(e(nv, (0, 1.0)), 0.1)], [Rows(e(nv, (1, 1.0)), 0.2)]]
    free = solve_hierarchy(conf, levels, DT, limits=[], damping=0.0)
    if where == "bound":
        limits = [Box([0, 1], [free[0], -np.inf], [np.inf, np.inf])]
    else:
        limits = [Inequalities([e(nv, (0, 1.0)), e(nv, (1, 1.0))], [free[0], free[1]])]
    calls = count_daqp(monkeypatch)
    v = solve_hierarchy(conf, levels, DT, limits=limits, damping=0.0)
    assert calls == []
    np.testing.assert_array_equal(v, free)


@pytest.mark.parametrize("cost", [1e3, 1.0])
def test_a_bound_held_only_by_the_damping_leaves_the_levels_below_free(conf, cost):
    """A top level asks v0 + v1/2 = 1 with v0 ≤ 0.5: it could meet that anywhere on its
    line, and only its damping (0.1) puts it on the bound (near v = (0.5, 1)), so the bound
    is not handed down as an equality: the level below, asking v1 = 3, slides along the
    line off the bound, and the top level keeps what it had. At cost 1 the damping moves
    the top level off its line too, and its multiplier on the bound (0.093) exceeds λ‖v‖
    (0.087): the damping's share of a multiplier reaches 2λ‖v‖."""
    nv = conf.nv
    top = Rows(e(nv, (0, 1.0), (1, 0.5)), 0.1, cost=cost)
    levels = [[top], [Rows(e(nv, (1, 1.0)), 0.3)]]
    limits = [Box([0], [-np.inf], [0.5])]
    alone = solve_hierarchy(conf, levels[:1], DT, limits=limits, damping=0.1)
    both = solve_hierarchy(conf, levels, DT, limits=limits, damping=0.1)
    assert alone[0] == pytest.approx(0.5, abs=1e-9)
    assert both[0] < 0.0 and both[1] > 2.5
    assert top.J[0] @ both == pytest.approx(top.J[0] @ alone, abs=1e-9)
