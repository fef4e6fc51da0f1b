"""Levenberg–Marquardt damping adapted across the steps of a closed loop.

(This module is longer than 500 lines: a third of it is the account below of why each rule
is there, which belongs next to the rules.)

The step of :func:`taskik.solve_ik` is a Gauss–Newton step on the weighted task errors:
with gain 1 it asks every task to be met after one step of ``dt``. The linear model behind
it is exact only to first order, and a closed loop ``v = solve_ik(conf, tasks, dt);
conf.integrate_inplace(v, dt)`` can then fail to come to rest. With a target out of reach
the model underestimates the curvature of the error and every step overshoots: for a link
of length ``L`` turning about its root towards a point at distance ``d > L``,
``‖e‖² = d² + L² − 2 d L cos θ`` has the Hessian ``2 d L`` in θ where Gauss–Newton sees
``2 L²``, so each step goes ``d / L`` times too far, and ``d ≥ 2L`` is a period-2 cycle.
Near singular or strongly coupled configurations, the velocity box distorts the step into
a cycle between two sets of saturated joints.

This module measures, at every step of such a loop, how well the previous step's model
predicted what the step achieved, and damps the next step accordingly, as the trust-region
form of Levenberg–Marquardt does within one optimisation (here the iterations are the
control steps, so no step is ever rejected or repeated). With the weighted errors
``s = W e`` of every task row (task error units: m, rad):

- merit ``M = ‖s‖²``, predicted after the step ``M̂ = ‖s − W J v dt‖²`` (``W J`` are the
  assembled rows);
- at the next step, the gain ratio ``ρ = (M − M_new) / (M − M̂)`` on the rows whose target
  did not change; Nielsen's update ("Damping parameter in Marquardt's method", 1999):
  ``ν ← ν · max(1/3, 1 − (2ρ − 1)³)`` when ``ρ > 0``, else ``ν ← max(ν, 1) · β``,
  ``β ← 2β`` (``β = 2`` after a success);
- a *reversal*, ``v_k · v_{k−1} < −½ ‖v_{k−1}‖²`` (the loop comes back more than half of
  the previous step), counts as a failure too: it is the signature of a period-2 cycle
  that the merit cannot see (saturated joints swinging in the tasks' null space);
- with priority levels, so does a level above the lowest whose ``M`` grew past both its
  previous and its predicted value by more than ``HELD`` (1e-6: a weighted error of
  1e-3): held feet dragged at second order by a body moving far in their null space, which
  the sum would hide under a large lower-level error;
- the step adds ``ν M`` to its damping: Sugihara's error-scaled damping
  ("Solvability-unconcerned inverse kinematics by the Levenberg–Marquardt method", IEEE
  T-RO 2011), which vanishes as the tasks are met, so a reachable target is still reached
  at the Gauss–Newton rate. ``ν`` starts at 0 and falls back to 0 once small: while every
  step does what its model predicted, the step is exactly the plain one.

With strict priorities, level ``k`` gets ``ν (M_k + f_0 M_0 + … + f_{k−1} M_{k−1})``, where
``f_h`` is 1, or 0 for a level left with no direction of its own (every direction of its
rows taken by the levels above: two levels pulling one frame apart). A level whose tasks
are met, and every level above it, stays undamped and exact; a level below an unmet one is
damped at least as much (its motion in the higher levels' null space disturbs them at
second order, which only shorter steps reduce). A level with ``f = 0`` cannot move: its
error changes only through the higher levels, which it follows, so it neither damps the
levels below nor counts in ``ρ`` (its predicted decrease only echoes the higher levels'
motion; the sums of ``ρ`` weight each level's rows by ``f``). Counting it, a posture level
below two conflicting levels crept at 0.15 rad/s after 1000 steps of 1 ms. (Dropping the
merit of a level that can still move but gains nothing, e.g. a target out of reach at its
closest point, was tried: at a singular arm the levels below then move undamped along the
singular direction and 10 of 210 UR5 episodes stopped settling.) A weighted list is the
one-level case (``f = 1``).

Coming to rest. Near a target that cannot be met (out of reach, blocked by a joint limit,
or in conflict with a higher level), the error can sit in a long flat valley: each damped
step still predicts a decrease, the second-order term takes most of it back, and ``ν``
settles where half of the prediction is realised. The loop then creeps for ever (a Panda
hand held 6.4 mm off by a joint limit moved at 0.01 rad/s after 1000 steps of 10 ms, and in
bursts of 2.7 rad/s later, for 80 µm of error). So the progress of each compared step is
measured too: when for ``REST_STEPS`` (10) steps in a row no level with a direction of its
own lowered its ``M`` by ``REST_RATE · dt · M`` (0.1 % per second) or more, and no target
changed, the loop *rests*: the step is ``v = 0``. After a reversal (a step that took the
loop back), a level's fall counts only when it takes its ``M`` below the lowest it reached
since the loop woke: a Panda whose hand a joint at its range end held 0.12 m off, with
levels, cycled for ever through 9 steps of a falling posture error and one step back to
where the cycle began, and every fall had counted as progress. The loop stays at rest
while ``W e`` is exactly the same (nothing moved q, a target or a weight) and ``v = 0``
meets the limits; anything else wakes it. A reachable target is met at the Gauss–Newton
rate long before (its error falls by a factor ``1 − Kp`` per step), a moving target is never
at rest, and a velocity-limited approach lowers its error by far more than 0.1 % per second.

Changes are seen by value. The comparison needs the configuration the previous step led
to: it is made only when the configuration moved by ``integrate_inplace(v, dt)`` with the
``v`` returned by the last solve (and nothing else changed q since). Each step also keeps a
copy of what it depends on besides q (:func:`step_state`: every task's target, gain, LM
damping and costs, and, while the loop has a history, every limit's public numbers and
arrays) and compares it with the last step's, by value: a target edited in place
(``task.transform_target_to_world.translation[1] = ...``, pink's idiom), the same object
given again to ``set_target``, a gain, cost or limit changed, all count, and the same value
set again does not. After any change, and after a q set from outside, the step is the plain
one: ``ν = 0``, awake, and the step is not compared (its error moved for a reason the last
step did not see). A resting loop whose error grows is woken however that happens: at rest
any change of ``W e`` wakes it, and a step whose merit grew while ``W e`` landed farther
from its prediction than the whole predicted change (a target the comparison cannot see,
e.g. an attribute of a task of one's own) wakes it too; and after a rest whose ``W e``
moved while ``v`` was 0, the next rest waits ``max(REST_STEPS, 2 × the last wait)`` more
steps, so an unseen moving target costs a loop few steps at rest, not one in eleven.

Flipping. One pattern outlives the changes: a loop whose steps reverse one another without
shrinking (``FLIPS`` such reversals, each within ``FLIP_GAP`` steps of the one before) keeps
its ``ν``
through target changes (divided by 3 after each step that did not reverse the one before,
as after a step that did what it predicted), so a period-2 cycle is damped even when its
target moves at every step and its error does not grow. pink's Go2 squat shows why: the
base's target lies beyond a position barrier, so its translation error cannot shrink; the
SE(3) log error of a frame task couples rotation and translation (its Jacobian's
translation rows have a yaw column ``≈ ½ [t]×`` for a translation error ``t``), and the
step yaws the base to lower the translation part of the log, a decrease that the
second-order terms take back and more. Each step overshoots and the plain step (pink's,
with any QP solver: DAQP, quadprog and ProxQP return the same steps) grows into a ±35 rad/s
yaw cycle; with the translation error and the rotation error compared separately, the same
loop comes to rest at the barrier.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import pinocchio as pin

#: ``ν`` after the first failure is ``max(ν, NU_START) · 2``.
NU_START = 1.0
#: upper bound of ``ν``.
NU_MAX = 1e8
#: ``ν`` below ``NU_OFF`` becomes 0 (the plain step).
NU_OFF = 1e-6
#: a reversal: ``v_k · v_{k−1} < −REVERSAL ‖v_{k−1}‖²``.
REVERSAL = 0.5
#: predicted decreases of ``M`` below this (m², rad²: errors of 1e-12) are rounding noise.
MEASURABLE = 1e-24
#: a reversal counts when the previous step moved q by ``‖v dt‖ > 1e-9`` (rad, m).
MOVED = 1e-18
#: the loop comes to rest after ``REST_STEPS`` steps in a row in which no level's ``M``
#: fell by ``REST_RATE · dt · M`` or more (a relative decrease of 0.1 % per second of
#: simulated time), its targets unchanged.
REST_RATE = 1e-3
REST_STEPS = 10
#: a level above the lowest fails when its ``M`` grows past what it had and what it was
#: predicted by more than this (m², rad²: a weighted error of 1e-3). Chosen on the settling
#: benchmark and on posture generation with levels: 1e-8 shortened the steps of too many
#: settling loops, and with none a level search left held feet 0.1 m off.
HELD = 1e-6
#: a change of target, gain, cost or limit keeps ``ν`` (instead of the plain step) while the
#: loop flips: ``FLIPS`` reversals or more that do not shrink (``‖v_k‖ ≥ ‖v_{k−1}‖``), none
#: more than ``FLIP_GAP`` steps after the one before, the last within ``FLIP_GAP`` steps (a
#: growing or sustained period-2 pattern, even one that damping interrupts for a while; a
#: decaying oscillation ends by itself).
FLIPS = 2
FLIP_GAP = 10


class _Copy:
    """A copy of a target of a type this module does not know, compared with ``==`` (an
    answer that is not a plain truth value counts as a change)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not _Copy:
            return False
        try:
            return bool(self.value == other.value)
        except Exception:  # noqa: BLE001  (an array-valued ==, a comparison that raises)
            return False

    __hash__ = None  # type: ignore[assignment]


