"""docs/coming_from_mink.md is a tested page: its Python snippets run, in order, in one
namespace, from the repository's root (they load the MJCF files of benchmarks/mink_examples/);
mink's call shapes are accepted with mink's meaning or refused naming the taskik call; and
where mink and MuJoCo are installed, a mink loop and its port give the same velocities on
the same MJCF file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from mjcf_models import BALL_ARM
from pages import python_blocks

import taskik

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "coming_from_mink.md"
MODELS = ROOT / "benchmarks" / "mink_examples"


def snippets() -> list[str]:
    return python_blocks("docs/coming_from_mink.md")


def test_the_page_has_snippets_for_each_trip_up():
    code = "\n".join(snippets())
    for name in (
        "buildModelFromMJCF",
        "buildGeomFromMJCF",
        "referenceConfigurations",
        'frame_name="attachment_site"',
        'frame_type="site"',
        "PostureTask(model=model",
        "PostureTask(model, cost",
        "solve_ik(configuration, tasks, dt, solver, 1e-3)",
        '"quadprog", 1e-2, False, limits=limits',
        "ComTask(cost=",
        "ConfigurationLimit(humanoid, 0.95, 0.01)",
        "VelocityLimit(model=humanoid, velocities=",
        "ComTask(200.0, 1.0, 0.0)",
        'FrameTask("pelvis", "body", 0.0, 10.0)',
        "q_from_qpos",
        "qpos_from_q",
        'update_from_keyframe("stand")',
        "mjcf.mocap_se3",
        "import taskik as mink",
        "mirror=mjcf.MujocoMirror(model)",
        "configuration.mirror.data",
        "mink.SE3.from_mocap_id(data, feet_mid[i])",
        'mink.move_mocap_to_frame(model, data, f"{hand}_target", hand, "site")',
        "taskik.SE3.from_mocap_id(mj_data, 0)",
    ):
        assert name in code, name


def needs_mujoco(code: str) -> bool:
    return "import mujoco" in code


def test_the_snippets_run_in_order(monkeypatch):
    """Every snippet, in order; the one that loads MuJoCo's model where MuJoCo is installed
    (the dev extra has it; the snippets after it do not use its names)."""
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "coming_from_mink"}
    has_mujoco = importlib.util.find_spec("mujoco") is not None
    assert sum(needs_mujoco(code) for code in snippets()) == 1
    for k, code in enumerate(snippets()):
        if needs_mujoco(code) and not has_mujoco:
            continue
        try:
            exec(compile(code, f"{PAGE.name}[snippet {k}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message names the snippet
            raise AssertionError(f"snippet {k} of {PAGE.name} failed: {exc!r}\n{code}") from exc


def test_the_page_is_in_the_navigation():
    assert "coming_from_mink.md" in (ROOT / "mkdocs.yml").read_text()


# ------------------------------------------------------------------- MJCF facts the page states
def load(name: str) -> pin.Model:
    return pin.buildModelFromMJCF(str(MODELS / f"{name}.xml"))


def test_mjcf_keyframes_arrive_with_the_quaternion_reordered():
    """The MJCF key holds w, x, y, z = cos(π/8), 0, 0, sin(π/8); Pinocchio's q x, y, z, w."""
    model = load("humanoid")
    turned = model.referenceConfigurations["turned"]
    c, s = np.cos(np.pi / 8), np.sin(np.pi / 8)
    assert np.allclose(turned[3:7], [0.0, 0.0, s, c], atol=1e-6)
    assert np.allclose(turned[:3], [0.1, 0.2, 0.7])
    data = model.createData()
    pin.framesForwardKinematics(model, data, turned)
    yaw = pin.rpy.matrixToRpy(data.oMf[model.getFrameId("pelvis")].rotation)[2]
    assert abs(yaw - np.pi / 4) < 1e-5  # a quarter of a half turn about z, as MuJoCo reads it


@pytest.fixture
def ball_arm(tmp_path) -> tuple[pin.Model, Path]:
    path = tmp_path / "ball_arm.xml"
    path.write_text(BALL_ARM)
    return pin.buildModelFromMJCF(str(path)), path


