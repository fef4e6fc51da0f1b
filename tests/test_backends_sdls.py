"""Selectively damped least squares against a plain transcription of Buss and Kim's
algorithm, and its bounds."""

from __future__ import annotations

import numpy as np
import pytest

import taskik
from taskik import solve_ik
from taskik.backends.pseudoinverse import solve_pinv
from taskik.backends.sdls import solve_sdls


def sdls_reference(A, e, group_size, gamma_max):
    """Buss and Kim (2005), one singular vector at a time, written with loops."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    m, n = A.shape
    k = m // group_size

    def clamp_max_abs(w, d):
        peak = np.abs(w).max()
        return w * d / peak if peak > d else w

    dtheta = np.zeros(n)
    for i in range(len(s)):
        u, v = U[:, i], Vt[i]
        alpha = u @ e
        N = sum(np.linalg.norm(u[g * group_size : (g + 1) * group_size]) for g in range(k))
        M = 0.0
        for j in range(n):
            rho = sum(np.linalg.norm(A[g * group_size : (g + 1) * group_size, j]) for g in range(k))
            M += abs(v[j]) * rho
        M /= s[i]
        gamma = gamma_max * min(1.0, N / M)
        dtheta += clamp_max_abs(alpha / s[i] * v, gamma)
    return clamp_max_abs(dtheta, gamma_max)


@pytest.mark.parametrize("scale", [0.01, 0.3, 3.0])
def test_sdls_matches_the_paper_algorithm(rng, scale):
    for shape in ((6, 7), (12, 16), (6, 4)):
        A = rng.normal(size=shape)
        A[2] = A[0] + 1e-3 * A[2]  # one nearly singular direction
        e = scale * rng.normal(size=shape[0])
        starts = np.arange(0, shape[0], 3)
        ref = sdls_reference(A, e, 3, np.pi / 4)
        assert np.allclose(solve_sdls(A, e, starts, np.pi / 4), ref, atol=1e-12)


def test_sdls_is_pinv_for_small_errors_and_bounded_for_large(rng):
    A = rng.normal(size=(6, 7))
    e = 1e-6 * rng.normal(size=6)
    assert np.allclose(solve_sdls(A, e), solve_pinv(A, e), atol=1e-15)
    big = 100.0 * rng.normal(size=6)
    assert np.abs(solve_sdls(A, big, gamma_max=0.3)).max() <= 0.3 + 1e-12


def test_sdls_backend_groups_end_effectors_and_bounds_the_step(rng):
    robot = taskik.robots.load("buss_double_y")
    conf = robot.configuration(robot.random_configuration(rng))
    tasks = []
    for frame in robot.end_effectors:
        task = taskik.PositionTask(frame)
        task.set_target(conf.get_transform_frame_to_world(frame).translation + 2.0)
        tasks.append(task)
    dt = 0.005
    A = taskik.build_ik(conf, tasks, dt, limits=[]).A
    e = np.concatenate([t.compute_error(conf) for t in tasks])
    v = solve_ik(conf, tasks, dt, backend="sdls", gamma_max=0.2)
    assert np.allclose(v * dt, sdls_reference(A, e, 3, 0.2), atol=1e-12)
    assert np.abs(v).max() * dt <= 0.2 + 1e-12


def test_sdls_final_clamp_bounds_the_sum_of_the_clamped_directions(rng):
    """Each φ_i is clamped to γ_i ≤ γ_max, but their sum can exceed γ_max: the final
    ClampMaxAbs brings it back."""
    exceeded = 0
    for _ in range(20):
        A = rng.normal(size=(6, 7))
        e = 50.0 * rng.normal(size=6)
        dtheta = solve_sdls(A, e, gamma_max=0.3)
        assert np.abs(dtheta).max() <= 0.3 + 1e-12
        assert np.allclose(dtheta, sdls_reference(A, e, 3, 0.3), atol=1e-12)
        # the sum of the φ_i before the final clamp: γ_max is only their own bound
        U, s, Vt = np.linalg.svd(A, full_matrices=False)
        phis = [solve_sdls(A, (U[:, i] @ e) * U[:, i], gamma_max=0.3) for i in range(len(s))]
        exceeded += np.abs(sum(phis)).max() > 0.3
    assert exceeded >= 5  # the final clamp was needed in these cases


def test_sdls_default_groups_are_triples_or_single_rows(rng):
    for m, size in ((6, 3), (9, 3), (5, 1), (4, 1)):
        A = rng.normal(size=(m, 7))
        e = 20.0 * rng.normal(size=m)  # large: the groups change the damping
        ref = sdls_reference(A, e, size, 0.5)
        assert np.allclose(solve_sdls(A, e, gamma_max=0.5), ref, atol=1e-12)
        other = sdls_reference(A, e, 1 if size == 3 else m, 0.5)
        assert not np.allclose(ref, other, atol=1e-6)


def test_sdls_of_a_zero_matrix_is_no_motion():
    assert np.array_equal(solve_sdls(np.zeros((3, 4)), np.ones(3)), np.zeros(4))
