"""Step controls: the practical advice of the tutorials, as small functions.

- :func:`clamp_mag` — Buss's ``ClampMag(w, d)``: shorten a task error to at most ``d`` so an
  unreachable target does not make the arm shake ("Introduction to Inverse Kinematics ...",
  §2). Through ``solve_ik`` it is the ``max_task_error`` option of the unconstrained
  backends (per task).
- :func:`clamp_max_abs` — ``ClampMaxAbs(w, d)`` of Buss and Kim: scale the whole joint step so
  that ``max_j |Δθ_j| ≤ d``, which is Williams' eq. 31 (``θ' ← θ' Δθ_max / max|θ'|`` only
  when ``max|θ'| > Δθ_max``); direction unchanged. Through ``solve_ik``: ``max_joint_step``.
- :func:`clip_joint_step` — per-joint clipping to ``|Δθ_j| ≤ d_j`` (changes the direction).
- :func:`servo_velocity` — position-based servoing with gain, separate translational and
  rotational velocity caps and a stop threshold (Haviland and Corke, "Manipulator
  Differential Kinematics", eq. 43, with the separate caps the text recommends).
- :class:`PoseChangeConvergence` — Williams' Algorithm 1 stopping test on the change of the
  pose between iterations, which terminates on unreachable targets too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from .configuration import Configuration, check_configuration
from .exceptions import InvalidInput, check_finite_array, check_positive_scalar, real_scalar
from .tasks._frames import as_se3


def clamp_mag(w: npt.ArrayLike, d: float) -> np.ndarray:
    """``ClampMag(w, d)``: ``w`` if ``‖w‖ ≤ d``, else ``d w / ‖w‖`` (a new array)."""
    d = check_positive_scalar(d, "d")
    w = check_finite_array(w, "w")
    if w.ndim != 1:
        raise InvalidInput(f"w must be a vector, got shape {w.shape}")
    norm = math.hypot(*w.tolist())  # (no overflow for huge finite w)
    return w * (d / norm) if norm > d else w.copy()


def clamp_max_abs(w: npt.ArrayLike, d: float) -> np.ndarray:
    """``ClampMaxAbs(w, d)``: ``w`` scaled by ``d / max_j |w_j|`` when that is < 1 (a new
    array); Williams' eq. 31 with ``d = Δθ_max``."""
    d = check_positive_scalar(d, "d")
    w = check_finite_array(w, "w")
    peak = float(np.abs(w).max(initial=0.0))
    return w * (d / peak) if peak > d else w.copy()


def clip_joint_step(dq: npt.ArrayLike, d: npt.ArrayLike) -> np.ndarray:
    """Each joint clipped to ``|Δq_j| ≤ d_j`` (``d`` scalar or per joint, > 0)."""
    d = check_finite_array(d, "d")
    if not (d > 0).all():
        raise InvalidInput(f"d must be finite and > 0, got {d}")
    dq = check_finite_array(dq, "dq")
    if d.ndim and d.shape != dq.shape:
        raise InvalidInput(f"d must be a scalar or have the shape of dq {dq.shape}, got {d.shape}")
    return np.clip(dq, -d, d)


