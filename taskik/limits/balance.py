"""Keep the centre of mass where the contacts can hold it: static balance as a limit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..configuration import Configuration
from ..contacts.contact import Contact
from ..contacts.equilibrium import (
    ContactSet,
    SupportRegion,
    check_contacts,
    edge_distances,
    support_region,
)
from ..exceptions import InvalidInput, check_scalar, real_scalar
from .limit import Inequalities, Limit


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
    far. Measured on 500 seeded humanoid problems: with such a bound, no step ended more than
    1 mm past the margin; without it, a quarter of the G1 and bundled-humanoid loops did.

    As in Faverjon and Tournassoud's velocity damper ("A local based approach for path
    planning of manipulators with a high number of degrees of freedom", ICRA 1987), the rows
    can be limited to the edges within an influence distance, ``h_i < detection_distance``:
    away from every edge the step then has no inequality rows and costs what it costs
    without the limit. A step that moves the CoM by more than ``detection_distance`` toward
    an edge would pass its row unseen, so by default every edge has its row
    (``detection_distance=math.inf``).

    Args:
        contacts: the :class:`~taskik.Contact` objects the robot stands on.
        margin: distance (m) kept from the region's edges, ≥ 0.
        gain: fraction of the distance a step may use, in (0, 1].
        edges: generators per friction pyramid (≥ 3).
        tolerance: contact motion (m) below which the region is reused.
        detection_distance: edges farther than this (m) beyond ``margin`` give no row, > 0
            (every edge has its row by default).
    """

    hard = False
    name = "balance"

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
        self.margin = check_scalar(margin, "margin", 0.0)
        self.gain = check_scalar(gain, "gain", 0.0, 1.0, low_open=True)
        if not isinstance(edges, int | np.integer) or isinstance(edges, bool) or edges < 3:
            raise InvalidInput(f"edges must be an integer >= 3, got {edges!r}")
        self.edges = int(edges)
        self.tolerance = check_scalar(tolerance, "tolerance", 0.0)
        self._key: np.ndarray | None = None
        self._region: SupportRegion | None = None
        self.detection_distance = real_scalar(detection_distance, "detection_distance")
        if not self.detection_distance > 0.0:
            raise InvalidInput(
                f"detection_distance must be > 0 (m), got {self.detection_distance!r}"
            )
        self._names: list[str] = []
        self._named: SupportRegion | None = None
        self._rows: np.ndarray = np.zeros(0, dtype=int)
        self._ids: tuple[object, list[int]] | None = None
        # a contact point moves by at most (1 + its distance to the frame's origin) times the
        # largest change of an entry of the frame's placement [R | p]
        self._lever = 1.0 + max(float(np.abs(c.points).sum(axis=1).max()) for c in self.contacts)

    def region(self, configuration: Configuration) -> SupportRegion:
        """The static-equilibrium region of the contacts at ``configuration`` (reused while
        no contact point moved by more than ``tolerance``)."""
        data, frames = configuration.data, self._frame_ids(configuration)
        key = np.concatenate([data.oMf[i].homogeneous[:3].ravel() for i in frames])
        if (
            self._region is None
            or self._key is None
            or self._key.shape != key.shape
            or np.abs(self._key - key).max() * self._lever > self.tolerance
        ):
            self._region = support_region(ContactSet.of(configuration, self.contacts), self.edges)
            self._key = key
        return self._region

    def _frame_ids(self, configuration: Configuration) -> list[int]:
        """The contact frames' indices in ``configuration``'s model (looked up once)."""
        if self._ids is None or self._ids[0] is not configuration.model:
            ids = [configuration.get_frame_id(c.frame.name) for c in self.contacts]
            self._ids = (configuration.model, ids)
        return self._ids[1]

    def margins(self, configuration: Configuration) -> np.ndarray:
        """``h_i`` (m) of every edge: all ≥ 0 while the CoM is inside the shrunk region."""
        return self._margins(self.region(configuration), configuration)

    def _margins(self, region: SupportRegion, configuration: Configuration) -> np.ndarray:
        return region.offsets - self.margin - region.normals @ configuration.com[:2]

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
            region.signed_distance(c), i, segment, self._edge_frames(configuration, segment)
        )

    def _edge_frames(self, configuration: Configuration, segment: np.ndarray) -> tuple[str, ...]:
        frames: list[str] = []
        for end in segment:
            for contact in self.contacts:
                xy = contact.world_points(configuration)[:, :2]
                if np.linalg.norm(xy - end, axis=1).min() <= 2 * self.tolerance + 1e-9:
                    if contact.frame.name not in frames:
                        frames.append(contact.frame.name)
                    break
        return tuple(frames)

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities | None:
        region = self.region(configuration)
        if len(region.vertices) < 3:
            raise InvalidInput(
                "the contacts hold the centre of mass nowhere (their static-equilibrium "
                "region is empty or flat): give contacts with an area, e.g. "
                "Contact.rectangle, or more of them"
            )
        if len(self._names) != len(region.vertices) or self._named is not region:
            self._names = [
                f"balance edge {i} ({' – '.join(frames) or 'multi-contact region'})"
                for i, frames in enumerate(
                    self._edge_frames(configuration, np.array([a, b]))
                    for a, b in zip(
                        region.vertices, np.roll(region.vertices, -1, axis=0), strict=True
                    )
                )
            ]
            self._named = region
        J_xy = configuration.com_jacobian[:2]
        h = self._margins(region, configuration)
        rows = np.flatnonzero(h < self.detection_distance)
        self._rows = rows
        if not len(rows):
            return None
        return region.normals[rows] @ J_xy, h[rows] * (self.gain / dt)

    def row_names(self) -> list[str]:
        return [self._names[i] for i in self._rows if i < len(self._names)]

    def __repr__(self) -> str:
        frames = ", ".join(repr(c.frame.name) for c in self.contacts)
        return f"BalanceLimit([{frames}], margin={self.margin})"
