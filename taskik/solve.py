"""One differential-IK step."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .backends.blas_threads import THREADED_WORK, hold, release
from .backends.qp import DaqpWorkspace, check_solver, default_solver, solve_qp_arrays
from .backends.unconstrained import solve_unconstrained
from .configuration import Configuration
from .exceptions import InvalidInput, NoSolutionFound, check_bool
from .hierarchy import solve_hierarchy
from .limits import default_limits
from .limits.limit import Limit
from .problem import MIN_DT, Assembler, QPArrays, check_dt, get_assembler
from .relax import Relaxation, record, relaxable, relaxed_rows, rest_within
from .tasks.task import Task
from .trust_region import AdaptiveDamping
from .validation import check_damping, check_levels, check_tasks, is_hierarchy

_DEFAULT_SOLVER = default_solver()

#: pink's and mink's keywords that taskik does not take: whose they are, what to write instead.
_PINK_KEYWORDS = {
    "constraints": (
        "pink's and mink's",
        "hard equality tasks are a priority level in taskik: "
        "solve_ik(configuration, [[hard_task, ...], [other_task, ...]], dt)",
    ),
    "barriers": (
        "pink's",
        "barriers= takes taskik limits, added to limits= (pink's PositionBarrier is "
        "taskik.limits.PositionBarrier; for pink's self-collision and body-sphere barriers "
        "use taskik.CollisionLimit)",
    ),
}

#: What solve_ik reads from its positional arguments after ``(configuration, tasks, dt)``:
#: taskik's order, and pink's and mink's, which put the solver's name fourth. pink's and
#: mink's orders part at the sixth place: a flag there is mink's ``safety_break``.
_TASKIK_ORDER = ("limits", "solver", "damping", "backend", "adaptive")
_PINK_ORDER = ("solver", "damping", "limits", "barriers", "constraints", "safety_break")
_MINK_ORDER = ("solver", "damping", "safety_break", "limits", "constraints")
_DEFAULTS: dict[str, Any] = {
    "limits": None,
    "solver": None,
    "damping": 1e-12,
    "backend": "qp",
    "adaptive": True,
}


def _positional(args: tuple[Any, ...], given: dict[str, Any]) -> dict[str, Any]:
    """Name solve_ik's positional arguments (after ``dt``) in taskik's order or, when the
    first is a solver name, in pink's or mink's; :class:`InvalidInput` when one is also given
    by keyword or there are more than the order has."""
    if isinstance(args[0], str):
        flag = len(args) > 2 and isinstance(args[2], bool | np.bool_)
        order, whose = (_MINK_ORDER, "mink's") if flag else (_PINK_ORDER, "pink's")
    else:
        order, whose = _TASKIK_ORDER, "taskik's"
    if len(args) > len(order):
        raise InvalidInput(
            f"solve_ik takes at most {len(order)} positional arguments after dt in {whose} "
            f"order ({', '.join(order)}), got {len(args)}: give the others by keyword"
        )
    named = dict(zip(order, args, strict=False))
    for name in named:
        value, default = given.get(name, _DEFAULTS.get(name)), _DEFAULTS.get(name)
        if value is not default and not (type(value) is type(default) and value == default):
            raise InvalidInput(
                f"solve_ik got {name} twice, by position ({whose} order: configuration, "
                f"tasks, dt, {', '.join(order)}) and by keyword"
            )
    return named


def _check_pink_keywords(kwargs: dict[str, Any], configuration: Configuration) -> list[Limit]:
    """Act on pink's and mink's keywords: ``safety_break=True`` checks q against the model's
    position limits (:class:`NotWithinConfigurationLimits` if outside), ``safety_break=False``
    and empty ``constraints``/``barriers`` ask for what taskik does; returns the limits given
    as pink's ``barriers=``; :class:`InvalidInput` naming the taskik way else."""
    if "safety_break" in kwargs:
        flag = kwargs.pop("safety_break")
        if not isinstance(flag, bool | np.bool_):
            raise InvalidInput(f"safety_break must be True or False, got {flag!r}")
        if flag:
            configuration.check_limits()
    barriers: list[Limit] = []
    for name, (whose, hint) in _PINK_KEYWORDS.items():
        if name in kwargs:
            value = kwargs.pop(name)
            if value is None or (isinstance(value, list | tuple) and not value):
                continue
            if (
                name == "barriers"
                and isinstance(value, list | tuple)
                and all(isinstance(b, Limit) for b in value)
            ):
                barriers = list(value)
                continue
            raise InvalidInput(f"solve_ik has no {name}= keyword ({whose}): {hint}")
    return barriers


