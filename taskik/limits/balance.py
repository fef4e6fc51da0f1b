"""Keep the centre of mass where the contacts can hold it: static balance as a limit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..configuration import Configuration, check_configuration
from ..contacts.contact import MAX_COORDINATE, Contact, check_edges
from ..contacts.equilibrium import (
    ContactSet,
    SupportRegion,
    check_contacts,
    convex_hull_2d,
    edge_distances,
    polygon,
    support_region,
)
from ..exceptions import (
    InvalidInput,
    check_finite_array,
    check_positive_scalar,
    check_scalar,
    real_scalar,
)
from .limit import Inequalities, Limit

_add, _max = np.add.reduce, np.maximum.reduce


@dataclass(frozen=True)
class BalanceStatus:
    """How balanced a configuration is, for reports (:meth:`BalanceLimit.status`).

    Attributes:
        margin: signed distance (m) from the CoM's ground projection to the region's edge,
            positive inside (the limit keeps it at least ``BalanceLimit.margin``).
        edge: index of the closest edge (its row in the limit's inequalities).
        segment: (2, 2) the edge's end points (x, y), m.
        frames: the contact frames whose points make that edge (empty when the edge comes
            from the multi-contact projection rather than from contact points).
    """

    margin: float
    edge: int
    segment: np.ndarray
    frames: tuple[str, ...]

    def __str__(self) -> str:
        where = " – ".join(self.frames) if self.frames else "multi-contact region"
        return f"balance margin {1000 * self.margin:+.1f} mm, closest edge {self.edge} ({where})"


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
        self._scaled: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros((0, 3)),
            np.zeros((0, 3)),
            np.zeros(0),
        )
        self._names: list[str] = []  # the edges' row names, made when first asked for
        self._named: SupportRegion | None = None  # the region they name
        self._rows: np.ndarray = np.zeros(0, dtype=int)
        self._ids: tuple[pin.Model, int, list[int]] | None = None
        self._points: list[np.ndarray] = []  # the contacts' world (x, y) of the region in use
        # (region, points) of the region in use, and of the last rows (which name_rows names)
        self._source: tuple[SupportRegion, list[np.ndarray]] | None = None
        self._used: tuple[SupportRegion, list[np.ndarray]] | None = None
        self._all_rows: np.ndarray = np.zeros(0, dtype=int)

    def region(self, configuration: Configuration) -> SupportRegion:
        """The static-equilibrium region of the contacts at ``configuration`` (reused while
        no contact point moved by more than ``tolerance``)."""
        if type(configuration) is not Configuration:
            configuration = check_configuration(configuration, "BalanceLimit")
        oMf = configuration.data.oMf
        placed = [oMf[i].homogeneous for i in self._frame_ids(configuration)]
        region = self._region
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
            flat = check_finite_array(np.vstack(points), "contact set points")
            if np.abs(flat).max() > MAX_COORDINATE:
                raise InvalidInput(
                    f"contact set points must be within {MAX_COORDINATE:g} m of the origin"
                )
            region = polygon(convex_hull_2d(flat[:, :2]))
        else:
            region = support_region(ContactSet.from_points(points, self.contacts), self.edges)
        self._region = region
        self._version += 1
        self._placements = H
        self._points = [p[:, :2] for p in points]
        self._source = (region, self._points)
        return region

    def _frame_ids(self, configuration: Configuration) -> list[int]:
        """The contact frames' indices in ``configuration``'s model, by name (looked up
        again for another model, or when frames were added to this one)."""
        model = configuration.model
        ids = self._ids
        if ids is None or ids[0] is not model or ids[1] != model.nframes:
            found = [configuration.get_frame_id(c.frame.name) for c in self.contacts]
            self._ids = ids = (model, model.nframes, found)
        return ids[2]

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
        if type(dt) is not float or not 0.0 < dt < math.inf:
            dt = check_positive_scalar(dt, "dt")
        region = self.region(configuration)
        normals = region.normals
        if len(normals) < 3:
            raise InvalidInput(
                "the contacts hold the centre of mass nowhere (their static-equilibrium "
                "region is empty or flat): give contacts with an area, e.g. "
                "Contact.rectangle, or more of them"
            )
        self._used = self._source
        J = configuration.com_jacobian  # (computes the CoM too)
        c = configuration.data.com[0]
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
            self._scaled_for = key
        N3, sN3, sb = self._scaled
        # h = s (b − margin − N c): the distances to the shrunk edges, times gain / dt
        h = sb - np.dot(sN3, c)
        if self.detection_distance == math.inf:  # every edge (np.dot: the cheapest product)
            if len(self._all_rows) != len(h):
                self._all_rows = np.arange(len(h))
            self._rows = self._all_rows
            return np.dot(N3, J), h
        rows = np.flatnonzero(h < self.detection_distance * (self.gain / dt))
        self._rows = rows
        if not len(rows):
            return None
        return np.dot(N3[rows], J), h[rows]

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
