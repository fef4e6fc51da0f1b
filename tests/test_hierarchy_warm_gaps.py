"""Strict task priorities (taskik.hierarchy): the work a step does, counted. With DAQP and
no options every level solves its QP in a warm workspace of its own that lives as long as
the plan; a level whose QP had an active limit goes to its QP first; a limit a higher level
holds strongly leaves the lower levels' QPs; each level is factorised once per step."""

from __future__ import annotations

import daqp
import numpy as np
import pytest
from test_trust_region import panda_hands_apart_at_a_joint_limit

import taskik
import taskik.hierarchy as hierarchy
from taskik.backends.qp import DaqpWorkspace
from taskik.problem import Assembler

DT = 0.01


class Box(taskik.Limit):
    """``lower ≤ v_j ≤ upper`` on the joints ``idx`` (a box of one's own)."""

    name = "box"

    def __init__(self, idx, lower, upper):
        self.idx = np.asarray(idx)
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)

    def compute_box(self, configuration, dt):
        return self.idx, self.lower.copy(), self.upper.copy()


class Rows(taskik.Limit):
    """``G v ≤ h`` as inequality rows (not a box)."""

    name = "rows"

    def __init__(self, G, h):
        self.G, self.h = np.asarray(G, float), np.asarray(h, float)

    def compute_inequalities(self, configuration, dt):
        return self.G.copy(), self.h.copy()


class Work:
    """Counts, through monkeypatch, the QP solves of the hierarchy: ``warm`` lists each
    warm-workspace solve as (workspace, unknowns, constraints); ``cold`` counts the DAQP
    solves without a workspace and ``setups`` the DAQP models set up."""

    def __init__(self, monkeypatch):
        self.warm, self.cold, self.setups, self.splits, self.solves = [], 0, 0, 0, 0
        work = self
        warm, cold, model = DaqpWorkspace.solve, hierarchy.daqp_solve, daqp.Model
        split, split_solve = hierarchy.LevelSplit, hierarchy.LevelSplit.solve

        def warm_solve(ws, P, r, lower, upper, A=None):
            self.warm.append((ws, len(r), len(upper)))
            return warm(ws, P, r, lower, upper, A)

        def cold_solve(*args):
            self.cold += 1
            return cold(*args)

        def new_model():
            self.setups += 1
            return model()

        class CountedSplit(split):
            __slots__ = ()

            def __init__(self, *args):
                work.splits += 1
                super().__init__(*args)

            def solve(self, *args):
                work.solves += 1
                return split_solve(self, *args)

        monkeypatch.setattr(DaqpWorkspace, "solve", warm_solve)
        monkeypatch.setattr(hierarchy, "daqp_solve", cold_solve)
        monkeypatch.setattr(daqp, "Model", new_model)
        monkeypatch.setattr(hierarchy, "LevelSplit", CountedSplit)

    def reset(self):
        self.warm, self.cold, self.setups, self.splits, self.solves = [], 0, 0, 0, 0


def ur5_far(ur5):
    """(configuration, levels): a tool point 0.4 m away (every velocity bound active at the
    top level) over a posture."""
    conf = ur5.configuration()
    tool = taskik.PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.3, 0.2, -0.2])
    posture = taskik.PostureTask(1e-3)
    posture.set_target(ur5.q0 + 0.5)
    return conf, [[tool], [posture]]


