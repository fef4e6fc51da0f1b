"""The work a step's assembly and ``solve_ik`` save from one step to the next.

An assembler is built once per task and limit list and then refreshes only what changed:
the weights when a cost, gain or damping changes, ``W·Kp/dt`` when dt changes, the factor of
``W e`` likewise; a frame task writes its rows in place; one soft box (position limits) takes
a fast path; from ``DIAGONAL_MIN_NV`` velocities the trailing posture/damping tasks go on
P's diagonal. ``solve_ik`` solves a box-only QP with one warm DAQP workspace per plan and a
resting loop without any solver. The tests count the work (calls, or the buffers a cache
reads): the results are the same without the caches, only the work differs.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from spies import counting

import taskik
from taskik import solve as solve_module
from taskik.problem import DIAGONAL_MIN_NV, Assembler, get_assembler
from taskik.tasks.frame import FrameTask

DT = 0.01


def reach(ur5, offset=(0.1, 0.0, -0.1)):
    conf = ur5.configuration()
    task = FrameTask("tool0")
    target = conf.get_transform_frame_to_world("tool0").copy()
    target.translation += np.array(offset)
    task.set_target(target)
    return conf, task


# ------------------------------------------------------------------------- weights
def test_weights_are_refreshed_only_when_a_cost_changes(monkeypatch, ur5):
    conf, task = reach(ur5)
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target_from_configuration(conf)
    asm = Assembler(conf, [task, posture], [])
    refreshes = counting(monkeypatch, Assembler, "_refresh_weights")
    for _ in range(3):
        asm.assemble(conf, DT, 1e-12)
    assert len(refreshes) == 1
    task.set_position_cost(2.0)
    c_before = asm.c.copy()
    asm.assemble(conf, DT, 1e-12)
    assert len(refreshes) == 2
    assert np.allclose(asm.c[:3], 2.0 * c_before[:3])


def test_a_rebound_list_with_the_same_weights_keeps_them(monkeypatch, ur5):
    """A task list built anew each step with equal costs does not refresh the weights; a
    new list with another cost does."""
    conf, task = reach(ur5)
    asm = Assembler(conf, [task], [])
    asm.assemble(conf, DT, 1e-12)
    refreshes = counting(monkeypatch, Assembler, "_refresh_weights")
    same = FrameTask("tool0")
    same.set_target(task.target)
    assert asm.rebind([same]) is True
    asm.assemble(conf, DT, 1e-12)
    assert refreshes == []
    other = FrameTask("tool0", position_cost=3.0)
    other.set_target(task.target)
    assert asm.rebind([other]) is True
    asm.assemble(conf, DT, 1e-12)
    assert len(refreshes) == 1


def test_rebinding_the_tasks_it_has_is_no_change(ur5):
    """``rebind`` answers False for the very tasks it has (the hierarchy keeps its warm
    workspaces then) and True for new task objects."""
    conf, task = reach(ur5)
    asm = Assembler(conf, [task], [])
    assert asm.rebind([task]) is False
    assert asm.rebind((task,)) is False
    twin = FrameTask("tool0")
    twin.set_target(task.target)
    assert asm.rebind([twin]) is True
    assert asm.tasks == [twin]


def test_w_kp_over_dt_is_computed_once_per_dt(ur5):
    """The stacked ``W·Kp`` is read again only when dt (or a weight) changes."""
    conf, task = reach(ur5)
    asm = Assembler(conf, [task], [])
    asm.assemble(conf, DT, 1e-12)
    c = asm.c.copy()
    asm.wk[:] = np.nan  # read only when W·Kp/dt is computed again
    asm.assemble(conf, DT, 1e-12)
    assert np.array_equal(asm.c, c)
    asm.assemble(conf, 2 * DT, 1e-12)
    assert np.isnan(asm.c).all()


def test_the_factor_of_w_e_is_computed_once_per_dt(ur5):
    conf, task = reach(ur5)
    asm = Assembler(conf, [task], [])
    asm.assemble(conf, DT, 1e-12)
    we = asm.weighted_errors(DT)
    assert np.allclose(we, task.compute_error(conf))
    asm.inv_gain[:] = np.nan  # read only when the factor dt/Kp is computed again
    assert np.array_equal(asm.weighted_errors(DT), we)
    assert np.isnan(asm.weighted_errors(2 * DT)).all()


# ----------------------------------------------------------------------- row writers
def test_a_frame_task_writes_its_rows_in_place(monkeypatch, ur5):
    """Once the assembler is built, a step asks a FrameTask for ``write_rows`` only (its
    rows written into the stacked arrays), not for a new ``(e, J)`` pair."""
    conf, task = reach(ur5)
    asm = Assembler(conf, [task], [])
    pairs = counting(monkeypatch, FrameTask, "compute_error_and_jacobian")
    writes = counting(monkeypatch, FrameTask, "write_rows")
    asm.assemble(conf, DT, 1e-12)
    assert pairs == [] and len(writes) == 1
    e, J = task.compute_error_and_jacobian(conf)
    assert np.allclose(asm.A, J) and np.allclose(asm.c, e / DT)


# ---------------------------------------------------------------- diagonal assembly
def chain(n):
    """A serial chain of n revolute joints (nv = n)."""
    model = pin.Model()
    parent = 0
    for k in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.1]))
        parent = model.addJoint(parent, pin.JointModelRY(), placement, f"j{k}")
        model.appendBodyToJoint(parent, pin.Inertia.FromSphere(1.0, 0.05), pin.SE3.Identity())
    model.addFrame(pin.Frame("tip", parent, 0, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    return model


@pytest.mark.parametrize("nv", [DIAGONAL_MIN_NV - 1, DIAGONAL_MIN_NV])
def test_a_posture_goes_on_the_diagonal_from_diagonal_min_nv(monkeypatch, nv):
    """A trailing posture is asked for its selection once per plan at any nv (its weighted
    rows are then written once, not every step); from nv = DIAGONAL_MIN_NV on (that value
    included) it is added to P's diagonal, below it goes through the dense AᵀA. P is the
    same."""
    model = chain(nv)
    conf = taskik.Configuration(model, np.full(nv, 0.1))
    posture = taskik.PostureTask(cost=0.5)
    posture.set_target(np.zeros(nv))
    asked = counting(monkeypatch, taskik.PostureTask, "selection")
    asm = Assembler(conf, [posture], [])
    P, r, *_ = asm.assemble(conf, DT, 0.0)
    assert len(asked) == 1
    assert bool(asm._diagonal) == (nv >= DIAGONAL_MIN_NV)
    assert np.allclose(P, 0.25 * np.eye(nv))
    assert np.allclose(r, 0.25 * 0.1 / DT)


@pytest.mark.parametrize("nv", [6, DIAGONAL_MIN_NV])
def test_constant_rows_follow_a_new_cost_and_unit_weights_between_steps(nv):
    """The posture's rows are written weighted once per weights: a new cost between two
    steps gives the new P (and the frame rows, unit-weighted then weighted, follow a new
    frame cost), equal to a plan built afresh."""
    model = chain(nv)
    conf = taskik.Configuration(model, np.full(nv, 0.1))
    frame = taskik.FrameTask("tip", 1.0, 1.0)
    frame.set_target(pin.SE3(np.eye(3), np.array([0.05, 0.0, 0.1 * nv - 0.02])))
    posture = taskik.PostureTask(cost=0.5)
    posture.set_target(np.zeros(nv))
    asm = Assembler(conf, [frame, posture], [])
    asm.assemble(conf, DT, 1e-12)
    for position_cost, posture_cost in [(2.0, 0.5), (2.0, 3.0), (1.0, 1.0)]:
        frame.set_position_cost(position_cost)
        posture.cost = posture_cost
        P, r, *_ = asm.assemble(conf, DT, 1e-12)
        P0, r0, *_ = Assembler(conf, [frame, posture], []).assemble(conf, DT, 1e-12)
        assert np.allclose(P, P0, rtol=1e-12, atol=1e-9) and np.allclose(r, r0, rtol=1e-12)
        tail = asm.A[6:]
        assert np.allclose(tail, posture_cost * np.eye(nv))


# -------------------------------------------------------------------- one soft box
def test_one_soft_box_takes_the_fast_path(monkeypatch, ur5, humanoid):
    """With the model's position limits as the only limit that changes with q, a step
    computes their box once, in stacked form, and asks for no inequality rows."""
    for robot in (ur5, humanoid):
        conf = robot.configuration()
        posture = taskik.PostureTask()
        posture.set_target(robot.q0)
        position = taskik.ConfigurationLimit(robot.model)
        velocity = taskik.VelocityLimit(robot.model)
        asm = Assembler(conf, [posture], [position, velocity])
        rows = counting(monkeypatch, position, "compute_inequalities")
        boxes = counting(monkeypatch, position, "compute_box")
        stacked = counting(monkeypatch, position, "compute_stacked_box")
        *_, lb, ub = asm.assemble(conf, DT, 1e-12)
        assert rows == [] and boxes == [] and len(stacked) == 1
        idx, lo, hi = position.compute_box(conf, DT)
        vidx, vlo, vhi = velocity.compute_box(conf, DT)
        hard_lb, hard_ub = np.full(robot.model.nv, -np.inf), np.full(robot.model.nv, np.inf)
        hard_lb[vidx], hard_ub[vidx] = vlo, vhi
        expected_lb, expected_ub = hard_lb.copy(), hard_ub.copy()
        expected_lb[idx] = np.minimum(np.maximum(lo, hard_lb[idx]), hard_ub[idx])
        expected_ub[idx] = np.maximum(np.minimum(hi, hard_ub[idx]), hard_lb[idx])
        assert np.array_equal(lb, expected_lb) and np.array_equal(ub, expected_ub)


@pytest.mark.parametrize(("robot", "full"), [("ur5", True), ("humanoid", False)])
def test_the_fast_path_knows_whether_the_soft_box_covers_all_of_v(request, robot, full):
    """A soft box over all of v is written straight into the bounds (UR5); one that
    leaves the free-flyer out is written over the hard box (humanoid)."""
    robot = request.getfixturevalue(robot)
    conf = robot.configuration()
    posture = taskik.PostureTask()
    posture.set_target(robot.q0)
    limits = [taskik.ConfigurationLimit(robot.model), taskik.VelocityLimit(robot.model)]
    asm = Assembler(conf, [posture], limits)
    assert asm._single_soft is not None and asm._single_soft[2] is full


# ------------------------------------------------------------------------- solve_ik
def test_a_box_only_step_uses_one_warm_daqp_workspace(monkeypatch, ur5):
    """With position and velocity limits only (a box, no rows) and DAQP, each step is
    solved by the plan's own warm DAQP workspace, not by the general checked path."""
    assert taskik.default_solver() == "daqp"
    conf, task = reach(ur5)
    general = counting(monkeypatch, solve_module, "solve_qp_arrays")
    warm = counting(monkeypatch, solve_module.DaqpWorkspace, "solve_box")
    steps = []
    for _ in range(3):
        steps.append(taskik.solve_ik(conf, [task], DT, solver="daqp"))
        conf.integrate_inplace(steps[-1], DT)
    assert general == []
    assert len(warm) == 3 and warm[0][0] is warm[1][0] is warm[2][0]
    assert warm[0][0] is get_assembler(conf, [task], None).qp_workspace
    assert np.abs(steps[0]).max() > 0.1


