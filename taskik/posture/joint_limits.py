"""Joint-limit policies of :func:`taskik.solve_posture` (``joint_limits``): ``"clip"``
projects every iterate into the ranges, ``"reject"`` checks a converged q, ``"ignore"``
only wraps revolute angles into (−π, π]."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from ..configuration import finite_limit_mask

JOINT_LIMIT_POLICIES = ("clip", "reject", "ignore")

_TWO_PI = 2.0 * math.pi
_remainder = math.remainder


def _is_revolute(joint: object) -> bool:
    """Whether a one-coordinate joint model is a revolute one (an angle, 2π-periodic)."""
    name = joint.shortname()  # type: ignore[attr-defined]
    return "Revolute" in name or name in ("JointModelRX", "JointModelRY", "JointModelRZ")


def revolute_mask(model: pin.Model) -> tuple[np.ndarray, np.ndarray]:
    """(q indices, is-revolute flags) of the 1-DoF joints (nq = nv = 1), the hinges and
    slides inside a composite joint (an MJCF body with several joints) included, in the
    order of ``taskik.configuration.one_coordinate_joints`` (the ranges
    ``taskik.configuration.PositionRanges`` and ``ConfigurationLimit`` bound)."""
    idx: list[int] = []
    rev: list[bool] = []
    for joint in model.joints[1:]:
        if joint.nq == 1 and joint.nv == 1:
            parts = [joint]
        elif joint.shortname() == "JointModelComposite":
            parts = [p for p in joint.extract().joints if p.nq == 1 and p.nv == 1]
        else:
            continue
        for part in parts:
            idx.append(part.idx_q)
            rev.append(_is_revolute(part))
    return np.array(idx, dtype=int), np.array(rev, dtype=bool)


class JointLimits:
    """The joint-limit policies on the 1-DoF joints of a model (those inside composite
    joints too: ``revolute_mask``): wrap, clip, check."""

    def __init__(self, model: pin.Model) -> None:
        idx, rev = revolute_mask(model)
        lo = np.array(model.lowerPositionLimit[idx], dtype=float)
        hi = np.array(model.upperPositionLimit[idx], dtype=float)
        finite = finite_limit_mask(lo) & finite_limit_mask(hi) & (lo <= hi)
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
            wl = [_remainder(v, _TWO_PI) for v in x]
            if -math.pi in wl:
                wl = [math.pi if v == -math.pi else v for v in wl]
            if self.contains_pi:
                q[:] = wl
                return
            w = np.array(wl)
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

    def nearest_to(self, q: np.ndarray, ref: np.ndarray) -> None:
        """Move each revolute angle of ``q`` by a multiple of 2π to the representative
        nearest ``ref`` among those within its range (unbounded: the nearest); an angle
        with no other representative in its range stays. The kinematics do not change."""
        if not self.any_rev:
            return
        x, r = q[self.idx], ref[self.idx]
        near = x + _TWO_PI * np.round((r - x) / _TWO_PI)
        best = x.copy()
        for cand in (near, near - _TWO_PI, near + _TWO_PI):
            fits = (cand >= self.lo - 1e-12) & (cand <= self.hi + 1e-12)
            better = self.rev & fits & (np.abs(cand - r) < np.abs(best - r))
            best = np.where(better, cand, best)
        q[self.idx] = best

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

    def wrap_angles(self, q: np.ndarray) -> None:
        """Revolute angles into (−π, π], whatever their range (the ``"ignore"`` policy)."""
        if self.any_rev:
            x = q[self.idx]
            q[self.idx] = np.where(self.rev, np.remainder(x + math.pi, _TWO_PI) - math.pi, x)
