"""pink's own examples, run with pink and ported to taskik by renaming the imports.

``taskik/`` holds four of pink's examples (``arm_ur3_velocity_smoothing``,
``flying_dual_arm_ur3``, ``humanoid_g1_com``, ``barriers/go2_squat``) ported to taskik: with
example-robot-data's robot of the same name, the display lines dropped, a fixed number of
steps, and the imports renamed. pink's version of each is made from the port by renaming the
imports back (:data:`TO_PINK`), so the two differ in exactly those lines and only one copy of
pink's code is kept. This runner executes each version as a script (``runpy``), with the
library's ``solve_ik`` wrapped to record, at every step, the configuration, every task's
tracking error and the returned velocity; then compares the two runs step by step and
writes ``benchmarks/results/pink_examples.txt``.

Measured per example (taskik with its defaults, pink as written):

- lines changed: lines of the taskik copy that differ from the pink copy (``difflib``);
- max |Δv|, |Δq|: the largest ``‖v_taskik − v_pink‖∞`` and ``‖q_taskik − q_pink‖∞`` over
  the steps (both loops run on their own: a difference grows with time);
- tracking error: per task, the position error ``‖p* − p‖`` (m) of every ``FrameTask`` on
  its axes of non-zero position cost and ``‖c* − c‖`` of a ``ComTask``; the largest over the
  run for each library, and ``over``: steps where a task's error with taskik exceeds
  ``1.1 ×`` pink's ``+ 1 mm`` (target 0);
- ``v=0 & grows``: steps that return exactly ``v = 0`` while a task's error is larger at the
  next step than at this one (target 0);
- ``p2``: steps inside period-2 runs: ``cos(v_k, v_{k+1}) < −0.9`` with ``‖v_k‖,
  ‖v_{k+1}‖ > 1`` rad/s on at least 3 consecutive pairs (target 0).

``go2_squat`` is run with the solver the script picks (OSQP) and again with DAQP, quadprog
and ProxQP for both libraries (``--solvers``): the solver is replaced in the wrapped call.
A library that raises ends its run; the table says where.

Run: ``python benchmarks/pink_examples/run.py`` (pink: ``pip install pin-pink``).
"""

from __future__ import annotations

import argparse
import difflib
import pickle
import platform
import runpy
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

HERE = Path(__file__).resolve().parent
# (the folder of the ports, named taskik/, must not shadow the library: this script's folder
# leaves the import path)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
RESULTS = HERE.parent / "results" / "pink_examples.txt"
EXAMPLES = ["arm_ur3_velocity_smoothing", "flying_dual_arm_ur3", "humanoid_g1_com", "go2_squat"]

#: tracking errors may exceed pink's by this factor and this margin (m)
FACTOR, MARGIN = 1.1, 1e-3
#: a period-2 pair: cos(v_k, v_k+1) below this with both speeds above SPEED (rad/s)
COS_FLIP, SPEED, RUN = -0.9, 1.0, 3


def _position_cost(task: Any) -> np.ndarray:
    cost = np.asarray(task.position_cost, dtype=float)
    return np.broadcast_to(cost, (3,)) if cost.ndim == 0 else cost[:3]


def tracking_errors(configuration: Any, tasks: Any) -> dict[str, float]:
    """Each tracked task's error (m): a frame task's position error on its axes of non-zero
    position cost, a CoM task's ``‖c* − c‖``; other tasks are not tracked."""
    errors: dict[str, float] = {}
    model, data = configuration.model, configuration.data
    for task in tasks:
        kind = type(task).__name__
        if kind == "FrameTask":
            mask = _position_cost(task) > 0.0
            if not mask.any():
                continue
            fid = model.getFrameId(str(task.frame))
            p = data.oMf[fid].translation
            target = task.transform_target_to_world.translation
            errors[f"{task.frame}"] = float(np.linalg.norm((target - p)[mask]))
        elif kind == "ComTask":
            com = pin.centerOfMass(model, pin.Data(model), configuration.q)
            errors["com"] = float(np.linalg.norm(np.asarray(task.target_com) - com))
    return errors