_DEFAULT_LIMITS: dict[int, tuple[object, list[Limit]]] = {}


def _with_barriers(
    configuration: Configuration,
    limits: Sequence[Limit] | None,
    barriers: list[Limit],
    damping: float,
) -> tuple[list[Limit], float]:
    """pink's ``barriers=``: the limits with the barriers added (the model's default limits
    when ``limits`` is None, built once per model so the step's plan is found again), and
    the damping plus each barrier's ``safe_damping`` (pink's safe-displacement cost)."""
    if limits is None:
        model = configuration.model
        hit = _DEFAULT_LIMITS.get(id(model))
        if hit is None or hit[0] is not model:
            if len(_DEFAULT_LIMITS) >= 16:
                _DEFAULT_LIMITS.clear()
            hit = _DEFAULT_LIMITS[id(model)] = (model, default_limits(model))
        limits = hit[1]
    merged = [*limits, *barriers]
    key = tuple(map(id, merged))
    cached = _MERGED.get(key)
    if cached is None or any(a is not b for a, b in zip(cached, merged, strict=True)):
        if len(_MERGED) >= 16:
            _MERGED.clear()
        cached = _MERGED[key] = merged  # (the same list every step: its plan is found again)
    for barrier in barriers:
        safe = getattr(barrier, "safe_damping", None)
        if safe is not None:
            damping += float(safe(configuration))
    return cached, damping


# merged limit lists, keyed by their items (which the lists hold, so the ids stay theirs)
_MERGED: dict[tuple[int, ...], list[Limit]] = {}


def _is_model(x: object) -> bool:
    return type(x).__name__ == "Model" and type(x).__module__.startswith("pinocchio")


