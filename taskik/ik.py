"""Solve to a configuration: iterate the IK step to convergence, with random restarts.

A control loop takes one step per tick (:func:`taskik.solve_ik`); a planner or a posture
generator wants the configuration itself. :func:`solve_posture` iterates

    q_{k+1} = q_k ⊕ Δq_k,    Δq_k = A_k⁻¹ g_k,
    A_k = Jᵀ W_e J + W_n,    g_k = Jᵀ W_e e_k,

on the stacked task terms (``e`` = task errors, ``J`` = task Jacobians, ``W_e = diag(w²)``
from the task costs ``w``) until the weighted error

    E = ½ eᵀ W_e e = ½ Σ_i ‖W_i e_i‖²

drops below ``tol``; a search that has not converged after ``max_iterations`` (or that
stagnates) is restarted from a new configuration, up to ``max_searches``. Without a given
start, a single :class:`FrameTask` starts from the nearest entry of a seed memory (stored
configurations and their frame poses), then from the next nearest entries, then from
random valid configurations (``starts`` of :func:`solve_posture`).

Methods (Haviland & Corke, "Manipulator Differential Kinematics", part 1, eqs. 45–51):

========================  ================================================================
``"nr"``                  Newton–Raphson ``Δq = J⁻¹ e`` (square J only)
``"nr-pinv"``             ``Δq = J⁺ e``
``"gn"``                  Gauss–Newton ``Δq = (JᵀW_eJ)⁻¹ JᵀW_e e``
``"gn-pinv"``             ``Δq = (JᵀW_eJ)⁺ JᵀW_e e``
``"lm-wampler"``          Levenberg–Marquardt, ``W_n = λ I`` (Wampler)
``"lm-chan"``             ``W_n = λ E_k I`` (Chan & Lawrence), the default, λ = 0.1
``"lm-sugihara"``         ``W_n = E_k I + diag(w̄)`` (Sugihara)
``"qp"``                  the core QP step (:func:`taskik.solve_ik`, dt = 1) with
                          ``W_n = λ E_k I`` and the joint limits as a box on Δq
========================  ================================================================

Joint-limit policy (``joint_limits``), for bounded 1-DoF joints:

- ``"clip"`` (default): every iterate is clipped into ``[q_min, q_max]`` (projected steps,
  so every iterate is valid); a converged q has its revolute angles wrapped into
  (−π, π] where that stays inside the range.
- ``"reject"``: unconstrained steps; a converged q is wrapped by multiples of 2π into its
  range when possible, otherwise rejected and the search restarts (roboticstoolbox's rule).
- ``"ignore"``: limits play no role (revolute angles are still wrapped into (−π, π]).

The ``"qp"`` method always respects the limits through the box of its step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .configuration import Configuration
from .exceptions import InvalidInput, NoSolutionFound
from .tasks._frames import require_target
from .tasks.frame import FrameTask
from .tasks.task import Task

try:  # scipy is a dependency of qpsolvers; its direct LAPACK calls avoid numpy's overhead
    from scipy.linalg.blas import dsyrk as _dsyrk
    from scipy.linalg.lapack import dgesv as _dgesv
    from scipy.linalg.lapack import dposv as _dposv
except ImportError:  # pragma: no cover - numpy fallback
    _dposv = _dsyrk = _dgesv = None

METHODS = (
    "nr",
    "nr-pinv",
    "gn",
    "gn-pinv",
    "lm-wampler",
    "lm-chan",
    "lm-sugihara",
    "qp",
)

#: Default λ of each damped method (Wampler: λ; Chan: λ; Sugihara: w̄; QP: Chan's λ).
DEFAULT_DAMPING = {"lm-wampler": 1e-4, "lm-chan": 0.1, "lm-sugihara": 1e-3, "qp": 0.1}

JOINT_LIMIT_POLICIES = ("clip", "reject", "ignore")

#: Where the searches start when no start is given (``starts`` of :func:`solve_posture`).
STARTS = ("memory", "random")

POSE_ERRORS = ("log6", "world")

_TWO_PI = 2.0 * math.pi
_remainder = math.remainder


@dataclass(slots=True)
class PostureResult:
    """Outcome of :func:`solve_posture`.

    Attributes:
        q: the solution when ``success``, otherwise the best configuration found (lowest E
            among iterates that respect the joint-limit policy).
        success: True when ``E < tol`` at ``q`` (and ``q`` respects the limit policy).
        iterations: evaluations of E (each followed by a step unless converged), summed
            over all searches.
        searches: searches started (1 + restarts).
        error: ``E = ½ Σ_i ‖W_i e_i‖²`` at ``q``.
        residuals: ``E_i = ½ ‖W_i e_i‖²`` of each task at ``q``, in the order of ``tasks``.
        time: wall-clock duration of the solve (s).
        reason: why it stopped, in words.
    """

    q: np.ndarray
    success: bool
    iterations: int
    searches: int
    error: float
    residuals: tuple[float, ...]
    time: float
    reason: str
    method: str = "lm-chan"

    def __str__(self) -> str:
        state = "success" if self.success else "FAILED"
        return (
            f"PostureResult({state}, E={self.error:.3g}, iterations={self.iterations}, "
            f"searches={self.searches}, time={self.time * 1e3:.3g} ms, reason={self.reason!r})"
        )


# --------------------------------------------------------------------------- helpers
def damping_matrix(method: str, E: float, nv: int, damping) -> np.ndarray:
    """The damping matrix ``W_n`` of a Levenberg–Marquardt method (Haviland & Corke 49–51).

    - ``lm-wampler``: ``W_n = λ I``;
    - ``lm-chan``: ``W_n = λ E I``;
    - ``lm-sugihara``: ``W_n = E I + diag(w̄)`` (``damping`` = w̄, scalar or nv-vector);
    - ``gn``/``nr`` and their pinv variants: ``0``.
    """
    if method == "lm-wampler":
        return float(damping) * np.eye(nv)
    if method in ("lm-chan", "qp"):
        return float(damping) * E * np.eye(nv)
    if method == "lm-sugihara":
        return E * np.eye(nv) + np.diag(np.broadcast_to(np.asarray(damping, float), (nv,)))
    return np.zeros((nv, nv))


def step_direction(method: str, A: np.ndarray, c: np.ndarray, E: float, damping) -> np.ndarray:
    """One step ``Δq`` of ``method`` for the weighted system ``A Δq ≈ c``.

    ``A = W J`` and ``c = W e`` (so ``AᵀA = JᵀW_eJ`` and ``Aᵀc = JᵀW_e e`` with
    ``W_e = W²``). Raises ``np.linalg.LinAlgError`` when the matrix to invert is singular.
    """
    if method == "nr":
        if A.shape[0] != A.shape[1]:
            raise InvalidInput(
                f"method 'nr' needs a square task Jacobian, got {A.shape}; use 'nr-pinv' or 'gn'"
            )
        return np.linalg.solve(A, c)
    if method == "nr-pinv":
        return np.linalg.pinv(A) @ c
    H = A.T @ A
    g = A.T @ c
    if method == "gn":
        return np.linalg.solve(H, g)
    if method == "gn-pinv":
        return np.linalg.pinv(H) @ g
    H += damping_matrix(method, E, A.shape[1], damping)
    return np.linalg.solve(H, g)


def _revolute_mask(model: pin.Model) -> tuple[np.ndarray, np.ndarray]:
    """(q indices, is-revolute flags) of the 1-DoF joints (nq = nv = 1)."""
    idx, rev = [], []
    for joint in model.joints[1:]:
        if joint.nq == 1 and joint.nv == 1:
            idx.append(joint.idx_q)
            name = joint.shortname()
            rev.append(
                "Revolute" in name or name in ("JointModelRX", "JointModelRY", "JointModelRZ")
            )
    return np.array(idx, dtype=int), np.array(rev, dtype=bool)


class _Limits:
    """Joint-limit bookkeeping for the 1-DoF joints of a model (wrap, clip, check)."""

    def __init__(self, model: pin.Model):
        idx, rev = _revolute_mask(model)
        lo = np.array(model.lowerPositionLimit[idx], dtype=float)
        hi = np.array(model.upperPositionLimit[idx], dtype=float)
        finite = (np.abs(lo) < 1e300) & (np.abs(hi) < 1e300) & (lo <= hi)
        self.idx = idx
        self.all_q = len(idx) == model.nq == model.nv and np.array_equal(idx, np.arange(model.nq))
        self.rev = rev
        self.lo = np.where(finite, lo, -np.inf)
        self.hi = np.where(finite, hi, np.inf)
        self.bounded = finite
        self.any_bounded = bool(finite.any())
        self.any_rev = bool(rev.any())
        self.all_rev = self.all_q and bool(rev.all())
        self.contains_pi = bool((self.lo <= -math.pi).all() and (self.hi >= math.pi).all())
        self.lo_finite = np.where(finite, lo, 0.0)
        self.hi_finite = np.where(finite, hi, 0.0)
        # projection of the "clip" policy: bounded revolute angles are first moved by a
        # multiple of 2π into [mid − π, mid + π) (mid = middle of the range), which holds
        # the whole range, then clipped; other bounded joints are only clipped.
        wrap_rev = rev & finite
        self.base = np.where(wrap_rev, 0.5 * (self.lo_finite + self.hi_finite) - math.pi, 0.0)
        self.period = np.where(wrap_rev, _TWO_PI, np.inf)
        self.wrap_all = self.all_q and bool(wrap_rev.all())
        self.needs_clip = bool((finite & ~(rev & (hi - lo >= _TWO_PI))).any())

    def wrap(self, q: np.ndarray) -> None:
        """Revolute angles into (−π, π]; a bounded one that lands outside its range is moved
        by a multiple of 2π into the range, or, if none fits, to the representative nearest
        to the range."""
        if not self.any_rev:
            return
        if self.all_rev:  # common case: every coordinate is a revolute angle
            # on a few values, Python floats are cheaper than numpy calls
            x = q.tolist()
            if self.contains_pi:
                pi = math.pi
                for v in x:
                    if not -pi < v <= pi:
                        break
                else:
                    return  # already wrapped
            # math.remainder(v, 2π) is in [−π, π]
            w = [_remainder(v, _TWO_PI) for v in x]
            if -math.pi in w:
                w = [math.pi if v == -math.pi else v for v in w]
            if self.contains_pi:
                q[:] = w
                return
            w = np.array(w)
            if ((w >= self.lo) & (w <= self.hi)).all():
                q[:] = w
                return
        x = q[self.idx]
        w = np.where(self.rev, np.remainder(x + math.pi, _TWO_PI) - math.pi, x)
        lo, hi = self.lo_finite, self.hi_finite
        k = np.ceil((lo - w) / _TWO_PI)
        cand = w + _TWO_PI * k  # smallest representative >= lo
        alt = cand - _TWO_PI
        moved = np.where(cand <= hi, cand, np.where(cand - hi < lo - alt, cand, alt))
        inside = (w >= lo) & (w <= hi)
        x_inside = (x >= self.lo) & (x <= self.hi)
        # rounding in the 2π arithmetic may push a value on a bound an ulp outside: keep the
        # original value then
        out = np.where(self.rev & self.bounded & ~inside, np.where(x_inside, x, moved), w)
        q[self.idx] = out

    def clip(self, q: np.ndarray) -> None:
        """Project q into the joint ranges (every iterate of the ``"clip"`` policy): bounded
        revolute angles by a multiple of 2π into ``[mid − π, mid + π)``, then every bounded
        joint is clipped to ``[q_min, q_max]``. The 2π moves leave the kinematics unchanged."""
        if self.wrap_all:
            base = self.base
            np.subtract(q, base, out=q)
            np.remainder(q, _TWO_PI, out=q)
            np.add(q, base, out=q)
            if self.needs_clip:
                np.minimum(q, self.hi, out=q)
                np.maximum(q, self.lo, out=q)
            return
        x = q[self.idx]
        finite_period = np.isfinite(self.period)
        if finite_period.any():
            shifted = np.remainder(x - self.base, np.where(finite_period, _TWO_PI, 1.0))
            x = np.where(finite_period, shifted + self.base, x)
        q[self.idx] = np.clip(x, self.lo, self.hi)

    def violation(self, q: np.ndarray, tol: float = 1e-9) -> str | None:
        """Description of the first joint outside its range, or None."""
        if not self.any_bounded:
            return None
        x = q[self.idx]
        bad = np.flatnonzero((x < self.lo - tol) | (x > self.hi + tol))
        if bad.size == 0:
            return None
        k = bad[0]
        return f"q[{self.idx[k]}] = {x[k]:.6g} outside [{self.lo[k]:.6g}, {self.hi[k]:.6g}]"


class _Sampler:
    """Random valid configurations: uniform in the bounded joints' ranges, ``q_ref ± π`` for
    unbounded 1-DoF joints, and :func:`taskik.robots.random_configuration` for the rest
    (free-flyer kept near ``q_ref``)."""

    def __init__(self, model: pin.Model, limits: _Limits, q_ref: np.ndarray, rng):
        self.model = model
        self._rng = rng  # a Generator, a seed or None: the Generator is made on first use
        self.limits = limits
        self.q_ref = q_ref  # read only
        self.vector = limits.all_q
        self.lo = self.hi = None

    @property
    def rng(self) -> np.random.Generator:
        if not isinstance(self._rng, np.random.Generator):
            self._rng = _default_rng() if self._rng is None else np.random.default_rng(self._rng)
        return self._rng

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Sampling box of the vector case: the limits, or ``q_ref ± π`` where unbounded."""
        if self.lo is None:
            lim = self.limits
            self.lo = np.where(lim.bounded, lim.lo, self.q_ref - math.pi)
            self.hi = np.where(lim.bounded, lim.hi, self.q_ref + math.pi)
        return self.lo, self.hi

    def __call__(self) -> np.ndarray:
        if self.vector:
            lo, hi = self.bounds()
            return self.rng.uniform(lo, hi)
        from .robots import random_configuration

        return random_configuration(self.model, self.q_ref, self.rng)


