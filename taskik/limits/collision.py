"""Collision avoidance (self-collision and obstacles) as inequality rows of the step.

The module is longer than 500 lines because one class holds the rows and the state one step
tells the next (motion, loss, the rows a report reads back), with their math in its
docstrings; the distances and bounds are in :mod:`taskik.geometry`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, check_configuration, check_model
from ..exceptions import (
    InvalidInput,
    UnknownName,
    check_finite_array,
    check_positive_scalar,
    check_scalar,
)
from ..geometry import (
    CollisionScene,
    Obstacle,
    PairDistances,
    PairSelection,
    convexify,
    self_collision_pairs,
)
from ..geometry.robot import check_geometry_model
from .limit import Inequalities, Limit, checked_step_arguments

__all__ = ["CollisionLimit", "CollisionReport"]


@dataclass(frozen=True)
class CollisionReport:
    """The monitored pairs closer than the detection distance, closest first.

    ``names[i]`` is ``"geometry_a / geometry_b"``, ``distances[i]`` its signed distance (m),
    ``active[i]`` whether its row binds the step ``v`` given to :meth:`CollisionLimit.report`
    (False when no ``v`` was given), ``segments[i]`` the closest points ``(p_a, p_b)``.
    """

    names: tuple[str, ...]
    distances: np.ndarray
    active: np.ndarray
    segments: np.ndarray
    monitored: int
    safety_distance: float

    def __str__(self) -> str:
        if not self.names:
            return f"no pair within the detection distance ({self.monitored} monitored)"
        lines = [f"{len(self.names)} of {self.monitored} monitored pairs near:"]
        for name, d, on in zip(self.names, self.distances, self.active, strict=True):
            flag = " active" if on else ""
            below = "  BELOW SAFETY" if d < self.safety_distance else ""
            lines.append(f"  {d * 1e3:8.2f} mm  {name}{flag}{below}")
        return "\n".join(lines)


class CollisionLimit(Limit):
    """Keep the robot out of collision with itself and with obstacles.

    For every monitored pair closer than the detection distance ``d_i``, the velocity
    damper of Faverjon and Tournassoud (as used by Kanoun) bounds how fast the pair may
    approach::

        ḋ = (g_b − g_a) v ≥ −ξ (d − d_s) / (d_i − d_s)

    i.e. the inequality row ``(g_a − g_b) v ≤ k (d − d_s − buffer)`` (with four more per
    pair where a face contact can tilt, see ``_rows``) with
    ``k = ξ / (d_i − d_s − buffer)`` (1/s), where ``d`` is the signed distance between
    the closest points ``p_a``, ``p_b``, ``n`` the unit normal from ``a`` to ``b``, and
    ``g = nᵀ J_v + (p × n)ᵀ J_ω`` the gradient of ``n·p`` for a point fixed on its body
    (:mod:`taskik.geometry.scene`). At ``d_i`` the pair may approach at ``ξ`` m/s, at
    ``d_s + buffer`` not at all. ``k`` is capped at ``gain / dt``, so that one step
    never closes more than the fraction ``gain`` of the margin whatever ``dt`` (the
    position limit's rule; it matters for ``solve_posture``, whose steps are long).

    Starting closer than ``d_s`` (or in penetration, ``d < 0``), the row asks the pair to
    separate at ``k (d_s + buffer − d)``, at most ``ξ`` m/s: like the position limit started
    outside its range, the step pushes out instead of failing, and that row alone never
    makes the step infeasible unless an obstacle comes on faster than that (with the tilt
    rows that hold a face contact, below, a link that cannot separate without turning the
    face makes the step relax and names the pair). A face contact inside the buffer
    (``d_s ≤ d < d_s + buffer``) keeps its tilt rows and is held there (``h = 0``) rather
    than pushed out: a link that only two joints move cannot separate from a face without a
    rotation, which its tilt rows forbid at first order. When limits do conflict, the
    default step relaxes the rows that give way (:mod:`taskik.relax`) and names the pairs;
    with ``strict=True``, :class:`NoSolutionFound` names them.

    Face contacts: the damper row is first order in one pair of closest points. When a
    flat face meets a link side on (a box face along a capsule, two mesh hulls), a rotation
    brings another point of the contact nearer, by ``ℓ θ`` for a point ``ℓ`` away, which
    that row does not see (measured: a Panda link sliding along a box went 19 mm past
    ``d_s``, Talos's hulls 3.5 mm). Four more rows per pair (see ``_rows``) make tilting
    the bodies against each other cost distance, with ``ℓ`` the radius of the smaller
    body's bounding sphere; with them both cases keep ``d_s`` (tested). Pairs with a
    sphere (a point contact) do not need them. They cost about 0.2 ms per Talos step.

    A pair with a half-space (no bounding sphere) takes the other body's radius as its lever.
    A pair closer than ``d_s`` keeps its tilt rows, held (``h ≥ 0`` before the obstacle's
    motion): turning a hull face must not bring another of its vertices nearer while the
    damper row, at the closest vertex, pushes out.

    Which pairs get rows: those within ``d_i``, widened by the lookahead (twice how far each
    shape moved in the last step) and by how much closer the velocity box ``|v_j| ≤ v_max,j``
    lets the two shapes come in this step, ``Σ_j v_max,j dt · (lever of shape a or b about
    column j)``: the smaller of the joints' levers fixed per model (``P @ travel``,
    ``geometry/levers.py``) and the levers from the joint Jacobians (``approach_bounds`` in
    ``geometry/bounds.py``), so no step within the model's velocity
    limits carries a pair from beyond its threshold into contact. Columns without a finite
    velocity limit in the model (a free-flyer's; a ``BaseVelocityLimit`` is not seen here)
    are left to the lookahead.

    A moving obstacle: its closest point's displacement along the normal over the last
    step, ``m = n·δ_b`` (from the pose values between steps), is assumed to repeat at its
    most pessimistic, ``min(m, 2m − m_before, 0)`` (speeding up toward the robot, it keeps
    speeding up; moving away, it may stop), and is added to ``h`` after the separation cap:
    an approaching obstacle pushes the robot away before it reaches ``d_s``, and one the
    robot cannot escape makes the row give way (relaxed and named) instead of going
    through unreported. A step is a call at a new ``q`` or with new obstacle poses; a
    second call at the same step sees the same motion. The same holds of
    the distance a pair lost in the last step beyond its first-order prediction (the
    curvature of a fast link's path, ``½ a dt²``): it is subtracted too, as ``loss / dt``
    (at most ``buffer``), see ``_second_order``.

    Args:
        robot: a :class:`taskik.robots.Robot` (its ``collision_model`` and ``srdf``), or a
            Pinocchio model with ``geometry_model``.
        geometry_model: the collision geometry (default: the robot's). Meshes are replaced
            by their convex hulls (signed distances, normals, ~100× faster than meshes).
        self_collision: True for the default pairs of
            :func:`taskik.geometry.self_collision_pairs` (adjacent links, SRDF-disabled pairs
            and pairs in contact at ``q_reference`` removed), False for none, or a list of
            pairs of geometry names.
        obstacles: :class:`taskik.geometry.Obstacle` objects, watched against every body.
        safety_distance: ``d_s`` (m), the distance kept between the surfaces.

            The defaults (``d_s`` 1 cm, ``d_i`` 5 cm, ``ξ`` 0.5 m/s) come from a sweep
            (``benchmarks/collision_defaults.py``): every ξ in 0.25–2 m/s and ``d_i`` in
            3–10 cm kept every pair clear and reached the same targets in the same number
            of steps; a larger ``d_i`` or smaller ``ξ`` only keeps pairs farther apart
            while costing rows (Talos: 21 pairs with rows at 5 cm, 34 at 10 cm, 72 at
            20 cm), so the smallest ``d_i`` that a fast step cannot jump (2 m/s × 10 ms
            = 2 cm, below ``d_i − d_s``) and the middle ξ.
        detection_distance: ``d_i`` (m), > ``d_s``: pairs farther apart give no row.
        speed: ``ξ`` (m/s), the approach speed allowed at ``d_i``.
        gain: at most this fraction of the margin ``d − d_s`` is closed in one step, (0, 1].
        buffer: the rows aim at ``d_s + buffer`` (m). The rows are first order: a pair
            sliding past another at speed ``s`` along a surface of curvature radius ``ρ``
            ends about ``s² dt² / (2ρ)`` closer than predicted at every step, and settles
            that error divided by the fraction of the margin closed per step below where
            the rows aim (1.1 mm on the Panda sliding at 5 rad/s, dt = 0.01 s); the buffer
            absorbs it, so ``d_s`` holds.
        q_reference: the configuration whose touching pairs are not monitored (default: the
            robot's ``q0``, else the model's neutral configuration).
        srdf: SRDF file whose disabled pairs are not monitored (default: the robot's).
    """

    hard = True
    name = "collision"

    def __init__(
        self,
        robot: Any,
        geometry_model: pin.GeometryModel | None = None,
        *,
        self_collision: bool | Sequence[tuple[str, str]] = True,
        obstacles: Sequence[Obstacle] = (),
        safety_distance: float = 0.01,
        detection_distance: float = 0.05,
        speed: float = 0.5,
        gain: float = 0.5,
        buffer: float = 0.002,
        q_reference: np.ndarray | None = None,
        srdf: str | Path | None = None,
    ) -> None:
        model = robot if isinstance(robot, pin.Model) else getattr(robot, "model", robot)
        self.model = check_model(model, "CollisionLimit")
        geometry = (
            geometry_model
            if geometry_model is not None
            else getattr(robot, "collision_model", None)
        )
        if not isinstance(geometry, pin.GeometryModel):
            raise InvalidInput(
                "CollisionLimit needs the robot's collision geometry: pass a taskik Robot "
                "(taskik.robots.load / load_urdf) or geometry_model=pin.GeometryModel, got "
                f"{type(geometry).__name__}"
            )
        check_geometry_model(self.model, geometry, "CollisionLimit")
        self.safety_distance = check_scalar(safety_distance, "safety_distance", 0.0)
        self.detection_distance = check_scalar(
            detection_distance, "detection_distance", self.safety_distance, low_open=True
        )
        self.speed = check_scalar(speed, "speed", 0.0, low_open=True)
        self.buffer = check_scalar(buffer, "buffer", 0.0, self.detection_distance)
        if self.safety_distance + self.buffer >= self.detection_distance:
            raise InvalidInput("detection_distance must exceed safety_distance + buffer")
        self.gain = check_scalar(gain, "CollisionLimit gain", 0.0, 1.0, low_open=True)
        if not isinstance(self_collision, bool | np.bool_) and (
            isinstance(self_collision, str | bytes) or not isinstance(self_collision, Iterable)
        ):
            raise InvalidInput(
                "self_collision must be True, False or a list of pairs of geometry names, got "
                f"{self_collision!r}"
            )
        geometry = convexify(geometry)
        if srdf is None:
            srdf = getattr(robot, "srdf", None)
        if q_reference is None:
            q_reference = getattr(robot, "q0", None)
        if q_reference is None:
            q_reference = pin.neutral(self.model)
        try:
            q_reference = Configuration(self.model, q_reference).q
        except InvalidInput as exc:
            raise InvalidInput(f"q_reference: {exc}") from exc
        self.selection: PairSelection | None = None
        pairs: list[tuple[int, int]] = []
        if self_collision is True or self_collision is np.True_:
            self.selection = self_collision_pairs(
                self.model,
                geometry,
                q_reference,
                srdf,
                contact_distance=self.safety_distance + self.buffer,
            )
            pairs = list(self.selection.pairs)
        elif self_collision is not False and self_collision is not np.False_:
            names = [o.name for o in geometry.geometryObjects]
            for pair in self_collision:
                if (
                    isinstance(pair, str | bytes)
                    or not isinstance(pair, Iterable)
                    or len(items := list(pair)) != 2
                    or not all(isinstance(n, str) for n in items)
                ):
                    raise InvalidInput(f"a self-collision pair is two geometry names, got {pair!r}")
                for n in items:
                    if n not in names:
                        raise UnknownName("collision geometry", n, names)
                pairs.append((names.index(items[0]), names.index(items[1])))
        elif srdf is not None and not isinstance(srdf, str | Path):
            raise InvalidInput(f"srdf must be a path to an SRDF file, got {type(srdf).__name__}")
        self.scene = CollisionScene(self.model, geometry, pairs, obstacles)
        v_max = np.asarray(self.model.velocityLimit, dtype=float)
        # above 1e10 (a free-flyer's limit is often the largest float): unbounded, and
        # |G| @ v_max would overflow
        bounded = np.isfinite(v_max) & (v_max > 0) & (v_max < 1e10)
        self._v_max = np.where(bounded, v_max, 1e10)
        # the columns' speeds that bound how far a pair can approach in a step (0: unbounded,
        # left to the lookahead; see compute_inequalities)
        self._travel = np.where(bounded, v_max, 0.0)
        self._last: PairDistances | None = None
        self._last_names: list[str] = []  # the pair names when _last was computed
        # (scene generation, q, near pairs, their loss) at the last compute_inequalities
        # at a new q
        self._previous: tuple[int, np.ndarray, PairDistances, np.ndarray] | None = None
        self._row_pairs: np.ndarray  # the pair (in _last) of each row, set with _last
        # (q bytes, obstacle poses, dt, near, G, h, pair) of the last compute_inequalities
        self._step_rows: tuple[Any, ...] | None = None
        # whether the next compute_inequalities is announced (expect_check), and the (q bytes,
        # dt) of the last announced one, whose step check_step may check
        self._expect = False
        self._checked_step: tuple[bytes, float] | None = None
        # (that step, per pair its place in the pairs measured by check_step or -1, those)
        self._probed: tuple[tuple[bytes, float], np.ndarray, PairDistances | None] | None = None
        # the rows of the checked step: all of them (G, h, and each row's identity, its pair's
        # place in _last times 5 plus its kind: 0 the damper, 1-4 the tilt rows), and which
        # the QP was given; the others are checked against the solved step (check_step)
        self._all_rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        # the last step solved (check_step's v), a guess of the next: which rows may bind
        self._v_hint: np.ndarray | None = None

    # --------------------------------------------------------------- obstacles
    @property
    def obstacles(self) -> list[Obstacle]:
        """The obstacles watched (move one with ``obstacle.move_to(pose)``)."""
        return list(self.scene.obstacles)

    def add_obstacle(self, obstacle: Obstacle) -> None:
        """Watch ``obstacle`` from the next step on."""
        self.scene.add_obstacle(obstacle)

    def remove_obstacle(self, name: str) -> Obstacle:
        """Stop watching the obstacle called ``name``."""
        return self.scene.remove_obstacle(name)

    @property
    def pair_names(self) -> list[str]:
        """Every monitored pair, ``"geometry_a / geometry_b"``."""
        return list(self.scene.names)

    # --------------------------------------------------------------- the rows
    def rate(self, dt: float) -> float:
        """``k = min(ξ / (d_i − d_s − buffer), gain / dt)`` (1/s)."""
        return self._rate(check_positive_scalar(dt, "dt"))

    def _rate(self, dt: float) -> float:
        """:meth:`rate` of a ``dt`` already checked."""
        return min(self.damper_rate, self.gain / dt)

    @property
    def damper_rate(self) -> float:
        """``ξ / (d_i − d_s − buffer)`` (1/s): the rate of the damper when steps are short."""
        return self.speed / (self.detection_distance - self.safety_distance - self.buffer)

    def distances(self, configuration: Configuration, all_pairs: bool = False) -> PairDistances:
        """Distances of the pairs within the detection distance (every pair if ``all_pairs``)."""
        self._check(configuration)
        return self.scene.distances(
            configuration.data, self.detection_distance, bool(all_pairs), q=configuration.q
        )

    def _check(self, configuration: object) -> None:
        conf = check_configuration(configuration, "CollisionLimit")
        if conf.model is not self.model and (
            conf.model.nq != self.model.nq
            or conf.model.nv != self.model.nv
            or conf.model.njoints != self.model.njoints
        ):
            raise InvalidInput(
                "the configuration's model is not the one CollisionLimit was built for "
                f"(nq {conf.model.nq} vs {self.model.nq}, njoints {conf.model.njoints} vs "
                f"{self.model.njoints})"
            )

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities | None:
        """The damper's rows ``G v ≤ h`` of the pairs within the detection distance (None
        when there is none). A call at a new ``q`` or with obstacles at new poses is a new
        step: the obstacles' motion is their displacement since the last step; a second call
        at the same ``q`` and poses sees the same motion."""
        self._check(configuration)
        dt = check_positive_scalar(dt, "dt")
        # long steps (k capped by gain / dt, as in solve_posture): one step can cover any
        # distance, so every pair gets a row (each may close the fraction ``gain`` of its gap)
        long_step = self.gain / dt < self.damper_rate
        checked = self._expect and not long_step
        self._expect = False
        step = configuration.q.tobytes()  # a step is a new q or new obstacle poses
        if checked:  # rows within d_i; the solved step is checked against the others
            near = self.scene._near_rows(
                configuration.data, self.detection_distance, step, self._budget(dt), configuration.q
            )
        else:
            near = self.scene.distances(
                configuration.data,
                self.detection_distance,
                all_pairs=long_step,
                lookahead=True,
                step=step,
                travel=None if long_step else self._travel * dt,
                q=configuration.q,
            )
        self._checked_step = (step, dt) if checked else None
        return self._step_rows_of(configuration, dt, near, step, long_step, lazy=checked)

    def _budget(self, dt: float) -> float:
        """How far (m) the row of a pair at ``d_i`` lets it approach in a step of ``dt``."""
        return self._rate(dt) * (self.detection_distance - self.safety_distance - self.buffer) * dt

    def _step_rows_of(
        self,
        configuration: Configuration,
        dt: float,
        near: PairDistances,
        step: bytes,
        long_step: bool,
        lazy: bool = False,
        given: np.ndarray | None = None,
        first_new: int = 0,
    ) -> Inequalities | None:
        """The rows of the pairs ``near`` at this step (see :meth:`compute_inequalities`).

        ``lazy`` (a checked step): the QP is given the rows that may bind only, those whose
        slack ``h − g·v`` at the last step solved is below ``ξ / 4`` (or the rows whose
        identities are in ``given``, with every row of the pairs from ``first_new`` on,
        those a check added); the others are checked against the solved step by
        :meth:`check_step`, which adds those it meets. A step that satisfies the rows it was
        not given is the solution of the QP with them all: the same step, from a smaller
        QP (Talos, hand to hip: 25 rows instead of 145, the step solved again after the
        check in 5 % of the steps)."""
        self._last, self._last_names = near, self.scene.names
        motion = coming = None  # (no obstacle: none moves; the step recorded all the same)
        if self.scene.obstacles:
            motion = self.scene.obstacle_motion(near, step)  # over the last step
            coming = self.scene.obstacle_motion(near, step, predict=True)  # over the next one
        else:
            self.scene.obstacle_steps(step)
        loss = self._loss_at(configuration, near)
        if loss is None:
            loss = np.zeros(len(near.pairs))
            if not long_step:
                loss = self._second_order(configuration, near, motion)
        # (the pairs a check added keep their loss, 0, when the step is evaluated again)
        self._previous = (self.scene.generation, configuration.q.copy(), near, loss)
        self._step_rows = None
        self._all_rows = None
        if not len(near.pairs):
            self._row_pairs = np.zeros(0, dtype=int)
            return None
        ahead = None if coming is None else coming / dt
        G, h, pair = self._rows(near, dt, -loss / dt, ahead, tilt=not long_step)
        # what report() reads back at this same step (q, obstacle poses, dt): every row
        self._step_rows = (step, self._obstacle_poses(), dt, near, G, h, pair)
        self._row_pairs = pair
        if not lazy:
            return G, h
        n = len(near.pairs)
        ident = 5 * pair
        ident[n:].reshape(-1, 4)[:] += _KINDS
        if given is None:
            hint = self._v_hint
            slack = h if hint is None or hint.shape != (G.shape[1],) else h - G @ hint
            taken = slack < _TAKE * self.speed
        else:
            mark = np.zeros(5 * n, dtype=bool)
            mark[given] = True
            taken = mark[ident] | (pair >= first_new)
        self._all_rows = (G, h, ident, taken)
        self._row_pairs = pair[taken]
        return (G[taken], h[taken]) if taken.any() else None

    def expect_check(self, expected: bool = True) -> None:
        """Announce that the step computed from the next :meth:`compute_inequalities` will
        be given to :meth:`check_step` (:func:`taskik.solve_ik` does): that call then gives
        rows to the pairs within the detection distance (grown by the lookahead) only,
        instead of every pair the velocity box could bring there, and :meth:`check_step`
        adds the rows of any other pair the solved step would bring too close. Without the
        announcement the rows cover every velocity of the box (a caller that solves the
        rows itself needs nothing more). ``expect_check(False)`` withdraws an announcement
        whose call did not come (the solver does when the assembly fails)."""
        self._expect = expected is True

    def check_step(
        self, configuration: Configuration, v: np.ndarray, dt: float
    ) -> Inequalities | None:
        """After a solve of the rows of an announced :meth:`compute_inequalities` (see
        :meth:`expect_check`), whether the step ``v`` keeps every pair left without rows:
        None when it does, else the limit's rows again with those of the pairs it would bring
        too close added (solve again with them in place of the old ones, and check again).

        A pair left out has a lower bound ``d̲`` on its distance (bounding spheres,
        capsules, GJK, see :meth:`taskik.geometry.CollisionScene.near_rows`) and a bound
        ``a(v)`` on how fast ``v`` can bring it closer, from the relative motion of its two
        bodies (``|Δv_o + Δω × c| + r |Δω|`` over a bounding sphere, first order,
        ``relative_approach`` in ``geometry/bounds.py``). When ``d̲ − a(v) dt`` falls below
        ``d_t − k (d_i − d_s − buffer) dt`` (``d_t`` its threshold, ``d_i`` grown by the
        lookahead: where the row of a pair at the threshold could have let it end), the pair
        is measured (GJK, once per step) and gets its row if ``d + ḋ dt``, less what tilting
        a face contact may add (``ℓ (|t_1·ω| + |t_2·ω|) dt``, the tilt rows' terms), is still
        below it. None when the last call was not announced or was at another ``q`` or
        ``dt``."""
        configuration, v, dt = checked_step_arguments(
            "CollisionLimit.check_step", configuration, v, dt, self.model.nv
        )
        return self._check_solved(configuration, v, dt)

    _validating_check = check_step  # (solve_ik calls _check_solved for its own steps)

    def _check_solved(
        self, configuration: Configuration, v: np.ndarray, dt: float
    ) -> Inequalities | None:
        """:meth:`check_step` of the solver's own step (``solve_ik`` calls it): the
        configuration and ``dt`` of the announced call and a finite float64 ``v`` of size
        nv, not checked again."""
        pending = self._checked_step
        if pending is None or pending[0] != configuration.q.tobytes() or pending[1] != dt:
            return None
        self._v_hint = v.copy()
        # the rows of the near pairs the QP was not given: any that the step meets or
        # crosses (within 1e-9) is given now
        late = None  # (the rows to give, a mask over the step's rows; None: no change)
        rows = self._all_rows
        if rows is not None and not rows[3].all():
            G, h, _, taken = rows
            held = (~taken).nonzero()[0]
            met = held[G[held] @ v >= h[held] - 1e-9]
            if len(met):
                late = taken.copy()
                late[met] = True
        flagged, floor = self.scene.crossing(configuration.data, v, dt, self._budget(dt))
        if not len(flagged):
            return self._given_again(configuration, dt, late)
        # the pairs the bounds flag, measured (GJK once per step): their distance after the
        # step to first order, less what tilting a face contact may add (the tilt rows' lever)
        probed = self._probed
        if probed is None or probed[0] != pending:
            probed = self._probed = (pending, np.full(len(self.scene.pairs), -1), None)
        where, known = probed[1], probed[2]
        new = flagged[where[flagged] < 0]
        if len(new):
            found = self.scene.pair_distances(configuration.data, new)
            start = 0 if known is None else len(known.pairs)
            where[new] = start + np.arange(len(new))
            known = found if known is None else _joined(known, found)
            self._probed = (pending, where, known)
        assert known is not None
        at = where[flagged]
        turn = np.abs(known.turn[at] @ v).sum(axis=1)  # (the tilt rows' |t_1·ω| + |t_2·ω|)
        after = known.distance[at] + dt * (known.gradient[at] @ v - known.lever[at] * turn)
        need = np.flatnonzero(after < floor)
        if not len(need):
            return self._given_again(configuration, dt, late)
        self.scene.mark_rows(flagged[need])
        extra = _picked(known, at[need])
        first_new = 0 if self._last is None else len(self._last.pairs)
        near = _joined(self._last, extra) if self._last is not None else extra
        given = np.zeros(0, dtype=int)
        if self._all_rows is not None:
            given = self._all_rows[2][self._all_rows[3] if late is None else late]
        return self._step_rows_of(
            configuration, dt, near, pending[0], False, lazy=True, given=given, first_new=first_new
        )

    def _given_again(
        self, configuration: Configuration, dt: float, taken: np.ndarray | None
    ) -> Inequalities | None:
        """The rows of the step, the QP given those of the mask ``taken`` (None: no change)."""
        if taken is None or self._all_rows is None:
            return None
        G, h, ident, _ = self._all_rows
        self._all_rows = (G, h, ident, taken)
        assert self._step_rows is not None
        self._row_pairs = self._step_rows[6][taken]
        return G[taken], h[taken]

    def _obstacle_poses(self) -> list[np.ndarray]:
        return [o.pose.homogeneous.copy() for o in self.scene.obstacles]

    def _loss_at(self, configuration: Configuration, near: PairDistances) -> np.ndarray | None:
        """The second-order loss of the pairs of ``near`` measured by the last
        :meth:`compute_inequalities` when it was at this same ``q`` (0 for pairs it did not
        see), else None: a second call at one q measures no new step."""
        previous = self._previous
        if (
            previous is None
            or previous[0] != self.scene.generation
            or previous[1].tobytes() != configuration.q.tobytes()
        ):
            return None
        loss = np.zeros(len(near.pairs))
        now, then = _common(near.pairs, previous[2].pairs, len(self.scene.pairs))
        loss[now] = previous[3][then]
        return loss

    def _second_order(
        self, configuration: Configuration, near: PairDistances, motion: np.ndarray | None
    ) -> np.ndarray:
        """Per pair of ``near``: how much closer (m, ≥ 0, at most the buffer) the pair came in
        the last step than its row predicted to first order, ``d_now − (d + g·(q_now ⊖ q))``
        less the obstacle's own motion (``motion``, None without obstacles); 0 for pairs not
        evaluated at the last step.

        The rows are first order; a link swung fast along a surface loses about ``½ a dt²``
        per step to the curvature of its path (0.17 mm on the Panda at 2.6 rad/s), which a
        pair held at the edge of the buffer would add up step after step. Like an obstacle's
        motion, the last step's loss is assumed to repeat and the row asks for it back."""
        loss = np.zeros(len(near.pairs))
        previous = self._previous
        if previous is None or previous[0] != self.scene.generation or not len(near.pairs):
            return loss
        _, q_before, before, _ = previous
        if not len(before.pairs) or q_before.shape != configuration.q.shape:
            return loss
        now, then = _common(near.pairs, before.pairs, len(self.scene.pairs))
        if not len(now):
            return loss
        step = pin.difference(self.model, q_before, configuration.q)
        predicted = before.distance[then] + before.gradient[then] @ step
        error = near.distance[now] - predicted
        if motion is not None:
            error -= motion[now]
        loss[now] = np.clip(-error, 0.0, self.buffer)
        return loss

    def clearance(self, configuration: Configuration) -> float:
        """``min d − d_s`` over every monitored pair (m): negative when a pair is closer
        than the safety distance; +inf without pairs."""
        every = self.distances(configuration, all_pairs=True).distance
        return float(every.min()) - self.safety_distance if len(every) else np.inf

    def _rows(
        self,
        near: PairDistances,
        dt: float,
        extra: np.ndarray | None,
        motion: np.ndarray | None = None,
        tilt: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(G, h, pair)`` of the near pairs (``pair[i]``: the pair of ``near`` that row ``i``
        keeps); ``extra`` (per pair, m/s) is added to ``h`` before the separation cap: the
        second-order loss of the last step, negated (see :meth:`_second_order`); ``motion``
        (per pair, m/s) after it: the obstacles' predicted motion ``n·δ_b / dt``. The cap
        bounds what the robot is asked to do by itself; an obstacle that approaches faster
        than the robot can escape makes the row infeasible, so that the step relaxes it and
        names the pair, rather than letting the obstacle through unreported.

        Per pair, the damper row and, unless a body is a sphere,
        four rows ``(g_a − g_b) v ± ℓ t_1·ω_rel ± ℓ t_2·ω_rel ≤ h``: tilting the two bodies
        against each other must be paid for by moving apart, since a rotation of a face
        contact brings a point up to the lever ``ℓ`` from the closest one nearer by ``ℓ θ``
        (first order, which the closest points alone do not see). Not with long steps
        (``tilt=False``: ``solve_posture``, whose search halves a step that crosses)."""
        n = len(near.distance)
        # the damper rows' h and (second row) the tilt rows' of a pair closer than d_s, in one
        # array: each operation below acts on both
        both = np.empty((2, n))
        h, held = both
        np.subtract(near.distance, self.safety_distance, out=h)
        h -= self.buffer
        h *= self._rate(dt)
        # Inside the buffer (d_s ≤ d < d_s + buffer) the tilt rows, which pay for any rotation
        # of a face contact, may leave no way to separate (a link moved by two joints only):
        # such a pair is held (h = 0) with its tilt rows; closer than d_s its damper row pushes
        # it out (alone, always feasible, see below) while its tilt rows hold it (``held``).
        inside = near.distance < self.safety_distance
        # the tilt rows of a pair closer than d_s hold it where it is (h ≥ 0 before the
        # obstacle's motion): tilting a face contact must not bring any of its points nearer
        np.maximum(h, 0.0, out=held)
        levered = near.lever > 0
        if tilt:
            np.maximum(h, 0.0, out=h, where=levered & ~inside)
        if extra is not None:
            both += extra
        G = -near.gradient
        # a pair closer than it should be separates at most at ξ m/s, and at most at half the
        # rate the model's velocity limits allow along its gradient: alone, a row is feasible
        reach = np.abs(G) @ self._v_max
        reach *= 0.5
        np.minimum(reach, self.speed, out=reach)
        np.negative(reach, out=reach)
        np.maximum(both, reach, out=both)
        if motion is not None:
            both += motion
        tilted = levered.nonzero()[0] if tilt else _NONE
        if not len(tilted):
            return G, h, np.arange(n)
        pair = np.concatenate([np.arange(n), np.repeat(tilted, 4)])
        # the four rows of a tilted pair, g ± ℓ t_1·ω_rel ± ℓ t_2·ω_rel, from one product
        t = len(tilted)
        rows = np.empty((n + 4 * t, G.shape[1]))
        rows[:n] = G
        faces = rows[n:].reshape(t, 4, G.shape[1])
        h_all = np.empty(n + 4 * t)
        h_all[:n] = h
        tilt_h = np.where(inside, held, h)
        # (every pair tilted, as with hulls, boxes and capsules: views, no gather)
        sel: slice | np.ndarray = slice(None) if t == n else tilted
        np.matmul(_SIGNS, near.lever[sel, None, None] * near.turn[sel], out=faces)
        faces += G[sel, None, :]
        h_all[n:].reshape(t, 4)[:] = tilt_h[sel, None]
        return rows, h_all, pair

    def row_names(self) -> list[str]:
        """The pairs of the rows last returned by :meth:`compute_inequalities`."""
        if self._last is None or not len(self._last.pairs):
            return []
        names = self._last_names
        return [names[self._last.pairs[k]] for k in self._row_pairs]

    def report(
        self, configuration: Configuration, v: np.ndarray | None = None, dt: float = 1.0
    ) -> CollisionReport:
        """The pairs within the detection distance, closest first; with the step ``v``
        (and its ``dt``), which rows it makes active (``G v ≥ h − 1e-9``).

        Called with ``v`` at the configuration, obstacle poses and ``dt`` of the last
        :meth:`compute_inequalities` (the step just solved), the report reads that step's
        own rows: its pairs are those that had rows (the detection distance widened by the
        lookahead, see :meth:`taskik.geometry.CollisionScene.near_pairs`), and the flags are
        those of the rows the step met."""
        dt = check_positive_scalar(dt, "dt")
        if v is not None:
            v = check_finite_array(v, "v", (self.model.nv,))
        self._check(configuration)
        same = self._step_rows
        if (
            v is not None
            and same is not None
            and same[0] == configuration.q.tobytes()
            and same[2] == dt
            and len(same[1]) == len(self.scene.obstacles)
            and all(
                np.array_equal(a, b) for a, b in zip(same[1], self._obstacle_poses(), strict=True)
            )
        ):
            near, G, h, pair = same[3:]
            order = np.argsort(near.distance)
            binding = G @ v >= h - 1e-9
            active = np.bincount(pair[binding], minlength=len(order)).astype(bool)[order]
            return self._report(near, order, active)
        near = self.distances(configuration)
        order = np.argsort(near.distance)
        active = np.zeros(len(order), dtype=bool)
        if v is not None and len(order):
            loss = self._loss_at(configuration, near)  # the step's rows asked it back too
            # the obstacles' motion of this step, read without starting a new one
            motion = self.scene.obstacle_motion(
                near, configuration.q.tobytes(), commit=False, predict=True
            )
            G, h, pair = self._rows(near, dt, None if loss is None else -loss / dt, motion / dt)
            binding = G @ v >= h - 1e-9
            active = np.bincount(pair[binding], minlength=len(order)).astype(bool)[order]
        return self._report(near, order, active)

    def _report(
        self, near: PairDistances, order: np.ndarray, active: np.ndarray
    ) -> CollisionReport:
        segments = np.stack([near.point_a, near.point_b], axis=1)[order]
        return CollisionReport(
            tuple(self.scene.names[k] for k in near.pairs[order]),
            near.distance[order],
            active,
            segments,
            len(self.scene.pairs),
            self.safety_distance,
        )


def _common(now: np.ndarray, then: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the pair indices (each unique, below ``count``) of ``now`` and ``then`` meet:
    ``(i, j)`` with ``now[i] == then[j]``."""
    if len(now) == len(then) and (now == then).all():  # (the same pairs: most steps)
        i = np.arange(len(now))
        return i, i
    where = np.empty(count, dtype=np.intp)
    where.fill(-1)
    where[then] = np.arange(len(then))
    at = where[now]
    i = (at >= 0).nonzero()[0]
    return i, at[i]


#: The signs of the tangents' terms in the four tilt rows of a pair.
#: The QP of a checked step is given the rows whose slack at the last step solved is below
#: this share of the speed ξ (Talos, hand to hip: 25 rows of 145, solved again after the
#: check in 5 % of the steps; at 0.5: 65 rows, 2 %; at 0.1: 18 rows, 14 %).
_TAKE = 0.25

#: The kinds of the four tilt rows of a pair (0: its damper row), in a row's identity.
_KINDS = np.arange(1, 5)

_SIGNS = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])

#: No tilted pair.
_NONE = np.zeros(0, dtype=int)

_FIELDS = ("pairs", "distance", "point_a", "point_b", "normal", "gradient", "turn", "lever")


def _picked(a: PairDistances, which: np.ndarray) -> PairDistances:
    """The pairs ``which`` (positions) of ``a``."""
    return PairDistances(*(getattr(a, f)[which] for f in _FIELDS))


def _joined(a: PairDistances, b: PairDistances) -> PairDistances:
    """The pairs of ``a`` followed by those of ``b``."""
    return PairDistances(*(np.concatenate([getattr(a, f), getattr(b, f)]) for f in _FIELDS))
