"""Helpers of the frame tasks (taskik/tasks/_frames.py): exact quarter-turn rotations (entries
exactly 0 and ±1) on the fast check of a pose target, the tolerance of a homogeneous
matrix's last row, and the two descriptors a task class is built with (a frame attribute
that reads back as a FrameRef, pink's name for the target)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from taskik import FrameTask, InvalidInput, PostureTask
from taskik.tasks import _frames
from taskik.tasks._frames import FrameName, FrameRef, as_se3, target_alias

#: Rotations whose entries are exactly 0 and ±1: quarter and half turns, and the cyclic
#: permutation of the axes (x → y → z → x).
EXACT_ROTATIONS = [
    np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),  # +90° about z
    np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),  # +90° about x
    np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),  # +90° about y
    np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),  # cyclic permutation
    np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),  # its inverse
    np.diag([-1.0, -1.0, 1.0]),  # half turn about z
]


@pytest.mark.parametrize("k", range(len(EXACT_ROTATIONS)))
def test_exact_quarter_turns_are_rotations_on_the_fast_check(monkeypatch, k):
    """Zero entries (a zero cofactor) and a product of three off-diagonal ones are no
    special case: the plain-float check accepts them without the array checks."""

    def not_reached(*args, **kwargs):
        raise AssertionError("the slow check ran for a valid pose")

    R = EXACT_ROTATIONS[k]
    assert np.allclose(R.T @ R, np.eye(3)) and np.linalg.det(R) == pytest.approx(1.0)
    monkeypatch.setattr(_frames, "check_rotation", not_reached)
    monkeypatch.setattr(_frames, "check_finite_array", not_reached)
    target = pin.SE3(R, np.array([0.3, -0.1, 0.2]))
    task = FrameTask("tool0")
    task.set_target(target)
    assert np.array_equal(task.target.homogeneous, target.homogeneous)


@pytest.mark.parametrize("k", range(len(EXACT_ROTATIONS)))
def test_exact_quarter_turns_mirrored_are_refused(k):
    """The same matrices with one row negated have orthonormal rows and determinant −1."""
    R = EXACT_ROTATIONS[k].copy()
    R[k % 3] *= -1.0
    with pytest.raises(InvalidInput, match="not a rotation matrix"):
        as_se3(pin.SE3(R, np.zeros(3)))


def test_the_last_row_of_a_homogeneous_matrix_is_checked_to_1e_9_inclusive():
    M = np.eye(4)
    M[:3, :3] = EXACT_ROTATIONS[0]
    for off in (1e-9, 5e-10):
        M[3, 0] = off
        assert np.array_equal(as_se3(M).homogeneous[:3], M[:3])
    M[3, 0] = 2e-9
    with pytest.raises(InvalidInput, match="last row"):
        as_se3(M)


class Named:
    """A task-like class built with the descriptors when the test runs."""

    def __init__(self, **frames):
        for name, value in frames.items():
            setattr(self, name, value)


def test_a_frame_attribute_reads_back_as_a_frame_ref_per_attribute():
    class TwoFrames(Named):
        frame = FrameName()
        root = FrameName()

    assert isinstance(TwoFrames.frame, FrameName)  # on the class: the descriptor itself
    obj = TwoFrames(frame="tool0", root="base_link")
    assert isinstance(obj.frame, FrameRef) and isinstance(obj.root, FrameRef)
    assert (obj.frame, obj.root) == ("tool0", "base_link")
    obj.root = FrameRef("wrist_1_link")
    assert obj.root == "wrist_1_link" and obj.frame == "tool0"  # the other one untouched
    with pytest.raises(InvalidInput, match="frame name must be a string"):
        obj.frame = 3


def test_pinks_target_name_reads_sets_and_clears_the_target():
    class Targeted:
        target_q = target_alias("target_q")

        def __init__(self):
            self.target = None
            self.calls = []

        def set_target(self, value):
            self.calls.append(value)
            self.target = np.asarray(value, dtype=float) * 2.0  # (what set_target makes of it)

    obj = Targeted()
    assert obj.target_q is None
    obj.target_q = [1.0, 2.0]
    assert obj.calls == [[1.0, 2.0]] and obj.target_q.tolist() == [2.0, 4.0]
    assert obj.target_q is obj.target
    obj.target_q = None  # clears the target without calling set_target
    assert obj.target is None and obj.target_q is None and len(obj.calls) == 1
    doc = Targeted.target_q.__doc__
    assert "target_q" in doc and "target" in doc.replace("target_q", "")
    assert "target_q" in PostureTask.target_q.__doc__
