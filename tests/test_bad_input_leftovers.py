"""Older entry points given what they cannot use: a task class instead of a task, a
regularization that is not a task list, unknown options of any QP solver, a dt whose 1/dt
overflows, package folders of the wrong type, a URDF with crossed limits or a zero axis, and
a configuration of another model: each a clear InvalidInput, never a bare TypeError,
ValueError or a problem full of NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import qpsolvers

import taskik
from taskik import FrameTask, InvalidConfiguration, InvalidInput, PostureTask, solve_posture
from taskik.problem import MIN_DT


@pytest.fixture
def posture(ur5):
    task = PostureTask()
    task.set_target(ur5.q0 + 0.3)
    return task


# ------------------------------------------------------------------ a class for an object
@pytest.mark.parametrize(
    "tasks, kwargs",
    [
        ([FrameTask], {}),
        ([[FrameTask]], {}),
        (FrameTask, {}),
        ([FrameTask], {"backend": "dls"}),
    ],
    ids=["list", "levels", "alone", "dls"],
)
def test_a_task_class_given_for_a_task_is_named(ur5, tasks, kwargs):
    # the plan cache called FrameTask.plan_key() on the class: a TypeError about `self`
    with pytest.raises(InvalidInput, match="the class FrameTask, not a FrameTask object"):
        taskik.solve_ik(ur5.configuration(), tasks, 0.05, **kwargs)


def test_solve_posture_names_a_task_class_and_a_bad_regularization(ur5, posture):
    conf = ur5.configuration()
    with pytest.raises(InvalidInput, match="the class FrameTask, not a FrameTask object"):
        solve_posture(conf, [FrameTask])
    for regularization in (5, "posture"):
        with pytest.raises(InvalidInput, match="regularization must be a list of Task"):
            solve_posture(conf, [posture], regularization=regularization)
    with pytest.raises(InvalidInput, match="regularization holds the class PostureTask"):
        solve_posture(conf, [posture], regularization=[PostureTask])


def test_one_regularization_task_is_taken_as_a_list_of_one(ur5):
    frame = FrameTask("tool0")
    frame.set_target(ur5.configuration(ur5.q0 + 0.2).get_transform_frame_to_world("tool0"))
    reg = PostureTask(cost=1e-3)
    reg.set_target(ur5.q0)
    alone = solve_posture(ur5.configuration(), [frame], regularization=reg, rng=0)
    listed = solve_posture(ur5.configuration(), [frame], regularization=[reg], rng=0)
    np.testing.assert_array_equal(alone.q, listed.q)
    assert alone.success


# ------------------------------------------------------------------ solver options
@pytest.mark.parametrize("solver", ["daqp", "osqp", "proxqp"])
def test_unknown_options_of_any_solver_are_named(ur5, posture, solver):
    if solver not in qpsolvers.available_solvers:
        pytest.skip(f"{solver} is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # qpsolvers' sparse-conversion warning for OSQP
        with pytest.raises(InvalidInput, match=r"does not accept the options \['not_an_option'\]"):
            taskik.solve_ik(ur5.configuration(), [posture], 0.05, solver=solver, not_an_option=3)


# ------------------------------------------------------------------ dt
@pytest.mark.parametrize("dt", [5e-324, 1e-310, MIN_DT / 2])
def test_a_dt_whose_inverse_overflows_is_refused(ur5, posture, dt):
    conf = ur5.configuration()
    with pytest.raises(InvalidInput, match="dt must be at least 5.56e-309"):
        taskik.build_ik(conf, [posture], dt)
    with pytest.raises(InvalidInput, match=r"dt \(s\) must be at least"):
        taskik.solve_ik(conf, [posture], dt)


def test_a_tiny_dt_that_is_accepted_gives_finite_arrays(ur5, posture):
    problem = taskik.build_ik(ur5.configuration(), [posture], 1e-300, limits=[])
    assert np.isfinite(problem.P).all() and np.isfinite(problem.r).all()
    assert np.abs(problem.r).max() > 1e299  # the rate e/dt, not clipped


# ------------------------------------------------------------------ URDF
URDF = """<robot name="r">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="{axis}"/>
    <limit lower="{lower}" upper="{upper}" effort="1" velocity="1"/></joint>
  <link name="l2"/>
  <joint name="slide" type="prismatic"><parent link="l1"/><child link="l2"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def write_urdf(folder, axis="0 0 1", lower=-1.0, upper=1.0):
    path = folder / "r.urdf"
    path.write_text(URDF.format(axis=axis, lower=lower, upper=upper))
    return path


def test_package_dirs_as_one_folder_or_a_list(tmp_path):
    path = write_urdf(tmp_path)
    one = taskik.robots.load_urdf(path, package_dirs=str(tmp_path))
    listed = taskik.robots.load_urdf(path, package_dirs=[tmp_path])
    assert one.model.nq == listed.model.nq == 2
    for bad in (3, [3], b"models", [None]):
        with pytest.raises(InvalidInput, match="package_dirs must be a folder or a list"):
            taskik.robots.load_urdf(path, package_dirs=bad)
    with pytest.raises(InvalidInput, match="srdf must be a file path or None"):
        taskik.robots.load_urdf(path, srdf=3)


def test_a_urdf_with_crossed_limits_is_refused_naming_the_joint(tmp_path):
    path = write_urdf(tmp_path, lower=1.0, upper=-1.0)
    with pytest.raises(InvalidInput, match="joint 'shoulder' has its lower limit 1 above"):
        taskik.robots.load_urdf(path)


def test_a_urdf_with_a_zero_axis_is_refused_naming_the_joint(tmp_path):
    path = write_urdf(tmp_path, axis="0 0 0")
    with pytest.raises(InvalidInput, match="joint 'shoulder' has a zero axis"):
        taskik.robots.load_urdf(path)
    robot = taskik.robots.load_urdf(write_urdf(tmp_path, axis="0 0.6 0.8"))  # unaligned: fine
    J = robot.configuration().get_frame_jacobian("l1")
    assert np.linalg.norm(J[:, 0]) > 0.5


# ------------------------------------------------------------------ another model's vectors
def test_a_configuration_of_another_model_is_said_to_be_one(ur5, panda):
    with pytest.raises(
        InvalidConfiguration,
        match=r"q has 7 values but the model 'ur5' has nq = 6: it belongs to another model",
    ):
        ur5.configuration(panda.q0)
    task = PostureTask()
    task.set_target(ur5.q0)
    with pytest.raises(
        InvalidInput, match="posture target has 6 values but the model 'panda' has nq = 7"
    ):
        taskik.solve_ik(panda.configuration(), [task], 0.05)


def test_a_velocity_or_several_configurations_given_for_q_are_said_to_be(humanoid, ur5):
    with pytest.raises(
        InvalidConfiguration, match=r"nv of the model 'humanoid' \(the size of a vel"
    ):
        humanoid.configuration(np.zeros(humanoid.model.nv))
    with pytest.raises(InvalidConfiguration, match="several configurations"):
        ur5.configuration(np.zeros((3, 6)))
