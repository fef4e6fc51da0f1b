"""Kinetic-energy regularisation: ``vᵀ M(q) v`` in place of ``‖v‖²``."""

from __future__ import annotations

import weakref

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dpotrf

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput
from .task import Task, check_cost


class KineticEnergyTask(Task):
    """Prefer steps of small kinetic energy: the term ``‖W Lᵀ v‖² = W² vᵀ M(q) v``.

    ``M(q)`` is the joint-space mass matrix (Pinocchio's CRBA, on the configuration's data
    and at its q; kg for translations, kg·m² for rotations) and ``M = L Lᵀ`` its Cholesky
    factor, so the term is ``2 W² E_k`` with the kinetic energy ``E_k = ½ vᵀ M v`` (J at
    unit v): a :class:`DampingTask` whose metric is the robot's inertia, which moves light
    links rather than heavy ones (the base, the torso). Error ``e = 0``; "Jacobian"
    ``J = Lᵀ`` (nv × nv), not the derivative of a task value. ``M`` and ``L`` are computed
    once per configuration update (one CRBA and one Cholesky factorisation: 11 µs on Talos,
    nv = 38, measured; a Talos step with this task instead of none took 1.27–1.29× as long).

    Args:
        cost: scalar weight ``W`` (1/√kg per (m/s), 1/√(kg·m²) per (rad/s)).
    """

    def __init__(self, cost: float = 1.0) -> None:
        # the configuration and update count of the cached factor
        self._key: tuple[weakref.ref[Configuration], int] | None = None
        self._U: np.ndarray  # (computed with _key)
        self._zeros = np.empty(0)
        super().__init__(cost=cost)

    def plan_key(self) -> object:
        """``(KineticEnergyTask,)``: its rows are nv whatever its frames and values
        (see :meth:`Task.plan_key`)."""
        return (KineticEnergyTask,) if type(self) is KineticEnergyTask else id(self)

    def _set_cost(self, value: npt.ArrayLike) -> None:
        cost = check_cost(value, None)
        if cost.ndim:
            raise InvalidInput(
                f"KineticEnergyTask cost must be a scalar (its rows mix the joints), got {cost}"
            )
        self._cost = cost
        self._bump()

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """The task has no target; provided so task lists can be initialised uniformly."""

    @staticmethod
    def _crba(configuration: Configuration) -> np.ndarray:
        """CRBA on the configuration's data: ``M(q)``, upper triangle only (the lower is not
        written). Reads q alone: the kinematics cache (frame placements, Jacobians, CoM) is
        left as it was."""
        configuration = check_configuration(configuration, "KineticEnergyTask")
        return pin.crba(
            configuration.model, configuration.data, configuration.q, pin.Convention.LOCAL
        )

    def mass_matrix(self, configuration: Configuration) -> np.ndarray:
        """``M(q)`` (nv × nv, symmetric)."""
        upper = np.triu(self._crba(configuration))
        return upper + np.triu(upper, 1).T

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        key = self._key
        if key is None or key[0]() is not configuration or key[1] != configuration._updates:
            # M = L Lᵀ from the upper triangle of the C-ordered M, read by LAPACK's dpotrf
            # as the lower triangle of Mᵀ (Fortran order: no copy); U = Lᵀ
            L, info = dpotrf(self._crba(configuration).T, lower=1, clean=1)
            if info != 0:
                raise InvalidInput(
                    f"the mass matrix of model {configuration.model.name!r} is not positive "
                    "definite (a joint moves no mass?): KineticEnergyTask needs inertias on "
                    "every moving body"
                )
            self._U = L.T
            if self._zeros.shape != (configuration.nv,):
                self._zeros = np.zeros(configuration.nv)
                self.dim = configuration.nv
            self._key = (weakref.ref(configuration), configuration._updates)
        return self._zeros, self._U
