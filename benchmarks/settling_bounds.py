"""The settling benchmark's unsettled static-target episodes at dt = 0.001: could any
velocity-limited motion have reached the target within the episode's 1000 steps (1 s)?

For every taskik episode of the settling benchmark (``benchmarks/settling.py``'s full run: seed 0,
two repetitions per set-up, both modes) in the scenario ``reachable`` at dt = 0.001 that is
unsettled after its 1000 steps (the settling benchmark's loop and rule, through
``settling.run_loop``), this computes

    T_min = min over q* in G of max_i |q*_i − q_start_i| / vmax_i,

G = the configurations within the joint position limits whose hand pose is the target to
1e-6 (``‖log6(T*⁻¹ T(q))‖``) and, on the humanoids, whose feet are at their start poses to
1e-6 (the base and legs may move; no humanoid reachable episode is unsettled: only the UR5
and the Panda). vmax = ``model.velocityLimit`` (``solve_ik``'s default velocity limit).
Any motion from q_start to a q* with ``|q̇_i| ≤ vmax_i`` takes at least
``|q*_i − q_start_i| / vmax_i`` for every joint i, so no controller that respects the
velocity limits puts the hand on the target before T_min (position limits along the way,
accelerations and the 1e-4 tolerance of the settling benchmark's "reached" are ignored: a lower
bound). A joint whose range is wider than 2π (the UR5's ±2π) reaches the angle of q*_i at several
q*_i + 2πk within its range; the one nearest q_start_i is taken.

The search (``q = pin.integrate(q_start, x)``, x the displacement from the start):

1. from each start, Levenberg–Marquardt on the hand (and feet, weighted 100×) residuals;
   the starts: ``--starts`` uniform random configurations within the limits (the
   humanoids: the pelvis → hand joints, as the settling benchmark's target draws them), q_start, and
   the configuration the settling benchmark drew the target from (``q_goal``, a known member of G);
   joints with a range narrower than 2π are clipped to it at every iterate, wider ones
   wrapped after;
2. each end point is refined by SLSQP: minimise t subject to ``−t·vmax ≤ x ≤ t·vmax``,
   the pose residuals = 0 and the joint limits (the Panda's solutions form 1-D families,
   along which this slides to a local optimum; the UR5's are isolated: nothing to slide),
   then put back onto G by least-norm Gauss–Newton steps;
3. T_min is the smallest T over the end points, refined or not, that pass the check
   (pose to 1e-6, limits). ``distinct``: refined members of G that differ by more than
   1e-3 rad in some joint (for the UR5 the distinct IK solutions, at most 8); ``in G``:
   starts that led to a member; ``T half``: the minimum over the first half of the starts
   (equal to T_min: the search had converged by then).

The search is not a proof of global optimality: a branch of G that no start reached would
be missed, and the true T_min could then be *smaller* than printed (never larger: every T
printed is attained by a checked member of G). So ``T_min > 0.99 s`` is evidence, not
proof, that no velocity-limited controller reaches the target within the 1000 steps.
``T grid`` is an independent search for redundant arms (the Panda): its last joint fixed
at each of 101 values across its range, LM on the other six from 8 random starts per value;
a grid point lies a little above the family's optimum, so T grid ≥ T_min is expected, and a
value below T_min would reveal a branch the main search missed.

Per episode, taskik's loop (the settling benchmark's tasks, default settings) also runs for
``--horizon`` s of simulated time: ``t loop``, the first time every goal error is below 1e-4 (the
settling benchmark's "reached"); ``T(q loop)``, the bound above for the configuration it had then
(it cannot have got there sooner); ``loop end``, "reached" or, when it never did, whether it
was at rest (‖v‖ < 1e-3 on the last 10 steps) or moving at the horizon and its goal error then;
``T(q_goal)``, the bound for the configuration the target was drawn from.

Secondary, a DIFFERENT and WEAKER bound, for the ``out_of_reach`` episodes unsettled at
dt = 0.001 (the hand 2× the reach from the arm's root: G is empty). taskik's loop runs
10 s; e_rest is its hand error then (and on the humanoids each foot's error). G′ = the
configurations within the limits whose hand error is ≤ e_rest + 1e-3 and whose every foot
error is ≤ its own error at 10 s + 1e-3 (flat mode holds the feet as weighted tasks, which
give way); the loop's own configuration at 10 s is in G′. T_min′ is the same minimum over
G′, searched the same way (the loop's q at 10 s one more start; SLSQP with
``‖r‖² ≤ thr²`` per frame), with ``--starts-secondary`` random starts; ``t loop`` is the
first time the loop is in G′. It bounds the time to get as close as the loop ends up, not
to reach the target.

    python benchmarks/settling_bounds.py [--starts N] [--starts-secondary N] [--horizon S]
                                         [--robots ...] [--no-secondary]

Progress goes to stderr; the table to stdout and to benchmarks/results/settling_bounds.txt
(default options only; otherwise to the ignored benchmarks/results/partial/).
"""

