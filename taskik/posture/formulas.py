"""The step of each method (Haviland & Corke, "Manipulator Differential Kinematics", part 1,
eqs. 45–51) on the weighted system ``A Δq ≈ c`` (``A = W J``, ``c = W e``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..exceptions import InvalidInput, check_finite_array, check_scalar

METHODS = (
    "nr",
    "nr-pinv",
    "gn",
    "gn-pinv",
    "lm-wampler",
    "lm-chan",
    "lm-sugihara",
    "qp",
)

#: Default λ of each damped method (Wampler: λ; Chan: λ; Sugihara: w̄; QP: Chan's λ).
DEFAULT_DAMPING = {"lm-wampler": 1e-4, "lm-chan": 0.1, "lm-sugihara": 1e-3, "qp": 0.1}

#: The Levenberg–Marquardt methods (a damping matrix ``W_n`` on the diagonal).
LM_METHODS = ("lm-wampler", "lm-chan", "lm-sugihara")


def damping_matrix(method: str, E: float, nv: int, damping: float | np.ndarray) -> np.ndarray:
    """The damping matrix ``W_n`` of a Levenberg–Marquardt method (Haviland & Corke 49–51).

    - ``lm-wampler``: ``W_n = λ I``;
    - ``lm-chan``: ``W_n = λ E I``;
    - ``lm-sugihara``: ``W_n = E I + diag(w̄)`` (``damping`` = w̄, scalar or nv-vector);
    - ``gn``/``nr`` and their pinv variants: ``0``.

    ``E = ½ eᵀW_e e`` is the weighted error (>= 0), ``nv`` the number of velocity coordinates.

    Raises:
        InvalidInput: an unknown method, a negative or non-integer ``nv``, a negative or
            non-finite ``E`` or damping.
    """
    _check_method(method)
    nv = _check_nv(nv)
    E = check_scalar(E, "E (weighted error)", 0.0)
    return _damping_matrix(method, E, nv, _check_given_damping(method, damping, nv))


def _damping_matrix(method: str, E: float, nv: int, damping: float | np.ndarray) -> np.ndarray:
    """:func:`damping_matrix` on checked arguments (the solvers' inner loop)."""
    if method == "lm-wampler":
        return float(damping) * np.eye(nv)
    if method in ("lm-chan", "qp"):
        return float(damping) * E * np.eye(nv)
    if method == "lm-sugihara":
        return E * np.eye(nv) + np.diag(np.broadcast_to(np.asarray(damping, float), (nv,)))
    return np.zeros((nv, nv))


def step_direction(
    method: str, A: np.ndarray, c: np.ndarray, E: float, damping: float | np.ndarray
) -> np.ndarray:
    """One step ``Δq`` of ``method`` for the weighted system ``A Δq ≈ c``.

    ``A = W J`` (m × nv) and ``c = W e`` (m) (so ``AᵀA = JᵀW_eJ`` and ``Aᵀc = JᵀW_e e`` with
    ``W_e = W²``). Raises ``np.linalg.LinAlgError`` when the matrix to invert is singular.

    Raises:
        InvalidInput: an unknown method, ``A`` not a finite matrix, ``c`` not a finite vector
            of ``A``'s row count, a negative or non-finite ``E`` or damping.
    """
    _check_method(method)
    A = check_finite_array(A, "A (weighted task Jacobian)")
    if A.ndim != 2 or A.shape[1] == 0:
        raise InvalidInput(f"A (weighted task Jacobian) must be an m x nv matrix, got {A.shape}")
    c = check_finite_array(c, "c (weighted task error)")
    if c.shape != (A.shape[0],):
        raise InvalidInput(
            f"c (weighted task error) must have shape ({A.shape[0]},) like A's rows, got {c.shape}"
        )
    E = check_scalar(E, "E (weighted error)", 0.0)
    return _step_direction(method, A, c, E, _check_given_damping(method, damping, A.shape[1]))


def _step_direction(
    method: str, A: np.ndarray, c: np.ndarray, E: float, damping: float | np.ndarray
) -> np.ndarray:
    """:func:`step_direction` on checked arguments (the solvers' inner loop)."""
    if method == "nr":
        if A.shape[0] != A.shape[1]:
            raise InvalidInput(
                f"method 'nr' needs a square task Jacobian, got {A.shape}; use 'nr-pinv' or 'gn'"
            )
        return np.linalg.solve(A, c)
    if method == "nr-pinv":
        return np.linalg.pinv(A) @ c
    H = A.T @ A
    g = A.T @ c
    if method == "gn":
        return np.linalg.solve(H, g)
    if method == "gn-pinv":
        return np.linalg.pinv(H) @ g
    H += _damping_matrix(method, E, A.shape[1], damping)
    return np.linalg.solve(H, g)


def _check_method(method: object) -> None:
    if not (isinstance(method, str) and method in METHODS):
        raise InvalidInput(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def _check_given_damping(method: str, damping: object, nv: int) -> float | np.ndarray:
    if damping is None:  # the solvers fill in the default; these formulas take the value
        raise InvalidInput(f"damping of method {method!r} must be given (a value >= 0), got None")
    return check_damping(method, damping, nv)  # type: ignore[arg-type]


def _check_nv(nv: object) -> int:
    if isinstance(nv, bool) or not isinstance(nv, (int, np.integer)) or nv < 1:
        raise InvalidInput(f"nv (number of velocity coordinates) must be an int >= 1, got {nv!r}")
    return int(nv)


def check_damping(method: str, damping: npt.ArrayLike | None, nv: int) -> float | np.ndarray:
    """The method's λ (or Sugihara's w̄ as an nv-vector), its default when None; 0 for the
    undamped methods."""
    if method not in DEFAULT_DAMPING:
        return 0.0
    if damping is None:
        damping = DEFAULT_DAMPING[method]
    if method == "lm-sugihara":
        arr = check_finite_array(damping, "Sugihara's w̄ (damping)")
        if arr.ndim == 0:
            arr = np.full(nv, float(arr))
        if arr.shape != (nv,) or (arr < 0).any():
            raise InvalidInput(
                f"Sugihara's w̄ must be a scalar or an nv={nv} vector of finite values >= 0, "
                f"got {damping!r}"
            )
        return arr
    return check_scalar(damping, "damping λ", 0.0)
