"""MuJoCo next to a configuration: the mirror that keeps MuJoCo's data at q, mink's names for
mocap targets (``taskik.SE3.from_mocap_id``, ``from_mocap_name``, ``taskik.move_mocap_to_frame``),
and the leftovers of mink's call shapes (``DampingTask(model, cost)``, ``Configuration`` of
MuJoCo's model, bodies with several joints under ``ConfigurationLimit``).

The tests that need MuJoCo itself skip without it (it is in the dev extra); the mirror's
contract with the configuration is tested without MuJoCo, with a mirror that records."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest
from mjcf_models import BALL_ARM

import taskik
from taskik import mjcf

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "benchmarks" / "mink_examples"


def humanoid() -> pin.Model:
    return pin.buildModelFromMJCF(str(MODELS / "humanoid.xml"))


def fk_site(model: pin.Model, q: np.ndarray, name: str) -> pin.SE3:
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[model.getFrameId(name)]


class Recorder:
    """A mirror that records q and the site's pose it was given at each write."""

    def __init__(self) -> None:
        self.q: list[np.ndarray] = []
        self.site: list[pin.SE3] = []

    def write(self, configuration: taskik.Configuration) -> None:
        self.q.append(configuration.q.copy())
        self.site.append(configuration.get_transform_frame_to_world("left_foot"))


# ------------------------------------------------------------------ the mirror's contract
def test_the_mirror_is_written_after_every_update_with_current_kinematics():
    """Once at construction, then after update, update_from_keyframe and integrate_inplace:
    each time with the new q and the kinematics of that q (the site's pose is Pinocchio's
    forward kinematics of it, not the one before)."""
    model = humanoid()
    recorder = Recorder()
    configuration = taskik.Configuration(model, mirror=recorder)
    assert configuration.mirror is recorder and len(recorder.q) == 1
    configuration.update_from_keyframe("turned")
    configuration.integrate_inplace(np.linspace(-1.0, 1.0, model.nv), 0.2)
    stand = model.referenceConfigurations["stand"]
    configuration.update(stand)
    assert len(recorder.q) == 4
    expected = [model.referenceConfigurations["qpos0"], model.referenceConfigurations["turned"]]
    assert np.array_equal(recorder.q[0], expected[0])
    assert np.array_equal(recorder.q[1], expected[1])
    assert not np.allclose(recorder.q[2], recorder.q[1], atol=1e-3)  # the step moved q
    assert np.array_equal(recorder.q[3], stand)
    for q, site in zip(recorder.q, recorder.site, strict=True):
        assert site.isApprox(fk_site(model, q, "left_foot"), 1e-12)
    moved = recorder.site[2].translation - recorder.site[1].translation
    assert np.linalg.norm(moved) > 1e-3  # (so a stale pose would have failed the check)


def test_a_copy_has_no_mirror_and_a_mirror_set_later_is_written_at_once():
    model = humanoid()
    recorder = Recorder()
    configuration = taskik.Configuration(model, model.referenceConfigurations["stand"])
    assert configuration.mirror is None
    configuration.mirror = recorder
    assert len(recorder.q) == 1 and np.array_equal(recorder.q[0], configuration.q)
    copy = configuration.copy()
    assert copy.mirror is None
    copy.update_from_keyframe("turned")
    assert len(recorder.q) == 1  # the copy's updates are its own
    configuration.mirror = None
    configuration.update_from_keyframe("turned")
    assert len(recorder.q) == 1


@pytest.mark.parametrize("bad", [object(), "mujoco", 3])
def test_a_mirror_without_write_is_refused(bad):
    model = humanoid()
    with pytest.raises(taskik.InvalidInput, match=r"mirror must be an object with a write"):
        taskik.Configuration(model, mirror=bad)
    configuration = taskik.Configuration(model)
    with pytest.raises(taskik.InvalidInput, match=r"mirror must be"):
        configuration.mirror = bad


