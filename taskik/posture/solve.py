"""The entry point :func:`solve_posture`: check the options, pick the search loop (the
single-pose loop for one plain frame task, the general loop otherwise) and where the
searches start, then run the searches."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_bool, check_positive_scalar, check_scalar
from ..limits.limit import Limit
from ..tasks._frames import MAX_TARGET, require_target
from ..tasks.damping import DampingTask
from ..tasks.frame import FrameTask
from ..tasks.posture import PostureTask
from ..tasks.task import Task
from ..validation import check_levels, check_limit_model, check_limits, check_tasks
from .context import context
from .fast_pose import FastPose
from .formulas import DEFAULT_DAMPING, METHODS, check_damping
from .general import GeneralSearch
from .joint_limits import JOINT_LIMIT_POLICIES
from .result import PostureResult
from .search import SearchOptions, search_loop
from .select import SELECTS, time_from
from .starts import STARTS, NearestStarts, RandomStarts, SeedMemory, memory_weights

#: Pose errors of the single-pose loop (``pose_error`` of :func:`solve_posture`).
POSE_ERRORS = ("log6", "world")


#: Methods of :func:`solve_posture` with priority levels.
LEVEL_METHODS = ("lm-chan", "gn", "qp")

#: Task types that are regularization when a task list also has other tasks.
REGULARIZERS = (PostureTask, DampingTask)


def check_target_sizes(tasks: Sequence[Task]) -> None:
    """:class:`InvalidInput` naming the first task whose target has an entry beyond
    :data:`MAX_TARGET` in magnitude (a ``pin.SE3``'s translation, an array or a number):
    its squared error overflows, and the search could only report ``E = inf``. Targets
    of other kinds (a task of your own) are not looked at."""
    for task in tasks:
        target = getattr(task, "target", None)
        if target is None:
            continue
        if type(target) is pin.SE3:
            x, y, z = target.translation.tolist()  # (floats: cheaper than numpy here)
            big = max(abs(x), abs(y), abs(z))
        else:
            try:
                big = float(np.max(np.abs(np.asarray(target, dtype=float))))
            except (TypeError, ValueError):  # (not numbers, or empty: not ours to judge)
                continue
        _check_size(task, big)


def _check_size(task: Task, big: float) -> None:
    """:func:`check_target_sizes`'s verdict on the largest entry ``big`` of a target."""
    if big > MAX_TARGET:
        raise InvalidInput(
            f"{type(task).__name__}'s target has an entry of {big:.3g}: beyond "
            f"{MAX_TARGET:g} (m or rad) its squared error overflows a float, so "
            "solve_posture refuses it; bring the target within reach of the model"
        )


def solve_posture(
    conf_or_model: Configuration | pin.Model,
    tasks: Sequence[Task] | Sequence[Sequence[Task]] | Task,
    *,
    method: str = "lm-chan",
    damping: npt.ArrayLike | None = None,
    tol: float = 1e-6,
    max_iterations: int = 15,
    max_searches: int = 100,
    q0: np.ndarray | None = None,
    starts: str = "memory",
    joint_limits: str = "clip",
    regularization: Sequence[Task] | None = None,
    stagnation: float = 1e-3,
    patience: int = 3,
    rng: np.random.Generator | int | None = None,
    time_budget: float | None = None,
    pose_error: str = "log6",
    limits: Sequence[Limit] | None = None,
    select: str = "first",
    strict: bool = False,
) -> PostureResult:
    """Find a configuration ``q`` at which every goal task's weighted error is (near) zero.

    Iterates ``q ← q ⊕ A⁻¹ g`` (see the module docstring for ``A``, ``g`` and the methods)
    until ``E = ½ Σ_i ‖W_i e_i‖² < tol`` over the goal tasks.

    How success is judged: ``success`` is ``E < tol`` with E summed over the *goal* tasks
    only. Regularization tasks shape every step but are not in E: by default the
    :class:`PostureTask` and :class:`DampingTask` of a list that also has other tasks
    (``[*feet, com, posture]``: a posture that pulls towards a reference can never be met
    exactly together with the others, and must not make a met CoM and feet a failure);
    ``regularization=[...]`` names them instead (``[]``: every task is a goal).

    A search ends after ``max_iterations`` evaluations of E, or earlier when it stagnates
    (for ``patience`` iterations in a row, E has not dropped below ``1 − stagnation`` times
    the E of its last such drop), or when a step cannot be computed (singular matrix); the
    next search starts elsewhere (see ``starts``). Iterations are counted across searches.

    Threads: safe to call from several threads at once, on one model or several: the work
    state kept between calls (a work configuration, the single-pose loop's Pinocchio
    ``Data`` and target) is per model *and per thread*; the seed memories are shared, read
    only. A task object must not be used by two threads at once (its target and caches are
    the caller's). Threads share the GIL: for throughput use processes
    (``taskik.batch.solve_poses``).

    Args:
        conf_or_model: a :class:`Configuration` (its q is the first start; it is not
            modified) or a ``pinocchio.Model`` (first start ``q0``, or chosen by ``starts``).
        tasks: the tasks to satisfy (targets set). Their costs ``W_i`` weight the errors,
            their gains scale the correction of each step, and a task's own ``lm_damping``
            adds ``μ_i = λ_i Kp_i² ‖W_i e_i‖²`` to ``W_n``. Or priority levels, as for
            :func:`taskik.solve_ik`: ``[[*feet, com], [posture]]``; each step is then the
            hierarchy's (level ``k`` takes its damped Gauss–Newton step in what the levels
            above leave free), with ``method`` one of :data:`LEVEL_METHODS`.
        method: one of :data:`METHODS` (default ``"lm-chan"``).
        damping: λ of ``lm-wampler`` (default 1e-4), ``lm-chan`` and ``qp`` (0.1); w̄ of
            ``lm-sugihara`` (1e-3, scalar or nv-vector); unused by NR/GN.
        tol: convergence threshold on E (units of the squared weighted errors).
        max_iterations: evaluations of E per search (≥ 1).
        max_searches: searches (≥ 1).
        q0: first start when a model is given (size nq).
        starts: where the searches start when no start is given (a model without ``q0``),
            one of :data:`STARTS`:

            - ``"memory"`` (default): when ``tasks`` is a single :class:`FrameTask`, the
              first search starts from the nearest entry of a seed memory: 512
              configurations within the joint limits whose frame poses cover the
              workspace (kept by farthest-point sampling among 8192 uniform draws; built
              on first use, once per model and frame, in about 0.1 s, with a fixed seed:
              results are reproducible). Nearest means the lowest
              ``|p_i − p*|² + 0.1 m² · (3 − tr(R_iᵀR*))`` for entry pose ``(p_i, R_i)``
              and target ``(p*, R*)`` (positions in m; ``3 − tr(R_iᵀR*) = 2 (1 − cos θ)``
              with θ the angle between the two orientations; with non-unit costs the two
              terms are weighted by the mean squared position and orientation costs). The
              next searches start from the next nearest entries (8 of them), then from
              random valid configurations. For any other task list, the same as
              ``"random"``.
            - ``"random"``: every search from a random valid configuration (uniform within
              the joint limits, ``± π`` around the neutral configuration for unbounded
              joints), as in Haviland & Corke's Table 1.

            With a :class:`Configuration` or ``q0``, that q is the first start and the
            next searches start from random valid configurations, whatever ``starts``.
            The lookup in the memory is not counted in ``iterations``.
        joint_limits: ``"clip"``, ``"reject"`` or ``"ignore"`` (module docstring).
        regularization: tasks added to every step (e.g. a low-cost :class:`PostureTask`)
            but not to E: they shape the solution without blocking convergence. None
            (default): the :class:`PostureTask` and :class:`DampingTask` of ``tasks`` when
            it has other tasks too (with levels: a level of only such tasks); ``[]``: none.
            With levels, the tasks given here form one more level, the lowest.
        limits: more limits for the QP steps of ``method="qp"`` and of priority levels,
            besides the joint position range (e.g. a :class:`taskik.CollisionLimit`: the
            configuration found keeps out of collision). Other methods have no inequality
            constraints and refuse them.
        stagnation, patience: stagnation test of a search (see above).
        rng: numpy Generator or seed for the random starts (None: fresh entropy).
        time_budget: wall-clock limit (s) for the whole solve; None for none.
        pose_error: for a single :class:`FrameTask` only, the pose error of the step and of
            E: ``"log6"`` (the task's own error ``log6(T⁻¹T*)`` with the frame Jacobian) or
            ``"world"`` (Haviland & Corke eq. 37: ``[p* − p; α(R* Rᵀ)]`` with the
            world-aligned Jacobian), used to reproduce their Table 1.
        select: which solution to return, one of :data:`SELECTS`. ``"first"`` (default):
            the first search that converges ends the solve. ``"nearest"``: every search
            runs (``max_searches`` of them, or until ``time_budget``) and, of the solutions
            found, the one a motion within the model's velocity limits reaches soonest from
            the start: least ``max_i |Δq_i| / v_max,i`` (s), ``Δq = q ⊖ q_start``,
            ``v_max = model.velocityLimit`` (joints without a finite one not counted), each
            revolute angle at its representative within range nearest the start. Needs a
            start (a :class:`Configuration` or ``q0``). For a loop that then drives the
            joints to ``q`` at their velocity limits (a ``PostureTask(1)`` on it), this is
            the solution it reaches first; it costs every search instead of one.
        strict: the QP steps (``method="qp"``, priority levels) when ``limits`` conflict
            at an iterate: ``False`` (default) takes the step that violates them the least
            (:mod:`taskik.relax`; an iterate closer than a collision limit's safety distance
            is still never the answer); ``True`` ends that search instead, as before
            (``reason`` names the conflict if no search converges).

    Returns:
        A :class:`PostureResult`; never raises for an unreachable target (``success`` is
        False, ``q`` is the best configuration found and ``reason`` says why it stopped).

    Raises:
        InvalidInput: bad option, task list or starting configuration.
    """
    t_start = time.perf_counter()
    if not (  # the common case in one expression; otherwise the checks that name the problem
        method in METHODS
        and joint_limits in JOINT_LIMIT_POLICIES
        and starts in STARTS
        and pose_error in POSE_ERRORS
        and type(tol) is float
        and 0.0 < tol < math.inf
        and type(max_iterations) is int
        and max_iterations >= 1
        and type(max_searches) is int
        and max_searches >= 1
        and time_budget is None
    ):
        tol, max_iterations, max_searches, time_budget = _check_options(
            method, joint_limits, tol, max_iterations, max_searches, time_budget, starts,
            pose_error,
        )  # fmt: skip
    if strict is not False and strict is not True:
        strict = check_bool(strict, "strict")
    if type(select) is not str or select != "first":  # (the default needs no check)
        if not (isinstance(select, str) and select in SELECTS):  # str subclasses: np.str_
            raise InvalidInput(f"select must be one of {', '.join(SELECTS)}, got {select!r}")
        select = str(select)
    if not (type(patience) is int and patience >= 1):
        patience = _check_count(patience, "patience")
    if not (type(stagnation) is float and 0.0 <= stagnation < 1.0):
        stagnation = check_scalar(stagnation, "stagnation", 0.0, 1.0, high_open=True)
    if (
        rng is not None
        and not isinstance(rng, np.random.Generator)
        and (isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0)
    ):
        raise InvalidInput(
            f"rng must be a numpy Generator, a seed (an int >= 0) or None, got {rng!r}"
        )
    if type(conf_or_model) is pin.Model or isinstance(conf_or_model, pin.Model):
        model = conf_or_model
        q_first = q0
    elif isinstance(conf_or_model, Configuration):
        model = conf_or_model.model
        q_first = conf_or_model.q if q0 is None else q0
    else:
        raise InvalidInput(
            "conf_or_model must be a taskik.Configuration or a pinocchio.Model, got "
            f"{type(conf_or_model).__name__}"
        )
    levels: list[list[Task]] | None = None
    task_list: list[Task] | None
    if isinstance(tasks, (list, tuple)) and tasks and isinstance(tasks[0], (list, tuple)):
        levels = check_levels(tasks)
        if method not in LEVEL_METHODS:
            raise InvalidInput(
                f"with priority levels, method must be one of {LEVEL_METHODS}, got {method!r}"
            )
        task_list = [t for level in levels for t in level]
    elif isinstance(tasks, Task):
        task_list = [tasks]
    elif type(tasks) is not list:
        task_list = list(tasks) if isinstance(tasks, tuple) else None
    else:
        task_list = tasks
    if not task_list or not (
        isinstance(task_list[0], Task)
        if len(task_list) == 1
        else all(isinstance(t, Task) for t in task_list)
    ):
        if task_list:
            check_tasks(task_list)  # names a task class given for a task object
        raise InvalidInput("tasks must be a non-empty list of Task objects")
    if regularization is None:
        regularization = []
        if levels is not None:
            goal_levels = [lv for lv in levels if not all(isinstance(t, REGULARIZERS) for t in lv)]
            if goal_levels and len(goal_levels) < len(levels):
                regularization = [t for lv in levels if lv not in goal_levels for t in lv]
        elif len(task_list) > 1 and not all(isinstance(t, REGULARIZERS) for t in task_list):
            regularization = [t for t in task_list if isinstance(t, REGULARIZERS)]
        if regularization:
            task_list = [t for t in task_list if all(t is not r for r in regularization)]
    else:
        if isinstance(regularization, Iterator):  # a generator: its tasks
            regularization = list(regularization)
        regularization = check_tasks(regularization, "regularization")
        if levels is not None and regularization:
            levels = [*levels, regularization]
    if len(task_list) != 1 or type(task_list[0]) is not FrameTask:
        check_target_sizes(task_list)  # (a single FrameTask: checked below, on its vector)
    if regularization:
        check_target_sizes(regularization)
    if damping is None and method == "lm-chan":
        damping = DEFAULT_DAMPING["lm-chan"]
    else:
        damping = check_damping(method, damping, model.nv)

    step_limits = check_limits(limits) if limits is not None else []
    if step_limits and levels is None and method != "qp":
        raise InvalidInput(
            f"limits apply to method='qp' and to priority levels (their steps are QPs); "
            f"method {method!r} has no inequality constraints"
        )
    for lim in step_limits:
        check_limit_model(lim, model)
    ctx = context(model)
    ranges = ctx.limits
    conf = ctx.conf  # a work configuration: the caller's is never modified
    given = q_first is not None
    if q_first is not None:
        q_first = conf.check_q(q_first)
    deadline = None if time_budget is None else t_start + float(time_budget)
    distance = None
    if select == "nearest":
        if q_first is None:
            raise InvalidInput(
                "select='nearest' measures from the start: give a Configuration or q0"
            )
        distance = time_from(model, ranges, q_first)

    task = task_list[0]
    frame_task = task if len(task_list) == 1 and isinstance(task, FrameTask) else None
    single_frame = frame_task is not None
    if frame_task is not None:
        target = require_target(frame_task.target, frame_task)
        fid = frame_task.frame.id(conf)
        if type(frame_task) is FrameTask:  # check_target_sizes, on [translation, quaternion]
            xt = pin.SE3ToXYZQUAT(target)
            x, y, z = xt.tolist()[:3]
            _check_size(frame_task, max(abs(x), abs(y), abs(z)))
    fast = (
        levels is None
        and single_frame
        and type(task) is FrameTask
        and not regularization
        and method != "qp"
        and ranges.all_q
        and not step_limits
        and model.nv > 1  # (Pinocchio gives a one-column Jacobian as a vector)
        and task._gain == 1.0
        and task._lm_damping == 0.0
        and unit_cost(task)
    )
    if pose_error == "world" and not fast:
        if not (single_frame and type(task) is FrameTask and not regularization):
            raise InvalidInput("pose_error='world' applies to a single FrameTask only")
        raise InvalidInput(
            "pose_error='world' needs unit costs, gain 1, no lm_damping, a fixed-base model "
            "with 1-DoF joints and a method other than 'qp'"
        )
    runner: FastPose | GeneralSearch
    if fast:
        runner = ctx.fast_pose(fid, pose_error)
        runner.set_target(target, xt)
    else:
        runner = GeneralSearch(conf, task_list, regularization, levels, step_limits, strict)
    start = None  # (pose, LOCAL Jacobian) at q_first when the seed memory knows them
    memory: SeedMemory | None = None
    scores: np.ndarray | None = None
    nearest = 0
    if q_first is None:  # (not given)
        if frame_task is not None and starts == "memory":
            memory = ctx.memory(fid)
            h = target.homogeneous.ravel()
            if not unit_cost(frame_task):
                h = h * memory_weights(frame_task)
            scores = memory.G.dot(h)
            nearest = int(scores.argmin())
            q_first = memory.rows[nearest]  # read-only view: copied before any change
            if fast and pose_error == "log6":
                start = memory.starts[nearest]
        else:
            q_first = RandomStarts(model, ranges, ctx.neutral, rng)()

    def restarts() -> Callable[[], np.ndarray]:
        sampler = RandomStarts(model, ranges, q_first if given else ctx.neutral, rng)
        if memory is None or scores is None:  # (set together)
            return sampler
        return NearestStarts(memory, scores, nearest, sampler)

    options = SearchOptions(
        method, damping, tol, max_iterations, stagnation, patience, deadline
    )  # fmt: skip
    q, success, iterations, searches, E, reason = search_loop(
        runner, options, joint_limits, ranges, max_searches, q_first, start, restarts, distance
    )
    residuals = (E,) if fast else runner.residuals(q)
    return PostureResult(
        q, success, iterations, searches, E, residuals, time.perf_counter() - t_start, reason,
        method,
    )  # fmt: skip


def _check_options(
    method: str,
    joint_limits: str,
    tol: float,
    max_iterations: int,
    max_searches: int,
    time_budget: float | None,
    starts: str,
    pose_error: str,
) -> tuple[float, int, int, float | None]:
    """The options checked and normalised: ``(tol, max_iterations, max_searches,
    time_budget)``; :class:`InvalidInput` naming the first bad one."""
    if method not in METHODS:
        raise InvalidInput(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if joint_limits not in JOINT_LIMIT_POLICIES:
        raise InvalidInput(
            f"joint_limits must be one of {', '.join(JOINT_LIMIT_POLICIES)}, got {joint_limits!r}"
        )
    if starts not in STARTS:
        raise InvalidInput(f"starts must be one of {', '.join(STARTS)}, got {starts!r}")
    if pose_error not in POSE_ERRORS:
        raise InvalidInput(f"pose_error must be 'log6' or 'world', got {pose_error!r}")
    tol = check_positive_scalar(tol, "tol")
    max_iterations = _check_count(max_iterations, "max_iterations")
    max_searches = _check_count(max_searches, "max_searches")
    if time_budget is not None:
        time_budget = check_positive_scalar(time_budget, "time_budget (s, or None)")
    return tol, max_iterations, max_searches, time_budget


def _check_count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidInput(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def unit_cost(task: Task) -> bool:
    """True when every cost of ``task`` is 1 (cached per cost version of the task)."""
    cached = getattr(task, "_ik_unit_cost", None)
    if cached is not None and cached[0] == task._version:
        return cached[1]
    unit = bool((task._cost == 1.0).all())
    task._ik_unit_cost = (task._version, unit)
    return unit
