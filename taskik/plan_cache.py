"""Plans the solvers keep between steps, per configuration.

A *plan* is what a solver builds once for a list of tasks and limits and reuses at every
step: the stacked buffers of the assembly (:class:`taskik.problem.Assembler`), the layout of
priority levels, warm-started QP workspaces. Building one costs far more than a step, so
each :class:`~taskik.configuration.Configuration` owns a :class:`PlanCache`
(``configuration.plans``) that finds the plan of a task list again.

The cache knows nothing of tasks or solvers: it keys a plan on *what* the tasks and limits
are, never on which objects they are: each task's ``plan_key()`` (its type, with its frames
or row count where the rows depend on them, for every built-in task; nested lists for
levels) and each limit's ``plan_key()`` (the values its plan is worked out
from: the caps of a velocity limit, the velocities a position limit bounds), and calls
``build()`` on a miss. A plan found for a list of other objects with the same key (a list
built anew at every step, as scripts do) is handed to ``rebind(plan)``, which points it at
the new objects: their targets, costs, gains and bounds are read at the next step. Task and
limit classes of your own are keyed by their identity (the cache cannot see what their rows
depend on); a plan holds references to its tasks and limits, so an identity in its key is
not reused while it is cached. Levels key their limits the same way (the hierarchy's plan
is rebound to new limit objects through its assembler). Editing a list in place (adding, removing or
reordering items) selects another plan. Repeated calls with the same list objects take a
one-entry fast path per kind of plan: the last lists and copies of their contents, compared
by identity, and the keys of the static limits (whose boxes a plan works out once), compared
by value, so new velocity caps select the plan of the new caps (a limit that keeps its key
in ``_plan_key``, replaced when a value changes, as the built-in ones do, is checked with
one lookup).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_is = operator.is_

#: Plans kept per configuration (the oldest are dropped together when it is full).
MAX_PLANS = 16


class PlanCache:
    """The plans of one configuration: one method per kind of plan, each with a
    ``build()`` callback that makes the plan on a miss (and validates the lists).

    Lists that cannot be keyed (not a list or tuple) are not cached: ``build()`` runs every
    time and raises the error that names the problem.
    """

    __slots__ = ("_plans", "_last")

    def __init__(self) -> None:
        # Plans of every kind (assemblers, hierarchy layouts...): each method's caller knows
        # the type of the plans it builds, the cache does not.
        self._plans: dict[tuple[str, object, tuple[object, ...] | None], Any] = {}
        # per kind: (a copy of the tasks or levels, a copy of the limits or None, the plan,
        # the (position, key) of each static limit)
        self._last: dict[
            str, tuple[list[object], list[object] | None, Any, list[tuple[int, object]]]
        ] = {}

    def __len__(self) -> int:
        return len(self._plans)

    def clear(self) -> None:
        """Drop every plan (they are rebuilt on next use)."""
        self._plans.clear()
        self._last.clear()

    def step(
        self,
        tasks: Sequence[object],
        limits: Sequence[object] | None,
        build: Callable[[], T],
        rebind: Callable[[T], object],
        tried: bool = False,
    ) -> T:
        """The plan of a flat task list (one weighted level); ``tried``: the caller has
        just found :meth:`repeated` None for these lists (it is not asked again)."""
        if not tried:
            plan = self._repeated("step", tasks, limits)
            if plan is not None:
                return plan
        if not (type(tasks) is list or type(tasks) is tuple) or not _keyable(limits):
            return build()
        try:  # (tasks: each has plan_key; anything else is keyed below, build() names it)
            task_keys = tuple([task.plan_key() for task in tasks])
        except AttributeError:
            task_keys = tuple(map(_task_key, tasks))
        key = ("step", task_keys, _limit_keys(limits))
        return self._find(key, tasks, limits, build, rebind)

    def levels(
        self,
        levels: Sequence[Sequence[object]],
        limits: Sequence[object] | None,
        build: Callable[[], T],
        rebind: Callable[[T], object],
    ) -> T:
        """The plan of a list of priority levels (lists of tasks)."""
        plan = self._repeated("levels", levels, limits)
        if plan is not None:
            return plan
        if (
            not (type(levels) is list or type(levels) is tuple)
            or not all(type(level) is list or type(level) is tuple for level in levels)
            or not _keyable(limits)
        ):
            return build()
        key = (
            "levels",
            tuple(tuple(map(_task_key, level)) for level in levels),
            _limit_keys(limits),
        )
        return self._find(key, levels, limits, build, rebind)

    def _repeated(self, kind: str, tasks: object, limits: object) -> Any:
        """The plan of the last call of kind ``kind`` (``"step"``, ``"levels"``) when it had
        the same contents (tasks compared by identity, level by level for levels; the list
        itself may be another one, or the same one edited), else None. Public as
        :meth:`repeated`, for callers that try it before making the ``build`` and
        ``rebind`` callbacks of :meth:`step`."""
        last = self._last.get(kind)
        if (
            last is not None
            and type(tasks) is list
            and _same_items(last[0], tasks)
            and (
                last[1] is None
                if limits is None
                else last[1] is not None and type(limits) is list and _same_items(last[1], limits)
            )
            and _same_static_keys(last[3], limits)
        ):
            return last[2]
        return None

    repeated = _repeated

    def last_step(self, tasks: object, limits: object) -> Any:
        """:meth:`repeated` for a flat task list (kind ``"step"``), in one frame: the plan
        of the last :meth:`step` when ``tasks`` and ``limits`` hold the same objects in the
        same order as then, else None."""
        last = self._last.get("step")
        if last is None or type(tasks) is not list:
            return None
        copy, copied_limits, plan, static = last
        if len(copy) != len(tasks) or not all(map(_is, copy, tasks)):
            return None
        if limits is None:
            return plan if copied_limits is None else None
        if (
            copied_limits is None
            or type(limits) is not list
            or len(copied_limits) != len(limits)
            or not all(map(_is, copied_limits, limits))
        ):
            return None
        for k, key in static:  # (a static limit's values, changed: another plan)
            limit = limits[k]
            # (the built-in limits keep their key, replaced when a value changes: one lookup)
            if limit.__dict__.get("_plan_key") is not key and limit.plan_key() != key:
                return None
        return plan

    def _find(
        self,
        key: tuple[str, object, tuple[object, ...] | None],
        tasks: Sequence[object],
        limits: Sequence[object] | None,
        build: Callable[[], T],
        rebind: Callable[[T], object],
    ) -> T:
        plan = self._plans.get(key)
        if plan is None:
            plan = build()
            if len(self._plans) >= MAX_PLANS:
                self._plans.clear()
            self._plans[key] = plan
        else:
            rebind(plan)  # (the same structure, perhaps other task objects)
        kind = key[0]
        if kind == "step" and type(tasks) is list:
            copy = list(tasks)  # (a flat list: solve_ik sends lists of levels elsewhere)
        elif type(tasks) is list and all(type(x) is not tuple for x in tasks):
            copy = [list(x) if type(x) is list else x for x in tasks]
        else:
            copy = None
        if copy is not None:
            static: list[tuple[int, object]] = []
            if limits:
                keys: Any = key[2] if kind == "step" else _limit_keys(limits)
                last = self._last.get(kind)
                if (  # the same limit objects as the last call, with the same keys
                    last is not None
                    and last[1] is not None
                    and len(last[1]) == len(limits)
                    and all(map(_is, last[1], limits))
                    and all(keys[k] == lim_key for k, lim_key in last[3])
                ):
                    static = last[3]
                else:
                    static = [
                        (k, lim_key)
                        for k, (lim, lim_key) in enumerate(zip(limits, keys, strict=True))
                        if getattr(lim, "static", False)
                    ]
            self._last[kind] = (copy, None if limits is None else list(limits), plan, static)
        else:
            self._last.pop(kind, None)  # tuples compare unequal to the copies: no fast path
        return plan


def _same_items(copy: list[Any], items: list[Any]) -> bool:
    """Whether ``items`` holds the same objects as ``copy``, in the same order (levels: the
    same objects in lists of the same lengths). Identity only: ``==`` would ask the items."""
    if len(copy) != len(items):
        return False
    if all(map(operator.is_, copy, items)):
        return True
    if not copy or type(copy[0]) is not list:  # (a flat task list: identity was the test)
        return False
    return all(
        type(x) is list and type(y) is list and len(x) == len(y) and all(map(operator.is_, x, y))
        for x, y in zip(copy, items, strict=True)
    )


def _task_key(task: object) -> object:
    """A task's ``plan_key()`` (its structure); the identity of anything else."""
    key = getattr(task, "plan_key", None)
    return id(task) if key is None else key()


def _keyable(limits: object) -> bool:
    return limits is None or type(limits) is list or type(limits) is tuple


def _limit_key(limit: object) -> object:
    """A limit's ``plan_key()`` (the values its plan depends on); the identity of anything
    else (the plan's ``build()`` names what is not a limit)."""
    key = getattr(limit, "plan_key", None)
    return id(limit) if key is None else key()


def _limit_keys(limits: Sequence[object] | None) -> tuple[object, ...] | None:
    if limits is None:
        return None
    try:  # (limits: each has plan_key; anything else is keyed below, build() names it)
        return tuple([limit.plan_key() for limit in limits])  # type: ignore[attr-defined]
    except AttributeError:
        return tuple(map(_limit_key, limits))


def _same_static_keys(static: list[tuple[int, object]], limits: object) -> bool:
    """Whether the static limits at the recorded positions of ``limits`` (the same objects
    as then) still have the recorded keys (their values were not changed in place)."""
    return all(
        _limit_key(limits[k]) == key  # type: ignore[index]
        for k, key in static
    )
