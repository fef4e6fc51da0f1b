"""The settling benchmark's unsettled moving-target episodes: could any configuration within the
joint limits have the hand on the circle at the episode's end, and follow it there within the
velocity limits?

The settling benchmark (``benchmarks/settling.py``) moves the hand target on a circle of radius 0.1
m through the hand's start position, one revolution over the 1000 steps (0.063 m/s at dt = 0.01,
0.63 m/s at dt = 0.001), orientation held at the start's. Such an episode counts as settled
only when the hand is within 1e-4 of the target after the last step (a loop following a
moving target is never at rest). For every taskik episode of the settling benchmark's full run (seed
0, two repetitions per set-up, both modes, both dt) in the scenario ``moving`` that is unsettled
after its 1000 steps (the settling benchmark's loop and rule, through ``settling.run_loop``), this
computes, for the targets ``T_k`` of the last ``--window`` steps (default 10) and of every
50th step:

- ``e_min(k)`` = min over q within the joint position limits (and, on the humanoids, with
  both feet at their start poses to 1e-6) of the hand's ``‖log6(T_k⁻¹ T(q))‖``: the
  multi-start Levenberg–Marquardt of ``settling_bounds.py`` from ``--starts`` random
  configurations, the start and the loop's own q at step k. ``e_min > 1e-4`` means no
  configuration within the limits puts the hand on that target to the settling benchmark's
  tolerance.
- ``ρ(k)`` = min over the configurations found with the hand on ``T_k`` (to 1e-6) of the
  linear programme ``min t s.t. J_hand v = (ṗ_k, 0), J_foot v = 0, |v_i| ≤ t·vmax_i``
  (``J`` in ``LOCAL_WORLD_ALIGNED``, ``ṗ_k`` the circle's velocity there by central
  difference, ``vmax`` = ``model.velocityLimit``): the fraction of its velocity limits the
  fastest joint needs, at the best configuration, to move the hand with the target without
  turning it. ``ρ > 1``: no configuration follows the circle there; a hand that stays within
  1e-4 of a target moving 0.63 mm per step (dt 0.001) must move with it.

Redundant arms (the Panda) have a family of configurations per target; ``ρ`` is the
minimum over the sampled members (the same evidence as ``settling_bounds.py``: a branch no
start reached would be missed, so a printed ``e_min`` or ``ρ`` can only be too large, never
too small; ``ρ half`` from the first half of the starts shows whether the sampling had
converged).

    python benchmarks/settling_moving.py [--starts N] [--window W]

Progress goes to stderr; the table to stdout and to benchmarks/results/settling_moving.txt
(default options only; otherwise to the ignored benchmarks/results/partial/).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin
from scipy.optimize import linprog

import taskik

sys.path.insert(0, str(Path(__file__).parent))
import settling as b5  # noqa: E402
import settling_bounds as bounds  # noqa: E402
from _timing import publish  # noqa: E402

DEFAULT_STARTS = 60
DEFAULT_WINDOW = 10
EVERY = 50  # the reach profile along the circle: every EVERY-th step's target


@dataclass
class Point:
    k: int
    e_min: float
    rho: float  # inf when the hand cannot be put on T_k (to 1e-6)
    rho_half: float
    rho_loop: float  # the same LP at the loop's own configuration after step k


def loop_configurations(
    info: b5.RobotInfo, episode: b5.Episode
) -> tuple[bool, list, float, b5.Targets]:
    """The settling benchmark's taskik loop on the episode: (settled after 1000 steps, q after each
    step, final goal error, the episode's targets)."""
    targets = b5.make_targets(info, episode)
    goals, _, problem = b5.taskik_tasks(targets, episode.setup.mode)
    conf = taskik.Configuration(info.robot.model, targets.q_start.copy())
    dt = episode.setup.dt
    qs: list[np.ndarray] = []

    def set_step_targets(k: int) -> None:
        goals[0].set_target(targets.target(0, k))

    def step() -> np.ndarray:
        v = taskik.solve_ik(conf, problem, dt)
        conf.integrate_inplace(v, dt)
        qs.append(conf.q.copy())
        return v

    res = b5.run_loop(info, targets, step, set_step_targets, lambda: conf.q, None, 0)
    return res.settled, qs, res.final_error, targets


def speed_ratio(G: bounds.GoalSet, x: np.ndarray, pdot: np.ndarray) -> float:
    """min t s.t. J_hand v = (ṗ, 0), J_feet v = 0, |v_i| ≤ t vmax_i (LP, HiGHS)."""
    model, data = G.model, G.data
    q = G.q(x)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    rows = [
        pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED) for fid, _, _ in G.frames
    ]
    A_eq = np.hstack([np.vstack(rows), np.zeros((6 * len(rows), 1))])
    b_eq = np.zeros(6 * len(rows))
    b_eq[:3] = pdot
    finite = np.flatnonzero(np.isfinite(G.vmax))
    nv = model.nv
    A_ub = np.zeros((2 * finite.size, nv + 1))
    A_ub[np.arange(finite.size), finite] = 1.0
    A_ub[finite.size + np.arange(finite.size), finite] = -1.0
    A_ub[:, nv] = -np.concatenate([G.vmax[finite], G.vmax[finite]])
    cost = np.zeros(nv + 1)
    cost[nv] = 1.0
    sol = linprog(
        cost,
        A_ub=A_ub,
        b_ub=np.zeros(2 * finite.size),
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=[(None, None)] * nv + [(0, None)],
        method="highs",
    )
    return float(sol.x[nv]) if sol.status == 0 else np.inf