from __future__ import annotations

import argparse
import copy
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin
import scipy
from scipy.optimize import minimize

import taskik
from taskik.configuration import PositionRanges

sys.path.insert(0, str(Path(__file__).parent))
import settling as b5  # noqa: E402
from _timing import publish  # noqa: E402

DT = 0.001
REPETITIONS = (0, 1)  # the settling benchmark's full run: two repetitions per set-up
TOL_POSE = 1e-6  # a member of G: hand (and feet) within this log6 norm of the target
TOL_DISTINCT = 1e-3  # refined end points differing by more (rad, any joint) are distinct
SLACK = 1e-3  # secondary: G' = hand error <= e_rest + SLACK
DEFAULT_STARTS = 300
DEFAULT_STARTS_SECONDARY = 100
GRID_VALUES = 101  # grid_check: values of the fixed joint
GRID_STARTS = 8  # grid_check: random starts per value
# s of simulated time for the loop's reach time (the settling benchmark's "10 s")
DEFAULT_HORIZON = 10.0
REST_SECONDS = 10.0  # secondary: the loop's error after this long is e_rest
BIG = 1e10  # |bounds| above this are none


# ----------------------------------------------------------------------------- goal set
@dataclass
class GoalSet:
    """G (or G′): q within the joint limits with each frame (the hand first, then the
    feet) within its threshold of its target, ``‖log6(T*⁻¹ T(q))‖ ≤ thr`` (None: TOL_POSE,
    treated as an equality); ``x`` is a displacement of q_start (``pin.integrate``)."""

    model: pin.Model
    q_start: np.ndarray
    frames: list[tuple[int, pin.SE3, float | None]]
    lo: np.ndarray = field(init=False)  # bounds of x (nv), ±inf where none
    hi: np.ndarray = field(init=False)
    wide: np.ndarray = field(init=False)  # ranges wider than 2π: wrapped, not clipped
    vmax: np.ndarray = field(init=False)  # inf where unbounded
    data: pin.Data = field(init=False)

    def __post_init__(self) -> None:
        model, nv = self.model, self.model.nv
        ranges = PositionRanges(model)
        self.lo, self.hi = np.full(nv, -np.inf), np.full(nv, np.inf)
        self.lo[ranges.v_indices] = ranges.lower - self.q_start[ranges.q_indices]
        self.hi[ranges.v_indices] = ranges.upper - self.q_start[ranges.q_indices]
        self.wide = (self.hi - self.lo) > 2 * np.pi + 1e-9
        vmax = np.array(model.velocityLimit, dtype=float)
        self.vmax = np.where(vmax < 1e3, vmax, np.inf)
        self.data = model.createData()

    def q(self, x: np.ndarray) -> np.ndarray:
        return pin.integrate(self.model, self.q_start, x)

    def residuals(self, x: np.ndarray, jacobian: bool = True) -> list[tuple]:
        """Per frame: (log6 residual, its Jacobian w.r.t. x or None)."""
        model, data = self.model, self.data
        q = self.q(x)
        if jacobian:
            pin.computeJointJacobians(model, data, q)
            D = pin.dIntegrate(model, self.q_start, x, pin.ARG1)
        else:
            pin.forwardKinematics(model, data, q)
        out = []
        for fid, target, _ in self.frames:
            M = target.actInv(pin.updateFramePlacement(model, data, fid))
            J = None
            if jacobian:
                J = pin.Jlog6(M) @ pin.getFrameJacobian(model, data, fid, pin.LOCAL) @ D
            out.append((pin.log6(M).vector, J))
        return out

    def clip(self, x: np.ndarray) -> np.ndarray:
        narrow = ~self.wide
        x = x.copy()
        x[narrow] = np.clip(x[narrow], self.lo[narrow], self.hi[narrow])
        return x

    def wrap(self, x: np.ndarray) -> np.ndarray:
        """Wide joints: the representative x_i + 2πk within the range nearest 0 (the start)."""
        x = x.copy()
        for i in np.flatnonzero(self.wide):
            c = x[i] + 2 * np.pi * np.arange(-4, 5)
            c = c[(c >= self.lo[i] - 1e-12) & (c <= self.hi[i] + 1e-12)]
            x[i] = c[np.argmin(np.abs(c))] if c.size else np.clip(x[i], self.lo[i], self.hi[i])
        return x

    def time(self, x: np.ndarray) -> float:
        """max_i |x_i| / vmax_i over the velocity-limited joints (s)."""
        finite = np.isfinite(self.vmax)
        return float(np.max(np.abs(x[finite]) / self.vmax[finite]))

    def member(self, x: np.ndarray) -> bool:
        if ((x < self.lo - 1e-9) | (x > self.hi + 1e-9)).any():
            return False
        for (r, _), (_, _, thr) in zip(self.residuals(x, False), self.frames, strict=True):
            if np.linalg.norm(r) > (TOL_POSE if thr is None else thr + 1e-9):
                return False
        return True


