"""The QP backend: solve_qp on a built Problem, solvers other than DAQP with inequality rows,
the projection onto the box, and what a failed solve says."""

from __future__ import annotations

import types

import numpy as np
import pytest
import qpsolvers

import taskik
from taskik import InvalidInput, Limit, NoSolutionFound, PositionTask, PostureTask, VelocityLimit
from taskik.backends.qp import check_solver, daqp_constraints, solve_qp, solve_qp_arrays
from taskik.problem import BoxBound

DT = 0.01


class HalfSpace(Limit):
    """One inequality row: v[0] + v[1] ≤ h."""

    name = "halfspace"

    def __init__(self, h):
        self.h = h

    def compute_inequalities(self, configuration, dt):
        G = np.zeros((1, configuration.nv))
        G[0, :2] = 1.0
        return G, np.array([self.h])


def far_tasks(robot, conf):
    task = PositionTask("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.3, -0.2, 0.1])
    posture = PostureTask(1e-2)
    posture.set_target(robot.q0)
    return [task, posture]


@pytest.mark.parametrize("solver", [None, "daqp", "quadprog", "proxqp"])
def test_solve_qp_of_a_built_problem_is_the_step(ur5, solver):
    conf = ur5.configuration()
    tasks = far_tasks(ur5, conf)
    limits = [VelocityLimit(ur5.model), HalfSpace(0.05)]
    problem = taskik.build_ik(conf, tasks, DT, limits=limits)
    v = solve_qp(problem, solver=solver)
    assert np.allclose(v, taskik.solve_ik(conf, tasks, DT, limits=limits), atol=1e-6)
    assert v[0] + v[1] <= 0.05 + 1e-6  # the inequality row reaches the solver
    assert (v >= problem.lb).all() and (v <= problem.ub).all()


def test_solver_options_reach_the_solver(ur5):
    conf = ur5.configuration()
    problem = taskik.build_ik(conf, far_tasks(ur5, conf), DT, limits=[HalfSpace(0.05)])
    with pytest.raises(taskik.InvalidInput, match="'quadprog' does not accept.*no_such_option"):
        solve_qp(problem, solver="quadprog", no_such_option=1.0)
    with pytest.raises(NoSolutionFound, match="'osqp'.*maximum iterations"):
        solve_qp(problem, solver="osqp", max_iter=1)
    # DAQP too: an iteration cap too small for the active set makes it fail
    joints = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint")
    limits = [VelocityLimit(ur5.model, {j: 0.05 for j in joints}), HalfSpace(0.01)]
    problem = taskik.build_ik(conf, far_tasks(ur5, conf), DT, limits=limits)
    assert np.allclose(solve_qp(problem, solver="daqp")[:3], [0.05, -0.05, -0.05])
    with pytest.raises(NoSolutionFound, match="'daqp'.*exit flag -4"):
        solve_qp(problem, solver="daqp", iter_limit=2)


def test_first_order_solver_steps_are_projected_onto_the_box(ur5):
    conf = ur5.configuration()
    tasks = far_tasks(ur5, conf)
    limits = [VelocityLimit(ur5.model, {j: 0.3 for j in ("shoulder_pan_joint", "elbow_joint")})]
    problem = taskik.build_ik(conf, tasks, DT, limits=limits)
    raw = qpsolvers.solve_qp(
        problem.P, problem.r, lb=problem.lb, ub=problem.ub, solver="osqp", eps_abs=1e-2
    )
    assert ((raw < problem.lb) | (raw > problem.ub)).any()  # OSQP's tolerance
    v = solve_qp(problem, solver="osqp", eps_abs=1e-2)
    assert (v >= problem.lb).all() and (v <= problem.ub).all()
    assert v.dtype == float and np.abs(v - raw).max() < 0.05


def test_a_failed_solve_names_the_solver_status_and_the_limits(ur5):
    P, r = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])  # v0 ≤ −1 and v0 ≥ 1
    for solver in ("quadprog", "daqp"):
        with pytest.raises(NoSolutionFound, match=rf"'{solver}'.*\['halfspace'\]") as info:
            solve_qp_arrays(P, r, G, h, None, None, solver, (), [HalfSpace(0.0)])
        assert "optimal" not in str(info.value)
    # conflicting boxes (given lazily, as the assembler does) are named
    lb, ub = np.array([1.0, -1.0]), np.array([-0.5, 1.0])
    boxes = [
        BoxBound(HalfSpace(0.0), np.array([0]), np.array([1.0]), np.array([2.0])),
        BoxBound(VelocityLimit.__new__(VelocityLimit), np.array([0]), -np.ones(1), -np.ones(1)),
    ]
    with pytest.raises(NoSolutionFound, match=r"v\[0\]: halfspace limit lower bound 1 > velocity"):
        solve_qp_arrays(P, r, None, None, lb, ub, "quadprog", lambda: boxes, [])


def test_unknown_solver_names_close_matches():
    with pytest.raises(
        InvalidInput, match=r"'quadprg' is not available \(did you mean 'quadprog'\?\)"
    ):
        check_solver("quadprg")
    with pytest.raises(InvalidInput, match=r"'zzz' is not available; installed: daqp, "):
        check_solver("zzz")
    with pytest.raises(InvalidInput, match=r"did you mean 'proxqp', 'osqp'\?"):
        check_solver("oxqp")


