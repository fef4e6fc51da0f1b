"""Collision geometry: obstacles, the robot's shapes, self-collision pairs, and the
distances and distance gradients that :class:`taskik.limits.CollisionLimit` turns into
inequality rows of the step."""

from .robot import PairSelection, convexify, fit_capsules, self_collision_pairs
from .scene import CollisionScene, PairDistances
from .shapes import Obstacle, box, capsule, convex_hull, cylinder, halfspace, mesh, sphere

__all__ = [
    "CollisionScene",
    "Obstacle",
    "PairDistances",
    "PairSelection",
    "box",
    "capsule",
    "convex_hull",
    "convexify",
    "cylinder",
    "fit_capsules",
    "halfspace",
    "mesh",
    "self_collision_pairs",
    "sphere",
]
