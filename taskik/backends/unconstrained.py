"""The unconstrained least-squares backends of :func:`taskik.solve_ik`.

``solve_ik(conf, tasks, dt, backend=...)`` with ``backend`` in ``"transpose"``, ``"pinv"``,
``"dls"``, ``"sdls"``, ``"regularized"`` solves the stacked weighted system of the tasks

    A v ≈ c,   A = [W_i J_i],   c = [W_i Kp_i e_i / dt]

(the same rows the QP uses, assembled by :class:`taskik.problem.Assembler`) with a classic
method instead of the QP. These backends cannot honour inequalities: ``limits=None`` means
no limits. Three limits are honoured without a QP: ``ConfigurationLimit`` by a change of
variable (:mod:`taskik.backends.joint_limit_map`, seed 004: the step never crosses a position
limit), ``VelocityLimit`` by scaling the whole step into the box (its direction kept, as
``max_joint_step`` does) and ``FrozenJoints`` by solving without their columns; any other
limit raises :class:`InvalidInput`.

Options (keyword arguments of ``solve_ik``), per backend:

- every backend: ``max_task_error`` (Buss's ``ClampMag``: each task error, position and
  orientation parts of 6-D tasks separately, is clamped to this norm before the solve; a
  number for every task or a ``{task: D_max}`` dict), ``max_joint_step`` (``Δθ_max``, rad per
  step: the whole step is scaled so that ``max_j |v_j| dt ≤ Δθ_max``, Williams eq. 31),
  ``joint_limit_map`` (a :class:`~taskik.backends.joint_limit_map.JointLimitMap`: how the
  position limits are mapped; default ``JointLimitMap()``, the threshold inversion).
- ``"pinv"``: ``rcond`` (relative singular-value cut-off, default 1e-10).
- ``"dls"``: ``lam`` (λ, default 0.1), ``damping_kind`` (``"constant"``: ``λ²I``;
  ``"chan"``: ``λ E I``; ``"sugihara"``: ``E I + diag(w̄)``; ``E = ½ Σ ‖W_i e_i‖²``),
  ``w_bar`` (Sugihara's w̄, scalar or per joint, default 1e-3), ``form`` (``"normal"``
  (default) or ``"svd"``, constant λ only). The ``damping`` argument of ``solve_ik`` and the
  tasks' ``lm_damping`` terms ``μ_i`` are added to the diagonal, as in the QP.
- ``"sdls"``: ``gamma_max`` (largest joint change per step, rad, default π/4).
- ``"regularized"``: ``gamma0``, ``sigma_thr``, ``branch``, ``rcond`` (see
  :class:`taskik.backends.regularized.RegularizedJacobian`).

Only ``"dls"`` has a Tikhonov term: the other backends raise :class:`InvalidInput` when a
task has ``lm_damping > 0`` or ``damping`` is set above its default (1e-12), rather than
ignore them silently.

Regularized backend, which tasks it changes: :class:`PositionTask` rows (fictitious point),
:class:`OrientationTask` rows (spherical representation) and both parts of
:class:`FrameTask` rows. Every other task (CoM, posture, relative frame, damping…) keeps
its rows unchanged. A task class can opt in by defining
``regularization_blocks(configuration) -> list[(kind, L, J, J_angular)]`` where ``kind`` is
``"position"`` or ``"orientation"``, ``L`` (dim × 3) maps the world velocity of the block
to the task rate, ``J`` is the block's world Jacobian (3 × nv: point velocity for a position
block, angular velocity for an orientation block) and ``J_angular`` the world angular
Jacobian of the body carrying it, so that the task Jacobian contains ``L @ J``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_finite_array, check_scalar, real_scalar
from ..limits.configuration import ConfigurationLimit
from ..limits.frozen import FrozenJoints
from ..limits.limit import Limit
from ..limits.velocity import VelocityLimit
from ..problem import Assembler, get_assembler
from ..tasks._frames import require_target
from ..tasks.frame import FrameTask
from ..tasks.orientation import OrientationTask
from ..tasks.position import PositionTask
from ..tasks.task import Task
from ..validation import check_limits, is_hierarchy
from . import UNCONSTRAINED_BACKENDS
from .dls import DAMPING_KINDS, damping_diagonal, solve_dls, solve_dls_normal, solve_dls_svd
from .joint_limit_map import JointLimitMap
from .pseudoinverse import DEFAULT_RCOND, solve_pinv
from .regularized import RegularizedBlock, RegularizedJacobian
from .sdls import DEFAULT_GAMMA_MAX, group_starts, solve_sdls
from .transpose import solve_transpose

_COMMON = ("max_task_error", "max_joint_step", "joint_limit_map")
OPTIONS = {
    "transpose": _COMMON,
    "pinv": (*_COMMON, "rcond"),
    "dls": (*_COMMON, "lam", "damping_kind", "w_bar", "form"),
    "sdls": (*_COMMON, "gamma_max"),
    "regularized": (*_COMMON, "gamma0", "sigma_thr", "branch", "rcond"),
}
_DEFAULT_DAMPING = 1e-12
_DEFAULT_MAP = JointLimitMap()
_EYE3 = np.eye(3)
_EYE3.flags.writeable = False

#: ``(kind, L, J, J_angular)``: one regularizable block of a task (see the module docstring).
Block: TypeAlias = tuple[str, np.ndarray, np.ndarray, np.ndarray]


# ----------------------------------------------------------------- regularization adapters
def _position_blocks(task: PositionTask, configuration: Configuration) -> list[Block]:
    fid = task.frame.id(configuration)
    R = configuration.data.oMf[fid].rotation
    J_angular = R @ configuration.get_frame_jacobian(fid)[3:]
    _, J = task.compute_error_and_jacobian(configuration)
    return [("position", _EYE3, J, J_angular)]


def _orientation_blocks(task: OrientationTask, configuration: Configuration) -> list[Block]:
    fid = task.frame.id(configuration)
    R = configuration.data.oMf[fid].rotation
    J_angular = R @ configuration.get_frame_jacobian(fid)[3:]
    L = pin.Jlog3(require_target(task.target, task).T @ R) @ R.T
    return [("orientation", L, J_angular, J_angular)]


def _frame_blocks(task: FrameTask, configuration: Configuration) -> list[Block]:
    fid = task.frame.id(configuration)
    T = configuration.data.oMf[fid]
    R = T.rotation
    Jl = configuration.get_frame_jacobian(fid)
    J_linear, J_angular = R @ Jl[:3], R @ Jl[3:]
    Jlog = pin.Jlog6(require_target(task.target, task).actInv(T))
    return [
        ("position", Jlog[:, :3] @ R.T, J_linear, J_angular),
        ("orientation", Jlog[:, 3:] @ R.T, J_angular, J_angular),
    ]


#: Built-in regularization adapters, by exact task type (subclasses are not regularized
#: unless they define ``regularization_blocks``).
REGULARIZATION_ADAPTERS: dict[type[Task], Callable[..., list[Block]]] = {
    PositionTask: _position_blocks,
    OrientationTask: _orientation_blocks,
    FrameTask: _frame_blocks,
}


def regularization_blocks(task: Task, configuration: Configuration) -> list[Block] | None:
    """The ``(kind, L, J, J_angular)`` blocks of a task, or None if it is not regularized."""
    method: Callable[[Configuration], list[Block]] | None = getattr(
        task, "regularization_blocks", None
    )
    if method is not None:
        return method(configuration)
    adapter = REGULARIZATION_ADAPTERS.get(type(task))
    return None if adapter is None else adapter(configuration=configuration, task=task)


# -------------------------------------------------------------------------------- the plan
class UnconstrainedPlan:
    """Per task list: the assembler and the row structure the backends need."""

    def __init__(self, asm: Assembler) -> None:
        self.asm = asm
        self.tasks = asm.tasks
        groups: list[
            tuple[Task, slice]
        ] = []  # ClampMag / SDLS groups: (task, rows) — 6-D tasks split 3 + 3
        sdls_sizes: list[int] = []
        for task, _, _, rows in asm.slices:
            dim = rows.stop - rows.start
            if dim == 6:
                groups += [(task, slice(rows.start, rows.start + 3))]
                groups += [(task, slice(rows.start + 3, rows.stop))]
                sdls_sizes += [3, 3]
            else:
                groups.append((task, rows))
                sdls_sizes += [3] if dim == 3 else [1] * dim
        self.groups = groups
        self.sdls_starts = group_starts(sdls_sizes)
        self.task_rows = [(task, rows) for task, _, _, rows in asm.slices]
        self.regularizer: RegularizedJacobian | None = None
        self._reg_params: tuple[float, float, str, float] | None = None


def _plan(configuration: Configuration, tasks: Sequence[Task]) -> UnconstrainedPlan:
    """The plan of this task list, kept with its assembler."""
    asm = get_assembler(configuration, tasks, [])
    plan = asm.unconstrained_plan
    if plan is None:
        plan = asm.unconstrained_plan = UnconstrainedPlan(asm)
    return plan


# ---------------------------------------------------------------------------- validation
def _check_backend(backend: str) -> None:
    if not isinstance(backend, str) or backend not in OPTIONS:
        raise InvalidInput(
            f"unknown backend {backend!r}; choose one of 'qp', "
            + ", ".join(repr(b) for b in UNCONSTRAINED_BACKENDS)
        )


def _check_options(backend: str, options: Mapping[str, object]) -> None:
    allowed = OPTIONS[backend]
    for name in options:
        if name not in allowed:
            raise InvalidInput(
                f"unknown option {name!r} for backend {backend!r}; it accepts " + ", ".join(allowed)
            )


def _positive(options: Mapping[str, Any], name: str, default: float) -> float:
    return check_scalar(options.get(name, default), name, 0.0, low_open=True)


def _nonnegative(options: Mapping[str, Any], name: str, default: float) -> float:
    return check_scalar(options.get(name, default), name, 0.0)


# ------------------------------------------------------------------------------- stepping
def _clamp_task_errors(
    plan: UnconstrainedPlan, c: np.ndarray, dt: float, max_err: float | dict[Task, float]
) -> None:
    """Buss's ClampMag on each task error group, applied to the rows of ``c`` in place."""
    wk = plan.asm.wk
    per_task = max_err if isinstance(max_err, dict) else None
    if per_task is not None:
        for task in per_task:
            if not any(task is t for t in plan.tasks):
                raise InvalidInput(f"max_task_error names a task not in the list: {task!r}")
    else:
        d_all = _positive({"max_task_error": max_err}, "max_task_error", 1.0)
    for task, rows in plan.groups:
        if per_task is not None:
            if task not in per_task:
                continue
            d = _positive({"max_task_error": per_task[task]}, "max_task_error", 1.0)
        else:
            d = d_all
        wk_g = wk[rows]
        c_g = c[rows]
        nz = wk_g > 0.0
        e_g = c_g[nz] * dt / wk_g[nz]  # the task error itself, e = c dt / (W Kp)
        norm = math.sqrt(float(e_g @ e_g))
        if norm > d:
            c_g *= d / norm


