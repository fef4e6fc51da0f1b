"""Solve to a configuration: iterate the IK step to convergence, with random restarts.

A control loop takes one step per tick (:func:`taskik.solve_ik`); a planner or a posture
generator wants the configuration itself. :func:`solve_posture` iterates

    q_{k+1} = q_k ⊕ Δq_k,    Δq_k = A_k⁻¹ g_k,
    A_k = Jᵀ W_e J + W_n,    g_k = Jᵀ W_e e_k,

on the stacked task terms (``e`` = task errors, ``J`` = task Jacobians, ``W_e = diag(w²)``
from the task costs ``w``) until the weighted error

    E = ½ eᵀ W_e e = ½ Σ_i ‖W_i e_i‖²

drops below ``tol``; a search that has not converged after ``max_iterations`` (or that
stagnates) is restarted from a new configuration, up to ``max_searches``. Without a given
start, a single :class:`FrameTask` starts from the nearest entry of a seed memory (stored
configurations and their frame poses), then from the next nearest entries, then from
random valid configurations (``starts`` of :func:`solve_posture`).

Methods (Haviland & Corke, "Manipulator Differential Kinematics", part 1, eqs. 45–51):

========================  ================================================================
``"nr"``                  Newton–Raphson ``Δq = J⁻¹ e`` (square J only)
``"nr-pinv"``             ``Δq = J⁺ e``
``"gn"``                  Gauss–Newton ``Δq = (JᵀW_eJ)⁻¹ JᵀW_e e``
``"gn-pinv"``             ``Δq = (JᵀW_eJ)⁺ JᵀW_e e``
``"lm-wampler"``          Levenberg–Marquardt, ``W_n = λ I`` (Wampler)
``"lm-chan"``             ``W_n = λ E_k I`` (Chan & Lawrence), the default, λ = 0.1
``"lm-sugihara"``         ``W_n = E_k I + diag(w̄)`` (Sugihara)
``"qp"``                  the core QP step (:func:`taskik.solve_ik`, dt = 1) with
                          ``W_n = λ E_k I`` and the joint limits as a box on Δq
========================  ================================================================

Joint-limit policy (``joint_limits``), for bounded 1-DoF joints (the hinges and slides
inside a composite joint, an MJCF body with several joints, too):

- ``"clip"`` (default): every iterate is clipped into ``[q_min, q_max]`` (projected steps,
  so every iterate is valid); a converged q has its revolute angles wrapped into
  (−π, π] where that stays inside the range.
- ``"reject"``: unconstrained steps; a converged q is wrapped by multiples of 2π into its
  range when possible, otherwise rejected and the search restarts (roboticstoolbox's rule).
- ``"ignore"``: limits play no role (revolute angles are still wrapped into (−π, π]).

The ``"qp"`` method always respects the limits through the box of its step.

Layout of this package, one concern per module: ``solve`` (the entry
point and its options), ``formulas`` (the step of each method), ``joint_limits`` (the
policies: wrap, clip, check), ``starts`` (random starts and the seed memory),
``stagnation`` (when a search gives up), ``general`` (the search loop for any tasks),
``fast_pose`` (the same loop specialised to one frame task on Pinocchio), ``search`` (the
restarts around either loop) and ``context`` (what is kept between calls: per model and
per thread, so that threads may solve at once).
"""

from .formulas import DEFAULT_DAMPING, METHODS, damping_matrix, step_direction
from .joint_limits import JOINT_LIMIT_POLICIES
from .result import PostureResult
from .select import SELECTS
from .solve import POSE_ERRORS, solve_posture
from .starts import STARTS

__all__ = [
    "DEFAULT_DAMPING",
    "JOINT_LIMIT_POLICIES",
    "METHODS",
    "POSE_ERRORS",
    "SELECTS",
    "STARTS",
    "PostureResult",
    "damping_matrix",
    "solve_posture",
    "step_direction",
]
