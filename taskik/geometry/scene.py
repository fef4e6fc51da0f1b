"""Distances between the robot's collision geometry and itself or obstacles, near pairs only.

:class:`CollisionScene` owns a private ``pin.GeometryModel``: the robot's geometry followed
by the obstacles (attached to the world, joint 0), with the monitored pairs as its
collision pairs. Each evaluation

1. lowers each pair's running lower bound on its distance by how much closer its shapes
   may have come since the last evaluation: given the configuration, in joint space
   (``P @ |q ⊖ q_before|``, the joints' levers of ``geometry/levers.py``: no shape is
   placed), else from the shapes' placements; the pairs whose bound passes their
   threshold cost nothing more;
2. places the geometry from the joint placements the configuration already computed
   (no kinematics is recomputed), only when a screen or GJK needs it;
3. keeps the pairs whose bounding spheres and capsules are closer than the detection
   distance (vectorised over the pairs the bounds do not skip);
4. runs coal's GJK/EPA (``pin.computeDistance``) on those pairs only: signed distance ``d``,
   closest points ``p_a``, ``p_b`` and the unit normal ``n`` from ``a`` to ``b``;
5. differentiates ``d`` from Pinocchio's joint Jacobians (``data.J``, world frame): a point
   ``p`` fixed on joint ``j``'s body moves at ``ṗ = J_v v + (J_ω v) × p`` over the columns
   that support ``j``, so ``ḋ = n·(ṗ_b − ṗ_a) = (g_b − g_a) v`` with
   ``g = nᵀ J_v + (p × n)ᵀ J_ω``.

The scene also keeps what one step tells the next, by value: the configuration and the
placements (lower bounds on the distances, the lookahead) and the obstacles' poses (their
motion). The module is longer than 500 lines because these share the scene's state; the
shape bounds they use are in ``geometry/bounds.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import coal
import numpy as np
import pinocchio as pin

from ..exceptions import InvalidInput, UnknownName, check_finite_array, check_scalar
from .bounds import (
    ApproachBound,
    _bounding_capsule,
    _bounding_sphere,
    _cross,
    _dots,
    _relative_approach,
    _segment_distances,
    moves_of,
    shape_moves,
)
from .levers import JointLevers
from .robot import check_geometry_model, check_pairs
from .shapes import Obstacle, _pose, check_shape, shape_values
from .views import joint_address, joint_view, result_address, result_views, rotations

__all__ = ["CollisionScene", "PairDistances"]


@dataclass
class PairDistances:
    """The pairs within the detection distance at one configuration (k of them).

    ``pairs`` indexes ``CollisionScene.pairs``; ``distance`` (k,) in m, signed;
    ``point_a``, ``point_b`` (k × 3) the closest points in the world frame; ``normal`` (k × 3)
    unit vectors from a to b; ``gradient`` (k × nv): ``ḋ = gradient @ v``.

    ``turn`` (k × 2 × nv): ``t_i · (ω_a − ω_b) = turn[:, i] @ v`` for two unit tangents
    ``t_1, t_2`` orthogonal to ``n``: how fast the two bodies tilt against each other;
    ``lever`` (k,) in m: the radius of the smaller body's bounding sphere, 0 when either
    body is a sphere (its contact is a point: tilting moves it away).
    """

    pairs: np.ndarray
    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray
    gradient: np.ndarray
    turn: np.ndarray
    lever: np.ndarray


#: ``SE3.homogeneous`` as a function (mapped over a list of placements).
_HOMOGENEOUS = pin.SE3.homogeneous.fget

#: A coal result's distance, closest points and normal, as functions (mapped over results).
_MIN_DISTANCE = coal.DistanceResult.min_distance.fget
_POINT_A = coal.DistanceResult.getNearestPoint1
_POINT_B = coal.DistanceResult.getNearestPoint2
_NORMAL = coal.DistanceResult.normal.fget


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` of two arrays (same shape, equal values) without its wrapper."""
    return a.shape == b.shape and bool((a == b).all())


def _nonzero(mask: np.ndarray) -> np.ndarray:
    """The indices where a 1-d mask is True (np.flatnonzero without its Python wrapper)."""
    return mask.nonzero()[0]


#: The order of the fields of a result view (normal, p_a, p_b) as found (p_a, p_b, normal),
#: a column of indices broadcast against the pairs'.
_FOUND = np.array([[1], [2], [0]])

#: The helper axes of the tangents (x, y).
_AXES = np.eye(3)[:2]

#: After an evaluation that needed its shapes' placements (a screen, a broadphase), this many
#: evaluations place every shape at once and lower the bounds by the shapes' moves (tighter
#: than the joints' levers) before the joint-space bound is tried again.
_PLACED_FOR = 5

#: Below a GJK distance, what a lower bound keeps for the tolerance of GJK (m).
_GJK_SLACK = 1e-5

#: near_rows screens the pairs GJK did not measure at its last call by their bounding
#: spheres and capsules only when there are more than this many (fewer cost less in GJK).
_SCREEN_MIN = 4


def _shape_key(geometry: object) -> tuple[object, ...]:
    """What a scene compares to see a shape changed: its kind, identity and sizes."""
    return (type(geometry).__name__, id(geometry), *shape_values(geometry))