def solve_ik(
    configuration: Configuration,
    tasks: Sequence[Task] | Sequence[Sequence[Task]],
    dt: float,
    *args: Any,
    limits: Sequence[Limit] | None = None,
    solver: str | None = None,
    damping: float = 1e-12,
    backend: str = "qp",
    adaptive: bool = True,
    strict: bool = False,
    **solver_kwargs: Any,
) -> np.ndarray:
    """Velocity ``v`` (size nv) that best achieves the tasks in one step of ``dt`` seconds.

    Solves ``min Σ_i ‖W_i (J_i v − Kp_i e_i / dt)‖² + Σ μ_i ‖v‖² + damping ‖v‖²`` subject
    to the limits (a merged box ``lb ≤ v ≤ ub`` and inequality rows ``G v ≤ h``). The
    solution is projected onto the box, so bounds hold exactly rather than to the solver's
    tolerance. Apply it with ``configuration.integrate_inplace(v, dt)``.

    Args:
        configuration: robot configuration (kinematics up to date).
        tasks: the tasks, weighted by their costs; or a list of levels
            ``[[feet, com], [hand], [posture]]`` solved with strict priorities, highest first.
        dt: step duration (s), > 0.
        limits: None for the model's position and velocity limits; ``[]`` for none.
        solver: any qpsolvers solver name; the default is the fastest installed
            (``taskik.default_solver()``: DAQP, called directly without qpsolvers' conversion).
        damping: Tikhonov regularisation ``damping ‖v‖²`` of the step, ≥ 0.
        backend: ``"qp"`` (default) or one of the unconstrained least-squares backends of
            :mod:`taskik.backends` (which accept no inequality limits).
        adaptive: in a closed loop (``conf.integrate_inplace(v, dt)`` between calls), add a
            Levenberg–Marquardt damping ``ν ‖W e‖² ‖v‖²`` whose ``ν`` adapts to how well
            each step's linear model predicted the error it reached (:mod:`taskik.trust_region`):
            0 while steps do what they predict, so the step is the plain one; raised when a
            step overshoots or reverses, so the loop comes to rest instead of cycling. And
            when 10 steps in a row lowered no task error by 0.1 % per second (a target out
            of reach or blocked by a limit, approached along a flat valley), the loop rests:
            ``v = 0`` until a target changes or q is set from outside.
            ``False`` gives the plain step every time (the same step as pink's). QP backend
            only.
        args: the arguments above by position, in the order ``limits, solver, damping,
            backend, adaptive``; or, when the first is a solver name, in pink's order
            ``solver, damping, limits, barriers, constraints, safety_break`` or mink's
            ``solver, damping, safety_break, limits, constraints`` (a flag in the sixth place
            says which). ``solve_ik(configuration, tasks, dt, "quadprog", 1e-3)`` is
            ``solver="quadprog", damping=1e-3``.
        solver_kwargs: passed to the QP solver (or options of the chosen backend). pink's
            and mink's ``safety_break=True`` checks q against the model's position limits
            before the step (:meth:`Configuration.check_limits`); ``safety_break=False`` and
            empty ``constraints``/``barriers`` are accepted (they ask for what taskik does);
            other ``constraints`` raise :class:`InvalidInput` naming the taskik way. pink's
            ``barriers=[...]`` takes taskik limits (e.g.
            :class:`taskik.limits.PositionBarrier`), added to ``limits`` (the model's when
            None), and adds each one's ``safe_damping`` to ``damping``, as pink does.

        strict: what to do when the limits conflict (no ``v`` meets them all: an obstacle
            pins the arm against a table). ``False`` (default): the step that violates the
            least (:mod:`taskik.relax`): the box (joint ranges, velocity limits) holds, the
            inequality rows give way in the documented order by the smallest slack, and
            :func:`taskik.last_relaxation` (and :func:`taskik.report`) names each relaxed
            row and by how much. ``True``: raise :class:`NoSolutionFound` instead.


    Raises:
        InvalidInput: bad dt, damping, task or limit list, or solver name.
        NotWithinConfigurationLimits: ``safety_break=True`` and q is outside its limits.
        NoSolutionFound: with ``strict=True``, the limits conflict (the message names them);
            in either mode, the solver failed on a QP whose limits do not conflict (options
            that stop it early, a QP out of floating-point range).
    """
    if type(configuration) is not Configuration and not isinstance(configuration, Configuration):
        raise InvalidInput(
            f"configuration must be a taskik.Configuration, got {type(configuration).__name__}"
            + (
                " (wrap the model: taskik.Configuration(model, q))"
                if _is_model(configuration)
                else ""
            )
        )
    if len(args) == 1 and limits is None and not isinstance(args[0], str):
        limits = args[0]  # (the common positional call: solve_ik(conf, tasks, dt, limits))
    elif args:  # (pink's and mink's solve_ik(configuration, tasks, dt, "quadprog", 1e-3))
        given = dict(limits=limits, solver=solver, damping=damping, backend=backend)
        named = _positional(args, dict(solver_kwargs, adaptive=adaptive, **given))
        limits = named.pop("limits", limits)
        solver = named.pop("solver", solver)
        damping = named.pop("damping", damping)
        backend = named.pop("backend", backend)
        adaptive = named.pop("adaptive", adaptive)
        solver_kwargs.update(named)
    barriers = _check_pink_keywords(solver_kwargs, configuration) if solver_kwargs else None
    if type(dt) is not float or not MIN_DT <= dt < math.inf:
        dt = check_dt(dt, "dt (s)")
    if type(damping) is not float or damping != 1e-12:
        damping = check_damping(damping)
    if barriers:
        limits, damping = _with_barriers(configuration, limits, barriers, damping)
    if adaptive is not True and adaptive is not False:
        if not isinstance(adaptive, np.bool_):
            raise InvalidInput(f"adaptive must be True or False, got {adaptive!r}")
        adaptive = bool(adaptive)
    if strict is not False and strict is not True:
        strict = check_bool(strict, "strict")
    try:
        if backend != "qp":
            return _wide(
                configuration.nv,
                solve_unconstrained,
                configuration, tasks, dt, limits, backend, damping, **solver_kwargs,
            )  # fmt: skip
        if is_hierarchy(tasks):
            return _wide(
                configuration.nv,
                solve_hierarchy,
                configuration, tasks, dt, limits, solver, damping,
                adaptive=adaptive, strict=strict, **solver_kwargs,
            )  # fmt: skip
        if solver is None or (type(solver) is str and solver == _DEFAULT_SOLVER):
            solver = _DEFAULT_SOLVER
        else:
            solver = check_solver(solver)
        asm = get_assembler(configuration, tasks, limits)
    except TypeError:  # (the plan cache reads the tasks before they are checked)
        _check_task_items(tasks)
        raise
    heavy = asm.blas_heavy
    if heavy is None:  # (a product large enough for BLAS's thread pool: one thread)
        heavy = asm.blas_heavy = asm.dense_work >= THREADED_WORK
    if not heavy:
        return _qp_step(configuration, asm, dt, solver, damping, adaptive, strict, solver_kwargs)
    held = hold()
    try:
        return _qp_step(configuration, asm, dt, solver, damping, adaptive, strict, solver_kwargs)
    finally:
        release(held)