def test_qpos_and_q_convert_as_pinocchio_reads_mjcf_keyframes(ball_arm):
    """The key's qpos (w, x, y, z for the free and the ball joint) converts to the q Pinocchio
    made of it, and back; a hinge coordinate is copied."""
    model, _ = ball_arm
    qpos = np.array([0.1, 0.2, 0.6, 0.9238795, 0, 0.3826834, 0, 0.8660254, 0.5, 0, 0, 0.7])
    q = taskik.mjcf.q_from_qpos(model, qpos)
    assert np.allclose(q, model.referenceConfigurations["bent"], atol=1e-7)
    assert np.allclose(q[3:7], [0, 0.3826834, 0, 0.9238795]) and q[11] == 0.7
    assert np.allclose(q[7:11], [0.5, 0, 0, 0.8660254])  # the ball joint: x, y, z, w
    assert np.array_equal(taskik.mjcf.qpos_from_q(model, q), qpos)
    arm = load("arm7")  # hinges only: the same vector
    home = arm.referenceConfigurations["home"]
    assert np.array_equal(taskik.mjcf.qpos_from_q(arm, home), home)


def test_qpos_conversions_refuse_a_vector_of_another_size(ball_arm):
    model, _ = ball_arm
    with pytest.raises(taskik.InvalidInput, match=r"qpos must have shape \(12,\)"):
        taskik.mjcf.q_from_qpos(model, np.zeros(19))
    with pytest.raises(taskik.InvalidInput, match="q must have shape"):
        taskik.mjcf.qpos_from_q(model, np.zeros(3))
    with pytest.raises(taskik.InvalidInput):
        taskik.mjcf.q_from_qpos(model, [np.nan] * 12)


def test_configuration_without_q_starts_at_qpos0_or_the_neutral_configuration(ball_arm):
    """A model built from MJCF starts where MuJoCo (and mink) start: its qpos0, the base at
    its body's height; another model at Pinocchio's neutral configuration."""
    model, _ = ball_arm
    configuration = taskik.Configuration(model)
    assert np.allclose(configuration.q, model.referenceConfigurations["qpos0"])
    assert configuration.q[2] == pytest.approx(0.5)  # not pin.neutral's 0
    humanoid = taskik.robots.load("humanoid")
    assert "qpos0" not in humanoid.model.referenceConfigurations
    plain = taskik.Configuration(humanoid.model)
    assert np.array_equal(plain.q, pin.neutral(humanoid.model))
    assert np.array_equal(taskik.Configuration(humanoid.model, None).q, plain.q)


def test_update_from_keyframe_reads_the_reference_configurations(ball_arm):
    model, _ = ball_arm
    configuration = taskik.Configuration(model)
    configuration.update_from_keyframe("bent")
    assert np.array_equal(configuration.q, model.referenceConfigurations["bent"])
    tip = configuration.get_transform_frame_to_world("tip").translation
    data = model.createData()
    pin.framesForwardKinematics(model, data, model.referenceConfigurations["bent"])
    assert np.allclose(tip, data.oMf[model.getFrameId("tip")].translation)
    with pytest.raises(taskik.UnknownName, match="unknown keyframe 'bend'; did you mean 'bent'"):
        configuration.update_from_keyframe("bend")
    with pytest.raises(taskik.UnknownName, match="unknown keyframe 3"):
        configuration.update_from_keyframe(3)  # type: ignore[arg-type]


