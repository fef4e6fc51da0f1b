"""Where the searches of :func:`taskik.solve_posture` start (``starts``): random valid
configurations, or the entries of a seed memory nearest to the target pose first."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from ..robots import random_configuration
from ..tasks.frame import FrameTask
from .joint_limits import JointLimits

#: Where the searches start when no start is given (``starts`` of :func:`solve_posture`).
STARTS = ("memory", "random")


class RandomStarts:
    """Random valid configurations: uniform in the bounded joints' ranges, ``q_ref ± π`` for
    unbounded 1-DoF joints, and :func:`taskik.robots.random_configuration` for the rest
    (free-flyer kept near ``q_ref``)."""

    def __init__(
        self,
        model: pin.Model,
        limits: JointLimits,
        q_ref: np.ndarray,
        rng: np.random.Generator | int | None,
    ) -> None:
        self.model = model
        self._rng = rng  # a Generator, a seed or None: the Generator is made on first use
        self.limits = limits
        self.q_ref = q_ref  # read only
        self.vector = limits.all_q
        self.lo: np.ndarray | None = None
        self.hi: np.ndarray | None = None
        self.width: np.ndarray | None = None  # hi − lo

    @property
    def rng(self) -> np.random.Generator:
        if not isinstance(self._rng, np.random.Generator):
            self._rng = _default_rng() if self._rng is None else np.random.default_rng(self._rng)
        return self._rng

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Sampling box of the vector case: the limits, or ``q_ref ± π`` where unbounded."""
        if self.lo is None or self.hi is None:
            lim = self.limits
            self.lo = np.where(lim.bounded, lim.lo, self.q_ref - math.pi)
            self.hi = np.where(lim.bounded, lim.hi, self.q_ref + math.pi)
        return self.lo, self.hi

    def __call__(self) -> np.ndarray:
        if self.vector:
            # lo + (hi − lo) u, u ~ U[0, 1): the floats Generator.uniform(lo, hi) draws
            # (the same formula on the same stream), without its checks of the bounds
            # (about 8x the cost of the draw on six joints; these bounds are finite)
            width = self.width
            if width is None:
                lo, hi = self.bounds()
                width = self.width = hi - lo
            assert self.lo is not None  # (set by bounds())
            return self.lo + width * self.rng.random(width.size)
        return random_configuration(self.model, self.q_ref, self.rng)


_DEFAULT_RNG: list[np.random.Generator] = []


def _default_rng() -> np.random.Generator:
    """A process-wide Generator seeded once from OS entropy (making one per call is slow)."""
    if not _DEFAULT_RNG:
        _DEFAULT_RNG.append(np.random.default_rng())
    return _DEFAULT_RNG[0]


class SeedMemory:
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
        self,
        model: pin.Model,
        limits: JointLimits,
        fid: int,
        size: int = SIZE,
        weight: float = ORIENTATION_WEIGHT,
    ) -> None:
        data = model.createData()
        sampler = RandomStarts(model, limits, pin.neutral(model), np.random.default_rng(self.SEED))
        if sampler.vector:
            lo, hi = sampler.bounds()
            pool = sampler.rng.uniform(lo, hi, (self.POOL, model.nq))
        else:  # floating base or multi-DoF joints: slower sampling, smaller pool
            pool = np.array([sampler() for _ in range(self.POOL // 4)])
        n = len(pool)
        features = np.empty((n, 12))  # [p, √(w/2) vec(R)]: squared distances are d_i
        scale = math.sqrt(0.5 * weight)
        for i in range(n):
            limits.wrap(pool[i])  # same kinematics; angles into (−π, π] where in range
            pin.forwardKinematics(model, data, pool[i])
            M = pin.updateFramePlacement(model, data, fid)
            features[i, :3] = M.translation
            features[i, 3:] = scale * M.rotation.ravel()
        keep = farthest_points(features, min(size, n))
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
        self.starts: list[tuple[pin.SE3, np.ndarray]] = []  # (pose, LOCAL Jacobian)
        for q in self.rows:
            pin.forwardKinematics(model, data, q)
            M = pin.SE3(pin.updateFramePlacement(model, data, fid))
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)
            self.starts.append((M, J))


def farthest_points(features: np.ndarray, count: int) -> np.ndarray:
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


class NearestStarts:
    """Restarts after a first search from entry ``first`` of a seed memory: each call
    returns the next nearest entry (``NEXT`` of them, by ``scores``), then a random valid
    configuration from ``sampler``."""

    NEXT = 8

    __slots__ = ("memory", "order", "sampler", "taken")

    def __init__(
        self, memory: SeedMemory, scores: np.ndarray, first: int, sampler: RandomStarts
    ) -> None:
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


def memory_weights(task: FrameTask) -> np.ndarray:
    """Multipliers of the flattened target pose so that the memory scores weigh position
    and orientation by the task's mean squared costs."""
    cost = task._cost
    a = float(np.mean(cost[:3] ** 2))
    b = float(np.mean(cost[3:] ** 2))
    w = np.full(16, b)
    w[[3, 7, 11, 15]] = a
    w[12:15] = 0.0
    return w