def _qp_step(
    configuration: Configuration,
    asm: Assembler,
    dt: float,
    solver: str,
    damping: float,
    adaptive: bool,
    strict: bool,
    solver_kwargs: dict[str, Any],
) -> np.ndarray:
    """The QP step of :func:`solve_ik` on the plan ``asm`` (arguments checked)."""
    control = None
    needs_errors = False
    if adaptive:
        control = asm.adaptive
        if control is None:
            control = asm.adaptive = AdaptiveDamping([slice(0, len(asm.c))])
        needs_errors = control.start(configuration, asm)
    # limits that check the solved step (CollisionLimit: rows for the near pairs only, the
    # others checked after the solve) are told the step will be checked
    checked = asm.checked_limits
    for lim in checked:
        lim.expect_check()  # type: ignore[attr-defined]
    try:
        P, r, G, h, lb, ub = asm.assemble(configuration, dt, damping, True, not strict)
    except BaseException:  # (an announcement left standing would thin a later caller's rows)
        for lim in checked:
            lim.expect_check(False)  # type: ignore[attr-defined]
        raise
    s = None
    if control is not None and needs_errors:  # (else not in a closed loop, ν = 0)
        s = asm.weighted_errors(dt)
        extra = control.dampings(asm, s, [0.0])[0]
        if extra:
            asm._P_diag += extra
    arrays = (P, r, G, h, lb, ub)
    if control is not None and control.resting and control.rests(lb, ub, h):
        x, relaxation = np.zeros(len(r)), None  # the loop is at rest (see taskik.trust_region)
    else:
        x, relaxation = _solve_arrays(arrays, asm, dt, solver, strict, solver_kwargs)
    while checked:  # (each round adds rows of pairs without any: at most one per pair)
        more = _checked_rows(checked, configuration, asm, arrays, x, dt)
        if more is None:
            break
        arrays = more
        x, relaxation = _solve_arrays(arrays, asm, dt, solver, strict, solver_kwargs)
    if not strict:
        if asm.resolved and relaxation is None:
            relaxation = Relaxation(bounds=list(asm.resolved), dt=dt)
        if relaxation is not None:
            relaxation.v = x
        record(configuration, relaxation)
    if control is not None:
        control.record(configuration, asm, s, x, dt)
    return x


def _solve_arrays(
    arrays: QPArrays,
    asm: Assembler,
    dt: float,
    solver: str,
    strict: bool,
    solver_kwargs: dict[str, Any],
) -> tuple[np.ndarray, Relaxation | None]:
    """The QP ``arrays`` solved: warm DAQP in the common case, else the checked path, and
    the least-violating step when the limits conflict (unless ``strict``)."""
    P, r, G, h, lb, ub = arrays
    x = None
    if solver == "daqp" and lb is not None and ub is not None and not solver_kwargs:
        # the common case: a warm-started DAQP workspace; failures take the full, checked path
        workspace = asm.qp_workspace
        if workspace is None:
            workspace = asm.qp_workspace = DaqpWorkspace()
        # (projected onto the box: limits hold exactly)
        if G is None:
            x = workspace.solve_box(P, r, lb, ub)
        elif h is not None:
            x = workspace.solve_rows(P, r, G, h, lb, ub)
    relaxation = None
    if x is None:
        try:
            x = solve_qp_arrays(
                P, r, G, h, lb, ub, solver, lambda: asm.boxes, asm.limits, **solver_kwargs
            )
        except NoSolutionFound as error:
            if strict:
                raise
            x, relaxation = _relaxed_step(arrays, asm, dt, solver, error, solver_kwargs)
    return x, relaxation


