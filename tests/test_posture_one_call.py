"""The single-pose loop takes the frame's pose from the Jacobian's Pinocchio call (one call
per iteration): the same solutions as forward kinematics first, and no extra calls."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.posture.context import context


def _targets(model, n, seed):
    data = model.createData()
    fid = model.getFrameId("tool0")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        pin.framesForwardKinematics(model, data, rng.uniform(-np.pi, np.pi, model.nq))
        out.append(pin.SE3(data.oMf[fid]))
    return out


def _solutions_both_ways(model, pose_error, n, seeds, switch):
    """``{on: rows}``: ``(success, iterations, searches, q)`` of ``n`` seeded tool0 targets
    solved with ``switch(True)`` and then ``switch(False)`` (``seeds``: starts, targets,
    restarts)."""
    task = taskik.FrameTask("tool0")
    q0s = np.random.default_rng(seeds[0]).uniform(-np.pi, np.pi, (n, model.nq))
    solutions = {}
    for on in (True, False):
        switch(on)
        rows = []
        for target, q0 in zip(_targets(model, n, seeds[1]), q0s, strict=True):
            task.target = target
            res = taskik.solve_posture(model, [task], q0=q0, rng=seeds[2], pose_error=pose_error)
            rows.append((res.success, res.iterations, res.searches, res.q))
        solutions[on] = rows
    return solutions


@pytest.mark.parametrize("pose_error", ["log6", "world"])
def test_pose_with_the_jacobian_is_the_frame_placement(ur5, pose_error):
    model = ur5.model
    runner = context(model).fast_pose(model.getFrameId("tool0"), pose_error)
    assert runner.pose_with_jacobian()
    assert runner.one_call
    data = model.createData()
    fid = model.getFrameId("tool0")
    for q in np.random.default_rng(3).uniform(-3.0, 3.0, (20, model.nq)):
        pin.computeFrameJacobian(model, runner.data, q, fid, runner.ref)
        pin.forwardKinematics(model, data, q)
        M = pin.updateFramePlacement(model, data, fid)
        got = runner.poses[runner.pose_index].homogeneous
        assert np.abs(got - M.homogeneous).max() < 1e-12


@pytest.mark.parametrize("pose_error", ["log6", "world"])
def test_one_call_and_forward_kinematics_give_the_same_solutions(ur5, pose_error):
    model = ur5.model
    runner = context(model).fast_pose(model.getFrameId("tool0"), pose_error)
    try:
        solutions = _solutions_both_ways(
            model, pose_error, 40, (5, 4, 7), lambda on: setattr(runner, "one_call", on)
        )
    finally:
        runner.one_call = runner.pose_with_jacobian()
    for a, b in zip(solutions[True], solutions[False], strict=True):
        assert a[:3] == b[:3]
        assert np.abs(a[3] - b[3]).max() < 1e-9
    assert sum(row[0] for row in solutions[True]) >= 38


def test_one_pinocchio_call_per_iteration(ur5, monkeypatch):
    model = ur5.model
    calls = {"fk": 0, "jacobian": 0}
    fk, cfj = pin.forwardKinematics, pin.computeFrameJacobian

    def counted_fk(*args):
        calls["fk"] += 1
        return fk(*args)

    def counted_cfj(*args):
        calls["jacobian"] += 1
        return cfj(*args)

    task = taskik.FrameTask("tool0")
    task.target = _targets(model, 1, 11)[0]
    q0 = np.random.default_rng(12).uniform(-np.pi, np.pi, model.nq)
    # the first solve on a model checks once that the pose read with the Jacobian is the
    # frame's placement (forward kinematics at two configurations): not counted here
    taskik.solve_posture(model, [task], q0=q0, rng=0, max_searches=1, max_iterations=1)
    monkeypatch.setattr(pin, "forwardKinematics", counted_fk)
    monkeypatch.setattr(pin, "computeFrameJacobian", counted_cfj)
    res = taskik.solve_posture(model, [task], q0=q0, rng=0, max_searches=1, max_iterations=30)
    assert res.success and res.iterations >= 3
    assert calls["fk"] == 0
    assert calls["jacobian"] == res.iterations


@pytest.mark.parametrize("pose_error", ["log6", "world"])
def test_the_pose_fetched_once_follows_every_call(ur5, pose_error):
    """The loop reads the frame's pose through one element fetched when it is made: that
    element shows the pose of the latest Jacobian call, and the solutions are those of a
    fresh fetch at every iteration, float for float."""
    model = ur5.model
    fid = model.getFrameId("tool0")
    runner = context(model).fast_pose(fid, pose_error)
    held = runner.pose
    assert held is not None
    data = model.createData()
    for q in np.random.default_rng(8).uniform(-3.0, 3.0, (5, model.nq)):
        pin.computeFrameJacobian(model, runner.data, q, fid, runner.ref)
        pin.forwardKinematics(model, data, q)
        M = pin.updateFramePlacement(model, data, fid)
        assert np.abs(held.homogeneous - M.homogeneous).max() < 1e-12
    try:
        solutions = _solutions_both_ways(
            model,
            pose_error,
            20,
            (9, 10, 3),
            lambda on: setattr(runner, "pose", held if on else None),
        )
    finally:
        runner.pose = held
    for a, b in zip(solutions[True], solutions[False], strict=True):
        assert a[:3] == b[:3]
        assert np.array_equal(a[3], b[3])
    assert sum(row[0] for row in solutions[True]) >= 19


def test_the_loop_error_is_log6_of_the_pose_to_the_target(ur5):
    """The single-pose loop takes e = log6(T⁻¹T*) as the SE(3) Lie group's difference of
    T and T* ([translation, quaternion] vectors): the same vector as log6(T.actInv(T*))
    within rounding, rotations near π included, and not its opposite."""
    runner = context(ur5.model).fast_pose(ur5.model.getFrameId("tool0"), "log6")
    as_vector = pin.SE3ToXYZQUAT
    rng = np.random.default_rng(21)
    poses = [pin.SE3.Random() for _ in range(200)]
    axis = np.array([0.0, 0.6, 0.8])
    for angle in (np.pi - 1e-3, np.pi - 1e-7, 1e-9):  # near π and near identity
        poses.append(pin.SE3(pin.exp3(angle * axis), rng.normal(size=3)))
    worst = 0.0
    for M, T in zip(poses, [*poses[1:], poses[0]], strict=True):
        want = pin.log6(M.actInv(T)).vector
        got = runner.difference(as_vector(M), as_vector(T))
        worst = max(worst, float(np.abs(got - want).max()))
        assert np.abs(got + want).max() > 1e-3 or np.abs(want).max() < 1e-6
    assert worst < 1e-9
    # near a half turn the two agree to the rotation's conditioning: check it separately
    M = pin.SE3.Identity()
    T = pin.SE3(pin.exp3((np.pi - 1e-3) * axis), np.zeros(3))
    got = runner.difference(as_vector(M), as_vector(T))
    assert np.abs(got[3:] - (np.pi - 1e-3) * axis).max() < 1e-9
