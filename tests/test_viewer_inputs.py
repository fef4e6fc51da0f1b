"""The viewer's drawing functions refuse bad input with an InvalidInput naming it (the
fuzzer's findings: bare AttributeError/TypeError/ArgumentError, and NaN, negative, zero,
bool or complex radii and plate extents drawn as given)."""

from __future__ import annotations

import math

import pytest

import taskik
from taskik import viewer


@pytest.mark.parametrize("radius", [math.nan, math.inf, -1.0, 0.0, True, 0.03 + 1j, "abc"])
def test_skeleton_radius_must_be_a_positive_number(ur5, radius):
    with pytest.raises(taskik.InvalidInput, match="radius"):
        viewer.skeleton_shapes(ur5.model, radius)


def test_skeleton_needs_a_model_and_robot_shapes_a_robot(ur5):
    for bad in (None, "ur5", ur5.model.createData()):
        with pytest.raises(taskik.InvalidInput, match="pinocchio.Model"):
            viewer.skeleton_shapes(bad)
    for bad in (None, "ur5", ur5.model):
        with pytest.raises(taskik.InvalidInput, match="Robot"):
            viewer.robot_shapes(bad)
    assert viewer.skeleton_shapes(ur5.model, 0.02)[0].radius == 0.02


def test_geometry_shapes_needs_a_geometry_model_and_a_callable_progress(ur5):
    capsules = taskik.geometry.fit_capsules(ur5.model, 0.03)
    for bad in (None, ur5.model, "abc"):
        with pytest.raises(taskik.InvalidInput, match="GeometryModel"):
            viewer.geometry_shapes(bad)
    with pytest.raises(taskik.InvalidInput, match="progress"):
        viewer.geometry_shapes(capsules, 3)
    assert len(viewer.geometry_shapes(capsules, lambda done, total: None)) > 0


@pytest.mark.parametrize("extent", [math.nan, math.inf, -1.0, 0.0, False, 4.0 + 1j, None])
def test_obstacle_plate_extent_must_be_a_positive_number(extent):
    floor = taskik.geometry.halfspace("floor", [0.0, 0.0, 1.0], -0.5)
    with pytest.raises(taskik.InvalidInput, match="extent"):
        viewer.obstacle_shapes(floor, extent)


def test_obstacle_shapes_needs_an_obstacle():
    import coal

    for bad in (None, "abc", coal.Sphere(0.1)):
        with pytest.raises(taskik.InvalidInput, match="Obstacle"):
            viewer.obstacle_shapes(bad)
