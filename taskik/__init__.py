"""taskik: multi-task differential inverse kinematics on Pinocchio robot models.

One step: tasks (``taskik.tasks``) give weighted rows ``W (J v − Kp e / dt)``, limits
(``taskik.limits``) give bounds on ``v``; :func:`solve_ik` solves the QP and returns the
joint velocity ``v``; :meth:`Configuration.integrate_inplace` applies it.
"""

from . import backends, hierarchy, limits, metrics, plots, posture, robots, steps, tasks
from .backends import default_solver
from .configuration import Configuration
from .exceptions import (
    InvalidConfiguration,
    InvalidInput,
    NoSolutionFound,
    NotWithinConfigurationLimits,
    TargetNotSet,
    TaskikError,
    UnknownName,
)
from .hierarchy import hierarchy_report
from .limits import ConfigurationLimit, Limit, VelocityLimit
from .posture import PostureResult, solve_posture
from .problem import Problem, build_ik
from .report import StepReport, report
from .solve import solve_ik
from .tasks import (
    ComTask,
    DampingTask,
    FrameTask,
    OrientationTask,
    PositionTask,
    PostureTask,
    RelativeFrameTask,
    Task,
)

__version__ = "0.1.0"

__all__ = [
    "ComTask",
    "Configuration",
    "ConfigurationLimit",
    "DampingTask",
    "FrameTask",
    "InvalidConfiguration",
    "InvalidInput",
    "Limit",
    "NoSolutionFound",
    "NotWithinConfigurationLimits",
    "OrientationTask",
    "PositionTask",
    "PostureResult",
    "PostureTask",
    "Problem",
    "RelativeFrameTask",
    "StepReport",
    "TargetNotSet",
    "Task",
    "TaskikError",
    "UnknownName",
    "VelocityLimit",
    "backends",
    "build_ik",
    "default_solver",
    "hierarchy",
    "hierarchy_report",
    "limits",
    "metrics",
    "plots",
    "posture",
    "report",
    "robots",
    "solve_ik",
    "solve_posture",
    "steps",
    "tasks",
]