def test_without_a_mirror_an_update_runs_only_the_configurations_own_code():
    """The mirror costs nothing when absent: every Python function that update,
    update_from_keyframe and integrate_inplace call is the configuration module's own (the
    rest is Pinocchio's compiled kinematics); no taskik.mjcf function, no MuJoCo."""
    model = humanoid()
    configuration = taskik.Configuration(model)
    v = np.linspace(-1.0, 1.0, model.nv)
    called: set[str] = set()

    def profile(frame, event, arg):
        if event == "call":
            called.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    try:
        configuration.update_from_keyframe("stand")
        configuration.integrate_inplace(v, 0.01)
        configuration.update(configuration.q)
    finally:
        sys.setprofile(None)
    called.discard(__file__)
    assert {Path(f).name for f in called} == {"configuration.py"}, called


def test_taskik_and_its_mjcf_module_import_without_mujoco():
    """MuJoCo stays optional: with ``import mujoco`` failing, taskik.mjcf imports, converts
    qpos and reads mocap targets; the mirror says how to install MuJoCo."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["mujoco"] = None  # (import mujoco raises ImportError)
        import numpy as np
        import taskik
        from taskik import mjcf
        data = type("D", (), {"mocap_pos": [[0.0, 0.0, 1.0]], "mocap_quat": [[1.0, 0, 0, 0]]})
        assert np.allclose(taskik.SE3.from_mocap_id(data, 0).translation, [0, 0, 1])
        try:
            mjcf.MujocoMirror(object())
        except ImportError as exc:
            assert "pip install mujoco" in str(exc), exc
        else:
            raise AssertionError("no ImportError")
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


# ------------------------------------------------------------------ mink's names for targets
C = np.cos(np.pi / 4)


def stand_in_data() -> SimpleNamespace:
    """MuJoCo's data with two mocap bodies: the second a quarter turn about z, written w, x,
    y, z (and twice too long: the quaternion is normalised)."""
    return SimpleNamespace(
        mocap_pos=np.array([[0.0, 0.0, 0.0], [0.5, -0.2, 0.9]]),
        mocap_quat=np.array([[1.0, 0.0, 0.0, 0.0], [2 * C, 0.0, 0.0, 2 * C]]),
    )


def test_se3_from_mocap_id_is_minks_call_and_a_pin_se3():
    """mink's SE3.from_mocap_id(data, i): before, taskik had no SE3 (AttributeError)."""
    T = taskik.SE3.from_mocap_id(stand_in_data(), np.int32(1))
    assert isinstance(T, taskik.SE3) and isinstance(T, pin.SE3)
    assert np.allclose(T.rotation @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])  # x to y: w first
    assert np.allclose(T.translation, [0.5, -0.2, 0.9])
    assert T.isApprox(mjcf.mocap_se3(SimpleNamespace(nmocap=2), stand_in_data(), 1), 1e-15)
    task = taskik.FrameTask("tip", position_cost=1.0, orientation_cost=1.0)
    task.set_target(T)  # a target as any pin.SE3
    assert task.target.isApprox(T, 1e-15)
    assert type(T * T) is pin.SE3 and T.inverse().isApprox(pin.SE3(T).inverse(), 1e-15)


