"""The frame, CoM and direction tasks: which plan the solvers reuse for them when a task
list is built anew at every step (their own subclasses included), and the shortest
distances and directions they accept (one ``MIN_DISTANCE``, 1 nm)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik import ComTask, FrameTask, InvalidInput, OrientationTask, PositionTask
from taskik.tasks import AxisAlignmentTask, DistanceTask, LookAtTask, RelativeFrameTask
from taskik.tasks.distance import MIN_DISTANCE

DT = 0.01


def _moved_pose(conf, frame):
    pose = conf.get_transform_frame_to_world(frame)
    rotation = pin.exp3(np.array([0.1, -0.2, 0.05])) @ pose.rotation
    return pin.SE3(rotation, pose.translation + np.array([0.05, -0.03, 0.02]))


def _frame(conf, cls=FrameTask):
    task = cls("tool0")
    task.set_target(_moved_pose(conf, "tool0"))
    return task


def _position(conf, cls=PositionTask):
    task = cls("tool0")
    task.set_target(conf.get_transform_frame_to_world("tool0").translation + [0.05, -0.03, 0.02])
    return task


def _orientation(conf, cls=OrientationTask):
    task = cls("tool0")
    task.set_target(_moved_pose(conf, "tool0"))
    return task


def _relative(conf, cls=RelativeFrameTask):
    task = cls("tool0", "shoulder_link")
    pose = conf.get_transform("tool0", "shoulder_link")
    task.set_target(pin.SE3(pose.rotation, pose.translation + np.array([0.04, 0.0, -0.03])))
    return task


def _com_of(conf, cls=ComTask):
    task = cls()
    task.set_target(conf.com + np.array([0.02, 0.01, -0.01]))
    return task


#: Each built-in task keyed on its structure: (its class, a task on the UR5 with a target
#: away from the current configuration, built with the given class).
BUILT_IN = {
    "com": (ComTask, _com_of),
    "frame": (FrameTask, _frame),
    "position": (PositionTask, _position),
    "orientation": (OrientationTask, _orientation),
    "relative frame": (RelativeFrameTask, _relative),
}


def rows_of(cls, rows):
    """A subclass of a built-in task that keeps only some of its rows (so it has other rows
    than its base class: the solvers must not reuse the base class's plan for it)."""

    class Rows(cls):
        dim = len(rows)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.cost = 1.0  # one weight per kept row

        def compute_error_and_jacobian(self, configuration):
            e, J = super().compute_error_and_jacobian(configuration)
            return e[list(rows)], J[list(rows)]

    return Rows


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_built_in_task_built_anew_each_step_reuses_one_plan(name, ur5):
    cls, make = BUILT_IN[name]
    conf = ur5.configuration(ur5.q0 + 0.1)
    fresh = ur5.configuration(ur5.q0 + 0.1)
    for _ in range(3):
        task = make(conf, cls)
        assert task.plan_key() == make(conf, cls).plan_key()  # its structure, not its identity
        v = taskik.solve_ik(conf, [task], DT, limits=[])
        assert np.allclose(v, taskik.solve_ik(fresh, [task], DT, limits=[]), atol=1e-12)
        assert np.linalg.norm(v) > 1e-3
    assert len(conf.plans) == 1


@pytest.mark.parametrize("name", BUILT_IN)
def test_subclasses_of_a_built_in_task_with_other_rows_get_plans_of_their_own(name, ur5):
    """The base class, then two subclasses that keep fewer of its rows, each in a list built
    anew: every step is the step of a configuration that never saw the others."""
    cls, make = BUILT_IN[name]
    dim = cls.dim
    conf = ur5.configuration(ur5.q0 + 0.1)
    kinds = [cls, rows_of(cls, range(dim - 1)), rows_of(cls, [dim - 1])]
    for kind in kinds:
        task = make(conf, kind)
        if kind is not cls:
            assert task.plan_key() == id(task)  # a subclass is keyed on its identity
        v = taskik.solve_ik(conf, [task], DT, limits=[])
        alone = taskik.solve_ik(ur5.configuration(ur5.q0 + 0.1), [task], DT, limits=[])
        assert np.allclose(v, alone, atol=1e-12), kind.__name__
    assert len(conf.plans) == len(kinds)


def prismatic_model() -> pin.Model:
    """One prismatic joint along x (q = its x, in m) carrying the frame "slider"; the
    frame "origin" is fixed at the world origin."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelPX(), pin.SE3.Identity(), "slide")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.1), pin.SE3.Identity())
    model.addFrame(pin.Frame("slider", joint, 0, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    model.addFrame(pin.Frame("origin", 0, 0, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    return model


def test_frames_one_min_distance_apart_still_have_a_distance_row():
    """ "Below" MIN_DISTANCE the direction is undefined: at MIN_DISTANCE it is defined."""
    conf = taskik.Configuration(prismatic_model(), np.array([MIN_DISTANCE]))
    task = DistanceTask("slider", "origin", 0.1)
    e, J = task.compute_error_and_jacobian(conf)
    assert e.tolist() == [0.1 - MIN_DISTANCE]
    assert J.tolist() == [[1.0]]  # the slider moves straight away from the origin
    conf.update(np.array([0.5 * MIN_DISTANCE]))
    with pytest.raises(InvalidInput, match="the direction between them is undefined"):
        task.compute_error_and_jacobian(conf)


def test_a_point_one_nanometre_from_the_eye_can_be_looked_at():
    conf = taskik.Configuration(prismatic_model(), np.zeros(1))
    task = LookAtTask("slider", axis=[1.0, 0.0, 0.0], target=[MIN_DISTANCE, 0.0, 0.0])
    e, J = task.compute_error_and_jacobian(conf)
    assert np.allclose(e, 0.0) and J.shape == (3, 1)
    task.set_target([0.5 * MIN_DISTANCE, 0.0, 0.0])
    with pytest.raises(InvalidInput, match="no direction to look at"):
        task.compute_error_and_jacobian(conf)


def test_axes_and_directions_one_nanometre_long_are_normalised():
    task = AxisAlignmentTask("tool0", axis=[0.0, MIN_DISTANCE, 0.0], direction=[0, 0, 1e-9])
    assert task.axis.tolist() == [0.0, 1.0, 0.0]
    assert task.target.tolist() == [0.0, 0.0, 1.0]
    with pytest.raises(InvalidInput, match="direction must be a non-zero 3-vector"):
        task.set_target([0.0, 0.0, 0.5e-9])


def test_integer_frame_costs_are_weights_that_later_fractions_replace():
    task = FrameTask("tool0", 1, 2)
    assert task.cost.dtype == float
    task.set_position_cost(0.5)
    task.set_orientation_cost(0.25)
    assert task.cost.tolist() == [0.5, 0.5, 0.5, 0.25, 0.25, 0.25]


@pytest.mark.parametrize("task_type", [FrameTask, RelativeFrameTask])
@pytest.mark.parametrize("costs", [([1.0, 2.0, 3.0], 0.5), (0.5, np.array([1.0, 2.0, 3.0]))])
def test_vector_frame_costs_keep_the_gain_and_lm_damping(task_type, costs):
    frames = ("tool0",) if task_type is FrameTask else ("tool0", "shoulder_link")
    task = task_type(*frames, *costs, gain=0.25, lm_damping=2.0)
    assert task.gain == 0.25 and task.lm_damping == 2.0
    position, orientation = costs
    expected = np.concatenate([np.broadcast_to(position, 3), np.broadcast_to(orientation, 3)])
    assert np.array_equal(task.cost, expected)