class CollisionScene:
    """The robot's collision geometry, obstacles and the pairs watched between them.

    Args:
        model: the robot's Pinocchio model.
        geometry_model: its collision geometry (convex shapes; see
            :func:`taskik.geometry.convexify`).
        self_pairs: pairs of geometry indices of ``geometry_model`` to monitor.
        obstacles: obstacles; every robot geometry is monitored against each of them.
    """

    def __init__(
        self,
        model: pin.Model,
        geometry_model: pin.GeometryModel,
        self_pairs: Sequence[tuple[int, int]] = (),
        obstacles: Sequence[Obstacle] = (),
    ) -> None:
        self.model = check_geometry_model(model, geometry_model, "CollisionScene")
        self.robot_geometry = geometry_model
        self.n_robot = len(geometry_model.geometryObjects)
        self.self_pairs = check_pairs(self_pairs, self.n_robot)
        self.obstacles: list[Obstacle] = []
        parents = np.array([o.parentJoint for o in geometry_model.geometryObjects], dtype=int)
        self._moving = _nonzero(parents > 0)
        # supports[j] = the velocity columns that move joint j's body
        self._support = np.zeros((model.njoints, model.nv), dtype=bool)
        for j in range(1, model.njoints):
            for k in model.supports[j][1:]:
                joint = model.joints[k]
                self._support[j, joint.idx_v : joint.idx_v + joint.nv] = True
        self._support_float = self._support.astype(float)
        if isinstance(obstacles, Obstacle | str | bytes) or not isinstance(obstacles, Iterable):
            raise InvalidInput(
                f"obstacles must be a list of taskik.geometry.Obstacle, got "
                f"{type(obstacles).__name__} (wrap a single obstacle in a list)"
            )
        for obstacle in obstacles:
            self._check_new(obstacle)
            self.obstacles.append(obstacle)
        # What a step is, for the obstacles' motion and the lookahead: a call with a new
        # ``step`` key (the caller's q, as bytes) or new obstacle poses; a call that repeats
        # both repeats the last step's motion. Kept by value, by obstacle name across
        # obstacles added or removed (see obstacle_steps and near_pairs).
        # (key, {obstacle: pose}, {obstacle: move over the step}, {obstacle: move over the
        #  step before})
        self._step: tuple[object, dict[str, np.ndarray], dict[str, np.ndarray], dict] | None = None
        # at the last lookahead step: (key, generation, q or None, robot placements
        # n_robot × 4 × 4 or None, {obstacle: placement}, per pair how far it came closer
        # over the step, whether that used the placements)
        self._look: tuple | None = None
        # the configuration of the last evaluation (when the caller gave it), from which the
        # next one lowers the pairs' bounds in joint space (geometry/levers.py)
        self._q: np.ndarray | None = None
        # how many more evaluations place every shape at once (set when one needed its
        # shapes' placements), and whether the current one lowered its bounds in joint space
        # (see _advance)
        self._needed = 0
        self._joint_mode = False
        # the lookahead's record of the step before the last one (see _moves)
        self._look_before: tuple | None = None
        # (the bounds before the joint-space drop, the last evaluation's placements) while
        # the current evaluation may tighten them (_tighten)
        self._tight: tuple[np.ndarray, np.ndarray] | None = None
        # the pinocchio.Data of the current evaluation: what the placements are read from,
        # when (and only if) a part of the evaluation needs them
        self._data: pin.Data | None = None
        # the joint placements of a pinocchio.Data read in place (geometry/views.py): (that
        # data, the address it was made at, the view) or None; and the homogeneous
        # placements written from it (njoints × 4 × 4, the last rows 0 0 0 1)
        self._joints: tuple[pin.Data, int, np.ndarray | None] | None = None
        self._homogeneous = np.zeros((model.njoints, 4, 4))
        self._homogeneous[:, 3, 3] = 1.0
        self._build()

    # ------------------------------------------------------------------ views
    def __getstate__(self) -> dict[str, object]:
        # (a copy's views would be arrays of their own, no longer the memory they read:
        # made again from the copy's geometry data, and from the next evaluation's data)
        state = dict(self.__dict__)
        state["_joints"] = None
        state["_results"] = None
        state["_results_checked"] = False
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._bind_results()

    def _bind_results(self) -> None:
        """Make the view of coal's results of the scene's geometry data (or None)."""
        views = result_views(self.geometry_data) if len(self.pairs) else None
        self._results: tuple[int, np.ndarray, np.ndarray] | None = None
        self._results_checked = False
        if views is not None:
            self._results = (result_address(self.geometry_data), *views)

    def _result_fields(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The results' view (fields, distances) when it may be read, else None: made at
        the same address as the results lie now (checked once per evaluation, with the
        placing of coal's shapes)."""
        views = self._results
        return None if views is None else views[1:]

    def _joint_placements(self, data: pin.Data) -> np.ndarray:
        """The joints' placements of ``data`` (njoints × 4 × 4, homogeneous), read through
        one view of ``data.oMi`` when it can be made (geometry/views.py), else through
        ``SE3.homogeneous``: the same values."""
        joints = self._joints
        if joints is None or joints[0] is not data or joint_address(data) != joints[1]:
            joints = self._joints = (data, joint_address(data), joint_view(data))
        view = joints[2]
        if view is None:
            return np.concatenate(list(map(_HOMOGENEOUS, data.oMi.tolist()))).reshape(-1, 4, 4)
        H = self._homogeneous
        H[:, :3, :3] = rotations(view)
        H[:, :3, 3] = view[:, 9:]
        return H

    # ------------------------------------------------------------------ obstacles
    def _check_new(self, obstacle: Obstacle) -> None:
        if not isinstance(obstacle, Obstacle):
            raise InvalidInput(
                f"obstacles must be taskik.geometry.Obstacle, got {type(obstacle).__name__}"
            )
        if any(o.name == obstacle.name for o in self.obstacles):
            raise InvalidInput(f"an obstacle named {obstacle.name!r} is already in the scene")
        # a pose or shape changed in place since it was built is checked here too
        _pose(obstacle.pose, f"pose of obstacle {obstacle.name!r}")
        check_shape(obstacle.geometry, f"the shape of obstacle {obstacle.name!r}")

    def add_obstacle(self, obstacle: Obstacle) -> None:
        """Watch ``obstacle`` too (against every robot geometry)."""
        self._check_new(obstacle)
        self.obstacles.append(obstacle)
        self._build()

    def remove_obstacle(self, name: str) -> Obstacle:
        """Stop watching the obstacle called ``name``; returns it."""
        if not isinstance(name, str):
            raise InvalidInput(f"an obstacle name must be a str, got {type(name).__name__}")
        for k, obstacle in enumerate(self.obstacles):
            if obstacle.name == name:
                del self.obstacles[k]
                self._build()
                return obstacle
        raise UnknownName("obstacle", name, [o.name for o in self.obstacles])

    # ------------------------------------------------------------------ structure
    def _build(self) -> None:
        gm = self.robot_geometry.copy()
        gm.removeAllCollisionPairs()
        first_obstacle = len(gm.geometryObjects)
        for obstacle in self.obstacles:
            pose = _pose(obstacle.pose, f"pose of obstacle {obstacle.name!r}")
            shape = check_shape(obstacle.geometry, f"the shape of obstacle {obstacle.name!r}")
            gm.addGeometryObject(pin.GeometryObject(obstacle.name, 0, pose, shape))
        pairs = list(self.self_pairs)
        for k in range(len(self.obstacles)):
            pairs += [(int(a), first_obstacle + k) for a in self._moving]
        for a, b in pairs:
            gm.addCollisionPair(pin.CollisionPair(a, b))
        self.geometry_model = gm
        #: Counts the changes of structure (obstacles added or removed): pair indices of
        #: different generations do not correspond.
        self.generation = getattr(self, "generation", -1) + 1
        self.geometry_data = pin.GeometryData(gm)
        for request in self.geometry_data.distanceRequests:
            # GJK to 1e-7 m (coal's default: 1e-6): a pair's distance from two starts (warm
            # or cold) agrees to well under 1e-6 m
            request.gjk_tolerance = min(request.gjk_tolerance, 1e-7)
        self.pairs = np.array(pairs, dtype=int).reshape(-1, 2)
        self._first_obstacle = first_obstacle
        # coal's results of every pair read in place (geometry/views.py): (the address they
        # were made at, the fields, the distances), or None when not laid out so; checked
        # against the accessors at the first GJK (``_results_checked``)
        self._bind_results()
        # what the scene holds of each obstacle, by value: its pose and its shape
        self._placed = [o.pose.homogeneous.copy() for o in self.obstacles]
        self._shapes = [_shape_key(o.geometry) for o in self.obstacles]
        objects = gm.geometryObjects
        self.names = [f"{objects[int(a)].name} / {objects[int(b)].name}" for a, b in self.pairs]
        self._joint_of = np.array([o.parentJoint for o in objects], dtype=int)
        # each geometry's placement on its joint (an obstacle's pose: joint 0, the world)
        self._local = np.array([o.placement.homogeneous for o in objects]).reshape(-1, 4, 4)
        self._halfspace = np.array([type(o.geometry).__name__ == "Halfspace" for o in objects])
        self._sphere = np.array([type(o.geometry).__name__ == "Sphere" for o in objects])
        # (a half-space's sphere is a point: it is always near, whatever its radius says)
        spheres = [
            (np.zeros(3), 0.0) if flat else _bounding_sphere(o)
            for o, flat in zip(objects, self._halfspace, strict=True)
        ]
        self._centres_local = np.array([c for c, _ in spheres]).reshape(-1, 3)
        self._radii = np.array([r for _, r in spheres])
        capsules = np.array(
            [
                _bounding_capsule(o.geometry, c, r)
                for o, (c, r) in zip(objects, spheres, strict=True)
            ]
        ).reshape(-1, 3, 3)
        self._ends_local = capsules[:, :2]  # ngeoms × 2 × 3
        # the centre and the two ends, homogeneous, as the columns of one 4 × 3 per shape
        self._points_local = np.ones((len(objects), 4, 3))
        self._points_local[:, :3, 0] = self._centres_local
        self._points_local[:, :3, 1:] = self._ends_local.transpose(0, 2, 1)
        self._capsule_radii = capsules[:, 2, 0]
        # the lever of a pair is the smaller body's radius; a half-space is never the smaller
        lever_radii = np.where(self._halfspace, np.inf, self._radii)
        # the pairs' two shapes as contiguous index arrays (a strided column of ``pairs``
        # takes numpy's slow gather)
        self._first = np.ascontiguousarray(self.pairs[:, 0], dtype=np.intp)
        self._second = np.ascontiguousarray(self.pairs[:, 1], dtype=np.intp)
        first, second = self._first, self._second
        # per pair, what its derivatives need (gathered once here, not at every step): the
        # lever (0 with a sphere: a point contact), the masks of the columns that move each
        # shape, and their difference (the columns that turn one shape against the other)
        self._pair_lever = np.minimum(lever_radii[first], lever_radii[second])
        self._pair_lever[self._sphere[first] | self._sphere[second]] = 0.0
        self._pair_support = self._support_float[self._joint_of[self.pairs]]  # k × 2 × nv
        self._pair_turns = self._pair_support[:, 0] - self._pair_support[:, 1]
        # near: |c_a − c_b| < r_a + r_b + d_i
        self._reach = self._radii[first] + self._radii[second]
        self._capsule_reach = self._capsule_radii[first] + self._capsule_radii[second]
        self._flat = self._halfspace[first] | self._halfspace[second]
        # a lower bound on each pair's distance (m), lowered by every motion of its shapes
        # since GJK last computed it: the placements it was lowered to are the last ones
        self._lower = np.full(len(self.pairs), -np.inf)
        # the shapes' placements (ngeoms × 4 × 4) and world points (ngeoms × 3 × 3, columns
        # the centre and the capsule's ends) of the current evaluation: None until a part of
        # it needs them (_world_points); coal's placements likewise (_coal_placed)
        self._placements: np.ndarray | None = None
        self._points: np.ndarray | None = None
        self._coal_placed = False
        # (placements before, per shape how far it moved from them) at this evaluation
        self._shape_moved: tuple[np.ndarray, np.ndarray] | None = None
        # (q it was measured from, per pair) the joints' part of the last bound lowering
        self._robot_drop: tuple[np.ndarray, np.ndarray] | None = None
        # the joint-space bound (geometry/levers.py): per pair, P @ |Δq| bounds how much
        # closer a motion Δq brings its two shapes; its reach per shape is |placement · c| + r
        local_centres = np.einsum("kij,kj->ki", self._local[:, :3, :3], self._centres_local)
        local_centres += self._local[:, :3, 3]
        shape_reach = np.sqrt(_dots(local_centres, local_centres)) + self._radii
        shape_reach[self._halfspace & (self._joint_of > 0)] = np.inf
        self._levers = JointLevers(
            self.model, self._joint_of, shape_reach, self._support[self._joint_of], self.pairs
        )
        self._unbounded = _nonzero(self._levers.unbounded)
        # per pair, its obstacle (n_obstacles for a robot pair: a 0 appended to the moves)
        self._pair_obstacle = np.where(
            second >= first_obstacle, second - first_obstacle, len(self.obstacles)
        )
        # (travel, P @ travel): the approach bound of the velocity box, kept by value
        self._travel_bound: tuple[int, np.ndarray, np.ndarray] | None = None
        self._approach = ApproachBound(
            self._support, self._joint_of, self.pairs, np.asarray(self.model.parents)
        )
        # (lower bound per pair, +inf for those with rows; threshold per pair) of the last
        # near_rows
        self._screen: tuple[np.ndarray, np.ndarray] | None = None
        # the pairs measured by GJK at the last near_rows (near: no screen before GJK)
        self._measured = np.zeros(len(self.pairs), dtype=bool)
        self._flat_pairs = _nonzero(self._flat)

    def _sync_obstacles(self) -> np.ndarray | None:
        """The obstacles' poses and shapes, read by value (however they were changed).
        Returns, per obstacle and a 0 appended, how far any of its points moved since the
        last call (``|Δc| + r ‖R − R_before‖``; None when none moved, or when a new shape
        rebuilt the scene, which resets every bound)."""
        moved = None
        for k, obstacle in enumerate(self.obstacles):
            if _shape_key(obstacle.geometry) != self._shapes[k]:
                self._build()  # a new or resized shape: new bounding spheres
                return None
            M = obstacle.pose.homogeneous
            if not np.array_equal(M, self._placed[k]):
                pose = _pose(obstacle.pose, f"pose of obstacle {obstacle.name!r}")
                i = self._first_obstacle + k
                self.geometry_model.geometryObjects[i].placement = pose
                placed = pose.homogeneous
                if moved is None:
                    moved = np.zeros(len(self.obstacles) + 1)
                moved[k] = shape_moves(
                    placed[None], self._local[i, None], self._centres_local[i, None], self._radii[i]
                )[0]
                self._local[i] = placed
                self._placed[k] = M.copy()
        return moved

    def obstacle_steps(
        self, step: object = None, commit: bool = True, before: bool = False
    ) -> np.ndarray:
        """Per obstacle (in ``self.obstacles`` order), its displacement over the last step as
        a 4 × 4 rigid transform ``D`` (``pose_now = D · pose_before``; the identity for an
        obstacle seen for the first time), from the pose values the scene holds (call
        :meth:`distances` or :meth:`near_pairs` first: they read the poses). ``before``: the
        displacement over the step before that instead (NaN where it is not known).

        A step is a call with a new ``step`` key (``None``: always new) or with obstacle poses
        different from the last call's; a call with the same key and the same poses repeats
        the last step's displacements, so that evaluating one step twice (a second solve, a
        report) sees the same motion. ``commit=False`` reads without starting a step."""
        state = self._step
        if not self.obstacles:  # (what the general path gives without obstacles, at once)
            if commit and (state is None or step is None or state[0] != step):
                self._step = (step, {}, {}, {} if state is None else state[2])
            return np.zeros((0, 4, 4))
        poses = {o.name: self._placed[k] for k, o in enumerate(self.obstacles)}
        eye = np.eye(4)
        unknown = np.full((4, 4), np.nan)
        if (
            state is not None
            and step is not None
            and state[0] == step
            and all(n in state[1] and np.array_equal(M, state[1][n]) for n, M in poses.items())
        ):
            moves, earlier = state[2], state[3]
        else:
            last = {} if state is None else state[1]
            moves = {}
            for n, M in poses.items():
                if n in last:
                    inverse = np.eye(4)
                    R0, p0 = last[n][:3, :3], last[n][:3, 3]
                    inverse[:3, :3] = R0.T
                    inverse[:3, 3] = -R0.T @ p0
                    moves[n] = M @ inverse
            earlier = {} if state is None else state[2]
            if commit:
                self._step = (step, {n: M.copy() for n, M in poses.items()}, moves, earlier)
        if before:
            return np.array([earlier.get(n, unknown) for n in poses]).reshape(-1, 4, 4)
        return np.array([moves.get(n, eye) for n in poses]).reshape(-1, 4, 4)

    def obstacle_motion(
        self, near: PairDistances, step: object = None, commit: bool = True, predict: bool = False
    ) -> np.ndarray:
        """``n·δ_b`` per pair of ``near`` (m): how much the obstacle's closest point moved
        along the normal over the last step (0 for robot–robot pairs). ``step``, ``commit``:
        see :meth:`obstacle_steps`.

        ``predict``: the distance change the obstacle may cause in the next step, the most
        pessimistic of a constant velocity (``m``, the last step's), a constant
        acceleration (``2 m − m_before``, ``m_before`` the step before's move of the same
        point) and a stop: ``min(m, 2 m − m_before, 0)``. An obstacle speeding up toward the
        robot is not trusted to keep its last step's pace, which left up to ``a dt²`` per
        step (0.2 mm at 2 m/s², 10 ms) uncounted; one moving away gives no room in advance
        (it may stop, or its pose may be read a step late: the robot that followed it into
        the room it was about to leave ended up to 2.4 mm inside ``d_s``)."""
        if not isinstance(near, PairDistances):
            raise InvalidInput(
                f"obstacle_motion needs the PairDistances of distances(), got {type(near).__name__}"
            )
        moves = self.obstacle_steps(step, commit)
        motion = np.zeros(len(near.pairs))
        if not len(near.pairs) or not len(moves):
            return motion
        k = self.pairs[near.pairs, 1] - self._first_obstacle
        on = _nonzero(k >= 0)
        if not len(on):
            return motion
        p, n = near.point_b[on], near.normal[on]

        def along(D: np.ndarray) -> np.ndarray:
            delta = np.einsum("kij,kj->ki", D[:, :3, :3], p) + D[:, :3, 3] - p
            return _dots(n, delta)

        now = along(moves[k[on]])
        motion[on] = now
        if predict:
            earlier = along(self.obstacle_steps(step, commit=False, before=True)[k[on]])
            guess = np.where(np.isfinite(earlier), np.minimum(now, 2 * now - earlier), now)
            motion[on] = np.minimum(guess, 0.0)
        return motion

    # ------------------------------------------------------------------ evaluation
    def _place(self, data: pin.Data) -> None:
        """An evaluation at ``data`` without its configuration: the placements of every
        shape computed at once, the pairs' bounds lowered by how far their shapes moved
        since the last evaluation's placements (reset when those were not computed)."""
        self._advance(data, None)

    def _advance(self, data: pin.Data, q: np.ndarray | None) -> None:
        """Start an evaluation at ``data`` (its joint placements and Jacobians computed at
        the configuration ``q``, when given): obstacles at their poses, and the running
        lower bound of every pair lowered by how much closer its shapes may have come
        since the last evaluation.

        With ``q`` and the last evaluation's ``q``: by ``P @ |pin.difference(q_before, q)|``
        (geometry/levers.py) plus each obstacle's move, with no placement computed (they
        are computed later, and only if a part of the evaluation needs them: the joint
        mode). Without, or within ``_PLACED_FOR`` evaluations of one that needed its
        placements (many pairs near: this one will need them too, and the shapes' moves
        are tighter than the levers):
        the placements of every shape now, and per shape ``|Δc| + r ‖R − R_before‖``
        against the last evaluation's placements. With neither, every bound is reset."""
        if not isinstance(data, pin.Data) or len(data.oMi) != self.model.njoints:
            raise InvalidInput(
                "CollisionScene needs the pinocchio.Data of its model (configuration.data), "
                f"got {type(data).__name__}"
            )
        generation = self.generation
        obstacles_moved = self._sync_obstacles()
        previous_q, previous_M = self._q, self._placements
        if self.generation != generation:  # rebuilt: every bound reset already
            previous_q = previous_M = None
        self._data = data
        self._placements = self._points = None
        self._shape_moved = None
        self._coal_placed = False
        self._q = None if q is None else q.copy()
        self._tight = None
        needed = self._needed > 0
        self._needed = max(self._needed - 1, 0)
        self._joint_mode = False
        drop = None
        if q is not None:
            self._levers.cover(q)  # (a prismatic joint past its range: P grows first)
            if needed and previous_M is not None:
                drop = self._shape_drop(previous_M)
            elif previous_q is not None and previous_q.shape == q.shape:
                self._joint_mode = True
                drop = self._levers.P @ np.abs(pin.difference(self.model, previous_q, q))
                self._robot_drop = (previous_q, drop.copy())
                if obstacles_moved is not None:
                    drop += obstacles_moved[self._pair_obstacle]
            elif previous_M is not None:
                drop = self._shape_drop(previous_M)
        else:
            self._compute_points()
            if previous_M is not None:
                drop = self._shape_drop(previous_M)
        if drop is None or len(drop) != len(self._lower):
            self._lower[:] = -np.inf
            self._screen = None
            return
        if self._unbounded.size:
            drop[self._unbounded] = np.inf
        if drop.any():
            self._screen = None  # (the bounds of near_rows hold at its placements only)
            if self._joint_mode and previous_M is not None:
                self._tight = (self._lower.copy(), previous_M)  # (for _tighten)
            self._lower -= drop

    def _tighten(self) -> None:
        """Once the placements of an evaluation lowered in joint space are computed, and
        when the last evaluation's are known too: each pair's bound lowered by the smaller
        of the joint-space bound and its shapes' moves (both hold; the levers are loose
        where a joint's axis passes near a shape)."""
        tight, self._tight = self._tight, None
        if tight is None:
            return
        before, previous = tight
        drop = self._shape_drop(previous)
        if drop is not None:
            before -= drop
            np.maximum(self._lower, before, out=self._lower)

    def _shape_drop(self, before: np.ndarray) -> np.ndarray | None:
        """Per pair, how much closer its shapes may have come since the placements
        ``before`` (ngeoms × 4 × 4): no point of a shape moved farther than its centre's
        move plus its radius times ``‖R − R_before‖ = 2 sin(θ/2) = √(3 − tr(R R_beforeᵀ))``,
        and a pair's distance fell by at most the sum of its two shapes' moves."""
        M, points = self._compute_points()
        if before.shape != M.shape:
            return None
        centre0 = np.matmul(before[:, :3], self._points_local[:, :, :1])[:, :, 0]
        move = moves_of(points[:, :, 0], centre0, M[:, :3, :3], before[:, :3, :3], self._radii)
        self._shape_moved = (before, move)  # (for the lookahead's step, often the same one)
        return move[self._first] + move[self._second]

    def _world_points(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_compute_points` for a part of the evaluation that needs them (a screen,
        a broadphase): the next evaluation then places its shapes at once."""
        self._needed = _PLACED_FOR
        return self._compute_points()

    def _compute_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The placements (ngeoms × 4 × 4) and world points (ngeoms × 3 × 3: the bounding
        sphere's centre and the bounding capsule's ends as columns) of the current
        evaluation, computed at the first call: the joints' placements times each shape's,
        in one product (34 joint placements read through one list instead of 52 geometry
        placements through the vector: 5x fewer instructions)."""
        if self._points is None:
            data = self._data
            assert data is not None
            joints = self._joint_placements(data)
            M = np.matmul(joints[self._joint_of], self._local)
            self._placements = M
            self._points = np.matmul(M[:, :3], self._points_local)
            look = self._look
            if (
                look is not None
                and look[3] is None
                and look[1] == self.generation
                and look[2] is not None
                and self._q is not None
                and _equal(look[2], self._q)
            ):  # (the step's placements, for the next step's lookahead)
                self._look = (*look[:3], M[: self.n_robot].copy(), *look[4:])
        assert self._placements is not None
        return self._placements, self._points

    def _centres_of(self, shapes: np.ndarray) -> np.ndarray:
        """The world centres of the bounding spheres (ngeoms × 3), at the current evaluation,
        of ``shapes`` at least: all from the placements when they are computed, else those
        of ``shapes`` alone from their joints' placements (a few shapes: fewer calls than
        placing every shape)."""
        if self._points is not None:
            return self._points[:, :, 0]
        data = self._data
        assert data is not None
        H = self._joint_placements(data)[self._joint_of[shapes]]
        local = np.matmul(self._local[shapes], self._points_local[shapes, :, :1])
        centres = np.zeros((len(self._joint_of), 3))
        centres[shapes] = np.matmul(H[:, :3], local)[:, :, 0]
        return centres

    def _place_coal(self) -> None:
        """coal's placements of every shape (one C++ call), once per evaluation, for GJK."""
        if not self._coal_placed:
            data = self._data
            assert data is not None
            pin.updateGeometryPlacements(self.model, data, self.geometry_model, self.geometry_data)
            self._coal_placed = True
            views = self._results
            if views is not None and result_address(self.geometry_data) != views[0]:
                self._bind_results()  # (the results moved: a view made again, checked again)

    def _world_centres(self) -> tuple[np.ndarray, np.ndarray]:
        """World positions of the bounding spheres' centres (ngeoms × 3) and of the bounding
        capsules' segment ends (ngeoms × 2 × 3) at the current evaluation."""
        points = self._world_points()[1]
        return points[:, :, 0], points[:, :, 1:].transpose(0, 2, 1)

    def _moves(self, step: object) -> np.ndarray:
        """Per pair, a bound on how much closer its two shapes came over the last step (m):
        ``P @ |q ⊖ q_before|`` when both evaluations had their ``q`` and every pair is
        bounded in joint space; the shapes' moves ``|Δc| + r √(3 − tr(R R_beforeᵀ))`` from
        the placements when both steps' placements are known (the smaller of the two when
        both are); plus the obstacles' moves; 0 for what is seen for the first time.
        Starts a step unless ``step``, ``q`` (or the placements) and the obstacles' poses
        repeat the last call's (see near_pairs); a repeated call whose placements were
        computed since refines the step's bound with them."""
        n = self.n_robot
        names = [o.name for o in self.obstacles]
        obstacles = {name: self._local[n + k] for k, name in enumerate(names)}
        q = self._q
        joint_space = self._joint_mode and not self._unbounded.size
        look = self._look
        if (
            look is not None
            and step is not None
            and look[0] == step
            and look[1] == self.generation
            and all(x in look[4] and np.array_equal(P, look[4][x]) for x, P in obstacles.items())
            and (
                q is not None and _equal(look[2], q)
                if joint_space and look[2] is not None
                else look[3] is not None and _equal(look[3], self._compute_points()[0][:n])
            )
        ):
            if not look[6] and self._points is not None:
                # the placements came since: the step's bound refined with them
                look = self._look = self._moved_since(self._look_before, step, look[5])
            return look[5]
        self._look_before = look
        self._look = self._moved_since(look, step, None)
        return self._look[5]

    def _moved_since(self, look: tuple | None, step: object, known: np.ndarray | None) -> tuple:
        """The lookahead's record of a new step ``step`` (see _moves) from the last step's
        record ``look``; ``known``: the joint-space bound already found for it."""
        n = self.n_robot
        names = [o.name for o in self.obstacles]
        obstacles = {name: self._local[n + k] for k, name in enumerate(names)}
        q = self._q
        joint_space = self._joint_mode and not self._unbounded.size
        moved = known
        if joint_space and moved is None:
            assert q is not None
            before_q = None if look is None else look[2]
            if before_q is None or before_q.shape != q.shape:
                moved = np.zeros(len(self.pairs))
            else:
                drop = self._robot_drop
                if drop is not None and _equal(drop[0], before_q):
                    moved = drop[1].copy()  # (the drop _advance measured, from the same q)
                else:
                    moved = self._levers.P @ np.abs(pin.difference(self.model, before_q, q))
            if names and look is not None:
                # the obstacles' moves since the step's poses (0 for one seen the first time)
                seen = [k for k, x in enumerate(names) if x in look[4]]
                if seen:
                    at = n + np.array(seen)
                    shifts = np.zeros(len(names) + 1)
                    shifts[seen] = shape_moves(
                        self._local[at],
                        np.array([look[4][names[k]] for k in seen]),
                        self._centres_local[at],
                        self._radii[at],
                    )
                    moved = moved + shifts[self._pair_obstacle]
        robot = None
        refined = not joint_space or self._points is not None
        if refined:
            M = self._compute_points()[0]
            robot = M[:n].copy()
            if not joint_space or (look is not None and look[3] is not None):
                before = np.full_like(M, np.nan)
                if look is not None and look[3] is not None and look[3].shape == robot.shape:
                    before[:n] = look[3]
                for k, name in enumerate(names):
                    if look is not None and name in look[4]:
                        before[n + k] = look[4][name]
                measured = self._shape_moved
                if (
                    measured is not None
                    and measured[0].shape == before.shape
                    and _equal(measured[0], before)
                ):
                    shape = measured[1]  # (the move _advance measured, from the same placements)
                else:
                    shape = shape_moves(M, before, self._centres_local, self._radii)
                shape = np.where(np.isfinite(shape), shape, 0.0)  # first seen: no history
                by_shapes = shape[self._first] + shape[self._second]
                moved = by_shapes if moved is None else np.minimum(moved, by_shapes)
        assert moved is not None
        return (
            step,
            self.generation,
            None if q is None else q.copy(),
            robot,
            {x: P.copy() for x, P in obstacles.items()},
            moved,
            refined,
        )

    def near_pairs(
        self,
        data: pin.Data,
        detection_distance: float,
        lookahead: bool = False,
        step: object = None,
        travel: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Indices (into ``self.pairs``) of the pairs whose bounding spheres are closer than
        their detection distance, and that distance per pair; half-spaces are always near
        (their extent is unbounded).

        ``lookahead``: the detection distance of a pair grows by twice how far any point of
        its two shapes moved over the last step (the robot's links and the obstacles alike:
        ``|Δc| + r ‖R − R_before‖`` per shape), so that a pair moving fast gets its row
        before a single step could carry it from beyond ``detection_distance`` into
        contact (a hand at 2 m/s moves 2 cm per 10 ms step, an obstacle at 0.5 m/s 5 mm).
        ``step``: the caller's key of the step (its q as bytes; None: every call is a new
        step); a call with the same key and the same placements repeats the last step's
        growth. Obstacles keep their history by name when others are added or removed.

        ``travel`` (nv,): per velocity column, the most it can move in the coming step
        (``v_max,j · dt``, m or rad; 0 for a column with no bound): the detection distance
        of a pair grows by how much closer its two shapes can come in that step
        (``approach_bounds`` in ``geometry/bounds.py``), so that no step within the velocity
        box carries a pair from beyond the threshold into contact unseen, whatever the last
        step did.
        """
        detection_distance = check_scalar(detection_distance, "detection_distance", 0.0)
        self._place(data)
        return self._broadphase(data, detection_distance, lookahead, step, travel, False)

    def _travel_reach(self, travel: np.ndarray) -> np.ndarray:
        """Per pair, ``P @ travel``: how much closer any step within the velocity box can
        bring its shapes (+inf for a pair the joint-space bound does not cover); kept by
        the value of ``travel`` (constant while the caps and ``dt`` are)."""
        kept = self._travel_bound
        if (
            kept is not None
            and kept[0] == self._levers.version
            and kept[1].shape == travel.shape
            and _equal(kept[1], travel)
        ):
            return kept[2]
        reach = self._levers.P @ travel
        reach[self._unbounded] = np.inf
        self._travel_bound = (self._levers.version, travel.copy(), reach)
        return reach

    def _broadphase(
        self,
        data: pin.Data,
        detection_distance: float,
        lookahead: bool,
        step: object,
        travel: np.ndarray | None,
        bounded: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`near_pairs` once the evaluation started; ``bounded``: only over the pairs
        whose running lower bound is below their threshold grown by the velocity box's
        joint-space bound ``P @ travel`` (the others are provably beyond it), the bounding
        volumes and the Jacobians' approach bound then on those only."""
        if not len(self.pairs):
            return np.zeros(0, dtype=int), np.zeros(0)
        # (beyond 1e12 m every pair is near anyway: obstacles lie within 1e6 m of the origin)
        threshold = np.full(len(self.pairs), min(detection_distance, 1e12))
        if lookahead:
            moved = self._moves(step)
            threshold += 2.0 * moved
        box = None if travel is None or not travel.any() else self._travel_reach(travel)
        which = None
        if bounded:
            mask = self._lower < (threshold if box is None else threshold + box)
            mask[self._flat_pairs] = True
            which = _nonzero(mask)
            threshold = threshold[which]
            if box is not None:
                box = box[which]
        a, b = (
            (self._first, self._second)
            if which is None
            else (self._first[which], self._second[which])
        )
        if not len(a):
            return np.zeros(0, dtype=int), np.zeros(0)
        centres, ends = self._world_centres()
        diff = centres[a] - centres[b]
        if box is not None and travel is not None:
            # the smaller of two bounds on the approach: the joints' levers (exact) and the
            # Jacobians' (first order, tighter where a common joint turns the pair)
            J = _joint_jacobians(data, self.model.nv)
            first = self._approach(
                J, centres, self._radii, travel, which=which, gap=np.sqrt(_dots(diff, diff))
            )
            threshold += np.minimum(first, box)
        reach_all = self._reach if which is None else self._reach[which]
        flat = self._flat if which is None else self._flat[which]
        reach = reach_all + threshold
        near = _nonzero((_dots(diff, diff) < reach * reach) | flat)
        # then the bounding capsules of the pairs left (long links: far tighter than spheres)
        a, b = a[near], b[near]
        gap = _segment_distances(ends[a, 0], ends[a, 1], ends[b, 0], ends[b, 1])
        capsule = self._capsule_reach[near] if which is None else self._capsule_reach[which][near]
        keep = (gap < capsule + threshold[near] + 1e-9) | flat[near]
        near = near[keep]
        return (near if which is None else which[near]), threshold[near]

    def distances(
        self,
        data: pin.Data,
        detection_distance: float,
        all_pairs: bool = False,
        lookahead: bool = False,
        step: object = None,
        travel: np.ndarray | None = None,
        q: np.ndarray | None = None,
    ) -> PairDistances:
        """Signed distances, closest points, normals and distance gradients of the pairs
        closer than ``detection_distance`` (every pair if ``all_pairs``; ``lookahead``,
        ``step`` and ``travel``: see :meth:`near_pairs`).

        ``data`` must hold the joint placements and joint Jacobians of the configuration
        (``Configuration.update`` computes both); ``q``: that configuration, when the
        caller has it: the pairs' running lower bounds are then lowered in joint space
        (see :meth:`near_rows`), and the broadphase runs on the pairs they do not skip.
        """
        if q is not None:
            q = self._checked_q(q)
        if all_pairs:
            self._advance(data, q)
            candidates = np.arange(len(self.pairs))
            threshold = np.full(len(candidates), np.inf)
        else:
            detection_distance = check_scalar(detection_distance, "detection_distance", 0.0)
            self._advance(data, q)
            candidates, threshold = self._broadphase(
                data, detection_distance, lookahead, step, travel, q is not None
            )
            # the pairs whose distance is known to be at least their threshold are skipped:
            # GJK runs on the pairs that may be near, not on every candidate of the broadphase
            maybe = (self._lower[candidates] < threshold) | self._flat[candidates]
            candidates, threshold = candidates[maybe], threshold[maybe]
        candidates, dist, results = self._gjk(candidates)
        if not all_pairs:  # the closest points of the pairs kept only
            keep = _nonzero(dist < threshold)
            candidates, dist = candidates[keep], dist[keep]
            results = list(map(results.__getitem__, keep.tolist()))
        return self._closest(data, candidates, dist, results)

    def _checked_q(self, q: np.ndarray) -> np.ndarray:
        """``q`` as a configuration vector of the model, or :class:`InvalidInput`."""
        return check_finite_array(q, "q", (self.model.nq,))

    def _gjk(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        """GJK/EPA on the pairs ``candidates``: ``(candidates, distances, coal results)``;
        the pairs' lower bounds set; :class:`InvalidInput` for a non-finite distance."""
        k = len(candidates)
        if k:
            self._place_coal()
        results = list(
            map(
                partial(pin.computeDistance, self.geometry_model, self.geometry_data),
                candidates.tolist(),
            )
        )
        views = self._result_fields() if self._results_checked else None
        if views is None:
            dist = np.fromiter(map(_MIN_DISTANCE, results), float, k)
        else:
            dist = views[1][candidates]
        # GJK's tolerance (1e-6 m by default) below: a bound, never above the true distance
        self._lower[candidates] = dist - _GJK_SLACK
        if not np.isfinite(dist).all():
            bad = [self.names[int(k)] for k in candidates[~np.isfinite(dist)]]
            raise InvalidInput(
                f"the distance of {', '.join(bad[:5])} is not finite: is the robot's "
                "configuration or an obstacle very far from the origin?"
            )
        return candidates, dist, results

    def _closest(
        self, data: pin.Data, candidates: np.ndarray, dist: np.ndarray, results: list
    ) -> PairDistances:
        """The :class:`PairDistances` of ``candidates`` from their coal results."""
        k = len(candidates)
        if not k:
            nv = self.model.nv
            empty = np.zeros((0, 3))
            return PairDistances(
                candidates,
                dist,
                empty,
                empty,
                empty,
                np.zeros((0, nv)),
                np.zeros((0, 2, nv)),
                np.zeros(0),
            )
        views = self._result_fields()
        if views is not None and self._results_checked:
            found = views[0][_FOUND, candidates]  # (one gather from the results' view)
        else:
            # closest points and normal of every pair: three maps over the results
            found = np.concatenate(
                [*map(_POINT_A, results), *map(_POINT_B, results), *map(_NORMAL, results)]
            ).reshape(3, k, 3)
            if views is not None:
                # the view's first reading, checked against the accessors: used from now on
                # only if it reads the same values (else the accessors are kept)
                same = np.array_equal(views[0][_FOUND, candidates], found, equal_nan=True)
                same &= np.array_equal(views[1][candidates], dist, equal_nan=True)
                self._results_checked = bool(same)
                if not same:
                    self._results = None
        pa, pb, nrm = found
        gradient, turn, lever = self._derivatives(data, candidates, found)
        return PairDistances(candidates, dist, pa, pb, nrm, gradient, turn, lever)

    def pair_distances(self, data: pin.Data, pairs: np.ndarray) -> PairDistances:
        """:class:`PairDistances` of the pairs ``pairs`` (indices into ``self.pairs``) at the
        placements of the last evaluation (``data``: its joint Jacobians)."""
        candidates, dist, results = self._gjk(np.asarray(pairs, dtype=int))
        return self._closest(data, candidates, dist, results)

    def near_rows(
        self,
        data: pin.Data,
        detection_distance: float,
        step: object = None,
        margin: float = 0.0,
        q: np.ndarray | None = None,
    ) -> PairDistances:
        """The pairs closer than their detection distance (``detection_distance`` grown by
        the lookahead, see :meth:`near_pairs`), without the bound on how far the velocity
        box lets a pair approach: the step that these pairs' rows give is then checked by
        :meth:`crossing` against every other pair.

        Each pair keeps a running lower bound ``d̲`` on its distance (conservative
        advancement): set by the last exact distance (GJK) or bounding-volume gap measured,
        then lowered at every evaluation by how much closer its two shapes may have come
        since. With ``q`` (the configuration ``data`` was computed at) and the last
        evaluation's: ``P @ |q ⊖ q_before|``, one product
        over every pair with the joints' levers (geometry/levers.py), plus each obstacle's
        move ``|Δc| + r ‖R − R_before‖``; no shape is placed for that. Without: the shapes'
        moves from their placements. A pair whose ``d̲`` is at least its threshold plus
        ``margin`` costs nothing more: it is provably farther. The others (and every pair
        with a half-space, whose extent is unbounded) are measured: first their bounding
        spheres' gap ``|c_a − c_b| − r_a − r_b`` and bounding capsules' (when more than a
        few of them were not measured by GJK at the last call), which raise ``d̲``; then
        GJK on those still below, whose distance sets ``d̲``."""
        detection_distance = check_scalar(detection_distance, "detection_distance", 0.0)
        margin = check_scalar(margin, "margin", 0.0)
        return self._near_rows(
            data, detection_distance, step, margin, None if q is None else self._checked_q(q)
        )

    def _near_rows(
        self,
        data: pin.Data,
        detection_distance: float,
        step: object,
        margin: float,
        q: np.ndarray | None,
    ) -> PairDistances:
        """:meth:`near_rows` with its arguments checked (``q`` a configuration vector)."""
        self._advance(data, q)
        n = len(self.pairs)
        if not n:
            self._screen = None
            return self.pair_distances(data, np.zeros(0, dtype=int))
        base = self._moves(step) * 2.0
        base += min(detection_distance, 1e12)
        reach = base + margin
        lower = self._lower
        below = lower < reach
        if self._flat_pairs.size:
            below[self._flat_pairs] = True
        cand = _nonzero(below)
        # the screens on the pairs not measured by GJK at the last call (those were near:
        # GJK at once); a handful of pairs costs less in GJK than in the screens' calls
        fresh = cand[~self._measured[cand]]
        if len(fresh) > _SCREEN_MIN:
            if self._tight is not None:
                # the placements are needed now: the joint-space bounds and lookahead
                # tightened with the shapes' moves, then the candidates again
                self._world_points()
                self._tighten()
                base = self._moves(step) * 2.0
                base += min(detection_distance, 1e12)
                reach = base + margin
                cand = cand[(lower[cand] < reach[cand]) | self._flat[cand]]
                fresh = cand[~self._measured[cand]]
            self._screen_bounds(fresh)
            cand = cand[(lower[cand] < reach[cand]) | self._flat[cand]]
        cand, dist, results = self._gjk(cand)
        self._measured[:] = False
        self._measured[cand] = True
        bound = lower.copy()
        rows = dist < base[cand]
        bound[cand[rows]] = np.inf  # (pairs with rows: not checked)
        self._screen = (bound, base)
        kept = _nonzero(rows)
        return self._closest(
            data, cand[kept], dist[kept], list(map(results.__getitem__, kept.tolist()))
        )

    def _screen_bounds(self, which: np.ndarray) -> None:
        """Raise the running lower bounds of the pairs ``which`` to their bounding spheres'
        and bounding capsules' gaps at the placements of the last ``_place`` (a half-space's
        pairs keep theirs: its sphere is a point)."""
        centres, ends = self._world_centres()
        a, b = self._first[which], self._second[which]
        diff = centres[a] - centres[b]
        gap = np.sqrt(_dots(diff, diff)) - self._reach[which]
        capsule = _segment_distances(ends[a, 0], ends[a, 1], ends[b, 0], ends[b, 1])
        capsule -= self._capsule_reach[which]
        best = np.maximum(gap, capsule)
        best -= 1e-9
        best[self._flat[which]] = -np.inf
        np.maximum(self._lower[which], best, out=best)
        self._lower[which] = best

    def crossing(
        self, data: pin.Data, v: np.ndarray, dt: float, budget: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pairs left without rows by the last :meth:`near_rows` that the step ``v`` (of
        ``dt`` s) may bring closer than their threshold less ``budget`` (m): their lower
        bound less how much closer the step may bring them (``relative_approach`` in
        ``geometry/bounds.py``, first order) falls below it: ``(pairs, floors)``, indices
        into ``self.pairs`` and that threshold less ``budget`` per pair; none when
        :meth:`near_rows` was not called at these placements."""
        screen = self._screen
        if screen is None:
            return np.zeros(0, dtype=int), np.zeros(0)
        bound, base = screen
        slack = bound - base + budget
        if self._points is not None:
            V = self._body_velocities(data, v)
            # the shapes placed: first a bound per shape, |v_o + ω × c| + r |ω| (the relative
            # motion of a pair is at most the sum of its shapes')
            centres = self._points[:, :, 0]
            lin, ang = V[:3, self._joint_of].T, V[3:, self._joint_of].T
            lin += _cross(ang, centres)
            speed = np.sqrt(_dots(lin, lin))
            speed += self._radii * np.sqrt(_dots(ang, ang))
            speed *= dt
            maybe = _nonzero(slack < speed[self._first] + speed[self._second])
        else:
            # else the joints' levers, P @ |v| dt (geometry/levers.py), with no placement
            coarse = self._levers.P @ np.abs(v)
            coarse *= dt
            if self._unbounded.size:
                coarse[self._unbounded] = np.inf
            maybe = _nonzero(slack < coarse)
            if len(maybe):
                centres = self._centres_of(np.unique(self.pairs[maybe]))
                V = self._body_velocities(data, v)
        # the pairs either leaves are checked by their bodies' relative motion
        if len(maybe):
            approach = dt * _relative_approach(
                V, self._joint_of, centres, self._radii, self.pairs[maybe]
            )
            maybe = maybe[slack[maybe] < approach]
        return maybe, base[maybe] - budget

    def _body_velocities(self, data: pin.Data, v: np.ndarray) -> np.ndarray:
        """Each joint's body's spatial velocity under ``v`` (6 × njoints, world frame)."""
        J = _joint_jacobians(data, self.model.nv)
        return J @ (self._approach.joint_support * v).T

    def mark_rows(self, pairs: np.ndarray) -> None:
        """Leave ``pairs`` (given rows after :meth:`crossing`) out of the next check."""
        if self._screen is not None:
            self._screen[0][pairs] = np.inf

    def _derivatives(
        self, data: pin.Data, candidates: np.ndarray, found: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``gradient``, ``turn`` and ``lever`` of :class:`PairDistances`: ``g_b − g_a`` per
        pair, ``g = nᵀ J_v + (p × n)ᵀ J_ω`` over the supporting columns, and
        ``t_i · (ω_a − ω_b)`` for two unit tangents, in one product with the joint
        Jacobians (``data.J``, world frame: rows v at the world origin, ω). ``found``
        (3 × k × 3): the closest points ``p_a``, ``p_b`` and the normals ``n``."""
        k, nv = len(candidates), self.model.nv
        if not k:
            return np.zeros((0, nv)), np.zeros((0, 2, nv)), np.zeros(0)
        nrm = found[2]
        # the helper axis h (x, or y where n is near x): t_1 = n × h / s, t_2 = n × t_1 =
        # (n (n·h) − h) / s, s = |n × h|; the crosses p_a × n, p_b × n, n × h in one call
        # (take: an index array of int8 through ``[]`` costs numpy's slow path, 7x more)
        helper = _AXES.take((np.abs(nrm[:, 0]) >= 0.9).view(np.int8), axis=0)
        other = np.empty_like(found)
        other[:2] = nrm
        other[2] = helper
        crossed = _cross(found, other)
        along = _dots(nrm, helper)[:, None]
        scale = (1.0 - along * along) ** -0.5
        # rows [n, p_a × n], [n, p_b × n], [0, t_1], [0, t_2] of each pair, times J
        W = np.empty((k, 4, 6))
        W[:, :2, :3] = nrm[:, None, :]
        W[:, 2:, :3] = 0.0
        W[:, :3, 3:] = crossed.transpose(1, 0, 2)
        W[:, 3, 3:] = nrm * along - helper
        W[:, 2:, 3:] *= scale[:, None]
        R = (W.reshape(4 * k, 6) @ _joint_jacobians(data, nv)).reshape(k, 4, nv)
        # the masks of the supporting columns: ω_a − ω_b = W (m_a − m_b) v
        masks = self._pair_support[candidates]
        gradient = R[:, 1] * masks[:, 1]
        gradient -= R[:, 0] * masks[:, 0]
        turn = R[:, 2:] * self._pair_turns[candidates][:, None, :]
        return gradient, turn, self._pair_lever[candidates]


def _joint_jacobians(data: pin.Data, nv: int) -> np.ndarray:
    """Pinocchio's ``data.J`` as a 6 × nv matrix: on a model with one velocity coordinate
    the binding returns it as a vector of 6, which would broadcast the pairs against each
    other (a k × k gradient instead of k × 1)."""
    return np.asarray(data.J).reshape(6, nv)