_DEFAULT_RNG: list = []


def _default_rng() -> np.random.Generator:
    """A process-wide Generator seeded once from OS entropy (making one per call is slow)."""
    if not _DEFAULT_RNG:
        _DEFAULT_RNG.append(np.random.default_rng())
    return _DEFAULT_RNG[0]


def _check_options(
    method, joint_limits, tol, max_iterations, max_searches, time_budget, starts, pose_error
):
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
    if not (type(tol) is float and 0.0 < tol < math.inf) and not (
        isinstance(tol, float | int) and not isinstance(tol, bool) and 0.0 < tol < math.inf
    ):
        raise InvalidInput(f"tol must be finite and > 0, got {tol!r}")
    for name, value in (("max_iterations", max_iterations), ("max_searches", max_searches)):
        if type(value) is int and value >= 1:
            continue
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise InvalidInput(f"{name} must be an integer >= 1, got {value!r}")
    if time_budget is not None and not (
        isinstance(time_budget, float | int) and 0.0 < time_budget < math.inf
    ):
        raise InvalidInput(f"time_budget must be None or finite and > 0 (s), got {time_budget!r}")


def _check_stagnation(stagnation) -> float:
    try:
        x = float(stagnation)
    except (TypeError, ValueError):
        x = math.nan
    if not (0.0 <= x < 1.0):
        raise InvalidInput(f"stagnation must be in [0, 1), got {stagnation!r}")
    return x


