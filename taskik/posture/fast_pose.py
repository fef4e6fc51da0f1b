"""The search loop specialised to one frame task on a fixed-base model with 1-DoF joints:
the same iterates as the general loop, straight on Pinocchio and LAPACK."""

from __future__ import annotations

import math
import time

import numpy as np
import pinocchio as pin
from scipy.linalg.blas import dsyrk
from scipy.linalg.lapack import dgesv, dposv

from ..exceptions import InvalidInput
from .formulas import LM_METHODS, _step_direction
from .joint_limits import JointLimits
from .search import SearchOptions, SearchOutcome, Start


class FastPose:
    """One :class:`~taskik.FrameTask` (unit costs, gain 1, no ``lm_damping``) on a
    fixed-base model with 1-DoF joints.

    Per iteration, one Pinocchio call gives the frame's Jacobian (LOCAL, or world-aligned
    for the world error) and its pose; then the error (``log6(T⁻¹T*)``, computed as the
    SE(3) Lie group's difference of the two poses, or Haviland & Corke's world-frame error
    ``[p* − p; log3(R* Rᵀ)]``), ``E = ½ ‖e‖²`` and, unless E is
    below tol, one BLAS rank update and one LAPACK solve for the step: no task objects, no
    allocation beyond the few small arrays numpy returns, no checks inside the loop.
    :meth:`set_target` is called before each solve.

    The pose comes with the Jacobian: ``computeFrameJacobian`` with the world-aligned
    frame writes the frame's placement (``data.oMf``), the same floats as
    ``updateFramePlacement``; with the LOCAL frame it composes the joint placements from
    the frame back to the root (``data.iMf[0]``: the same pose, multiplied in the other
    order, so equal to it within a few ulps). :meth:`pose_with_jacobian` checks this once
    per model; where it does not hold, every iteration computes the pose by forward
    kinematics first.
    """

    def __init__(self, model: pin.Model, fid: int, pose_error: str) -> None:
        self.model = model
        self.data = model.createData()
        self.fid = fid
        self.target: pin.SE3  # set before each solve (set_target)
        self.xt: np.ndarray | None = None  # the target as [translation, quaternion]
        self.world = pose_error == "world"
        # (Fortran-ordered: dsyrk copies it as it is, without a transposition)
        self.eye = np.asfortranarray(np.eye(model.nv))
        self.square = model.nv == 6
        self.ref = pin.LOCAL_WORLD_ALIGNED if self.world else pin.LOCAL
        # where computeFrameJacobian leaves the frame's pose: (vector, index) of data
        self.poses, self.pose_index = (
            (self.data.oMf, fid) if self.world else (self.data.iMf, 0)
        )  # fmt: skip
        self.one_call = self.pose_with_jacobian()
        # log6(T⁻¹T*) as the SE(3) Lie group's difference of the two poses as
        # [translation, quaternion] vectors: two calls that return the error as an array
        # (M.actInv(T*) first tries its Motion, Force and Inertia overloads, then log6
        # returns a Motion whose .vector is one more call)
        self.difference = pin.liegroups.SE3().difference
        # Boost.Python hands out an element of data.iMf / data.oMf as a proxy that reads
        # the element each time it is used: fetched once, it follows every later call.
        # Kept only if that holds here (checked once per model and frame).
        self.pose: pin.SE3 | None = self.live_pose() if self.one_call else None

    def set_target(self, target: pin.SE3, xt: np.ndarray | None = None) -> None:
        """The target of the next searches (and, for the log6 error, as the vector
        ``[translation, quaternion]`` of the SE(3) group's difference: ``xt``, the value of
        ``pin.SE3ToXYZQUAT(target)``, when the caller has it)."""
        self.target = target
        if xt is None and not self.world:
            xt = pin.SE3ToXYZQUAT(target)
        self.xt = xt

    def pose_with_jacobian(self) -> bool:
        """Whether the pose that ``computeFrameJacobian`` leaves in ``data`` is the frame's
        placement (within 1e-12 at two configurations): the loop then makes one Pinocchio
        call per iteration instead of three."""
        model, data, fid = self.model, self.data, self.fid
        check = model.createData()
        lo = np.where(np.isfinite(model.lowerPositionLimit), model.lowerPositionLimit, -1.0)
        hi = np.where(np.isfinite(model.upperPositionLimit), model.upperPositionLimit, 1.0)
        for t in (0.3, 0.7):
            q = pin.normalize(model, lo + t * (np.clip(hi, lo, lo + 2.0) - lo))
            pin.computeFrameJacobian(model, data, q, fid, self.ref)
            pin.forwardKinematics(model, check, q)
            M = pin.updateFramePlacement(model, check, fid)
            got = self.poses[self.pose_index]
            if not np.allclose(got.homogeneous, M.homogeneous, rtol=0.0, atol=1e-12):
                return False
        return True

    def live_pose(self) -> pin.SE3 | None:
        """The pose element that ``computeFrameJacobian`` writes, fetched once, if it
        follows later calls (it then equals a fresh fetch after a call at another q);
        None otherwise (the loop then fetches the element at every iteration)."""
        model, data, fid = self.model, self.data, self.fid
        pose = self.poses[self.pose_index]
        for t in (0.2, 0.6):
            q = pin.normalize(model, pin.neutral(model) + t)
            pin.computeFrameJacobian(model, data, q, fid, self.ref)
            fresh = self.poses[self.pose_index]
            if not np.array_equal(pose.homogeneous, fresh.homogeneous):
                return None
        return pose

    def _error(self, q: np.ndarray) -> np.ndarray:
        model, data, fid = self.model, self.data, self.fid
        pin.forwardKinematics(model, data, q)
        M = pin.updateFramePlacement(model, data, fid)
        if self.world:
            Mt = self.target
            return np.concatenate(
                (Mt.translation - M.translation, pin.log3(Mt.rotation @ M.rotation.T))
            )
        return pin.log6(M.actInv(self.target)).vector

    def error(self, q: np.ndarray) -> float:
        """``E = ½ ‖e‖²`` at q."""
        e = self._error(q)
        return 0.5 * float(e @ e)

    def residuals(self, q: np.ndarray) -> tuple[float, ...]:
        return (self.error(q),)

    def search(
        self,
        q: np.ndarray,
        options: SearchOptions,
        limits: JointLimits | None,
        start: Start | None = None,
    ) -> SearchOutcome:
        """One search from q (never modified). ``limits``: project every iterate (the
        "clip" policy), or None. ``start`` = (frame pose, LOCAL Jacobian) at q when known
        (a seed-memory entry): the first iteration then skips the kinematics."""
        model, data, fid, Mt = self.model, self.data, self.fid, self.target
        cfj = pin.computeFrameJacobian
        world = self.world
        ref = self.ref
        pose = self.pose if self.one_call else None
        one_call = self.one_call
        difference, as_vector = self.difference, pin.SE3ToXYZQUAT
        xt = self.xt
        poses, k = self.poses, self.pose_index
        eye = self.eye
        method, damping, deadline = options.method, options.damping, options.deadline
        max_iterations = options.max_iterations
        tol2 = 2.0 * options.tol  # on ee = ‖e‖² = 2E
        chan = method == "lm-chan"  # the default: its step inline
        half_lam = 0.5 * damping if chan else 0.0
        # the stagnation rule (Stagnation, inline: scale-free, so applied to ee = 2E):
        # a drop below `drop` (= keep × the ee of the last significant drop) is progress
        keep, patience = 1.0 - options.stagnation, options.patience
        drop, since = math.inf, 0
        best_q, best_ee = q, math.inf  # q is never modified in place: keep a reference
        J = None
        for i in range(1, max_iterations + 1):
            if start is not None:
                M, J = start
                start = None
            elif pose is not None:
                J = cfj(model, data, q, fid, ref)  # C-ordered: J.T is Fortran-ordered
                M = pose
            elif one_call:
                J = cfj(model, data, q, fid, ref)
                M = poses[k]
            else:
                pin.forwardKinematics(model, data, q)
                M = pin.updateFramePlacement(model, data, fid)
                J = None
            if world:
                e = np.concatenate(
                    (Mt.translation - M.translation, pin.log3(Mt.rotation @ M.rotation.T))
                )
            else:
                e = difference(as_vector(M), xt)  # log6(M⁻¹ T*)
            # ‖e‖² on Python floats (fewer instructions than numpy's dot on six entries)
            a, b, c, x, y, z = e.tolist()
            ee = a * a + b * b + c * c + x * x + y * y + z * z
            if ee < tol2:
                return i, 0.5 * ee, q, "converged"
            if ee < best_ee:
                best_ee = ee
                best_q = q
            elif ee != ee:
                return i, 0.5 * best_ee, best_q, "non-finite error (diverged)"
            if i == max_iterations:
                break
            if drop > ee:
                drop = keep * ee
                since = 0
            else:
                since += 1
                if since >= patience:
                    return i, 0.5 * best_ee, best_q, f"stagnated at E = {0.5 * best_ee:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, 0.5 * best_ee, best_q, "time budget exhausted"
            if J is None:
                J = cfj(model, data, q, fid, ref)
            if chan:
                # JᵀJ + μI (upper triangle), Jᵀe, Cholesky solve in place (positional flags:
                # lower = 0, overwrite_a = overwrite_b = 1, cheaper than keywords)
                _, dq, info = dposv(dsyrk(1.0, J.T, half_lam * ee, eye), e.dot(J), 0, 1, 1)
                if info:
                    return i, 0.5 * best_ee, best_q, "singular step matrix"
                dq += q  # (dq is LAPACK's fresh array: the new iterate, in place)
                q = dq
            else:
                dq = self._step(method, J, e, ee, damping)
                if dq is None:
                    return i, 0.5 * best_ee, best_q, "singular step matrix"
                q = q + dq
            if limits is not None:
                limits.clip(q)
        return max_iterations, 0.5 * best_ee, best_q, f"max_iterations = {max_iterations} reached"

    def _step(
        self, method: str, J: np.ndarray, e: np.ndarray, ee: float, damping: float | np.ndarray
    ) -> np.ndarray | None:
        """The step of a method other than LM Chan; None when its matrix is singular."""
        if method in LM_METHODS:
            # Wampler: W_n = λ I; Sugihara: W_n = E I + diag(w̄)
            mu = damping if method == "lm-wampler" else 0.5 * ee
            H = dsyrk(1.0, J.T, mu, self.eye)  # JᵀJ + μI (upper triangle)
            if method == "lm-sugihara":
                H += np.diag(damping)
            _, dq, info = dposv(H, e.dot(J), 0, 1, 1)
            return None if info else dq
        if method == "nr":
            if not self.square:
                raise InvalidInput(
                    f"method 'nr' needs a square Jacobian (6 × 6), got 6 × {J.shape[1]}; "
                    "use 'nr-pinv' or 'gn'"
                )
            _, _, dq, info = dgesv(J, e)
            return None if info else dq
        try:
            return _step_direction(method, J, e, 0.5 * ee, damping)
        except np.linalg.LinAlgError:
            return None