def servo_velocity(
    error: npt.ArrayLike,
    gain_translation: float,
    gain_rotation: float,
    max_linear: float = math.inf,
    max_angular: float = math.inf,
    stop_translation: float = 0.0,
    stop_rotation: float = 0.0,
) -> tuple[np.ndarray, bool]:
    """End-effector velocity of position-based servoing (Haviland–Corke eq. 43, split).

    With the pose error ``e = [e_t; e_r]`` (m, rad), ``ν_t = k_t e_t`` capped at ``‖ν_t‖ ≤
    ν_max,t`` and ``ν_r = k_r e_r`` capped at ``‖ν_r‖ ≤ ν_max,r`` (each part keeps its
    direction); ``ν = 0`` once ``‖e_t‖ ≤ e_m,t`` and ``‖e_r‖ ≤ e_m,r`` (the stop threshold is on
    the error, as the tutorial's text says). Splitting avoids the mixed units of one norm over
    ``[m; rad]`` that the tutorial warns about.

    Args:
        error: pose error ``[e_t; e_r]`` (6), e.g. ``FrameTask.compute_error``.
        gain_translation, gain_rotation: ``k_t``, ``k_r`` (1/s), > 0.
        max_linear: ``ν_max,t`` (m/s). max_angular: ``ν_max,r`` (rad/s).
        stop_translation: ``e_m,t`` (m). stop_rotation: ``e_m,r`` (rad).

    Returns:
        ``(ν, stopped)``: the twist ``[v; ω]`` (6) and whether the stop threshold is reached.
    """
    e = check_finite_array(error, "error", (6,))
    kt = check_positive_scalar(gain_translation, "gain_translation")
    kr = check_positive_scalar(gain_rotation, "gain_rotation")
    caps = []
    for name, x in (
        ("max_linear", max_linear),
        ("max_angular", max_angular),
        ("stop_translation", stop_translation),
        ("stop_rotation", stop_rotation),
    ):
        value = real_scalar(x, name)
        if not value >= 0.0:  # (inf is allowed: no cap)
            raise InvalidInput(f"{name} must be >= 0, got {x!r}")
        caps.append(value)
    max_linear, max_angular, stop_translation, stop_rotation = caps
    e_t, e_r = e[:3], e[3:]
    if math.hypot(*e_t) <= stop_translation and math.hypot(*e_r) <= stop_rotation:
        return np.zeros(6), True
    nu = np.concatenate([kt * e_t, kr * e_r])
    if not np.isfinite(nu).all():
        raise InvalidInput("the gains times the error overflow: gains or error out of range")
    for part, cap in ((nu[:3], max_linear), (nu[3:], max_angular)):
        norm = math.hypot(*part.tolist())
        if norm > cap:
            part *= cap / norm
    return nu, False


class PoseChangeConvergence:
    """Williams' Algorithm 1 stopping test: stop when the poses stop changing.

    ``δ = ‖T_previous − T_current‖`` (Frobenius norm of the 4 × 4 homogeneous matrices, as in
    the algorithm) for every watched frame; :meth:`update` returns True once every ``δ`` is
    ≤ ``epsilon``. Unlike a test on the distance to the target, this terminates both when the
    target is reached and when it cannot be reached (the arm stops as close as it gets).

    Args:
        frames: names of the frames to watch.
        epsilon: tolerance on the pose change per iteration, > 0.
    """

    def __init__(self, frames: str | Sequence[str], epsilon: float = 1e-6) -> None:
        if isinstance(frames, str):
            frames = [frames]
        if not isinstance(frames, Sequence) or not all(isinstance(f, str) for f in frames):
            raise InvalidInput(f"frames must be a frame name or a list of names, got {frames!r}")
        self.frames = list(frames)
        if not self.frames:
            raise InvalidInput("frames must name at least one frame")
        self.epsilon = check_positive_scalar(epsilon, "epsilon")
        self._previous: list[np.ndarray] | None = None
        #: Largest pose change at the last update (inf before the second update).
        self.delta = math.inf

    def reset(self) -> None:
        self._previous = None
        self.delta = math.inf

    def update(self, configuration: Configuration) -> bool:
        """Record the current poses; True when none moved by more than ``epsilon``."""
        configuration = check_configuration(configuration, "PoseChangeConvergence.update")
        poses = [configuration.get_transform_frame_to_world(f).homogeneous for f in self.frames]
        previous, self._previous = self._previous, poses
        if previous is None:
            return False
        self.delta = max(float(np.linalg.norm(a - b)) for a, b in zip(previous, poses, strict=True))
        return self.delta <= self.epsilon


def pose_change(T_previous: pin.SE3 | npt.ArrayLike, T_current: pin.SE3 | npt.ArrayLike) -> float:
    """``‖T_previous − T_current‖`` (Frobenius norm of the homogeneous matrices; each a
    ``pin.SE3`` or a 4 × 4 homogeneous matrix, checked like a task target)."""
    a = as_se3(T_previous, "T_previous").homogeneous
    b = as_se3(T_current, "T_current").homogeneous
    change = math.hypot(*(a - b).ravel().tolist())
    if not math.isfinite(change):
        raise InvalidInput("the pose change overflows: the poses are out of range")
    return change