class Recorder:
    """Wraps a library's ``solve_ik``: records q, the tracking errors and v of every step."""

    def __init__(self, solve_ik: Callable[..., np.ndarray], solver: str | None) -> None:
        self.solve_ik = solve_ik
        self.solver = solver
        self.qs: list[np.ndarray] = []
        self.vs: list[np.ndarray] = []
        self.errors: list[dict[str, float]] = []
        self.raised = ""

    def record(self) -> dict[str, Any]:
        """What was recorded, as plain data."""
        return {"qs": self.qs, "vs": self.vs, "errors": self.errors, "raised": self.raised}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Recorder:
        recorder = cls(lambda *a, **k: None, None)
        vars(recorder).update(data)
        return recorder

    def __call__(self, configuration: Any, tasks: Any, dt: float, **kwargs: Any) -> np.ndarray:
        if self.solver is not None:
            kwargs["solver"] = self.solver
        self.qs.append(np.array(configuration.q))
        self.errors.append(tracking_errors(configuration, tasks))
        v = self.solve_ik(configuration, tasks, dt, **kwargs)
        self.vs.append(np.array(v))
        return v


#: The port's lines that name taskik, and pink's line for each (checked: every port must
#: differ from pink's version in these lines only).
TO_PINK = (
    ("from taskik.limits import PositionBarrier", "from pink.barriers import PositionBarrier"),
    ("import taskik", "import pink"),
    ("from taskik", "from pink"),
    ("taskik.Configuration(", "pink.Configuration("),
)


def source(library: str, name: str) -> str:
    """The script of ``name`` for ``library``: the port, or pink's version made from it."""
    text = (HERE / "taskik" / f"{name}.py").read_text()
    if library == "taskik":
        return text
    for ours, theirs in TO_PINK:
        text = text.replace(ours, theirs)
    if "taskik" in text.split('"""', 2)[-1]:
        raise RuntimeError(f"{name}: a line names taskik that TO_PINK does not rename")
    return text


def run_example(library: str, name: str, solver: str | None) -> Recorder:
    """Run ``<library>/<name>.py`` as a script with the library's ``solve_ik`` recorded, in
    this process (:func:`run_isolated` runs it in a process of its own). An exception ends
    the run; it is kept in ``recorder.raised``."""
    module = __import__(library)
    original = module.solve_ik
    recorder = Recorder(original, solver)
    module.solve_ik = recorder
    try:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / f"{name}.py"
            script.write_text(source(library, name))
            runpy.run_path(str(script), run_name="__main__")
    except Exception as exc:  # noqa: BLE001  (a library that raises: an outcome to report)
        recorder.raised = f"{type(exc).__name__} at step {len(recorder.vs)}"
    finally:
        module.solve_ik = original
    return recorder