@pytest.mark.parametrize(
    "data, index, message",
    [
        (stand_in_data(), 2, r"mocap index 2 is out of range: the model has 2"),
        (stand_in_data(), -1, r"out of range"),
        (stand_in_data(), True, r"mocap_id must be a mocap index"),
        (stand_in_data(), "target", r"a body's name: SE3.from_mocap_name\(model, data, name"),
        (None, 0, r"mj_data must be MuJoCo's MjData"),
        (SimpleNamespace(mocap_pos=[[np.nan, 0, 0]], mocap_quat=[[1, 0, 0, 0]]), 0, "mocap_pos"),
        (SimpleNamespace(mocap_pos=[[0, 0, 0]], mocap_quat=[[0, 0, 0, 0]]), 0, "zero quatern"),
        (SimpleNamespace(mocap_pos=[[0, 0]], mocap_quat=[[1, 0, 0, 0]]), 0, r"mocap_pos"),
    ],
)
def test_se3_from_mocap_id_refusals_name_the_problem(data, index, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.SE3.from_mocap_id(data, index)


def test_se3_from_mocap_name_refuses_what_is_not_a_name():
    with pytest.raises(taskik.InvalidInput, match=r"an index: SE3.from_mocap_id"):
        taskik.SE3.from_mocap_name(SimpleNamespace(nmocap=2), stand_in_data(), 1)
    with pytest.raises(taskik.InvalidInput, match=r"mj_model must be MuJoCo's MjModel"):
        taskik.SE3.from_mocap_name(None, stand_in_data(), "target")


def test_move_mocap_to_frame_is_minks_function_at_the_top_level():
    assert taskik.move_mocap_to_frame is mjcf.move_mocap_to_frame
    with pytest.raises(taskik.InvalidInput, match=r'frame_type must be "body", "site" or "geom"'):
        taskik.move_mocap_to_frame(None, None, "target", "tip", "joint")
    with pytest.raises(taskik.InvalidInput, match=r"mj_model must be MuJoCo's MjModel"):
        taskik.move_mocap_to_frame(None, None, "target", "tip", "site")
    with pytest.raises(taskik.InvalidInput, match=r"mocap_name must be a mocap body's name"):
        taskik.move_mocap_to_frame(None, None, 0.5, "tip", "site")


# ------------------------------------------------------------------ with MuJoCo
@pytest.fixture
def ball_arm(tmp_path):
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo (the dev extra) runs the mirror")
    path = tmp_path / "ball_arm.xml"
    path.write_text(BALL_ARM)
    return mujoco, pin.buildModelFromMJCF(str(path)), mujoco.MjModel.from_xml_path(str(path))


def assert_in_step(configuration: taskik.Configuration, mirror: mjcf.MujocoMirror) -> None:
    """MuJoCo's data at the configuration's q: qpos (quaternions reordered), the site's pose
    and the centre of mass as Pinocchio computes them, to 1e-9 (m)."""
    model, data = configuration.model, mirror.data
    assert np.array_equal(data.qpos, mjcf.qpos_from_q(model, configuration.q))
    site = configuration.get_transform_frame_to_world("tip")
    assert np.allclose(data.site("tip").xpos, site.translation, atol=1e-9)
    assert np.allclose(data.site("tip").xmat.reshape(3, 3), site.rotation, atol=1e-9)
    assert np.allclose(data.subtree_com[0], configuration.com, atol=1e-9)


def test_mujoco_mirror_keeps_mujocos_data_at_q(ball_arm):
    """After the construction, update, update_from_keyframe and integrate_inplace, MuJoCo's
    own kinematics of its data put the site where Pinocchio puts it (a free and a ball
    joint: the quaternion order matters)."""
    mujoco, model, mj_model = ball_arm
    mirror = mjcf.MujocoMirror(mj_model)
    assert isinstance(mirror.data, mujoco.MjData)
    configuration = taskik.Configuration(model, mirror=mirror)
    assert configuration.model is model and isinstance(configuration.data, pin.Data)
    assert_in_step(configuration, mirror)
    configuration.update_from_keyframe("bent")
    assert_in_step(configuration, mirror)
    configuration.integrate_inplace(np.linspace(-1.0, 1.0, model.nv), 0.3)
    assert_in_step(configuration, mirror)
    q = configuration.integrate(np.linspace(1.0, -0.5, model.nv), 0.4)
    configuration.update(q)
    assert_in_step(configuration, mirror)
    taskik.move_mocap_to_frame(mj_model, mirror.data, "target", "tip", "site")  # mink's call
    T = taskik.SE3.from_mocap_name(mj_model, mirror.data, "target")  # mink's call
    assert T.isApprox(configuration.get_transform_frame_to_world("tip"), 1e-9)
    assert taskik.SE3.from_mocap_id(mirror.data, 0).isApprox(T, 1e-15)
    taskik.move_mocap_to_frame(mj_model, mirror.data, "target", "forearm", "geom")
    forearm = mirror.data.geom("forearm")
    assert np.allclose(mjcf.mocap_se3(mj_model, mirror.data, 0).translation, forearm.xpos)


def test_mujoco_mirror_takes_the_data_given_and_refuses_another_models(ball_arm):
    mujoco, model, mj_model = ball_arm
    data = mujoco.MjData(mj_model)
    configuration = taskik.Configuration(model, mirror=mjcf.MujocoMirror(mj_model, data))
    assert configuration.mirror.data is data
    assert "MujocoMirror(nq=12" in repr(configuration.mirror)
    other = mujoco.MjModel.from_xml_path(str(MODELS / "arm7.xml"))
    with pytest.raises(taskik.InvalidInput, match=r"MjData of mj_model .* of another model"):
        mjcf.MujocoMirror(mj_model, mujoco.MjData(other))
    with pytest.raises(taskik.InvalidInput, match=r"needs MuJoCo's MjModel, got Model"):
        mjcf.MujocoMirror(model)
    with pytest.raises(taskik.InvalidInput, match=r"nq = 7, .* 12: they are not the same robot"):
        taskik.Configuration(model, mirror=mjcf.MujocoMirror(other))


def test_mink_and_taskik_put_a_mocap_body_at_a_site_alike(ball_arm):
    """With mink installed: mink's move_mocap_to_frame and SE3.from_mocap_name on MuJoCo's
    data give taskik's to 1e-12."""
    _, model, mj_model = ball_arm
    mink = pytest.importorskip("mink", reason="mink (the bench extra) compares")
    configuration = taskik.Configuration(model, mirror=mjcf.MujocoMirror(mj_model))
    configuration.update_from_keyframe("bent")
    data = configuration.mirror.data
    mink.move_mocap_to_frame(mj_model, data, "target", "tip", "site")
    theirs = mink.SE3.from_mocap_name(mj_model, data, "target").as_matrix()
    taskik.move_mocap_to_frame(mj_model, data, "target", "tip", "site")
    ours = taskik.SE3.from_mocap_name(mj_model, data, "target").homogeneous
    assert np.allclose(theirs, ours, atol=1e-12)


# ------------------------------------------------------------------ mink's call shapes, leftovers
class MjModel:
    """Stands for mujoco.MjModel: taskik reads its class name, nv, jnt_type, jnt_dofadr."""

    def __init__(self, nv: int, jnt_type: list[int]) -> None:
        self.nv, self.jnt_type = nv, np.array(jnt_type)
        sizes = [6 if t == 0 else 3 if t == 1 else 1 for t in jnt_type]
        self.jnt_dofadr = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)


