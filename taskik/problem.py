"""Assembly of task terms and limits into the QP of one step.

    minimise   ½ vᵀ P v + rᵀ v
    subject to G v ≤ h,   lb ≤ v ≤ ub

with ``A`` the stacked weighted Jacobians ``W_i J_i`` and ``c`` the stacked weighted
velocity residuals ``W_i Kp_i e_i / dt``:

    P = AᵀA + (Σ μ_i + damping) I,   r = −Aᵀ c,

with ``μ_i = λ_i Kp_i² ‖W_i e_i‖²`` the Levenberg–Marquardt term of task i (pink's).

The same ``(A, c)`` is the least-squares system ``A v ≈ c`` of the unconstrained backends.

An :class:`Assembler` is built once for a list of tasks and limits: it allocates the stacked
buffers, merges the limits that do not depend on q (velocity limits) once, and then fills
the buffers in place at every step. :func:`get_assembler` finds the one of a task list again
in the configuration's plan cache.

This module is longer than 500 lines because the assembler's hot path (rows written in
place, boxes merged, the conflict-resolution of crossed hard boxes) shares its preallocated
buffers; splitting it would pass them between modules at every step.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import numpy as np

from .configuration import Configuration, check_configuration
from .exceptions import InvalidInput, NoSolutionFound, check_positive_scalar
from .limits.limit import Box, Limit, as_slice
from .tasks.com import ComTask
from .tasks.frame import FrameTask
from .tasks.posture import PostureTask
from .tasks.task import Task
from .validation import (
    BoxBound,
    box_conflicts,
    check_box,
    check_damping,
    check_limit_model,
    check_rows,
    check_tasks,
    resolve_limits,
)

if TYPE_CHECKING:
    from .backends.qp import DaqpWorkspace
    from .backends.unconstrained import UnconstrainedPlan
    from .trust_region import AdaptiveDamping

T = TypeVar("T")

_greater = np.greater


def crossed(lower: np.ndarray, upper: np.ndarray) -> bool:
    """Whether some ``lower[i] > upper[i]`` (a NaN compares False, as in
    ``(lower > upper).any()``). One comparison read as bytes, a byte 1 for True: cheaper than
    numpy's reduction at a step's sizes (the int 1, not ``b"\\x01"``, which bytes' ``in``
    first tries as an int)."""
    return 1 in _greater(lower, upper).tobytes()


#: ``(P, r, G, h, lb, ub)`` of one step; ``G, h`` and ``lb, ub`` may be None (see :class:`Problem`).
QPArrays: TypeAlias = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray | None,
    np.ndarray | None,
    np.ndarray | None,
    np.ndarray | None,
]


@dataclass
class Problem:
    """The QP of one step, for inspection or for a solver of your own.

    ``lb``/``ub`` are None when no limit puts a box on v (±inf entries are unbounded);
    ``G``/``h`` are None when no limit adds inequality rows.
    """

    P: np.ndarray
    r: np.ndarray
    G: np.ndarray | None
    h: np.ndarray | None
    lb: np.ndarray | None
    ub: np.ndarray | None
    A: np.ndarray
    c: np.ndarray
    mu: float
    limits: list[Limit] = field(default_factory=list)
    boxes: list[BoxBound] = field(default_factory=list)

    @property
    def nv(self) -> int:
        return self.P.shape[0]


class Assembler:
    """Preallocated assembly of one step for a fixed list of tasks and limits.

    Box merging: hard boxes (velocity limits) are intersected; soft boxes (position limits,
    which ask for a recovery speed when q is outside its range) are clipped into the hard
    box, then intersected, so the merged box is never empty unless two hard limits conflict.
    """

    def __init__(
        self, configuration: Configuration, tasks: list[Task], limits: list[Limit]
    ) -> None:
        self.tasks = tasks
        self.limits = limits
        nv = configuration.nv
        self.nv = nv
        dims: list[int] = []
        # The trailing tasks whose Jacobian is a constant selection I[idx] (posture, damping)
        # are "constant": their weighted rows are written once per weights, not every step.
        # From DIAGONAL_MIN_NV on they are also "diagonal": they enter P as WᵀW on its
        # diagonal rather than through the dense AᵀA (most of a step at large nv).
        n_var_tasks = len(tasks)
        trailing = True
        selections: dict[int, np.ndarray] = {}  # velocity indices of the constant tasks
        for k in range(len(tasks) - 1, -1, -1):
            task = tasks[k]
            e, J = task.compute_error_and_jacobian(configuration)
            if J.shape != (len(e), nv):
                raise InvalidInput(
                    f"{task!r}: Jacobian shape {J.shape} does not match (len(e)={len(e)}, nv={nv})"
                )
            dims.append(len(e))
            if trailing:
                idx = task.selection(configuration)
                trailing = idx is not None and np.array_equal(J, np.eye(nv)[idx])
                if trailing:
                    selections[k] = np.asarray(idx)
                    n_var_tasks = k

        dims.reverse()
        n_dense_tasks = n_var_tasks if nv >= DIAGONAL_MIN_NV else len(tasks)
        offsets = np.concatenate([[0], np.cumsum(dims)]).astype(int)
        m = int(offsets[-1])
        self.A = np.zeros((m, nv))
        self.c = np.zeros(m)
        self.w = np.zeros(m)  # stacked costs W
        self.w_col = self.w[:, None]
        n_dense = int(offsets[n_dense_tasks])
        # multiply-adds of the step's largest BLAS product, AᵀA of the dense rows
        self.dense_work = n_dense * nv * nv
        # whether the step holds BLAS to one thread (set by solve_ik on the first step)
        self.blas_heavy: bool | None = None
        self._A_dense, self._c_dense = self.A[:n_dense], self.c[:n_dense]
        # the rows written at every step (the constant ones are written weighted), weighted
        # in place unless their weights are all 1 (``_weigh_rows``, set with the weights)
        self._var_tasks = n_var_tasks
        n_var = int(offsets[n_var_tasks])
        self._A_var, self._w_col_var = self.A[:n_var], self.w_col[:n_var]
        self._weigh_rows = True
        # (idx, W_i, c_i, A_i) of each constant task; the diagonal ones, and Σ W_i² on P's
        # diagonal
        spans = list(zip(offsets[:-1], offsets[1:], strict=True))[n_var_tasks:]
        self._constant = [
            (as_slice(selections[k]), self.w[a:b], self.c[a:b], self.A[a:b])
            for k, (a, b) in enumerate(spans, start=n_var_tasks)
        ]
        self._diagonal = self._constant if n_dense_tasks < len(tasks) else []
        self._diagonal_P = np.zeros(nv)
        self.wk = np.zeros(m)  # stacked W·Kp (divided by dt at each step)
        self.inv_gain = np.ones(m)  # stacked 1/Kp: W e = c · dt / Kp
        self.assembles = 0  # number of assemble() calls (A, c hold the last one's rows)
        self._we_factor = np.ones(m)  # dt / Kp for the dt of the last weighted_errors()
        self._we_dt = 0.0
        self.slices = [
            (task, self.A[a:b], self.c[a:b], slice(a, b))
            for task, a, b in zip(tasks, offsets[:-1], offsets[1:], strict=True)
        ]
        self._versions: list[int | None] = [None] * len(tasks)
        self._row_calls: list[tuple[int, Any, np.ndarray, np.ndarray]] = []
        self._bind_row_calls()
        # per task: (gain, lm_damping, costs) the stacked weights were last built from
        self._weights_of: list[tuple[float, float, Any] | None] = [None] * len(tasks)
        # (λ_i Kp_i², c_i, W_i) of the tasks with a Levenberg–Marquardt term
        self._lm_tasks: list[tuple[float, np.ndarray, np.ndarray]] = []
        self.P = np.empty((nv, nv))
        self.r = np.empty(nv)
        self._P_diag = self.P.reshape(-1)[:: nv + 1]  # writable view of the diagonal
        self._wk_dt = np.zeros(m)  # W·Kp/dt for the last dt
        self._last_dt: float | None = None
        self.mu: float  # Σ μ_i of the last step, set by assemble()

        self.static_boxes: list[BoxBound] = []
        self.dynamic: list[Limit] = []  # limits recomputed every step
        hard_lb = np.full(nv, -np.inf)
        hard_ub = np.full(nv, np.inf)
        self.has_hard = False
        for lim in limits:
            check_limit_model(lim, configuration.model)
            if lim.static and lim.hard:
                box = lim.compute_box(configuration, 1.0)
                if box is not None:
                    idx, lo, hi = box = check_box(lim, box, nv)
                    self.static_boxes.append(BoxBound(lim, idx, lo, hi))
                    np.maximum.at(hard_lb, idx, lo)
                    np.minimum.at(hard_ub, idx, hi)
                    self.has_hard = True
                if lim.compute_inequalities(configuration, 1.0) is not None:
                    self.dynamic.append(lim)
            else:
                self.dynamic.append(lim)
        if (hard_lb > hard_ub).any():
            raise NoSolutionFound(
                "(none)", "inconsistent hard bounds", box_conflicts(self.static_boxes, nv)
            )
        self.hard_lb, self.hard_ub = hard_lb, hard_ub
        #: the limits that check the solved step (``check_step``: CollisionLimit), found once
        self.checked_limits: list[Limit] = [lim for lim in limits if hasattr(lim, "check_step")]
        # solver state kept between steps with this plan (set by the solvers)
        self.qp_workspace: DaqpWorkspace | None = None  # warm-started DAQP workspace of the QP step
        # row groups of the unconstrained backends
        self.unconstrained_plan: UnconstrainedPlan | None = None
        # damping adapted across the steps of a closed loop (solve_ik(..., adaptive=True))
        self.adaptive: AdaptiveDamping | None = None
        self.bounds = np.empty((2, nv))  # [lb; ub] of the last step
        self.lb, self.ub = self.bounds[0], self.bounds[1]
        # Fast path: one soft box limit (position limits), hard boxes all static.
        # (limit, indices, covers all of v, raw box, clipped box, hard lb[idx], hard ub[idx],
        #  [hard lb; hard ub], [(limit, its box)])
        self._single_soft: tuple[Any, ...] | None = None
        # limits that give rows and never a box (they do not override the box methods): the
        # fast path adds their rows to the one soft box (e.g. the balance limit's)
        self._row_only = [lim for lim in self.dynamic if _rows_only(lim)]
        boxed = [lim for lim in self.dynamic if not _rows_only(lim)]
        if (
            len(boxed) == 1
            and not boxed[0].hard
            and boxed[0].compute_inequalities(configuration, 1.0) is None
        ):
            lim = boxed[0]
            probe = lim.compute_stacked_box(configuration, 1.0)
            if probe is not None:
                idx = np.asarray(probe[0])
                raw = np.empty((2, len(idx)))
                self._single_soft = (
                    lim,
                    idx,
                    np.array_equal(idx, np.arange(nv)),
                    raw,
                    np.empty((2, len(idx))),
                    np.ascontiguousarray(hard_lb[idx]),
                    np.ascontiguousarray(hard_ub[idx]),
                    np.vstack([hard_lb, hard_ub]),
                    [(lim, (idx, raw[0], raw[1]))],  # its box, views of the raw bounds
                )
        self.soft_lb = np.empty(nv)
        self.soft_ub = np.empty(nv)
        self._dynamic_boxes: list[tuple[Limit, Box]]  # (set by every assembly)
        self.row_limits: list[tuple[Limit, int]] = []  # (limit, its rows) of each block of G
        self.resolved: list[str] = []  # crossed bounds resolved by the last assembly

    def _resolve(self, lower: np.ndarray, upper: np.ndarray, resolve: bool, what: str) -> None:
        """Crossed coordinates (lower > upper) to the value between nearest 0, in place; a
        limit whose own box is empty is broken, not in conflict: NoSolutionFound names it."""
        if not resolve or any((b.lower > b.upper).any() for b in self.boxes):
            raise NoSolutionFound("(none)", what, self.box_conflicts())
        self.resolved = self.box_conflicts() or ["crossed bounds"]
        crossing = lower > upper
        lower[crossing] = upper[crossing] = np.clip(0.0, upper[crossing], lower[crossing])

    def rebind(self, tasks: Sequence[Task]) -> bool:
        """Point the assembly at ``tasks``, a list with the same structure as the one it was
        built for (the same ``plan_key()`` in the same order: a list built anew each step).
        Their costs and gains are read at the next :meth:`assemble`. False when they are
        the tasks it has."""
        old = self.tasks
        if len(tasks) == len(old) and all(map(operator.is_, tasks, old)):
            return False
        self.tasks = tasks = list(tasks)
        # a task with the gain, LM damping and costs the stacked weights were built from keeps
        # them; the others are refreshed at the next assembly (their version is not recorded)
        slices, versions, weights_of = self.slices, self._versions, self._weights_of
        calls, retyped = self._row_calls, False
        for k, new in enumerate(tasks):
            done, A_i, c_i, rows = slices[k]
            if new is done:
                continue
            slices[k] = (new, A_i, c_i, rows)
            if type(new) is type(done):
                new.adopt(done)  # (its frame indices, layouts: nothing to resolve again)
                calls[k] = (calls[k][0], new, A_i, c_i)  # (the same type: the same call)
            else:
                retyped = True
            built = weights_of[k]
            same = (
                built is not None
                and new._gain == built[0]
                and new._lm_damping == built[1]
                and (  # (costs of plain numbers: one read-only array per value, shared)
                    (new._cost is done._cost and versions[k] == done._version)
                    or new._cost.tolist() == built[2]
                )
            )
            versions[k] = new._version if same else None
        if retyped:
            self._bind_row_calls()
        self.unconstrained_plan = None
        return True

    def _bind_row_calls(self) -> None:
        """What :meth:`assemble` calls for each task, decided once per task list: the rows
        written in place (an exact ``FrameTask``: ``write_rows``), the error of constant rows
        written in place (an exact ``PostureTask``: its error only), or
        ``compute_error_and_jacobian`` copied (rows and error, or the error only for the
        constant trailing tasks)."""
        var = self._var_tasks
        calls = []
        for k, (task, A_i, c_i, _) in enumerate(self.slices):
            if k < var:
                kind = _ROWS if type(task) in _WRITERS else _BOTH
            else:
                kind = _ERROR if type(task) in _ERROR_WRITERS else _ERROR_ONLY
            calls.append((kind, task, A_i, c_i))
        self._row_calls = calls

    def rebind_limits(self, limits: Sequence[Limit]) -> None:
        """Point the assembly at ``limits``, equal in value to the ones it was built for (the
        same ``plan_key()`` in the same order: a list built anew); their bounds are read at
        the next :meth:`assemble`. (Hook of ``taskik.plan_cache``: limits keyed by value.)"""
        old = self.limits
        if len(limits) == len(old) and all(map(operator.is_, limits, old)):
            return
        new = dict(zip(map(id, old), limits, strict=True))  # (ids of objects held: this call)
        self.limits = list(limits)
        self.static_boxes = [
            BoxBound(new[id(b.limit)], b.indices, b.lower, b.upper) for b in self.static_boxes
        ]
        self.dynamic = [new[id(lim)] for lim in self.dynamic]
        self._row_only = [new[id(lim)] for lim in self._row_only]
        self.checked_limits = [new[id(lim)] for lim in self.checked_limits]
        if self._single_soft is not None:
            lim, *rest, boxes = self._single_soft
            self._single_soft = (new[id(lim)], *rest, [(new[id(lim)], boxes[0][1])])

    @property
    def boxes(self) -> list[BoxBound]:
        """Every box of the last assembled step, one per limit (for reports and errors)."""
        dyn = [BoxBound(lim, *box) for lim, box in self._dynamic_boxes]
        return self.static_boxes + dyn

    def weighted_errors(self, dt: float) -> np.ndarray:
        """``W e`` of the last assembled step (task error units), read back from ``c``."""
        if dt != self._we_dt:
            self._we_dt = dt
            np.multiply(self.inv_gain, dt, out=self._we_factor)
        return self.c * self._we_factor

    def box_conflicts(self) -> list[str]:
        return box_conflicts(self.boxes, self.nv)

    def _refresh_weights(self) -> None:
        for k, (task, _, _, rows) in enumerate(self.slices):
            self.w[rows] = task._cost
            self.wk[rows] = task._cost * task._gain
            self.inv_gain[rows] = 1.0 / task._gain
            self._versions[k] = task._version
            self._weights_of[k] = (task._gain, task._lm_damping, task._cost.tolist())
        self._weigh_rows = not (self._w_col_var == 1.0).all()
        for idx, w_i, _, A_i in self._constant:  # (W_i I[idx], the weighted constant rows)
            A_i.fill(0.0)
            A_i[np.arange(len(w_i)), np.arange(self.nv)[idx]] = w_i
        self._diagonal_P.fill(0.0)
        for idx, w_i, _, _ in self._diagonal:
            self._diagonal_P[idx] += w_i * w_i  # (no index repeats within one task)
        self._we_dt = 0.0
        self._lm_tasks = [
            (task._lm_damping * task._gain**2, c_i, self.w[rows])
            for task, _, c_i, rows in self.slices
            if task._lm_damping
        ]
        self._last_dt = None

    def assemble(
        self,
        configuration: Configuration,
        dt: float,
        damping: float,
        normal: bool = True,
        resolve: bool = False,
    ) -> QPArrays:
        """Fill and return ``(P, r, G, h, lb, ub)`` for the current configuration.

        ``normal=False`` fills only the rows ``A``, ``c`` and the limits (``P`` and ``r``
        are then stale), for solvers that do not use the normal equations.

        Crossed bounds raise :class:`NoSolutionFound`, or with ``resolve`` take the value
        of ``[ub_i, lb_i]`` nearest 0, listed in ``resolved`` (:mod:`taskik.relax`).
        """
        if self.resolved:
            self.resolved = []
        self.assembles += 1
        for kind, task, A_i, c_i in self._row_calls:
            if kind is _ROWS:
                task.write_rows(configuration, A_i, c_i)
            elif kind is _ERROR:
                task._write_error(configuration, c_i)
            else:
                e, J = task.compute_error_and_jacobian(configuration)
                if kind is _BOTH:
                    A_i[:] = J
                c_i[:] = e
        if [task._version for task in self.tasks] != self._versions:
            self._refresh_weights()
        c = self.c
        A_dense = self._A_dense
        if self._weigh_rows:  # (the constant tasks' rows are written weighted)
            self._A_var *= self._w_col_var
        mu = damping
        for lm, c_i, w_i in self._lm_tasks:
            we = c_i * w_i
            mu += lm * float(we.dot(we))
        if dt != self._last_dt:
            np.multiply(self.wk, 1.0 / dt, out=self._wk_dt)
            self._last_dt = dt
        c *= self._wk_dt
        if normal:
            r = self.r
            # (the array's dot: np.dot's BLAS products, bit for bit, without its dispatch)
            A_dense.T.dot(A_dense, out=self.P)
            self._c_dense.dot(A_dense, out=r)
            if self._diagonal:
                self._P_diag += self._diagonal_P
                for rows_v, w_i, c_i, _ in self._diagonal:
                    r[rows_v] += w_i * c_i
            self._P_diag += mu
            np.negative(r, out=r)
        self.mu = mu - damping

        if self._single_soft is not None:
            lim, idx, full, raw, S, hl, hu, hard, boxes_ = self._single_soft
            lim.compute_stacked_box(configuration, dt, out=raw)
            self._dynamic_boxes = boxes_
            # clip the soft box into the hard box: the merged box is then never empty
            if full:
                np.maximum(raw, hl, out=self.bounds)
                np.minimum(self.bounds, hu, out=self.bounds)
            else:
                np.maximum(raw, hl, out=S)
                np.minimum(S, hu, out=S)
                self.bounds[:] = hard
                self.bounds[:, idx] = S
            if not self._row_only:
                return self.P, self.r, None, None, self.lb, self.ub
            G_, h_ = self._rows(self._row_only, configuration, dt)
            return self.P, self.r, G_, h_, self.lb, self.ub

        G_rows: list[np.ndarray] = []
        h_rows: list[np.ndarray] = []
        row_limits: list[tuple[Limit, int]] = []
        self.row_limits = row_limits
        boxes: list[tuple[Limit, Box]] = []
        lb, ub = self.lb, self.ub
        if self.dynamic:
            hard_lb, hard_ub = self.hard_lb, self.hard_ub
            soft_lb, soft_ub = self.soft_lb, self.soft_ub
            have_soft = have_dyn_hard = False
            n_soft = 0
            for lim in self.dynamic:
                box = lim.compute_box(configuration, dt)
                if box is not None:
                    if not lim.well_formed:
                        box = check_box(lim, box, self.nv)
                    idx, lo, hi = box
                    boxes.append((lim, box))
                    if lim.hard:
                        if not have_dyn_hard:
                            hard_lb, hard_ub = hard_lb.copy(), hard_ub.copy()
                            have_dyn_hard = True
                        hard_lb[idx] = np.maximum(hard_lb[idx], lo)
                        hard_ub[idx] = np.minimum(hard_ub[idx], hi)
                    else:
                        n_soft += 1
                        if not have_soft:
                            soft_lb.fill(-np.inf)
                            soft_ub.fill(np.inf)
                            soft_lb[idx] = lo
                            soft_ub[idx] = hi
                            have_soft = True
                        else:
                            soft_lb[idx] = np.maximum(soft_lb[idx], lo)
                            soft_ub[idx] = np.minimum(soft_ub[idx], hi)
                self._append_rows(lim, configuration, dt, G_rows, h_rows, row_limits)
            self._dynamic_boxes = boxes
            if have_dyn_hard and crossed(hard_lb, hard_ub):
                self._resolve(hard_lb, hard_ub, resolve, "inconsistent hard bounds")
            if have_soft:
                # clip(soft, hard) ∩ hard  ==  [min(max(sl, hl), hu), max(min(su, hu), hl)]
                np.maximum(soft_lb, hard_lb, out=lb)
                np.minimum(lb, hard_ub, out=lb)
                np.minimum(soft_ub, hard_ub, out=ub)
                np.maximum(ub, hard_lb, out=ub)
                # one soft box inside a consistent hard box cannot conflict; several can
                if n_soft > 1 and crossed(lb, ub):
                    self._resolve(lb, ub, resolve, "inconsistent bounds")
                has_box = True
            else:
                lb[:] = hard_lb
                ub[:] = hard_ub
                has_box = self.has_hard or have_dyn_hard
        else:
            lb[:] = self.hard_lb
            ub[:] = self.hard_ub
            has_box = self.has_hard
        self._dynamic_boxes = boxes
        G = np.vstack(G_rows) if G_rows else None
        h = np.concatenate(h_rows) if h_rows else None
        if not has_box:
            return self.P, self.r, G, h, None, None
        return self.P, self.r, G, h, lb, ub

    def _append_rows(
        self,
        lim: Limit,
        configuration: Configuration,
        dt: float,
        G_rows: list[np.ndarray],
        h_rows: list[np.ndarray],
        row_limits: list[tuple[Limit, int]],
    ) -> None:
        """Append ``lim``'s rows ``G v ≤ h`` (checked unless it is well formed), if any."""
        rows = lim.compute_inequalities(configuration, dt)
        if rows is not None:
            if not lim.well_formed:
                rows = check_rows(lim, rows, self.nv)
            G_rows.append(rows[0])
            h_rows.append(rows[1])
            row_limits.append((lim, len(rows[1])))

    def _rows(
        self, limits: list[Limit], configuration: Configuration, dt: float
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``(G, h)`` stacked from the rows of ``limits`` (None, None without rows); sets
        :attr:`row_limits`."""
        G_rows: list[np.ndarray] = []
        h_rows: list[np.ndarray] = []
        row_limits: list[tuple[Limit, int]] = []
        self.row_limits = row_limits
        for lim in limits:
            self._append_rows(lim, configuration, dt, G_rows, h_rows, row_limits)
        if len(G_rows) == 1:  # (no copy: nothing downstream writes into G or h)
            return G_rows[0], h_rows[0]
        if not G_rows:
            return None, None
        return np.vstack(G_rows), np.concatenate(h_rows)


def _rows_only(lim: Limit) -> bool:
    """Whether ``lim`` never gives a box: its class keeps :class:`Limit`'s box methods."""
    cls = type(lim)
    return (
        cls.compute_box is Limit.compute_box
        and cls.compute_stacked_box is Limit.compute_stacked_box
    )


#: Smallest nv at which diagonal tasks skip the dense AᵀA: below it, the two extra updates of
#: P's diagonal and r cost about what the rows save (measured: UR5 and Panda 1 µs slower,
#: Talos at nv 38 even; a 50-joint chain 4 µs faster, 200 joints 200 µs).
DIAGONAL_MIN_NV = 40

#: Task types that write their rows in place (``write_rows(configuration, J_out, e_out)``);
#: exact types, as a subclass may change the rows through ``compute_error_and_jacobian``.
_WRITERS = frozenset({FrameTask, ComTask})

# what assemble() calls per task (see Assembler._bind_row_calls)
_ROWS, _ERROR, _BOTH, _ERROR_ONLY = 0, 1, 2, 3

#: Task types of constant rows that write their error in place (``write_error(configuration,
#: e_out)``); exact types, as above.
_ERROR_WRITERS = frozenset({PostureTask})


def get_assembler(
    configuration: Configuration, tasks: Sequence[Task], limits: Sequence[Limit] | None
) -> Assembler:
    """The :class:`Assembler` of this task and limit list, built on first use and kept in
    ``configuration.plans`` (a ``taskik.plan_cache.PlanCache``)."""
    plans = configuration.plans
    asm: Assembler | None = plans.last_step(tasks, limits)
    if asm is not None:  # (the same lists as the last step: no callbacks to make)
        return asm
    return plans.step(
        tasks,
        limits,
        lambda: Assembler(configuration, check_tasks(tasks), resolve_limits(configuration, limits)),
        lambda asm: _rebind(asm, tasks, limits),
        tried=True,
    )


def _rebind(asm: Assembler, tasks: Sequence[Task], limits: Sequence[Limit] | None) -> None:
    """The plan ``asm``, found for lists equal in structure, pointed at their objects."""
    asm.rebind(tasks)
    if limits is not None:
        asm.rebind_limits(limits)


#: Smallest step duration (s) accepted: ``1/dt`` is then finite (the targets' rates
#: ``Kp e / dt`` and the QP's ``r`` would be inf or NaN below it).
MIN_DT = 1.0 / sys.float_info.max


def check_dt(dt: object, name: str = "dt") -> float:
    """``dt`` as a float when it is a finite number with a finite ``1/dt`` (≥ ``MIN_DT``,
    about 5.6e-309 s); :class:`InvalidInput` naming ``name`` otherwise."""
    value = check_positive_scalar(dt, name)
    if value < MIN_DT:
        raise InvalidInput(
            f"{name} must be at least {MIN_DT:.3g} (1/{name} overflows below it), got {dt!r}"
        )
    return value


def build_ik(
    configuration: Configuration,
    tasks: Sequence[Task],
    dt: float,
    limits: Sequence[Limit] | None = None,
    damping: float = 1e-12,
) -> Problem:
    """Build the QP of one step (see the module docstring for P, r, G, h, lb, ub).

    Args:
        configuration: robot configuration with up-to-date kinematics.
        tasks: tasks, weighted against each other by their costs.
        dt: step duration (s), > 0.
        limits: limits on v; None means the model's position and velocity limits,
            ``[]`` means none.
        damping: Tikhonov term ``damping ‖v‖²`` that keeps P positive definite.

    Returns:
        A :class:`Problem` whose arrays are fresh copies (safe to keep or modify).
    """
    configuration = check_configuration(configuration, "build_ik")
    dt = check_dt(dt, "dt")
    damping = check_damping(damping)
    asm = Assembler(configuration, check_tasks(tasks), resolve_limits(configuration, limits))
    P, r, G, h, lb, ub = asm.assemble(configuration, dt, damping)
    copy = lambda x: None if x is None else x.copy()  # noqa: E731
    return Problem(
        P.copy(),
        r.copy(),
        G,
        h,
        copy(lb),
        copy(ub),
        asm.A.copy(),
        asm.c.copy(),
        asm.mu,
        list(asm.limits),
        list(asm.boxes),
    )