def solve_unconstrained(
    configuration: Configuration,
    tasks: Sequence[Task] | Sequence[Sequence[Task]],
    dt: float,
    limits: Sequence[Limit] | None,
    backend: str,
    damping: float = _DEFAULT_DAMPING,
    **options: Any,
) -> np.ndarray:
    """Velocity ``v`` (nv) from the stacked task system ``A v ≈ c`` with a classic backend.

    See the module docstring for the backends and their options.

    Raises:
        InvalidInput: unknown backend or option, a limit other than ConfigurationLimit,
            VelocityLimit and FrozenJoints, priority levels, or a damping term the backend
            has no place for.
    """
    _check_backend(backend)
    if is_hierarchy(tasks):
        raise InvalidInput(
            f"strict priorities (a list of task levels) need backend='qp', not {backend!r}"
        )
    limits = check_limits(limits) if limits is not None else []
    bounds = _split_limits(backend, limits, configuration.nv)
    if options:
        _check_options(backend, options)
    plan = _plan(configuration, tasks)
    asm = plan.asm
    P, r, _, _, _, _ = asm.assemble(configuration, dt, damping)
    A, c = asm.A, asm.c
    mu = asm.mu  # Σ μ_i (tasks' Levenberg–Marquardt terms)
    if backend != "dls" and (mu > 0.0 or damping > _DEFAULT_DAMPING):
        lm = [t for t in plan.tasks if t.lm_damping > 0.0]
        what = f"lm_damping of {lm!r}" if lm else f"damping={damping!r}"
        raise InvalidInput(
            f"backend {backend!r} has no damping term and cannot apply the {what}; "
            "use backend='dls' (or 'qp')"
        )
    clamped = False
    if options:
        max_err = options.get("max_task_error")
        if max_err is not None:
            _clamp_task_errors(plan, c, dt, max_err)
            clamped = True

    max_step = options.get("max_joint_step") if options else None
    d_max = None if max_step is None else _positive(options, "max_joint_step", 1.0)

    def solve(keep: np.ndarray | None) -> np.ndarray:
        """The backend's step (``keep``: the columns kept), scaled to ``max_joint_step``."""
        v = _dispatch(backend, plan, configuration, A, c, P, r, dt, damping, clamped, options, keep)
        peak = float(np.abs(v).max(initial=0.0)) * dt
        return v * (d_max / peak) if d_max is not None and peak > d_max else v

    v = solve(None if bounds is None or not bounds[2].any() else (~bounds[2]).astype(float))
    if bounds is not None and np.isfinite(v).all():
        v = _apply_limits(configuration, v, dt, bounds, _limit_map(options), solve)
    if not np.isfinite(v).all():
        raise InvalidInput(
            f"backend {backend!r} gave a non-finite step: the task velocities Kp e / dt are out "
            f"of range (dt = {dt:g} s, max |c| = {float(np.abs(c).max(initial=0.0)):.3g})"
        )
    return v


