"""Joint posture (regularisation toward a reference configuration)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import (
    Configuration,
    base_velocity_count,
    check_configuration,
    q_shape_message,
)
from ..exceptions import InvalidInput, check_finite_array
from ._frames import require_target, target_alias, target_property
from .task import MAX_COST, Task, check_cost, plain_gains, shared_cost


def root_joint_velocity_count(model: pin.Model) -> int:
    """Velocity coordinates of the model's first joint when it is named ``root_joint``
    (pink's rule for what a posture leaves out), else 0."""
    if model.njoints > 1 and model.names[1] == "root_joint":
        return int(model.joints[1].nv)
    return 0


def actuated_velocity_indices(model: pin.Model, include_base: bool | None = None) -> np.ndarray:
    """Indices of v a posture drives: ``include_base=None`` leaves out the root joint when it
    is named ``root_joint`` (pink's rule); ``False`` leaves out the robot's base however it is
    named (see :func:`taskik.configuration.base_velocity_count`: a free-flyer, planar or
    translation root joint, or one named ``root_joint``); ``True`` keeps all of v."""
    if include_base is None:
        return np.arange(root_joint_velocity_count(model), model.nv)
    return np.arange(0 if include_base else base_velocity_count(model), model.nv)


def _is_a_model(x: object) -> bool:
    """Whether ``x`` is a robot model (Pinocchio's or MuJoCo's) rather than a cost."""
    return isinstance(x, pin.Model) or type(x).__name__ == "MjModel"


class _DefaultCost(float):
    """The default cost, 1.0, told apart from a cost of 1.0 that was given."""


_ONE = _DefaultCost(1.0)


_LAYOUTS: dict[
    tuple[int, bool | None], tuple[pin.Model, np.ndarray, np.ndarray | None, np.ndarray]
] = {}


def _layout(
    model: pin.Model, include_base: bool | None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``(rows, q_rows, selection)`` of a posture on ``model``: its velocity rows; when every
    driven joint is a vector-space joint (nq = nv = 1, so ``q ⊖ q* = q − q*`` and the
    Jacobian is the selection ``I[rows]``), their q indices, else None. Kept per model (a
    task list built anew each step builds new postures; the arrays are read-only)."""
    key = (id(model), include_base)
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[0] is model and hit[3].shape[1] == model.nv:  # (a joint added)
        return hit[1:]
    rows = actuated_velocity_indices(model, include_base)
    joints = [j for j in model.joints[1:] if j.idx_v >= rows[0]] if len(rows) else []
    q_rows = None
    if all(j.nq == 1 and j.nv == 1 for j in joints):
        q_rows = np.array([j.idx_q for j in joints], dtype=int)
    selection = np.eye(model.nv)[rows]
    for array in (rows, q_rows, selection):
        if array is not None:
            array.flags.writeable = False
    if len(_LAYOUTS) >= 16:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (model, rows, q_rows, selection)  # (the model: its id stays its own)
    return rows, q_rows, selection


def _as_slice(indices: np.ndarray | None) -> slice | np.ndarray | None:
    """``indices`` as a slice when they are a contiguous increasing run, else as they are."""
    if indices is not None and len(indices) and (np.diff(indices) == 1).all():
        return slice(int(indices[0]), int(indices[-1]) + 1)
    return indices


def _mink_gains(
    first: object, given: tuple[float, ...], gain: float, lm_damping: float
) -> tuple[float, float]:
    """``(gain, lm_damping)`` of mink's ``PostureTask(model, cost, gain, lm_damping)``: taken
    after a model given first, refused otherwise or when also given by keyword."""
    call = "PostureTask(cost, gain=..., lm_damping=...)"
    if not _is_a_model(first):
        raise InvalidInput(
            f"PostureTask takes at most two arguments by position (got {2 + len(given)}): "
            f"{call}, or mink's PostureTask(model, cost, gain, lm_damping)"
        )
    if len(given) > 2:
        raise InvalidInput(
            f"PostureTask takes at most four arguments by position, mink's (model, cost, "
            f"gain, lm_damping); got {2 + len(given)}"
        )
    positional = (*given, lm_damping)[:2]
    for name, by_position, by_keyword, default in zip(
        ("gain", "lm_damping"), positional, (gain, lm_damping), (1.0, 0.0), strict=True
    ):
        if by_keyword != default and by_keyword is not by_position:
            raise InvalidInput(f"PostureTask got {name} twice, by position and by keyword")
    return positional[0], positional[1]


class PostureTask(Task):
    """Drive the joints toward a reference configuration ``q*``.

    Which joints, as in pink by default: every joint but the root joint named ``root_joint``
    (the name Pinocchio gives the root joint passed to ``buildModelFromUrdf``, and
    example-robot-data's floating bases), so a posture regularises the limbs and leaves where
    the robot stands to the other tasks. A floating or mobile base named otherwise (a free
    flyer built with ``model.addJoint(..., "base")``) is driven like any joint, as pink does;
    ``include_base=False`` leaves out the base however it is named (a free-flyer, planar or
    3-D translation root joint: :func:`taskik.configuration.base_velocity_count`), and
    ``include_base=True`` drives the base too (e.g. to keep a mobile base in place).

    Error: ``e = −(q ⊖ q*) = −pin.difference(q*, q)`` restricted to these rows.
    Jacobian: ``∂(q ⊖ q*)/∂q`` (``pin.dDifference``, the identity for 1-DoF joints).
    The target is ``target``, also under pink's name ``target_q``.

    Args:
        cost: weight (1/rad, 1/m for prismatic joints and a base's translation), scalar or one
            per row (nv minus the velocities left out: nv − 6 with a free flyer named
            ``root_joint``, nv − 3 with a planar one); first or by keyword, not both (two
            costs are refused); 1.0 if neither.
        include_base: None (default): leave out the root joint named ``root_joint`` (pink's
            rule; with mink's ``model`` given, the base whatever its name, as mink does);
            False: leave out the base whatever its name; True: drive the base too (its rows
            come first).
        model: optional, mink's ``PostureTask(model, cost=...)`` (first or by keyword): the
            Pinocchio model, or MuJoCo's ``MjModel`` of the same MJCF file, against which the
            cost is checked at once; with it, a cost of nv entries (mink's shape) drops the
            base's entries, which mink ignores too. After a model given first, mink's
            positional ``PostureTask(model, cost, gain, lm_damping)`` is taken too.
    """

    _bound_nq = -1  # the nq of the model the rows were laid out for (-1: none yet)

    target = target_property(
        lambda task, value: task._checked_target(value, None),
        "the reference configuration q* (size nq)",
    )
    target_q = target_alias("target_q")

    def __init__(
        self,
        model_or_cost: pin.Model | npt.ArrayLike = _ONE,
        /,
        cost: npt.ArrayLike = _ONE,
        *mink_gains: float,
        gain: float = 1.0,
        lm_damping: float = 0.0,
        include_base: bool | None = None,
        model: pin.Model | object | None = None,
    ) -> None:
        plain = cost if model_or_cost is _ONE else model_or_cost if cost is _ONE else None
        if (  # the common case (a task list built anew each step): no call of the checks
            (type(plain) is float or plain is _ONE)
            and model is None
            and include_base is None
            and not mink_gains
            and plain_gains(gain, lm_damping)
            and 0.0 <= plain <= MAX_COST
        ):
            self._include_base = None
            self._target: np.ndarray | None = None
            self._target_checked = False
            self._model: pin.Model | None = None
            self._cost = shared_cost(float(plain), None)
            self._gain = gain
            self._lm_damping = lm_damping
            self._version = 1
            return
        if mink_gains:  # mink's PostureTask(model, cost, gain, lm_damping)
            gain, lm_damping = _mink_gains(model_or_cost, mink_gains, gain, lm_damping)
        if _is_a_model(model_or_cost):  # mink's PostureTask(model, cost=...)
            if model is not None:
                raise InvalidInput("PostureTask got two models, first and model=")
            model = model_or_cost
        elif cost is _ONE:  # (the common case: PostureTask(1e-2), or PostureTask())
            cost = model_or_cost
        elif model_or_cost is not _ONE:
            raise InvalidInput(f"PostureTask got two costs, {model_or_cost!r} and cost={cost!r}")
        if include_base is not None and not isinstance(include_base, bool | np.bool_):
            raise InvalidInput(f"include_base must be None, True or False, got {include_base!r}")
        if include_base is None and model is not None:
            include_base = False  # (mink leaves a free joint out whatever its name)
        self._include_base = None if include_base is None else bool(include_base)
        self._target = None
        self._target_checked = False
        self._rows: np.ndarray  # set with the model, by _bind()
        self._selection: np.ndarray  # idem, when every non-floating joint is 1-DoF
        self._q_rows: np.ndarray | None
        self._q_take: slice | np.ndarray | None  # idem, as a slice when contiguous
        self._model = None
        super().__init__(cost=cost, gain=gain, lm_damping=lm_damping)
        if model is not None:
            self._bind_mink_model(model)

    def _bind_mink_model(self, model: object) -> None:
        """mink's ``PostureTask(model, cost)``: check the cost's shape against the model now;
        mink's shape (one entry per velocity) loses the base's entries."""
        if isinstance(model, pin.Model):
            nv, base = model.nv, model.nv - len(actuated_velocity_indices(model, False))
        elif type(model).__name__ == "MjModel":  # (MuJoCo's model of the same MJCF file)
            mujoco_model: Any = model
            jnt_type = mujoco_model.jnt_type
            nv, base = int(mujoco_model.nv), 6 if len(jnt_type) and int(jnt_type[0]) == 0 else 0
        else:
            raise InvalidInput(
                f"PostureTask's model must be a pinocchio.Model (or mink's mujoco.MjModel), "
                f"got {type(model).__name__}"
            )
        base = 0 if self._include_base else base
        if base and self._cost.shape == (nv,):
            self._cost = self._cost[base:].copy()
        if self._cost.ndim == 1 and self._cost.shape != (nv - base,):
            raise InvalidInput(
                f"PostureTask cost must be a scalar or have shape ({nv - base},) (or mink's "
                f"({nv},)) for this model, got {self._cost.shape}"
            )
        if isinstance(model, pin.Model):
            self._bind(model)

    @property
    def include_base(self) -> bool | None:
        """None (pink's rule: the root joint named ``root_joint`` left out), False (the base
        left out whatever its name) or True (the base driven too)."""
        return self._include_base

    def adopt(self, resolved: Task) -> None:
        """The row layout ``resolved`` bound for its model (see :meth:`Task.adopt`), when
        this posture is not bound yet and its costs fit that layout (else the step works
        it out, and names a misfit)."""
        if (
            type(resolved) is PostureTask
            and self._model is None
            and resolved._model is not None
            and self._include_base == resolved._include_base
            and (self._cost.ndim == 0 or self._cost.shape == (resolved.dim,))
        ):
            self._rows, self._q_rows = resolved._rows, resolved._q_rows
            self._selection, self._q_take = resolved._selection, resolved._q_take
            self.dim, self._model = resolved.dim, resolved._model
            self._bound_nq = resolved._bound_nq

    def _bind(self, model: pin.Model) -> None:
        nq = model.nq
        if model is not self._model or nq != self._bound_nq:  # (or a joint added since)
            self._bound_nq = nq
            self._rows, self._q_rows, self._selection = _layout(model, self._include_base)
            # (the q rows as a slice when contiguous: views instead of two gathers a step)
            self._q_take = _as_slice(self._q_rows)
            self._model = model
            self.dim = len(self._rows)
            if self._cost.ndim == 1 and self._cost.shape != (self.dim,):
                raise InvalidInput(
                    f"PostureTask cost must be a scalar or have shape ({self.dim},) for model "
                    f"{model.name!r}, got {self._cost.shape}"
                )

    def _set_cost(self, value: npt.ArrayLike) -> None:
        self._cost = check_cost(value, None)
        self._model = None  # re-check the shape against the model at the next use
        self._bump()

    def set_target(
        self, q_target: npt.ArrayLike, configuration: Configuration | None = None
    ) -> None:
        """Reference configuration (size nq). Pass ``configuration`` to validate it at once."""
        if (  # the common case: a float vector, copied, finite (checked against the model
            # on first use); a float sum is finite only when every term is
            configuration is None
            and type(q_target) is np.ndarray
            and q_target.dtype.char == "d"
            and q_target.ndim == 1
        ):
            q = q_target.copy()
            if math.isfinite(sum(q.tolist()) if len(q) <= 64 else q.sum()):
                self._target = q
                self._target_checked = False
                return
        self._target = self._checked_target(q_target, configuration)

    def _checked_target(
        self, q_target: npt.ArrayLike, configuration: Configuration | None
    ) -> np.ndarray:
        """``q_target`` as a new finite 1-D array, checked against ``configuration`` when
        given (else on first use, by the model)."""
        q = np.array(check_finite_array(q_target, "posture target"))
        if configuration is not None:
            q = configuration.check_q(q)
        elif q.ndim != 1:
            raise InvalidInput(f"posture target must be a 1-D vector, got shape {q.shape}")
        self._target_checked = configuration is not None
        return q

    def set_target_from_configuration(self, configuration: Configuration) -> None:
        configuration = check_configuration(configuration, "set_target_from_configuration")
        self._target = configuration.q.copy()
        self._target_checked = True

    def plan_key(self) -> object:
        """``(PostureTask, include_base)`` (see :meth:`Task.plan_key`)."""
        return (PostureTask, self._include_base) if type(self) is PostureTask else id(self)

    def selection(self, configuration: Configuration) -> np.ndarray | None:
        """The task rows' velocity indices when every driven joint is 1-DoF (then ``J`` is
        the constant selection ``I[rows]``), else None."""
        if type(self).compute_error_and_jacobian is not PostureTask.compute_error_and_jacobian:
            return None
        self._bind(configuration.model)
        return None if self._q_rows is None else self._rows

    def compute_error_and_jacobian(
        self, configuration: Configuration
    ) -> tuple[np.ndarray, np.ndarray]:
        target = require_target(self.target, self)
        if type(configuration) is not Configuration:  # (a subclass is fine)
            configuration = check_configuration(configuration, "PostureTask")
        model = configuration.model
        self._bind(model)
        if target.shape != (model.nq,):
            raise InvalidInput(q_shape_message("posture target", target.shape, model))
        if not self._target_checked:  # a target set without a configuration, on first use
            _check_target(configuration, model, target)
            self._target_checked = True
        q = configuration.q
        idx = self._q_take
        if idx is not None:
            return target[idx] - q[idx], self._selection
        rows = self._rows
        e = -pin.difference(model, target, q)[rows]
        J = pin.dDifference(model, target, q, pin.ArgumentPosition.ARG1)[rows]
        return e, J

    def write_error(self, configuration: Configuration, e_out: np.ndarray) -> None:
        """The error ``e`` of ``compute_error_and_jacobian`` written into ``e_out`` (the
        step's stacked rows, when the Jacobian is the constant selection and only the error
        changes), with the same checks."""
        if type(configuration) is not Configuration and self._target is not None:
            configuration = check_configuration(configuration, "PostureTask")
        self._write_error(configuration, e_out, check_out=True)

    def _write_error(
        self, configuration: Configuration, e_out: np.ndarray, check_out: bool = False
    ) -> None:
        """:meth:`write_error` into the step's own rows (a writable float64 vector of the
        task's size, as the assembler guarantees): the target and the model checked, and
        ``e_out`` only with ``check_out``."""
        target = self._target
        if target is None:
            target = require_target(target, self)  # (raises TargetNotSet)
        model = configuration.model
        nq = model.nq
        if model is not self._model or nq != self._bound_nq:  # (or a joint added since)
            self._bind(model)
        if target.shape != (nq,):
            raise InvalidInput(q_shape_message("posture target", target.shape, model))
        if not self._target_checked:
            _check_target(configuration, model, target)
            self._target_checked = True
        if check_out and (
            type(e_out) is not np.ndarray
            or e_out.dtype.char != "d"
            or e_out.shape != (self.dim,)
            or not e_out.flags.writeable
        ):
            raise InvalidInput(_e_out_message(e_out, self.dim))
        idx = self._q_take
        if idx is None:
            e_out[:] = self.compute_error_and_jacobian(configuration)[0]
        else:
            np.subtract(target[idx], configuration.q[idx], out=e_out)


def _e_out_message(e_out: object, dim: int | None) -> str:
    """What is wrong with ``write_error``'s ``e_out`` (a writable float64 vector of dim)."""
    if not isinstance(e_out, np.ndarray):
        return f"PostureTask.write_error: e_out must be a numpy array, got {type(e_out).__name__}"
    if e_out.dtype != np.float64:
        return f"PostureTask.write_error: e_out must be float64, got {e_out.dtype}"
    if e_out.shape != (dim,):
        return f"PostureTask.write_error: e_out must have shape ({dim},), got {e_out.shape}"
    return "PostureTask.write_error: e_out must be writable (it is read-only)"


# The last posture target checked against a model: (model, the target's bytes). A task
# list built anew every step builds a new posture on the same target values: checked once.
_CHECKED: tuple[pin.Model, bytes] | None = None


def _check_target(configuration: Configuration, model: pin.Model, target: np.ndarray) -> None:
    """``configuration.check_q(target)`` (its unit quaternions, even the base's), skipped
    when the same values passed it on the same model just before."""
    global _CHECKED
    data = target.tobytes()
    last = _CHECKED
    if last is not None and last[0] is model and last[1] == data:
        return
    configuration.check_q(target)
    _CHECKED = (model, data)  # (the model: its identity stays its own while held)