def ur5_wrist(ur5):
    """(configuration, levels): a tool point 1 mm away, then the last wrist joint (which does
    not move the tool point) asked 1 rad away in one step, far past its velocity bound, then
    a posture of every joint."""
    conf = ur5.configuration()
    tool = taskik.PositionTask("tool0")
    tool.set_target(conf.get_transform_frame_to_world("tool0").translation + [1e-3, 0, 0])
    wrist = taskik.PostureTask([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    wrist.set_target(ur5.q0 + 1.0)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(ur5.q0 + 0.1)
    return conf, [[tool], [wrist], [posture]]


# -------------------------------------------------------------- warm DAQP workspaces
@pytest.mark.parametrize("method", ["cascade", "auto"])
def test_each_level_solves_its_qp_in_its_own_warm_workspace_step_after_step(
    ur5, monkeypatch, method
):
    """DAQP without options: both levels' QPs go to the level's warm workspace (no cold
    DAQP solve); the workspaces are set up at the first step only, and the next steps with
    the same tasks reuse them, one per level."""
    conf, levels = ur5_far(ur5)
    work = Work(monkeypatch)
    taskik.solve_ik(conf, levels, DT, method=method, solver="daqp")
    assert work.cold == 0
    assert [(n, m) for _, n, m in work.warm] == [(6, 6), (1, 1)]
    assert work.setups == 2
    first = [ws for ws, _, _ in work.warm]
    assert first[0] is not first[1]
    for _ in range(2):
        work.reset()
        taskik.solve_ik(conf, levels, DT, method=method, solver="daqp")
        assert work.cold == 0 and work.setups == 0
        assert [ws for ws, _, _ in work.warm] == first


def test_a_plan_found_again_in_the_cache_keeps_its_workspaces_and_hints(ur5, monkeypatch):
    """Two level lists used in turn on one configuration: each plan is found again in the
    cache (and pointed at the same tasks); its DAQP workspaces are not set up anew, and the
    top level, whose QP had active bounds, goes straight to its QP."""
    conf, levels = ur5_far(ur5)
    other = [levels[0]]  # (another structure: another plan)
    taskik.solve_ik(conf, levels, DT, solver="daqp")
    taskik.solve_ik(conf, other, DT, solver="daqp")
    work = Work(monkeypatch)
    for lists in (levels, other, levels):
        work.reset()
        taskik.solve_ik(conf, lists, DT, solver="daqp")
        assert work.setups == 0
        assert work.solves == 0  # no level tried its unconstrained optimum first
        assert work.cold == 0 and len(work.warm) == len(lists)


def test_options_for_daqp_make_every_level_solve_cold(ur5, monkeypatch):
    """An option for DAQP: the warm workspaces (set up without options) are not used."""
    conf, levels = ur5_far(ur5)
    work = Work(monkeypatch)
    taskik.solve_ik(conf, levels, DT, method="cascade", solver="daqp", iter_limit=1000)
    assert work.warm == [] and work.cold == 2


# ----------------------------------------------------------------- the QP hint of auto
def test_a_level_whose_qp_had_active_bounds_goes_to_its_qp_first(ur5, monkeypatch):
    """method auto: at the first step both levels try their unconstrained optimum, which
    breaks a bound, then solve their QP; at the next step, the bounds still active, they go
    straight to the QP (the unconstrained optimum is not computed again)."""
    conf, levels = ur5_far(ur5)
    work = Work(monkeypatch)
    taskik.solve_ik(conf, levels, DT, solver="daqp")
    assert work.solves == 2 and len(work.warm) == 2
    work.reset()
    taskik.solve_ik(conf, levels, DT, solver="daqp")
    assert work.solves == 0 and len(work.warm) == 2


def test_inequality_rows_the_unconstrained_optimum_meets_need_no_qp(ur5, monkeypatch):
    """method auto with inequality rows far from active: each level's unconstrained optimum
    meets them, so no QP is solved at all."""
    conf, levels = ur5_wrist(ur5)
    rows = Rows(np.eye(6)[:2], [1e3, 1e3])
    work = Work(monkeypatch)
    v = taskik.solve_ik(conf, levels, DT, limits=[rows], solver="daqp")
    assert work.warm == [] and work.cold == 0
    assert work.solves == 3
    assert (v[:2] < 1e3).all()


# -------------------------------------------------- strong limits leave the lower QPs
def test_a_bound_a_middle_level_holds_strongly_leaves_the_lowest_qp(ur5, monkeypatch):
    """The wrist level drives its joint to its velocity bound (a strong constraint): the
    posture level below keeps it through its basis, and its QP bounds only the five other
    joints."""
    conf, levels = ur5_wrist(ur5)
    work = Work(monkeypatch)
    v = taskik.solve_ik(conf, levels, DT, method="cascade", solver="daqp")
    cap = ur5.model.velocityLimit[5]
    assert v[5] == pytest.approx(cap, abs=1e-9)
    assert [(n, m) for _, n, m in work.warm] == [(6, 6), (3, 6), (2, 5)]


def test_an_inequality_row_a_middle_level_holds_strongly_leaves_the_lowest_qp(ur5, monkeypatch):
    """The same with the wrist joint also capped by an inequality row ``3 v_5 + 0.003 v_0 ≤
    1.5``: the wrist level holds that row and the bound of joint 4 strongly, and the posture
    level's QP keeps the five other constraints (the row is kept by its basis)."""
    conf, levels = ur5_wrist(ur5)
    g = np.array([0.003, 0, 0, 0, 0, 3.0])
    limits = [taskik.VelocityLimit(ur5.model), Rows([g], [1.5])]
    work = Work(monkeypatch)
    v = taskik.solve_ik(conf, levels, DT, limits=limits, method="cascade", solver="daqp")
    assert g @ v == pytest.approx(1.5, abs=1e-9)
    assert v[4] == pytest.approx(ur5.model.velocityLimit[4], abs=1e-9)
    assert [(n, m) for _, n, m in work.warm] == [(6, 7), (3, 7), (1, 5)]


def test_each_strong_limit_leaves_the_lower_qps_only_if_the_basis_keeps_it(ur5, monkeypatch):
    """The middle level asks joints 0 and 5 to move 1 rad in one step: it holds the velocity
    bound of joint 4 and a row ``1e4 v_5 + 3e-9 v_2 ≤ 5e3`` strongly. The basis handed down
    keeps the bound exactly but that row, nearly parallel to the level's own row (its rank
    tolerance takes them as one), only to about 1e-9: the bound leaves the posture level's
    QP and the row stays in it."""
    conf, (tool, wrist, posture) = ur5_wrist(ur5)
    wrist = [taskik.PostureTask([1.0, 0, 0, 0, 0, 1.0])]
    wrist[0].set_target(ur5.q0 + 1.0)
    g = np.array([0, 0, 3e-9, 0, 0, 1e4])
    limits = [taskik.VelocityLimit(ur5.model), Rows([g], [5e3])]
    work = Work(monkeypatch)
    v = taskik.solve_ik(
        conf, [tool, wrist, posture], DT, limits=limits, method="cascade", solver="daqp"
    )
    assert g @ v == pytest.approx(5e3, abs=1e-8)
    assert v[4] == pytest.approx(-ur5.model.velocityLimit[4], abs=1e-9)
    assert [(n, m) for _, n, m in work.warm] == [(6, 7), (3, 7), (1, 6)]


def test_bounds_fixed_at_the_top_level_need_no_residue_check(ur5, monkeypatch):
    """A top level that drives one joint to its bound: the joint leaves the basis exactly
    (its row of Z is zero), so no constraint row is formed to check what the basis keeps."""
    conf = ur5.configuration()
    first = taskik.PostureTask([1.0, 0, 0, 0, 0, 0])
    first.set_target(ur5.q0 + 1.0)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(ur5.q0 + 0.1)
    rows = []
    monkeypatch.setattr(
        hierarchy, "constraint_rows", lambda *a, **k: rows.append(a) or constraint_rows(*a, **k)
    )
    work = Work(monkeypatch)
    v = taskik.solve_ik(conf, [[first], [posture]], DT, method="cascade", solver="daqp")
    assert v[0] == pytest.approx(ur5.model.velocityLimit[0], abs=1e-9)
    assert [(n, m) for _, n, m in work.warm] == [(6, 6), (5, 5)]
    assert rows == []


constraint_rows = hierarchy.constraint_rows


# ------------------------------------------------------------ once per step, per level
def test_the_default_damping_is_not_validated_again_at_each_step(ur5, monkeypatch):
    """solve_ik's default damping (the float 1e-12) skips the hierarchy's damping check;
    any other value is checked."""
    conf, levels = ur5_far(ur5)
    checked = []
    check = hierarchy.check_damping
    monkeypatch.setattr(hierarchy, "check_damping", lambda d: checked.append(d) or check(d))
    taskik.solve_ik(conf, levels, DT, limits=[])
    assert checked == []
    taskik.solve_ik(conf, levels, DT, limits=[], damping=1.000000000001)
    assert checked == [1.000000000001]


def test_the_hierarchy_assembles_rows_without_normal_equations(ur5, monkeypatch):
    """The levels read the stacked rows A, c; the stacked normal equations AᵀA are not
    formed."""
    conf, levels = ur5_far(ur5)
    normals = []
    assemble = Assembler.assemble

    def counted(asm, configuration, dt, damping, normal=True, **kwargs):
        normals.append(normal)
        return assemble(asm, configuration, dt, damping, normal, **kwargs)

    monkeypatch.setattr(Assembler, "assemble", counted)
    taskik.solve_ik(conf, levels, DT)
    assert normals == [False]


def test_a_closed_loop_reads_the_weighted_errors_once_per_step(ur5, monkeypatch):
    """Each step of a closed loop computes W e once; the next step compares with the one
    recorded, it does not read it back from the assembler again."""
    conf, levels = ur5_far(ur5)
    for _ in range(2):
        conf.integrate_inplace(taskik.solve_ik(conf, levels, DT, limits=[]), DT)
    reads = []
    weighted = Assembler.weighted_errors
    monkeypatch.setattr(
        Assembler, "weighted_errors", lambda asm, dt: reads.append(dt) or weighted(asm, dt)
    )
    for _ in range(3):
        conf.integrate_inplace(taskik.solve_ik(conf, levels, DT, limits=[]), DT)
    assert reads == [DT] * 3


def test_each_level_is_factorised_once_while_the_loop_is_damped(panda, monkeypatch):
    """The B5 Panda episode (two hands 0.2 m apart on two levels, a posture last) without
    limits: while the adaptive damping is on, each level's reduced Jacobian is still
    factorised once per step (its rank, for the level's share of the damping, comes from
    the same factorisation)."""
    conf, levels = panda_hands_apart_at_a_joint_limit(panda)
    plan = hierarchy.get_plan(conf, levels, [])
    work = Work(monkeypatch)
    damped = 0
    for _ in range(10):
        work.reset()
        v = taskik.solve_ik(conf, levels, DT, limits=[])
        conf.integrate_inplace(v, DT)
        if v.any() and plan.adaptive.shares is not None:  # (the step was damped)
            damped += 1
            assert work.splits == 3
    assert damped


# ---------------------------------------- a lower level's cold DAQP solve (with options)
def solves(monkeypatch, fail_warm_started=False):
    """Records each DAQP call of the hierarchy as (P, kwargs); a call with ``primal_start``
    fails when ``fail_warm_started``."""
    calls, cold = [], hierarchy.daqp_solve

    def recorded(P, f, rows, upper, lower, kwargs):
        calls.append((P, dict(kwargs)))
        if fail_warm_started and "primal_start" in kwargs:
            return None, "DAQP exit flag -1", None
        return cold(P, f, rows, upper, lower, kwargs)

    monkeypatch.setattr(hierarchy, "daqp_solve", recorded)
    return calls


@pytest.mark.parametrize(
    ("lower", "upper", "warm"),
    [
        ([-1, -1], [1, 1], False),  # nothing active at z = 0
        ([-1, -1], [0.5, 0.5], False),
        ([-1, -1], [0, 1], True),  # one upper bound active
        ([0, -1], [1, 1], True),  # one lower bound active
        ([-1, -1], [0, 0], True),  # as many active as unknowns
        ([0, -1], [0, 0], False),  # more active than unknowns (a degenerate start)
    ],
)
def test_a_lower_levels_cold_daqp_solve_starts_from_the_higher_levels_solution(
    monkeypatch, lower, upper, warm
):
    """Without a workspace (DAQP given options), a lower level's QP is warm-started from
    z = 0, which the higher levels' solution makes feasible, when the constraints active
    there are at least one and at most the unknowns."""
    calls = solves(monkeypatch)
    P, f = np.eye(2), np.array([-1.0, -1.0])
    lower, upper = np.array(lower, float), np.array(upper, float)
    z, status, _ = hierarchy._solve_reduced_qp(
        P, f, np.eye(2), lower, upper, "daqp", {"iter_limit": 1000}, None
    )
    assert status == "optimal"
    np.testing.assert_allclose(z, np.minimum(upper, 1.0), atol=1e-9)
    assert len(calls) == 1
    assert calls[0][1]["iter_limit"] == 1000
    if warm:
        np.testing.assert_array_equal(calls[0][1]["primal_start"], np.zeros(2))
    else:
        assert "primal_start" not in calls[0][1]


def test_a_failed_warm_started_daqp_solve_is_retried_cold(monkeypatch):
    """DAQP failing from the warm start z = 0: the same QP is solved again without it, and
    that solution is the level's."""
    calls = solves(monkeypatch, fail_warm_started=True)
    P, f = np.eye(2), np.array([-1.0, -1.0])
    z, status, _ = hierarchy._solve_reduced_qp(
        P, f, np.eye(2), np.array([-1.0, -1.0]), np.array([0.0, 1.0]), "daqp", {}, None
    )
    assert status == "optimal"
    np.testing.assert_allclose(z, [0.0, 1.0], atol=1e-9)
    assert [("primal_start" in kw, p is P) for p, kw in calls] == [(True, True), (False, True)]
