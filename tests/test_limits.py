"""Limits: Kanoun position box, velocity box, merging, recovery from outside, long random runs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import taskik
from taskik import ConfigurationLimit, FrameTask, InvalidInput, UnknownName, VelocityLimit


def test_configuration_limit_is_kanoun_box(panda):
    conf = panda.configuration()
    lim = ConfigurationLimit(panda.model, gain=0.4)
    idx, lo, hi = lim.compute_box(conf, dt=0.02)
    q = conf.q[idx]
    assert np.allclose(lo, 0.4 * (panda.model.lowerPositionLimit[idx] - q) / 0.02)
    assert np.allclose(hi, 0.4 * (panda.model.upperPositionLimit[idx] - q) / 0.02)
    assert (lo < 0).all() and (hi > 0).all()


def test_configuration_limit_skips_floating_base_and_unbounded(humanoid):
    lim = ConfigurationLimit(humanoid.model)
    assert lim.indices.min() >= 6
    assert len(lim.indices) == humanoid.model.nv - 6


@pytest.mark.parametrize("how", ["in place", "assigned"])
def test_position_bounds_changed_are_obeyed_at_the_next_step(ur5, how):
    """New bounds, edited in place or assigned, hold at the next step (the box was stacked
    once at construction and the new bounds were ignored), weighted and with levels."""
    conf = ur5.configuration()
    hand = FrameTask("tool0", 1.0, 1.0)
    target = conf.get_transform_frame_to_world("tool0")
    target.translation = target.translation + np.array([0.3, 0.3, 0.3])
    hand.set_target(target)
    lim = ConfigurationLimit(ur5.model)
    k = int(np.argmax(np.abs(taskik.solve_ik(conf, [hand], 0.01, limits=[lim]))))
    v_k = taskik.solve_ik(conf, [hand], 0.01, limits=[lim])[k]
    assert abs(v_k) > 0.1  # (the joint the reach moves most)
    row, q_k = (1 if v_k > 0 else 0), conf.q[lim.q_indices[k]]
    bound = lim.q_max if row else lim.q_min
    if how == "in place":
        bound[k] = q_k  # the joint at its bound: it may not move on
    else:
        new = bound.copy()
        new[k] = q_k
        setattr(lim, "q_max" if row else "q_min", new)
    for tasks in ([hand], [[hand]]):
        v = taskik.solve_ik(conf, tasks, 0.01, limits=[lim])
        assert (v[k] <= 1e-9) if row else (v[k] >= -1e-9), (tasks, v[k])


def test_position_bounds_assigned_are_checked(ur5):
    lim = ConfigurationLimit(ur5.model)
    with pytest.raises(InvalidInput, match="q_max"):
        lim.q_max = np.ones(3)
    with pytest.raises(InvalidInput, match="q_min"):
        lim.q_min = np.full(len(lim.indices), np.nan)
    with pytest.raises(InvalidInput, match="no range"):
        lim.q_min = lim.q_max + 0.1
    assert (lim.q_min < lim.q_max).all()  # (a refused value changes nothing)


@pytest.mark.parametrize("gain", [0.0, 1.5, -0.1])
def test_configuration_limit_gain_is_checked(ur5, gain):
    with pytest.raises(InvalidInput, match="gain"):
        ConfigurationLimit(ur5.model, gain=gain)


def test_velocity_limit_from_model_and_from_dict(ur5):
    idx, lo, hi = VelocityLimit(ur5.model).compute_box(ur5.configuration(), 0.01)
    assert np.allclose(hi, np.pi) and np.allclose(lo, -np.pi) and len(idx) == 6
    lim = VelocityLimit(ur5.model, {"elbow_joint": 0.5, "wrist_3_joint": 2.0})
    idx, lo, hi = lim.compute_box(ur5.configuration(), 0.01)
    assert idx.tolist() == [2, 5] and hi.tolist() == [0.5, 2.0]


def test_velocity_limit_unknown_joint_suggests_names(ur5):
    with pytest.raises(UnknownName, match="elbow_joint"):
        VelocityLimit(ur5.model, {"elbow": 1.0})


def test_velocity_limit_rejects_negative(ur5):
    with pytest.raises(InvalidInput, match=">= 0"):
        VelocityLimit(ur5.model, {"elbow_joint": -1.0})


def test_velocity_limit_skips_unbounded_floating_base(humanoid):
    lim = VelocityLimit(humanoid.model)
    assert lim.indices.min() >= 6


def test_boxes_are_merged_not_stacked(panda):
    conf = panda.configuration()
    limits = [ConfigurationLimit(panda.model), VelocityLimit(panda.model)]
    task = FrameTask("panda_hand")
    task.set_target_from_configuration(conf)
    problem = taskik.build_ik(conf, [task], 0.01, limits)
    assert problem.G is None  # no inequality rows
    idx, lo_c, hi_c = limits[0].compute_box(conf, 0.01)
    _, lo_v, hi_v = limits[1].compute_box(conf, 0.01)
    assert np.allclose(problem.lb[idx], np.maximum(lo_c, lo_v))
    assert np.allclose(problem.ub[idx], np.minimum(hi_c, hi_v))


def test_starting_outside_a_limit_steers_back(panda):
    q = panda.q0.copy()
    q_max = panda.model.upperPositionLimit[3]
    q[3] = q_max + 0.3  # joint 4 beyond its upper limit
    conf = panda.configuration(q)
    task = FrameTask("panda_hand")
    task.set_target_from_configuration(conf)
    dt = 0.01
    v = taskik.solve_ik(conf, [task], dt)  # must not be infeasible
    # asked to return by K·0.3/dt = 15 rad/s, clipped to the 2.175 rad/s velocity limit
    assert v[3] == pytest.approx(-2.175, abs=1e-6)
    for _ in range(100):
        conf.integrate_inplace(taskik.solve_ik(conf, [task], dt), dt)
    assert conf.q[3] <= q_max + 1e-9


def test_starting_outside_within_velocity_reach_recovers_geometrically(ur5):
    q = ur5.q0.copy()
    q[0] = -2 * np.pi - 0.01
    conf = ur5.configuration(q)
    task = taskik.PostureTask()
    task.set_target(ur5.q0)
    v = taskik.solve_ik(conf, [task], 0.01)
    assert v[0] >= 0.5 * 0.01 / 0.01 - 1e-9  # at least K × violation / dt back inside


def within(lo, hi):
    """Vectors x with lo ≤ x ≤ hi componentwise, bounds included (they shrink towards lo)."""
    return st.tuples(*(st.floats(a, b) for a, b in zip(lo, hi, strict=True))).map(np.array)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    offsets=st.lists(st.tuples(*[st.floats(-1.5, 1.5)] * 3), min_size=3, max_size=3),
    dt=st.sampled_from([0.005, 0.01, 0.05]),
)
def test_no_limit_is_ever_violated_over_long_random_runs(panda, data, offsets, dt):
    model = panda.model
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    conf = panda.configuration(data.draw(within(lo, hi), label="q_start"))  # limits included
    task = FrameTask("panda_hand", 1.0, 0.5)
    posture = taskik.PostureTask(1e-3)
    posture.set_target(panda.q0)
    for step in range(150):
        if step % 50 == 0:  # a new, possibly unreachable, target up to 1.5 m per axis away
            T = conf.get_transform_frame_to_world("panda_hand")
            T.translation = T.translation + np.array(offsets[step // 50])
            task.set_target(T)
        v = taskik.solve_ik(conf, [task, posture], dt)
        assert (np.abs(v) <= model.velocityLimit).all()
        conf.integrate_inplace(v, dt)
        assert (conf.q >= lo - 1e-9).all() and (conf.q <= hi + 1e-9).all()


def test_configuration_limit_check_names_the_joint_out_of_range(ur5):
    lim = ConfigurationLimit(ur5.model)
    q = ur5.q0.copy()
    lim.check(q)
    q[2] = ur5.model.upperPositionLimit[2] + 1e-7  # within the default tolerance
    lim.check(q)
    with pytest.raises(taskik.NotWithinConfigurationLimits, match="elbow_joint"):
        lim.check(q, tol=1e-9)
    q[2] = ur5.model.upperPositionLimit[2] + 0.1
    with pytest.raises(taskik.NotWithinConfigurationLimits, match=r"joint elbow_joint at"):
        lim.check(q)
    lim.check(q, tol=0.2)


class SoftBox(taskik.Limit):
    """A limit with only compute_box: the base class stacks it."""

    hard = False

    def compute_box(self, configuration, dt):
        q = configuration.q[[1, 3]]  # a box that depends on the configuration
        return np.array([1, 3]), (np.array([-1.0, -2.0]) - q) / dt, (np.array([1.0, 3.0]) - q) / dt


def test_base_limit_stacks_its_box(ur5):
    conf = ur5.configuration(np.zeros(6))
    idx, stacked = SoftBox().compute_stacked_box(conf, 0.5)
    assert idx.tolist() == [1, 3] and stacked.tolist() == [[-2.0, -4.0], [2.0, 6.0]]
    out = np.zeros((2, 2))
    idx, written = SoftBox().compute_stacked_box(conf, 0.5, out=out)
    assert written is out and out.tolist() == [[-2.0, -4.0], [2.0, 6.0]]
    assert taskik.Limit().compute_stacked_box(conf, 0.5) is None
    # alone, it is the step's box (the assembler's one-soft-box path)
    task = taskik.PostureTask()
    task.set_target(ur5.q0 + 1.0)
    problem = taskik.build_ik(conf, [task], 0.5, limits=[SoftBox()])
    assert problem.lb.tolist() == [-np.inf, -2.0, -np.inf, -4.0, -np.inf, -np.inf]
    assert problem.ub.tolist() == [np.inf, 2.0, np.inf, 6.0, np.inf, np.inf]


def test_velocity_limit_dict_per_dof_sorted_and_checked(humanoid, ur5):
    model = humanoid.model
    names = list(model.names)
    a, b = names[-1], names[3]  # given out of order
    lim = VelocityLimit(model, {a: 2.5, b: [1.0]})
    ja, jb = model.joints[names.index(a)], model.joints[names.index(b)]
    assert lim.indices.tolist() == sorted([ja.idx_v, jb.idx_v])
    assert dict(zip(lim.indices.tolist(), lim.v_max.tolist(), strict=True)) == {
        ja.idx_v: 2.5,
        jb.idx_v: 1.0,
    }
    idx, lo, hi = lim.compute_box(humanoid.configuration(), 0.01)
    assert np.array_equal(lo, -hi) and np.array_equal(idx, lim.indices)
    # a free-flyer limit: one value per DoF, scalar broadcast
    base = VelocityLimit(model, {names[1]: [1, 2, 3, 4, 5, 6]})
    assert base.indices.tolist() == list(range(6)) and base.v_max.tolist() == [1, 2, 3, 4, 5, 6]
    assert VelocityLimit(model, {names[1]: 0.5}).v_max.tolist() == [0.5] * 6
    for bad in ({"universe": 1.0}, {names[2]: np.inf}, {names[2]: np.nan}):
        with pytest.raises((InvalidInput, UnknownName)):
            VelocityLimit(model, bad)
    with pytest.raises(InvalidInput, match="mapping"):
        VelocityLimit(model, [("elbow_joint", 1.0)])
    assert VelocityLimit(ur5.model, {"elbow_joint": 0.0}).v_max.tolist() == [0.0]
    assert repr(VelocityLimit(ur5.model)) == "VelocityLimit(joints=6)"


def test_velocity_limit_from_a_model_with_a_bad_limit_vector(ur5):
    model = ur5.model.copy()
    model.velocityLimit = model.velocityLimit.copy()
    model.velocityLimit[2] = np.finfo(float).max  # pinocchio's "unbounded"
    lim = VelocityLimit(model)
    assert lim.indices.tolist() == [0, 1, 3, 4, 5]
    model.velocityLimit[2] = -1.0
    with pytest.raises(InvalidInput, match=">= 0"):
        VelocityLimit(model)


def test_configuration_limit_gain_one_is_allowed(ur5):
    conf = ur5.configuration()
    idx, lo, hi = ConfigurationLimit(ur5.model, gain=1.0).compute_box(conf, 0.5)
    assert np.allclose(hi, (ur5.model.upperPositionLimit[idx] - conf.q[idx]) / 0.5)


def test_velocity_limit_takes_a_vector_of_caps_as_pink(ur5):
    """pink's VelocityLimit(model, velocity_limit): one cap per velocity, inf for none."""
    caps = np.array([1.0, 2.0, np.inf, 0.5, 1e308, 0.0])
    lim = VelocityLimit(ur5.model, caps)
    idx, lo, hi = lim.compute_box(ur5.configuration(), 0.01)
    assert idx.tolist() == [0, 1, 3, 5]
    assert hi.tolist() == [1.0, 2.0, 0.5, 0.0] and np.array_equal(lo, -hi)
    assert VelocityLimit(ur5.model, list(caps)).indices.tolist() == [0, 1, 3, 5]
    for bad, match in (
        (np.ones(5), "vector of nv = 6 velocity caps or a mapping"),
        ("fast", "vector of nv = 6"),
        (np.full(6, np.nan), "NaN"),
        (-np.ones(6), ">= 0"),
    ):
        with pytest.raises(InvalidInput, match=match):
            VelocityLimit(ur5.model, bad)
