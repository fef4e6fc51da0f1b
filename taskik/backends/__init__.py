"""Backends: turn an assembled step problem into a velocity v.

The array solvers exported here (:func:`solve_pinv`, :func:`solve_dls`, :func:`solve_dls_svd`,
:func:`solve_sdls`, :func:`solve_transpose`) check their arguments and refuse a step that
overflows; ``solve_ik`` calls the kernels of the submodules of the same names
(``taskik.backends.pseudoinverse``, ...), which check nothing, with the arrays it built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..exceptions import InvalidInput, check_finite_array, check_scalar
from . import dls as _dls
from . import pseudoinverse as _pinv
from . import sdls as _sdls
from . import transpose as _transpose
from .qp import check_solver, default_solver, solve_qp, solve_qp_arrays
from .regularized import RegularizedJacobian

#: Backends of ``solve_ik`` besides the default ``"qp"`` (unconstrained least squares).
UNCONSTRAINED_BACKENDS = ("transpose", "pinv", "dls", "sdls", "regularized")


def _system(
    who: str, A: npt.ArrayLike, c: npt.ArrayLike, c_name: str = "c"
) -> tuple[np.ndarray, np.ndarray]:
    """``A`` (m × n, m, n ≥ 1) and ``c`` (m) as finite real float arrays; InvalidInput
    naming ``who`` and the argument otherwise."""
    A = check_finite_array(A, f"{who}: A")
    if A.ndim != 2 or 0 in A.shape:
        raise InvalidInput(f"{who}: A must be a non-empty 2-D matrix (m × n), got shape {A.shape}")
    c = check_finite_array(c, f"{who}: {c_name}")
    if c.shape != (A.shape[0],):
        raise InvalidInput(
            f"{who}: {c_name} must have shape ({A.shape[0]},) (the rows of A), got {c.shape}"
        )
    return A, c


def _finite_step(who: str, kernel: Callable[..., np.ndarray], *args: Any) -> np.ndarray:
    """``kernel(*args)`` without numpy's warnings; InvalidInput when it overflows or its
    matrix is singular."""
    with np.errstate(over="raise", invalid="raise", divide="ignore", under="ignore"):
        try:
            v = kernel(*args)
        except FloatingPointError as exc:
            raise InvalidInput(
                f"{who}: the step overflows ({exc}): A or its right-hand side is too large"
            ) from exc
        except np.linalg.LinAlgError as exc:
            raise InvalidInput(f"{who}: the system cannot be solved ({exc}); add damping") from exc
    if not np.all(np.isfinite(v)):
        raise InvalidInput(f"{who}: the step overflows: A or its right-hand side is too large")
    return v


def solve_pinv(
    A: npt.ArrayLike, c: npt.ArrayLike, rcond: float = _pinv.DEFAULT_RCOND
) -> np.ndarray:
    """``v = A⁺ c``, singular values below ``rcond · σ_max`` dropped (the minimum-norm
    least-squares solution, n), with ``A⁺ = Σ_{σ_i > rcond σ_max} σ_i⁻¹ v_i u_iᵀ``; ``A``
    (m × n) and ``c`` (m) finite and real, ``rcond`` in [0, 1) (:class:`InvalidInput`
    otherwise). See ``taskik.backends.pseudoinverse``."""
    A, c = _system("solve_pinv", A, c)
    rcond = check_scalar(rcond, "solve_pinv: rcond", 0.0, 1.0, high_open=True)
    return _finite_step("solve_pinv", _pinv.solve_pinv, A, c, rcond)


def solve_dls(A: npt.ArrayLike, c: npt.ArrayLike, damping: float | npt.ArrayLike) -> np.ndarray:
    """``v = (AᵀA + W_n)⁻¹ Aᵀ c`` (n): damped least squares with ``W_n`` the scalar
    ``damping`` ``λ²`` times I, or ``diag(damping)`` (n), finite and ≥ 0; ``A`` (m × n) and
    ``c`` (m) finite and real (:class:`InvalidInput` otherwise, or when ``AᵀA + W_n`` is
    singular). See ``taskik.backends.dls``."""
    A, c = _system("solve_dls", A, c)
    if np.ndim(damping) == 0:
        damping = check_scalar(damping, "solve_dls: damping", 0.0)
    else:
        damping = check_finite_array(damping, "solve_dls: damping", (A.shape[1],))
        if damping.min() < 0.0:
            raise InvalidInput(f"solve_dls: damping must be >= 0, got {damping.min()!r}")
    return _finite_step("solve_dls", _dls.solve_dls, A, c, damping)


def solve_dls_svd(A: npt.ArrayLike, c: npt.ArrayLike, lam: float) -> np.ndarray:
    """``v = Σ σ_i/(σ_i² + λ²) (u_iᵀ c) v_i`` (n), the SVD form of damped least squares
    (Buss, eq. 14); ``A`` (m × n) and ``c`` (m) finite and real, ``lam`` finite and ≥ 0
    (:class:`InvalidInput` otherwise). See ``taskik.backends.dls``."""
    A, c = _system("solve_dls_svd", A, c)
    lam = check_scalar(lam, "solve_dls_svd: lam", 0.0)
    return _finite_step("solve_dls_svd", _dls.solve_dls_svd, A, c, lam)


def solve_sdls(
    A: npt.ArrayLike,
    e: npt.ArrayLike,
    starts: npt.ArrayLike | None = None,
    gamma_max: float = _sdls.DEFAULT_GAMMA_MAX,
    rcond: float = 1e-12,
) -> np.ndarray:
    """Joint change ``Δθ`` (n) of selectively damped least squares (Buss and Kim) for
    ``A Δθ ≈ e``: ``A`` (m × n) and ``e`` (m) finite and real, ``starts`` None or the first
    row of each row group (increasing integers from 0, below m), ``gamma_max`` (rad) finite
    and > 0, ``rcond`` in [0, 1) (:class:`InvalidInput` otherwise). See
    ``taskik.backends.sdls``."""
    A, e = _system("solve_sdls", A, e, "e")
    m = A.shape[0]
    if starts is not None:
        raw = np.asarray(starts) if not isinstance(starts, str | bytes) else np.array(None)
        if (
            raw.dtype.kind not in "iu"
            or raw.ndim != 1
            or not len(raw)
            or raw[0] != 0
            or raw[-1] >= m
            or np.any(np.diff(raw) <= 0)
        ):
            raise InvalidInput(
                f"solve_sdls: starts must be the first rows of the row groups: increasing "
                f"integers from 0, below the {m} rows of A, got {starts!r}"
            )
        starts = raw.astype(np.intp)
    gamma_max = check_scalar(gamma_max, "solve_sdls: gamma_max", 0.0, low_open=True)
    rcond = check_scalar(rcond, "solve_sdls: rcond", 0.0, 1.0, high_open=True)
    return _finite_step("solve_sdls", _sdls.solve_sdls, A, e, starts, gamma_max, rcond)


def solve_transpose(A: npt.ArrayLike, c: npt.ArrayLike) -> np.ndarray:
    """``v = α Aᵀ c`` (n) with Williams' step ``α = ⟨c, AAᵀc⟩ / ‖AAᵀc‖²`` (0 when
    ``AAᵀc = 0``); ``A`` (m × n) and ``c`` (m) finite and real (:class:`InvalidInput`
    otherwise, or when the step overflows). See ``taskik.backends.transpose``."""
    A, c = _system("solve_transpose", A, c)
    return _finite_step("solve_transpose", _transpose.solve_transpose, A, c)


__all__ = [
    "UNCONSTRAINED_BACKENDS",
    "RegularizedJacobian",
    "check_solver",
    "default_solver",
    "solve_dls",
    "solve_dls_svd",
    "solve_pinv",
    "solve_qp",
    "solve_qp_arrays",
    "solve_sdls",
    "solve_transpose",
]
