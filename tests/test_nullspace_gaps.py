"""Rank-revealing factorisation of a level (taskik.nullspace): the least-squares fallback
when the normal equations of a rank-deficient level underflow, Q formed by LAPACK in place,
and the rows of constraints a basis removes entirely."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
import taskik.nullspace as nullspace
from taskik.hierarchy import LevelSplit
from taskik.nullspace import constraint_rows

DT = 0.01


# ------------------------------------------- the fallback of the rank-deficient form
def two_targets_for_one_point(ur5, cost):
    """(configuration, level): two position tasks of the tool point, 1 cm apart along x and
    y, in one level (six rows of rank 3 on six joints: neither rows nor columns
    independent)."""
    conf = ur5.configuration()
    tool = conf.get_transform_frame_to_world("tool0").translation
    a, b = taskik.PositionTask("tool0", cost), taskik.PositionTask("tool0", cost)
    a.set_target(tool + [0.01, 0.0, 0.0])
    b.set_target(tool + [0.0, 0.01, 0.0])
    return conf, [a, b]


def test_a_level_whose_normal_equations_underflow_gets_its_least_squares_step(ur5, monkeypatch):
    """Costs of 1e-300 without damping: the level's reduced normal matrix CᵀC underflows, so
    its Cholesky factorisation fails, and the step comes from a least-squares solve of C
    itself. It is the step of the same level with unit costs (costs only weight tasks in a
    level): the tool point goes halfway to each target."""
    failures = []
    dposv = nullspace._dposv

    def recorded(M, b):
        out = dposv(M, b)
        failures.append(out[2] != 0)
        return out

    monkeypatch.setattr(nullspace, "_dposv", recorded)
    conf, level = two_targets_for_one_point(ur5, 1e-300)
    v = taskik.solve_ik(conf, [level], DT, limits=[], damping=0.0)
    assert failures == [True]
    conf, level = two_targets_for_one_point(ur5, 1.0)
    np.testing.assert_allclose(v, taskik.solve_ik(conf, [level], DT, limits=[], damping=0.0))
    J = level[0].compute_jacobian(conf)
    np.testing.assert_allclose(J @ v * DT, [0.005, 0.005, 0.0], atol=1e-12)


@pytest.mark.parametrize("scale", [1e-162, 1e-170])
def test_level_split_of_tiny_rank_deficient_rows_is_least_squares(scale):
    """LevelSplit.solve without damping on a 3 × 4 matrix of rank 2 scaled down so far that
    its normal equations underflow: the minimum-norm least-squares solution all the same."""
    B = scale * np.array([[1.0, 2.0, 0.0, 1.0], [2.0, 4.0, 0.0, 2.0], [0.0, 1.0, 1.0, 0.0]])
    d = scale * np.array([1.0, 0.0, 1.0])
    split = LevelSplit(B)
    assert split.rank == 2
    z = split.solve(d, 0.0, None)
    np.testing.assert_allclose(z, [-0.2, 0.3, 0.7, -0.2], rtol=1e-12)
    # from w = Zᵀ v: the same fit of d, then the least ‖w + z‖, i.e. z = B⁺d − (I − B⁺B) w
    w = np.array([1.0, -1.0, 0.5, 2.0])
    np.testing.assert_allclose(split.solve(d, 0.0, w), [-0.825, 1.425, -0.425, -1.825], rtol=1e-12)


# ---------------------------------------------------------------- Q formed in place
@pytest.fixture
def lapack(monkeypatch):
    """Records dgeqp3's factor and each dorgqr call (the array given, the options)."""
    seen = {"qr": [], "dorgqr": []}
    dgeqp3, dorgqr = nullspace._dgeqp3, nullspace._dorgqr

    def factor(a):
        out = dgeqp3(a)
        seen["qr"].append(out[0])
        return out

    def form_q(a, tau, **options):
        seen["dorgqr"].append((a, options))
        return dorgqr(a, tau, **options)

    monkeypatch.setattr(nullspace, "_dgeqp3", factor)
    monkeypatch.setattr(nullspace, "_dorgqr", form_q)
    return seen


def test_a_square_level_forms_q_over_its_own_reflectors(lapack):
    """A square B: dorgqr overwrites the reflectors dgeqp3 returned, and the null-space
    basis is a view of that same buffer (no copy of any size)."""
    B = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    null = LevelSplit(B).null
    assert null.shape == (3, 1)
    np.testing.assert_allclose(B @ null, 0.0, atol=1e-14)
    ((a, options),) = lapack["dorgqr"]
    assert a is lapack["qr"][0]
    assert options.get("overwrite_a")
    assert np.shares_memory(null, a)


def test_a_wide_level_forms_q_in_one_fortran_buffer(lapack):
    """B with fewer rows than columns: the reflectors go into one r × r buffer in Fortran
    order, which dorgqr overwrites with Q (so the wrapper copies nothing)."""
    B = np.array([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    null = LevelSplit(B).null
    assert null.shape == (4, 2)
    np.testing.assert_allclose(B @ null, 0.0, atol=1e-14)
    ((a, options),) = lapack["dorgqr"]
    assert a.shape == (4, 4) and a.flags.f_contiguous
    assert options.get("overwrite_a")
    assert np.shares_memory(null, a)


# ------------------------------------------------------------------ constraint rows
def test_a_row_of_g_the_basis_removes_entirely_stays_a_zero_row():
    """A row of G orthogonal to every column of Z has the zero row in the level's
    coordinates: it stays zero (no division by its zero norm); other rows of G get unit
    norm, box rows are the rows of Z."""
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    G = np.array([[2.0, 0.0, 0.0], [0.0, 3.0, 4.0]])
    C = constraint_rows(np.array([1, 3, 4]), 3, Z, G)
    np.testing.assert_array_equal(C, [[1.0, 0.0], [0.0, 0.0], [0.6, 0.8]])
    raw = constraint_rows(np.array([3, 4]), 3, Z, G, unit=False)
    np.testing.assert_array_equal(raw, [[0.0, 0.0], [3.0, 4.0]])
