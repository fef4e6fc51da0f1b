"""Backends: turn an assembled step problem into a velocity v."""

from .dls import solve_dls, solve_dls_svd
from .pseudoinverse import solve_pinv
from .qp import check_solver, default_solver, solve_qp, solve_qp_arrays
from .regularized import RegularizedJacobian
from .sdls import solve_sdls
from .transpose import solve_transpose

#: Backends of ``solve_ik`` besides the default ``"qp"`` (unconstrained least squares).
UNCONSTRAINED_BACKENDS = ("transpose", "pinv", "dls", "sdls", "regularized")

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
