"""Input fuzzing of every public entry point: outcomes by module and entry point, and pink's.

Runs the seeded fuzzer of ``tests/fuzz.py`` (the harness of ``tests/test_fuzz.py``, which runs
a subsample) over every case and prints the tables of outcomes by module and by entry point
(ok, TaskikError naming the problem, vague error, bare exception, process crash, garbage
result, valid input rejected) and examples of every failure cause. The cases run in a forked
worker: a segfault or a hang is counted as a crash and the run goes on. If pin-pink is
installed, the first pass's mutations go through pink's equivalent entry points
(Configuration, integrate, frame placements, FrameTask, PostureTask, limits, solve_ik) and
its table is printed too, a ``pink.exceptions.PinkError`` counting as pink's own error.
``--no-pink`` skips that part. The ``mjcf`` module's row (``taskik.mjcf`` and mink's names
for its helpers: ``SE3.from_mocap_id``, ``move_mocap_to_frame``, ``MujocoMirror``, ...) counts
the cases that run MuJoCo only where it is installed (the dev extra brings it).

    python benchmarks/fuzz_inputs.py --cases 25000 --examples 2 > benchmarks/results/fuzz_inputs.txt
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzz  # noqa: E402
from fuzz import ACCEPT, ANY, REJECT, Bot, Case, Mut  # noqa: E402


def taskik_table(world: fuzz.World, cases: int, seed: int, examples: int) -> fuzz.Summary:
    t0 = time.perf_counter()
    generated = fuzz.generate(world, cases, seed=seed)
    outcomes = fuzz.run_cases(generated)
    elapsed = time.perf_counter() - t0
    summary = fuzz.Summary(outcomes)
    t = summary.totals
    answered = t.get("error", 0) + t.get("vague", 0)
    print(f"taskik: {len(outcomes)} cases (seed {seed}) in {elapsed:.1f} s")
    print(
        f"crashes {t.get('crash', 0)}, bare exceptions {t.get('bare', 0)}, garbage "
        f"{t.get('garbage', 0)}, valid inputs rejected {t.get('rejected', 0)}, vague messages "
        f"{t.get('vague', 0)} ({100.0 * t.get('vague', 0) / max(answered, 1):.2f} % of the "
        "errors)\n"
    )
    print(summary.module_table())
    print()
    print(summary.table())
    print("\nfailure causes (kind, cause: count, entry points; examples):")
    print(summary.failures(examples=examples))
    return summary


# ------------------------------------------------------------------------------ pink
def pink_cases(world: fuzz.World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The fuzzer's mutations through pink's equivalent entry points."""
    import pink
    import pink.limits
    import pink.tasks

    model = bot.model
    q = bot.random_q(rng)
    frame = bot.frames[0]
    goal_conf = pink.Configuration(model, model.createData(), bot.random_q(rng))
    goal = goal_conf.get_transform_frame_to_world(frame)
    vcheck = fuzz.check_velocity(model.nv, -bot.vmax, bot.vmax)
    out: list[Case] = []

    def conf(qq: np.ndarray | None = None) -> Any:
        return pink.Configuration(model, model.createData(), q.copy() if qq is None else qq)

    def step(tasks: list[Any], dt: Any = 0.01, **kw: Any) -> np.ndarray:
        return pink.solve_ik(conf(), tasks, dt, solver=kw.pop("solver", "daqp"), **kw)

    def frame_task(**kw: Any) -> Any:
        args: dict[str, Any] = {"frame": frame, "position_cost": 1.0, "orientation_cost": 1.0}
        args.update(kw)
        task = pink.tasks.FrameTask(**args)
        task.set_target(goal)
        return task

    def add(entry: str, muts: list[Mut], make: Callable[[Any], Callable[[], Any]], check, names):
        for m in muts:
            out.append(Case(entry, m.label, make(m.value), m.expect, check, names, bot.name))

    qm = fuzz.vector_muts(q)
    if bot.floating:
        bad = q.copy()
        bad[3:7] *= 2.0
        qm.append(Mut("quaternion of norm 2", bad, REJECT))
    add(
        "Configuration",
        [Mut(f"q={m.label}", m.value, m.expect) for m in qm],
        lambda v: lambda: pink.Configuration(model, model.createData(), v),
        None,
        ("q", "configuration"),
    )
    c0 = conf()
    v = rng.uniform(-0.5, 0.5, model.nv)
    add(
        "Configuration.integrate",
        [Mut(f"v={m.label}", m.value, m.expect) for m in fuzz.vector_muts(v)],
        lambda vv: lambda: c0.integrate(vv, 0.01),
        fuzz.check_q(model),
        ("v", "velocity"),
    )
    add(
        "Configuration.integrate",
        [Mut(f"dt={m.label}", m.value, m.expect) for m in fuzz.scalar_muts(0.01, fuzz.POSITIVE)],
        lambda d: lambda: c0.integrate(v, d),
        fuzz.check_q(model),
        ("dt",),
    )
    add(
        "Configuration.get_transform_frame_to_world",
        fuzz.name_muts(frame, nframes=model.nframes),
        lambda f: lambda: c0.get_transform_frame_to_world(f),
        fuzz.check_se3(),
        ("frame",),
    )
    for pname in ("position_cost", "orientation_cost"):
        muts = fuzz.merge(
            fuzz.scalar_muts(1.0, fuzz.NONNEG), fuzz.vector_muts(np.ones(3), scalar_ok=True)
        )
        add(
            "FrameTask()",
            [Mut(f"{pname}={m.label}", m.value, m.expect) for m in muts],
            lambda val, p=pname: lambda: step([frame_task(**{p: val})]),
            vcheck,
            ("cost",),
        )
    for pname, valid, base in (("gain", fuzz.UNIT, 0.5), ("lm_damping", fuzz.NONNEG, 0.0)):
        add(
            "FrameTask()",
            [Mut(f"{pname}={m.label}", m.value, m.expect) for m in fuzz.scalar_muts(base, valid)],
            lambda val, p=pname: lambda: step([frame_task(**{p: val})]),
            vcheck,
            (pname,),
        )
    add(
        "FrameTask()",
        [Mut(f"frame={m.label}", m.value, m.expect) for m in fuzz.name_muts(frame)],
        lambda f: lambda: step([frame_task(frame=f)]),
        vcheck,
        ("frame",),
    )

    def set_target(val: Any) -> Callable[[], Any]:
        def run() -> Any:
            task = pink.tasks.FrameTask(frame, 1.0, 1.0)
            task.set_target(val)
            step([task])
            return task

        return run

    se3 = [  # pink documents pin.SE3 targets only: arrays may be accepted or refused
        Mut(m.label, m.value, ANY if m.expect == ACCEPT and m.label != "pin.SE3" else m.expect)
        for m in fuzz.se3_muts(goal)
    ]
    add("FrameTask.set_target", se3, set_target, None, ("target", "se3", "transform"))

    def posture(val: Any) -> Callable[[], Any]:
        def run() -> Any:
            task = pink.tasks.PostureTask(cost=1e-3)
            task.set_target(val)
            return step([frame_task(), task])

        return run

    add("PostureTask.set_target", qm, posture, vcheck, ("target", "q", "posture"))
    add(
        "PostureTask()",
        [Mut(f"cost={m.label}", m.value, m.expect) for m in fuzz.scalar_muts(1e-3, fuzz.NONNEG)],
        lambda val: lambda: step([frame_task(), _posture(pink, val, bot)]),
        vcheck,
        ("cost",),
    )
    add(
        "solve_ik",
        [Mut(f"dt={m.label}", m.value, m.expect) for m in fuzz.scalar_muts(0.01, fuzz.POSITIVE)],
        lambda d: lambda: step([frame_task()], dt=d),
        vcheck,
        ("dt",),
    )
    add(
        "solve_ik",
        [
            Mut(f"damping={m.label}", m.value, m.expect)
            for m in fuzz.scalar_muts(1e-12, fuzz.NONNEG)
        ],
        lambda d: lambda: step([frame_task()], damping=d),
        vcheck,
        ("damping",),
    )
    other = world.other(bot)
    lims = [
        Mut("limits=[VelocityLimit(other model)]", "velocity", REJECT),
        Mut("limits=[ConfigurationLimit(other model)]", "configuration", REJECT),
        Mut("limits=[None]", [None], REJECT),
        Mut("tasks=[None]", "tasks-none", REJECT),
        Mut("tasks=[Task without target]", "no-target", REJECT),
        Mut("solver='nope'", "solver", REJECT),
    ]

    def limits_case(kind: Any) -> Callable[[], Any]:
        def run() -> Any:
            if kind == "velocity":
                return step([frame_task()], limits=[pink.limits.VelocityLimit(other.model)])
            if kind == "configuration":
                limit = pink.limits.ConfigurationLimit(other.model)
                return step([frame_task()], limits=[limit])
            if kind == "tasks-none":
                return step([None])
            if kind == "no-target":
                return step([pink.tasks.FrameTask(frame, 1.0, 1.0)])
            if kind == "solver":
                return step([frame_task()], solver="nope")
            return step([frame_task()], limits=kind)

        return run

    add("solve_ik", lims, limits_case, vcheck, ("limit", "model", "task", "target", "solver"))
    add(
        "ConfigurationLimit",
        [Mut(f"gain={m.label}", m.value, m.expect) for m in fuzz.scalar_muts(0.5, fuzz.UNIT)],
        lambda g: (
            lambda: step(
                [frame_task()], limits=[pink.limits.ConfigurationLimit(model, config_limit_gain=g)]
            )
        ),
        vcheck,
        ("gain",),
    )
    return out


