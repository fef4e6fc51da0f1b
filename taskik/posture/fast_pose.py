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
from .stagnation import Stagnation


class FastPose:
    """One :class:`~taskik.FrameTask` (unit costs, gain 1, no ``lm_damping``) on a
    fixed-base model with 1-DoF joints.

    Per iteration: forward kinematics of the frame, the error (``log6(T⁻¹T*)``, or
    Haviland & Corke's world-frame error ``[p* − p; log3(R* Rᵀ)]``), ``E = ½ ‖e‖²``, the
    frame Jacobian (LOCAL, or world-aligned for the world error) and one LAPACK solve; no
    task objects, no allocation beyond the few small arrays numpy returns. ``target`` is
    set before each solve.
    """

    def __init__(self, model: pin.Model, fid: int, pose_error: str) -> None:
        self.model = model
        self.data = model.createData()
        self.fid = fid
        self.target: pin.SE3  # set before each solve
        self.world = pose_error == "world"
        self.eye = np.eye(model.nv)
        self.square = model.nv == 6

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
        fk = pin.forwardKinematics
        ufp = pin.updateFramePlacement
        cfj = pin.computeFrameJacobian
        log6 = pin.log6
        world = self.world
        ref = pin.LOCAL_WORLD_ALIGNED if world else pin.LOCAL
        eye = self.eye
        method, damping, deadline = options.method, options.damping, options.deadline
        max_iterations = options.max_iterations
        tol2 = 2.0 * options.tol  # on ee = ‖e‖² = 2E
        chan = method == "lm-chan"  # the default: its step inline
        half_lam = 0.5 * damping if chan else 0.0
        stalled = Stagnation(options.stagnation, options.patience)
        best_q, best_ee = q, math.inf  # q is never modified in place: keep a reference
        i = 0
        while i < max_iterations:
            i += 1
            if start is None:
                fk(model, data, q)
                M = ufp(model, data, fid)
            else:
                M = start[0]
            if world:
                e = np.concatenate(
                    (Mt.translation - M.translation, pin.log3(Mt.rotation @ M.rotation.T))
                )
            else:
                e = log6(M.actInv(Mt)).vector
            ee = float(e.dot(e))
            if ee < tol2:
                return i, 0.5 * ee, q, "converged"
            if ee < best_ee:
                best_ee = ee
                best_q = q
            elif ee != ee:
                return i, 0.5 * best_ee, best_q, "non-finite error (diverged)"
            if i == max_iterations:
                break
            if stalled(ee):
                return i, 0.5 * best_ee, best_q, f"stagnated at E = {0.5 * best_ee:.3g}"
            if deadline is not None and time.perf_counter() > deadline:
                return i, 0.5 * best_ee, best_q, "time budget exhausted"
            if start is None:
                J = cfj(model, data, q, fid, ref)  # C-ordered: J.T is Fortran-ordered
            else:
                J = start[1]
                start = None
            if chan:
                # JᵀJ + μI (upper triangle), Jᵀe, Cholesky solve in place (positional flags:
                # lower = 0, overwrite_a = overwrite_b = 1, cheaper than keywords)
                _, dq, info = dposv(dsyrk(1.0, J.T, half_lam * ee, eye), e.dot(J), 0, 1, 1)
                if info:
                    dq = None
            else:
                dq = self._step(method, J, e, ee, damping)
            if dq is None:
                return i, 0.5 * best_ee, best_q, "singular step matrix"
            q = q + dq
            if limits is not None:
                limits.clip(q)
        return i, 0.5 * best_ee, best_q, f"max_iterations = {max_iterations} reached"

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