def test_mocap_se3_reads_w_x_y_z():
    """A quarter turn about z written w, x, y, z = cos(π/4), 0, 0, sin(π/4) maps x to y (a
    wrong order or sign would not); the quaternion is normalised; indices are checked."""
    from types import SimpleNamespace

    c = np.cos(np.pi / 4)
    mj_model = SimpleNamespace(nmocap=2)
    mj_data = SimpleNamespace(
        mocap_pos=np.array([[0.0, 0.0, 0.0], [0.5, -0.2, 0.9]]),
        mocap_quat=np.array([[1.0, 0.0, 0.0, 0.0], [2 * c, 0.0, 0.0, 2 * c]]),
    )
    T = taskik.mjcf.mocap_se3(mj_model, mj_data, np.int32(1))
    assert np.allclose(T.rotation @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert np.allclose(T.translation, [0.5, -0.2, 0.9])
    for bad in (2, -1, True, 1.0):
        with pytest.raises(taskik.InvalidInput, match="mocap"):
            taskik.mjcf.mocap_se3(mj_model, mj_data, bad)
    mj_data.mocap_quat[0] = 0.0
    with pytest.raises(taskik.InvalidInput, match="zero quaternion"):
        taskik.mjcf.mocap_se3(mj_model, mj_data, 0)


def test_mocaps_and_qpos_agree_with_mujocos_own_kinematics(ball_arm):
    """With MuJoCo: the configuration written into MuJoCo's data puts the site where
    Pinocchio puts it; a mocap moved to the site reads back as that pose; names are checked."""
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo (in the dev extra) checks the helpers")
    model, path = ball_arm
    mj_model = mujoco.MjModel.from_xml_path(str(path))
    mj_data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, mj_data, mj_model.key("bent").id)
    configuration = taskik.Configuration(model, taskik.mjcf.q_from_qpos(model, mj_data.qpos))
    assert np.allclose(configuration.q, model.referenceConfigurations["bent"], atol=1e-7)
    configuration.integrate_inplace(np.linspace(-1.0, 1.0, model.nv), 0.3)
    taskik.mjcf.write_configuration(mj_model, mj_data, configuration)
    site = configuration.get_transform_frame_to_world("tip")
    assert np.allclose(mj_data.site("tip").xpos, site.translation, atol=1e-9)
    assert np.allclose(mj_data.site("tip").xmat.reshape(3, 3), site.rotation, atol=1e-9)
    assert np.allclose(mj_data.subtree_com[0], configuration.com, atol=1e-9)
    taskik.mjcf.move_mocap_to_frame(mj_model, mj_data, "target", "tip", "site")
    assert taskik.mjcf.mocap_se3(mj_model, mj_data, "target").isApprox(site, 1e-9)
    taskik.mjcf.move_mocap_to_frame(mj_model, mj_data, "target", "lower", "body")
    lower = configuration.get_transform_frame_to_world("lower")
    assert taskik.mjcf.mocap_se3(mj_model, mj_data, 0).isApprox(lower, 1e-9)
    with pytest.raises(taskik.UnknownName, match="did you mean 'tip'"):
        taskik.mjcf.move_mocap_to_frame(mj_model, mj_data, "target", "tap", "site")
    with pytest.raises(taskik.UnknownName, match="unknown body 'targt'"):
        taskik.mjcf.mocap_se3(mj_model, mj_data, "targt")
    with pytest.raises(taskik.InvalidInput, match="not a mocap body"):
        taskik.mjcf.mocap_se3(mj_model, mj_data, "plain")
    with pytest.raises(taskik.InvalidInput, match="frame_type"):
        taskik.mjcf.move_mocap_to_frame(mj_model, mj_data, "target", "tip", "joint")
    other = mujoco.MjModel.from_xml_path(str(MODELS / "arm7.xml"))
    with pytest.raises(taskik.InvalidInput, match="not the same robot"):
        taskik.mjcf.write_configuration(other, mujoco.MjData(other), configuration)


def test_bodies_and_sites_are_frames_and_geoms_are_geometry_objects():
    model = load("humanoid")
    types = {f.name: f.type for f in model.frames}
    assert types["pelvis"] == pin.FrameType.BODY
    assert types["left_foot"] == pin.FrameType.OP_FRAME
    geometry = pin.buildGeomFromMJCF(model, str(MODELS / "humanoid.xml"), pin.COLLISION)
    names = [g.name for g in geometry.geometryObjects]
    assert "pelvis_geom" in names and "pelvis_geom" not in types
    assert model.names[1] == "floating_base_joint"
    assert taskik.PostureTask(model, cost=1.0).dim == model.nv - 6  # the base is left out