def _value(x: object) -> object:
    """What a target is worth comparing: a copy of its value, never the object itself (a
    target edited in place, or the same object given again to ``set_target``, is then seen
    as moved). Poses, arrays and numbers cost well under a microsecond."""
    t = type(x)
    if t is pin.SE3:
        return x.copy()  # type: ignore[attr-defined]
    if t is np.ndarray:
        return (x.shape, x.tobytes())  # type: ignore[attr-defined]
    if x is None or t is float or t is int or t is bool or t is str:
        return x
    if isinstance(x, np.ndarray):
        return (x.shape, x.tobytes())
    if isinstance(x, pin.SE3):
        return pin.SE3(x)
    if isinstance(x, list | tuple):
        return tuple(map(_value, x))
    if isinstance(x, float | int | np.number):
        return x
    if isinstance(x, dict):
        return tuple((k, _value(y)) for k, y in x.items())
    if type(x).__eq__ is object.__eq__ and hasattr(x, "__dict__"):
        return (type(x), _value(vars(x)))  # (no == of its own: compare what it holds)
    try:
        return _Copy(copy.deepcopy(x))
    except Exception:  # noqa: BLE001  (an object that cannot be copied: assume it moved)
        return _Copy(float("nan"))


def _task_state(task: Any) -> tuple[object, ...]:
    """The values a task's rows depend on besides q: gain, LM damping, costs, target (a
    task's other parameters, e.g. a frame renamed, are not compared: the rest still ends
    as soon as its error moves)."""
    try:
        state: tuple[object, ...] = (task._gain, task._lm_damping, task._cost.tobytes())
    except AttributeError:  # (an object written without taskik's Task base)
        state = (_value(getattr(task, "gain", None)), _value(getattr(task, "cost", None)))
    return (*state, _value(getattr(task, "target", None)))


