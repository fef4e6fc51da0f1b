"""pink's idioms, written as pink's examples write them, give pink's steps with taskik's
defaults (``adaptive=True``): a target edited in place, the same object given again to
``set_target``, a gain changed mid-run, a log of ``configuration.q``, a floating base not
named ``root_joint``; q set from outside; and the Go2 squat of pink's examples, whose plain
step cycles, comes to no period-2 cycle (taskik.trust_region)."""

from __future__ import annotations

import functools
import sys
from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.configuration import custom_configuration_vector
from taskik.limits import PositionBarrier
from taskik.utils import VectorSpace, get_joint_idx, get_root_joint_dim

erd = pytest.importorskip("example_robot_data")
DT = 0.005


@functools.cache
def _parsed(name: str):
    return erd.load(name)


def _load(name: str) -> SimpleNamespace:
    """``erd.load(name)``'s model and q0, fresh copies (a test may rename its frames or give
    it attributes) of one parse per test process (a parse reads the meshes: 0.6–2.3 s)."""
    robot = _parsed(name)
    return SimpleNamespace(model=robot.model.copy(), q0=robot.q0.copy())


def _pink():
    return pytest.importorskip("pink", reason="pin-pink (the bench extra) compares the steps")


def _arm(lib, robot, q0):
    """A UR5 loop's configuration and tasks, in either library (pink's example)."""
    ns = taskik if lib is taskik else lib.tasks
    conf = lib.Configuration(robot.model, robot.model.createData(), q0)
    hand = ns.FrameTask("tool0", position_cost=1.0, orientation_cost=1.0)
    hand.lm_damping = 1.0
    posture = ns.PostureTask(cost=1e-3)
    for task in (hand, posture):
        task.set_target_from_configuration(conf)
    return conf, hand, posture


def _solve(lib, conf, tasks):
    return lib.solve_ik(conf, tasks, DT, solver="daqp")  # taskik: its defaults (adaptive)


UR5_Q0 = dict(shoulder_lift_joint=-1.2, elbow_joint=1.4, wrist_1_joint=-1.7)


@pytest.mark.parametrize("idiom", ["in place", "same object"])
def test_a_target_moved_pinks_way_gives_pinks_steps(idiom):
    """pink's examples move a target by editing ``transform_target_to_world`` in place, or
    edit it and pass the same object to ``set_target``: every step is pink's step. (While
    targets were compared by identity, the in-place edit went unseen: the loop damped and
    rested, and the tool fell 0.09–0.25 m behind in pink's UR3 example.)"""
    pink = _pink()
    robot = _load("ur5")
    q0 = custom_configuration_vector(robot, **UR5_Q0)
    runs = []
    for lib in (taskik, pink):
        conf, hand, posture = _arm(lib, robot, q0)
        vs = []
        for k in range(400):
            target = hand.transform_target_to_world
            target.translation[1] = 0.3 + 0.1 * np.sin(2.0 * k * DT)
            target.translation[2] = 0.6  # out of reach at first: the loop lags and is damped
            if idiom == "same object":
                hand.set_target(target)
            v = _solve(lib, conf, [hand, posture])
            conf.integrate_inplace(v, DT)
            vs.append(v)
        runs.append(np.array(vs))
    ours, theirs = runs
    assert np.abs(theirs).max() > 1.0  # the loop moves
    assert np.abs(ours - theirs).max() < 1e-9 * max(1.0, np.abs(theirs).max())
    assert np.linalg.norm(ours, axis=1).min() > 0.0  # never a step at rest


