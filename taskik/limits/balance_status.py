"""The balance of a configuration as a report reads it (:meth:`taskik.BalanceLimit.status`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BalanceStatus:
    """How balanced a configuration is, for reports (:meth:`taskik.BalanceLimit.status`).

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