def _step_check(lim: Limit) -> Callable[..., Any]:
    """``lim``'s check of the step the solver produced (at the configuration and ``dt`` the
    rows were computed for, a finite float64 ``v`` of size nv): its ``_check_solved`` when its
    class's ``check_step`` is the one that only checks the arguments before calling it (the
    class says so with ``_validating_check = check_step``), else its ``check_step`` (a
    subclass's own included)."""
    cls = type(lim)
    if cls.check_step is getattr(cls, "_validating_check", None):  # type: ignore[attr-defined]
        return lim._check_solved  # type: ignore[attr-defined]
    return lim.check_step  # type: ignore[attr-defined]


def _checked_rows(
    checked: list[Limit],
    configuration: Configuration,
    asm: Assembler,
    arrays: QPArrays,
    x: np.ndarray,
    dt: float,
) -> QPArrays | None:
    """The QP ``arrays`` with the rows of each limit of ``checked`` whose ``check_step``
    finds the step ``x`` wanting replaced by the rows it returns (``asm.row_limits``
    updated); None when every check passes."""
    P, r, G, h, lb, ub = arrays
    changed = False
    for lim in checked:
        rows = _step_check(lim)(configuration, x, dt)
        if rows is None:
            continue
        changed = True
        blocks, start, G_parts, h_parts, found = [], 0, [], [], False
        for other, n in asm.row_limits:
            if other is lim:
                G_parts.append(rows[0])
                h_parts.append(rows[1])
                blocks.append((lim, len(rows[1])))
                found = True
            elif G is not None and h is not None:
                G_parts.append(G[start : start + n])
                h_parts.append(h[start : start + n])
                blocks.append((other, n))
            start += n
        if not found:
            G_parts.append(rows[0])
            h_parts.append(rows[1])
            blocks.append((lim, len(rows[1])))
        G, h = np.vstack(G_parts), np.concatenate(h_parts)
        asm.row_limits = blocks
    return (P, r, G, h, lb, ub) if changed else None


def _wide(nv: int, solve: Callable[..., np.ndarray], *args: Any, **kwargs: Any) -> np.ndarray:
    """``solve(*args, **kwargs)``, with BLAS held to one thread when ``nv³`` reaches
    :data:`~taskik.backends.blas_threads.THREADED_WORK` (the products of the hierarchy and
    of the unconstrained backends are ``nv × nv`` and larger)."""
    if nv**3 < THREADED_WORK:
        return solve(*args, **kwargs)
    held = hold()
    try:
        return solve(*args, **kwargs)
    finally:
        release(held)


def _check_task_items(tasks: object) -> None:
    """:class:`InvalidInput` when ``tasks`` (a list or a list of levels) holds something
    that is not a task, e.g. a task class instead of a task object."""
    if is_hierarchy(tasks):  # type: ignore[arg-type]
        check_levels(tasks)
    else:
        check_tasks(tasks)  # type: ignore[arg-type]


def _relaxed_step(
    qp: QPArrays,
    asm: Assembler,
    dt: float,
    solver: str,
    error: NoSolutionFound,
    kwargs: dict[str, Any],
) -> tuple[np.ndarray, Relaxation]:
    """The step when the QP ``qp`` of ``asm``'s last assembly failed with ``error``: the
    best step within the least-relaxed rows (:mod:`taskik.relax`). Raises ``error`` again
    when no row had to give way (the failure was the solver's, not a conflict)."""
    P, r, G, h, lb, ub = qp
    if not relaxable(h, lb, ub):
        raise error  # (NaN limits: nothing to relax, the error names them)
    h_relaxed, v_least, relaxation = relaxed_rows(G, h, lb, ub, asm.row_limits, dt)
    relaxation.bounds = list(asm.resolved)
    if h_relaxed is None or v_least is None:
        if G is None:
            raise error
        relaxation.fallback = True  # (the box and the rows fail even relaxed: rest)
        return rest_within(lb, ub, len(r)), relaxation
    try:
        v = solve_qp_arrays(
            P, r, G, h_relaxed, lb, ub, solver, lambda: asm.boxes, asm.limits, **kwargs
        )
    except NoSolutionFound:
        if not relaxation.rows:
            raise error from None
        relaxation.fallback = True
        return v_least, relaxation
    return v, relaxation