#: What the unconstrained backends honour: position limits (mapped), velocity limits (the
#: step scaled) and the joints held by FrozenJoints (their columns removed).
Bounds: TypeAlias = tuple[list[ConfigurationLimit], list[VelocityLimit], np.ndarray]


def _split_limits(backend: str, limits: list[Limit], nv: int) -> Bounds | None:
    """The limits of the list by kind (None if empty); any other limit is refused."""
    if not limits:
        return None
    other = [
        x for x in limits if not isinstance(x, ConfigurationLimit | VelocityLimit | FrozenJoints)
    ]
    if other:
        raise InvalidInput(
            f"backend {backend!r} solves an unconstrained least-squares problem: it honours "
            "ConfigurationLimit (by a change of variable), VelocityLimit (the step scaled into "
            f"the box) and FrozenJoints only, not {other[0]!r}; use backend='qp' for the others"
        )
    frozen = np.zeros(nv, dtype=bool)
    for lim in limits:
        if isinstance(lim, FrozenJoints):
            frozen[lim.indices] = True
    position = [x for x in limits if isinstance(x, ConfigurationLimit)]
    return position, [x for x in limits if isinstance(x, VelocityLimit)], frozen


def _limit_map(options: Mapping[str, Any]) -> JointLimitMap:
    lmap = options.get("joint_limit_map")
    if lmap is None:
        return _DEFAULT_MAP
    if not isinstance(lmap, JointLimitMap):
        raise InvalidInput(f"joint_limit_map must be a JointLimitMap, got {lmap!r}")
    return lmap


