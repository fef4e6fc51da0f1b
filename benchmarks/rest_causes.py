"""Why does a closed loop rest short of a reachable target? The report's answer, counted.

For ``--targets`` random reachable poses of the hand (the pose of a random configuration)
from random starts (both uniform within the joint ranges, clipped to ±π), the default
loop ``v = solve_ik(conf, [hand, posture], dt); conf.integrate_inplace(v, dt)`` runs
``--steps`` steps at dt = 0.01 s (``FrameTask(hand, 1, 1)``, ``PostureTask(1e-3)`` on the
start, default limits). Every episode whose hand error ends above 1e-4 is put in one class
by :func:`taskik.report` at its last step:

- **singular**: the hand task's ``reducible`` fraction < 0.1 (no joint motion reduces its
  error to first order: a singular configuration or a local minimum of the task);
- **joint range**: otherwise, with a position bound active (a joint at the end of its
  range);
- **other tasks**: otherwise (the posture's pull: the weighted compromise).

Also printed per class: the range of ``reducible``, the largest hand error, and the smallest
singular value of the hand's LOCAL frame Jacobian (an independent check of "singular").

Then the same targets by **solve, then drive**: ``solve_posture(conf, [hand], tol=1e-10)``
from the start (seeded per target) finds a configuration q* that reaches the target
(globally: seed memory, restarts), and the loop drives the joints there with
``PostureTask(1)`` on q* alone (default limits, same dt and steps). Printed: how many reach
the target, the median and largest steps to reach (against the direct loop's on the
targets it reaches), and the median ``solve_posture`` time. Then the same with
``select="nearest", max_searches=40``: of the solutions 40 searches find, the one the
velocity-limited drive reaches soonest. Writes benchmarks/results/rest_causes.txt.

    python benchmarks/rest_causes.py [--robots ur5 panda] [--targets N] [--steps N]
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import example_robot_data
import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).parent))
from _timing import publish  # noqa: E402

import taskik  # noqa: E402

HANDS = {"ur5": "tool0", "panda": "panda_hand"}
DT = 0.01
REACHED = 1e-4
SINGULAR = 0.1  # reducible below this: the task itself cannot move toward its target
NEAREST_SEARCHES = 40  # select="nearest": searches per target


def classify(robot: str, targets: int, steps: int, seed: int) -> list[str]:
    model = example_robot_data.load(robot).model
    data = model.createData()
    hand = HANDS[robot]
    fid = model.getFrameId(hand)
    rng = np.random.default_rng(seed)
    lo = np.maximum(model.lowerPositionLimit, -np.pi)
    hi = np.minimum(model.upperPositionLimit, np.pi)
    classes: dict[str, list[tuple[float, float, float]]] = {
        "singular": [],
        "joint range": [],
        "other tasks": [],
    }
    reached = 0
    direct_steps: dict[int, int] = {}  # target index -> steps to reach (reached ones)
    goals: list[tuple[np.ndarray, pin.SE3]] = []
    for _ in range(targets):
        q_start, q_goal = rng.uniform(lo, hi), rng.uniform(lo, hi)
        pin.framesForwardKinematics(model, data, q_goal)
        conf = taskik.Configuration(model, q_start)
        task = taskik.FrameTask(hand, 1.0, 1.0)
        task.set_target(data.oMf[fid].copy())
        posture = taskik.PostureTask(1e-3)
        posture.set_target(q_start)
        tasks = [task, posture]
        goals.append((q_start, task.target))
        v = np.zeros(model.nv)
        first = None
        for k in range(steps):
            v = taskik.solve_ik(conf, tasks, DT)
            conf.integrate_inplace(v, DT)
            if first is None and np.linalg.norm(task.compute_error(conf)) < REACHED:
                first = k + 1
        status = taskik.report(conf, tasks, DT, v)
        hand_status = status.tasks[0]
        if hand_status.error_norm < REACHED:
            reached += 1
            assert first is not None  # (the same error: set at the last step at the latest)
            direct_steps[len(goals) - 1] = first
            continue
        fraction = hand_status.reducible if hand_status.reducible is not None else 1.0
        position_bound = any(b.limit == "configuration" for b in status.active)
        J = pin.computeFrameJacobian(model, data, conf.q, fid, pin.LOCAL)
        smin = float(np.linalg.svd(J, compute_uv=False)[-1])
        kind = (
            "singular"
            if fraction < SINGULAR
            else "joint range"
            if position_bound
            else "other tasks"
        )
        classes[kind].append((fraction, hand_status.error_norm, smin))
    lines = [
        f"{robot}: direct loop: {reached}/{targets} reached (hand error < {REACHED:g}); "
        f"steps to reach: median {np.median(list(direct_steps.values())):.0f}, largest "
        f"{max(direct_steps.values())}"
    ]
    for kind, rows in classes.items():
        if not rows:
            lines.append(f"  {kind:<12} {0:>3}")
            continue
        fr, err, sm = (np.array(x) for x in zip(*rows, strict=True))
        lines.append(
            f"  {kind:<12} {len(rows):>3}  reducible {fr.min():.4f}–{fr.max():.4f}  "
            f"largest error {err.max():.3g}  smallest σ_min {sm.min():.1e}, largest {sm.max():.1e}"
        )
    return (
        lines
        + solve_then_drive(model, hand, goals, steps, direct_steps)
        + solve_then_drive(model, hand, goals, steps, direct_steps, "nearest", NEAREST_SEARCHES)
    )


def solve_then_drive(
    model,
    hand: str,
    goals,
    steps: int,
    direct: dict[int, int],
    select: str = "first",
    searches: int = 100,
) -> list[str]:
    """``solve_posture`` from the start (``select``, at most ``searches`` searches), then
    ``PostureTask(1)`` on its answer; ``direct``: the direct loop's steps to reach, per
    target it reached (compared on those targets)."""
    reached, found, to_reach, seconds = 0, 0, [], []
    both: list[tuple[int, int]] = []  # (recipe, direct) steps on targets both reach
    for i, (q_start, target) in enumerate(goals):
        conf = taskik.Configuration(model, q_start)
        task = taskik.FrameTask(hand, 1.0, 1.0)
        task.set_target(target)
        result = taskik.solve_posture(
            conf, [task], tol=1e-10, rng=i, select=select, max_searches=searches
        )
        seconds.append(result.time)
        if not result.success:
            continue
        found += 1
        drive = taskik.PostureTask(1.0)
        drive.set_target(result.q)
        for k in range(steps):
            conf.integrate_inplace(taskik.solve_ik(conf, [drive], DT), DT)
            if np.linalg.norm(task.compute_error(conf)) < REACHED:
                reached += 1
                to_reach.append(k + 1)
                if i in direct:
                    both.append((k + 1, direct[i]))
                break
    return [
        f"  solve ({select!r}, max_searches={searches}), then drive: solve_posture found "
        f"{found}/{len(goals)} (median "
        f"{1e3 * np.median(seconds):.2f} ms); {reached}/{len(goals)} reached; steps to reach: "
        f"median {np.median(to_reach):.0f}, largest {max(to_reach)}; on the {len(both)} "
        f"the direct loop reaches: median {np.median([b[0] for b in both]):.0f} against "
        f"{np.median([b[1] for b in both]):.0f}"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["ur5", "panda"], choices=list(HANDS))
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results/rest_causes.txt"))
    args = parser.parse_args()
    lines = [
        f"Why the default loop rests short of reachable targets: {args.targets} random targets "
        f"and starts per robot, {args.steps} steps of dt = {DT} s, seed {args.seed}; classes "
        f"from taskik.report at the last step (singular: reducible < {SINGULAR}; joint range: "
        "a position bound active; other tasks: neither)",
        f"python {platform.python_version()}, pinocchio {pin.__version__}",
    ]
    for robot in args.robots:
        lines += classify(robot, args.targets, args.steps, args.seed)
    publish("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
