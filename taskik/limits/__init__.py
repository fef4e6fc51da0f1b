"""Limits: bounds on the step velocity."""

import pinocchio as pin

from .acceleration import AccelerationLimit
from .balance import BalanceLimit
from .base_velocity import BaseVelocityLimit
from .collision import CollisionLimit
from .cone import ConeLimit
from .configuration import ConfigurationLimit
from .frozen import FrozenJoints
from .limit import Limit
from .velocity import VelocityLimit


def default_limits(model: pin.Model) -> list[Limit]:
    """The limits a step uses when given ``limits=None``: the model's joint position range
    (:class:`ConfigurationLimit`, gain 0.5) and its velocity limits (:class:`VelocityLimit`)."""
    return [ConfigurationLimit(model), VelocityLimit(model)]


__all__ = [
    "AccelerationLimit",
    "BalanceLimit",
    "BaseVelocityLimit",
    "CollisionLimit",
    "ConeLimit",
    "ConfigurationLimit",
    "FrozenJoints",
    "Limit",
    "VelocityLimit",
    "default_limits",
]
