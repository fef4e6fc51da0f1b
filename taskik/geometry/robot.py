"""The robot's collision geometry: capsules fitted to the links of bundled robots, convex
hulls of mesh geometry, and the default self-collision pairs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import coal
import numpy as np
import pinocchio as pin

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_scalar
from .shapes import hull_of_bvh

__all__ = [
    "PairSelection",
    "check_geometry_model",
    "check_pairs",
    "convexify",
    "fit_capsules",
    "self_collision_pairs",
]

#: pinocchio's "no frame" index of a GeometryObject built without one.
_NO_FRAME = 2**64 - 1


def _share_a_stem(a: str, b: str) -> bool:
    """Whether two names begin alike (3 characters, or the whole of the shorter one)."""
    n = min(3, len(a), len(b))
    return n > 0 and a[:n] == b[:n]


def check_geometry_model(model: object, geometry_model: object, who: str) -> pin.Model:
    """``model`` once ``geometry_model`` is checked to be a ``pinocchio.GeometryModel`` of
    that model: every geometry on one of its joints, on a frame of that joint, with a
    convex or mesh coal shape and a finite placement. :class:`InvalidInput` naming the
    geometry otherwise (a geometry model of another robot, typically)."""
    if not isinstance(model, pin.Model):
        raise InvalidInput(f"{who} needs a pinocchio.Model, got {type(model).__name__}")
    if not isinstance(geometry_model, pin.GeometryModel):
        raise InvalidInput(
            f"{who} needs a pinocchio.GeometryModel, got {type(geometry_model).__name__}"
        )
    framed = named = 0  # geometries on a frame, and those named after it
    for k, obj in enumerate(geometry_model.geometryObjects):
        joint, frame = int(obj.parentJoint), int(obj.parentFrame)
        where = f"collision geometry {k} ({obj.name!r})"
        if not 0 <= joint < model.njoints:
            raise InvalidInput(
                f"{where} is attached to joint {joint}, but the model has {model.njoints} "
                "joints: is the geometry model of another robot?"
            )
        if frame != _NO_FRAME:
            if not 0 <= frame < model.nframes:
                raise InvalidInput(
                    f"{where} is attached to frame {frame}, but the model has "
                    f"{model.nframes} frames: is the geometry model of another robot?"
                )
            owner = int(model.frames[frame].parentJoint)
            if owner != joint:
                raise InvalidInput(
                    f"{where} is on joint {joint} ({model.names[joint]!r}) and frame "
                    f"{model.frames[frame].name!r}, which the model attaches to joint {owner} "
                    f"({model.names[owner]!r}): is the geometry model of another robot?"
                )
        framed += frame != _NO_FRAME
        named += frame != _NO_FRAME and _share_a_stem(obj.name, model.frames[frame].name)
        if not isinstance(obj.geometry, coal.CollisionGeometry):
            raise InvalidInput(f"{where} has no coal shape")
        if not np.all(np.isfinite(obj.placement.homogeneous)):
            raise InvalidInput(f"{where} has a placement with NaN or inf")
    if framed >= 2 and named == 0:
        # URDF geometry is named after its link, fit_capsules' after its joint: a geometry
        # model none of whose names begins like its frame's was built on another robot
        raise InvalidInput(
            f"none of the {framed} collision geometries on a frame has a name like its "
            "frame's (e.g. "
            f"{geometry_model.geometryObjects[0].name!r} on frame "
            f"{model.frames[int(geometry_model.geometryObjects[0].parentFrame)].name!r}): is "
            "the geometry model of another robot? (name each geometry after its frame)"
        )
    return model


def check_pairs(pairs: object, count: int) -> list[tuple[int, int]]:
    """``pairs`` of geometry indices in ``0..count-1``, sorted within each pair;
    :class:`InvalidInput` for anything but pairs of two different integers, or a pair listed
    twice (as ``(a, b)`` or ``(b, a)``)."""
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise InvalidInput(f"self-collision pairs must be a list of pairs, got {pairs!r}")
    kept: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for pair in pairs:
        if isinstance(pair, np.ndarray):
            pair = pair.tolist()
        if (
            isinstance(pair, str | bytes)
            or not isinstance(pair, Iterable)
            or len(items := list(pair)) != 2
            or not all(
                isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)
                for x in items
            )
        ):
            raise InvalidInput(f"a self-collision pair is two geometry indices, got {pair!r}")
        a, b = sorted((int(items[0]), int(items[1])))
        if not (0 <= a < count and 0 <= b < count and a != b):
            raise InvalidInput(f"self-collision pair ({a}, {b}) is not two geometries")
        if (a, b) in seen:
            raise InvalidInput(f"self-collision pair ({a}, {b}) is listed twice")
        seen.add((a, b))
        kept.append((a, b))
    return kept


def fit_capsules(model: pin.Model, radius: float) -> pin.GeometryModel:
    """One capsule of ``radius`` (m) per link, from each joint to the next along the chain.

    A link runs from its joint's origin to each child joint's origin and, at the end of a
    chain, to the farthest frame attached to the joint (``tool0``, ``ee`` …); links of
    zero length are skipped, and a joint with neither gets a sphere of ``radius``.
    """
    if not isinstance(model, pin.Model):
        raise InvalidInput(f"fit_capsules needs a pinocchio.Model, got {type(model).__name__}")
    r = check_scalar(radius, "capsule radius", 0.0, 1e6, low_open=True)
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
        # the joint's own frame: a geometry model checked against another robot's frames
        # (check_geometry_model) tells them apart
        frames = [
            k
            for k, f in enumerate(model.frames)
            if f.parentJoint == j and f.type == pin.FrameType.JOINT and f.name == name
        ]
        frame = frames[0] if frames else _NO_FRAME
        long_enough = [e for e in ends if np.linalg.norm(e) > 1e-9]
        if not ends:
            obj = pin.GeometryObject(f"{name}_sphere", j, frame, pin.SE3.Identity(), coal.Sphere(r))
            geometry.addGeometryObject(obj)
        for k, end in enumerate(long_enough):
            length = float(np.linalg.norm(end))
            z = end / length
            # a rotation taking z to the segment's direction
            R = pin.Quaternion.FromTwoVectors(np.array([0.0, 0.0, 1.0]), z).matrix()
            placement = pin.SE3(R, 0.5 * end)
            suffix = "" if len(long_enough) == 1 else f"_{k}"
            obj = pin.GeometryObject(
                f"{name}_link{suffix}", j, frame, placement, coal.Capsule(r, length)
            )
            geometry.addGeometryObject(obj)
    return geometry


def convexify(geometry_model: pin.GeometryModel) -> pin.GeometryModel:
    """A copy of ``geometry_model`` whose triangle meshes are replaced by their convex hulls.

    Distances between convex shapes come from GJK/EPA: signed (negative in penetration),
    with a normal, and hundreds of times faster than between meshes.
    """
    if not isinstance(geometry_model, pin.GeometryModel):
        raise InvalidInput(
            f"convexify needs a pinocchio.GeometryModel, got {type(geometry_model).__name__}"
        )
    copy = geometry_model.copy()
    for obj in copy.geometryObjects:
        if isinstance(obj.geometry, coal.BVHModelBase):
            obj.geometry = hull_of_bvh(obj.geometry, f"collision mesh {obj.name!r}")
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
    - the pairs closer than ``contact_distance`` (m, >= 0) at ``q_reference`` (touching
      there: a limit could never separate them without leaving the reference posture).

    Raises:
        InvalidInput: ``q_reference`` is None or not a configuration of ``model``,
            ``contact_distance`` is negative or not finite, the SRDF cannot be read.
    """
    check_geometry_model(model, geometry_model, "self_collision_pairs")
    if q_reference is None:  # Configuration(model, None) would mean the neutral posture
        raise InvalidInput(
            "q_reference must be the configuration vector the pairs are measured at, got None"
        )
    try:
        reference = Configuration(model, q_reference)
    except InvalidInput as exc:
        raise InvalidInput(f"q_reference: {exc}") from exc
    contact_distance = check_scalar(contact_distance, "contact_distance", 0.0, 1e6)
    if srdf is not None and not isinstance(srdf, str | Path):
        raise InvalidInput(f"srdf must be a path to an SRDF file, got {type(srdf).__name__}")
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
        pin.updateGeometryPlacements(model, reference.data, probe, probe_data)
        pin.computeDistances(probe, probe_data)
        distances = [probe_data.distanceResults[k].min_distance for k in range(len(kept))]
        if not np.all(np.isfinite(distances)):
            raise InvalidInput("q_reference gives non-finite distances between geometries")
        far = [pair for pair, d in zip(kept, distances, strict=True) if d > contact_distance]
        in_contact = len(kept) - len(far)
        kept = far
    return PairSelection(tuple(kept), len(candidates), adjacent, srdf_removed, in_contact)
