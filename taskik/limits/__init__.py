"""Limits: bounds on the step velocity."""

from .configuration import ConfigurationLimit
from .limit import Limit
from .velocity import VelocityLimit

__all__ = ["ConfigurationLimit", "Limit", "VelocityLimit"]
