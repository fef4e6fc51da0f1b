"""taskik: multi-task differential inverse kinematics on Pinocchio robot models.

One step: tasks (``taskik.tasks``) give weighted rows ``W (J v − Kp e / dt)``, limits
(``taskik.limits``) give bounds on ``v``; :func:`solve_ik` solves the QP and returns the
joint velocity ``v``; :meth:`Configuration.integrate_inplace` applies it.
"""

from . import (
    backends,
    batch,
    contacts,
    geometry,
    hierarchy,
    limits,
    metrics,
    mjcf,
    plots,
    posture,
    relax,
    retarget,
    robots,
    steps,
    tasks,
)
from .backends import default_solver
from .backends.joint_limit_map import JointLimitMap
from .configuration import Configuration, custom_configuration_vector
from .contacts import Contact, check_static_balance
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
from .limits import (
    AccelerationLimit,
    BalanceLimit,
    BaseVelocityLimit,
    CollisionLimit,
    ConeLimit,
    ConfigurationLimit,
    FrozenJoints,
    Limit,
    VelocityLimit,
)
from .limits.collision import CollisionReport
from .mjcf import SE3, move_mocap_to_frame
from .posture import PostureResult, solve_posture
from .problem import Problem, build_ik
from .relax import last_relaxation
from .report import StepReport, report
from .solve import solve_ik
from .tasks import (
    AxisAlignmentTask,
    ComTask,
    DampingTask,
    DistanceTask,
    FrameTask,
    JointCouplingTask,
    KineticEnergyTask,
    LookAtTask,
    LowAccelerationTask,
    ManipulabilityTask,
    OrientationTask,
    PositionTask,
    PostureTask,
    RelativeComTask,
    RelativeFrameTask,
    Task,
)

__version__ = "0.1.0"

__all__ = [
    "AccelerationLimit",
    "AxisAlignmentTask",
    "BalanceLimit",
    "BaseVelocityLimit",
    "CollisionLimit",
    "CollisionReport",
    "ComTask",
    "ConeLimit",
    "Configuration",
    "ConfigurationLimit",
    "Contact",
    "DampingTask",
    "DistanceTask",
    "FrameTask",
    "FrozenJoints",
    "InvalidConfiguration",
    "InvalidInput",
    "JointCouplingTask",
    "JointLimitMap",
    "KineticEnergyTask",
    "Limit",
    "LookAtTask",
    "LowAccelerationTask",
    "ManipulabilityTask",
    "NoSolutionFound",
    "NotWithinConfigurationLimits",
    "OrientationTask",
    "PositionTask",
    "PostureResult",
    "PostureTask",
    "Problem",
    "RelativeComTask",
    "RelativeFrameTask",
    "SE3",
    "StepReport",
    "TargetNotSet",
    "Task",
    "TaskikError",
    "UnknownName",
    "VelocityLimit",
    "backends",
    "batch",
    "build_ik",
    "check_static_balance",
    "contacts",
    "custom_configuration_vector",
    "default_solver",
    "geometry",
    "hierarchy",
    "hierarchy_report",
    "last_relaxation",
    "limits",
    "metrics",
    "mjcf",
    "move_mocap_to_frame",
    "plots",
    "posture",
    "relax",
    "report",
    "retarget",
    "robots",
    "solve_ik",
    "solve_posture",
    "steps",
    "tasks",
]
