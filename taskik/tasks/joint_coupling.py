"""Linear relations between named joints: mimic joints, gear ratios, closed linkages."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..exceptions import InvalidInput, check_finite_array
from ._frames import joint_name_list
from .task import Task


class JointCouplingTask(Task):
    """Hold the linear relation ``A (q ⊖ q_ref)[joints] = b`` between named joints.

    ``d = (q ⊖ q_ref)`` restricted to the velocity coordinates of ``joints`` (in the order
    given; ``q ⊖ q_ref = pin.difference(q_ref, q)``, so ``d = q − q_ref`` for revolute and
    prismatic joints, in rad or m). The task value is ``x = A d`` (m rows), the target ``b``.

    Error: ``e = b − A d``. Jacobian: ``J = A · ∂d/∂q`` (``pin.dDifference``; a selection of
    columns for 1-DoF joints), so that ``J v = ẋ``.

    Examples: a mimic joint ``q_b = r q_a + o`` is ``A = [[−r, 1]]``, ``b = [o]`` over
    ``joints = [a, b]``; a gear ratio is the same row with ``o = 0``; a four-bar linkage,
    linearised about ``q_ref``, is one or two rows over its joints.

    Args:
        joints: joint names, a list, a tuple, an array of str or any iterable of them (their
            velocity coordinates are the k columns of ``A``); not ``"universe"``, Pinocchio's
            fixed world, which has no coordinate.
        A: coupling matrix, shape (m, k).
        b: right-hand side, shape (m,) (zeros by default).
        q_ref: reference configuration (size nq), ``pin.neutral(model)`` by default.
        cost: weight per row (1/rad or 1/m), scalar or (m,).
        gain, lm_damping: see :class:`Task`.
    """

    def __init__(
        self,
        joints: Iterable[str],
        A: npt.ArrayLike,
        b: npt.ArrayLike | None = None,
        q_ref: npt.ArrayLike | None = None,
        cost: npt.ArrayLike = 1.0,
        *,
        gain: float = 1.0,
        lm_damping: float = 0.0,
    ) -> None:
        self._model: pin.Model | None = None
        self.joints = joints
        A = check_finite_array(A, "A")
        if A.ndim != 2:
            raise InvalidInput(f"A must be a matrix (m × k), got shape {A.shape}")
        self._m: int = A.shape[0]
        self.A = A
        self.dim = self._m
        self._target = np.zeros(self._m)
        if b is not None:
            self.set_target(b)
        self.q_ref = q_ref
        self._v_idx: np.ndarray  # velocity indices of the joints, set by _bind
        self._q_idx: np.ndarray | None  # their q indices when every joint is 1-DoF
        self._J: np.ndarray
        self._q_ref: np.ndarray  # q_ref, or the neutral configuration of the model
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)

    def plan_key(self) -> object:
        """``(JointCouplingTask, m)``: its rows are the m couplings (see :meth:`Task.plan_key`)."""
        return (JointCouplingTask, self._m) if type(self) is JointCouplingTask else id(self)

    @property
    def joints(self) -> list[str]:
        """The coupled joints (a copy; assign a new list to change them)."""
        return list(self._joints)

    @joints.setter
    def joints(self, joints: Iterable[str]) -> None:
        if isinstance(joints, str):  # one name where the columns of A need a list
            raise InvalidInput(f"joints must be a list of joint names, got {joints!r}")
        names = joint_name_list(joints, "JointCouplingTask joints")
        if len(set(names)) != len(names) or not names:
            raise InvalidInput(f"joints must be distinct and not empty, got {names}")
        self._joints = tuple(names)
        self._model = None  # bound again at the next use

    @property
    def A(self) -> np.ndarray:  # noqa: N802 (the matrix of the docstring)
        """The coupling matrix, m × k (read-only; assign a new one of m rows to change it)."""
        return self._A

    @A.setter
    def A(self, A: npt.ArrayLike) -> None:  # noqa: N802
        arr = check_finite_array(A, "A")
        if arr.shape[:1] != (self._m,) or arr.ndim != 2:
            raise InvalidInput(f"A must be a matrix of {self._m} rows, got shape {arr.shape}")
        arr = arr.copy()
        arr.flags.writeable = False
        self._A = arr
        self._model = None

    @property
    def q_ref(self) -> np.ndarray | None:
        """The reference configuration (read-only), or None for the model's neutral one."""
        return self._q_ref_given

    @q_ref.setter
    def q_ref(self, q_ref: npt.ArrayLike | None) -> None:
        arr = None
        if q_ref is not None:
            arr = check_finite_array(q_ref, "q_ref").copy()
            arr.flags.writeable = False
        self._q_ref_given = arr
        self._model = None

    @property
    def target(self) -> np.ndarray:
        """The right-hand side ``b`` of the relation, shape (m,) (0 until set); assigning it
        is :meth:`set_target` (checked)."""
        return self._target

    @target.setter
    def target(self, b: npt.ArrayLike) -> None:
        self._target = check_finite_array(b, "b", (self._m,)).copy()

    def set_target(self, b: npt.ArrayLike) -> None:
        """Right-hand side ``b`` of the relation, shape (m,)."""
        self._target = check_finite_array(b, "b", (self._m,)).copy()

    def _bind(self, configuration: Configuration) -> None:
        if type(configuration) is not Configuration:  # (a subclass is fine)
            check_configuration(configuration, "JointCouplingTask")
        model = configuration.model
        if model is self._model:
            return
        ids = [configuration.get_joint_id(name) for name in self.joints]  # none is 0: universe
        joints = [model.joints[j] for j in ids]
        v_idx = [j.idx_v + k for j in joints for k in range(j.nv)]
        if self.A.shape[1] != len(v_idx):
            raise InvalidInput(
                f"A has {self.A.shape[1]} columns, but joints {self.joints} have "
                f"{len(v_idx)} velocity coordinates: A must be ({self._m}, {len(v_idx)})"
            )
        if self.q_ref is None:
            self._q_ref = pin.neutral(model)
        else:
            self._q_ref = configuration.check_q(self.q_ref)
        self._v_idx = np.array(v_idx, dtype=int)
        simple = all(j.nq == 1 and j.nv == 1 for j in joints)
        self._q_idx = np.array([j.idx_q for j in joints], dtype=int) if simple else None
        self._J = np.zeros((self._m, model.nv))
        self._J[:, self._v_idx] = self.A
        self._model = model

    def value(self, configuration: Configuration) -> np.ndarray:
        """``A (q ⊖ q_ref)[joints]`` at the configuration, shape (m,)."""
        return self._displacement(configuration) @ self.A.T

    def _displacement(self, configuration: Configuration) -> np.ndarray:
        self._bind(configuration)
        if self._q_idx is not None:
            return configuration.q[self._q_idx] - self._q_ref[self._q_idx]
        d = pin.difference(configuration.model, self._q_ref, configuration.q)
        return np.asarray(d[self._v_idx])

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        """``b ← A (q ⊖ q_ref)[joints]``: hold the relation the joints have now."""
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = self.value(configuration)

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        e = self.target - self.value(configuration)
        if self._q_idx is not None:
            return e, self._J
        dd = pin.dDifference(
            configuration.model, self._q_ref, configuration.q, pin.ArgumentPosition.ARG1
        )
        return e, self.A @ dd[self._v_idx]

    def __repr__(self) -> str:
        return f"JointCouplingTask({self.joints}, A={self.A.tolist()}, b={self.target.tolist()})"
