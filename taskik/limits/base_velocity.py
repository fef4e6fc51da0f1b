"""Velocity caps on the robot's floating or mobile base."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.spatial import ConvexHull

from ..configuration import Configuration, check_model
from ..exceptions import InvalidInput, check_finite_array
from .limit import Box, Inequalities, Limit

#: (linear velocity indices, angular velocity indices) of v for each kind of base joint.
_BASE_PARTS = {
    "JointModelFreeFlyer": (np.arange(0, 3), np.arange(3, 6)),
    "JointModelPlanar": (np.arange(0, 2), np.arange(2, 3)),
    "JointModelTranslation": (np.arange(0, 3), np.arange(0)),
}


def inscribed_polytope(dim: int, vertices: int) -> np.ndarray:
    """Unit normals ``N`` (k × dim) and offsets: rows ``[N | b]`` with ``N x ≤ b`` the polygon
    (dim 2, ``vertices`` sides) or polyhedron (dim 3, the hull of ``vertices`` points spread
    on the sphere, a Fibonacci lattice) whose vertices lie on the unit circle or sphere: it is
    inside the unit ball, so ``N x ≤ b·cap`` implies ``‖x‖ ≤ cap``. Dim 1 is ``|x| ≤ 1``."""
    if dim == 1:
        return np.array([[1.0, 1.0], [-1.0, 1.0]])
    if dim == 2:
        angles = 2.0 * np.pi * (np.arange(vertices) + 0.5) / vertices
        normals = np.column_stack([np.cos(angles), np.sin(angles)])
        return np.column_stack([normals, np.full(vertices, math.cos(math.pi / vertices))])
    k = np.arange(vertices) + 0.5
    z = 1.0 - 2.0 * k / vertices
    phi = np.pi * (1.0 + math.sqrt(5.0)) * k
    r = np.sqrt(1.0 - z * z)
    hull = ConvexHull(np.column_stack([r * np.cos(phi), r * np.sin(phi), z]))
    eq = hull.equations  # n·x + c ≤ 0 inside, ‖n‖ = 1
    return np.column_stack([eq[:, :3], -eq[:, 3]])


class BaseVelocityLimit(Limit):
    """Caps on the base's linear (m/s) and angular (rad/s) velocity, a hard limit (pink #126).

    The base is the root joint: a free flyer (``v[:3]`` linear, ``v[3:6]`` angular), a planar
    joint (``v[:2]``, ``v[2]``) or a 3-D translation (``v[:3]``). Pinocchio's base twist in v is
    expressed in the base's own (local) frame.

    - ``shape="box"``: per-axis caps, ``|v_lin,i| ≤ linear_i``, ``|ω_i| ≤ angular_i`` (a scalar
      for every axis or one per axis). ``frame="local"`` caps the base-frame axes, a box on v
      (forward/sideways speed of a mobile base); ``frame="world"`` caps the world axes, rows
      ``±R v_lin ≤ linear`` (``R`` the base orientation, e.g. a vertical speed cap).
    - ``shape="norm"``: ``‖v_lin‖ ≤ linear``, ``‖ω‖ ≤ angular`` (scalars), as rows ``N x ≤
      b·cap`` of a polygon (planar base) or polyhedron inscribed in the ball
      (:func:`inscribed_polytope`, ``vertices`` points on the sphere): the norm cap always
      holds, and in the worst direction only the polytope's inradius (≈ 0.89 for 32 points,
      cos(π/16) ≈ 0.98 for a 16-gon) of it is reachable. A norm does not depend on the
      frame, so ``frame`` does not apply.

    Args:
        model: Pinocchio model whose root joint is the base.
        linear: linear cap(s), None for none.
        angular: angular cap(s), None for none.
        shape: ``"box"`` or ``"norm"``.
        frame: ``"local"`` or ``"world"`` (box only).
        vertices: vertices of the inscribed polygon / polyhedron (norm only), 4 to 4096
            (one row each).
    """

    hard = True
    name = "base velocity"

    def __init__(
        self,
        model: pin.Model,
        linear: npt.ArrayLike | None = None,
        angular: npt.ArrayLike | None = None,
        *,
        shape: str = "box",
        frame: str = "local",
        vertices: int = 32,
    ) -> None:
        self.model = check_model(model, "BaseVelocityLimit")
        kind = model.joints[1].shortname() if model.njoints > 1 else "none"
        if kind not in _BASE_PARTS:
            root = f"{model.names[1]!r} is a {kind}" if model.njoints > 1 else "no joints"
            raise InvalidInput(
                f"BaseVelocityLimit needs a floating or mobile base (a free flyer, planar or "
                f"translation root joint); model {model.name!r} has {root}"
            )
        if not isinstance(shape, str) or shape not in ("box", "norm"):
            raise InvalidInput(f"BaseVelocityLimit shape must be 'box' or 'norm', got {shape!r}")
        if not isinstance(frame, str) or frame not in ("local", "world"):
            raise InvalidInput(f"BaseVelocityLimit frame must be 'local' or 'world', got {frame!r}")
        if (
            isinstance(vertices, bool)
            or not isinstance(vertices, int | np.integer)
            or not 4 <= vertices <= 4096
        ):
            raise InvalidInput(
                f"BaseVelocityLimit vertices must be an integer in [4, 4096], got {vertices!r}"
            )
        if linear is None and angular is None:
            raise InvalidInput("BaseVelocityLimit needs a linear or an angular cap (or both)")
        self.shape, self.frame, self.kind = shape, frame, kind
        self.parts: list[tuple[str, np.ndarray, np.ndarray]] = []  # (what, v indices, caps)
        for what, idx, cap in zip(
            ("linear", "angular"), _BASE_PARTS[kind], (linear, angular), strict=True
        ):
            if cap is None:
                continue
            if len(idx) == 0:
                raise InvalidInput(f"a {kind} base has no angular velocity to cap")
            arr = check_finite_array(cap, f"BaseVelocityLimit {what} cap")
            allowed = ((),) if shape == "norm" else ((), (len(idx),))
            if arr.shape not in allowed or (arr < 0).any():
                per_axis = "" if shape == "norm" else f" or {len(idx)} values (one per axis)"
                raise InvalidInput(
                    f"BaseVelocityLimit {what} cap must be a scalar >= 0{per_axis} for "
                    f"shape={shape!r} on a {kind} base, got {cap!r}"
                )
            self.parts.append((what, idx, np.broadcast_to(arr, (len(idx),)).astype(float)))
        nv = model.nv
        # box (local frame): static, merged once by the assembler
        self.static = shape == "box" and (frame == "local" or kind == "JointModelTranslation")
        self.well_formed = True
        rows: list[np.ndarray] = []
        h: list[np.ndarray] = []
        if shape == "norm":
            for _, idx, caps in self.parts:
                poly = inscribed_polytope(len(idx), vertices)
                G = np.zeros((len(poly), nv))
                G[:, idx] = poly[:, :-1]
                rows.append(G)
                h.append(poly[:, -1] * caps[0])
        self._rows = (np.vstack(rows), np.concatenate(h)) if rows else None

    def compute_box(self, configuration: Configuration, dt: float) -> Box | None:
        """``(indices, −caps, caps)`` for local per-axis caps; None otherwise."""
        if not self.static:
            return None
        idx = np.concatenate([i for _, i, _ in self.parts])
        caps = np.concatenate([c for _, _, c in self.parts])
        return idx, -caps, caps

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities | None:
        """Norm caps: the polytope rows (constant); world per-axis caps: ``±R v_part ≤ caps``."""
        if self.shape == "norm":
            return self._rows
        if self.static:
            return None
        R = configuration.data.oMi[1].rotation
        G_rows, h_rows = [], []
        for _, idx, caps in self.parts:
            G = np.zeros((len(idx), self.model.nv))
            # a planar base turns about z: its (vx, vy) rotate by R[:2, :2], its yaw rate not
            G[:, idx] = R[: len(idx), : len(idx)] if len(idx) > 1 else 1.0
            G_rows += [G, -G]
            h_rows += [caps, caps]
        return np.vstack(G_rows), np.concatenate(h_rows)

    def describe_index(self, model: pin.Model, i: int) -> str:
        for what, idx, _ in self.parts:
            if i in idx:
                return f"base {what} velocity v[{i}] ({model.names[1]})"
        return super().describe_index(model, i)

    def __repr__(self) -> str:
        caps = ", ".join(f"{w}={c.tolist()}" for w, _, c in self.parts)
        return f"BaseVelocityLimit({caps}, shape={self.shape!r}, frame={self.frame!r})"