def _limit_state(limit: object) -> tuple[object, ...]:
    """The public numbers and arrays of a limit (gains, bounds, caps...): a limit changed
    in place or by assignment is seen as changed."""
    attributes = getattr(limit, "__dict__", None)
    if not attributes:
        return ()
    out: list[object] = []
    for name, x in attributes.items():
        if name[0] == "_":
            continue
        t = type(x)
        if t is float or t is int or t is bool:
            out.append(x)
        elif t is np.ndarray and x.size <= 4096:
            out.append(x.tobytes())
    return tuple(out)


def step_state(asm: Any, limits: bool = True) -> tuple[list[object], list[object] | None]:
    """The values one step depends on besides q, as copies compared by value: every task's
    target, gain, costs and LM damping; with ``limits``, every limit's public numbers and
    arrays (else None: not compared)."""
    tasks: list[object] = list(map(_task_state, asm.tasks))
    if not limits:
        return tasks, None
    limit_states: list[object] = list(map(_limit_state, getattr(asm, "limits", ())))
    return tasks, limit_states


def _changed(
    a: tuple[list[object], list[object] | None], b: tuple[list[object], list[object] | None]
) -> bool:
    """Whether two :func:`step_state` differ (limits compared when both have them)."""
    return a[0] != b[0] or (a[1] is not None and b[1] is not None and a[1] != b[1])