def test_a_gain_change_mid_run_gives_pinks_step_at_once():
    """A loop damped by its history (an unreachable target, ``ν > 0`` or at rest): the step
    after a gain change is the plain one, pink's step at the same q."""
    pink = _pink()
    robot = _load("ur5")
    q0 = custom_configuration_vector(robot, **UR5_Q0)
    conf, hand, posture = _arm(taskik, robot, q0)
    far = hand.transform_target_to_world.copy()
    far.translation[0] += 1.5  # out of reach: the adaptive loop damps, then rests
    hand.set_target(far)
    for _ in range(300):
        conf.integrate_inplace(_solve(taskik, conf, [hand, posture]), DT)
    damped = _solve(taskik, conf, [hand, posture])
    conf.integrate_inplace(damped, DT)
    # (the plain step on a copy: its own plans, the loop's history untouched)
    plain = taskik.solve_ik(conf.copy(), [hand, posture], DT, solver="daqp", adaptive=False)
    damped = _solve(taskik, conf, [hand, posture])
    assert np.abs(damped - plain).max() > 1e-3 * max(1.0, np.abs(plain).max())  # a history
    hand.gain = 0.4  # pink's UR3 example switches gains mid-run
    v = _solve(taskik, conf, [hand, posture])
    p_conf, p_hand, p_posture = _arm(pink, robot, conf.q)
    p_hand.set_target(far)
    p_posture.set_target(q0)
    p_hand.gain = 0.4
    theirs = _solve(pink, p_conf, [p_hand, p_posture])
    assert np.abs(v - theirs).max() < 1e-9 * max(1.0, np.abs(theirs).max())


def test_a_gain_set_again_to_its_value_is_no_change():
    """pink's UR3 example assigns the gain at every step; the same value is no change: the
    task's version (what the step's caches and the adaptive damping compare) stays."""
    hand = taskik.FrameTask("tool0")
    version = hand._version
    hand.gain = 1.0
    hand.lm_damping = 0.0
    hand.cost = [1.0] * 6
    hand.set_costs(1.0, 1.0)
    assert hand._version == version
    hand.gain = 0.4
    assert hand._version == version + 1


def test_q_set_from_outside_gives_the_plain_step(panda):
    """A damped or resting loop whose q is then set from outside (``update(q)``): the next
    step is the plain one."""
    conf = taskik.Configuration(panda.model, panda.q0.copy())
    hand = taskik.FrameTask("panda_hand", 1.0, 1.0)
    far = conf.get_transform_frame_to_world("panda_hand")
    hand.set_target(pin.SE3(far.rotation, far.translation + [1.5, 0.0, 0.0]))
    posture = taskik.PostureTask(1e-3)
    posture.set_target(panda.q0)
    tasks = [hand, posture]
    for _ in range(300):
        conf.integrate_inplace(taskik.solve_ik(conf, tasks, DT), DT)
    plain = taskik.solve_ik(conf.copy(), tasks, DT, adaptive=False)
    assert np.abs(taskik.solve_ik(conf, tasks, DT) - plain).max() > 1e-6
    conf.update(conf.q + 0.0)  # the same values, set from outside
    assert np.abs(taskik.solve_ik(conf, tasks, DT) - plain).max() < 1e-9


def test_a_log_of_configuration_q_keeps_every_configuration():
    """``configurations.append(configuration.q)`` (pink's UR3 example) records each step's q,
    as pink's log does: integrate_inplace rebinds q instead of writing it in place."""
    pink = _pink()
    robot = _load("ur5")
    q0 = custom_configuration_vector(robot, **UR5_Q0)
    logs = []
    for lib in (taskik, pink):
        conf, hand, posture = _arm(lib, robot, q0)
        target = hand.transform_target_to_world
        log = []
        for k in range(30):
            target.translation[2] = 0.5 + 0.01 * k
            v = _solve(lib, conf, [hand, posture])
            conf.integrate_inplace(v, DT)
            log.append(conf.q)
        logs.append(np.array(log))
    ours, theirs = logs
    assert np.abs(np.diff(ours, axis=0)).max() > 1e-4  # not 30 copies of the last q
    assert np.abs(ours - theirs).max() < 1e-9
    mine = q0.copy()
    conf = taskik.Configuration(robot.model, mine)
    conf.integrate_inplace(np.ones(6), 0.1)
    conf.update(conf.q + 0.1)
    assert np.array_equal(mine, q0)  # the array given stays the user's