def test_a_resting_loop_calls_no_solver(monkeypatch, ur5):
    """A loop toward a target out of reach comes to rest; its steps are then exactly zero
    and no QP is solved."""
    conf, task = reach(ur5, offset=(2.0, 0.0, 0.0))
    for _ in range(300):
        v = taskik.solve_ik(conf, [task], DT)
        if get_assembler(conf, [task], None).adaptive.resting:
            break
        conf.integrate_inplace(v, DT)
    else:
        pytest.fail("the loop did not come to rest")
    general = counting(monkeypatch, solve_module, "solve_qp_arrays")
    warm = counting(monkeypatch, solve_module.DaqpWorkspace, "solve_box")
    for _ in range(3):
        conf.integrate_inplace(v, DT)
        v = taskik.solve_ik(conf, [task], DT)
        assert not v.any()
    assert general == [] and warm == []


def test_a_closed_loop_reads_w_e_once_per_step(monkeypatch, ur5):
    """A step of a closed loop computes ``W e`` once, and the next step compares with it
    rather than reading it back from the assembler again."""
    conf, task = reach(ur5)
    for _ in range(2):
        v = taskik.solve_ik(conf, [task], DT)
        conf.integrate_inplace(v, DT)
    reads = counting(monkeypatch, Assembler, "weighted_errors")
    for _ in range(3):
        v = taskik.solve_ik(conf, [task], DT)
        conf.integrate_inplace(v, DT)
    assert len(reads) == 3


def test_a_step_solved_in_between_ends_the_closed_loop(ur5):
    """Another assembly of the same plan between a step and its ``integrate_inplace``
    (here a plain step with other weights) overwrites the rows the next step would compare
    with: the next step is then not compared, and is the plain step."""
    conf, task = reach(ur5, offset=(0.3, 0.0, -0.3))
    v = taskik.solve_ik(conf, [task], DT)
    task.set_costs(0.01, 0.01)
    taskik.solve_ik(conf, [task], DT, adaptive=False)
    task.set_costs(1.0, 1.0)
    conf.integrate_inplace(v, DT)
    v = taskik.solve_ik(conf, [task], DT)
    assert get_assembler(conf, [task], None).adaptive.nu == 0.0
    plain = taskik.solve_ik(conf, [task], DT, adaptive=False)
    np.testing.assert_allclose(v, plain, rtol=1e-9, atol=1e-12)
