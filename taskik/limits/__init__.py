"""Limits: bounds on the step velocity."""

import pinocchio as pin

from ..configuration import MODEL_ATTRIBUTES
from .acceleration import AccelerationLimit
from .balance import BalanceLimit
from .base_velocity import BaseVelocityLimit
from .collision import CollisionLimit
from .cone import ConeLimit
from .configuration import ConfigurationLimit
from .frozen import FrozenJoints
from .limit import Limit
from .position_barrier import PositionBarrier
from .velocity import VelocityLimit


def default_limits(model: pin.Model) -> list[Limit]:
    """The limits a step uses when given ``limits=None``: the model's joint position range
    (:class:`ConfigurationLimit`, gain 0.5) and its velocity limits (:class:`VelocityLimit`)."""
    return [ConfigurationLimit(model), VelocityLimit(model)]


# pink's model.configuration_limit and model.velocity_limit, given to a model by Configuration
MODEL_ATTRIBUTES["configuration_limit"] = ConfigurationLimit
MODEL_ATTRIBUTES["velocity_limit"] = VelocityLimit


__all__ = [
    "AccelerationLimit",
    "BalanceLimit",
    "BaseVelocityLimit",
    "CollisionLimit",
    "ConeLimit",
    "ConfigurationLimit",
    "FrozenJoints",
    "Limit",
    "PositionBarrier",
    "VelocityLimit",
    "default_limits",
]
