"""The robot's collision geometry: capsules fitted to the links of bundled robots, convex
hulls of mesh geometry, and the default self-collision pairs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import coal
import numpy as np
import pinocchio as pin

from ..exceptions import InvalidInput, check_scalar
from .shapes import hull_of_bvh

__all__ = ["PairSelection", "convexify", "fit_capsules", "self_collision_pairs"]


def fit_capsules(model: pin.Model, radius: float) -> pin.GeometryModel:
    """One capsule of ``radius`` (m) per link, from each joint to the next along the chain.

    A link runs from its joint's origin to each child joint's origin and, at the end of a
    chain, to the farthest frame attached to the joint (``tool0``, ``ee`` …); links of
    zero length are skipped, and a joint with neither gets a sphere of ``radius``.
    """
    r = check_scalar(radius, "capsule radius", 0.0, np.inf, low_open=True)
    segments: dict[int, list[np.ndarray]] = {j: [] for j in range(1, model.njoints)}
    for j in range(2, model.njoints):
        segments[model.parents[j]].append(model.jointPlacements[j].translation)
    leaves = [j for j, ends in segments.items() if not ends]
    for j in leaves:  # to the farthest operational frame of the joint
        offsets = [f.placement.translation for f in model.frames if f.parentJoint == j]
        offsets = [o for o in offsets if np.linalg.norm(o) > 1e-9]
        if offsets:
            segments[j].append(max(offsets, key=lambda o: float(np.linalg.norm(o))))
    geometry = pin.GeometryModel()
    for j, ends in segments.items():
        name = model.names[j]
        long_enough = [e for e in ends if np.linalg.norm(e) > 1e-9]
        if not ends:
            obj = pin.GeometryObject(f"{name}_sphere", j, pin.SE3.Identity(), coal.Sphere(r))
            geometry.addGeometryObject(obj)
        for k, end in enumerate(long_enough):
            length = float(np.linalg.norm(end))
            z = end / length
            # a rotation taking z to the segment's direction
            R = pin.Quaternion.FromTwoVectors(np.array([0.0, 0.0, 1.0]), z).matrix()
            placement = pin.SE3(R, 0.5 * end)
            suffix = "" if len(long_enough) == 1 else f"_{k}"
            obj = pin.GeometryObject(f"{name}_link{suffix}", j, placement, coal.Capsule(r, length))
            geometry.addGeometryObject(obj)
    return geometry


def convexify(geometry_model: pin.GeometryModel) -> pin.GeometryModel:
    """A copy of ``geometry_model`` whose triangle meshes are replaced by their convex hulls.

    Distances between convex shapes come from GJK/EPA: signed (negative in penetration),
    with a normal, and hundreds of times faster than between meshes.
    """
    copy = geometry_model.copy()
    for obj in copy.geometryObjects:
        if isinstance(obj.geometry, coal.BVHModelBase):
            obj.geometry = hull_of_bvh(obj.geometry)
    return copy


@dataclass(frozen=True)
class PairSelection:
    """The self-collision pairs kept, and how many each rule removed."""

    pairs: tuple[tuple[int, int], ...]
    all_pairs: int
    adjacent: int
    srdf: int
    in_contact: int

    def __str__(self) -> str:
        return (
            f"{len(self.pairs)} self-collision pairs kept of {self.all_pairs}: "
            f"{self.adjacent} adjacent, {self.srdf} disabled by the SRDF, "
            f"{self.in_contact} in contact at the reference configuration removed"
        )


def _adjacent(model: pin.Model, ja: int, jb: int) -> bool:
    return ja == jb or model.parents[ja] == jb or model.parents[jb] == ja


def self_collision_pairs(
    model: pin.Model,
    geometry_model: pin.GeometryModel,
    q_reference: np.ndarray,
    srdf: str | Path | None = None,
    contact_distance: float = 0.0,
) -> PairSelection:
    """Default self-collision pairs: all pairs of geometries on different bodies, minus

    - adjacent links (same joint, or a joint and its parent),
    - the pairs the SRDF disables (``srdf``: path to the robot's SRDF file),
    - the pairs closer than ``contact_distance`` (m) at ``q_reference`` (touching there:
      a limit could never separate them without leaving the reference posture).
    """
    ngeoms = len(geometry_model.geometryObjects)
    parents = [obj.parentJoint for obj in geometry_model.geometryObjects]
    candidates = [(a, b) for a in range(ngeoms) for b in range(a + 1, ngeoms)]
    candidates = [(a, b) for a, b in candidates if parents[a] > 0 or parents[b] > 0]
    kept = [(a, b) for a, b in candidates if not _adjacent(model, parents[a], parents[b])]
    adjacent = len(candidates) - len(kept)
    srdf_removed = 0
    if srdf is not None:
        path = Path(srdf)
        if not path.is_file():
            raise InvalidInput(f"SRDF file not found: {path}")
        probe = geometry_model.copy()
        probe.removeAllCollisionPairs()
        for a, b in kept:
            probe.addCollisionPair(pin.CollisionPair(a, b))
        try:
            pin.removeCollisionPairs(model, probe, str(path), False)
        except (RuntimeError, ValueError) as exc:
            raise InvalidInput(f"could not read SRDF {path}: {exc}") from exc
        left = {(p.first, p.second) for p in probe.collisionPairs}
        srdf_removed = len(kept) - len(left)
        kept = [pair for pair in kept if pair in left]
    in_contact = 0
    if kept:
        probe = geometry_model.copy()
        probe.removeAllCollisionPairs()
        for a, b in kept:
            probe.addCollisionPair(pin.CollisionPair(a, b))
        probe_data = pin.GeometryData(probe)
        data = model.createData()
        pin.updateGeometryPlacements(model, data, probe, probe_data, q_reference)
        pin.computeDistances(probe, probe_data)
        distances = [probe_data.distanceResults[k].min_distance for k in range(len(kept))]
        far = [pair for pair, d in zip(kept, distances, strict=True) if d > contact_distance]
        in_contact = len(kept) - len(far)
        kept = far
    return PairSelection(tuple(kept), len(candidates), adjacent, srdf_removed, in_contact)
