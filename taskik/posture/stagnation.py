"""When a search stops making progress: the one stagnation rule of every search loop (the
single-pose loop applies it inline, in the same floating-point operations)."""

from __future__ import annotations

import math


class Stagnation:
    """True once E has gone ``patience`` iterations in a row without dropping below
    ``(1 − fraction) × E_ref``, where ``E_ref`` is the E of the last such drop (the first E
    of the search to begin with).

    Measured against the last *significant* drop, a slow but steady descent (each step a
    little less than ``fraction``) still counts as progress once the drops add up.
    Scale-free: feeding ``2E`` instead of ``E`` gives the same answers.
    """

    __slots__ = ("keep", "patience", "reference", "since")

    def __init__(self, fraction: float, patience: int) -> None:
        self.keep = 1.0 - fraction
        self.patience = patience
        self.reference = math.inf
        self.since = 0

    def __call__(self, E: float) -> bool:
        if self.reference * self.keep > E:
            self.reference = E
            self.since = 0
            return False
        self.since += 1
        return self.since >= self.patience