def _two_arms_on_a_flying_base(root_name: str) -> pin.Model:
    """pink's flying dual-arm example: a free flyer named ``root_name`` carrying two UR5s."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), root_name)
    model.appendBodyToJoint(joint, pin.Inertia.FromBox(1.0, 0.8, 0.4, 0.2), pin.SE3.Identity())
    model.addJointFrame(joint, -1)
    body = model.addBodyFrame("body", joint, pin.SE3.Identity(), -1)
    for side, x in (("left", 0.3), ("right", -0.3)):
        arm = _load("ur5").model
        for frame in arm.frames:
            frame.name = f"{side}_{frame.name}"
        for i, name in enumerate(arm.names):
            arm.names[i] = f"{side}_{name}"
        model = pin.appendModel(model, arm, body, pin.SE3(np.eye(3), np.array([x, 0.0, 0.0])))
    return model


@pytest.mark.parametrize("root_name", ["base", "root_joint"])
def test_a_posture_on_a_floating_base_follows_pinks_rule(root_name):
    """pink's PostureTask leaves out the root joint only when it is named ``root_joint``: a
    free flyer named ``base`` is driven like any joint, and the steps are pink's."""
    pink = _pink()
    model = _two_arms_on_a_flying_base(root_name)
    q0 = custom_configuration_vector(
        model, left_shoulder_lift_joint=-1.0, right_elbow_joint=1.0, left_elbow_joint=1.0
    )
    runs = []
    for lib in (taskik, pink):
        ns = taskik if lib is taskik else lib.tasks
        conf = lib.Configuration(model, model.createData(), q0)
        base = ns.FrameTask(root_name, position_cost=1.0, orientation_cost=1.0)
        hand = ns.FrameTask("left_tool0", position_cost=1.0, orientation_cost=1.0)
        posture = ns.PostureTask(cost=1e-3)
        tasks = [base, hand, posture]
        for task in tasks:
            task.set_target_from_configuration(conf)
        rows = posture.compute_error(conf).shape[0]
        assert rows == (model.nv - 6 if root_name == "root_joint" else model.nv)
        vs = []
        for k in range(40):
            base.transform_target_to_world.translation[2] = 0.3 * np.sin(2.0 * k * DT)
            hand.transform_target_to_world.translation[1] = 0.5
            v = lib.solve_ik(conf, tasks, DT, solver="daqp", limits=[])
            conf.integrate_inplace(v, DT)
            vs.append(v)
        runs.append(np.array(vs))
    ours, theirs = runs
    assert np.abs(theirs).max() > 1.0
    assert np.abs(ours - theirs).max() < 1e-8 * max(1.0, np.abs(theirs).max())


# ------------------------------------------------------------------- pink's other names


def test_taskik_utils_has_pinks_helpers(humanoid, ur5):
    assert get_root_joint_dim(humanoid.model) == (7, 6)
    assert get_root_joint_dim(ur5.model) == (0, 0)
    assert get_root_joint_dim(_two_arms_on_a_flying_base("base")) == (0, 0)  # as pink
    jid = ur5.model.getJointId("elbow_joint")
    assert get_joint_idx(ur5.model, "elbow_joint") == (
        ur5.model.joints[jid].idx_q,
        ur5.model.joints[jid].idx_v,
    )
    with pytest.raises(taskik.UnknownName, match="elbow_joint"):
        get_joint_idx(ur5.model, "elbow_jiont")
    space = VectorSpace(3)
    assert np.array_equal(space.eye, np.eye(3)) and not space.zeros.flags.writeable
    with pytest.raises(taskik.InvalidInput, match="dim"):
        VectorSpace(-1)


def test_pinks_utils_and_taskiks_agree():
    _pink()
    import pink.utils

    robot = _load("ur5")
    for model in (robot.model, _load("g1").model, _two_arms_on_a_flying_base("base")):
        assert get_root_joint_dim(model) == pink.utils.get_root_joint_dim(model)
    assert get_joint_idx(robot.model, "wrist_2_joint") == pink.utils.get_joint_idx(
        robot.model, "wrist_2_joint"
    )


