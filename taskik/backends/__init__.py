"""Backends: turn an assembled step problem into a velocity v."""

from .qp import check_solver, default_solver, solve_qp, solve_qp_arrays

__all__ = ["check_solver", "default_solver", "solve_qp", "solve_qp_arrays"]