def levenberg_marquardt(G: GoalSet, x: np.ndarray, iterations: int = 150) -> np.ndarray:
    """Least squares on the frames' residuals (feet weighted 100×), narrow joints clipped to
    their ranges at every iterate; then the equality frames projected on (``project``)."""
    w = np.repeat([1.0] + [100.0] * (len(G.frames) - 1), 6)

    def stack(res):
        return w * np.concatenate([r for r, _ in res]), w[:, None] * np.vstack([J for _, J in res])

    free = (G.hi - G.lo) > 1e-12  # a joint with lo = hi (``grid_check``) does not move
    x = G.clip(x)
    r, J = stack(G.residuals(x))
    J = J * free
    c = float(r @ r)
    lam = 1e-3
    for _ in range(iterations):
        if c < 1e-22:
            break
        H, g = J.T @ J, J.T @ r
        while True:
            dx = -np.linalg.solve(H + lam * (np.diag(np.diag(H)) + 1e-9 * np.eye(len(x))), g)
            x_new = G.clip(x + dx)
            r_new, J_new = stack(G.residuals(x_new))
            J_new = J_new * free
            c_new = float(r_new @ r_new)
            if c_new < c:
                lam = max(lam / 3, 1e-12)
                break
            lam *= 5
            if lam > 1e8:
                return project(G, x)
        small = np.abs(x_new - x).max() < 1e-13
        x, r, J, c = x_new, r_new, J_new, c_new
        if small:
            break
    return project(G, x)


def project(G: GoalSet, x: np.ndarray, steps: int = 5) -> np.ndarray:
    """Gauss–Newton steps of least norm onto the equality frames (threshold None), narrow
    joints clipped: cleans up the tolerance of LM and SLSQP."""
    eq = [k for k, (_, _, thr) in enumerate(G.frames) if thr is None]
    for _ in range(steps if eq else 0):
        res = G.residuals(x)
        r = np.concatenate([res[k][0] for k in eq])
        if np.abs(r).max() < 1e-12:
            break
        J = np.vstack([res[k][1] for k in eq]) * ((G.hi - G.lo) > 1e-12)
        x = G.clip(x - np.linalg.lstsq(J, r, rcond=None)[0])
    return x