def test_a_body_with_two_joints_is_one_composite_joint_whose_coordinates_are_bounded(tmp_path):
    """What the page says of bodies holding several joints: one composite joint in
    Pinocchio, each of its hinges bounded by ConfigurationLimit (tests/test_mjcf_mirror.py
    checks a loop against the bounds)."""
    path = tmp_path / "two_joints.xml"
    path.write_text(
        '<mujoco><compiler angle="radian"/><worldbody><body name="a">'
        '<joint name="j1" axis="0 1 0" range="-0.5 0.5"/>'
        '<joint name="j2" axis="1 0 0" range="-0.3 0.3"/>'
        '<geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    )
    model = pin.buildModelFromMJCF(str(path))
    assert list(model.names)[1:] == ["Composite_j1"]
    assert model.upperPositionLimit.tolist() == [0.5, 0.3]
    assert taskik.ConfigurationLimit(model).indices.tolist() == [0, 1]
    with pytest.raises(taskik.NotWithinConfigurationLimits, match=r"Composite_j1\[1\]"):
        taskik.Configuration(model, np.array([0.0, 0.4])).check_limits()


# ------------------------------------------------------------------- mink's call shapes
@pytest.fixture
def arm():
    model = load("arm7")
    conf = taskik.Configuration(model, model.referenceConfigurations["home"])
    hand = taskik.FrameTask("attachment_site", position_cost=1.0, orientation_cost=1.0)
    hand.set_target(
        conf.get_transform_frame_to_world("attachment_site")
        * pin.SE3(pin.rpy.rpyToMatrix(0.1, 0.0, 0.2), np.array([0.05, -0.02, 0.03]))
    )
    posture = taskik.PostureTask(cost=1e-2)
    posture.set_target_from_configuration(conf)
    return model, conf, [hand, posture]


def solve(conf, tasks, *args, **kwargs):
    return taskik.solve_ik(conf, tasks, 0.01, *args, adaptive=False, **kwargs)


def same(a, b):
    """Two steps of one problem, the second from a warm-started solver: equal to 1e-9 rad/s
    (the steps are of order 1 rad/s)."""
    return np.allclose(a, b, rtol=0, atol=1e-9) and np.abs(a).max() > 0.1


def test_a_solver_name_fourth_is_the_solver_and_a_number_fifth_the_damping(arm):
    """mink's solve_ik(conf, tasks, dt, "quadprog", 1e-1): before, 'QP solver 0.1 is not
    available'."""
    _, conf, tasks = arm
    v = solve(conf, tasks, "quadprog", 1e-1)
    assert same(v, solve(conf, tasks, solver="quadprog", damping=1e-1))
    assert not np.allclose(v, solve(conf, tasks, solver="quadprog"), atol=1e-3)  # damped


def test_minks_safety_break_sixth_and_limits_by_keyword(arm):
    """mink's (…, "quadprog", 1e-2, False, limits=…): before, a TypeError (limits twice)."""
    model, conf, tasks = arm
    limits = [taskik.ConfigurationLimit(model, gain=0.95)]
    v = solve(conf, tasks, "quadprog", 1e-2, False, limits=limits)
    assert same(v, solve(conf, tasks, limits=limits, solver="quadprog", damping=1e-2))
    assert same(v, solve(conf, tasks, "quadprog", 1e-2, True, limits))  # mink's order, all


def test_pinks_positional_order_puts_limits_sixth(arm):
    model, conf, tasks = arm
    limits = [taskik.ConfigurationLimit(model, gain=0.95)]
    v = solve(conf, tasks, "daqp", 1e-2, limits)
    assert same(v, solve(conf, tasks, limits=limits, solver="daqp", damping=1e-2))
    assert same(v, solve(conf, tasks, "daqp", 1e-2, limits, None, [], True))  # all eight


def test_taskiks_positional_order_still_holds(arm):
    model, conf, tasks = arm
    limits = [taskik.ConfigurationLimit(model, gain=0.95)]
    v = solve(conf, tasks, limits, "daqp", 1e-2)
    assert same(v, solve(conf, tasks, limits=limits, solver="daqp", damping=1e-2))


def test_safety_break_true_checks_q_against_its_limits(arm):
    model, conf, tasks = arm
    assert same(solve(conf, tasks, "quadprog", 1e-2, True), solve(conf, tasks, "quadprog", 1e-2))
    q = conf.q.copy()
    q[1] = model.upperPositionLimit[1] + 0.1  # joint2 beyond its range
    conf.update(q)
    solve(conf, tasks, "quadprog", 1e-2, False)  # mink's default: no check
    with pytest.raises(taskik.NotWithinConfigurationLimits, match="joint2"):
        solve(conf, tasks, "quadprog", 1e-2, True)
    with pytest.raises(taskik.NotWithinConfigurationLimits, match="joint2"):
        solve(conf, tasks, solver="quadprog", safety_break=True)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("quadprog",), {"solver": "daqp"}, r"got solver twice, by position \(pink's order"),
        (("quadprog", 1e-2, False), {"safety_break": True}, r"safety_break twice.*mink's"),
        ((None,), {"limits": []}, r"got limits twice, by position \(taskik's order"),
        (("quadprog", 1e-2, False, None, None, 1), {}, r"at most 5 positional .* mink's"),
        ((None, None, 1e-2, "qp", False, 1), {}, r"at most 5 positional .* taskik's"),
        (
            ("quadprog", 1e-2, False, None, ["task"]),
            {},
            r"no constraints= keyword \(pink's and mink's\): .* priority level",
        ),
        (
            ("quadprog",),
            {"barriers": ["b"]},
            r"no barriers= keyword \(pink's\): barriers= takes taskik",
        ),
        (("quadprog", 1e-2, "yes"), {}, r"limits must be"),
        ((), {"limits": "daqp"}, r"got the string 'daqp': for a QP solver, write solver='daqp'"),
    ],
)
def test_ambiguous_or_unknown_positional_calls_name_the_problem(arm, args, kwargs, message):
    _, conf, tasks = arm
    with pytest.raises(taskik.InvalidInput, match=message):
        solve(conf, tasks, *args, **kwargs)


