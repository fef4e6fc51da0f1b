"""What :func:`taskik.solve_posture` keeps per model between calls.

Two parts, so that several threads can solve at once on the same model:

- :class:`Shared`, one per model for the whole process: the neutral configuration, the
  joint limits and the seed memories (read only once built; a lock makes sure each memory
  is built once);
- :class:`Context`, one per model *and per thread*: the work configuration and the
  single-pose loops, whose Pinocchio ``Data``, target and plans every iteration writes.

A solve reads and writes only its thread's :class:`Context`, so two threads never share a
``Data`` or a target (before this split, two threads on one model overwrote each other's
kinematics and returned wrong answers that claimed success).
"""

from __future__ import annotations

import threading

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, limit_bytes
from .fast_pose import FastPose
from .joint_limits import JointLimits
from .starts import SeedMemory


class Shared:
    """Per-model state shared by every thread: read only, but for the seed memories, which
    are built on first use under a lock."""

    def __init__(self, model: pin.Model) -> None:
        self.model = model
        # the limits read, as the model had them: a model edited in place is read again
        self.limits_read = limit_bytes(model)
        self.neutral: np.ndarray = pin.neutral(model)
        self.neutral.flags.writeable = False
        self.limits = JointLimits(model)
        self.memories: dict[int, SeedMemory] = {}
        self._lock = threading.Lock()

    def describes(self, model: pin.Model) -> bool:
        """Whether this state was made for ``model`` as it is now: the same object, with
        the same joint limits (a solve after ``model.upperPositionLimit[i] = …`` must
        honour the new range, and the seed memories were drawn within the old ones)."""
        return self.model is model and limit_bytes(model) == self.limits_read

    def memory(self, fid: int) -> SeedMemory:
        """The seed memory of frame ``fid``, built on first use (once, whatever the
        threads)."""
        memory = self.memories.get(fid)
        if memory is None:
            with self._lock:
                memory = self.memories.get(fid)
                if memory is None:
                    memory = self.memories[fid] = SeedMemory(self.model, self.limits, fid)
        return memory


class Context:
    """Per-model, per-thread state of the posture solver (see :func:`context`)."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.model = shared.model
        self.neutral = shared.neutral
        self.limits = shared.limits
        self.memory = shared.memory
        self.conf = Configuration(self.model, shared.neutral)  # a work configuration
        self.fast_poses: dict[tuple[int, str], FastPose] = {}

    def fast_pose(self, fid: int, pose_error: str) -> FastPose:
        """The single-pose loop of frame ``fid`` with this pose error, made on first use."""
        runner = self.fast_poses.get((fid, pose_error))
        if runner is None:
            runner = self.fast_poses[fid, pose_error] = FastPose(self.model, fid, pose_error)
        return runner


class Registry:
    """The shared states of the models (by identity, checked against their limits' values),
    at most ``MAX_CONTEXTS``.
    :meth:`clear` drops them all, and every thread's contexts with them."""

    def __init__(self) -> None:
        self.shared: dict[int, Shared] = {}
        self.generation = 0  # bumped by clear(): a thread's older contexts are dropped
        self.lock = threading.Lock()

    def get(self, model: pin.Model) -> Shared:
        """The shared state of ``model``, made on first use."""
        entry = self.shared.get(id(model))
        if entry is None or not entry.describes(model):
            with self.lock:
                entry = self.shared.get(id(model))
                if entry is None or not entry.describes(model):
                    if len(self.shared) >= MAX_CONTEXTS:
                        self.shared.clear()
                    entry = self.shared[id(model)] = Shared(model)
        return entry

    def clear(self) -> None:
        """Forget every model's state (the seed memories are rebuilt on next use)."""
        with self.lock:
            self.shared.clear()
            self.generation += 1


MAX_CONTEXTS = 8
CONTEXTS = Registry()
_LOCAL = threading.local()  # .contexts: dict[int, Context], .generation: int (this thread)


def context(model: pin.Model) -> Context:
    """The calling thread's context of ``model`` (by identity), made on first use; at most
    ``MAX_CONTEXTS`` per thread are kept."""
    local = _LOCAL
    try:
        contexts: dict[int, Context] = local.contexts
        if local.generation != CONTEXTS.generation:
            contexts.clear()
            local.generation = CONTEXTS.generation
    except AttributeError:
        contexts = local.contexts = {}
        local.generation = CONTEXTS.generation
    ctx = contexts.get(id(model))
    if ctx is None or not ctx.shared.describes(model):
        if len(contexts) >= MAX_CONTEXTS:
            contexts.clear()
        ctx = contexts[id(model)] = Context(CONTEXTS.get(model))
    return ctx