def test_acceleration_limit_accepts_set_last_integration(ur5):
    """pink's ``acceleration_limit.set_last_integration(v, dt)``: accepted; with q set from
    outside it gives the previous velocity, as in pink."""
    limit = taskik.AccelerationLimit(ur5.model, 10.0)
    conf = ur5.configuration()
    v = np.full(6, 0.5)
    conf.integrate_inplace(v, 0.01)
    limit.set_last_integration(v, 0.01)  # (the configuration knows it already)
    _, lower, upper = limit.compute_box(conf, 0.01)
    assert np.allclose(lower, 0.4) and np.allclose(upper, 0.6)
    conf.update(conf.q)  # q from outside: v_prev is the velocity given
    limit.set_last_integration(2.0 * v, 0.01)
    _, lower, upper = limit.compute_box(conf, 0.01)
    assert np.allclose(lower, 0.9) and np.allclose(upper, 1.1)
    with pytest.raises(taskik.InvalidInput, match="dt"):
        limit.set_last_integration(v, 0.0)
    with pytest.raises(taskik.InvalidInput):
        limit.set_last_integration(np.ones(5), 0.01)


def test_a_configuration_gives_the_model_pinks_limit_attributes(monkeypatch):
    """``configuration.model.configuration_limit`` / ``velocity_limit`` (pink's UR3 example)
    are taskik's default limits; not while pink is imported (it would take them)."""
    monkeypatch.delitem(sys.modules, "pink", raising=False)
    robot = _load("ur5")
    conf = taskik.Configuration(robot.model, robot.q0)
    model = conf.model
    assert isinstance(model.configuration_limit, taskik.ConfigurationLimit)
    assert isinstance(model.velocity_limit, taskik.VelocityLimit)
    limits = (model.configuration_limit, model.velocity_limit)
    assert np.array_equal(
        taskik.solve_ik(conf, [], 0.01, limits=limits), taskik.solve_ik(conf, [], 0.01)
    )
    monkeypatch.setitem(sys.modules, "pink", object())
    other = _load("ur5").model
    taskik.Configuration(other, robot.q0)
    assert not hasattr(other, "configuration_limit")


# ------------------------------------------------------------------ a position barrier


def _go2():
    robot = _load("go2")
    q = robot.q0.copy()
    q[7:] = [0.0, 0.8, -1.57] * 4
    q[2] = 0.3
    return robot, q


def test_position_barrier_rows_are_the_frame_position_rate_by_finite_differences(rng):
    """``G = ∓∂p_i/∂q`` (world axes) and ``h = γ · margin``, checked against p(q ⊕ δ)."""
    robot, q = _go2()
    model = robot.model
    barrier = PositionBarrier(
        "FL_foot", indices=[0, 2], p_min=[-1.0, -0.5], p_max=[1.0, 0.5], gain=[10.0, 20.0]
    )
    conf = taskik.Configuration(model, q)
    G, h = barrier.compute_inequalities(conf, DT)
    assert G.shape == (4, model.nv) and barrier.row_names()[0] == "FL_foot x >= -1"
    fid = model.getFrameId("FL_foot")
    p = conf.data.oMf[fid].translation.copy()
    eps = 1e-7
    for _ in range(3):
        dv = rng.normal(size=model.nv)
        moved = taskik.Configuration(model, pin.integrate(model, q, eps * dv))
        rate = (moved.data.oMf[fid].translation - p) / eps
        assert np.allclose(G[2:] @ dv, rate[[0, 2]], atol=1e-5)  # p_max rows: +J
        assert np.allclose(G[:2] @ dv, -rate[[0, 2]], atol=1e-5)  # p_min rows: −J
    margins = np.concatenate([p[[0, 2]] - [-1.0, -0.5], [1.0, 0.5] - p[[0, 2]]])
    assert np.allclose(h, [10.0, 20.0, 10.0, 20.0] * margins)
    assert np.allclose(barrier.margins(conf), margins)