def test_frame_name_and_frame_type_are_minks_keywords(arm):
    """mink's FrameTask(frame_name=..., frame_type=...): before, a TypeError."""
    _, conf, tasks = arm
    for frame_type in ("site", None):
        mink_style = taskik.FrameTask(
            frame_name="attachment_site", frame_type=frame_type, position_cost=1.0
        )
        assert mink_style.frame == "attachment_site"
        mink_style.set_target(tasks[0].target)
        assert same(solve(conf, [mink_style, tasks[1]]), solve(conf, tasks))
    body = taskik.FrameTask(frame_name="link7", frame_type="body")
    body.set_target_from_configuration(conf)
    assert np.allclose(body.compute_error(conf), 0.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"frame_name": "flange", "frame_type": "geom"}, r"a MuJoCo geom is not a frame .*site"),
        ({"frame_name": "x", "frame_type": "joint"}, r"frame_type must be 'body' or 'site'"),
        ({"frame": "a", "frame_name": "b"}, r"two frames: 'a' and frame_name='b'"),
        ({"position_cost": 1.0}, r"needs a frame name: FrameTask\('tool0'"),
        ({"frame": "a", "position_cost": "site"}, r"second argument is position_cost.*'site'"),
    ],
)
def test_frame_task_refusals_show_the_taskik_call(kwargs, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.FrameTask(**kwargs)


def test_relative_frame_task_takes_minks_keywords(arm):
    """mink's RelativeFrameTask(frame_name=, frame_type=, root_name=, root_type=, ...) is
    taskik's RelativeFrameTask(frame, root, ...): the same error and Jacobian (before, a
    TypeError)."""
    _, conf, _ = arm
    mink_style = taskik.RelativeFrameTask(
        frame_name="attachment_site",
        frame_type="site",
        root_name="link3",
        root_type="body",
        position_cost=1.0,
        orientation_cost=0.5,
        lm_damping=1.0,
    )
    ours = taskik.RelativeFrameTask("attachment_site", "link3", 1.0, 0.5, lm_damping=1.0)
    assert (mink_style.frame, mink_style.root) == ("attachment_site", "link3")
    assert np.array_equal(mink_style.cost, ours.cost) and mink_style.lm_damping == 1.0
    target = pin.SE3(pin.rpy.rpyToMatrix(0.2, -0.1, 0.3), np.array([0.1, 0.2, 0.3]))
    for task in (mink_style, ours):
        task.set_target(target)
    e_mink, J_mink = mink_style.compute_error_and_jacobian(conf)
    e_ours, J_ours = ours.compute_error_and_jacobian(conf)
    assert np.abs(e_mink).max() > 0.1 and np.array_equal(e_mink, e_ours)
    assert np.array_equal(J_mink, J_ours)
    mixed = taskik.RelativeFrameTask("attachment_site", root_name="link3")
    assert mixed.root == "link3"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"frame": "a", "frame_name": "b", "root": "c"}, r"two frames: 'a' and frame_name='b'"),
        ({"frame": "a", "root": "c", "root_name": "d"}, r"two roots: 'c' and root_name='d'"),
        ({"frame_name": "a"}, r"needs a root name: RelativeFrameTask\(frame, root"),
        ({"root": "a"}, r"needs a frame name"),
        ({"frame": "a", "root": "b", "root_type": "geom"}, r"root_type must be .*geom is not"),
        ({"frame": "a", "root": "b", "frame_type": "joint"}, r"frame_type must be 'body' or"),
        ({"frame": "a", "root": "site", "position_cost": "b"}, r"third argument is position_c"),
    ],
)
def test_relative_frame_task_refusals_name_the_problem(kwargs, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        taskik.RelativeFrameTask(**kwargs)


def test_a_cost_of_one_given_first_or_by_keyword_is_taken():
    for task in (taskik.PostureTask(1.0), taskik.PostureTask(cost=1.0), taskik.PostureTask()):
        assert np.all(task.cost == 1.0)
    assert np.all(taskik.PostureTask(0.5).cost == 0.5)
    assert np.all(taskik.PostureTask(cost=0.5).cost == 0.5)


def test_posture_task_takes_minks_model_first_or_by_keyword(arm):
    """mink's PostureTask(model, cost=...) and (model=model, cost=...): before, a TypeError."""
    model, conf, tasks = arm
    reference = solve(conf, tasks)
    for posture in (
        taskik.PostureTask(model, cost=1e-2),
        taskik.PostureTask(model=model, cost=1e-2),
        taskik.PostureTask(model, 1e-2),
        taskik.PostureTask(1e-2, model=model),
    ):
        posture.set_target_from_configuration(conf)
        assert same(solve(conf, [tasks[0], posture]), reference)
    assert np.all(taskik.PostureTask(model).cost == 1.0)


def test_an_nv_long_posture_cost_drops_the_free_flyers_entries():
    """mink's cost has one entry per velocity, the free joint's six ignored."""
    model = load("humanoid")
    weights = np.arange(1.0, model.nv + 1.0)
    task = taskik.PostureTask(model, cost=weights)
    assert task.cost.tolist() == weights[6:].tolist()
    with_base = taskik.PostureTask(model, cost=weights, include_base=True)
    assert with_base.cost.tolist() == weights.tolist()
    with pytest.raises(taskik.InvalidInput, match=r"shape \(15,\) \(or mink's \(21,\)\)"):
        taskik.PostureTask(model, cost=np.ones(4))


class MjModel:
    """Stands for mujoco.MjModel (taskik reads its class name, nv and jnt_type)."""

    def __init__(self, nv, jnt_type):
        self.nv, self.jnt_type = nv, np.array(jnt_type)


def test_a_mujoco_model_sizes_the_posture_cost_as_in_mink():
    """mink's PostureTask(model, cost) with MuJoCo's model of the file: the cost is checked
    against its nv, and its free joint's six entries dropped."""
    free = MjModel(21, [0] + [3] * 15)  # (mjJNT_FREE = 0, mjJNT_HINGE = 3)
    weights = np.arange(1.0, 22.0)
    assert taskik.PostureTask(free, cost=weights).cost.tolist() == weights[6:].tolist()
    assert taskik.PostureTask(free, cost=weights[6:]).cost.tolist() == weights[6:].tolist()
    assert taskik.PostureTask(model=MjModel(7, [3] * 7), cost=1e-2).cost == 1e-2
    with pytest.raises(taskik.InvalidInput, match=r"shape \(15,\) \(or mink's \(21,\)\)"):
        taskik.PostureTask(free, cost=np.ones(7))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda m: taskik.PostureTask(model=object(), cost=1.0), r"a pinocchio.Model .*got object"),
        (lambda m: taskik.PostureTask(model="arm7"), r"must be a pinocchio.Model"),
        (lambda m: taskik.PostureTask(m, model=m), r"two models"),
        (lambda m: taskik.PostureTask(0.5, cost=2.0), r"two costs, 0.5 and cost=2.0"),
        (lambda m: taskik.PostureTask(0.5, cost=1.0), r"two costs, 0.5 and cost=1.0"),
        (lambda m: taskik.PostureTask(1.0, cost=0.5), r"two costs, 1.0 and cost=0.5"),
        (lambda m: taskik.PostureTask(None), r"cost"),
    ],
)
def test_posture_task_refusals_name_the_problem(make, message):
    with pytest.raises(taskik.InvalidInput, match=message):
        make(load("arm7"))


