"""Settling: does the closed loop ``v = solve_ik(conf, tasks, dt); conf.integrate_inplace(v, dt)``
come to rest with default settings?

Every taskik episode runs twice: with the defaults (the damping adapted across steps,
:mod:`taskik.trust_region`) and with ``adaptive=False`` (the plain step, the same as pink's);
the totals give both, and how fast each reaches static targets and tracks the moving one.

Episodes (all seeded) on ``ur5``, ``panda``, ``humanoid`` (bundled) and ``talos``, ``g1``
(example-robot-data), loaded with :func:`taskik.robots.load`:

- **starts**: ``q0`` (the robot's reference configuration), ``neutral``
  (``pinocchio.neutral``: stretched, singular; outside the Panda's joint-4 range) and
  ``random`` (:meth:`Robot.random_configuration`, within the joint limits).
- **tasks**: a ``FrameTask(hand, 1, 1)`` (``tool0``, ``panda_hand``, the right hand of the
  humanoids) and ``PostureTask(1e-3)`` targeting the start; the humanoids also hold both
  feet at their start poses with ``FrameTask(foot, 1, 1)``. Every gain, LM damping, damping,
  solver and limit list is the library's default (``limits=None``: position limits with
  gain 0.5 and the model's velocity limits).
- **scenarios**: ``reachable`` (the hand pose of a random q: every joint random for the
  arms; for the humanoids only the joints between the pelvis and the hand, legs and base
  as at the start, so the target is reachable with the feet held), ``out_of_reach``
  (the hand 2× the reach from the arm's root, ``reach`` = the largest root–hand distance
  over 400 random configurations; start orientation), ``moving`` (the hand position on a
  circle of radius 0.1 m through its start position, in a random plane, one revolution over
  the episode; start orientation), ``conflicting`` (two FrameTasks on the hand, targets
  0.1 m either side of its start along a random direction), and for the humanoids ``com``
  (a ``ComTask(1)`` instead of the hand: start CoM + (0.03, 0, −0.10) m, the horizontal
  0.03 m turned by a random angle after the first repetition of each set-up).
- **modes**: ``flat`` (one weighted list) and ``levels`` (strict priorities, highest first:
  ``[[feet], [hand], [posture]]``; ``[[feet], [hand A], [hand B], [posture]]`` for
  ``conflicting``; the arms have no feet level).
- ``dt`` = 0.01 s and 0.001 s, 1000 steps.
- **repetitions**: episode ``i`` is set-up ``i mod C`` (C = 276 robot × scenario × start ×
  dt × mode set-ups, in a fixed order), repetition ``i // C``; its random draws (random
  start, targets) are seeded by CRC-32 of robot, scenario, start, repetition and ``--seed``,
  so both dt and both modes of a set-up share their targets. The full run is 552 episodes
  (two per set-up); the 276 flat ones also run through pink.

Measured per episode, from q alone (one ``framesForwardKinematics`` / ``centerOfMass`` of
our own, the same for both libraries):

- **task errors** after step k against the targets step k was asked for (for ``moving``:
  the target of that step, not the next one): ``‖log6(T*⁻¹ T)‖`` (m and rad together) for
  a frame task, ``‖c* − c‖`` (m) for the CoM. The posture task is not a goal.
- **reached**: after the last step, every non-posture task error < 1e-4.
- **at rest**: ``‖v‖ < 1e-3`` (Euclidean norm over all of v, rad/s and m/s) on each of the
  last 10 steps.
- **period-2**: over the last 100 steps, ``v_k·v_{k−1} < −0.5 ‖v_k‖ ‖v_{k−1}‖`` on at least
  80 % of the 99 pairs, ``‖v‖`` not decaying (mean of the last 10 ≥ half the mean of the
  first 10 of the window) and the window's mean ``‖v‖ ≥ 1e-3`` (a cycle, not noise).
- **settled** = at rest, or reached without a period-2 cycle (a loop flipping at tens of
  rad/s in the tasks' null space while every goal error is below 1e-4 is not at rest).
- **approaching**: not settled, no cycle, and the largest goal error still fell by more
  than 1 % over the last 100 steps (e.g. velocity-limited at dt = 0.001, where the 1000
  steps last 1 s: the UR5 moves at most π rad per joint in that time).
- **steps to reach**: the first step after which every non-posture task error < 1e-4
  (reported as a median over the episodes of a cell that got there).
- **violations**: steps after which a joint with a finite range is outside
  ``[q_min, q_max]`` by more than 1e-9 and farther out than before the step (a start
  outside the range, Panda ``neutral``, is not counted while it returns).
- **errors**: the library raised (pink refuses a start outside the limits:
  ``NotWithinConfigurationLimits``); such an episode is not settled.

pink (flat lists only, pink has no levels) runs the same episodes with
``pink.Configuration(model, data, q)``, ``pink.tasks.FrameTask / ComTask / PostureTask``
with the same costs, ``pink.limits.ConfigurationLimit(model)`` (gain 0.5) and
``pink.limits.VelocityLimit(model)``, ``pink.solve_ik(conf, tasks, dt, solver="daqp",
limits=...)``. Column ``Δv``: the largest ``‖v_pink − v_taskik‖∞`` when pink is asked for
the step at taskik's own q (steps 0, 1, 10, 100, 500 and 999 of the trajectory of taskik's
plain step, ``adaptive=False``), to show it is the same mathematics (``=`` when every one is
≤ 1e-10). A second table compares both steps at those q with quadprog's solution of taskik's
QP (``taskik.build_ik``), an independent reference, to tell solver tolerance from a
different problem: the differences above 1e-10 are the distance of one library's DAQP
solution to that reference (pink hands DAQP the bounds as inequality rows and keeps its
solution as it is; taskik passes simple bounds and projects the solution onto the box). pink
checks that q is within the limits before a step (``safety_break``), so it refuses the
Panda's ``neutral`` start. The two closed loops can drift apart where the trajectory is
chaotic.

    python benchmarks/settling.py [--episodes N] [--robots ur5 panda ...] [--jobs J]
    python benchmarks/settling.py --case humanoid com q0 0.01 flat 0   # one episode

Progress goes to stderr; the table to stdout and to benchmarks/results/settling.txt for the
full run (552 episodes, every robot, seed 0, with pink), to the ignored
benchmarks/results/partial/ otherwise. Worker processes (``--jobs``, default 2) do not
change any result: every episode depends on its own seed only.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

import taskik
from taskik.configuration import PositionRanges

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402

ROBOTS = ("ur5", "panda", "humanoid", "talos", "g1")
LEGGED = ("humanoid", "talos", "g1")
STARTS = ("q0", "neutral", "random")
SCENARIOS = ("reachable", "out_of_reach", "moving", "conflicting", "com")
DTS = (0.01, 0.001)
MODES = ("flat", "levels")
STEPS = 1000
POSTURE_COST = 1e-3
TOL_REACHED = 1e-4
TOL_REST = 1e-3
TOL_LIMIT = 1e-9
CIRCLE_RADIUS = 0.1
CONFLICT_OFFSET = 0.1
COM_OFFSET = np.array([0.03, 0.0, -0.10])
CHECKPOINTS = (0, 1, 10, 100, 500, 999)
LONG_SECONDS = 10.0  # simulated time an unsettled episode is given (column "10 s")
FULL_EPISODES = 552  # two episodes per set-up (276 set-ups)


# ----------------------------------------------------------------------------- set-ups
@dataclass(frozen=True)
class Setup:
    robot: str
    scenario: str
    start: str
    dt: float
    mode: str


@dataclass(frozen=True)
class Episode:
    setup: Setup
    repetition: int
    seed: int

    @property
    def case(self) -> str:
        """The arguments of ``--case`` that rerun this episode alone."""
        s = self.setup
        return f"{s.robot} {s.scenario} {s.start} {s.dt:g} {s.mode} {self.repetition}"


def setups(robots: tuple[str, ...] = ROBOTS) -> list[Setup]:
    """Every robot × scenario × start × dt × mode, in a fixed order."""
    out = []
    for robot in robots:
        for scenario in SCENARIOS:
            if scenario == "com" and robot not in LEGGED:
                continue
            for start in STARTS:
                for dt in DTS:
                    for mode in MODES:
                        out.append(Setup(robot, scenario, start, dt, mode))
    return out


def make_episode(setup: Setup, repetition: int, seed: int = 0) -> Episode:
    """The episode's random draws (start, targets) depend on robot, scenario, start,
    repetition and ``seed`` only: both dt and both modes of a set-up get the same targets."""
    key = f"{setup.robot}|{setup.scenario}|{setup.start}|{repetition}|{seed}"
    return Episode(setup, repetition, zlib.crc32(key.encode()))


def episodes(n: int, robots: tuple[str, ...] = ROBOTS, seed: int = 0) -> list[Episode]:
    """Episode ``i``: set-up ``i mod C`` (C set-ups), repetition ``i // C``."""
    table = setups(robots)
    return [make_episode(table[i % len(table)], i // len(table), seed) for i in range(n)]


# ----------------------------------------------------------------------------- robots
HANDS = {
    "ur5": "tool0",
    "panda": "panda_hand",
    "humanoid": "rarm_effector_body",
    "talos": "gripper_right_base_link",
    "g1": "right_rubber_hand",
}


@dataclass
class RobotInfo:
    name: str
    robot: Any
    hand: str
    feet: tuple[str, ...]
    root_joint: int  # the arm's root: first joint of the hand chain (fixed base) or the base
    arm_q: np.ndarray  # q indices randomised for a reachable target (humanoids: pelvis → hand)
    reach: float
    ranges: PositionRanges


_ROBOTS: dict[str, RobotInfo] = {}


def robot_info(name: str) -> RobotInfo:
    """Load a robot once per process, with its hand, feet, arm chain and reach."""
    if name in _ROBOTS:
        return _ROBOTS[name]
    robot = taskik.robots.load(name)
    model = robot.model
    hand = HANDS[name]
    feet = tuple(robot.end_effectors[:2]) if name in LEGGED else ()
    hand_joint = model.frames[model.getFrameId(hand)].parentJoint
    chain = [j for j in model.supports[hand_joint] if j > 0]
    if name in LEGGED:
        foot_chains = {
            j for f in feet for j in model.supports[model.frames[model.getFrameId(f)].parentJoint]
        }
        arm = [j for j in chain if j not in foot_chains]
        root_joint = 1  # the floating base
    else:
        arm = chain
        root_joint = chain[0]
    arm_q = np.array(
        [model.joints[j].idx_q + k for j in arm for k in range(model.joints[j].nq)], dtype=int
    )
    data = model.createData()
    fid = model.getFrameId(hand)
    rng = np.random.default_rng(12345)
    reach = 0.0
    for _ in range(400):
        q = robot.random_configuration(rng)
        pin.framesForwardKinematics(model, data, q)
        d = data.oMf[fid].translation - data.oMi[root_joint].translation
        reach = max(reach, float(np.linalg.norm(d)))
    info = RobotInfo(name, robot, hand, feet, root_joint, arm_q, reach, PositionRanges(model))
    _ROBOTS[name] = info
    return info


def unit_vector(rng: np.random.Generator) -> np.ndarray:
    u = rng.normal(size=3)
    return u / np.linalg.norm(u)


# ----------------------------------------------------------------------------- targets
@dataclass
class Targets:
    """What an episode asks, library-independent: the start q, the posture target and the
    goal tasks (``kind``, frame or None, target per step)."""

    q_start: np.ndarray
    goals: list[tuple[str, str | None, Any]] = field(default_factory=list)
    feet: list[tuple[str, pin.SE3]] = field(default_factory=list)
    moving: bool = False

    def target(self, goal: int, k: int) -> Any:
        t = self.goals[goal][2]
        return t(k) if callable(t) else t


def make_targets(info: RobotInfo, episode: Episode) -> Targets:
    """Start configuration and task targets of an episode (drawn from its seed)."""
    setup = episode.setup
    model = info.robot.model
    rng = np.random.default_rng(episode.seed)
    if setup.start == "q0":
        q = info.robot.q0.copy()
    elif setup.start == "neutral":
        q = pin.neutral(model)
    else:
        q = info.robot.random_configuration(rng)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    T0 = pin.SE3(data.oMf[model.getFrameId(info.hand)])
    out = Targets(q_start=q)
    out.feet = [(f, pin.SE3(data.oMf[model.getFrameId(f)])) for f in info.feet]
    hand = info.hand
    if setup.scenario == "reachable":
        q_goal = info.robot.random_configuration(rng)
        q_reach = q.copy()
        q_reach[info.arm_q] = q_goal[info.arm_q]
        pin.framesForwardKinematics(model, data, q_reach)
        out.goals.append(("frame", hand, pin.SE3(data.oMf[model.getFrameId(hand)])))
    elif setup.scenario == "out_of_reach":
        root = data.oMi[info.root_joint].translation.copy()
        out.goals.append(
            ("frame", hand, pin.SE3(T0.rotation, root + 2 * info.reach * unit_vector(rng)))
        )
    elif setup.scenario == "moving":
        n = unit_vector(rng)
        u = np.cross(n, unit_vector(rng))
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        p0, R0 = T0.translation.copy(), T0.rotation.copy()

        def circle(k: int) -> pin.SE3:
            th = 2 * np.pi * k / STEPS
            return pin.SE3(R0, p0 + CIRCLE_RADIUS * ((np.cos(th) - 1) * u + np.sin(th) * w))

        out.goals.append(("frame", hand, circle))
        out.moving = True
    elif setup.scenario == "conflicting":
        d = CONFLICT_OFFSET * unit_vector(rng)
        out.goals.append(("frame", hand, pin.SE3(T0.rotation, T0.translation + d)))
        out.goals.append(("frame", hand, pin.SE3(T0.rotation, T0.translation - d)))
    elif setup.scenario == "com":
        phi = 0.0 if episode.repetition == 0 else rng.uniform(-np.pi, np.pi)
        c, s = np.cos(phi), np.sin(phi)
        offset = np.array([c * COM_OFFSET[0], s * COM_OFFSET[0], COM_OFFSET[2]])
        out.goals.append(("com", None, pin.centerOfMass(model, data, q) + offset))
    else:
        raise ValueError(setup.scenario)
    return out


# ----------------------------------------------------------------------------- tasks
def taskik_tasks(targets: Targets, mode: str) -> tuple[list, list, Any]:
    """(goal tasks, foot tasks, the tasks or levels handed to solve_ik)."""
    feet = []
    for name, frame_target in targets.feet:
        t = taskik.FrameTask(name, 1.0, 1.0)
        t.set_target(frame_target)
        feet.append(t)
    goals = []
    for g, (kind, frame, _) in enumerate(targets.goals):
        task = taskik.FrameTask(frame, 1.0, 1.0) if kind == "frame" else taskik.ComTask(1.0)
        task.set_target(targets.target(g, 0))
        goals.append(task)
    posture = taskik.PostureTask(POSTURE_COST)
    posture.set_target(targets.q_start)
    if mode == "flat":
        return goals, feet, [*feet, *goals, posture]
    levels = ([feet] if feet else []) + [[t] for t in goals] + [[posture]]
    return goals, feet, levels


def pink_tasks(targets: Targets) -> tuple[list, list]:
    import pink.tasks

    tasks = []
    for name, frame_target in targets.feet:
        t = pink.tasks.FrameTask(name, position_cost=1.0, orientation_cost=1.0)
        t.set_target(frame_target)
        tasks.append(t)
    goals = []
    for g, (kind, frame, _) in enumerate(targets.goals):
        if kind == "frame":
            task = pink.tasks.FrameTask(frame, position_cost=1.0, orientation_cost=1.0)
        else:
            task = pink.tasks.ComTask(cost=1.0)
        task.set_target(targets.target(g, 0))
        goals.append(task)
    posture = pink.tasks.PostureTask(cost=POSTURE_COST)
    posture.set_target(targets.q_start)
    return goals, [*tasks, *goals, posture]


# ----------------------------------------------------------------------------- measures
def period_two(speeds_window: np.ndarray) -> bool:
    """Period-2 cycle over a window of velocities (rows v_k, oldest first): most successive
    pairs point in opposite directions and ‖v‖ neither decays nor is negligible."""
    v = np.asarray(speeds_window, dtype=float)
    if v.ndim == 1:
        v = v[:, None]
    if len(v) < 20:
        return False
    norms = np.linalg.norm(v, axis=1)
    dots = np.einsum("ij,ij->i", v[1:], v[:-1])
    flipped = dots < -0.5 * norms[1:] * norms[:-1]
    if flipped.mean() < 0.8:
        return False
    if norms.mean() < TOL_REST:
        return False
    return bool(norms[-10:].mean() >= 0.5 * norms[:10].mean())


def goal_errors(model: pin.Model, data: pin.Data, q: np.ndarray, targets: Targets, k: int):
    """Error norm of every goal and foot task at q, against the targets of step k."""
    pin.framesForwardKinematics(model, data, q)
    errs = []
    for g, (kind, frame, _) in enumerate(targets.goals):
        target = targets.target(g, k)
        if kind == "frame":
            M = target.actInv(data.oMf[model.getFrameId(frame)])
            errs.append(float(np.linalg.norm(pin.log6(M).vector)))
        else:
            errs.append(float(np.linalg.norm(target - pin.centerOfMass(model, data, q, False))))
    for name, target in targets.feet:
        M = target.actInv(data.oMf[model.getFrameId(name)])
        errs.append(float(np.linalg.norm(pin.log6(M).vector)))
    return errs


def limit_excess(ranges: PositionRanges, q: np.ndarray) -> np.ndarray:
    qs = q[ranges.q_indices]
    return np.maximum(np.maximum(ranges.lower - qs, qs - ranges.upper), 0.0)


@dataclass
class Result:
    settled: bool = False
    reached: bool = False
    at_rest: bool = False
    period2: bool = False
    steps_to_reach: int | None = None
    violations: int = 0
    final_error: float = float("nan")
    final_speed: float = float("nan")
    approaching: bool = False  # unsettled, no cycle, the goal error still falling
    error: str | None = None
    dv: float | None = None  # pink only: max |v_pink − v_taskik| at taskik's checkpoints
    dv_taskik_ref: float | None = None  # pink only: max |v_taskik − v_quadprog|, idem
    dv_pink_ref: float | None = None  # pink only: max |v_pink − v_quadprog|, idem
    seconds: float = 0.0
    mean_error: float = float("nan")  # mean goal error over the episode (moving targets)
    settled_long: bool = False  # settled after STEPS steps, or by LONG_SECONDS of simulated time
    saturated: bool = False  # the last step taken had a joint at its velocity limit
    at_range: bool = False  # after the last step, a joint within 1e-3 rad (m) of its range's end
    plain: Result | None = None  # taskik only: the same episode with adaptive=False
    speeds: np.ndarray = field(default_factory=lambda: np.zeros(0))  # ‖v_k‖, last 100 steps
    cosines: np.ndarray = field(default_factory=lambda: np.zeros(0))  # cos(v_k, v_k−1), idem


def run_loop(
    info: RobotInfo,
    targets: Targets,
    step,
    set_step_targets,
    q_of,
    checkpoints: dict | None = None,
    extend_to: int = 0,
) -> Result:
    """The closed loop shared by both libraries; ``step()`` solves and integrates, returns v.
    An episode unsettled after STEPS steps without a period-2 cycle continues to step
    ``extend_to`` (if larger), for ``settled_long``."""
    model = info.robot.model
    data = model.createData()
    res = Result()
    nv = model.nv
    vs = np.zeros((STEPS, nv))
    excess = limit_excess(info.ranges, targets.q_start)
    errs: list[float] = []
    history = np.full(STEPS, np.nan)  # largest goal error after each step
    t0 = time.perf_counter()
    try:
        for k in range(STEPS):
            set_step_targets(k)
            q_before = q_of().copy() if checkpoints is not None else None
            v = step()
            vs[k] = v
            if checkpoints is not None and k in CHECKPOINTS:
                checkpoints[k] = (q_before, v.copy())
            q = q_of()
            new_excess = limit_excess(info.ranges, q)
            if ((new_excess > TOL_LIMIT) & (new_excess > excess + 1e-15)).any():
                res.violations += 1
            excess = new_excess
            errs = goal_errors(model, data, q, targets, k)
            history[k] = max(errs)
            if res.steps_to_reach is None and history[k] < TOL_REACHED and not targets.moving:
                res.steps_to_reach = k + 1
    except Exception as exc:  # noqa: BLE001 - a raising library is a measured outcome
        res.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
        res.seconds = time.perf_counter() - t0
        return res
    res.seconds = time.perf_counter() - t0
    speeds = np.linalg.norm(vs, axis=1)
    res.final_error = max(errs)
    res.mean_error = float(np.mean(history))
    res.final_speed = float(speeds[-1])
    res.reached = res.final_error < TOL_REACHED
    res.at_rest = bool((speeds[-10:] < TOL_REST).all())
    res.period2 = period_two(vs[-100:])
    res.settled = res.at_rest or (res.reached and not res.period2)
    res.approaching = not res.settled and not res.period2 and history[-1] < 0.99 * history[-101]
    tail = vs[-101:]
    res.speeds = speeds[-100:].copy()
    norms = np.linalg.norm(tail, axis=1)
    dots, denominators = np.einsum("ij,ij->i", tail[1:], tail[:-1]), norms[1:] * norms[:-1]
    res.cosines = np.divide(dots, denominators, out=np.zeros_like(dots), where=denominators > 0)
    res.settled_long = res.settled
    res.saturated = at_velocity_limit(model, vs[-1])
    if extend_to > STEPS and not res.settled and not res.period2:
        res.settled_long, res.saturated = _extended(
            info, targets, step, set_step_targets, q_of, extend_to
        )
    res.at_range = at_range_end(info.ranges, q_of())
    return res


def at_range_end(ranges: PositionRanges, q: np.ndarray) -> bool:
    """Whether a joint with a finite range is within 1e-3 of one of its ends (or past it)."""
    qs = q[ranges.q_indices]
    return bool(((qs <= ranges.lower + 1e-3) | (qs >= ranges.upper - 1e-3)).any())


def at_velocity_limit(model: pin.Model, v: np.ndarray) -> bool:
    """Whether a joint with a finite velocity limit moves at it (to 1e-6) in ``v``."""
    vmax = model.velocityLimit
    finite = np.isfinite(vmax) & (vmax < 1e3)
    return bool((np.abs(v[finite]) >= (1.0 - 1e-6) * vmax[finite]).any())


def _extended(
    info: RobotInfo, targets: Targets, step, set_step_targets, q_of, end: int
) -> tuple[bool, bool]:
    """Continue an unsettled episode to step ``end``: settled then (same rule)? And was a
    joint at its velocity limit on the last step?"""
    model = info.robot.model
    data = model.createData()
    tail = np.zeros((100, model.nv))
    errs: list[float] = []
    try:
        for k in range(STEPS, end):
            set_step_targets(k)
            tail[k % 100] = step()
        errs = goal_errors(model, data, q_of(), targets, end - 1)
    except Exception:  # noqa: BLE001 - a raising library is a measured outcome
        return False, False
    order = np.roll(tail, -(end % 100), axis=0)  # oldest first
    speeds = np.linalg.norm(order, axis=1)
    at_rest = bool((speeds[-10:] < TOL_REST).all())
    settled = at_rest or (max(errs) < TOL_REACHED and not period_two(order))
    return settled, at_velocity_limit(model, order[-1])


def run_taskik(
    info: RobotInfo, episode: Episode, checkpoints: dict | None = None, adaptive: bool = True
) -> Result:
    """taskik's closed loop; ``checkpoints`` (if given) receives (q, v) at CHECKPOINTS;
    ``adaptive=False``: the plain step (no damping adapted across steps)."""
    targets = make_targets(info, episode)
    goals, _, problem = taskik_tasks(targets, episode.setup.mode)
    conf = taskik.Configuration(info.robot.model, targets.q_start.copy())
    dt = episode.setup.dt

    def set_step_targets(k: int) -> None:
        if targets.moving:
            goals[0].set_target(targets.target(0, k))

    def step() -> np.ndarray:
        v = taskik.solve_ik(conf, problem, dt, adaptive=adaptive)
        conf.integrate_inplace(v, dt)
        return v

    return run_loop(
        info, targets, step, set_step_targets, lambda: conf.q, checkpoints, long_steps(dt)
    )


def long_steps(dt: float) -> int:
    """Steps of LONG_SECONDS of simulated time."""
    return round(LONG_SECONDS / dt)


def _pink_problem(info: RobotInfo, targets: Targets) -> tuple[list, list, list]:
    import pink.limits

    model = info.robot.model
    goals, tasks = pink_tasks(targets)
    limits = [pink.limits.ConfigurationLimit(model), pink.limits.VelocityLimit(model)]
    return goals, tasks, limits


def run_pink(info: RobotInfo, episode: Episode) -> Result:
    """pink's closed loop on the same episode (flat list)."""
    import pink

    targets = make_targets(info, episode)
    model = info.robot.model
    goals, tasks, limits = _pink_problem(info, targets)
    dt = episode.setup.dt
    try:
        conf = pink.Configuration(model, model.createData(), targets.q_start.copy())
    except Exception as exc:  # noqa: BLE001 - a raising library is a measured outcome
        return Result(error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}")

    def set_step_targets(k: int) -> None:
        if targets.moving:
            goals[0].set_target(targets.target(0, k))

    def step() -> np.ndarray:
        v = pink.solve_ik(conf, tasks, dt, solver="daqp", limits=limits)
        conf.integrate_inplace(v, dt)
        return v

    return run_loop(info, targets, step, set_step_targets, lambda: conf.q, None, long_steps(dt))


def _quadprog_step(problem: taskik.Problem) -> np.ndarray | None:
    """taskik's QP of a step solved by quadprog (an independent reference), or None when
    quadprog is not installed."""
    try:
        import qpsolvers
    except ImportError:  # pragma: no cover - benchmark dependency
        return None
    if "quadprog" not in qpsolvers.available_solvers:
        return None
    big = 1e10  # unbounded entries of the box
    lb = None if problem.lb is None else np.clip(problem.lb, -big, big)
    ub = None if problem.ub is None else np.clip(problem.ub, -big, big)
    return qpsolvers.solve_qp(
        problem.P, problem.r, problem.G, problem.h, lb=lb, ub=ub, solver="quadprog"
    )


def pink_step_difference(
    info: RobotInfo, episode: Episode, checkpoints: dict
) -> tuple[float | None, float | None, float | None]:
    """At each checkpoint, pink asked for the step at taskik's own q (and the targets of that
    step): the largest ``‖v_pink − v_taskik‖∞``, then the largest distances of taskik's and of
    pink's step to quadprog's solution of the same QP. None where pink refused every one (or
    quadprog is missing)."""
    import pink

    targets = make_targets(info, episode)
    model = info.robot.model
    goals, tasks, limits = _pink_problem(info, targets)
    own_goals, _, own_tasks = taskik_tasks(targets, "flat")
    dt = episode.setup.dt
    worst: list[float | None] = [None, None, None]

    def keep(i: int, d: float) -> None:
        old = worst[i]
        worst[i] = d if old is None else max(old, d)

    for k, (q, v_taskik) in sorted(checkpoints.items()):
        if targets.moving:
            goals[0].set_target(targets.target(0, k))
            own_goals[0].set_target(targets.target(0, k))
        try:
            conf = pink.Configuration(model, model.createData(), q)
            v = pink.solve_ik(conf, tasks, dt, solver="daqp", limits=limits)
        except Exception:  # noqa: BLE001 - e.g. taskik's q outside the limits: pink refuses
            continue
        keep(0, float(np.abs(v - v_taskik).max()))
        ref = _quadprog_step(taskik.build_ik(taskik.Configuration(model, q), own_tasks, dt))
        if ref is not None:
            keep(1, float(np.abs(v_taskik - ref).max()))
            keep(2, float(np.abs(v - ref).max()))
    return worst[0], worst[1], worst[2]


def run_episode(episode: Episode, with_pink: bool = True) -> tuple[Episode, Result, Result | None]:
    """taskik on the episode; pink too for a flat one (and probed at taskik's checkpoints)."""
    info = robot_info(episode.setup.robot)
    flat = episode.setup.mode == "flat"
    checkpoints: dict = {}
    mine = run_taskik(info, episode)
    # pink's step is compared with taskik's plain step (adaptive=False), the same mathematics
    mine.plain = run_taskik(info, episode, checkpoints if flat else None, adaptive=False)
    theirs = None
    if with_pink and flat:
        theirs = run_pink(info, episode)
        theirs.dv, theirs.dv_taskik_ref, theirs.dv_pink_ref = pink_step_difference(
            info, episode, checkpoints
        )
    return episode, mine, theirs


def _run_episode_star(args: tuple[Episode, bool]) -> tuple[Episode, Result, Result | None]:
    return run_episode(*args)


# ----------------------------------------------------------------------------- table
Row = tuple[Episode, Result, "Result | None"]
HEADER = (
    f"{'n':>3s} {'settled':>7s} {'10 s':>6s} {'reached':>7s} {'p2':>3s} {'appr':>4s} {'steps':>5s} "
    f"{'vio':>3s} {'err':>3s} {'|v| end':>7s}"
)
DV = f" {'Δv':>7s}"


def _cell(results: list[Result], with_dv: bool = False) -> str:
    n = len(results)
    settled = sum(r.settled for r in results)
    settled_long = sum(r.settled_long for r in results)
    reached = sum(r.reached for r in results)
    p2 = sum(r.period2 for r in results)
    approaching = sum(r.approaching for r in results)
    steps = [r.steps_to_reach for r in results if r.steps_to_reach is not None and r.reached]
    med = f"{np.median(steps):.0f}" if steps else "—"
    viol = sum(r.violations > 0 for r in results)
    errors = sum(r.error is not None for r in results)
    speeds = [r.final_speed for r in results if r.error is None]
    speed = f"{np.median(speeds):.2g}" if speeds else "—"
    text = (
        f"{n:3d} {100 * settled / n:6.1f}% {100 * settled_long / n:5.1f}% "
        f"{100 * reached / n:6.1f}% {p2:3d} {approaching:4d} "
        f"{med:>5s} {viol:3d} {errors:3d} {speed:>7s}"
    )
    if with_dv:
        dvs = [r.dv for r in results if r.dv is not None]
        if not dvs:
            text += f" {'—':>7s}"
        else:
            text += f" {'=':>7s}" if max(dvs) <= 1e-10 else f" {max(dvs):7.1e}"
    return text


def table(rows: list[Row], robots: tuple[str, ...]) -> list[str]:
    """One line per robot × scenario: taskik flat | taskik levels | pink (flat); totals."""
    cells: dict[tuple, list[Result]] = defaultdict(list)
    for ep, mine, theirs in rows:
        s = ep.setup
        cells[(s.robot, s.scenario, s.mode, "taskik")].append(mine)
        if theirs is not None:
            cells[(s.robot, s.scenario, "flat", "pink")].append(theirs)
    w = len(HEADER)
    lines = [
        f"{'robot':8s} {'scenario':12s} | {'taskik flat':^{w}s} | {'taskik levels':^{w}s} | "
        f"{'pink (flat)':^{w + len(DV)}s}",
        f"{'':8s} {'':12s} | {HEADER} | {HEADER} | {HEADER}{DV}",
    ]
    for robot in robots:
        for scenario in SCENARIOS:
            parts = []
            for mode, lib in (("flat", "taskik"), ("levels", "taskik"), ("flat", "pink")):
                res = cells.get((robot, scenario, mode, lib))
                width = w + (len(DV) if lib == "pink" else 0)
                parts.append(_cell(res, with_dv=lib == "pink") if res else f"{'—':>{width}s}")
            if any(cells.get((robot, scenario, m, "taskik")) for m in MODES):
                lines.append(f"{robot:8s} {scenario:12s} | " + " | ".join(parts))
    groups = {
        "taskik flat": [m for ep, m, _ in rows if ep.setup.mode == "flat"],
        "taskik levels": [m for ep, m, _ in rows if ep.setup.mode == "levels"],
        "pink (flat)": [p for _, _, p in rows if p is not None],
        **{
            f"taskik {mode}, dt {dt:g}": [
                m for ep, m, _ in rows if ep.setup.mode == mode and ep.setup.dt == dt
            ]
            for mode in MODES
            for dt in DTS
        },
        **{
            f"pink, dt {dt:g}": [p for ep, _, p in rows if p is not None and ep.setup.dt == dt]
            for dt in DTS
        },
        "plain flat": [m.plain for ep, m, _ in rows if ep.setup.mode == "flat" and m.plain],
        "plain levels": [m.plain for ep, m, _ in rows if ep.setup.mode == "levels" and m.plain],
    }
    lines += ["", f"{'total':23s} | {HEADER}{DV}"]
    for name, res in groups.items():
        if res:
            lines.append(f"{name:23s} | {_cell(res, with_dv=name.startswith('pink'))}")
    return lines + ["", *versus_plain(rows)]


def versus_plain(rows: list[Row]) -> list[str]:
    """The default step against the plain one (``adaptive=False``, pink's step) on the same
    episodes: speed of reaching static targets, and tracking of the moving circle."""
    lines = ["Default (adaptive) step vs the plain step (adaptive=False) and pink, same episodes:"]
    for mode in MODES:
        both = [
            (m.steps_to_reach, m.plain.steps_to_reach)
            for ep, m, _ in rows
            if ep.setup.mode == mode
            and m.plain is not None
            and m.reached
            and m.plain.reached
            and m.steps_to_reach is not None
            and m.plain.steps_to_reach is not None
        ]
        if both:
            a, b = np.median([x for x, _ in both]), np.median([y for _, y in both])
            lines.append(
                f"  {mode:6s} steps to reach 1e-4, median over the {len(both)} static episodes "
                f"both reach: default {a:.0f}, plain {b:.0f} ({a / b:.2f}×)"
            )
        moving = [
            (ep, m)
            for ep, m, _ in rows
            if ep.setup.mode == mode
            and ep.setup.scenario == "moving"
            and m.plain is not None
            and m.error is None
            and m.plain.error is None
        ]
        if moving:
            a = np.median([m.mean_error for _, m in moving])
            b = np.median([m.plain.mean_error for _, m in moving])  # type: ignore[union-attr]
            text = (
                f"  {mode:6s} moving circle, median over {len(moving)} episodes of the mean goal "
                f"error: default {a:.3g}, plain {b:.3g}"
            )
            if mode == "flat":
                pinks = [
                    p.mean_error
                    for ep, _, p in rows
                    if p is not None and p.error is None and ep.setup.scenario == "moving"
                ]
                if pinks:
                    text += f", pink {np.median(pinks):.3g} ({len(pinks)} episodes)"
            lines.append(text)
    return lines


def agreement(rows: list[Row], robots: tuple[str, ...]) -> list[str]:
    """Per robot × scenario: the largest step differences at taskik's checkpoints between
    pink and taskik, and of each to quadprog's solution of the same QP."""

    def worst(values: list[float | None]) -> str:
        known = [x for x in values if x is not None]
        return f"{max(known):9.1e}" if known else f"{'—':>9s}"

    lines = [
        f"{'robot':8s} {'scenario':12s} | {'pink−taskik':>11s} | {'taskik−qp':>9s} | "
        f"{'pink−qp':>9s}"
    ]
    for robot in robots:
        for scenario in SCENARIOS:
            res = [
                p
                for ep, _, p in rows
                if p is not None and (ep.setup.robot, ep.setup.scenario) == (robot, scenario)
            ]
            if not res:
                continue
            dv = [r.dv for r in res if r.dv is not None]
            same = f"{'=':>11s}" if dv and max(dv) <= 1e-10 else f"{worst(list(dv)):>11s}"
            lines.append(
                f"{robot:8s} {scenario:12s} | {same} | "
                f"{worst([r.dv_taskik_ref for r in res])} | {worst([r.dv_pink_ref for r in res])}"
            )
    return lines


def failures(rows: list[Row]) -> list[str]:
    """Per robot × scenario × mode with unsettled taskik episodes: how many, and the one
    moving fastest at the end, as the ``--case`` arguments that rerun it."""
    groups: dict[tuple, list[tuple[Episode, Result]]] = defaultdict(list)
    for ep, mine, _ in rows:
        if not mine.settled:
            s = ep.setup
            groups[(s.robot, s.scenario, s.mode)].append((ep, mine))
    out = []
    for (robot, scenario, mode), items in groups.items():
        n = sum(
            1
            for ep, _, _ in rows
            if (ep.setup.robot, ep.setup.scenario, ep.setup.mode) == (robot, scenario, mode)
        )
        ep, r = max(items, key=lambda item: np.nan_to_num(item[1].final_speed, nan=-1.0))
        if r.error:
            what = r.error
        else:
            kind = "period-2" if r.period2 else "approaching" if r.approaching else "not at rest"
            what = f"{kind}, |v| end {r.final_speed:.3g}, goal error {r.final_error:.3g}"
        out.append(
            f"  {robot:8s} {scenario:12s} {mode:6s} {len(items):3d}/{n:<3d} "
            f"--case {ep.case}: {what}"
        )
    return out


def unsettled_causes(rows: list[Row]) -> list[str]:
    """taskik episodes still unsettled after 10 s of simulated time, per mode: how many had
    a joint at its velocity limit on their last step (a target that moves, or is still
    approached, faster than the robot may go), per scenario."""
    out = []
    for mode in ("flat", "levels"):
        left = [(ep, r) for ep, r, _ in rows if ep.setup.mode == mode and not r.settled_long]
        n = sum(1 for ep, _, _ in rows if ep.setup.mode == mode)
        at_limit = [ep for ep, r in left if r.saturated and r.error is None]
        per: dict[str, int] = defaultdict(int)
        for ep in at_limit:
            per[ep.setup.scenario] += 1
        detail = ", ".join(f"{k} {v}" for k, v in sorted(per.items())) or "none"
        out.append(
            f"  {mode:6s} {len(left):3d} of {n} unsettled after 10 s; {len(at_limit)} of them "
            f"with a joint at its velocity limit on the last step ({detail})"
        )
        out += [
            f"    not at a velocity limit: --case {ep.case}"
            + (" (a joint at the end of its range)" if r.at_range else "")
            for ep, r in left
            if ep not in at_limit
        ]
    return out


def describe_case(episode: Episode, with_pink: bool) -> None:
    """Print one episode's outcome and the tail of its ‖v‖ and cos(v_k, v_k−1)."""
    _, mine, theirs = run_episode(episode, with_pink)
    for lib, r in (("taskik", mine), ("taskik plain", mine.plain), ("pink", theirs)):
        if r is None:
            continue
        print(
            f"{lib}: settled {r.settled}, reached {r.reached}, at rest {r.at_rest}, "
            f"period-2 {r.period2}, approaching {r.approaching}, steps to reach "
            f"{r.steps_to_reach}, violations {r.violations}, final goal error "
            f"{r.final_error:.3g}, final |v| {r.final_speed:.3g}, error {r.error}"
            + (f", Δv {r.dv:.2g}" if r.dv is not None else "")
        )
        if r.speeds.size:
            print("  last 6 |v|:   ", np.array2string(r.speeds[-6:], precision=4))
            print("  last 6 cosines:", np.array2string(r.cosines[-6:], precision=4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=FULL_EPISODES)
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=ROBOTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--no-pink", action="store_true", help="taskik only")
    parser.add_argument(
        "--case",
        nargs=6,
        metavar=("ROBOT", "SCENARIO", "START", "DT", "MODE", "REP"),
        help="run one episode and print its outcome, e.g. humanoid com q0 0.01 flat 0",
    )
    args = parser.parse_args()
    with_pink = not args.no_pink
    if with_pink:
        try:
            import pink  # noqa: F401
        except ImportError:  # pragma: no cover - benchmark dependency
            sys.exit("missing benchmark dependency pin-pink; run `make bench` or use --no-pink")
    if args.case:
        robot, scenario, start, dt, mode, rep = args.case
        setup = Setup(robot, scenario, start, float(dt), mode)
        describe_case(make_episode(setup, int(rep), args.seed), with_pink)
        return
    robots = tuple(r for r in ROBOTS if r in args.robots)
    eps = episodes(args.episodes, robots, args.seed)
    t0 = time.perf_counter()
    rows: list[Row] = []
    work = [(ep, with_pink) for ep in eps]
    if args.jobs > 1 and len(eps) > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(args.jobs) as pool:
            for row in pool.imap(_run_episode_star, work, chunksize=1):
                rows.append(row)
                _progress(rows, len(eps), t0)
    else:
        for item in work:
            rows.append(_run_episode_star(item))
            _progress(rows, len(eps), t0)
    elapsed = time.perf_counter() - t0
    full = args.episodes == FULL_EPISODES and robots == ROBOTS and with_pink and args.seed == 0
    n_pink = sum(p is not None for _, _, p in rows)
    lines = [
        f"Settling: {len(rows)} taskik episodes ({n_pink} flat ones also with pink), "
        f"{STEPS} steps each, seed {args.seed}; default settings (gain 1, limits=None, "
        "damping 1e-12, DAQP, adaptive damping); 'plain': the same with adaptive=False",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, pin-pink {_pink_version()}, {platform.machine()}; "
        f"{elapsed:.0f} s wall with {args.jobs} worker process(es)",
        "",
        "n: episodes; settled: at rest (‖v‖ < 1e-3 on the last 10 steps) or reached without "
        "a period-2 cycle;",
        f"10 s: settled, counting an episode unsettled without a cycle at step {STEPS} as "
        f"settled if it is after {LONG_SECONDS:g} s of simulated time (dt 0.001: "
        f"{long_steps(0.001)} steps);",
        "reached: every task error < 1e-4 after the last step; p2: period-2 cycles; appr: "
        "unsettled, no cycle, goal error",
        "still falling (> 1 % over the last 100 steps); steps: median steps to reach (static "
        "targets, episodes ending reached);",
        "vio: episodes with a step leaving a joint range by > 1e-9; err: episodes where the "
        "library raised; |v| end: median",
        "final ‖v‖; Δv: max ‖v_pink − v_taskik plain‖∞ with pink asked at taskik's q (steps "
        f"{', '.join(map(str, CHECKPOINTS))}), '=' when ≤ 1e-10.",
        "",
        *table(rows, robots),
        "",
        "Same mathematics: at taskik's q (steps "
        f"{', '.join(map(str, CHECKPOINTS))} of every flat episode), the largest ‖·‖∞ "
        "between pink's step and taskik's ('=' when ≤ 1e-10),",
        "and of each to quadprog's solution of taskik's QP (`taskik.build_ik`), an independent "
        "reference:",
        *agreement(rows, robots),
        "",
        "Unsettled taskik episodes per robot × scenario × mode (count / episodes), the fastest "
        "at the end;",
        "rerun one with `python benchmarks/settling.py --case ...`:",
        *failures(rows),
        "",
        "Still unsettled after 10 s of simulated time, and how many of those were moving a joint",
        "at its velocity limit on their last step (the robot cannot go faster):",
        *unsettled_causes(rows),
    ]
    results = Path(__file__).parent / "results"
    tag = "" if robots == ROBOTS else "_" + "-".join(robots)
    out = (
        results / "settling.txt"
        if full
        else results / "partial" / f"settling_{len(rows)}{tag}_seed{args.seed}.txt"
    )
    publish("\n".join(lines), out)


def _pink_version() -> str:
    try:
        from importlib.metadata import version

        return version("pin-pink")
    except Exception:  # noqa: BLE001 - only for the header
        return "not installed"


def _progress(rows: list[Row], total: int, t0: float) -> None:
    done = len(rows)
    if done % 20 == 0 or done == total:
        settled = sum(m.settled for _, m, _ in rows)
        print(
            f"  {done}/{total} episodes, taskik settled {settled}/{done}, "
            f"{time.perf_counter() - t0:.0f} s",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
