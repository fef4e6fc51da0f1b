"""Keep the centre of mass where the contacts can hold it: static balance as a limit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..contacts.contact import MAX_COORDINATE, Contact, check_edges
from ..contacts.equilibrium import (
    ContactSet,
    SupportRegion,
    check_contacts,
    edge_distances,
    polygon,
    support_region,
)
from ..contacts.hull import drifted_hull
from ..exceptions import (
    InvalidInput,
    check_finite_array,
    check_positive_scalar,
    check_scalar,
    real_scalar,
)
from .balance_status import BalanceStatus
from .limit import MAX_STEP_SPEED, Inequalities, Limit, checked_step_arguments

_add, _max = np.add.reduce, np.maximum.reduce
_FLOAT64 = np.dtype(np.float64)
_is_approx = pin.SE3.isApprox
_SPEED_SQUARED = MAX_STEP_SPEED**2  # (1e200: a float)

#: In a step whose solved velocity is checked (:meth:`BalanceLimit.expect_check`, as
#: :func:`taskik.solve_ik` does), the edges farther than this (m) beyond ``margin`` give no
#: row: the solved step is checked against them instead, and those it would cross get their
#: rows before the step is solved again. One step moves the CoM far less than this toward an
#: edge (with ``gain`` ½, an edge's row binds only when a step covers half its distance).
CHECKED_DISTANCE = 0.02

#: How far (m) the CoM may move before the edges within CHECKED_DISTANCE are found again.
HYSTERESIS = 0.005
_HYSTERESIS_SQUARED = HYSTERESIS**2


class BalanceLimit(Limit):
    """The centre of mass's ground projection ``c = (c_x, c_y)`` stays inside the region of
    static equilibrium of the contacts, shrunk by ``margin``.

    The region is the polygon ``{c : n_iᵀ c ≤ b_i}`` of
    :func:`taskik.contacts.support_region`: the support polygon (hull of the contact points)
    for flat, coplanar contacts; for contacts on several surfaces, the CoM positions that
    forces inside the linearised friction cones can hold against gravity (Bretl and Lall,
    "Testing static equilibrium for legged robots", 2008). With the distance to edge ``i``,
    ``h_i(q) = b_i − margin − n_iᵀ c(q)`` (m), a velocity damper lets a step use at most the
    fraction ``gain`` of it (as the collision and cone limits do):

        ḣ_i dt ≥ −gain · h_i,   ḣ_i = −n_iᵀ J_xy v,

    the rows ``n_iᵀ J_xy v ≤ gain · h_i / dt`` (``J_xy``: the first two rows of the CoM
    Jacobian). Outside the shrunk region (``h_i < 0``) the same rows ask for the way back at
    that rate. The region is computed again only when the contacts' world points or normals
    moved by more than ``tolerance`` (m): held feet do not pay for it at every step, and the
    region used lags the true one by at most ``tolerance``.

    Static balance holds for slow motion. A floating base without a velocity limit lets a
    first-order step move the CoM by decimetres in one step (an arm reaching far: the base
    spins at tens of rad/s), and the linear rows cannot see that far: bound the base
    (:class:`~taskik.BaseVelocityLimit`, e.g. 1 m/s and 2 rad/s) when the targets may be
    far. Measured on 500 seeded humanoid problems of 200 steps (``benchmarks/balance.py``):
    with such a bound, no step put the CoM more than 1 mm outside the region; without it,
    one step did (1.4 mm, a G1 loop with a hand on a table), every final posture stable.

    As in Faverjon and Tournassoud's velocity damper ("A local based approach for path
    planning of manipulators with a high number of degrees of freedom", ICRA 1987), the rows
    can be limited to the edges within an influence distance, ``h_i < detection_distance``:
    away from every edge the step then has no inequality rows and costs what it costs
    without the limit. A step that moves the CoM by more than ``detection_distance`` toward
    an edge would pass its row unseen, so by default every edge has its row
    (``detection_distance=math.inf``).

    :func:`taskik.solve_ik` announces that it checks the solved step
    (:meth:`expect_check`): the rows are then those of the edges within
    ``CHECKED_DISTANCE`` (2 cm) beyond ``margin``, and :meth:`check_step` tests the
    solved ``v`` against the others, ``n_iᵀ J_xy v ≤ gain · h_i / dt`` (a product with the
    CoM velocity ``J v``); the rows of those it breaks are added and the QP solved again. A
    row the solved step keeps does not change the solution of the (strictly convex) QP: the
    step is the one of every row. Priority levels, :func:`taskik.solve_posture` and callers
    of ``compute_inequalities`` announce nothing and get every row; with a finite
    ``detection_distance`` the rows are those within it, announced or not. (Which edges are
    near is found again when the CoM moved by more than ``HYSTERESIS``, 5 mm, from where it
    was found; the edges farther are checked against a lower bound on their distances first,
    ``‖J_xy v‖ ≤ gain · min h_i / dt``, then one by one.)

    Args:
        contacts: the :class:`~taskik.Contact` objects the robot stands on (their points and
            normals are read here: make a new limit for contacts changed afterwards).
        margin: distance (m) kept from the region's edges, in [0, 1e6].
        gain: fraction of the distance a step may use, in (0, 1].
        edges: generators per friction pyramid (3 to 64).
        tolerance: contact motion (m) below which the region is reused, in [0, 1e6].
        detection_distance: edges farther than this (m) beyond ``margin`` give no row, > 0
            (every edge has its row by default).
    """

    hard = False
    name = "balance"
    #: the rows are k × nv by construction; a NaN CoM (hence NaN rows) raises InvalidInput
    well_formed = True

    def __init__(
        self,
        contacts: Sequence[Contact],
        margin: float = 0.01,
        gain: float = 0.5,
        edges: int = 8,
        tolerance: float = 1e-3,
        detection_distance: float = math.inf,
    ) -> None:
        self.contacts = check_contacts(contacts)
        self.margin = check_scalar(margin, "margin", 0.0, MAX_COORDINATE)
        self.gain = check_scalar(gain, "gain", 0.0, 1.0, low_open=True)
        self.edges = check_edges(edges)
        self.tolerance = check_scalar(tolerance, "tolerance", 0.0, MAX_COORDINATE)
        self.detection_distance = real_scalar(detection_distance, "detection_distance")
        if not self.detection_distance > 0.0:
            raise InvalidInput(
                f"detection_distance must be > 0 (m), got {self.detection_distance!r}"
            )
        # Each contact's points in its frame, homogeneous, padded to the same count with
        # copies of its first point (a copy moves as that point does): (n, 4, k). With the
        # frames' placements H (n, 4, 4), the world points are H @ X, and a point's motion
        # since the region was computed is (H − H₀) @ X: one batched product per step.
        self._sizes = [len(c.points) for c in self.contacts]
        k = max(self._sizes)
        self._local = np.stack(
            [
                np.vstack([np.vstack([c.points, np.repeat(c.points[:1], k - n, 0)]).T, np.ones(k)])
                for c, n in zip(self.contacts, self._sizes, strict=True)
            ]
        )
        # the normals are the surfaces', fixed in the world: flat contacts stay flat, and
        # their region is the hull of the points (support_region's first case)
        self._flat = ContactSet.from_points(
            [c.points for c in self.contacts], self.contacts
        ).is_flat()
        self._placements: np.ndarray | None = None  # (n, 4, 4): the frames' H₀ of the region
        self._region: SupportRegion | None = None  # the region in use
        self._version = 0  # counts the regions computed
        # (version, margin, gain, dt) of the rows' constant parts, and those parts: the
        # normals with a zero third column N₃ (k × 3), s N₃ and s (b − margin), s = gain / dt
        self._scaled_for: tuple[int, float, float, float] | None = None
        self._scaled: tuple[np.ndarray, ...] = (np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0))
        self._names: list[str] = []  # the edges' row names, made when first asked for
        self._named: SupportRegion | None = None  # the region they name
        self._rows: np.ndarray | tuple[int, ...] = ()
        self._frame_names = tuple(c.frame.name for c in self.contacts)
        # per contact, the largest distance (m) of its points from its frame's origin
        self._radii = np.sqrt((self._local[:, :3] ** 2).sum(axis=1).max(axis=1)).tolist()
        # per contact, the first three rows of H₀ as 12 Python floats (the fast test of region())
        self._anchors: list[tuple[float, ...]] = []
        # per contact, H_c, and the precision of the first test of region() (_checkpoint)
        self._tests: tuple[list[pin.SE3], list[float]] = ([], [])
        self._split: tuple[Any, ...] | None = None  # the near edges (see _near_edges)
        # whether the next compute_inequalities is announced (expect_check), and what
        # check_step tests then: (q bytes, dt, CoM, (N₃, s N₃, s (b − margin)), a lower
        # bound on the far edges' s h, a mask of the far edges, the rows given)
        self._expect = False
        self._pending: tuple[Any, ...] | None = None
        self._points: list[np.ndarray] = []  # the contacts' world (x, y) of the region in use
        # (region, points) of the region in use, and of the last rows (which name_rows names)
        self._source: tuple[SupportRegion, list[np.ndarray]] | None = None
        self._used: tuple[SupportRegion, list[np.ndarray]] | None = None
        self._all_rows: np.ndarray = np.zeros(0, dtype=int)
        # flat contacts: the hull's vertex order among the stacked points (drifted_hull)
        self._hull: tuple[np.ndarray, np.ndarray] | None = None

    def region(self, configuration: Configuration) -> SupportRegion:
        """The static-equilibrium region of the contacts at ``configuration`` (reused while
        no contact point moved by more than ``tolerance``)."""
        if type(configuration) is not Configuration:
            configuration = check_configuration(configuration, "BalanceLimit")
        # the contact frames' placements, read where each update writes them (looked up by
        # name once per configuration, in its own name → index map)
        frames = configuration._placements(self._frame_names)
        region = self._region
        # sufficient tests first (what they do not pass, the exact test below decides; NaN
        # passes none). Each frame within its checkpoint's precision (see _checkpoint): one
        # Pinocchio call per contact, what held feet pass at most steps
        if region is not None and all(map(_is_approx, frames, *self._tests)):
            return region
        placed = [frame.homogeneous for frame in frames]
        if region is not None:
            # on Python floats: a point x of the frame moved by ‖(R − R₀) x + t − t₀‖ ≤
            # ‖R − R₀‖_F ‖x‖ + ‖t − t₀‖; passed, the placements are the new checkpoints
            tolerance = self.tolerance
            moves = []
            for H, anchor, radius in zip(placed, self._anchors, self._radii, strict=True):
                (a, b, c, t), (d, e, f, u), (g, k, m, w), _ = H.tolist()
                a0, b0, c0, t0, d0, e0, f0, u0, g0, k0, m0, w0 = anchor
                a, b, c, d, e, f = a - a0, b - b0, c - c0, d - d0, e - e0, f - f0
                g, k, m, t, u, w = g - g0, k - k0, m - m0, t - t0, u - u0, w - w0
                dr = a * a + b * b + c * c + d * d + e * e + f * f + g * g + k * k + m * m
                move = math.sqrt(dr) * radius + math.sqrt(t * t + u * u + w * w)
                if not move <= tolerance:
                    break
                moves.append(move)
            else:
                self._set_checkpoints(frames, moves)
                return region
        if region is not None and self._placements is not None:
            # every contact point within ``tolerance`` of where it was when the region was
            # computed, ‖(H − H₀) x‖ ≤ tolerance (NaN placements fail the test); the ufuncs
            # called directly (their array methods add a Python call each)
            moved = np.matmul(np.subtract(placed, self._placements), self._local)
            np.multiply(moved, moved, out=moved)
            if _max(_add(moved, 1), None) <= self.tolerance**2:
                return region
        H = np.array(placed)
        world = np.matmul(H[:, :3], self._local)  # (n, 3, k)
        points = [w[:, :n].T for w, n in zip(world, self._sizes, strict=True)]
        if self._flat:  # (the checks of ContactSet on the points, then the hull)
            flat = np.vstack(points)
            if not np.abs(flat).max() <= MAX_COORDINATE:  # (NaN too)
                flat = check_finite_array(flat, "contact set points")
                raise InvalidInput(
                    f"contact set points must be within {MAX_COORDINATE:g} m of the origin"
                )
            # (held feet drift a little: the hull's vertex order is kept while it holds)
            V, self._hull = drifted_hull(flat[:, :2], self._hull)
            region = polygon(V)
        else:
            region = support_region(ContactSet.from_points(points, self.contacts), self.edges)
        self._region = region
        self._version += 1
        self._placements = H
        self._anchors = [tuple(h[:3].ravel().tolist()) for h in H]
        self._set_checkpoints(frames, [0.0] * len(frames))
        self._points = [p[:, :2] for p in points]
        self._source = (region, self._points)
        return region

    def _set_checkpoints(self, frames: list[pin.SE3], moves: list[float]) -> None:
        """The checkpoints of the contacts' frames at ``frames``, whose points moved by at
        most ``moves`` (m) since the region was computed (see :meth:`_checkpoint`)."""
        checkpoints = [
            self._checkpoint(frame, radius, move)
            for frame, radius, move in zip(frames, self._radii, moves, strict=True)
        ]
        self._tests = (
            [checkpoint for checkpoint, _ in checkpoints],
            [precision for _, precision in checkpoints],
        )

    def _checkpoint(self, placement: pin.SE3, radius: float, move: float) -> tuple[pin.SE3, float]:
        """``(H_c, p)``: a copy of a contact frame's placement ``H_c``, whose points (within
        ``radius`` of its origin) moved by at most ``move`` (m) since the region was computed,
        and the precision of the test ``H.isApprox(H_c, p)``. Pinocchio's test holds when
        ``‖R − R_c‖_F ≤ p min(‖R‖_F, ‖R_c‖_F)`` and ``‖t − t_c‖ ≤ p min(‖t‖, ‖t_c‖)``; a
        point ``x`` then moved from ``H_c`` by ``‖(R − R_c) x + t − t_c‖ ≤ p (√3 radius +
        ‖t_c‖)`` (``‖R_c‖_F = √3``), and from where it was by at most ``tolerance`` with the
        ``p`` below (1 % smaller, for rounding). A frame at the origin passes only unmoved."""
        checkpoint = pin.SE3(placement)
        reach = math.sqrt(3.0) * radius + float(np.linalg.norm(checkpoint.translation))
        budget = self.tolerance - move
        return checkpoint, 0.99 * budget / reach if reach > 0.0 and budget > 0.0 else 0.0

    def margins(self, configuration: Configuration) -> np.ndarray:
        """``h_i`` (m) of every edge: all ≥ 0 while the CoM is inside the shrunk region."""
        return self._margins(self.region(configuration), configuration.com)

    def _margins(self, region: SupportRegion, com: np.ndarray) -> np.ndarray:
        return region.offsets - self.margin - np.dot(region.normals, com[:2])

    def balance_margin(self, configuration: Configuration) -> float:
        """Signed distance (m) from the CoM's ground projection to the region's edge
        (positive inside; the ``margin`` parameter not subtracted)."""
        return self.region(configuration).signed_distance(configuration.com[:2])

    def status(self, configuration: Configuration) -> BalanceStatus:
        """The margin and the closest edge of the region at ``configuration``."""
        region = self.region(configuration)
        V = region.vertices
        c = configuration.com[:2]
        if len(V) < 3:
            return BalanceStatus(region.signed_distance(c), -1, np.zeros((2, 2)), ())
        i = int(np.argmin(region.offsets - region.normals @ c))
        if region.signed_distance(c) < 0.0:  # outside: the edge nearest to the CoM
            i = int(np.argmin(edge_distances(V, c)))
        segment = np.array([V[i], V[(i + 1) % len(V)]])
        return BalanceStatus(
            region.signed_distance(c), i, segment, self._edge_frames(segment, self._points)
        )

    def _edge_frames(self, segment: np.ndarray, points: list[np.ndarray]) -> tuple[str, ...]:
        """The contact frames with a point at an end of ``segment`` (an edge of a region),
        ``points``: the contacts' world (x, y) that made that region."""
        frames: list[str] = []
        for end in segment:
            for contact, xy in zip(self.contacts, points, strict=True):
                if np.linalg.norm(xy - end, axis=1).min() <= 2 * self.tolerance + 1e-9:
                    if contact.frame.name not in frames:
                        frames.append(contact.frame.name)
                    break
        return tuple(frames)

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities | None:
        checked, self._expect = self._expect, False
        self._pending = None
        split = self._split
        if (  # the common step: announced, the near edges and the region of the last one
            checked
            and split is not None
            and type(configuration) is Configuration
            and type(dt) is float
            and split[9] == (self._version, self.margin, self.gain, dt, self.detection_distance)
            and all(
                map(  # (the names' placements and the tests read without a call and a *)
                    _is_approx,
                    configuration._placement_refs.get(self._frame_names)
                    or configuration._placements(self._frame_names),
                    self._tests[0],
                    self._tests[1],
                )
            )
        ):
            if not configuration._com_ready:
                configuration._ensure_com()
            c = configuration._com_view
            x, y, z = c.tolist()
            dx, dy = x - split[0], y - split[1]
            moved = dx * dx + dy * dy
            if moved <= _HYSTERESIS_SQUARED and z == z:  # (NaN fails: the path below raises)
                self._used = self._source
                return self._near_rows(configuration, dt, split, (x, y, z), moved)
        if type(dt) is not float or not 0.0 < dt < math.inf:
            dt = check_positive_scalar(dt, "dt")
        region = self._region  # (region()'s first test inline: held feet pass it most steps)
        if (
            region is None
            or type(configuration) is not Configuration
            or not all(map(_is_approx, configuration._placements(self._frame_names), *self._tests))
        ):
            region = self.region(configuration)
        normals = region.normals
        if len(normals) < 3:
            raise InvalidInput(
                "the contacts hold the centre of mass nowhere (their static-equilibrium "
                "region is empty or flat): give contacts with an area, e.g. "
                "Contact.rectangle, or more of them"
            )
        self._used = self._source
        configuration._ensure_com()  # (the CoM and its Jacobian, once per update)
        J, c = configuration._jcom_view, configuration._com_view
        x, y, z = c.tolist()
        if x != x or y != y or z != z:  # (NaN masses or inertias in the model)
            raise InvalidInput(
                f"{self!r}: the centre of mass is NaN (check the model's masses and inertias)"
            )
        key = (self._version, self.margin, self.gain, dt)
        if self._scaled_for != key:
            N3 = np.zeros((len(normals), 3))
            N3[:, :2] = normals
            s = self.gain / dt
            self._scaled = (N3, s * N3, s * (region.offsets - self.margin))
            self._split = None
            self._scaled_for = key
        N3, sN3, sb = self._scaled
        detection = self.detection_distance
        if checked and detection == math.inf:  # the rows of the near edges; check_step
            # tests the others. Which edges are near is decided at a CoM position (x₀, y₀)
            # and kept while the CoM stays within HYSTERESIS of it: an edge far there (its
            # h ≥ s (CHECKED_DISTANCE + HYSTERESIS)) is still at least CHECKED_DISTANCE away.
            split = self._split  # (squares as products: a float's ** 2 costs a pow call)
            dx, dy = (x - split[0], y - split[1]) if split is not None else (0.0, 0.0)
            if split is None or dx * dx + dy * dy > _HYSTERESIS_SQUARED:
                split = self._split = self._near_edges(x, y, c, dt)
                dx = dy = 0.0
            return self._near_rows(configuration, dt, split, (x, y, z), dx * dx + dy * dy)
        # h = s (b − margin − N c): the distances to the shrunk edges, times gain / dt
        h = sb - sN3.dot(c)
        if detection == math.inf:  # every edge
            if len(self._all_rows) != len(h):
                self._all_rows = np.arange(len(h))
            self._rows = self._all_rows
            return N3.dot(J), h
        rows_far = np.flatnonzero(h < detection * (self.gain / dt))
        self._rows = rows_far
        if not len(rows_far):
            return None
        return N3[rows_far].dot(J), h[rows_far]

    def _near_rows(
        self, conf: Configuration, dt: float, split: tuple[Any, ...], com: tuple, moved: float
    ) -> Inequalities | None:
        """The rows of the near edges of ``split`` (:meth:`_near_edges`), the CoM at ``com``,
        ``moved`` (m²) from the split's; the far edges left to :meth:`check_step`."""
        slack = split[7] - split[8] * math.sqrt(moved)  # (a lower bound on the far edges' s h)
        rows = self._rows = split[2]  # (far, split[6], masks every edge but those: ≥ 3 in all)
        self._pending = (conf.q.tobytes(), dt, com, self._scaled, slack, split[6], rows)
        if not rows:
            return None  # (below: the products as array methods, without np.dot's dispatch)
        N3, sN3, sb = split[3:6]
        return N3.dot(conf._jcom_view), sb - sN3.dot(conf._com_view)

    def _near_edges(self, x: float, y: float, c: np.ndarray, dt: float) -> tuple[Any, ...]:
        """The edges within ``CHECKED_DISTANCE + HYSTERESIS`` (m) beyond ``margin`` of the CoM at
        ``(x₀, y₀)``: ``(x₀, y₀, near, N₃, s N₃, s (b − margin), far (a mask of the others), their
        least s h (inf if none), s, (version, margin, gain, dt, detection_distance))``."""
        N3, sN3, sb = self._scaled
        h = sb - np.dot(sN3, c)
        is_near = h < (CHECKED_DISTANCE + HYSTERESIS) * (self.gain / dt)
        rows = tuple(np.flatnonzero(is_near).tolist())
        far = ~is_near
        far_h = float(h[far].min()) if far.any() else math.inf
        key = (*self._scaled_for, self.detection_distance)  # type: ignore[misc]
        return x, y, rows, N3[is_near], sN3[is_near], sb[is_near], far, far_h, self.gain / dt, key

    def expect_check(self, expected: bool = True) -> None:
        """Announce that the step solved with the rows of the next ``compute_inequalities``
        will be checked (:meth:`check_step`; :func:`taskik.solve_ik` does): it then gives the
        rows of the edges within ``CHECKED_DISTANCE`` only, else of every edge (within
        ``detection_distance``). ``expect_check(False)`` withdraws an unused announcement."""
        self._expect = expected is True

    def check_step(
        self, configuration: Configuration, v: np.ndarray, dt: float
    ) -> Inequalities | None:
        """After a solve of an announced ``compute_inequalities``' rows (:meth:`expect_check`),
        whether the step ``v`` (nv) keeps the edges without rows, ``n_iᵀ J_xy v ≤ gain · h_i /
        dt``: None when it does (or the last call was not announced, or at another ``q`` or
        ``dt``), else the rows given and those of the edges it breaks (solve again with them)."""
        if not (  # announced, a float64 v (nv,) within ±MAX_STEP_SPEED, a float dt: at once
            self._pending is not None
            and type(configuration) is Configuration
            and type(v) is np.ndarray
            and v.dtype is _FLOAT64
            and type(dt) is float
            and 0.0 < dt < math.inf
            and v.ndim == 1  # (the shape (nv,) read as ndim and len: no tuple built)
            and len(v) == configuration._nv
            and v.dot(v) <= _SPEED_SQUARED  # (‖v‖ ≤ MAX_STEP_SPEED; inf, NaN, overflow fail)
        ):  # else everything checked, whatever the state (InvalidInput names the problem)
            configuration, v, dt = checked_step_arguments(
                "BalanceLimit.check_step", configuration, v, dt
            )
        return self._check_solved(configuration, v, dt)

    _validating_check = check_step  # (solve_ik calls _check_solved for its own steps)

    def _check_solved(
        self, configuration: Configuration, v: np.ndarray, dt: float
    ) -> Inequalities | None:
        """:meth:`check_step` of the solver's own step (``solve_ik`` calls it): no checks."""
        pending = self._pending
        if pending is None or pending[1] != dt or pending[0] != configuration.q.tobytes():
            return None
        _, _, com, scaled, slack, far, rows = pending  # (com: at that same q)
        if not configuration._com_ready:  # (the CoM Jacobian of that same q: read, or computed)
            configuration._ensure_com()
        J = configuration._jcom_view
        Jv = J.dot(v)  # the CoM's velocity
        u, w, _ = Jv.tolist()
        if u * u + w * w <= slack * slack and slack > 0.0:  # n_iᵀ J_xy v ≤ ‖J_xy v‖ ≤ s h_i
            return None
        N3, sN3, sb = scaled
        h = sb - sN3.dot(com)
        broken = (N3.dot(Jv) > h) & far
        if not broken.any():
            return None
        far = far & ~broken
        rows = tuple(sorted({*rows, *np.flatnonzero(broken).tolist()}))
        # (the next check of this step tests the edges left one by one)
        self._pending = (*pending[:4], -1.0, far, rows) if far.any() else None
        self._rows = rows
        return N3[list(rows)].dot(J), h[list(rows)]

    def row_names(self) -> list[str]:
        if self._used is None:
            return []
        region, points = self._used
        if self._named is not region:  # (named on demand: only error messages and reports ask)
            V = region.vertices
            self._names = [
                f"balance edge {i} ({' – '.join(frames) or 'multi-contact region'})"
                for i, frames in enumerate(
                    self._edge_frames(np.array([a, b]), points)
                    for a, b in zip(V, np.roll(V, -1, axis=0), strict=True)
                )
            ]
            self._named = region
        return [self._names[i] for i in self._rows]

    def __repr__(self) -> str:
        frames = ", ".join(repr(c.frame.name) for c in self.contacts)
        return f"BalanceLimit([{frames}], margin={self.margin})"