def _dispatch(
    backend: str,
    plan: UnconstrainedPlan,
    configuration: Configuration,
    A: np.ndarray,
    c: np.ndarray,
    P: np.ndarray,
    r: np.ndarray,
    dt: float,
    damping: float,
    clamped: bool,
    options: Mapping[str, Any],
    keep: np.ndarray | None,
) -> np.ndarray:
    """The backend's ``v``; ``keep`` (1 or 0 per joint) zeroes the columns of held joints."""
    mu = plan.asm.mu
    if keep is not None:
        A = A * keep
        P = P * np.outer(keep, keep)
        P[np.diag_indices_from(P)] += (1.0 - keep) * (mu + damping)
        r = r * keep
    if backend == "pinv":
        return solve_pinv(A, c, _nonnegative(options, "rcond", DEFAULT_RCOND))
    if backend == "dls":
        return _solve_dls(plan, A, c, P, r, dt, damping, mu, clamped, options)
    if backend == "transpose":
        return solve_transpose(A, c)
    if backend == "sdls":
        gamma_max = _positive(options, "gamma_max", DEFAULT_GAMMA_MAX)
        return solve_sdls(A, c * dt, plan.sdls_starts, gamma_max) / dt
    return _solve_regularized(plan, configuration, A, c, options, keep)


