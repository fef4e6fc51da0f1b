"""What :func:`taskik.solve_posture` keeps per model between calls: a work configuration,
the joint limits, the seed memories and the single-pose loops of each frame."""

from __future__ import annotations

import pinocchio as pin

from ..configuration import Configuration
from .fast_pose import FastPose
from .joint_limits import JointLimits
from .starts import SeedMemory


class Context:
    """Per-model state of the posture solver (see :func:`context`)."""

    def __init__(self, model: pin.Model) -> None:
        self.model = model
        self.neutral = pin.neutral(model)
        self.conf = Configuration(model, self.neutral)  # a work configuration
        self.limits = JointLimits(model)
        self.memories: dict[int, SeedMemory] = {}
        self.fast_poses: dict[tuple[int, str], FastPose] = {}

    def memory(self, fid: int) -> SeedMemory:
        """The seed memory of frame ``fid``, built on first use."""
        memory = self.memories.get(fid)
        if memory is None:
            memory = self.memories[fid] = SeedMemory(self.model, self.limits, fid)
        return memory

    def fast_pose(self, fid: int, pose_error: str) -> FastPose:
        """The single-pose loop of frame ``fid`` with this pose error, made on first use."""
        runner = self.fast_poses.get((fid, pose_error))
        if runner is None:
            runner = self.fast_poses[fid, pose_error] = FastPose(self.model, fid, pose_error)
        return runner


CONTEXTS: dict[int, Context] = {}
MAX_CONTEXTS = 8


def context(model: pin.Model) -> Context:
    """The context of ``model`` (by identity), made on first use; at most ``MAX_CONTEXTS``
    are kept."""
    ctx = CONTEXTS.get(id(model))
    if ctx is None or ctx.model is not model:
        if len(CONTEXTS) >= MAX_CONTEXTS:
            CONTEXTS.clear()
        ctx = CONTEXTS[id(model)] = Context(model)
    return ctx