def refine(G: GoalSet, x0: np.ndarray) -> np.ndarray:
    """SLSQP on (x, t): minimise t s.t. −t·vmax ≤ x ≤ t·vmax, each frame in G (an equality
    ``r = 0`` or ``thr² − ‖r‖² ≥ 0``), x within the limits."""
    n = len(x0)
    cache: dict[bytes, list] = {}

    def res(z: np.ndarray) -> list:
        key = z[:n].tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = G.residuals(z[:n].copy())
        return cache[key]

    finite = np.flatnonzero(np.isfinite(G.vmax))
    m = finite.size
    A = np.zeros((2 * m, n + 1))
    A[np.arange(m), finite] = -1.0
    A[m + np.arange(m), finite] = 1.0
    A[:, n] = np.concatenate([G.vmax[finite], G.vmax[finite]])
    cons = [{"type": "ineq", "fun": lambda z: A @ z, "jac": lambda z: A}]
    zero = np.zeros((6, 1))
    for k, (_, _, thr) in enumerate(G.frames):
        if thr is None:
            cons.append(
                {
                    "type": "eq",
                    "fun": lambda z, k=k: res(z)[k][0],
                    "jac": lambda z, k=k: np.hstack([res(z)[k][1], zero]),
                }
            )
        else:

            def within(z: np.ndarray, k: int = k, t2: float = thr * thr) -> np.ndarray:
                r = res(z)[k][0]
                return np.array([t2 - r @ r])

            def within_jac(z: np.ndarray, k: int = k) -> np.ndarray:
                r, J = res(z)[k]
                return np.append(-2 * r @ J, 0.0)[None]

            cons.append({"type": "ineq", "fun": within, "jac": within_jac})
    bounds = [
        (None if lo < -BIG else lo, None if hi > BIG else hi)
        for lo, hi in zip(G.lo, G.hi, strict=True)
    ] + [(0.0, None)]
    z0 = np.append(np.clip(x0, G.lo, G.hi), G.time(x0))
    c = np.zeros(n + 1)
    c[n] = 1.0
    sol = minimize(
        lambda z: z[n],
        z0,
        jac=lambda z: c,
        method="SLSQP",
        bounds=bounds,
        constraints=cons,
        options={"maxiter": 300, "ftol": 1e-12},
    )
    return project(G, np.clip(sol.x[:n], G.lo, G.hi))


@dataclass
class Search:
    t_min: float
    t_half: float  # the same over the first half of the starts
    starts: int
    members: int  # starts that led to a member of G
    distinct: int  # distinct refined end points
    seconds: float


def distinct_points(G: GoalSet, xs: list[np.ndarray]) -> int:
    kept: list[np.ndarray] = []
    for x in xs:
        for y in kept:
            d = np.abs(x - y)
            d[G.wide] = np.abs((d[G.wide] + np.pi) % (2 * np.pi) - np.pi)
            if d.max() <= TOL_DISTINCT:
                break
        else:
            kept.append(x)
    return len(kept)


def search(G: GoalSet, starts: list[np.ndarray]) -> Search:
    """Multi-start LM, each end point (and a start already in G) refined by SLSQP (which may
    also get there from an LM end point just outside G); T_min over the checked members."""
    t0 = time.perf_counter()
    best, half = np.inf, np.inf
    members, refined = 0, []
    for i, x0 in enumerate(starts):
        ends = [G.wrap(levenberg_marquardt(G, x0))]
        if G.member(G.wrap(x0)):
            ends.append(G.wrap(x0))
        found = False
        for x in ends:
            y = G.wrap(refine(G, x))
            for z in (x, y):
                if G.member(z):
                    found = True
                    best = min(best, G.time(z))
            if G.member(y):
                refined.append(y)
            elif G.member(x):
                refined.append(x)
        members += found
        if i + 1 == len(starts) // 2:
            half = best
    return Search(
        best, half, len(starts), members, distinct_points(G, refined), time.perf_counter() - t0
    )