def test_position_barrier_gives_pinks_rows_and_damping():
    pink = _pink()
    from pink.barriers import PositionBarrier as PinkBarrier

    robot, q = _go2()
    kwargs = dict(indices=[1, 2], p_max=np.array([0.0, 0.35]), gain=np.array([100.0, 100.0]))
    ours = PositionBarrier("base", safe_displacement_gain=1.0, **kwargs)
    theirs = PinkBarrier("base", safe_displacement_gain=1.0, **kwargs)
    conf = taskik.Configuration(robot.model, q)
    p_conf = pink.Configuration(robot.model, robot.model.createData(), q)
    G, h = ours.compute_inequalities(conf, DT)
    G_p, h_p = theirs.compute_qp_inequalities(p_conf, DT)  # pink's rows act on Δq = v dt
    assert np.allclose(G, G_p * DT, atol=1e-12) and np.allclose(h, h_p, atol=1e-12)
    H, _ = theirs.compute_qp_objective(p_conf)
    assert ours.safe_damping(conf) == pytest.approx(H[0, 0], rel=1e-12)


def test_position_barrier_refuses_bad_input():
    for kwargs, match in (
        ({}, "p_min, p_max or both"),
        ({"p_max": [1.0, 2.0]}, "one value per index"),
        ({"indices": [3], "p_max": [1.0]}, "indices"),
        ({"p_max": [1.0, 1.0, 1.0], "gain": -1.0}, "gain"),
        ({"p_min": [1.0] * 3, "p_max": [0.0] * 3}, "above p_max"),
    ):
        with pytest.raises(taskik.InvalidInput, match=match):
            PositionBarrier("base", **kwargs)


def _go2_squat(adaptive: bool, steps: int):
    """pink's Go2 squat (examples/barriers/go2_squat.py) with taskik, DAQP, 200 Hz: the base
    target moved in place, the base held below y = 0 and z = 0.35 by a PositionBarrier."""
    robot, q = _go2()
    conf = taskik.Configuration(robot.model, q)
    base = taskik.FrameTask("base", position_cost=50.0, orientation_cost=1.0)
    tasks = [base, taskik.PostureTask(cost=1e-5)]
    for foot in ("FL_foot", "FR_foot", "RL_foot", "RR_foot"):
        tasks.append(taskik.FrameTask(foot, position_cost=200.0, orientation_cost=0.0))
    for task in tasks:
        task.set_target_from_configuration(conf)
    barrier = PositionBarrier(
        "base", indices=[1, 2], p_max=np.array([0.0, 0.35]), gain=100.0, safe_displacement_gain=1.0
    )
    vs = []
    for k in range(steps):
        t = k * DT
        base.transform_target_to_world.translation[1] = 0.1 * np.sin(0.5 * np.pi * t)
        v = taskik.solve_ik(conf, tasks, DT, solver="daqp", adaptive=adaptive, barriers=[barrier])
        conf.integrate_inplace(v, DT)
        vs.append(v)
    return np.array(vs), conf, barrier


def _flipping_steps(vs: np.ndarray) -> int:
    """Steps in runs of ≥ 3 pairs with cos(v_k, v_k+1) < −0.9 and both ‖v‖ > 1 rad/s."""
    n = np.linalg.norm(vs, axis=1)
    flips = [
        n[k] > 1 and n[k + 1] > 1 and vs[k] @ vs[k + 1] < -0.9 * n[k] * n[k + 1]
        for k in range(len(vs) - 1)
    ]
    count, run = 0, 0
    for f in [*flips, False]:
        if f:
            run += 1
        else:
            count += run + 1 if run >= 3 else 0
            run = 0
    return count


def test_the_go2_squat_does_not_cycle():
    """The base's target beyond the barrier: the plain step (pink's) yaws the base ±35 rad/s
    in a period-2 cycle. Its cause is the SE(3) error of the base task: with the translation
    held by the barrier, the log's rotation–translation coupling promises a decrease from
    yawing that the second-order terms take back, by more than the step, so each step
    overshoots. The default step damps the flipping pattern although the target moves in
    place at every step (a change, which alone would give the plain step)."""
    plain, _, _ = _go2_squat(adaptive=False, steps=260)
    assert _flipping_steps(plain) > 50
    ours, conf, barrier = _go2_squat(adaptive=True, steps=400)
    assert _flipping_steps(ours) == 0
    assert np.abs(ours).max() < 5.0
    assert barrier.margins(conf).min() > -1e-3  # the base stays behind the barrier