def _posture(pink: Any, cost: Any, bot: Bot) -> Any:
    task = pink.tasks.PostureTask(cost=cost)
    task.set_target(bot.q0)
    return task


def pink_table(world: fuzz.World, seed: int, examples: int) -> None:
    try:
        import pink
        import pink.exceptions
    except ImportError:
        print("\npink is not installed (pip install pin-pink): comparison skipped")
        return
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    for name in world.order:
        cases += pink_cases(world, world.bots[name], rng)
    t0 = time.perf_counter()
    outcomes = fuzz.run_cases(cases, error_type=pink.exceptions.PinkError)
    elapsed = time.perf_counter() - t0
    summary = fuzz.Summary(outcomes)
    print(
        f"\npink {getattr(pink, '__version__', '?')}: {len(outcomes)} cases, the same mutations "
        f"through its equivalent entry points, in {elapsed:.1f} s (a PinkError is its own error)\n"
    )
    print(summary.table())
    print("\nfailure causes:")
    print(summary.failures(examples=examples))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=25000, help="at least this many cases")
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--examples", type=int, default=2, help="examples per failure cause")
    parser.add_argument("--no-pink", action="store_true", help="skip the pink comparison")
    args = parser.parse_args()
    import coal

    print(
        f"pinocchio {pin.__version__}, coal {coal.__version__}, numpy {np.__version__}, "
        f"taskik {fuzz.taskik.__version__}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        world = fuzz.World(tmp)
        taskik_table(world, args.cases, args.seed, args.examples)
        if not args.no_pink:
            pink_table(world, args.seed, args.examples)


if __name__ == "__main__":
    main()
