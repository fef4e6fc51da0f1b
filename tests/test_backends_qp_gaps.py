"""QP backend: the default solver's order of preference when DAQP is not installed (the
list of installed solvers is replaced for the test, nothing is uninstalled)."""

from __future__ import annotations

import pytest
import qpsolvers

import taskik
from taskik.backends import qp


@pytest.mark.parametrize(
    ("installed", "expected"),
    [
        (["daqp", "osqp", "proxqp", "quadprog"], "daqp"),
        (["osqp", "quadprog", "proxqp"], "proxqp"),  # without DAQP: ProxQP, then quadprog
        (["osqp", "quadprog"], "quadprog"),
        (["osqp"], "osqp"),
        (["cvxopt", "scs"], "cvxopt"),  # none of the preferred: the first installed
        (["scs"], "scs"),
    ],
)
def test_default_solver_is_the_first_installed_in_the_order_of_preference(
    monkeypatch, installed, expected
):
    assert qp.PREFERRED_SOLVERS == ("daqp", "proxqp", "quadprog", "osqp")
    monkeypatch.setattr(qpsolvers, "available_solvers", installed)
    assert qp.default_solver() == expected


def test_default_solver_without_any_qp_solver_says_what_to_install(monkeypatch):
    monkeypatch.setattr(qpsolvers, "available_solvers", [])
    with pytest.raises(taskik.InvalidInput, match=r"no QP solver is installed.*daqp"):
        qp.default_solver()