# ------------------------------------------------------------------- against mink
def mink_and_mujoco():
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo (in the dev extra) runs mink's loops")
    mink = pytest.importorskip("mink", reason="mink (the bench extra) compares its steps")
    return mujoco, mink


def arm_tasks(lib, model):
    return [
        lib.FrameTask(
            frame_name="attachment_site",
            frame_type="site",
            position_cost=1.0,
            orientation_cost=0.5,
            lm_damping=1.0,
        ),
        lib.PostureTask(model, cost=1e-2),
    ]


def humanoid_tasks(lib, model):
    tasks = [
        lib.FrameTask(
            frame_name="pelvis", frame_type="body", position_cost=0.0, orientation_cost=10.0
        ),
        lib.PostureTask(model, cost=1.0),
        lib.ComTask(cost=200.0),
    ]
    # the feet held in orientation too, the palms in position only
    for site, orientation_cost in (
        ("right_foot", 10.0),
        ("left_foot", 10.0),
        ("right_palm", 0.0),
        ("left_palm", 0.0),
    ):
        tasks.append(
            lib.FrameTask(
                frame_name=site,
                frame_type="site",
                position_cost=200.0,
                orientation_cost=orientation_cost,
                lm_damping=1.0,
            )
        )
    return tasks


def qpos_of(q, free):
    return np.concatenate([q[:3], q[6:7], q[3:6], q[7:]]) if free else q