def examine(
    info: b5.RobotInfo, targets: b5.Targets, k: int, q_loop: np.ndarray, n_starts: int, dt: float
) -> Point:
    """e_min and ρ for the target of step k (see the module docstring)."""
    T_k = targets.target(0, k)
    G = bounds.GoalSet(
        info.robot.model,
        targets.q_start.copy(),
        [(info.robot.model.getFrameId(info.hand), T_k, None)]
        + [(info.robot.model.getFrameId(f), T, None) for f, T in targets.feet],
    )
    pdot = (targets.target(0, k + 1).translation - targets.target(0, k - 1).translation) / (2 * dt)
    starts = bounds.random_starts(info, G, n_starts, seed=k)
    starts += [np.zeros(info.robot.model.nv), pin.difference(G.model, G.q_start, q_loop)]
    e_min, rho, rho_half = np.inf, np.inf, np.inf
    for i, x0 in enumerate(starts):
        if i == n_starts // 2:
            rho_half = rho
        x = G.wrap(bounds.levenberg_marquardt(G, x0))
        if ((x < G.lo - 1e-9) | (x > G.hi + 1e-9)).any():
            continue
        res = G.residuals(x, False)
        if any(np.linalg.norm(r) > bounds.TOL_POSE for r, _ in res[1:]):
            continue  # a foot off its start pose
        e = float(np.linalg.norm(res[0][0]))
        e_min = min(e_min, e)
        if e <= bounds.TOL_POSE:
            rho = min(rho, speed_ratio(G, x, pdot))
    return Point(k, e_min, rho, rho_half, speed_ratio(G, starts[-1], pdot))


def verdict(final: Point, window: list[Point]) -> str:
    if final.e_min > b5.TOL_REACHED:
        return "final target out of reach within the limits"
    if all(p.e_min > b5.TOL_REACHED or p.rho > 1.0 for p in window):
        return "no configuration follows the circle over the window"
    return "followable: the local step did not"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=DEFAULT_STARTS)
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    parser.add_argument("--robots", nargs="+", default=list(b5.ROBOTS), choices=b5.ROBOTS)
    args = parser.parse_args()
    robots = tuple(r for r in b5.ROBOTS if r in args.robots)
    t0 = time.perf_counter()
    lines = [
        "Settling, moving-target episodes unsettled after 1000 steps (taskik defaults): "
        "can the hand be "
        "on the circle at the end, and follow it there?",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, {platform.machine()}; {args.starts} random starts per target, "
        f"window: the last {args.window} steps",
        "",
        "loop err: the settling benchmark's goal error after the last step; e_min end: the "
        "least hand error any "
        "configuration within the limits reaches at the last step's target;",
        "max e_min: the largest e_min over the window and every 50th step (the circle leaves "
        "what the limits allow);",
        "ρ end / ρ min: the fraction of its velocity limit the fastest joint needs to move "
        "the hand with the circle, at the best configuration, at the last step / the least "
        "over the window ('—': the hand cannot be put on those targets); ρ half: ρ end "
        "from half the starts;",
        "ρ loop: the same programme at the loop's own configuration after the last step (its "
        "branch); ρ max: the largest ρ over every 50th step (> 1: no tracker keeps up all the "
        "way round).",
        "",
        f"{'episode':42s} {'loop err':>8s} {'e_min end':>9s} {'max e_min':>9s} "
        f"{'ρ end':>6s} {'ρ min':>6s} {'ρ half':>6s} {'ρ loop':>6s} {'ρ max':>6s}  verdict",
    ]
    counts: dict[str, int] = {}
    for robot in robots:
        info = b5.robot_info(robot)
        for start in b5.STARTS:
            for dt in b5.DTS:
                for mode in b5.MODES:
                    for rep in (0, 1):
                        ep = b5.make_episode(b5.Setup(robot, "moving", start, dt, mode), rep)
                        settled, qs, loop_err, targets = loop_configurations(info, ep)
                        if settled:
                            continue
                        last = b5.STEPS - 1
                        ks = list(range(last - args.window + 1, last + 1))
                        window = [examine(info, targets, k, qs[k], args.starts, dt) for k in ks]
                        profile = [
                            examine(info, targets, k, qs[k], args.starts, dt)
                            for k in range(EVERY, last, EVERY)
                        ]
                        final = window[-1]
                        worst = max(p.e_min for p in window + profile)
                        hardest = max(p.rho for p in profile)
                        finite = [p.rho for p in window if np.isfinite(p.rho)]
                        what = verdict(final, window)
                        counts[what] = counts.get(what, 0) + 1

                        def show(x: float) -> str:
                            return f"{x:6.2f}" if np.isfinite(x) else f"{'—':>6s}"

                        lines.append(
                            f"{ep.case:42s} {loop_err:8.2e} {final.e_min:9.2e} {worst:9.2e} "
                            f"{show(final.rho)} {show(min(finite) if finite else np.inf)} "
                            f"{show(final.rho_half)} {show(final.rho_loop)} {show(hardest)}  {what}"
                        )
                        print(lines[-1], file=sys.stderr, flush=True)
    lines += ["", "verdicts:"] + [f"  {n:3d}  {what}" for what, n in counts.items()]
    lines.append(f"({time.perf_counter() - t0:.0f} s)")
    default = args.starts == DEFAULT_STARTS and args.window == DEFAULT_WINDOW
    results = Path(__file__).parent / "results"
    out = (
        results / "settling_moving.txt"
        if default and robots == b5.ROBOTS
        else results / "partial" / f"settling_moving_{args.starts}_{args.window}.txt"
    )
    publish("\n".join(lines), out)


if __name__ == "__main__":
    main()
