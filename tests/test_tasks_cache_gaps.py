"""The work the tasks save (caches, fast paths) and the exact tolerance of a rotation.

A task's per-model data (a frame's index, a posture's layout, a coupling's indices) is
computed once per model; a manipulability gradient once per configuration update; a
posture target is checked once; costs given as plain numbers and pose targets given as a
plain ``pin.SE3`` skip the array checks. The tests count the calls of the work that a
cache or a fast path saves: the results are the same either way, only the work differs.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from spies import counting

from taskik import Configuration, FrameTask, InvalidInput, PostureTask
from taskik.tasks import _frames, posture, task
from taskik.tasks._frames import FrameRef
from taskik.tasks.joint_coupling import JointCouplingTask
from taskik.tasks.manipulability import ManipulabilityTask


# ------------------------------------------------------------------ frame references
def test_a_frame_index_is_looked_up_once_per_model(monkeypatch, ur5):
    conf = ur5.configuration()
    ref = FrameRef("tool0")
    lookups = counting(monkeypatch, conf, "get_frame_id")
    first = ref.id(conf)
    assert ref.id(conf) == first == ur5.model.getFrameId("tool0")
    assert len(lookups) == 1


# ------------------------------------------------------------- pose target checks
def _set_and_count_array_checks(monkeypatch, target):
    checks = counting(monkeypatch, _frames, "check_rotation")
    task_ = FrameTask("tool0")
    task_.set_target(target)
    return task_, len(checks)


def test_a_subclass_of_se3_is_checked_entry_by_entry(monkeypatch):
    """Only an exact ``pin.SE3`` takes the plain-float fast check; a subclass (which may
    change what its accessors return) goes through the array checks."""

    class Pose(pin.SE3):
        pass

    target = Pose(np.eye(3), np.array([0.1, 0.2, 0.3]))
    task_, checks = _set_and_count_array_checks(monkeypatch, target)
    assert checks == 1
    assert type(task_.target) is pin.SE3
    assert np.array_equal(task_.target.translation, [0.1, 0.2, 0.3])


@pytest.mark.parametrize("p", [(1e308, 1e308, 0.0), (0.0, 1e308, 1e308)])
def test_huge_finite_translations_go_to_the_array_check_which_names_the_bound(monkeypatch, p):
    """Entries whose float sum overflows are finite all the same: the fast check cannot
    tell, so the array check decides; a target that far (beyond 1e150 m, solve_posture's
    bound) would overflow the squared error, and is refused with the bound named."""
    target = pin.SE3(np.eye(3), np.array(p))
    with pytest.raises(InvalidInput, match="beyond 1e\\+150 .* overflows a float"):
        _set_and_count_array_checks(monkeypatch, target)
    near = pin.SE3(np.eye(3), np.array(p) * 1e-159)  # (1e149 m: within the bound)
    task_, checks = _set_and_count_array_checks(monkeypatch, near)
    assert checks == 0 and np.array_equal(task_.target.translation, near.translation)


def test_an_ordinary_pose_skips_the_array_checks(monkeypatch):
    target = pin.SE3(pin.utils.rpyToMatrix(0.1, -0.2, 0.3), np.array([0.3, -0.1, 0.2]))
    task_, checks = _set_and_count_array_checks(monkeypatch, target)
    assert checks == 0
    assert task_.target.isApprox(target)


#: Rotations whose rows are orthogonal to exactly the tolerance 1e-6 (one product of rows
#: is 1 · 1e-6; every other term is well inside it).
TIED_ROTATIONS = {
    "rows 1 and 2": [[1.0, 0.0, 0.0], [1e-6, 1.0, 0.0], [0.0, 0.0, 1.0]],
    "rows 1 and 3": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1e-6, 0.0, 1.0]],
    "rows 2 and 3": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1e-6, 1.0]],
}


@pytest.mark.parametrize("rows", list(TIED_ROTATIONS))
def test_rows_orthogonal_to_exactly_the_tolerance_pass_the_fast_check(monkeypatch, rows):
    """The orthogonality tolerance is inclusive: rows whose product is exactly 1e-6 are a
    rotation for the fast check, without the array checks."""
    R = np.array(TIED_ROTATIONS[rows])
    task_, checks = _set_and_count_array_checks(monkeypatch, pin.SE3(R, np.zeros(3)))
    assert checks == 0
    assert np.array_equal(task_.target.rotation, R)


def test_a_matrix_off_by_exactly_the_tolerance_is_a_rotation():
    """``|RᵀR − I| ≤ 1e-6`` is accepted, equality included, for a 4×4 matrix target."""
    H = np.eye(4)
    H[:3, :3] = TIED_ROTATIONS["rows 1 and 2"]
    assert np.abs(H[:3, :3].T @ H[:3, :3] - np.eye(3)).max() == 1e-6
    task_ = FrameTask("tool0")
    task_.set_target(H)
    assert np.array_equal(task_.target.homogeneous, H)
    H[1, 0] = 2e-6
    with pytest.raises(InvalidInput, match="not a rotation matrix"):
        task_.set_target(H)


# --------------------------------------------------------------------- plain costs
@pytest.mark.parametrize("cost", [0, 0.0, 0.5, 3, 2.5])
def test_a_plain_number_cost_skips_the_array_checks(monkeypatch, cost):
    """Python ints and floats ≥ 0 (zero, below and above 1) are taken as they are."""
    checks = counting(monkeypatch, task, "check_finite_array")
    t = PostureTask(cost=cost)
    t.cost = cost
    assert checks == []
    assert t.cost.dtype == float and float(t.cost) == cost


def test_a_numpy_cost_goes_through_the_array_checks(monkeypatch):
    checks = counting(monkeypatch, task, "check_finite_array")
    t = PostureTask(cost=np.float64(0.5))
    assert len(checks) == 1
    assert float(t.cost) == 0.5


# ------------------------------------------------------------------- posture layouts
@pytest.fixture
def fresh_layouts(monkeypatch):
    """An empty posture layout cache, and the count of layouts computed."""
    monkeypatch.setattr(posture, "_LAYOUTS", {})
    return counting(monkeypatch, posture, "actuated_velocity_indices")


def test_postures_on_one_model_share_its_layout(fresh_layouts, ur5, panda):
    """Postures built anew (a task list rebuilt each step) reuse the layout of their model;
    a model met before another one is still known."""
    confs = {"ur5": ur5.configuration(), "panda": panda.configuration()}
    for name in ("ur5", "panda", "ur5", "panda", "ur5"):
        t = PostureTask()
        t.set_target_from_configuration(confs[name])
        e, J = t.compute_error_and_jacobian(confs[name])
        assert J.shape == (confs[name].nv, confs[name].nv)
    assert len(fresh_layouts) == 2


def test_the_layout_cache_holds_at_most_16_models(fresh_layouts, planar_2r):
    models = [pin.Model(planar_2r.model) for _ in range(17)]
    for model in models:
        t = PostureTask()
        assert t.selection(_configuration(model)) is not None
    assert len(fresh_layouts) == 17
    assert 1 <= len(posture._LAYOUTS) <= 16


def _configuration(model):
    return Configuration(model, pin.neutral(model))


def calls_in_three_steps(monkeypatch, robot, watched):
    """The calls of ``watched(conf)`` (an owner and a name) in three error-and-Jacobian
    evaluations of a PostureTask whose target ``robot.q0`` was set without a configuration."""
    conf = robot.configuration()
    t = PostureTask()
    t.set_target(robot.q0)
    calls = counting(monkeypatch, *watched(conf))
    for _ in range(3):
        t.compute_error_and_jacobian(conf)
    return calls


def test_a_posture_binds_to_its_model_once(monkeypatch, ur5):
    layouts = calls_in_three_steps(monkeypatch, ur5, lambda conf: (posture, "_layout"))
    assert len(layouts) == 1


def test_a_target_set_without_a_configuration_is_checked_once(monkeypatch, humanoid):
    checks = calls_in_three_steps(monkeypatch, humanoid, lambda conf: (conf, "check_q"))
    assert len(checks) == 1


@pytest.mark.parametrize("how", ["set_target with its configuration", "from the configuration"])
def test_a_target_checked_when_set_is_not_checked_again(monkeypatch, humanoid, how):
    conf = humanoid.configuration()
    t = PostureTask()
    if how == "from the configuration":
        t.set_target_from_configuration(conf)
    else:
        t.set_target(humanoid.q0, conf)
    checks = counting(monkeypatch, conf, "check_q")
    e, _ = t.compute_error_and_jacobian(conf)
    assert checks == []
    assert np.allclose(e, 0.0)


# ---------------------------------------------------------------- joint couplings
def test_a_coupling_of_one_dof_joints_needs_no_lie_group_difference(monkeypatch, ur5):
    """Revolute joints: ``d = q − q_ref`` and a constant Jacobian, without
    ``pin.difference`` or ``pin.dDifference``; the joints are looked up once."""
    conf = ur5.configuration(ur5.q0 + 0.1)
    t = JointCouplingTask(["shoulder_lift_joint", "elbow_joint"], [[-2.0, 1.0]])
    differences = counting(monkeypatch, pin, "difference")
    derivatives = counting(monkeypatch, pin, "dDifference")
    lookups = counting(monkeypatch, conf, "get_joint_id")
    for _ in range(3):
        e, J = t.compute_error_and_jacobian(conf)
    assert differences == [] and derivatives == []
    assert len(lookups) == 2
    d = conf.q[[1, 2]] - pin.neutral(ur5.model)[[1, 2]]
    assert e == pytest.approx([2.0 * d[0] - d[1]])
    assert np.array_equal(J[0], [0.0, -2.0, 1.0, 0.0, 0.0, 0.0])


# ------------------------------------------------------------------ manipulability
def test_the_manipulability_gradient_is_computed_once_per_update(monkeypatch, ur5):
    conf = ur5.configuration(ur5.q0 + 0.2)
    t = ManipulabilityTask("tool0", target=1.0)
    hessians = counting(monkeypatch, pin, "computeJointKinematicHessians")
    first = t.compute_error_and_jacobian(conf)
    second = t.compute_error_and_jacobian(conf)
    assert len(hessians) == 1
    assert np.array_equal(first[1], second[1])
    conf.update(ur5.q0 + 0.3)
    t.compute_error_and_jacobian(conf)
    assert len(hessians) == 2