def offset(k: int) -> pin.SE3:
    """A small, different offset for the k-th frame target (m, rad)."""
    rotation = pin.rpy.rpyToMatrix(0.05 + 0.01 * k, -0.04, 0.03 * k)
    return pin.SE3(rotation, np.array([0.02, -0.01 * k, 0.03]))


@pytest.mark.parametrize(
    "name, key, make, damping, free",
    [("arm7", "home", arm_tasks, 1e-3, False), ("humanoid", "stand", humanoid_tasks, 1e-1, True)],
)
def test_a_ported_loop_gives_minks_velocities(name, key, make, damping, free):
    """mink's loop and its port, each step computed from the same q (taskik's, integrated by
    Pinocchio): the same velocity to 1e-7 of its size (measured: 9e-10 on the arm, 1e-12 on
    the humanoid, mink 0.0.5 and MuJoCo 4.0.1). A free joint's linear velocity is in
    the world frame in MuJoCo and in the base frame in Pinocchio: compared as Rᵀ v.

    Every frame target is off in rotation: mink's Jacobian of the pose error takes a
    rotation error below 1e-5 rad as none and drops the coupling of translation and
    rotation (Pinocchio's Jlog6 keeps it), so steps are compared while every rotation error
    is above 2e-5 rad."""
    mujoco, mink = mink_and_mujoco()
    path = str(MODELS / f"{name}.xml")
    mj_model = mujoco.MjModel.from_xml_path(path)
    model = pin.buildModelFromMJCF(path)
    q0 = model.referenceConfigurations[key]
    theirs, ours = mink.Configuration(mj_model), taskik.Configuration(model, q0)
    theirs.update(qpos_of(q0, free))
    mink_tasks, our_tasks = make(mink, mj_model), make(taskik, model)
    frames = [k for k, task in enumerate(our_tasks) if isinstance(task, taskik.FrameTask)]
    for k, (a, b) in enumerate(zip(mink_tasks, our_tasks, strict=True)):
        a.set_target_from_configuration(theirs)
        b.set_target_from_configuration(ours)
        if k in frames:
            b.set_target(b.target * offset(k))
            a.set_target(mink.SE3.from_matrix(b.target.homogeneous))
    dt, limits = 0.005, [taskik.ConfigurationLimit(model, gain=0.95)]
    compared, largest = 0, 0.0
    for _ in range(60):
        theirs.update(qpos_of(ours.q, free))
        v = taskik.solve_ik(ours, our_tasks, dt, "quadprog", damping, False, limits, adaptive=False)
        if min(np.linalg.norm(our_tasks[k].compute_error(ours)[3:]) for k in frames) > 2e-5:
            v_mink = mink.solve_ik(theirs, mink_tasks, dt, "quadprog", damping)
            if free:
                R = ours.get_transform_frame_to_world("pelvis").rotation
                v_mink = np.concatenate([R.T @ v_mink[:3], v_mink[3:]])
            scale = max(1.0, np.abs(v_mink).max())
            assert np.abs(v - v_mink).max() <= 1e-7 * scale
            compared += 1
            largest = max(largest, np.abs(v_mink).max())
        ours.integrate_inplace(v, dt)
    assert compared >= 5 and largest > 1.0  # the loop moves


