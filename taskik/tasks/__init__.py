"""Tasks: each one produces a Jacobian, an error and weights for the step."""

from .axis_alignment import AxisAlignmentTask
from .com import ComTask
from .damping import DampingTask
from .distance import DistanceTask
from .frame import FrameTask
from .joint_coupling import JointCouplingTask
from .kinetic_energy import KineticEnergyTask
from .look_at import LookAtTask
from .low_acceleration import LowAccelerationTask
from .manipulability import ManipulabilityTask
from .orientation import OrientationTask
from .position import PositionTask
from .posture import PostureTask
from .relative_com import RelativeComTask
from .relative_frame import RelativeFrameTask
from .task import Task

__all__ = [
    "AxisAlignmentTask",
    "ComTask",
    "DampingTask",
    "DistanceTask",
    "FrameTask",
    "JointCouplingTask",
    "KineticEnergyTask",
    "LookAtTask",
    "LowAccelerationTask",
    "ManipulabilityTask",
    "OrientationTask",
    "PositionTask",
    "PostureTask",
    "RelativeComTask",
    "RelativeFrameTask",
    "Task",
]