_equal, _le, _ge = np.equal, np.less_equal, np.greater_equal


def _nonnegative(x: np.ndarray) -> bool:
    """Whether every entry of ``x`` is ≥ 0 (a NaN is not): one comparison read as bytes,
    cheaper than numpy's ``.all()`` at a step's sizes."""
    return 0 not in _ge(x, 0.0).tobytes()


def _nonpositive(x: np.ndarray) -> bool:
    """Whether every entry of ``x`` is ≤ 0 (a NaN is not), as :func:`_nonnegative`."""
    return 0 not in _le(x, 0.0).tobytes()


def _unchanged(s: np.ndarray, s0: np.ndarray) -> bool:
    """Whether ``W e`` is exactly what it was (the test that keeps a loop at rest)."""
    return s.shape == s0.shape and 0 not in _equal(s, s0).tobytes()  # (not .all(): 3× dearer)


class AdaptiveDamping:
    """State of one closed loop (one task list or list of levels on one configuration).

    Args:
        groups: the row slices of the priority levels, highest first (one slice covering
            every row for a weighted list).
    """

    __slots__ = (
        "groups",
        "nu",
        "_beta",
        "_steps",
        "_assembles",
        "_ss",
        "_ss_now",
        "_s",
        "_pred",
        "_v",
        "_vv",
        "_dt",
        "merits",
        "shares",
        "resting",
        "_calm",
        "_lows",
        "_undone",
        "_state",
        "_flips",
        "_flip_age",
        "_reversed",
        "_drift",
    )

    def __init__(self, groups: Sequence[slice]) -> None:
        self.groups = list(groups)
        #: current ``ν`` (0: the plain step).
        self.nu = 0.0
        self._beta = 2.0
        self._steps = -1  # configuration update count when the last step was solved
        self._assembles = -1  # the assembler's assembly count after the last step
        self._s: np.ndarray | None = np.zeros(0)  # W e of the last step (None: in asm.c)
        self._ss: float | None = 0.0  # its ‖W e‖² (None: not computed)
        self._ss_now: float | None = None  # ‖W e‖² of this step, when _update computed it
        self._pred = np.zeros(0)  # predicted W e after the last step
        self._v: np.ndarray | None = None  # the last step (the array returned)
        self._vv = 0.0  # its ‖v‖²: an in-place edit of v before integrating shows there
        self._dt = 0.0
        #: each group's ``M`` at the last step with ``ν > 0`` (set by :meth:`dampings`)
        self.merits: list[float] = []
        #: per group, 1, or 0 for a level with no direction of its own at the last step (set
        #: by the hierarchy while ``ν > 0``; None: every row counts)
        self.shares: list[float] | None = None
        #: whether the loop is at rest: the step is ``v = 0`` (see the module docstring)
        self.resting = False
        self._calm = 0  # steps in a row without progress
        self._lows: list[float] | None = None  # per group, the lowest M since the loop woke
        self._undone = False  # a reversal since the last new low: only new lows are progress
        # step_state() of the last step (None: unknown)
        self._state: tuple[list[object], list[object] | None] | None = None
        self._flips = 0  # reversals in the current flipping pattern (see FLIPS)
        self._flip_age = 0  # steps since the last reversal
        self._reversed = False  # whether the last step reversed the one before it
        self._drift = 0  # extra steps before the next rest, after a rest that drifted

    def reset(self) -> None:
        """Forget the loop: the next step is the plain one and is not compared."""
        self.nu = 0.0
        self._beta = 2.0
        self._v = None
        self._state = None
        self._flips = 0
        self._drift = 0
        self.wake()

    def wake(self) -> None:
        """Leave the rest (or stop counting towards it): the next steps are solved."""
        self.resting = False
        self._calm = 0
        self._lows = None
        self._undone = False

    def rests(self, lb: np.ndarray | None, ub: np.ndarray | None, h: np.ndarray | None) -> bool:
        """Whether this step is ``v = 0``: the loop is at rest and ``v = 0`` meets the
        step's limits (``lb ≤ 0 ≤ ub``, ``G·0 ≤ h``); if it does not (an obstacle came
        closer, q left its range), the loop wakes up."""
        if self.resting and (
            (lb is None or (_nonpositive(lb) and (ub is None or _nonnegative(ub))))
            and (h is None or _nonnegative(h))
        ):
            return True
        self.wake()
        return False

    def _fail(self) -> None:
        self.nu = min(max(self.nu, NU_START) * self._beta, NU_MAX)
        self._beta *= 2.0

    def _plain(self) -> None:
        """Something the step depends on changed: the next step is the plain one (``ν = 0``,
        awake), unless the loop is flipping: a period-2 pattern keeps its ``ν``, divided by 3
        (Nielsen's factor for a step that did what it predicted) after a step that did not
        reverse the one before."""
        self.wake()
        if self._flips < FLIPS:
            self.nu = 0.0
            self._beta = 2.0
        elif not self._reversed:  # flipping, but the last step did not: ν as after a success
            self.nu /= 3.0
            self._beta = 2.0
            if self.nu < NU_OFF:
                self.nu = 0.0

    def begin(self, configuration: Any, asm: Any) -> None:
        """Before the step's assembly: is this a continuation of the loop (the configuration
        moved by ``integrate_inplace`` with the last ``v``, and only by it)? If so, compute
        the last step's prediction ``W e − A v dt`` from ``asm.A``, which still holds the
        last step's rows (no work at all outside a closed loop). If q was set from outside,
        the step is the plain one."""
        last = configuration._last_step
        v = self._v
        moved_by_v = (
            last is not None
            and v is not None
            and last[0] == self._steps + 1
            and last[2] == self._dt
            and (last[1] is v or np.array_equal(last[1], v))
            and float(v.dot(v)) == self._vv
        )
        if moved_by_v and asm.assembles == self._assembles:
            assert v is not None
            if self._s is None:  # (not computed by the last step: asm.c still holds its rows)
                self._s = asm.weighted_errors(self._dt)
            pred = asm.A.dot(v)
            pred *= -self._dt
            pred += self._s
            self._pred = pred
        else:
            self._v = None
            if not moved_by_v and configuration._updates != self._steps and self._steps >= 0:
                self._flips = 0
                self._plain()  # q was set from outside (or moved by another v)
            elif moved_by_v or asm.assembles != self._assembles or self._steps < 0:
                self.wake()  # the plan served another step since (or none yet): not compared

    def start(self, configuration: Any, asm: Any) -> bool:
        """:meth:`begin`, then :meth:`needs_errors`, and :meth:`skip` when the errors are not
        needed; returns :meth:`needs_errors`. A step whose q was set from outside while the
        loop keeps no history (``ν = 0``, awake, not counting towards the rest, not
        flipping: what such a step leaves it in) costs only that comparison."""
        if (
            configuration._last_step is None
            and not self.nu
            and self._steps >= 0
            and configuration._updates != self._steps
            and not self.resting
            and not self._calm
            and not self._flips
            and self._lows is None
            and not self._undone
            and self._beta == 2.0
        ):  # (begin's plain step, with nothing to reset)
            self._v = self._state = self._ss_now = None
            return False
        self.begin(configuration, asm)
        if self.needs_errors():
            return True
        self.skip(asm)
        return False

    def needs_errors(self) -> bool:
        """Whether this step's :meth:`dampings` reads ``W e``: the step continues the loop
        (after :meth:`begin`) or ``ν > 0``. When not, call :meth:`skip` instead and
        ``record(..., None, ...)``: a step outside a closed loop then costs no array work."""
        return self._v is not None or self.nu != 0.0 or self.resting

    def skip(self, asm: Any) -> None:
        """:meth:`dampings` of a step that does not need ``W e`` (see :meth:`needs_errors`):
        the values it depends on are not copied either, so the next step is not compared."""
        self._state = None
        self._ss_now = None

    def dampings(self, asm: Any, s: np.ndarray, base: list[float]) -> list[float]:
        """After the step's assembly: update ``ν`` from the last step (after :meth:`begin`);
        return each group's damping ``base[g]`` plus ``ν M_g``, its own merit (``base`` itself
        when ``ν`` is 0; the hierarchy adds the higher levels' merits).

        ``s`` is the stacked ``W e`` of this step (``asm.weighted_errors``), ``asm`` the
        assembler whose ``tasks`` and ``slices`` it was read from. A target, gain, cost,
        weight or limit whose value changed since the last step, however it was changed,
        makes this step the plain one (see the module).
        """
        # (the limits only while the loop has a history to forget: damped, counting towards
        # the rest or resting; a limit changed in place costs no copy of it at every step)
        state = step_state(asm, bool(self.nu or self._calm or self.resting))
        last, self._state = self._state, state
        self._ss_now = None
        if last is not None and _changed(state, last):
            self._plain()
        elif self._v is not None:
            if last is not None:  # (else: what the last step depended on is not known)
                self._update(s)
        elif self.resting and not (self._s is not None and _unchanged(s, self._s)):
            self.wake()  # solved again at the same q, but something changed
        if not self.nu:
            return base
        merits = self.merits = [float(sg.dot(sg)) for sg in (s[rows] for rows in self.groups)]
        return [lam + self.nu * m for lam, m in zip(base, merits, strict=True)]

    def _update(self, s: np.ndarray) -> None:
        s0, pred = self._s, self._pred
        assert s0 is not None  # (set by begin, in a continuation)
        if self._settle(s0, s, pred):
            return  # at rest: v was 0, nothing to learn from the step
        for rows in self.groups[:-1]:
            # a higher level pushed off by the levels below it (second-order drift of held
            # feet while the body moves far): shorter steps for the levels below
            a, p, n = s0[rows], pred[rows], s[rows]
            if float(n.dot(n)) > max(float(a.dot(a)), float(p.dot(p))) + HELD:
                self._fail()
                return
        shares = self.shares
        if shares is not None:  # levels: a level with no direction of its own is left out
            wts = np.empty(len(s))
            for f, rows in zip(shares, self.groups, strict=True):
                wts[rows] = f
            m0, m1 = float((wts * s0).dot(s0)), float((wts * s).dot(s))
            pp = float((wts * pred).dot(pred))
            if not m0:
                return
        else:  # (‖W e‖² of the last step, when record kept it)
            m0 = float(s0.dot(s0)) if self._ss is None else self._ss
            m1 = self._ss_now = float(s.dot(s))
            pp = float(pred.dot(pred))
        predicted = m0 - pp
        if not (predicted > 1e-12 * m0 and predicted > MEASURABLE):
            return  # nothing measurable was predicted: no evidence either way
        rho = (m0 - m1) / predicted
        if rho > 0.0:
            self.nu *= max(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3)
            self._beta = 2.0
            if self.nu < NU_OFF:
                self.nu = 0.0
        else:
            self._fail()

    def _settle(self, s0: np.ndarray, s: np.ndarray, pred: np.ndarray) -> bool:
        """Count the steps without progress (targets unchanged): no level with a direction of
        its own lowered its ``M`` by ``REST_RATE · dt · M`` (after a reversal: below the lowest
        ``M`` since the loop woke, by as much); after ``REST_STEPS`` of them, rest.
        At rest, stay while ``W e`` is exactly what it was (nothing moved q, targets or
        weights). A step (not a reversal) whose ``M`` grew while ``W e`` landed farther from
        its prediction than the whole predicted change, ``‖s − ŝ‖ > ‖s₀ − ŝ‖``, was moved by
        something the step does not see (a target of a task of one's own that moves): the
        loop wakes. Returns whether the loop was at rest."""
        if self.resting:
            if _unchanged(s, s0):
                return True
            # W e moved while v was 0: something the comparison does not see moves (a task's
            # own attribute); each time, the next rest waits twice as long
            self.wake()
            self._drift = max(REST_STEPS, 2 * self._drift)
            return False
        if not self._reversed:
            m0, m1 = float(s0.dot(s0)), float(s.dot(s))
            if m1 > m0 + 1e-9 * m0 + MEASURABLE:
                miss, change = s - pred, s0 - pred
                if float(miss.dot(miss)) > float(change.dot(change)) + MEASURABLE:
                    self.wake()
                    return False
        shares = self.shares
        limit = REST_RATE * self._dt
        lows = self._lows
        if lows is None:
            lows = self._lows = [float(a.dot(a)) for a in (s0[rows] for rows in self.groups)]
        progress = record_low = False
        undone = self._undone
        for g, rows in enumerate(self.groups):
            n = s[rows]
            m1, low = float(n.dot(n)), lows[g]
            if m1 < low:
                lows[g] = m1
            if shares is not None and not shares[g]:
                continue
            if low > MEASURABLE and low - m1 >= limit * low:
                progress = record_low = True
            elif not (undone or progress):
                a = s0[rows]
                m0 = float(a.dot(a))
                progress = m0 > MEASURABLE and m0 - m1 >= limit * m0
        if record_low:
            self._undone = False
        if progress:
            self._calm = 0
            return False
        self._calm += 1
        if self._calm >= REST_STEPS + self._drift:
            self.resting = True
        return False

    def record(
        self, configuration: Any, asm: Any, s: np.ndarray | None, v: np.ndarray, dt: float
    ) -> None:
        """After the step: keep what the next step compares with (``W e``, ``v``, ``dt``;
        the prediction is computed by the next :meth:`begin`; ``s=None``: ``W e`` was not
        computed, the next step reads it back from the assembler); a reversal of ``v``
        counts as a failure."""
        v0 = self._v
        self._reversed = False
        if v0 is not None:  # a continuation (see begin)
            v0v0 = self._vv
            if float(v.dot(v0)) < -REVERSAL * v0v0 and v0v0 * dt * dt > MOVED:
                self._fail()
                self._undone = self._reversed = True
                if float(v.dot(v)) >= v0v0:  # (a reversal that does not shrink: a cycle)
                    self._flips = self._flips + 1 if self._flip_age <= FLIP_GAP else 1
                    self._flip_age = 0
                else:
                    self._flip_age += 1
            else:
                self._flip_age += 1
                if self._flip_age > FLIP_GAP:
                    self._flips = 0
        self._steps = configuration._updates
        self._assembles = asm.assembles
        self._ss = self._ss_now if s is not None else None
        self._ss_now = None
        self._s = s
        self._v = v
        self._vv = float(v.dot(v))
        self._dt = dt