# ----------------------------------------------------------------------------- episodes
def goal_configuration(info: b5.RobotInfo, episode: b5.Episode) -> np.ndarray:
    """The configuration the settling benchmark's reachable target was drawn from (``make_targets``'
    draws)."""
    rng = np.random.default_rng(episode.seed)
    q = info.robot.q0.copy()
    if episode.setup.start == "neutral":
        q = pin.neutral(info.robot.model)
    elif episode.setup.start == "random":
        q = info.robot.random_configuration(rng)
    q_goal = info.robot.random_configuration(rng)
    q[info.arm_q] = q_goal[info.arm_q]
    return q


def goal_set(
    info: b5.RobotInfo, targets: b5.Targets, thresholds: list[float | None] | None = None
) -> GoalSet:
    """The episode's hand target and feet (start poses); ``thresholds`` per frame (hand,
    feet...), default all None (equalities to TOL_POSE)."""
    model = info.robot.model
    kind, frame, target = targets.goals[0]
    assert kind == "frame" and frame == info.hand and len(targets.goals) == 1
    poses = [(frame, target), *targets.feet]
    thr = thresholds or [None] * len(poses)
    frames = [(model.getFrameId(f), T, t) for (f, T), t in zip(poses, thr, strict=True)]
    return GoalSet(model, targets.q_start.copy(), frames)


def random_starts(info: b5.RobotInfo, G: GoalSet, n: int, seed: int) -> list[np.ndarray]:
    """n displacements to uniform random configurations within the limits (humanoids: the
    pelvis → hand joints only, the rest as at the start)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        q_rand = info.robot.random_configuration(rng)
        if info.name in b5.LEGGED:
            q = G.q_start.copy()
            q[info.arm_q] = q_rand[info.arm_q]
            q_rand = q
        out.append(pin.difference(G.model, G.q_start, q_rand))
    return out


def grid_check(
    info: b5.RobotInfo, G: GoalSet, n_grid: int, n_starts: int, seed: int
) -> float | None:
    """An independent search for redundant arms (more than 6 joints, no feet): the last
    joint fixed at each of ``n_grid`` values across its range, LM on the others from
    ``n_starts`` random starts per value; the smallest T over the members of G found (a
    grid value only approaches the optimum: expect a little above T_min, never below it
    unless the main search missed a branch). None for other robots."""
    if G.model.nv <= 6 or len(G.frames) > 1:
        return None
    j = G.model.nv - 1
    H = copy.copy(G)
    best = np.inf
    for i, value in enumerate(np.linspace(G.lo[j], G.hi[j], n_grid)):
        H.lo, H.hi = G.lo.copy(), G.hi.copy()
        H.lo[j] = H.hi[j] = value
        for x0 in random_starts(info, G, n_starts, seed + i):
            x0[j] = value
            x = G.wrap(levenberg_marquardt(H, x0))
            if G.member(x):
                best = min(best, G.time(x))
    return best


@dataclass
class Loop:
    settled: bool  # the settling benchmark's rule after its 1000 steps
    t_reach: float | None  # first time every goal error < 1e-4 (s)
    q_reach: np.ndarray | None
    qs: list[np.ndarray]  # q after each step
    errors: list[list[float]]  # goal_errors after each step (hand, feet...)
    at_rest_end: bool  # ‖v‖ < 1e-3 on the last 10 steps


def run_loop(info: b5.RobotInfo, episode: b5.Episode, seconds: float, stop: bool = True) -> Loop:
    """taskik's loop on the episode (the settling benchmark's tasks and settings) for ``seconds``
    (``stop``: or until every goal error is below 1e-4); the first 1000 steps through
    ``settling.run_loop``, for the settling benchmark's settled rule."""
    targets = b5.make_targets(info, episode)
    _, _, problem = b5.taskik_tasks(targets, episode.setup.mode)
    model = info.robot.model
    data = model.createData()
    conf = taskik.Configuration(model, targets.q_start.copy())
    qs: list[np.ndarray] = []
    speeds: list[float] = []

    def step() -> np.ndarray:
        v = taskik.solve_ik(conf, problem, DT)
        conf.integrate_inplace(v, DT)
        qs.append(conf.q.copy())
        speeds.append(float(np.linalg.norm(v)))
        return v

    res = b5.run_loop(info, targets, step, lambda k: None, lambda: conf.q, None, 0)
    errors = [b5.goal_errors(model, data, q, targets, k) for k, q in enumerate(qs)]
    t_reach, q_reach = None, None

    def check(k: int) -> None:
        nonlocal t_reach, q_reach
        if t_reach is None and max(errors[k]) < b5.TOL_REACHED:
            t_reach, q_reach = (k + 1) * DT, qs[k]

    for k in range(len(qs)):
        check(k)
    for k in range(b5.STEPS, round(seconds / DT)):
        if stop and t_reach is not None:
            break
        step()
        errors.append(b5.goal_errors(model, data, conf.q, targets, k))
        check(k)
    at_rest = bool(np.all(np.array(speeds[-10:]) < b5.TOL_REST))
    return Loop(res.settled, t_reach, q_reach, qs, errors, at_rest)