def _check_damping(method: str, damping, nv: int):
    if method not in DEFAULT_DAMPING:
        return 0.0
    if damping is None:
        damping = DEFAULT_DAMPING[method]
    if method == "lm-sugihara":
        arr = np.asarray(damping, dtype=float)
        if arr.ndim == 0:
            arr = np.full(nv, float(arr))
        if arr.shape != (nv,) or not np.isfinite(arr).all() or (arr < 0).any():
            raise InvalidInput(
                f"Sugihara's w̄ must be a scalar or an nv={nv} vector of finite values >= 0, "
                f"got {damping!r}"
            )
        return arr
    x = float(damping)
    if not (x >= 0.0 and math.isfinite(x)):
        raise InvalidInput(f"damping λ must be finite and >= 0, got {damping!r}")
    return x


def _unit_cost(task: Task) -> bool:
    """True when every cost of ``task`` is 1 (cached per cost version of the task)."""
    cached = getattr(task, "_ik_unit_cost", None)
    if cached is not None and cached[0] == task._version:
        return cached[1]
    unit = bool((task._cost == 1.0).all())
    task._ik_unit_cost = (task._version, unit)
    return unit


class _SeedMemory:
    """Stored starts for one frame of one model: ``size`` configurations within the joint
    limits and the frame's pose at each, spread over the poses the frame can take.

    Built once (fixed internal seed, so every process builds the same memory): ``POOL``
    configurations are drawn uniformly within the limits, and ``size`` of them are kept by
    farthest-point sampling in the pose metric below, so that the kept poses cover the
    workspace evenly (fewer iterations from the nearest entry than ``size`` uniform draws).

    The distance of entry ``i`` to a target pose ``(p, R)`` is

        d_i = |p_i − p|² + w (3 − tr(R_iᵀR))        (m²; 3 − tr(R_iᵀR) = 2 (1 − cos θ_i),
                                                      θ_i the angle between R_i and R)

    and the score ``s_i = d_i − |p|² − 3w = |p_i|² − 2 p_iᵀp − w tr(R_iᵀR)`` orders the
    entries the same way. One matrix–vector product ``G h`` gives every score: row ``i`` of
    ``G`` holds ``−w R_i``, ``−2 p_i`` and ``|p_i|²`` in the layout of the flattened
    homogeneous matrix ``h = [[R, p], [0, 1]]`` of the target. ``size × 16`` stays below
    OpenBLAS's threshold for a multithreaded matrix–vector product: waking its threads
    would cost more than the product.
    """

    SIZE = 512
    POOL = 8192
    ORIENTATION_WEIGHT = 0.1  # w, m² per unit of 3 − tr(R_iᵀR)
    SEED = 20240515

    def __init__(
        self, ctx: _Context, fid: int, size: int = SIZE, weight: float = ORIENTATION_WEIGHT
    ):
        model, data = ctx.model, ctx.model.createData()
        sampler = _Sampler(model, ctx.limits, ctx.neutral, np.random.default_rng(self.SEED))
        if sampler.vector:
            lo, hi = sampler.bounds()
            pool = sampler.rng.uniform(lo, hi, (self.POOL, model.nq))
        else:  # floating base or multi-DoF joints: slower sampling, smaller pool
            pool = np.array([sampler() for _ in range(self.POOL // 4)])
        n = len(pool)
        features = np.empty((n, 12))  # [p, √(w/2) vec(R)]: squared distances are d_i
        scale = math.sqrt(0.5 * weight)
        for i in range(n):
            ctx.limits.wrap(pool[i])  # same kinematics; angles into (−π, π] where in range
            pin.forwardKinematics(model, data, pool[i])
            M = pin.updateFramePlacement(model, data, fid)
            features[i, :3] = M.translation
            features[i, 3:] = scale * M.rotation.ravel()
        keep = _farthest_points(features, min(size, n))
        P = features[keep, :3]
        R = features[keep, 3:] / scale
        G = np.zeros((len(keep), 4, 4))
        G[:, :3, :3] = -weight * R.reshape(-1, 3, 3)
        G[:, :3, 3] = -2.0 * P
        G[:, 3, 3] = np.einsum("ij,ij->i", P, P)
        # column-major: the fastest product G h (the scores, lower is nearer)
        self.G = np.asfortranarray(G.reshape(len(keep), 16))
        self.Q = pool[keep]
        self.size = len(keep)
        # pose and LOCAL Jacobian of the frame at each entry: the first iteration of a
        # search from an entry needs no kinematics (the same values it would compute)
        self.Q.flags.writeable = False
        self.rows = list(self.Q)  # row views, indexed faster than the array
        self.starts = []
        for q in self.rows:
            pin.forwardKinematics(model, data, q)
            M = pin.SE3(pin.updateFramePlacement(model, data, fid))
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)
            self.starts.append((M, J))


def _farthest_points(features: np.ndarray, count: int) -> np.ndarray:
    """Indices of ``count`` rows picked greedily, each the farthest (Euclidean) from the
    rows already picked, starting from row 0."""
    norms = np.einsum("ij,ij->i", features, features)
    keep = np.empty(count, dtype=int)
    keep[0] = 0
    dist = norms - 2.0 * features @ features[0] + norms[0]
    for k in range(1, count):
        i = int(dist.argmax())
        keep[k] = i
        np.minimum(dist, norms - 2.0 * features @ features[i] + norms[i], out=dist)
    return keep


class _Context:
    """What :func:`solve_posture` keeps per model between calls (kinematics data, limits,
    seed memories by frame)."""

    def __init__(self, model: pin.Model):
        self.model = model
        self.neutral = pin.neutral(model)
        self.conf = Configuration(model, self.neutral)
        self.data = model.createData()
        self.limits = _Limits(model)
        self.eye = np.eye(model.nv)
        self.memories: dict[int, _SeedMemory] = {}
        self.fast_poses: dict[tuple[int, str], _FastPose] = {}

    def memory(self, fid: int) -> _SeedMemory:
        """The seed memory of frame ``fid``, built on first use."""
        memory = self.memories.get(fid)
        if memory is None:
            memory = self.memories[fid] = _SeedMemory(self, fid)
        return memory


_CONTEXTS: dict[int, _Context] = {}
_MAX_CONTEXTS = 8


def _context(model: pin.Model) -> _Context:
    ctx = _CONTEXTS.get(id(model))
    if ctx is None or ctx.model is not model:
        if len(_CONTEXTS) >= _MAX_CONTEXTS:
            _CONTEXTS.clear()
        ctx = _CONTEXTS[id(model)] = _Context(model)
    return ctx


# ------------------------------------------------------------------------- entry point
def solve_posture(
    conf_or_model: Configuration | pin.Model,
    tasks: Sequence[Task],
    *,
    method: str = "lm-chan",
    damping=None,
    tol: float = 1e-6,
    max_iterations: int = 15,
    max_searches: int = 100,
    q0: np.ndarray | None = None,
    starts: str = "memory",
    joint_limits: str = "clip",
    regularization: Sequence[Task] = (),
    stagnation: float = 1e-3,
    patience: int = 3,
    rng: np.random.Generator | int | None = None,
    time_budget: float | None = None,
    pose_error: str = "log6",
) -> PostureResult:
    """Find a configuration ``q`` at which every task's weighted error is (near) zero.

    Iterates ``q ← q ⊕ A⁻¹ g`` (see the module docstring for ``A``, ``g`` and the methods)
    until ``E = ½ Σ_i ‖W_i e_i‖² < tol``. A search ends after ``max_iterations``
    evaluations of E, or earlier when it stagnates (the best E of the search has not dropped
    by the fraction ``stagnation`` in the last ``patience`` iterations), or when a step
    cannot be computed (singular matrix); the next search starts elsewhere (see
    ``starts``). Iterations are counted across searches.

    Args:
        conf_or_model: a :class:`Configuration` (its q is the first start; it is not
            modified) or a ``pinocchio.Model`` (first start ``q0``, or chosen by ``starts``).
        tasks: the tasks to satisfy (targets set). Their costs ``W_i`` weight the errors,
            their gains scale the correction of each step, and a task's own ``lm_damping``
            adds ``μ_i = λ_i ‖W_i e_i‖²`` to ``W_n``.
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
            but not to E: they shape the solution without blocking convergence.
        stagnation, patience: stagnation test of a search (see above).
        rng: numpy Generator or seed for the random starts (None: fresh entropy).
        time_budget: wall-clock limit (s) for the whole solve; None for none.
        pose_error: for a single :class:`FrameTask` only, the pose error of the step and of
            E: ``"log6"`` (the task's own error ``log6(T⁻¹T*)`` with the frame Jacobian) or
            ``"world"`` (Haviland & Corke eq. 37: ``[p* − p; α(R* Rᵀ)]`` with the
            world-aligned Jacobian), used to reproduce their Table 1.

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
        _check_options(
            method, joint_limits, tol, max_iterations, max_searches, time_budget, starts,
            pose_error,
        )  # fmt: skip
        tol, max_iterations, max_searches = float(tol), int(max_iterations), int(max_searches)
    if not (type(patience) is int and patience >= 1):
        raise InvalidInput(f"patience must be an integer >= 1, got {patience!r}")
    if not (type(stagnation) is float and 0.0 <= stagnation < 1.0):
        stagnation = _check_stagnation(stagnation)
    if not (rng is None or isinstance(rng, int | np.integer | np.random.Generator)):
        raise InvalidInput(f"rng must be a numpy Generator, an int seed or None, got {rng!r}")
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
    if isinstance(tasks, Task):
        tasks = [tasks]
    elif type(tasks) is not list:
        tasks = list(tasks) if isinstance(tasks, tuple) else None
    if not tasks or not (
        isinstance(tasks[0], Task) if len(tasks) == 1 else all(isinstance(t, Task) for t in tasks)
    ):
        raise InvalidInput("tasks must be a non-empty list of Task objects")
    if regularization:
        regularization = list(regularization)
        if not all(isinstance(t, Task) for t in regularization):
            raise InvalidInput("regularization must be a list of Task objects")
    else:
        regularization = []
    if damping is None and method == "lm-chan":
        damping = DEFAULT_DAMPING["lm-chan"]
    else:
        damping = _check_damping(method, damping, model.nv)

    ctx = _context(model)
    limits = ctx.limits
    conf = ctx.conf  # a work configuration: the caller's is never modified
    given = q_first is not None
    if given:
        q_first = conf.check_q(q_first)
    deadline = None if time_budget is None else t_start + float(time_budget)

    task = tasks[0]
    single_frame = len(tasks) == 1 and isinstance(task, FrameTask)
    if single_frame:
        require_target(task.target, task)
        fid = task.frame.id(conf)
    fast = (
        single_frame
        and type(task) is FrameTask
        and not regularization
        and method != "qp"
        and limits.all_q
        and task._gain == 1.0
        and task._lm_damping == 0.0
        and _unit_cost(task)
    )
    if pose_error == "world" and not fast:
        if not (single_frame and type(task) is FrameTask and not regularization):
            raise InvalidInput("pose_error='world' applies to a single FrameTask only")
        raise InvalidInput(
            "pose_error='world' needs unit costs, gain 1, no lm_damping, a fixed-base model "
            "with 1-DoF joints and a method other than 'qp'"
        )
    if fast:
        runner = ctx.fast_poses.get((fid, pose_error))
        if runner is None:
            runner = ctx.fast_poses[fid, pose_error] = _FastPose(ctx, fid, pose_error)
        runner.target = task.target
    else:
        runner = _General(conf, tasks, regularization)
    start = None  # (pose, Jacobian) at q_first when the seed memory knows them
    memory = None
    if not given:
        if single_frame and starts == "memory":
            memory = ctx.memory(fid)
            h = task.target.homogeneous.ravel()
            if not _unit_cost(task):
                h = h * _memory_weights(task)
            scores = memory.G.dot(h)
            k = int(scores.argmin())
            q_first = memory.rows[k]  # read-only view: copied before any change
            start = memory.starts[k]
        else:
            q_first = _Sampler(model, limits, ctx.neutral, rng)()
    first = None
    if fast and method == "lm-chan" and deadline is None and runner.lean(joint_limits):
        # the default case: the first search without the restart loop's bookkeeping
        first = runner._search_chan(
            q_first, damping, tol, max_iterations, stagnation, patience, start
        )
        if first[3] == "converged":
            its, E, q = first[:3]
            if q is q_first:
                q = q.copy()
            if joint_limits == "clip":
                limits.wrap(q)
            else:
                _wrap_only(limits, q)
            return PostureResult(
                q, True, its, 1, E, (E,), time.perf_counter() - t_start, _converged(tol), method
            )
    restart = _Sampler(model, limits, q_first if given else ctx.neutral, rng)
    if memory is not None:
        restart = _NearestStarts(memory, scores, k, restart)
    q, success, iterations, searches, E, reason = _search_loop(
        runner,
        joint_limits,
        method,
        damping,
        tol,
        max_iterations,
        max_searches,
        limits,
        restart,
        q_first,
        stagnation,
        patience,
        deadline,
        first,
    )
    return PostureResult(
        q,
        success,
        iterations,
        searches,
        E,
        (E,) if fast else runner.residuals(q),
        time.perf_counter() - t_start,
        reason,
        method,
    )


class _NearestStarts:
    """Restarts after a first search from entry ``first`` of a seed memory: each call
    returns the next nearest entry (``NEXT`` of them, by ``scores``), then a random valid
    configuration from ``sampler``."""

    NEXT = 8

    __slots__ = ("memory", "order", "sampler", "taken")

    def __init__(self, memory: _SeedMemory, scores: np.ndarray, first: int, sampler: _Sampler):
        k = min(self.NEXT + 1, scores.size)
        near = np.argpartition(scores, k - 1)[:k]
        near = near[np.argsort(scores[near], kind="stable")]
        self.memory = memory
        self.order = [i for i in near.tolist() if i != first][: self.NEXT]
        self.sampler = sampler
        self.taken = 0

    def __call__(self) -> np.ndarray:
        if self.taken < len(self.order):
            self.taken += 1
            return self.memory.Q[self.order[self.taken - 1]].copy()
        return self.sampler()


def _memory_weights(task: FrameTask) -> np.ndarray:
    """Multipliers of the flattened target pose so that the memory scores weigh position
    and orientation by the task's mean squared costs."""
    cost = task._cost
    a = float(np.mean(cost[:3] ** 2))
    b = float(np.mean(cost[3:] ** 2))
    w = np.full(16, b)
    w[[3, 7, 11, 15]] = a
    w[12:15] = 0.0
    return w


# ----------------------------------------------------------------------- search loop
def _search_loop(
    runner,
    policy,
    method,
    damping,
    tol,
    max_iterations,
    max_searches,
    limits,
    sampler,
    q_first,
    stagnation,
    patience,
    deadline,
    first=None,
):
    """Run up to ``max_searches`` searches (``first``: the result of the first one, when the
    caller has run it already); return (q, success, iterations, searches, E, reason)."""
    total = 0
    best_q, best_E = None, math.inf
    last_end = ""
    rejected = 0
    # Revolute joints whose range spans 2π or more need no projection: every angle has a
    # representative inside, which the final wrap picks. Only the others are clipped.
    clip = policy == "clip" and limits.needs_clip
    searches = 0
    for search in range(max_searches):
        if search and deadline is not None and time.perf_counter() > deadline:
            last_end = "time budget exhausted"  # (the first search always runs)
            break
        searches = search + 1
        if search == 0 and first is not None:
            its, E, q, end = first
        else:
            q = q_first.copy() if search == 0 else sampler()
            if clip:
                limits.clip(q)
            its, E, q, end = runner.search(
                q,
                method,
                damping,
                tol,
                max_iterations,
                stagnation,
                patience,
                limits if clip else None,
                deadline,
            )
        total += its
        if end == "converged":
            if policy != "ignore":
                limits.wrap(q)
            else:
                _wrap_only(limits, q)
            bad = limits.violation(q) if policy == "reject" else None
            if bad is None:
                return q, True, total, searches, E, _converged(tol)
            rejected += 1
            last_end = f"converged but {bad}"
            E_cmp = math.inf
        else:
            last_end = end
            E_cmp = E
            if policy == "reject" and limits.violation(q) is not None:
                E_cmp = math.inf
        if E_cmp < best_E or best_q is None:
            best_q, best_E = q.copy(), E
        if end == "time budget exhausted":
            break
    if policy != "ignore":
        limits.wrap(best_q)
    reason = (
        f"no solution after {searches} search(es), {total} iterations: best E = "
        f"{best_E:.3g} >= tol = {tol:g} (last search: {last_end})"
    )
    if rejected:
        reason += f"; {rejected} converged solution(s) rejected for joint limits"
    if best_E < tol:
        reason += "; the best q violates the joint limits"
    E_best = runner.error(best_q)
    return best_q, False, total, searches, E_best, reason


_CONVERGED: dict[float, str] = {}


def _converged(tol: float) -> str:
    """The reason of a converged solve (one string per tolerance)."""
    reason = _CONVERGED.get(tol)
    if reason is None:
        if len(_CONVERGED) > 64:
            _CONVERGED.clear()
        reason = _CONVERGED[tol] = f"converged: E < tol = {tol:g}"
    return reason


def _wrap_only(limits: _Limits, q: np.ndarray) -> None:
    if limits.rev.any():
        x = q[limits.idx]
        q[limits.idx] = np.where(limits.rev, np.remainder(x + math.pi, _TWO_PI) - math.pi, x)


class _Stall:
    """Stagnation test: the best E has not dropped by ``fraction`` in ``patience`` steps."""

    __slots__ = ("fraction", "patience", "best", "since")

    def __init__(self, fraction: float, patience: int):
        self.fraction = fraction
        self.patience = patience
        self.best = math.inf
        self.since = 0

    def __call__(self, E: float) -> bool:
        if self.best * (1.0 - self.fraction) > E:
            self.best = E
            self.since = 0
            return False
        if self.best > E:
            self.best = E
        self.since += 1
        return self.since >= self.patience


# ------------------------------------------------------------------------- general path
class _General:
    """Any tasks, any model: the core's kinematics pass and task terms at each iteration."""

    def __init__(self, conf: Configuration, tasks: list[Task], regularization: list[Task]):
        from .limits.configuration import ConfigurationLimit
        from .problem import get_assembler

        self.conf = conf
        self.tasks = tasks
        self.all_tasks = tasks + regularization
        self.asm = get_assembler(conf, self.all_tasks, [])
        self.qp_limits = [ConfigurationLimit(conf.model, gain=1.0)]
        self.needs_normalize = conf.nq != conf.nv or any(
            what == "unit complex" for _, what in conf._unit_slices
        )

    def _terms(self):
        """Fill the assembler at the current q: A = W J, c = W Kp e (dt = 1)."""
        self.asm.assemble(self.conf, 1.0, 0.0)
        return self.asm

    def _weighted_error(self) -> float:
        E = 0.0
        for task, _, c_i, _rows in self.asm.slices[: len(self.tasks)]:
            r = c_i / task._gain
            E += 0.5 * float(r @ r)
        return E

    def error(self, q: np.ndarray) -> float:
        self.conf.update(q)
        self._terms()
        return self._weighted_error()

    def residuals(self, q: np.ndarray) -> tuple[float, ...]:
        self.conf.update(q)
        self._terms()
        out = []
        for task, _, c_i, _ in self.asm.slices[: len(self.tasks)]:
            r = c_i / task._gain
            out.append(0.5 * float(r @ r))
        return tuple(out)

    def search(
        self, q, method, damping, tol, max_iterations, stagnation, patience, limits, deadline
    ):
        conf, model = self.conf, self.conf.model
        stall = _Stall(stagnation, patience)
        best_q, best_E = q.copy(), math.inf
        for i in range(1, max_iterations + 1):
            conf.update(q)
            asm = self._terms()
            E = self._weighted_error()
            if best_E > E:
                best_q[:] = q
                best_E = E
            if tol > E:
                return i, E, q, "converged"
            if i == max_iterations:
                return i, best_E, best_q, f"max_iterations = {max_iterations} reached"
            if stall(E):
                return i, best_E, best_q, f"stagnated at E = {best_E:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, best_E, best_q, "time budget exhausted"
            try:
                if method == "qp":
                    from .solve import solve_ik

                    mu = damping * E
                    dq = solve_ik(conf, self.all_tasks, 1.0, limits=self.qp_limits, damping=mu)
                else:
                    dq = self._step(asm, method, damping, E)
            except np.linalg.LinAlgError:
                return i, best_E, best_q, "singular step matrix"
            except NoSolutionFound as exc:
                return i, best_E, best_q, f"QP step failed: {exc}"
            if not np.all(np.isfinite(dq)):
                return i, best_E, best_q, "non-finite step"
            q = pin.integrate(model, q, dq)
            if self.needs_normalize:
                q = pin.normalize(model, q)
            if limits is not None:
                limits.clip(q)
        return max_iterations, best_E, best_q, f"max_iterations = {max_iterations} reached"

    def _step(self, asm, method, damping, E):
        A, c = asm.A, asm.c
        if method in ("nr", "nr-pinv", "gn", "gn-pinv"):
            return step_direction(method, A, c, E, damping)
        # asm.P = AᵀA + Σ μ_i I (tasks' own LM damping); asm.r = −Aᵀc
        H = asm.P.copy()
        H += damping_matrix(method, E, A.shape[1], damping)
        return np.linalg.solve(H, -asm.r)


# --------------------------------------------------------------------- fast pose path
class _FastPose:
    """One FrameTask on a fixed-base model with 1-DoF joints: a lean loop on Pinocchio.

    Per iteration: forward kinematics of the frame, the error (``log6(T⁻¹T*)``, or
    Haviland & Corke's world-frame error), E, the frame Jacobian (LOCAL, or world-aligned
    for the world error) and one LAPACK solve; no task objects, no allocation beyond the
    few small arrays numpy returns.
    """

    def __init__(self, ctx: _Context, fid: int, pose_error: str):
        self.model = ctx.model
        self.data = ctx.data
        self.fid = fid
        self.target = None  # set before each solve
        self.world = pose_error == "world"
        self.eye = ctx.eye
        self.square = ctx.model.nv == 6
        self.needs_clip = ctx.limits.needs_clip

    def lean(self, policy: str) -> bool:
        """True when :meth:`_search_chan` runs the searches (log6 error, LAPACK at hand, no
        projection of the iterates, no check of the limits after convergence)."""
        return (
            not self.world
            and _dposv is not None
            and policy != "reject"
            and not (policy == "clip" and self.needs_clip)
        )

    def _e(self, q):
        model, data, fid = self.model, self.data, self.fid
        pin.forwardKinematics(model, data, q)
        M = pin.updateFramePlacement(model, data, fid)
        if self.world:
            Mt = self.target
            return np.concatenate(
                (Mt.translation - M.translation, pin.log3(Mt.rotation @ M.rotation.T))
            )
        return pin.log6(M.actInv(self.target)).vector

    def error(self, q) -> float:
        e = self._e(q)
        return 0.5 * float(e @ e)

    def residuals(self, q) -> tuple[float, ...]:
        return (self.error(q),)

    def search(
        self, q, method, damping, tol, max_iterations, stagnation, patience, limits, deadline
    ):
        if (
            method == "lm-chan"
            and not self.world
            and _dposv is not None
            and limits is None
            and deadline is None
        ):
            return self._search_chan(q, damping, tol, max_iterations, stagnation, patience)
        return self._search_any(
            q, method, damping, tol, max_iterations, stagnation, patience, limits, deadline
        )

    def _search_chan(self, q, lam, tol, max_iterations, stagnation, patience, start=None):
        """The default case, LM Chan on log6 with no projection and no deadline: the same
        iterates as :meth:`_search_any`, with the fewest Python operations per iteration.
        ``start`` = (frame pose, LOCAL Jacobian) at q when known (a seed-memory entry): the
        first iteration then skips the kinematics."""
        model, data, fid, Mt = self.model, self.data, self.fid, self.target
        fk = pin.forwardKinematics
        ufp = pin.updateFramePlacement
        cfj = pin.computeFrameJacobian
        log6 = pin.log6
        syrk = _dsyrk
        posv = _dposv
        LOCAL = pin.LOCAL
        eye = self.eye
        tol2 = 2.0 * tol
        half_lam = 0.5 * lam
        keep = 1.0 - stagnation
        stall_best = math.inf
        stall_since = 0
        best_q, best_ee = q, math.inf
        i = 0
        while i < max_iterations:
            i += 1
            if start is None:
                fk(model, data, q)
                e = log6(ufp(model, data, fid).actInv(Mt)).vector
            else:
                e = log6(start[0].actInv(Mt)).vector
            ee = float(e.dot(e))
            if ee < tol2:
                return i, 0.5 * ee, q, "converged"
            if ee < best_ee:
                best_ee = ee
                best_q = q
            elif ee != ee:
                return i, 0.5 * best_ee, best_q, "non-finite error (diverged)"
            if ee < stall_best * keep:
                stall_best = ee
                stall_since = 0
            else:
                stall_since += 1
                if stall_since >= patience:
                    return i, 0.5 * best_ee, best_q, f"stagnated at E = {0.5 * best_ee:.3g}"
            if i == max_iterations:
                break
            if start is None:
                J = cfj(model, data, q, fid, LOCAL)  # C-ordered: J.T is Fortran-ordered
            else:
                J = start[1]
                start = None
            # JᵀJ + μI (upper triangle), Jᵀe, Cholesky solve in place (positional flags:
            # lower = 0, overwrite_a = overwrite_b = 1, cheaper than keywords)
            _, dq, info = posv(syrk(1.0, J.T, half_lam * ee, eye), e.dot(J), 0, 1, 1)
            if info:
                return i, 0.5 * best_ee, best_q, "singular step matrix"
            q = q + dq
        return i, 0.5 * best_ee, best_q, f"max_iterations = {max_iterations} reached"

    def _search_any(
        self, q, method, damping, tol, max_iterations, stagnation, patience, limits, deadline
    ):
        model, data, fid, Mt = self.model, self.data, self.fid, self.target
        fk = pin.forwardKinematics
        ufp = pin.updateFramePlacement
        cfj = pin.computeFrameJacobian
        log6 = pin.log6
        log3 = pin.log3
        world = self.world
        ref = pin.LOCAL_WORLD_ALIGNED if world else pin.LOCAL
        eye = self.eye
        tol2 = 2.0 * tol
        lapack = _dposv is not None
        lm = method in ("lm-wampler", "lm-chan", "lm-sugihara")
        chan = method == "lm-chan"
        wampler = method == "lm-wampler"
        half_lam = 0.5 * damping if chan else 0.0
        wbar = np.diag(damping) if method == "lm-sugihara" else None
        stall_best = math.inf
        stall_since = 0
        keep = 1.0 - stagnation
        best_q, best_ee = q, math.inf
        for i in range(1, max_iterations + 1):
            fk(model, data, q)
            M = ufp(model, data, fid)
            if world:
                e = np.concatenate(
                    (Mt.translation - M.translation, log3(Mt.rotation @ M.rotation.T))
                )
            else:
                e = log6(M.actInv(Mt)).vector
            ee = float(e.dot(e))
            if ee != ee:  # NaN: the iterate diverged
                return i, 0.5 * best_ee, best_q, "non-finite error (diverged)"
            if ee < tol2:
                return i, 0.5 * ee, q, "converged"
            if ee < best_ee:  # q is never modified in place: keep a reference
                best_ee = ee
                best_q = q
            if i == max_iterations:
                break
            # stagnation test (inline _Stall)
            if ee < stall_best * keep:
                stall_best = ee
                stall_since = 0
            else:
                stall_since += 1
                if stall_since >= patience:
                    return i, 0.5 * best_ee, best_q, f"stagnated at E = {0.5 * best_ee:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, 0.5 * best_ee, best_q, "time budget exhausted"
            J = cfj(model, data, q, fid, ref)
            if lm and lapack:
                if chan:
                    mu = half_lam * ee
                elif wampler:
                    mu = damping
                else:
                    mu = 0.5 * ee
                H = _dsyrk(1.0, J.T, mu, eye)  # JᵀJ + μI (upper triangle)
                if wbar is not None:
                    H += wbar
                _, dq, info = _dposv(H, e.dot(J), 0, 1, 1)
                if info != 0:
                    return i, 0.5 * best_ee, best_q, "singular step matrix"
            elif method == "nr" and lapack:
                if not self.square:
                    raise InvalidInput(
                        f"method 'nr' needs a square Jacobian (6 × 6), got 6 × {J.shape[1]}; "
                        "use 'nr-pinv' or 'gn'"
                    )
                _, _, dq, info = _dgesv(J, e)
                if info != 0:
                    return i, 0.5 * best_ee, best_q, "singular step matrix"
            else:
                try:
                    dq = step_direction(method, J, e, 0.5 * ee, damping)
                except np.linalg.LinAlgError:
                    return i, 0.5 * best_ee, best_q, "singular step matrix"
            q = q + dq
            if limits is not None:
                limits.clip(q)
        return max_iterations, 0.5 * best_ee, best_q, f"max_iterations = {max_iterations} reached"
