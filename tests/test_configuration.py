"""Configuration: validation of q, one kinematics pass, integration on Lie groups."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import Configuration, InvalidConfiguration, InvalidInput, UnknownName


def test_rejects_q_of_wrong_size(ur5):
    with pytest.raises(InvalidConfiguration, match=r"shape \(6,\)"):
        Configuration(ur5.model, np.zeros(5))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_rejects_non_finite_q(ur5, bad):
    q = ur5.q0.copy()
    q[2] = bad
    with pytest.raises(InvalidConfiguration, match=r"NaN or inf at index \[2\]"):
        Configuration(ur5.model, q)


def test_rejects_unnormalised_quaternion(humanoid):
    q = humanoid.q0.copy()
    q[3:7] = [0.0, 0.0, 0.0, 2.0]
    with pytest.raises(InvalidConfiguration, match=r"quaternion q\[3:7\] has norm 2"):
        Configuration(humanoid.model, q)


def test_rejects_non_numeric_q(ur5):
    with pytest.raises(InvalidConfiguration, match="numeric"):
        Configuration(ur5.model, ["a"] * 6)


def test_rejects_non_model():
    with pytest.raises(InvalidInput, match="pinocchio.Model"):
        Configuration("ur5", np.zeros(6))


def test_unknown_frame_lists_close_matches(ur5):
    conf = ur5.configuration()
    with pytest.raises(UnknownName, match="did you mean 'tool0'"):
        conf.get_frame_id("tool")


def test_frame_placement_and_jacobian_match_pinocchio(panda, rng):
    q = panda.random_configuration(rng)
    conf = panda.configuration(q)
    data = panda.model.createData()
    pin.computeJointJacobians(panda.model, data, q)
    pin.updateFramePlacements(panda.model, data)
    fid = panda.model.getFrameId("panda_hand")
    T = conf.get_transform_frame_to_world("panda_hand")
    assert np.allclose(T.homogeneous, data.oMf[fid].homogeneous)
    J = pin.getFrameJacobian(panda.model, data, fid, pin.LOCAL_WORLD_ALIGNED)
    assert np.allclose(conf.get_frame_jacobian("panda_hand", pin.LOCAL_WORLD_ALIGNED), J)


def test_relative_transform(panda, rng):
    conf = panda.configuration(panda.random_configuration(rng))
    T = conf.get_transform("panda_hand", "panda_link8")
    expected = conf.get_transform_frame_to_world("panda_link8").actInv(
        conf.get_transform_frame_to_world("panda_hand")
    )
    assert np.allclose(T.homogeneous, expected.homogeneous)


def test_com_and_its_jacobian(humanoid, rng):
    q = humanoid.random_configuration(rng)
    conf = humanoid.configuration(q)
    data = humanoid.model.createData()
    assert np.allclose(conf.com, pin.centerOfMass(humanoid.model, data, q))
    v = rng.standard_normal(humanoid.model.nv)
    eps = 1e-6
    cp = pin.centerOfMass(humanoid.model, data, pin.integrate(humanoid.model, q, eps * v)).copy()
    cm = pin.centerOfMass(humanoid.model, data, pin.integrate(humanoid.model, q, -eps * v)).copy()
    assert np.allclose(conf.com_jacobian @ v, (cp - cm) / (2 * eps), atol=1e-6)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_configuration_reads_its_own_kinematics(humanoid, rng, how):
    """A pickled or deep-copied configuration, moved, gives the frame task, the CoM and its
    Jacobian of its new q (views into the data it held were copied as arrays of their own,
    no longer written by its updates: a frame task read the old placement)."""
    import copy
    import pickle

    conf = humanoid.configuration()
    frame = "larm_effector_body"
    task = taskik.FrameTask(frame, position_cost=1.0, orientation_cost=1.0)
    task.set_target(conf.get_transform_frame_to_world(frame))
    assert conf.com_jacobian.shape == (3, humanoid.model.nv)  # (the CoM computed before)
    moved = pickle.loads(pickle.dumps(conf)) if how == "pickle" else copy.deepcopy(conf)
    q = humanoid.random_configuration(rng)
    moved.update(q)
    fresh = humanoid.configuration(q)
    assert np.linalg.norm(task.compute_error(fresh)) > 0.1  # (the hand did move)
    np.testing.assert_allclose(task.compute_error(moved), task.compute_error(fresh), atol=1e-12)
    np.testing.assert_allclose(moved.com, fresh.com, atol=1e-12)
    np.testing.assert_allclose(moved.com_jacobian, fresh.com_jacobian, atol=1e-12)


def test_integrate_uses_the_lie_group(humanoid, rng):
    conf = humanoid.configuration()
    v = rng.standard_normal(humanoid.model.nv)
    q_next = conf.integrate(v, 0.1)
    assert np.allclose(q_next, pin.integrate(humanoid.model, humanoid.q0, 0.1 * v))
    assert np.allclose(conf.q, humanoid.q0)  # integrate does not move the configuration


def test_integrate_inplace_keeps_quaternion_normalised_and_updates_kinematics(humanoid, rng):
    conf = humanoid.configuration()
    for _ in range(200):
        conf.integrate_inplace(rng.standard_normal(humanoid.model.nv), 0.05)
    assert abs(np.linalg.norm(conf.q[3:7]) - 1.0) < 1e-12
    fid = conf.get_frame_id("larm_effector_body")
    data = humanoid.model.createData()
    pin.framesForwardKinematics(humanoid.model, data, conf.q)
    assert np.allclose(conf.data.oMf[fid].homogeneous, data.oMf[fid].homogeneous)


@pytest.mark.parametrize("dt", [0.0, -0.01, np.nan, np.inf])
def test_integrate_rejects_bad_dt(ur5, dt):
    with pytest.raises(InvalidInput, match="dt"):
        ur5.configuration().integrate(np.zeros(6), dt)


def test_integrate_rejects_bad_velocity(ur5):
    conf = ur5.configuration()
    with pytest.raises(InvalidInput, match=r"v must have shape \(6,\)"):
        conf.integrate(np.zeros(5), 0.01)
    with pytest.raises(InvalidInput, match="v contains NaN"):
        conf.integrate(np.full(6, np.nan), 0.01)


def test_check_limits_names_the_joint(ur5):
    q = ur5.q0.copy()
    q[1] = 7.0
    conf = ur5.configuration(q)
    with pytest.raises(taskik.NotWithinConfigurationLimits, match="shoulder_lift_joint"):
        conf.check_limits()


def test_custom_configuration_vector_sets_named_joints_on_the_neutral(ur5, humanoid):
    from taskik.configuration import custom_configuration_vector

    q = custom_configuration_vector(ur5.model, shoulder_lift_joint=-1.2, elbow_joint=1.0)
    expected = pin.neutral(ur5.model)
    expected[1:3] = -1.2, 1.0
    assert np.array_equal(q, expected)
    assert np.array_equal(custom_configuration_vector(ur5, {"elbow_joint": 0.3})[2], 0.3)
    q = custom_configuration_vector(humanoid.model, root_joint=[0.1, 0, 0.9, 0, 0, 0, 1])
    assert np.array_equal(q[:7], [0.1, 0, 0.9, 0, 0, 0, 1])
    with pytest.raises(UnknownName, match="did you mean 'elbow_joint'"):
        custom_configuration_vector(ur5.model, elbow=1.0)
    with pytest.raises(InvalidInput, match="elbow_joint .* has 1 configuration coordinates, got 2"):
        custom_configuration_vector(ur5.model, elbow_joint=[1.0, 2.0])
    with pytest.raises(InvalidConfiguration, match="quaternion"):
        custom_configuration_vector(humanoid.model, root_joint=[0, 0, 0, 0, 0, 0, 2.0])


def test_custom_configuration_vector_takes_angles_of_continuous_and_planar_joints():
    from taskik.configuration import custom_configuration_vector

    model = pin.Model()
    base = model.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "base")
    model.addJoint(base, pin.JointModelRUBZ(), pin.SE3.Identity(), "wheel")
    q = custom_configuration_vector(model, base=[1.0, 2.0, 0.5], wheel=-0.3)
    assert np.allclose(q, [1.0, 2.0, np.cos(0.5), np.sin(0.5), np.cos(-0.3), np.sin(-0.3)])
    q = custom_configuration_vector(model, wheel=[0.0, 1.0])  # raw (cos, sin) too
    assert np.allclose(q[4:], [0.0, 1.0])


@pytest.mark.parametrize("levels", [False, True])
def test_a_model_without_degrees_of_freedom_steps_with_an_empty_velocity(levels):
    """A model with frames but no joint (nv = 0): frame and CoM tasks have 0-column
    Jacobians, and the step is the empty velocity (Pinocchio's getFrameJacobian crashes the
    interpreter on such a model, and LAPACK refuses a 0 × 0 system)."""
    model = pin.Model()
    tip = pin.SE3(np.eye(3), np.array([0.1, 0.0, 0.0]))
    model.addFrame(pin.Frame("tip", 0, 0, tip, pin.FrameType.OP_FRAME))
    conf = taskik.Configuration(model, np.zeros(0))
    tasks = [
        taskik.PositionTask("tip"),
        taskik.OrientationTask("tip"),
        taskik.FrameTask("tip", 1, 1),
    ]
    for task in tasks:
        task.set_target_from_configuration(conf)
        assert task.compute_jacobian(conf).shape == (task.dim, 0)
    problem = [[t] for t in tasks] if levels else tasks
    v = taskik.solve_ik(conf, problem, 0.01)
    assert v.shape == (0,)
    assert conf.get_transform_frame_to_world("tip") == tip