def run_isolated(library: str, name: str, solver: str | None) -> Recorder:
    """:func:`run_example` in a fresh Python process, so that neither library sees what the
    other did to shared state (pink attaches its limits to the model, for instance)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.pkl"
        subprocess.run(
            [sys.executable, __file__, "--worker", library, name, solver or "", str(out)],
            check=True,
        )
        with out.open("rb") as f:
            return Recorder.from_record(pickle.load(f))


def lines_changed(name: str) -> int:
    a = source("pink", name).splitlines()
    b = source("taskik", name).splitlines()
    return sum(
        j2 - j1
        for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes()
        if tag != "equal"
    )


def frozen_while_growing(rec: Recorder) -> int:
    """Steps returning exactly v = 0 while a task's error, not zero, is larger at the next
    step (the first step of a loop whose targets start met and then move is not one)."""
    count = 0
    for k in range(len(rec.vs) - 1):
        if not rec.vs[k].any():
            now, nxt = rec.errors[k], rec.errors[k + 1]
            if any(now[key] > 1e-9 and nxt[key] > now[key] for key in now):
                count += 1
    return count


def period_two_steps(vs: list[np.ndarray]) -> int:
    """Steps inside runs of ≥ RUN consecutive flipping pairs (see the module docstring)."""
    flips = []
    for a, b in zip(vs[:-1], vs[1:], strict=True):
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        flips.append(na > SPEED and nb > SPEED and float(a @ b) < COS_FLIP * na * nb)
    steps: set[int] = set()
    k = 0
    while k < len(flips):
        if flips[k]:
            j = k
            while j < len(flips) and flips[j]:
                j += 1
            if j - k >= RUN:
                steps.update(range(k, j + 1))
            k = j
        else:
            k += 1
    return len(steps)


def compare(name: str, solver: str | None) -> dict[str, Any]:
    runs = {lib: run_isolated(lib, name, solver) for lib in ("pink", "taskik")}
    p, t = runs["pink"], runs["taskik"]
    n = min(len(p.vs), len(t.vs))
    dv = max(float(np.abs(t.vs[k] - p.vs[k]).max()) for k in range(n))
    dq = max(float(np.abs(t.qs[k] - p.qs[k]).max()) for k in range(n))
    over = 0
    worst = {"pink": 0.0, "taskik": 0.0}
    worst_excess = -np.inf
    for k in range(n):
        ep, et = p.errors[k], t.errors[k]
        worst["pink"] = max(worst["pink"], *ep.values())
        worst["taskik"] = max(worst["taskik"], *et.values())
        excess = max(et[key] - (FACTOR * ep[key] + MARGIN) for key in ep)
        worst_excess = max(worst_excess, excess)
        over += excess > 0.0
    return {
        "name": name,
        "solver": solver or "script's",
        "steps": n,
        "lines": lines_changed(name),
        "dv": dv,
        "dq": dq,
        "err_pink": worst["pink"],
        "err_taskik": worst["taskik"],
        "over": over,
        "excess": worst_excess,
        "frozen_pink": frozen_while_growing(p),
        "frozen_taskik": frozen_while_growing(t),
        "p2_pink": period_two_steps(p.vs),
        "p2_taskik": period_two_steps(t.vs),
        "raised": "; ".join(f"{lib} {r.raised}" for lib, r in runs.items() if r.raised),
    }


def worker(library: str, name: str, solver: str, out: str) -> None:
    recorder = run_example(library, name, solver or None)
    with open(out, "wb") as f:
        pickle.dump(recorder.record(), f)


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", nargs="+", default=EXAMPLES, choices=EXAMPLES)
    parser.add_argument(
        "--solvers",
        nargs="*",
        default=["daqp", "quadprog", "proxqp"],
        help="extra solvers for go2_squat",
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    import pink  # noqa: F401  (fails early, with pink's own message, when not installed)

    start = time.perf_counter()
    rows = []
    for name in args.examples:
        solvers: list[str | None] = [None]
        if name == "go2_squat":
            solvers += args.solvers
        for solver in solvers:
            rows.append(compare(name, solver))
            print(rows[-1], flush=True)
    versions = (
        f"python {platform.python_version()}, pinocchio {pin.__version__}, "
        f"numpy {np.__version__}, pin-pink {_version('pin-pink')}, x86_64; "
        f"{time.perf_counter() - start:.0f} s"
    )
    header = (
        "pink's examples, run with pink and with taskik (imports renamed, taskik's defaults); "
        "200 Hz, example-robot-data robots\n"
        f"{versions}\n\n"
        "lines: lines changed by the port; |Δv|, |Δq|: largest ‖·‖∞ difference over the run "
        "(each library runs its own loop); err: largest tracking error (m) of a task;\n"
        f"over: steps where a task's error with taskik > {FACTOR}× pink's + {MARGIN * 1e3:g} mm "
        "(target 0), excess: the largest taskik − (1.1 pink + 1 mm) (m, ≤ 0 is within);\n"
        "v=0&grows: steps returning v = 0 while a task error grows (target 0); p2: steps in "
        "period-2 runs (cos(v_k, v_k+1) < −0.9, ‖v‖ > 1 rad/s, ≥ 3 consecutive; target 0);\n"
        "solver: the script's choice (DAQP; OSQP in go2_squat) or the one given to both\n\n"
    )
    cols = (
        f"{'example':28} {'solver':9} {'steps':>5} {'lines':>5} {'|Δv|':>8} {'|Δq|':>8} "
        f"{'err pink':>9} {'err taskik':>10} {'over':>5} {'excess':>9} "
        f"{'v=0&grows p/t':>14} {'p2 pink/taskik':>15}"
    )
    lines = [cols]
    for r in rows:
        lines.append(
            f"{r['name']:28} {r['solver']:9} {r['steps']:5d} {r['lines']:5d} {r['dv']:8.2g} "
            f"{r['dq']:8.2g} {r['err_pink']:9.3g} {r['err_taskik']:10.3g} {r['over']:5d} "
            f"{r['excess']:9.2g} {r['frozen_pink']:>6d}/{r['frozen_taskik']:<7d} "
            f"{r['p2_pink']:>7d}/{r['p2_taskik']:<7d}"
            + (f"  raised: {r['raised']}" if r["raised"] else "")
        )
    text = header + "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        RESULTS.write_text(text)


def _version(name: str) -> str:
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:  # noqa: BLE001  (a missing distribution: say so in the table)
        return "?"


if __name__ == "__main__":
    sys.exit(main())
