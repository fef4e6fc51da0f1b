"""Contacts and static balance: frames touching surfaces, the stances of humanoids, the
region of centre-of-mass positions the contacts can hold, and a static-equilibrium check."""

from .contact import Contact, friction_generators
from .equilibrium import (
    BalanceCheck,
    ContactSet,
    SupportRegion,
    check_static_balance,
    equilibrium_forces,
    support_region,
)
from .hull import convex_hull_2d
from .stance import both_feet, feet_and_hand, one_foot, sole

__all__ = [
    "BalanceCheck",
    "Contact",
    "ContactSet",
    "SupportRegion",
    "both_feet",
    "check_static_balance",
    "convex_hull_2d",
    "equilibrium_forces",
    "feet_and_hand",
    "friction_generators",
    "one_foot",
    "sole",
    "support_region",
]
