"""The damping adapted across the steps of a closed loop (taskik.trust_region)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest
from recipes import humanoid_com

import taskik
from taskik.trust_region import AdaptiveDamping

# ----------------------------------------------------------------- the update rule, alone


def _loop(groups: list[slice], n_tasks: int = 1):
    """An AdaptiveDamping with a fake configuration and assembler (task i: row i, its
    target a 1-vector, compared by value)."""
    tasks = [SimpleNamespace(target=np.zeros(1)) for _ in range(n_tasks)]
    asm = SimpleNamespace(
        tasks=tasks,
        slices=[(t, None, None, slice(i, i + 1)) for i, t in enumerate(tasks)],
        A=np.zeros((n_tasks, 1)),
        assembles=0,
    )
    conf = SimpleNamespace(_updates=0, _last_step=None)
    return AdaptiveDamping(groups), conf, asm


def _step(ad, conf, asm, s, A, v, dt=0.1, base=None):
    """One solve (dampings, then record) followed by conf.integrate_inplace(v, dt)."""
    s, v = np.asarray(s, float), np.asarray(v, float)
    ad.begin(conf, asm)  # before the assembly: asm.A holds the last step's rows
    asm.A, asm.assembles = np.asarray(A, float), asm.assembles + 1  # the assembly
    out = ad.dampings(asm, s, base or [0.0] * len(ad.groups))
    ad.record(conf, asm, s, v, dt)
    conf._updates += 1
    conf._last_step = (conf._updates, v, dt)  # the v returned is the v integrated
    return out


def test_steps_that_do_what_they_predict_leave_the_step_plain():
    ad, conf, asm = _loop([slice(0, 1)])
    # s = 1, A = 1, v = 5, dt = 0.1: predicted s after = 0.5; reached exactly
    for s in (1.0, 0.5, 0.25):
        assert _step(ad, conf, asm, [s], [[1.0]], [5 * s]) == [0.0]
    assert ad.nu == 0.0


def test_a_step_that_made_the_error_worse_sets_nu_to_two_then_doubles_the_factor():
    ad, conf, asm = _loop([slice(0, 1)])
    _step(ad, conf, asm, [1.0], [[1.0]], [5.0])  # predicts 0.5
    out = _step(ad, conf, asm, [1.2], [[1.0]], [0.0])  # got 1.2: ρ < 0
    assert ad.nu == 2.0  # max(0, 1) · β, β = 2
    assert out == [pytest.approx(2.0 * 1.2**2)]  # ν ‖W e‖², Sugihara's damping
    _step(ad, conf, asm, [1.2], [[1.0]], [5.0])  # predicts 0.7, ρ of the v = 0 step unmeasured
    _step(ad, conf, asm, [1.5], [[1.0]], [0.0])  # worse again: ν · 4
    assert ad.nu == 8.0


def test_nielsen_factor_after_a_success():
    # ρ = 1 divides ν by 3; ρ = 1/2 keeps it; ρ = 1/4 multiplies it by 1 − (−1/2)³ = 9/8
    for rho, factor in ((1.0, 1 / 3), (0.5, 1.0), (0.25, 9 / 8)):
        ad, conf, asm = _loop([slice(0, 1)])
        _step(ad, conf, asm, [2.0], [[1.0]], [0.0])  # (the first step of a loop is plain)
        ad.nu = 4.0
        _step(ad, conf, asm, [1.0], [[1.0]], [5.0])  # M = 1, predicted M̂ = 0.25
        s_new = np.sqrt(1.0 - rho * 0.75)  # M_new = M − ρ (M − M̂)
        _step(ad, conf, asm, [s_new], [[1.0]], [0.0])
        assert ad.nu == pytest.approx(4.0 * factor)


def test_a_reversal_of_v_counts_as_a_failure():
    ad, conf, asm = _loop([slice(0, 1)])
    A = [[0.0, 0.0]]  # the tasks see nothing: only v tells
    _step(ad, conf, asm, [0.0], A, [1.0, 2.0])
    _step(ad, conf, asm, [0.0], A, [-0.6, -1.2])  # back by 60 % of the last step
    assert ad.nu == 2.0
    ad2, conf2, asm2 = _loop([slice(0, 1)])
    _step(ad2, conf2, asm2, [0.0], A, [1.0, 2.0])
    _step(ad2, conf2, asm2, [0.0], A, [-0.4, -0.8])  # back by 40 %: an overshoot
    assert ad2.nu == 0.0


def test_each_level_gets_the_merit_of_its_own_rows():
    ad, conf, asm = _loop([slice(0, 1), slice(1, 2), slice(2, 3)], n_tasks=3)
    ad.nu = 3.0
    out = ad.dampings(asm, np.array([0.0, 2.0, 1.0]), [1e-12, 0.5, 0.0])
    # level 0 met: undamped; level 1: ν · 4; level 2: ν · 1 (the hierarchy adds the merits
    # of the higher levels that have a direction of their own)
    assert out == [1e-12, pytest.approx(0.5 + 12.0), pytest.approx(3.0)]
    assert ad.merits == [0.0, 4.0, 1.0]


def test_a_level_with_no_direction_of_its_own_is_left_out_of_the_ratio():
    # two levels; the second predicted a decrease it could not make (its rows moved only
    # through the first level's step): with f = 0 it is not evidence against the model
    ad, conf, asm = _loop([slice(0, 1), slice(1, 2)], n_tasks=2)
    A = [[1.0], [1.0]]
    _step(ad, conf, asm, [2.0, 10.0], A, [0.0])  # (the first step of a loop is plain)
    ad.nu = 4.0
    _step(ad, conf, asm, [1.0, 10.0], A, [5.0])  # predicts 0.5 and 9.5
    ad.shares = [1.0, 0.0]
    _step(ad, conf, asm, [0.5, 10.0], A, [0.0])  # level 0 exact (ρ = 1), level 1 stuck
    assert ad.nu == pytest.approx(4.0 / 3.0)
    ad2, conf2, asm2 = _loop([slice(0, 1), slice(1, 2)], n_tasks=2)
    _step(ad2, conf2, asm2, [2.0, 10.0], A, [0.0])
    ad2.nu = 4.0
    _step(ad2, conf2, asm2, [1.0, 10.0], A, [5.0])
    _step(ad2, conf2, asm2, [0.5, 10.0], A, [0.0])  # every row counts: ρ = 0.75 / 10.5
    assert ad2.nu > 4.0


def test_q_set_from_outside_or_another_v_integrated_is_not_compared():
    ad, conf, asm = _loop([slice(0, 1)])
    _step(ad, conf, asm, [1.0], [[1.0]], [5.0])
    conf._updates += 1
    conf._last_step = None  # conf.update(q_measured)
    ad.begin(conf, asm)
    ad.dampings(asm, np.array([3.0]), [0.0])
    assert ad.nu == 0.0
    v = np.array([1.0])
    ad.record(conf, asm, np.array([3.0]), v, 0.1)
    v *= 0.5  # v edited before integrating
    conf._updates += 1
    conf._last_step = (conf._updates, v, 0.1)
    ad.begin(conf, asm)
    ad.dampings(asm, np.array([9.0]), [0.0])
    assert ad.nu == 0.0


@pytest.mark.parametrize("how", ["in place", "new object", "gain", "cost", "limit"])
def test_a_changed_target_or_parameter_makes_the_next_step_plain(how):
    """However the change is made (a target edited in place, a new target object of another
    value, a gain, a cost, a limit's bound), the step after it is the plain one: ν = 0 and
    the step is not compared (its error moved for a reason the last step did not see)."""
    ad, conf, asm = _loop([slice(0, 2)], n_tasks=2)
    task = asm.tasks[1]
    task._gain, task._lm_damping, task._cost = 1.0, 0.0, np.ones(1)
    asm.limits = [SimpleNamespace(v_max=np.ones(2), gain=0.5)]
    A = [[1.0], [1.0]]
    _step(ad, conf, asm, [1.0, 1.0], A, [0.0])
    ad.nu = 4.0  # (a loop with a history: its limits are compared too)
    _step(ad, conf, asm, [1.0, 1.0], A, [5.0])  # predicts 0.5, 0.5
    assert ad.nu == 4.0
    if how == "in place":
        task.target[0] = 0.3  # pink's idiom: transform_target_to_world.translation[1] = ...
    elif how == "new object":
        task.target = np.array([0.3])
    elif how == "gain":
        task._gain = 0.5
    elif how == "cost":
        task._cost = np.array([2.0])
    else:
        asm.limits[0].v_max[1] = 2.0
    assert _step(ad, conf, asm, [0.9, 9.0], A, [0.0]) == [0.0]  # worse, but not evidence
    assert ad.nu == 0.0
    _step(ad, conf, asm, [0.9, 9.0], A, [5.0])  # predicts 0.4, 8.5
    _step(ad, conf, asm, [1.0, 9.0], A, [0.0])  # nothing changed: both rows count, worse
    assert ad.nu == 2.0


def test_the_same_values_given_again_are_no_change():
    """A target set again to the value it had (a new object, ``set_target`` with an equal
    pose) is not a change: the step is compared and ν adapts."""
    from taskik.trust_region import step_state

    hand = taskik.FrameTask("tool0")
    hand.set_target(pin.SE3.Identity())
    before = step_state(SimpleNamespace(tasks=[hand], limits=[]))
    hand.set_target(pin.SE3.Identity())  # a new object, the same value
    assert step_state(SimpleNamespace(tasks=[hand], limits=[])) == before
    hand.target.translation[0] = 1e-9  # edited in place
    assert step_state(SimpleNamespace(tasks=[hand], limits=[])) != before
    ad, conf, asm = _loop([slice(0, 1)])
    _step(ad, conf, asm, [1.0], [[1.0]], [5.0])  # predicts 0.5
    asm.tasks[0].target = asm.tasks[0].target.copy()
    _step(ad, conf, asm, [1.2], [[1.0]], [0.0])  # worse: ρ < 0
    assert ad.nu == 2.0


def test_a_flipping_loop_keeps_its_damping_through_target_changes():
    """A period-2 pattern (each step reversing the one before) raises ν at every reversal,
    and a target that moves at every step does not reset it: the damping that ends the
    cycle stays while the loop flips, even where the error does not grow."""
    ad, conf, asm = _loop([slice(0, 1)])
    A = [[0.0, 0.0]]  # the task sees nothing: only v tells
    v = np.array([1.0, 2.0])
    nus = []
    for k in range(6):
        asm.tasks[0].target[0] = 0.01 * k  # moved at every step, in place
        _step(ad, conf, asm, [1.0], A, v)
        v = -v
        nus.append(ad.nu)
    assert nus[0] == 0.0 and nus[-1] >= 64.0
    assert all(b >= a > 0.0 for a, b in zip(nus[1:], nus[2:], strict=False))
    from taskik.trust_region import FLIP_GAP

    # the steps stop flipping: ν falls by 3 a step (as after a success), and once the last
    # reversal is FLIP_GAP steps old, the next change gives the plain step
    _step(ad, conf, asm, [1.0], A, np.array([1.0, 2.0]))  # (still a reversal of v)
    nus = [ad.nu]
    for k in range(FLIP_GAP + 3):
        asm.tasks[0].target[0] = 0.1 + 0.01 * k
        _step(ad, conf, asm, [1.0], A, np.array([1.0, 2.0]))
        nus.append(ad.nu)
    assert nus[1] == nus[0]  # the step after a reversal keeps it
    assert nus[2] == pytest.approx(nus[1] / 3.0) and nus[3] == pytest.approx(nus[2] / 3.0)
    assert all(b <= a for a, b in zip(nus, nus[1:], strict=False)) and nus[-1] == 0.0


# ------------------------------------------------------------- closed loops that settle


def _humanoid_com(start: str):
    return humanoid_com(taskik.robots.load("humanoid"), start)


@pytest.mark.parametrize("start", ["neutral", "q0"])
@pytest.mark.parametrize("limits", [[], None], ids=["no limits", "default limits"])
def test_humanoid_com_loop_with_default_gain_comes_to_rest(start, limits):
    """Issue: with gain 1 this loop cycled with period 2 at |v| ≈ 12–60 rad/s forever."""
    conf, feet, com, posture = _humanoid_com(start)
    tasks = [*feet, com, posture]
    speeds = []
    for _ in range(1500):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=limits)
        conf.integrate_inplace(v, 0.01)
        speeds.append(np.linalg.norm(v))
    assert max(speeds[-10:]) < 1e-3
    assert np.linalg.norm(com.compute_error(conf)) < 2e-5
    assert max(np.linalg.norm(f.compute_error(conf)) for f in feet) < 1e-5


def test_the_plain_step_still_cycles_on_the_same_loop():
    """``adaptive=False`` is the plain step (pink's): the cycle the adaptation removes."""
    conf, feet, com, posture = _humanoid_com("q0")
    tasks = [*feet, com, posture]
    vs = []
    for _ in range(600):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=[], adaptive=False)
        conf.integrate_inplace(v, 0.01)
        vs.append(v)
    assert np.linalg.norm(vs[-1]) > 10.0
    assert vs[-1] @ vs[-2] < -0.5 * np.linalg.norm(vs[-1]) * np.linalg.norm(vs[-2])


def test_talos_reaching_far_comes_to_rest_weighted_and_prioritized():
    """Issue: |v| stayed ≈ 14 rad/s after 600 steps and the prioritized feet drifted 6e-4."""
    robot = taskik.robots.load("talos")
    for prioritized in (False, True):
        conf = taskik.Configuration(robot.model, robot.q0.copy())
        feet = []
        for name in ("left_sole_link", "right_sole_link"):
            foot = taskik.FrameTask(name, 1.0, 1.0)
            foot.set_target_from_configuration(conf)
            feet.append(foot)
        hand = taskik.FrameTask("gripper_right_joint", 1.0, 0.0)
        target = conf.get_transform_frame_to_world("gripper_right_joint")
        hand.set_target(pin.SE3(target.rotation, target.translation + [1.2, -0.6, -0.4]))
        posture = taskik.PostureTask(1e-3)
        posture.set_target(conf.q.copy())
        problem = [feet, [hand], [posture]] if prioritized else [*feet, hand, posture]
        feet_error = []
        for _ in range(600):
            v = taskik.solve_ik(conf, problem, 0.01)
            conf.integrate_inplace(v, 0.01)
            feet_error.append(max(np.linalg.norm(f.compute_error(conf)) for f in feet))
        assert np.linalg.norm(v) < 1e-3
        assert np.linalg.norm(hand.compute_error(conf)[:3]) < 1e-4
        if prioritized:
            # the top level is exact once the loop has settled (while the body swings
            # towards the hand target, the feet drift at second order in |v dt|)
            assert max(feet_error[-100:]) < 1e-6


def test_adaptation_keeps_the_plain_step_where_the_model_is_exact():
    """A posture task is linear in q: every step does what it predicts, ν stays 0, and the
    loop is step for step the plain one."""
    robot = taskik.robots.load("ur5")
    a = taskik.Configuration(robot.model, robot.q0.copy())
    b = taskik.Configuration(robot.model, robot.q0.copy())
    posture = taskik.PostureTask(1.0)
    posture.set_target(robot.q0 + 0.5)
    for _ in range(50):
        va = taskik.solve_ik(a, [posture], 0.01)
        vb = taskik.solve_ik(b, [posture], 0.01, adaptive=False)
        np.testing.assert_array_equal(va, vb)
        a.integrate_inplace(va, 0.01)
        b.integrate_inplace(vb, 0.01)


# ---------------------------------------------- why the plain step cycles: the d/L overshoot


def _one_link(length: float):
    """A link of ``length`` m turning about z at the origin; frame ``tip`` at its end."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "hinge")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.01), pin.SE3.Identity())
    model.addFrame(
        pin.Frame("tip", joint, 0, pin.SE3(np.eye(3), np.array([length, 0, 0])), pin.OP_FRAME)
    )
    return model


@pytest.mark.parametrize("ratio", [1.5, 3.0])
def test_the_plain_step_towards_a_point_out_of_reach_goes_d_over_l_too_far(ratio):
    """Module docstring: for ‖e‖² = d² + L² − 2dL cos θ, the Gauss–Newton step is
    Δθ = −(d/L) sin θ, so the loop θ ← θ − (d/L) sin θ flips sign and grows for d > 2L."""
    L = 0.5
    model = _one_link(L)
    tip = taskik.PositionTask("tip")
    tip.set_target([ratio * L, 0.0, 0.0])
    theta = 0.1
    conf = taskik.Configuration(model, np.array([theta]))
    v = taskik.solve_ik(conf, [tip], 1.0, limits=[], damping=0.0, adaptive=False)
    assert v[0] == pytest.approx(-ratio * np.sin(theta), rel=1e-9)


def test_the_adaptive_loop_brings_the_link_to_rest_where_the_plain_one_cycles():
    L = 0.5
    model = _one_link(L)
    tip = taskik.PositionTask("tip")
    tip.set_target([3.0 * L, 0.0, 0.0])  # d = 3L: |1 − d/L| = 2, the plain loop diverges
    outcomes = {}
    for adaptive in (False, True):
        conf = taskik.Configuration(model, np.array([0.1]))
        for _ in range(200):
            v = taskik.solve_ik(conf, [tip], 0.01, limits=[], adaptive=adaptive)
            conf.integrate_inplace(v, 0.01)
        outcomes[adaptive] = (abs(float(v[0])), abs(np.sin(conf.q[0])))
    assert outcomes[False][0] > 1.0  # still swinging after 200 steps
    assert outcomes[True][0] < 1e-6 and outcomes[True][1] < 1e-6  # at rest, pointing at it


def test_a_posture_target_moved_every_step_is_left_out_not_compared_by_value():
    """Targets are compared by identity: an array target replaced at every step (a moving
    posture) must neither crash the comparison nor count as evidence."""
    robot = taskik.robots.load("ur5")
    conf = taskik.Configuration(robot.model, robot.q0.copy())
    tool = taskik.FrameTask("tool0")
    tool.set_target_from_configuration(conf)
    posture = taskik.PostureTask(1e-3)
    for k in range(20):
        posture.set_target(robot.q0 + 0.01 * k)
        v = taskik.solve_ik(conf, [tool, posture], 0.01)
        conf.integrate_inplace(v, 0.01)
    assert np.linalg.norm(tool.compute_error(conf)) < 1e-3


def test_a_step_that_skipped_its_errors_is_compared_from_the_assembled_rows():
    """A step outside a loop with ν = 0 computes no W e (skip, record with None); the next
    step, a continuation, reads it back from the assembler: ν moves as if it had been kept."""
    nus = []
    for lazy in (False, True):
        ad, conf, asm = _loop([slice(0, 1)])
        rows = {"s": None}
        asm.weighted_errors = lambda dt, rows=rows: np.array(rows["s"])  # the last step's W e
        history = []
        for s, v in (([1.0], [5.0]), ([1.2], [0.0]), ([1.2], [5.0]), ([1.5], [0.0])):
            s, v = np.asarray(s, float), np.asarray(v, float)
            ad.begin(conf, asm)
            asm.A, asm.assembles = np.array([[1.0]]), asm.assembles + 1
            rows["s"] = s
            if lazy and not ad.needs_errors():
                ad.skip(asm)
                ad.record(conf, asm, None, v, 0.1)
            else:
                ad.dampings(asm, s, [0.0])
                ad.record(conf, asm, s, v, 0.1)
            conf._updates += 1
            conf._last_step = (conf._updates, v, 0.1)
            history.append(ad.nu)
        nus.append(history)
    # the lazy loop copies no targets at its first step, so its second step is not compared
    # (nothing tells whether a target moved); from the third on it is, from W e read back
    assert nus[0] == [0.0, 2.0, 2.0, 8.0]
    assert nus[1] == [0.0, 0.0, 0.0, 2.0]


def test_a_level_in_conflict_with_a_higher_one_does_not_hold_back_the_levels_below(panda):
    """Two levels pull the hand 0.1 m apart, then the posture (a B5 episode): the second
    level has no direction of its own, so its unmet error must not damp the posture level.
    While it did, ``|v|`` was still 0.149 rad/s after 1000 steps of 1 ms."""
    q = np.array([-0.66155, -1.415674, 1.310066, -1.963108, 0.586128, 2.749631, -0.565449])
    conf = taskik.Configuration(panda.model, q)
    start = conf.get_transform_frame_to_world("panda_hand")
    offset = np.array([-0.042396, 0.069411, 0.058178])
    first, second = taskik.FrameTask("panda_hand", 1.0, 1.0), taskik.FrameTask("panda_hand", 1, 1)
    first.set_target(pin.SE3(start.rotation, start.translation + offset))
    second.set_target(pin.SE3(start.rotation, start.translation - offset))
    posture = taskik.PostureTask(1e-3)
    posture.set_target(q)
    speeds = []
    for _ in range(1000):
        v = taskik.solve_ik(conf, [[first], [second], [posture]], 0.001)
        conf.integrate_inplace(v, 0.001)
        speeds.append(np.linalg.norm(v))
    assert max(speeds[-10:]) < 1e-3
    assert np.linalg.norm(first.compute_error(conf)) < 1e-9
    assert np.linalg.norm(second.compute_error(conf)) == pytest.approx(0.2, abs=1e-6)


# ------------------------------------------------------------------------ coming to rest
def test_steps_without_progress_bring_the_loop_to_rest_after_rest_steps():
    """The error stays at 1 while v keeps moving (a creep along a flat valley): after
    REST_STEPS compared steps in a row the loop rests; one step of progress resets the count."""
    from taskik.trust_region import REST_STEPS

    ad, conf, asm = _loop([slice(0, 1)])
    _step(ad, conf, asm, [1.0], [[1.0]], [0.01])
    for _ in range(REST_STEPS - 1):
        _step(ad, conf, asm, [1.0], [[1.0]], [0.01])
        assert not ad.resting
    _step(ad, conf, asm, [1.0], [[1.0]], [0.01])
    assert ad.resting
    # at rest (v = 0) W e is exactly what it was: the loop stays at rest
    _step(ad, conf, asm, [1.0], [[1.0]], [0.0])
    assert ad.resting
    # something moved q (W e changed): awake, and counting from zero again
    _step(ad, conf, asm, [0.9], [[1.0]], [0.01])
    assert not ad.resting


@pytest.mark.parametrize("reverses", [True, False])
def test_progress_that_a_reversal_undid_does_not_keep_the_loop_awake(reverses):
    """A B5 cycle (Panda, levels, a reachable hand held 0.12 m off by a joint at its range
    end): the posture level's error fell for 9 steps, then one step reversing v jumped back
    to where the cycle began, for ever; every fall counted as progress and the loop never
    rested. After a reversal only an error below the lowest since the loop woke is progress.
    The same falls without the reversal (a loop that keeps moving forward) stay progress."""
    ad, conf, asm = _loop([slice(0, 1)])
    errors = [1.0, 0.99, 0.98, 0.97, 0.96]
    rested_at = None
    for k in range(40):
        last = k % len(errors) == len(errors) - 1
        v = [-0.04] if last and reverses else [0.01]
        _step(ad, conf, asm, [errors[k % len(errors)]], [[0.0]], v)
        if ad.resting:
            rested_at = k
            break
    if reverses:
        # the first cycle ends with the first reversal; the next ones make no new low
        assert rested_at is not None and rested_at < 3 * len(errors)
    else:
        assert rested_at is None


def test_a_new_low_after_a_reversal_counts_and_restores_the_step_to_step_rule():
    from taskik.trust_region import REST_STEPS

    ad, conf, asm = _loop([slice(0, 1)])
    _step(ad, conf, asm, [1.0], [[0.0]], [0.01])
    _step(ad, conf, asm, [0.9], [[0.0]], [-0.01])  # a reversal
    _step(ad, conf, asm, [0.95], [[0.0]], [0.01])  # back up
    _step(ad, conf, asm, [0.92], [[0.0]], [0.01])  # falls, but not below 0.9: no progress
    assert ad._calm == 2
    _step(ad, conf, asm, [0.8], [[0.0]], [0.01])  # a new low: progress
    assert ad._calm == 0
    _step(ad, conf, asm, [0.85], [[0.0]], [0.01])
    for k in range(REST_STEPS):  # falls above the low count again, step to step
        _step(ad, conf, asm, [0.84 - 0.01 * k], [[0.0]], [0.01])
        assert ad._calm == 0
    assert not ad.resting


def test_progress_of_a_tenth_of_a_percent_per_second_keeps_the_loop_moving():
    """REST_RATE · dt · M is the line: a step that lowers M by more keeps the loop moving,
    however many steps; one that lowers it by less counts towards the rest."""
    from taskik.trust_region import REST_RATE, REST_STEPS

    dt = 0.1
    for factor, rests in ((1.5, False), (0.5, True)):
        ad, conf, asm = _loop([slice(0, 1)])
        m = 1.0
        _step(ad, conf, asm, [1.0], [[1.0]], [1e-3], dt)  # (the first step is not compared)
        for _ in range(REST_STEPS):
            m *= 1.0 - factor * REST_RATE * dt  # M lowered by factor × the line
            _step(ad, conf, asm, [np.sqrt(m)], [[1.0]], [1e-3], dt)
        assert ad.resting is rests


def test_a_changed_target_or_a_q_from_outside_wakes_the_loop():
    from taskik.trust_region import REST_STEPS

    for wake in ("target", "q"):
        ad, conf, asm = _loop([slice(0, 1)])
        for _ in range(REST_STEPS + 1):
            _step(ad, conf, asm, [1.0], [[1.0]], [0.01])
        assert ad.resting
        if wake == "target":
            asm.tasks[0].target[0] = 1.0  # edited in place
            _step(ad, conf, asm, [1.0], [[1.0]], [0.0])
        else:
            conf._updates += 1
            conf._last_step = None  # conf.update(q_measured)
            ad.begin(conf, asm)
            ad.dampings(asm, np.array([1.0]), [0.0])
        assert not ad.resting


def test_a_level_with_progress_keeps_the_levels_moving_but_one_without_a_direction_does_not():
    """Levels: the rest needs every level with a direction of its own to be without progress;
    a level with f = 0 (its error only follows the levels above) has no say."""
    from taskik.trust_region import REST_STEPS

    for share, rests in ((1.0, False), (0.0, True)):
        ad, conf, asm = _loop([slice(0, 1), slice(1, 2)], n_tasks=2)
        ad.shares = [1.0, share]
        e = 1.0
        _step(ad, conf, asm, [1.0, e], [[1.0], [1.0]], [0.01])
        for _ in range(REST_STEPS):
            e *= 0.5  # the second level keeps halving its error
            _step(ad, conf, asm, [1.0, e], [[1.0], [1.0]], [0.01])
        assert ad.resting is rests


def test_the_rest_step_must_meet_the_limits_else_the_loop_wakes():
    """v = 0 is the rest step only when it is inside the box and meets G v <= h."""
    ad, _, _ = _loop([slice(0, 1)])
    ad.resting = True
    assert ad.rests(np.array([-1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.0]))
    assert ad.rests(None, None, None)
    for lb, ub, h in (
        (np.array([1e-9, -1.0]), np.array([1.0, 1.0]), None),  # the box excludes 0
        (np.array([-1.0, -1.0]), np.array([1.0, -1e-9]), None),
        (None, None, np.array([1.0, -1e-9])),  # a row 0 <= -1e-9 (an obstacle too close)
        (np.array([-1.0, np.nan]), np.array([1.0, 1.0]), None),  # a NaN bound meets nothing
        (np.array([-1.0, -1.0]), np.array([np.nan, 1.0]), None),
        (None, None, np.array([np.nan, 1.0])),
    ):
        ad.resting = True
        assert not ad.rests(lb, ub, h)
        assert not ad.resting


PANDA_AT_A_JOINT_LIMIT = np.array(
    [-1.856683481150416, 0.2914773116916294, -0.502566046174207, -0.07625666159662581,
     -0.4860989758221166, 3.5749286810829313, 1.3424086360192047]
)  # fmt: skip


def panda_hands_apart_at_a_joint_limit(panda):
    """The B5 episode (panda conflicting random 0.01 levels 0): ``(configuration, levels)``
    with levels [[hand A], [hand B], [posture]], A and B 0.2 m apart."""
    conf = taskik.Configuration(panda.model, PANDA_AT_A_JOINT_LIMIT)
    start = conf.get_transform_frame_to_world("panda_hand")
    offset = np.array([0.09831161953241037, -0.01586143196815065, -0.00912361994135624])
    first, second = taskik.FrameTask("panda_hand", 1.0, 1.0), taskik.FrameTask("panda_hand", 1, 1)
    first.set_target(pin.SE3(start.rotation, start.translation + offset))
    second.set_target(pin.SE3(start.rotation, start.translation - offset))
    posture = taskik.PostureTask(1e-3)
    posture.set_target(PANDA_AT_A_JOINT_LIMIT)
    return conf, [[first], [second], [posture]]


def test_a_loop_creeping_at_a_joint_limit_comes_to_rest_and_wakes_for_a_new_target(panda):
    """A B5 episode: levels [[hand A], [hand B], [posture]] with A and B 0.2 m apart and a
    joint limit in the way of A. Hand A ends 6.4 mm off, at a constrained minimum whose
    valley the damped step creeps along (|v| ≈ 0.01 rad/s after 1000 steps of 10 ms, and
    bursts of 2.7 rad/s later, for an error 80 µm lower). The loop now rests (v = 0
    exactly) within 1000 steps, and moves again once hand A's target changes."""
    conf, levels = panda_hands_apart_at_a_joint_limit(panda)
    (first,), (second,), _ = levels
    speeds = []
    for _ in range(1000):
        v = taskik.solve_ik(conf, levels, 0.01)
        conf.integrate_inplace(v, 0.01)
        speeds.append(np.linalg.norm(v))
    assert speeds[-10:] == [0.0] * 10
    assert 0.00636 < np.linalg.norm(first.compute_error(conf)) < 0.00645
    assert np.all(conf.q <= panda.model.upperPositionLimit)
    # hand A asked where hand B is (no conflict left, away from the limit): the loop wakes
    # and reaches it
    first.set_target(second.target)
    for _ in range(300):
        v = taskik.solve_ik(conf, levels, 0.01)
        conf.integrate_inplace(v, 0.01)
    assert np.linalg.norm(first.compute_error(conf)) < 1e-6


class _Chaser(taskik.Task):
    """A point of the UR5's tool driven to ``self.goal``: an attribute of the task's own,
    which the loop cannot compare (it is not ``target``)."""

    dim = 3

    def __init__(self) -> None:
        super().__init__(cost=1.0)
        self.goal = np.zeros(3)

    def compute_error_and_jacobian(self, configuration):
        fid = configuration.get_frame_id("tool0")
        p = configuration.data.oMf[fid].translation
        J = configuration.get_frame_jacobian("tool0", pin.LOCAL_WORLD_ALIGNED)[:3]
        return self.goal - p, J


def test_a_loop_chasing_a_target_it_cannot_see_rarely_rests(ur5):
    """A resting loop whose error grows is woken, and a loop whose rests keep being moved by
    something it cannot compare (a task's own attribute) waits longer before each next rest:
    while the goal moves out of reach, few steps return v = 0 with a growing error (one in
    eleven when every rest started after 10 calm steps)."""
    conf = ur5.configuration()
    chaser = _Chaser()
    start = conf.get_transform_frame_to_world("tool0").translation.copy()
    chaser.goal = start + [1.0, 0.0, 0.0]  # out of reach: the loop comes to rest
    posture = taskik.PostureTask(1e-3)
    posture.set_target(conf.q)
    frozen = 0
    last = None
    for _ in range(1500):
        chaser.goal = chaser.goal + [0.0, 2e-4, 0.0]  # a new array, but not a target
        v = taskik.solve_ik(conf, [chaser, posture], 0.01)
        error = np.linalg.norm(chaser.compute_error(conf))
        if last is not None and last[0] and error > last[1]:
            frozen += 1
        last = (not v.any(), error)
        conf.integrate_inplace(v, 0.01)
    assert frozen <= 8
