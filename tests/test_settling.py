"""The machinery of the settling benchmark (``benchmarks/settling.py``, B5), not the settle
rate it measures: the period-2 detector on synthetic velocity sequences, episode identity
and seeding, determinism of a closed-loop episode, a library that raises recorded as an
outcome, and one episode known to settle (UR5, reachable target, dt = 0.01)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    """A benchmark module by file name (its own imports of sibling scripts resolved)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while created
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.fixture(scope="module")
def settling():
    return _load("settling")


def _window(amplitudes: np.ndarray, flip: bool, nv: int = 6, noise: float = 0.0, seed: int = 0):
    """Velocities ``a_k s_k d`` (+ noise): ``d`` a fixed unit direction, ``s_k = (−1)^k``
    when ``flip``, else 1."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=nv)
    d /= np.linalg.norm(d)
    signs = (-1.0) ** np.arange(len(amplitudes)) if flip else np.ones(len(amplitudes))
    v = (amplitudes * signs)[:, None] * d[None, :]
    return v + noise * rng.normal(size=v.shape) * amplitudes[:, None]


def test_period_two_detects_a_cycle(settling):
    k = np.arange(100)
    assert settling.period_two(_window(np.full(100, 14.0), flip=True))
    # a cycle with some noise on every step, and one that grows slowly, are cycles too
    assert settling.period_two(_window(np.full(100, 14.0), flip=True, noise=0.2, seed=1))
    assert settling.period_two(_window(2.0 * 1.01**k, flip=True))
    # a few steps out of phase do not hide it (most pairs flip)
    v = _window(np.full(100, 3.0), flip=True)
    v[40:45] *= -1.0
    assert settling.period_two(v)


def test_period_two_rejects_decay_settling_and_noise(settling):
    k = np.arange(100)
    # a decaying oscillation: flips on every step, but |v| falls by 0.9^99
    assert not settling.period_two(_window(10.0 * 0.9**k, flip=True))
    # settling without a flip
    assert not settling.period_two(_window(10.0 * 0.95**k, flip=False))
    # constant motion in one direction (e.g. tracking a moving target)
    assert not settling.period_two(_window(np.full(100, 5.0), flip=False))
    # a flip-flop far below the rest threshold is noise, not a cycle
    assert not settling.period_two(_window(np.full(100, 1e-6), flip=True))
    # random directions: successive velocities are not opposite on most steps
    rng = np.random.default_rng(2)
    assert not settling.period_two(rng.normal(size=(100, 6)))
    # too short a window says nothing
    assert not settling.period_two(_window(np.full(10, 14.0), flip=True))


def test_episode_identity_and_seeds(settling):
    everything = settling.episodes(2 * len(settling.setups()))
    assert len(everything) == settling.FULL_EPISODES
    # an episode is the same whatever other robots run beside it
    ur5_only = settling.episodes(2 * len(settling.setups(("ur5",))), ("ur5",))
    assert set(ur5_only) == {ep for ep in everything if ep.setup.robot == "ur5"}
    # both dt and both modes of a set-up share the random draws; repetitions do not
    by_case = {
        (ep.setup.robot, ep.setup.scenario, ep.setup.start, ep.repetition): ep.seed
        for ep in everything
    }
    for ep in everything:
        key = (ep.setup.robot, ep.setup.scenario, ep.setup.start, ep.repetition)
        assert ep.seed == by_case[key]
    assert len(set(by_case.values())) == len(by_case)


def test_same_seeded_episode_gives_identical_results(settling):
    setup = settling.Setup("ur5", "moving", "random", 0.01, "flat")
    episode = settling.make_episode(setup, 0)
    info = settling.robot_info("ur5")
    first = settling.run_taskik(info, episode, checkpoints={})
    second = settling.run_taskik(info, settling.make_episode(setup, 0), checkpoints={})
    assert first.error is None
    for name in ("settled", "reached", "at_rest", "period2", "steps_to_reach", "violations"):
        assert getattr(first, name) == getattr(second, name), name
    assert first.final_error == second.final_error
    assert first.final_speed == second.final_speed
    np.testing.assert_array_equal(first.speeds, second.speeds)
    np.testing.assert_array_equal(first.cosines, second.cosines)
    # the targets are drawn from the seed, not from global state
    a = settling.make_targets(info, episode)
    b = settling.make_targets(info, episode)
    np.testing.assert_array_equal(a.q_start, b.q_start)
    assert a.target(0, 500).isApprox(b.target(0, 500), 0.0)
    other = settling.make_targets(info, settling.make_episode(setup, 1))
    assert not np.array_equal(a.q_start, other.q_start)


def test_known_settling_episode_is_reported_settled(settling):
    episode = settling.make_episode(settling.Setup("ur5", "reachable", "q0", 0.01, "flat"), 0)
    info = settling.robot_info("ur5")
    checkpoints: dict = {}
    result = settling.run_taskik(info, episode, checkpoints)
    assert result.error is None
    assert result.settled and result.reached and result.at_rest
    assert not result.period2 and not result.approaching
    assert result.final_error < settling.TOL_REACHED
    assert result.steps_to_reach is not None and 1 < result.steps_to_reach < settling.STEPS
    assert result.violations == 0
    assert sorted(checkpoints) == list(settling.CHECKPOINTS)


def test_a_raising_library_is_an_unsettled_outcome(settling):
    episode = settling.make_episode(settling.Setup("ur5", "reachable", "q0", 0.01, "flat"), 0)
    info = settling.robot_info("ur5")
    targets = settling.make_targets(info, episode)
    q = targets.q_start.copy()

    def step() -> np.ndarray:
        raise RuntimeError("solver failed\nsecond line")

    result = settling.run_loop(info, targets, step, lambda k: None, lambda: q)
    assert result.error == "RuntimeError: solver failed"
    assert not result.settled and not result.period2


def test_limit_violations_count_only_steps_that_go_farther_out(settling):
    episode = settling.make_episode(settling.Setup("ur5", "reachable", "q0", 0.01, "flat"), 0)
    info = settling.robot_info("ur5")
    targets = settling.make_targets(info, episode)
    upper = info.ranges.upper[0]
    q = targets.q_start.copy()
    path = iter([upper - 0.1, upper + 1e-6, upper + 2e-6, upper + 1e-6, upper] * 200)

    def step() -> np.ndarray:
        q[info.ranges.q_indices[0]] = next(path)
        return np.zeros(6)

    result = settling.run_loop(info, targets, step, lambda k: None, lambda: q)
    # per cycle of five: crossing to +1e-6 and going on to +2e-6 count, the return does not
    assert result.violations == 2 * 200


def test_at_velocity_limit_sees_a_joint_at_its_limit_and_ignores_unlimited_ones(settling):
    import pinocchio as pin

    model = pin.buildSampleModelManipulator()
    model.velocityLimit = np.array([2.0, np.inf, 1e6, 1.0, 1.0, 1.0])
    v = np.array([1.9, 50.0, 5e5, 0.0, -0.5, 0.0])  # unlimited joints fast, the rest below
    assert not settling.at_velocity_limit(model, v)
    v[4] = -1.0  # at its limit, either sign
    assert settling.at_velocity_limit(model, v)
    v[4], v[0] = 0.0, 2.0
    assert settling.at_velocity_limit(model, v)


def _hand_at_start(settling, robot: str):
    """settling_moving, a GoalSet holding the robot's hand at its pose at q0, the hand's
    frame id."""
    import pinocchio as pin

    moving = _load("settling_moving")
    info = settling.robot_info(robot)
    model = info.robot.model
    fid = model.getFrameId(info.hand)
    data = model.createData()
    pin.framesForwardKinematics(model, data, info.robot.q0)
    target = pin.SE3(data.oMf[fid])
    return (
        moving,
        sys.modules["settling_bounds"].GoalSet(model, info.robot.q0.copy(), [(fid, target, None)]),
        fid,
    )


def test_speed_ratio_is_the_joint_speed_that_moves_the_hand_with_the_target(settling):
    """On the UR5 (six joints, J invertible away from singularities) the programme has one
    feasible v: the ratio must be max_i |v_i| / vmax_i of that v, and v must move the hand at
    ṗ without turning it (checked by finite differences: a wrong frame, sign or vmax factor
    fails)."""
    import pinocchio as pin

    moving, G, fid = _hand_at_start(settling, "ur5")
    model, data = G.model, G.model.createData()
    x = np.array([0.1, -0.3, 0.4, 0.2, -0.5, 0.3])  # a displacement from q0, not singular
    pdot = np.array([0.3, -0.2, 0.1])  # m/s
    rho = moving.speed_ratio(G, x, pdot)

    q = G.q(x)
    J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)
    v = np.linalg.solve(J, np.concatenate([pdot, np.zeros(3)]))
    assert rho == pytest.approx(np.max(np.abs(v) / model.velocityLimit), rel=1e-7)

    h = 1e-6
    before = pin.SE3(pin.updateFramePlacement(model, data, fid))
    pin.forwardKinematics(model, data, pin.integrate(model, q, h * v))
    after = pin.updateFramePlacement(model, data, fid)
    assert np.allclose((after.translation - before.translation) / h, pdot, atol=1e-5)
    turn = pin.log3(before.rotation.T @ after.rotation) / h
    assert np.abs(turn).max() < 1e-5


def test_speed_ratio_uses_redundancy_and_holds_the_feet_still(settling):
    """With more joints than rows the programme picks the v that needs the least fraction
    of the limits: never more than the least-norm solution's, and exactly feasible; a frame
    listed after the hand (a foot) is held: J_foot v = 0."""
    import pinocchio as pin

    moving, G, fid = _hand_at_start(settling, "panda")
    model, data, q_start = G.model, G.model.createData(), G.q_start
    pdot = np.array([0.0, 0.4, -0.1])
    rho = moving.speed_ratio(G, np.zeros(model.nv), pdot)
    J = pin.computeFrameJacobian(model, data, q_start, fid, pin.LOCAL_WORLD_ALIGNED)
    vmax = model.velocityLimit[: model.nv]
    least_norm = np.linalg.pinv(J) @ np.concatenate([pdot, np.zeros(3)])
    assert 0 < rho < np.max(np.abs(least_norm) / vmax)
    # a hand frame also listed as a second ("foot") frame must both move and stay: infeasible
    G.frames.append((fid, pin.SE3(data.oMf[fid]), None))
    assert moving.speed_ratio(G, np.zeros(model.nv), pdot) == np.inf
