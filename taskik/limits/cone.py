"""Keep an axis of a frame inside a cone about a world direction."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..configuration import Configuration
from ..exceptions import InvalidInput, check_scalar
from ..tasks._frames import FrameName
from ..tasks.axis_alignment import frame_axis, unit_vector
from .limit import Inequalities, Limit

#: ``‖a × d‖`` below which the axis is taken as exactly opposite the cone's direction.
_ANTIPODAL = 1e-9
#: rate (rad per unit of v) below which the joints cannot turn the axis toward the direction.
_STUCK = 1e-9


class ConeLimit(Limit):
    """The axis ``a = R(q) a_f`` of a frame stays within ``half_angle`` α of a direction ``d``.

    The round cone is replaced by the pyramid of ``faces`` planes inscribed in it (its edges
    on the cone, so the axis never leaves the round cone; between the edges it stays within
    ``α' = atan(tan α cos(π/faces))``). Face i, with the unit tangent
    ``t_i = cos φ_i e₁ + sin φ_i e₂ ⊥ d`` (``φ_i = 2π i / faces``), has the normal
    ``n_i = cos α' t_i − sin α' d`` and the margin ``h_i(q) = −n_iᵀ a ≥ 0`` inside
    (``h_i = sin α'`` with the axis on ``d``). A velocity damper keeps each margin: a step
    may use at most the fraction ``gain`` of it, linearised,

        ḣ_i dt ≥ −gain · h_i,   ḣ_i = −n_iᵀ J_a v,   J_a = −R [a_f]× J_ω

    (``J_ω``: angular rows of the LOCAL frame Jacobian), the rows ``n_iᵀ J_a v ≤ gain h_i / dt``.
    Unlike ``dᵀa ≥ cos α``, whose rate vanishes with the axis on ``d``, each face has a
    non-zero rate there, so a large step cannot jump across the cone.

    Outside the pyramid (some ``h_i < 0``; the faces' rows together can then be
    infeasible, e.g. with the axis opposite ``d``), one row instead brings the angle
    ``θ = arccos(dᵀa)`` back toward the cone's inscribed circle α', a fraction ``gain`` per
    step: ``θ̇ dt ≤ −gain (θ − α')``. The angle turns at ``θ̇ = −uᵀ ω`` with the world angular
    velocity ``ω = R J_ω v`` and ``u = (a × d)/‖a × d‖`` the axis that turns ``a`` toward
    ``d``, so the row is ``−uᵀ R J_ω v ≤ −gain (θ − α') / dt``. Its coefficients stay of the
    size of the frame's angular velocity however close the axis comes to ``−d`` (the rate of
    the cosine ``dᵀa`` vanishes there, a row on it would ask for a velocity growing like
    ``1/sin θ``). With the axis exactly opposite ``d`` (``‖a × d‖ < 1e-9``) every ``u ⊥ d``
    turns ``a`` toward ``d`` (``θ̇ ≤ −uᵀω`` for each): the row takes the one the joints can
    turn about fastest (the top left singular vector of ``[e₁ e₂]ᵀ R J_ω``). Where the joints
    cannot turn the axis toward ``d`` at all (``‖uᵀ R J_ω‖ < 1e-9`` rad per unit of ``v``: a
    frame stuck or turning only about ``a`` or ``d``) the bound is relaxed to 0 (``v = 0``
    meets it). Alone, the limit is therefore never infeasible.

    Args:
        frame: frame name.
        axis: the axis in the frame's coordinates (normalised).
        direction: the cone's axis in the world (normalised).
        half_angle: α in rad, in (0, π/2).
        gain: fraction of the margin a step may use, in (0, 1].
        faces: number of planes of the pyramid, 3 to 1024 (each one a row; 8 by default:
            α' = 0.92 α for small α).
    """

    frame = FrameName()
    hard = False
    name = "cone"

    def __init__(
        self,
        frame: str,
        axis: npt.ArrayLike,
        direction: npt.ArrayLike,
        half_angle: float,
        gain: float = 0.5,
        faces: int = 8,
    ) -> None:
        self.frame = frame
        self.axis = unit_vector(axis, "axis")
        self.direction = d = unit_vector(direction, "direction")
        self.half_angle = check_scalar(
            half_angle, "half_angle", 0.0, math.pi / 2, low_open=True, high_open=True
        )
        self.gain = check_scalar(gain, "gain", 0.0, 1.0, low_open=True)
        if (
            not isinstance(faces, int | np.integer)
            or isinstance(faces, bool)
            or not 3 <= faces <= 1024
        ):
            raise InvalidInput(f"faces must be an integer in [3, 1024], got {faces!r}")
        self.faces = int(faces)
        inner = math.atan(math.tan(self.half_angle) * math.cos(math.pi / self.faces))
        e1 = np.cross(d, [1.0, 0.0, 0.0] if abs(d[0]) < 0.9 else [0.0, 1.0, 0.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(d, e1)
        phi = 2.0 * np.pi * np.arange(self.faces) / self.faces
        tangents = np.outer(np.cos(phi), e1) + np.outer(np.sin(phi), e2)
        #: face normals n_i (faces × 3)
        self.normals = math.cos(inner) * tangents - math.sin(inner) * d
        self._inner = inner
        self._plane = np.vstack([e1, e2])

    def margins(self, configuration: Configuration) -> np.ndarray:
        """``h_i = −n_iᵀ a`` of every face, shape (faces,): all ≥ 0 inside the cone."""
        return -(self.normals @ frame_axis(configuration, self.frame, self.axis)[0])

    def compute_inequalities(self, configuration: Configuration, dt: float) -> Inequalities:
        a, J_a, _, _ = frame_axis(configuration, self.frame, self.axis)
        margins = -(self.normals @ a)
        if margins.min() >= 0.0:
            return self.normals @ J_a, margins * (self.gain / dt)
        d = self.direction
        fid = self.frame.id(configuration)
        J_w = configuration.data.oMf[fid].rotation @ configuration.get_frame_jacobian(fid)[3:]
        cross = np.cross(a, d)
        sin = float(np.linalg.norm(cross))
        theta = math.atan2(sin, float(d @ a))
        if sin >= _ANTIPODAL:
            row = -(cross / sin) @ J_w
        else:  # a = −d: any u ⊥ d turns a toward d, take the fastest one
            plane = self._plane  # (2, 3): e₁, e₂
            U, _, _ = np.linalg.svd(plane @ J_w, full_matrices=False)
            row = -(U[:, 0] @ plane) @ J_w
        bound = -self.gain * (theta - self._inner) / dt
        if float(row @ row) < _STUCK**2:
            bound = 0.0
        return row.reshape(1, -1), np.array([bound])

    def __repr__(self) -> str:
        return (
            f"ConeLimit({self.frame.name!r}, axis={self.axis.tolist()}, "
            f"direction={self.direction.tolist()}, half_angle={self.half_angle})"
        )