# ------------------------------------------------------------------- the port of mink's examples
def port_script(monkeypatch):
    import importlib.util
    import sys

    path = MODELS / "port_examples.py"
    spec = importlib.util.spec_from_file_location("port_examples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "port_examples", module)  # (its dataclass looks there)
    spec.loader.exec_module(module)
    return module


def test_import_taskik_as_mink_keeps_only_names_taskik_has(tmp_path, monkeypatch):
    """The port writes ``import taskik as mink``: every ``mink.`` name it leaves must be a
    name taskik has with mink's call shapes, and the script refuses a port that leaves any
    other (``mink.SE3``, say)."""
    script = port_script(monkeypatch)
    for name in script.SHARED:
        assert hasattr(taskik, name), name
    assert not any(edit.kind == "rename" for edits in script.EXAMPLES.values() for edit in edits)
    source = "import mink\nR = mink.SO3.from_matrix(m)\nc = mink.Configuration(m)\n"
    with pytest.raises(SystemExit, match=r"does not share: \['SO3'\]"):
        script.port(source, [script.IMPORTS], tmp_path)


def test_the_port_counts_the_lines_it_adds_changes_or_deletes(tmp_path, monkeypatch):
    script = port_script(monkeypatch)
    source = "import mink\n\nx = 1\n    task = mink.FrameTask(\n    step()\n    step()\n"
    edits = [
        script.IMPORTS,
        script.Edit("x = 1", (), "state"),
        script.Edit("step()", ("step()", "sync()"), "state"),
    ]
    text, changed = script.port(source, edits, tmp_path)
    assert text.splitlines() == [
        "import pinocchio as pin",
        "import taskik as mink",
        "from taskik import mjcf",
        "",
        "    task = mink.FrameTask(",
        "    step()",
        "    sync()",
        "    step()",
        "    sync()",
    ]
    assert changed == {"import": 3, "loading": 0, "state": 3, "target": 0}
    with pytest.raises(SystemExit, match="changed upstream"):
        script.port("import numpy\n", edits, tmp_path)


def test_the_ports_change_at_most_five_lines_beyond_imports_and_loading(monkeypatch):
    """The edits of mink's two examples (what the page's table counts): beyond the imports
    and the model loading, 0 lines for the arm and 2 for the humanoid (at most 5 each)."""
    script = port_script(monkeypatch)
    beyond = {}
    for name, edits in script.EXAMPLES.items():
        rest = [edit for edit in edits if edit.kind not in ("import", "loading")]
        beyond[name] = sum(max(len([n for n in e.new if n != e.old]), 1) for e in rest)
    assert beyond == {"arm_iiwa.py": 0, "humanoid_g1.py": 2}
    text = PAGE.read_text()
    assert "| `arm_iiwa.py` | 2 | 2 | 0 | 0 | **0** |" in text
    assert "| `humanoid_g1.py` | 3 | 2 | 2 | 0 | **2** |" in text