def _apply_limits(
    configuration: Configuration,
    v: np.ndarray,
    dt: float,
    bounds: Bounds,
    lmap: JointLimitMap,
    solve: Callable[[np.ndarray | None], np.ndarray],
) -> np.ndarray:
    """``v`` re-solved without the joints the map holds at a limit (their column of the
    constrained Jacobian ``J dβ`` is zero: the other joints take over their share; at most
    three passes, the held set growing), mapped so that ``q + v dt`` stays within the
    position limits, then scaled into the velocity box (along its direction: still in range)."""
    position, velocity, held = bounds
    for _ in range(3 if position else 0):
        new = held.copy()
        for lim in position:
            theta = configuration.q[lim.q_indices]
            new[lim.indices] |= lmap.held(theta, v[lim.indices], lim.q_min, lim.q_max)
        if (new == held).all():
            break
        held = new
        v = solve((~held).astype(float))
    v = v.copy()
    for lim in position:
        theta = configuration.q[lim.q_indices]
        v[lim.indices] = lmap.step(theta, v[lim.indices], lim.q_min, lim.q_max, dt, lim.gain)
    v[bounds[2]] = 0.0  # frozen joints: exactly still
    for vel in velocity:
        speed = np.abs(v[vel.indices])
        over = speed > vel.v_max
        if over.any():
            v *= float(np.min(vel.v_max[over] / speed[over]))
    return v


def _solve_dls(
    plan: UnconstrainedPlan,
    A: np.ndarray,
    c: np.ndarray,
    P: np.ndarray,
    r: np.ndarray,
    dt: float,
    damping: float,
    mu: float,
    clamped: bool,
    options: Mapping[str, Any],
) -> np.ndarray:
    lam = _nonnegative(options, "lam", 0.1)
    kind = options.get("damping_kind", "constant")
    if kind not in DAMPING_KINDS:
        raise InvalidInput(f"damping_kind must be one of {DAMPING_KINDS}, got {kind!r}")
    form = options.get("form", "normal")
    if form not in ("normal", "svd"):
        raise InvalidInput(f"form must be 'normal' or 'svd', got {form!r}")
    n = A.shape[1]
    energy = 0.0
    if kind != "constant":
        asm = plan.asm
        ratio = np.divide(asm.w, asm.wk, out=np.zeros_like(asm.w), where=asm.wk > 0.0)
        we = c * (dt * ratio)  # W e, the weighted task error
        energy = 0.5 * float(we @ we)
    w_bar = options.get("w_bar", 1e-3)
    if kind == "sugihara":
        w_arr = check_finite_array(w_bar, "w_bar")
        if w_arr.shape not in ((), (n,)) or (w_arr < 0).any():
            raise InvalidInput(f"w_bar must be >= 0, scalar or of size nv={n}, got {w_bar!r}")
    if form == "svd":
        if kind != "constant":
            raise InvalidInput("form='svd' supports damping_kind='constant' only")
        # the Tikhonov terms (μ_i, damping) add to λ² in the SVD form too
        return solve_dls_svd(A, c, math.sqrt(lam * lam + mu + damping))
    if kind != "sugihara" and A.shape[0] < n:
        # scalar damping, fewer rows than joints: Buss's m × m form Aᵀ(AAᵀ + λ²I)⁻¹c, better
        # conditioned than the n × n normal equations when λ is small
        scalar = lam * lam if kind == "constant" else lam * energy
        return solve_dls(A, c, scalar + mu + damping)
    diagonal = damping_diagonal(kind, lam, energy, w_bar, n)
    g = c @ A if clamped else -r
    return solve_dls_normal(P, g, diagonal)  # P already holds AᵀA + (Σμ_i + damping) I


def _solve_regularized(
    plan: UnconstrainedPlan,
    configuration: Configuration,
    A: np.ndarray,
    c: np.ndarray,
    options: Mapping[str, Any],
    keep: np.ndarray | None = None,
) -> np.ndarray:
    gamma0 = real_scalar(options.get("gamma0", 0.5), "gamma0 (a non-zero number)")
    params = (
        gamma0,
        _positive(options, "sigma_thr", 0.05),
        options.get("branch", "auto"),
        _nonnegative(options, "rcond", DEFAULT_RCOND),
    )
    if plan.regularizer is None or plan._reg_params != params:
        plan.regularizer = RegularizedJacobian(*params)
        plan._reg_params = params
    blocks = []
    for k, (task, rows) in enumerate(plan.task_rows):
        found = regularization_blocks(task, configuration)
        if not found:
            continue
        w = task._cost
        w_col = w[:, None] if w.ndim else w
        for j, (kind, L, J, J_angular) in enumerate(found):
            if keep is not None:  # held joints: their columns zeroed, as in A
                J, J_angular = J * keep, J_angular * keep
            blocks.append(
                RegularizedBlock(
                    kind=kind,
                    rows=rows,
                    L=w_col * L,
                    angular=J_angular,
                    linear=J if kind == "position" else None,
                    key=(k, j),
                )
            )
    return plan.regularizer.solve(A, c, blocks)