def unsettled(scenario: str, robots: tuple[str, ...]) -> list[tuple[b5.Episode, Loop | None]]:
    """The settling benchmark's taskik episodes of ``scenario`` at dt 0.001 unsettled after 1000
    steps."""
    out = []
    for robot in robots:
        info = b5.robot_info(robot)
        for start in b5.STARTS:
            for rep in REPETITIONS:
                for mode in b5.MODES:
                    ep = b5.make_episode(b5.Setup(robot, scenario, start, DT, mode), rep)
                    loop = run_loop(info, ep, b5.STEPS * DT)
                    if not loop.settled:
                        out.append((ep, None))
    return out


def primary(robots: tuple[str, ...], n_starts: int, horizon: float) -> tuple[list[str], dict]:
    eps = unsettled("reachable", robots)
    print(f"reachable: {len(eps)} unsettled episodes at dt {DT:g}", file=sys.stderr)
    cache: dict[tuple, Search] = {}
    grids: dict[tuple, float | None] = {}
    rows = []
    header = (
        f"{'--case':42s} {'T_min':>6s} {'T half':>6s} {'T grid':>6s} {'T(q_goal)':>9s} "
        f"{'distinct':>8s} {'in G':>5s} {'starts':>6s} {'t loop':>6s} {'T(q loop)':>9s} "
        f"{'loop end':>12s} {'> 0.99 s':>8s}"
    )
    stats = {
        "n": len(eps),
        "search_s": 0.0,
        "loop_s": 0.0,
        "impossible": 0,
        "short": 0,
        "grid_below": 0,
    }
    for ep, _ in eps:
        info = b5.robot_info(ep.setup.robot)
        targets = b5.make_targets(info, ep)
        G = goal_set(info, targets)
        key = (ep.setup.robot, ep.setup.start, ep.repetition)
        q_goal = goal_configuration(info, ep)
        x_goal = pin.difference(G.model, G.q_start, q_goal)
        assert G.member(G.wrap(x_goal)), "q_goal does not reproduce the settling benchmark's target"
        if key not in cache:
            t0 = time.perf_counter()
            starts = random_starts(info, G, n_starts, ep.seed)
            cache[key] = search(G, [*starts, np.zeros(G.model.nv), x_goal])
            grids[key] = grid_check(info, G, GRID_VALUES, GRID_STARTS, ep.seed + 1)
            stats["search_s"] += time.perf_counter() - t0
        s, grid = cache[key], grids[key]
        if grid is not None and grid < s.t_min - 1e-9:
            stats["grid_below"] += 1
        t_grid = f"{grid:6.3f}" if grid is not None else f"{'—':>6s}"
        t0 = time.perf_counter()
        loop = run_loop(info, ep, horizon)
        stats["loop_s"] += time.perf_counter() - t0
        t_loop = f"{loop.t_reach:.3f}" if loop.t_reach is not None else "—"
        if loop.t_reach is not None:
            end = "reached"
        else:
            end = f"{'rest' if loop.at_rest_end else 'moving'} {max(loop.errors[-1]):.2g}"
            stats["short"] += loop.at_rest_end
        t_qloop = (
            f"{G.time(pin.difference(G.model, G.q_start, loop.q_reach)):.3f}"
            if loop.q_reach is not None
            else "—"
        )
        impossible = s.t_min > 0.99
        stats["impossible"] += impossible
        rows.append(
            f"{ep.case:42s} {s.t_min:6.3f} {s.t_half:6.3f} {t_grid} {G.time(G.wrap(x_goal)):9.3f} "
            f"{s.distinct:8d} {s.members:5d} {s.starts:6d} {t_loop:>6s} {t_qloop:>9s} "
            f"{end:>12s} {'yes' if impossible else 'no':>8s}"
        )
        print(f"  {rows[-1]}", file=sys.stderr)
    return [header, *rows], stats