def test_damping_task_takes_minks_model_and_cost_leaving_free_joints_undamped():
    """mink's DampingTask(model, cost): before, a bare TypeError. With mink's meaning: the
    free joint's six velocities get no damping, the others the cost."""
    model = humanoid()
    for task in (
        taskik.DampingTask(model, 0.5),
        taskik.DampingTask(model, cost=0.5),
        taskik.DampingTask(model=model, cost=0.5),
        taskik.DampingTask(MjModel(model.nv, [0] + [3] * (model.nv - 6)), [0.5]),
    ):
        assert task.cost.tolist() == [0.0] * 6 + [0.5] * (model.nv - 6)
    weights = np.arange(1.0, model.nv + 1.0)
    assert taskik.DampingTask(model, weights).cost.tolist() == [0.0] * 6 + weights[6:].tolist()
    arm = pin.buildModelFromMJCF(str(MODELS / "arm7.xml"))  # no free joint: every velocity
    assert taskik.DampingTask(arm, 0.5).cost.tolist() == [0.5] * arm.nv
    assert taskik.DampingTask(0.5).cost == 0.5 and taskik.DampingTask().cost == 1.0


def test_damping_with_a_model_gives_the_step_of_the_weights_it_stands_for():
    """The step with DampingTask(model, c) is the step with DampingTask(cost=[0]*6 + [c]*n):
    the base moves freely toward the target, the joints are damped."""
    model = humanoid()
    configuration = taskik.Configuration(model, model.referenceConfigurations["stand"])
    hand = taskik.FrameTask("left_palm", position_cost=1.0, orientation_cost=0.0)
    goal = configuration.get_transform_frame_to_world("left_palm")
    goal.translation += np.array([0.05, 0.0, 0.05])
    hand.set_target(goal)
    weights = np.array([0.0] * 6 + [0.3] * (model.nv - 6))
    mink_style = taskik.solve_ik(configuration, [hand, taskik.DampingTask(model, 0.3)], 0.01)
    explicit = taskik.solve_ik(configuration, [hand, taskik.DampingTask(cost=weights)], 0.01)
    everything = taskik.solve_ik(configuration, [hand, taskik.DampingTask(0.3)], 0.01)
    assert np.allclose(mink_style, explicit, rtol=0, atol=1e-9)
    assert np.abs(mink_style - everything).max() > 1e-3  # the base is not damped


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda m: taskik.DampingTask(m, model=m), r"DampingTask got two models"),
        (lambda m: taskik.DampingTask(0.5, cost=2.0), r"DampingTask got two costs, 0.5 and"),
        (lambda m: taskik.DampingTask(m, np.ones(4)), r"shape \(21,\) for this model, got \(4,"),
        (lambda m: taskik.DampingTask(model="humanoid"), r"must be a pinocchio.Model .*MjModel"),
        (lambda m: taskik.DampingTask(m, -1.0), r"cost must be >= 0"),
    ],
)
def test_damping_task_refusals_name_the_problem(make, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        make(humanoid())


def test_a_configuration_of_mujocos_model_says_how_to_build_pinocchios():
    """taskik.Configuration(mj_model): before, 'needs a pinocchio.Model, got MjModel' alone."""
    for make in (taskik.Configuration, taskik.ConfigurationLimit):
        with pytest.raises(taskik.InvalidInput, match=r"got MjModel: .*buildModelFromMJCF"):
            make(MjModel(7, [3] * 7))


TWO_JOINTS = """<mujoco><compiler angle="radian"/><worldbody>
  <body name="a"><joint name="j0" axis="0 0 1" range="-1 1"/><geom type="sphere" size="0.1"/>
    <body name="b" pos="0 0 0.5">
      <joint name="j1" axis="0 1 0" range="-0.5 0.5"/>
      <joint name="j2" axis="1 0 0" range="-0.3 0.3"/>
      <joint name="s" type="slide" axis="1 0 0" range="-0.1 0.2"/>
      <geom type="sphere" size="0.1"/><site name="tip" pos="0 0 0.5"/>
    </body>
  </body>
</worldbody></mujoco>"""


def test_bodies_with_several_joints_are_bounded_by_configuration_limit(tmp_path):
    """A body with two hinges and a slide is one composite joint in Pinocchio: its three
    coordinates are bounded like any joint's (before: not at all), and a loop pulling the
    tip far away stops each at its range."""
    path = tmp_path / "two_joints.xml"
    path.write_text(TWO_JOINTS)
    model = pin.buildModelFromMJCF(str(path))
    assert list(model.names)[1:] == ["j0", "Composite_j1"]
    limit = taskik.ConfigurationLimit(model, gain=0.95)
    assert limit.indices.tolist() == [0, 1, 2, 3] and limit.q_indices.tolist() == [0, 1, 2, 3]
    assert limit.q_max.tolist() == [1.0, 0.5, 0.3, 0.2]
    configuration = taskik.Configuration(model, np.zeros(4))
    tip = taskik.FrameTask("tip", position_cost=1.0, orientation_cost=0.0)
    tip.set_target(pin.SE3(np.eye(3), np.array([2.0, -2.0, -1.0])))
    for _ in range(200):
        v = taskik.solve_ik(configuration, [tip], 0.05, limits=[limit])
        configuration.integrate_inplace(v, 0.05)
    q = configuration.q
    assert np.all(q >= model.lowerPositionLimit - 1e-9) and np.all(
        q <= model.upperPositionLimit + 1e-9
    )
    assert np.max(q[1:] - model.lowerPositionLimit[1:]) > 0.0  # (the loop moved them)
    at_a_bound = np.minimum(q - model.lowerPositionLimit, model.upperPositionLimit - q)
    assert np.sum(at_a_bound < 1e-3) >= 2  # pressed against their ranges
    outside = np.array([0.0, 0.0, 0.0, 0.25])
    with pytest.raises(taskik.NotWithinConfigurationLimits, match=r"Composite_j1\[2\] at 0.25"):
        taskik.Configuration(model, outside).check_limits()


def test_posture_task_takes_minks_gain_and_lm_damping_by_position_after_a_model():
    """mink's PostureTask(model, cost, gain, lm_damping): before, a bare TypeError."""
    model = pin.buildModelFromMJCF(str(MODELS / "arm7.xml"))
    task = taskik.PostureTask(model, 0.1, 0.5, 0.2)
    assert (task.gain, task.lm_damping) == (0.5, 0.2) and np.all(task.cost == 0.1)
    assert (taskik.PostureTask(model, 0.1, 0.5).gain, taskik.PostureTask(model, 0.1).gain) == (
        0.5,
        1.0,
    )
    same = taskik.PostureTask(model, cost=0.1, gain=0.5, lm_damping=0.2)
    configuration = taskik.Configuration(model, model.referenceConfigurations["home"])
    for posture in (task, same):
        posture.set_target(pin.neutral(model))
    e, J = task.compute_error_and_jacobian(configuration)
    e_same, J_same = same.compute_error_and_jacobian(configuration)
    assert np.abs(e).max() > 0.1 and np.array_equal(e, e_same) and np.array_equal(J, J_same)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda m: taskik.PostureTask(0.1, 0.2, 0.5), r"at most two arguments by position"),
        (lambda m: taskik.PostureTask(m, 0.1, 0.5, 0.1, 3), r"at most four arguments"),
        (lambda m: taskik.PostureTask(m, 0.1, 0.5, gain=0.3), r"gain twice"),
        (lambda m: taskik.PostureTask(m, 0.1, 0.5, 0.1, lm_damping=1.0), r"lm_damping twice"),
        (lambda m: taskik.PostureTask(m, 0.1, 2.0), r"gain must be in \(0, 1\]"),
    ],
)
def test_posture_task_refuses_other_positional_shapes_naming_the_call(make, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        make(pin.buildModelFromMJCF(str(MODELS / "arm7.xml")))


def test_damping_with_a_model_gives_minks_step():
    """With mink installed: a hand target and mink's DampingTask(model, cost) on the humanoid
    give mink's velocity to 1e-7 of its size (measured: 1.6e-13 of 29 rad/s, mink 0.0.5). A
    free joint's linear velocity is in the world frame in MuJoCo and in the base frame in
    Pinocchio: compared as Rᵀ v."""
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo (in the dev extra) runs mink's loops")
    mink = pytest.importorskip("mink", reason="mink (the bench extra) compares its steps")
    path = str(MODELS / "humanoid.xml")
    mj_model, model = mujoco.MjModel.from_xml_path(path), pin.buildModelFromMJCF(path)
    q = model.referenceConfigurations["turned"]
    ours = taskik.Configuration(model, q)
    theirs = mink.Configuration(mj_model)
    theirs.update(mjcf.qpos_from_q(model, q))
    goal = ours.get_transform_frame_to_world("left_palm") * pin.SE3(
        pin.rpy.rpyToMatrix(0.1, -0.2, 0.3), np.array([0.05, 0.02, 0.1])
    )
    steps = []
    for lib, configuration in ((taskik, ours), (mink, theirs)):
        hand = lib.FrameTask(
            frame_name="left_palm", frame_type="site", position_cost=1.0, orientation_cost=1.0
        )
        hand.set_target(goal if lib is taskik else mink.SE3.from_matrix(goal.homogeneous))
        tasks = [hand, lib.DampingTask(model if lib is taskik else mj_model, 0.3)]
        steps.append(lib.solve_ik(configuration, tasks, 0.01, "quadprog", 1e-6))
    v, v_mink = steps
    R = ours.get_transform_frame_to_world("pelvis").rotation
    v_mink = np.concatenate([R.T @ v_mink[:3], v_mink[3:]])
    assert np.abs(v_mink[:6]).max() > 0.1  # the base moves: it is not damped
    assert np.abs(v - v_mink).max() <= 1e-7 * max(1.0, np.abs(v_mink).max())


SLIDE_ON_A_HINGE = """<mujoco><compiler angle="{angle}"/><worldbody>
<body name="cart"><joint name="rail" type="slide" axis="1 0 0" range="-0.5 0.5"/>
<geom type="box" size="0.1 0.1 0.05" mass="1"/>
<body name="pole" pos="0 0 0.1"><joint name="hinge" type="hinge" axis="0 1 0" range="{hinge}"/>
<geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.02" mass="0.1"/>
<site name="tip" pos="0 0 0.5"/></body></body></worldbody></mujoco>"""


@pytest.mark.parametrize(("angle", "hinge"), [("degree", "-90 90"), ("radian", "-1.5708 1.5708")])
def test_a_mirror_gives_slide_joints_mujocos_range_in_metres(tmp_path, angle, hinge):
    """pinocchio.buildModelFromMJCF 4.1 reads a slide's range as an angle under MuJoCo's default
    ``angle="degree"``: ±0.5 m became ±0.0087 m and a ported loop could not move the cart. The
    mirror restores MuJoCo's range (with a warning); hinges and radian files are left alone."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "cart.xml"
    path.write_text(SLIDE_ON_A_HINGE.format(angle=angle, hinge=hinge))
    model = pin.buildModelFromMJCF(str(path))
    mj_model = mujoco.MjModel.from_xml_path(str(path))
    hinge_range = (model.lowerPositionLimit[1], model.upperPositionLimit[1])
    scaled = model.upperPositionLimit[0] < 0.1
    if scaled:
        with pytest.warns(UserWarning, match=r"rail \[-0.5, 0.5\] m"):
            conf = taskik.Configuration(model, mirror=mjcf.MujocoMirror(mj_model))
    else:  # a Pinocchio that reads slides right, or a radian file: nothing to restore
        conf = taskik.Configuration(model, mirror=mjcf.MujocoMirror(mj_model))
    assert model.lowerPositionLimit[0] == pytest.approx(-0.5, abs=1e-12)
    assert model.upperPositionLimit[0] == pytest.approx(0.5, abs=1e-12)
    assert (model.lowerPositionLimit[1], model.upperPositionLimit[1]) == hinge_range
    # the cart now follows a target 0.4 m along the rail under the configuration limit
    tip = taskik.PositionTask("tip")
    target = conf.get_transform_frame_to_world("tip").translation + [0.4, 0.0, 0.0]
    tip.set_target(target)
    limits = [taskik.ConfigurationLimit(model)]
    for _ in range(300):
        v = taskik.solve_ik(conf, [tip], 0.01, limits=limits)
        conf.integrate_inplace(v, 0.01)
    assert conf.q[0] > 0.35
    assert np.linalg.norm(conf.get_transform_frame_to_world("tip").translation - target) < 0.02