def test_daqp_constraints_layout():
    G, h = np.ones((2, 3)), np.array([1.0, 2.0])
    A, upper, lower = daqp_constraints(3, G, h, None, np.array([1.0, 2.0, 3.0]))
    assert A.shape == (2, 3)
    assert upper.tolist() == [1.0, 2.0, 3.0, 1.0, 2.0]
    assert lower.tolist() == [-np.inf] * 5
    A, upper, lower = daqp_constraints(3, None, None, np.zeros(3), None)
    assert A.shape == (0, 3) and upper.tolist() == [np.inf] * 3 and lower.tolist() == [0.0] * 3
    with pytest.raises(InvalidInput, match="without h"):
        daqp_constraints(3, G, None, None, None)


def test_box_qp_tries_the_unconstrained_minimiser_only_while_no_bound_is_active(monkeypatch):
    """solve_box: the Cholesky solution when it lies in the box (DAQP not called), DAQP when
    it does not, and DAQP first while the last solve had an active bound."""
    from taskik.backends import qp

    rng = np.random.default_rng(3)
    M = rng.standard_normal((8, 5))
    P = M.T @ M + 0.1 * np.eye(5)
    r = rng.standard_normal(5)
    free = np.linalg.solve(P, -r)
    calls = {"dposv": 0, "daqp": 0}
    real_dposv, real_daqp = qp.dposv, qp.daqp

    def dposv(*args):
        calls["dposv"] += 1
        return real_dposv(*args)

    class Model:  # DAQP's model, its solves counted (cold set-ups and warm updates alike)
        def __init__(self):
            self.model = real_daqp.Model()

        def setup(self, *args):
            return self.model.setup(*args)

        def update(self, **kwargs):
            return self.model.update(**kwargs)

        def solve(self):
            calls["daqp"] += 1
            return self.model.solve()

    monkeypatch.setattr(qp, "dposv", dposv)
    monkeypatch.setattr(qp, "daqp", types.SimpleNamespace(Model=Model))
    ws = qp.DaqpWorkspace()
    wide = np.abs(free).max() + 1.0
    x = ws.solve_box(P, r, np.full(5, -wide), np.full(5, wide))
    assert np.allclose(x, free, rtol=1e-12, atol=1e-12)
    assert calls == {"dposv": 1, "daqp": 0} and not ws.bound
    # a bound cuts the free minimiser: DAQP solves, and the next step goes to it first
    ub = np.full(5, wide)
    ub[0] = free[0] - 0.5
    x = ws.solve_box(P, r, np.full(5, -wide), ub)
    ref = solve_qp_arrays(P, r, None, None, np.full(5, -wide), ub, "quadprog")
    assert np.allclose(x, ref, atol=1e-9) and x[0] == pytest.approx(ub[0])
    assert (x <= ub).all() and (x >= -wide).all()  # projected: the bound holds exactly
    assert calls == {"dposv": 2, "daqp": 1} and ws.bound
    ws.solve_box(P, r, np.full(5, -wide), ub)
    assert calls == {"dposv": 2, "daqp": 2}
    # once DAQP finds no active bound, the shortcut is tried again
    ws.solve_box(P, r, np.full(5, -wide), np.full(5, wide))
    assert calls["daqp"] == 3 and not ws.bound
    ws.solve_box(P, r, np.full(5, -wide), np.full(5, wide))
    assert calls == {"dposv": 3, "daqp": 3}


def test_an_overflowed_step_matrix_is_not_taken_by_the_cholesky_shortcut(ur5):
    """A P overflowed to inf (rows of one's own near the float range; task costs stop at
    1e50): the Cholesky solve would still return v = 0 inside the box. The warm workspace
    must decline it, so that the step goes to the checked path, which names the problem."""
    from taskik.backends.qp import DaqpWorkspace

    n = ur5.model.nv
    P, r = np.diag(np.full(n, np.inf)), np.ones(n)
    with np.errstate(invalid="ignore", over="ignore"):
        assert DaqpWorkspace().solve_box(P, r, -np.ones(n), np.ones(n)) is None
    with pytest.raises(InvalidInput, match="at most 1e\\+50"):
        taskik.DampingTask(1e300)


def test_the_warm_workspace_solves_rows_whatever_the_split_of_the_same_bounds_count():
    """Rows after a problem with as many bounds in all (n + m) but more variables: the
    rows' lower bounds were the earlier box's (stale entries, not −inf), which bound the
    rows from below. The box and h are written through views of their own now."""
    from taskik.backends.qp import DaqpWorkspace

    ws = DaqpWorkspace()
    lower = np.full(5, -1.0)
    lower[3:] = 0.2  # (entries 3 and 4 of the first box: the second one's rows 0 and 1)
    x = ws.solve_rows(np.eye(5), np.zeros(5), np.ones((1, 5)), np.ones(1), lower, np.ones(5))
    assert x is not None and np.allclose(x, [0.0, 0.0, 0.0, 0.2, 0.2], atol=1e-9)
    # min ½‖x‖² with x ≤ 1 (three rows, no lower bound): x = 0
    x = ws.solve_rows(np.eye(3), np.zeros(3), np.eye(3), np.ones(3), -np.ones(3), np.ones(3))
    assert x is not None and np.allclose(x, 0.0, atol=1e-9)
    rng = np.random.default_rng(3)
    for n, m in ((4, 2), (5, 1), (3, 3), (5, 1), (4, 2)):
        A = rng.normal(size=(n, n))
        P, r = A @ A.T + np.eye(n), rng.normal(size=n)
        G, h = rng.normal(size=(m, n)), np.full(m, 0.1)
        lower, upper = np.full(n, -0.5), np.full(n, 0.5)
        x = ws.solve_rows(P, r, G, h, lower, upper)
        reference = solve_qp_arrays(P, r, G, h, lower, upper, "quadprog")
        assert x is not None and np.allclose(x, reference, atol=1e-7)
