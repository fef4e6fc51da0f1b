"""The settling benchmark's unsettled static-target episodes at dt = 0.001: does choosing the end
configuration first (``solve_posture``) and then driving the joints there settle them within the
1000 steps?

For every weighted (``flat``) taskik episode of the settling benchmark's full run
(``benchmarks/settling.py``: seed 0, two repetitions per set-up) in the scenarios ``reachable`` and
``out_of_reach`` at dt = 0.001 that is unsettled after its 1000 steps (the episodes of
``settling_bounds.py``; the prioritized ones are the same set-ups, and the recipe below does not
depend on the mode), this runs the README's recipe for far static targets from the episode's start:

1. ``solve_posture(conf, [*feet, hand], tol=1e-10, rng=0)``, with its default ``select``
   (the first solution found) and with ``select="nearest", max_searches=40`` (of the
   solutions 40 searches find, the one soonest reached at the velocity limits): its answer
   ``q*``, whether it
   met the tolerance (never, out of reach), its wall time (the search runs once, before
   the first step; a real controller would have to fit it into its cycle of 1 ms);
2. ``T(q*)`` = ``max_i |q*_i − q_start_i| / vmax_i``: no velocity-limited motion gets to q*
   sooner (``settling_bounds.py``'s bound, for this one configuration);
3. The settling benchmark's loop for 1000 steps (``settling.run_loop``, its settled rule and
   goal errors) with the feet tasks and ``PostureTask(1)`` targeting q* (weighted), default
   settings.

It answers whether the global choice that ``solve_posture`` makes is the one the 1 s
episodes need (the soonest reached), not whether it finds a solution.

    python benchmarks/settling_plan.py

The table goes to stdout and to benchmarks/results/settling_plan.txt.
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik

sys.path.insert(0, str(Path(__file__).parent))
import settling as b5  # noqa: E402
import settling_bounds as bounds  # noqa: E402
from _timing import publish  # noqa: E402

#: (select, max_searches) of solve_posture: its default, and the nearest of 40 searches
VARIANTS = (("first", 100), ("nearest", 40))


def plan_and_drive(
    info: b5.RobotInfo, episode: b5.Episode, select: str, searches: int
) -> tuple[str, b5.Result]:
    """One row of the table (without the case) and the driven loop's settling result."""
    targets = b5.make_targets(info, episode)
    goals, feet, _ = b5.taskik_tasks(targets, episode.setup.mode)
    model = info.robot.model
    conf = taskik.Configuration(model, targets.q_start.copy())
    t0 = time.perf_counter()
    answer = taskik.solve_posture(
        conf, [*feet, *goals], tol=1e-10, rng=0, select=select, max_searches=searches
    )
    solve_ms = 1e3 * (time.perf_counter() - t0)
    vmax = np.where(model.velocityLimit < 1e3, model.velocityLimit, np.inf)
    t_bound = float(np.max(np.abs(pin.difference(model, targets.q_start, answer.q)) / vmax))
    drive = taskik.PostureTask(1.0)
    drive.set_target(answer.q)
    tasks = [*feet, drive]

    def step() -> np.ndarray:
        v = taskik.solve_ik(conf, tasks, bounds.DT)
        conf.integrate_inplace(v, bounds.DT)
        return v

    res = b5.run_loop(info, targets, step, lambda k: None, lambda: conf.q, None, 0)
    reached = "—" if res.steps_to_reach is None else f"{res.steps_to_reach * bounds.DT:.3f}"
    row = (
        f"{str(answer.success):>7s} {solve_ms:8.1f} {t_bound:6.3f} {reached:>7s} "
        f"{str(res.settled):>7s} {res.final_error:9.2e}"
    )
    return row, res


def main() -> None:
    t0 = time.perf_counter()
    lines = [
        "Settling, static-target episodes unsettled after 1000 steps at dt 0.001 "
        "(taskik defaults): "
        "solve_posture(conf, [*feet, hand]) first, then drive the joints there (PostureTask(1))",
        f"python {platform.python_version()}, pinocchio {pin.__version__}, numpy "
        f"{np.__version__}, {platform.machine()}",
        "",
        "met: solve_posture met tol=1e-10; solve ms: its wall time; T(q*): the least time any "
        "velocity-limited motion needs to get to its answer;",
        "reached s: first time every goal error < 1e-4 while driving ('—': not within the "
        "1000 steps); settled: the settling benchmark's rule after 1000 steps; err: goal "
        "error then.",
    ]
    for select, searches in VARIANTS:
        settled = total = 0
        lines += [
            "",
            f"select={select!r}, max_searches={searches}:",
            f"{'--case':44s} {'met':>7s} {'solve ms':>8s} {'T(q*)':>6s} {'reached':>7s} "
            f"{'settled':>7s} {'err':>9s}",
        ]
        for scenario in ("reachable", "out_of_reach"):
            for episode, _ in bounds.unsettled(scenario, b5.ROBOTS):
                if episode.setup.mode != "flat":
                    continue
                info = b5.robot_info(episode.setup.robot)
                row, res = plan_and_drive(info, episode, select, searches)
                lines.append(f"{episode.case:44s} {row}")
                print(lines[-1], file=sys.stderr, flush=True)
                settled += res.settled
                total += 1
        lines.append(f"settled within the 1000 steps: {settled} of {total}")
    lines.append(f"({time.perf_counter() - t0:.0f} s)")
    publish("\n".join(lines), Path(__file__).parent / "results" / "settling_plan.txt")


if __name__ == "__main__":
    main()
