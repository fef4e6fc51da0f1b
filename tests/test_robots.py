"""Bundled robots, URDF loading and example-robot-data."""

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.robots import models


def dh(theta, d, a, alpha):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array(
        [
            [ct, -st * ca, st * sa, a * ct],
            [st, ct * ca, -ct * sa, a * st],
            [0, sa, ca, d],
            [0, 0, 0, 1],
        ]
    )


def test_list_contains_the_bundled_robots():
    names = taskik.robots.list()
    for name in ("ur5", "panda", "planar_2r", "planar_3r", "humanoid"):
        assert name in names


def test_ur5_matches_its_dh_table(ur5, rng):
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, 6)
        T = np.eye(4)
        for i in range(6):
            T = T @ dh(q[i], models.UR5_DH_D[i], models.UR5_DH_A[i], models.UR5_DH_ALPHA[i])
        conf = ur5.configuration(q)
        assert np.allclose(conf.get_transform_frame_to_world("tool0").homogeneous, T)


def test_ur5_limits(ur5):
    assert np.allclose(ur5.model.upperPositionLimit, 2 * np.pi)
    assert np.allclose(ur5.model.velocityLimit, np.pi)


def test_panda_ready_pose_and_limits(panda):
    # Franka's "ready" posture puts the flange 0.307 m in front of the base, 0.59 m up... for
    # the hand frame (same origin as the flange)
    T = panda.configuration().get_transform_frame_to_world("panda_hand")
    assert np.allclose(T.translation, [0.3070, 0.0, 0.5903], atol=1e-3)
    assert np.allclose(panda.model.upperPositionLimit[3], -0.0698)
    assert np.allclose(panda.model.velocityLimit, [2.175] * 4 + [2.61] * 3)


def test_planar_2r_geometry(planar_2r):
    conf = planar_2r.configuration(np.array([np.pi / 2, -np.pi / 2]))
    assert np.allclose(conf.get_transform_frame_to_world("ee").translation, [0.7, 1.0, 0.0])


def test_humanoid_has_a_free_flyer_and_feet_on_the_ground(humanoid):
    assert humanoid.model.joints[1].shortname() == "JointModelFreeFlyer"
    conf = humanoid.configuration()
    for foot in ("lleg_effector_body", "rleg_effector_body"):
        assert abs(conf.get_transform_frame_to_world(foot).translation[2]) < 0.05


def test_unknown_robot_suggests_names():
    with pytest.raises(taskik.UnknownName, match="ur5"):
        taskik.robots.load("ur_5")


URDF = """<robot name="two_link">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="2" effort="1"/></joint>
</robot>"""


@pytest.mark.parametrize("floating", [False, True])
def test_load_urdf(tmp_path, floating):
    path = tmp_path / "two_link.urdf"
    path.write_text(URDF)
    robot = taskik.robots.load_urdf(path, floating_base=floating)
    assert robot.model.nv == (7 if floating else 1)
    assert np.allclose(robot.model.velocityLimit[-1], 2.0)
    conf = robot.configuration()
    assert conf.get_frame_id("l1") > 0


def test_load_urdf_missing_file(tmp_path):
    with pytest.raises(taskik.InvalidInput, match="not found"):
        taskik.robots.load_urdf(tmp_path / "nope.urdf")


def test_example_robot_data_robots_load():
    """example-robot-data is the 'robots' extra, and part of the test tools (dev extra)."""
    talos = taskik.robots.load("talos")
    assert talos.model.nv == 38
    conf = talos.configuration()
    assert conf.get_frame_id("left_sole_link") > 0
    assert isinstance(talos.visual_model, pin.GeometryModel)


def test_an_example_robot_data_robot_is_parsed_once_with_its_srdf(monkeypatch):
    """load() parses the URDF (and its meshes: most of a load's time) once; it used to build
    the robot a second time only to read the SRDF's path. (A second load is a copy of that
    parse: tests/test_robots_cache.py.)"""
    from pinocchio.robot_wrapper import RobotWrapper

    builds = []
    build = RobotWrapper.BuildFromURDF

    def counted(*args, **kwargs):
        builds.append(args[0])
        return build(*args, **kwargs)

    monkeypatch.setattr(RobotWrapper, "BuildFromURDF", staticmethod(counted))
    taskik.robots.clear_cache("go2")  # (another test of this process may have loaded it)
    go2 = taskik.robots.load("go2")
    assert len(builds) == 1, builds
    assert go2.srdf is not None and go2.srdf.name == "go2.srdf" and go2.srdf.is_file()
    assert len(go2.collision_model.collisionPairs) > 0  # the SRDF's disabled pairs removed
