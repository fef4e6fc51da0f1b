"""Tasks: each one produces a Jacobian, an error and weights for the step."""

from .com import ComTask
from .damping import DampingTask
from .frame import FrameTask
from .orientation import OrientationTask
from .position import PositionTask
from .posture import PostureTask
from .relative_frame import RelativeFrameTask
from .task import Task

__all__ = [
    "ComTask",
    "DampingTask",
    "FrameTask",
    "OrientationTask",
    "PositionTask",
    "PostureTask",
    "RelativeFrameTask",
    "Task",
]