def secondary(robots: tuple[str, ...], n_starts: int) -> tuple[list[str], dict]:
    eps = unsettled("out_of_reach", robots)
    print(f"out_of_reach: {len(eps)} unsettled episodes at dt {DT:g}", file=sys.stderr)
    header = (
        f"{'--case':44s} {'e_rest':>6s} {'feet':>7s} {'rest':>4s} {'T_min′':>6s} "
        f"{'T half':>6s} {'distinct':>8s} {'in G′':>5s} {'starts':>6s} {'t loop':>6s} "
        f"{'T(q loop)':>9s} {'> 0.99 s':>8s}"
    )
    rows = []
    stats = {"n": len(eps), "impossible": 0}
    for ep, _ in eps:
        info = b5.robot_info(ep.setup.robot)
        targets = b5.make_targets(info, ep)
        loop = run_loop(info, ep, REST_SECONDS, stop=False)
        thresholds = [e + SLACK for e in loop.errors[-1]]  # hand, feet...
        G = goal_set(info, targets, thresholds)
        x_rest = pin.difference(G.model, G.q_start, loop.qs[-1])
        starts = random_starts(info, G, n_starts, ep.seed)
        s = search(G, [*starts, np.zeros(G.model.nv), x_rest])
        k = next(
            k
            for k, errs in enumerate(loop.errors)
            if all(e <= t for e, t in zip(errs, thresholds, strict=True))
        )
        t_qloop = G.time(pin.difference(G.model, G.q_start, loop.qs[k]))
        impossible = s.t_min > 0.99
        stats["impossible"] += impossible
        feet = f"{max(loop.errors[-1][1:]):7.1e}" if len(loop.errors[-1]) > 1 else f"{'—':>7s}"
        rows.append(
            f"{ep.case:44s} {loop.errors[-1][0]:6.3f} {feet} "
            f"{'yes' if loop.at_rest_end else 'no':>4s} {s.t_min:6.3f} {s.t_half:6.3f} "
            f"{s.distinct:8d} {s.members:5d} {s.starts:6d} {(k + 1) * DT:6.3f} {t_qloop:9.3f} "
            f"{'yes' if impossible else 'no':>8s}"
        )
        print(f"  {rows[-1]}", file=sys.stderr)
    return [header, *rows], stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--starts", type=int, default=DEFAULT_STARTS, help="random starts per reachable target"
    )
    parser.add_argument(
        "--starts-secondary",
        type=int,
        default=DEFAULT_STARTS_SECONDARY,
        help="random starts per out_of_reach episode",
    )
    parser.add_argument(
        "--horizon", type=float, default=DEFAULT_HORIZON, help="s of the loop's own run"
    )
    parser.add_argument("--robots", nargs="+", default=list(b5.ROBOTS), choices=b5.ROBOTS)
    parser.add_argument("--no-secondary", action="store_true", help="reachable only")
    args = parser.parse_args()
    robots = tuple(r for r in b5.ROBOTS if r in args.robots)
    t0 = time.perf_counter()
    rows, stats = primary(robots, args.starts, args.horizon)
    lines = [
        "Settling bounds: the taskik episodes of the settling benchmark's full run (seed 0, "
        "repetitions 0 and 1, both "
        f"modes; {', '.join(robots)}) unsettled after 1000 steps at dt 0.001",
        "",
        "reachable: T_min = min over q* in G of max_i |q*_i − q_start_i| / vmax_i; G: within "
        f"the joint limits, hand on the target to {TOL_POSE:g} (log6 norm);",
        "vmax = model.velocityLimit; joints wider than 2π at the representative nearest the "
        "start. No motion with |q̇_i| ≤ vmax_i reaches G before T_min.",
        f"Search per target (both modes share it): {args.starts} uniform random starts + "
        "q_start + q_goal, Levenberg–Marquardt, every end point refined by",
        "SLSQP (min t s.t. −t·vmax ≤ Δq ≤ t·vmax, pose = target, limits), members checked. "
        "NOT a proof of global optimality: a branch of G that",
        "no start reached would be missed, so the true T_min can only be SMALLER than printed "
        "(every T printed is attained by a checked q* in G):",
        "'> 0.99 s' = yes is evidence, not proof, that no velocity-limited controller reaches "
        "the target within the 1000 steps (1 s).",
        "T half: the same search over the first half of the starts; T grid (redundant "
        "arms): an independent search, the last joint fixed on a grid of",
        f"{GRID_VALUES} values across its range, LM on the others from {GRID_STARTS} random "
        "starts per value (a grid point sits a little above the optimum;",
        "below T_min would mean a missed branch); T(q_goal): the configuration the target "
        "was drawn from; distinct: refined members",
        f"differing by > {TOL_DISTINCT:g} rad; in G: starts that led to a member; t loop: "
        "first time taskik's loop (default settings) has every goal error",
        f"< 1e-4, run up to {args.horizon:g} s; T(q loop): the bound for its configuration "
        "then; loop end: reached, or at rest / moving at the horizon",
        "with its goal error then.",
        "",
        *rows,
        "",
        f"{stats['impossible']} of {stats['n']} episodes have T_min > 0.99 s; "
        f"{stats['short']} come to rest short of the target (error > 1e-4) within "
        f"{args.horizon:g} s; T grid below T_min: {stats['grid_below']} episodes. "
        f"Search {stats['search_s']:.0f} s (with T grid), loops {stats['loop_s']:.0f} s.",
    ]
    if not args.no_secondary:
        rows2, stats2 = secondary(robots, args.starts_secondary)
        lines += [
            "",
            "out_of_reach, a DIFFERENT and WEAKER bound (the target is out of reach): T_min′ = "
            "the same minimum over G′: within the limits, hand error",
            f"≤ e_rest + {SLACK:g} and each foot error ≤ its own at {REST_SECONDS:g} s + "
            f"{SLACK:g}, e_rest = the hand error of taskik's loop (same episode) after "
            f"{REST_SECONDS:g} s",
            "(feet: the largest foot error then; rest: at rest then). It bounds the time to get "
            "as close as the loop ends up, not to reach the target.",
            f"Search: {args.starts_secondary} uniform random starts + q_start + the loop's q at "
            f"{REST_SECONDS:g} s (in G′), LM then SLSQP with ‖r‖ ≤ threshold per frame. "
            "t loop: first",
            "time the loop is in G′; T(q loop): the bound for its configuration then.",
            "",
            *rows2,
            "",
            f"{stats2['impossible']} of {stats2['n']} have T_min′ > 0.99 s.",
        ]
    elapsed = time.perf_counter() - t0
    lines[1:1] = [
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, scipy {scipy.__version__}, {platform.machine()}; {elapsed:.0f} s "
        "wall, one process",
    ]
    results = Path(__file__).parent / "results"
    default = (
        args.starts == DEFAULT_STARTS
        and args.starts_secondary == DEFAULT_STARTS_SECONDARY
        and args.horizon == DEFAULT_HORIZON
        and robots == b5.ROBOTS
        and not args.no_secondary
    )
    out = (
        results / "settling_bounds.txt"
        if default
        else results / "partial" / f"settling_bounds_{args.starts}_{'-'.join(robots)}.txt"
    )
    publish("\n".join(lines), out)


if __name__ == "__main__":
    main()
