"""MkDocs hook: the "Benchmarks" page, generated from ``benchmarks/results/`` at every build.

The page is never written by hand, so its figures cannot drift from the results the benchmark
scripts wrote: a summary table of the step benchmark parsed from ``step_vs_pink.txt``, then,
for every results file, what it measures (``SECTIONS`` below) and the file itself. A results
file without a section fails the build (and ``tests/test_docs.py``). The benchmarks' short
codes of the results files ("B1" ...) are replaced by their names.

Use from mkdocs.yml (the page is then ``benchmarks.md`` in the nav)::

    hooks:
      - docs/_hooks/benchmarks_page.py
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = "benchmarks.md"

#: (results file stem, title, what it measures), in the page's order.
SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("step_vs_pink", "One control step against pink and mink",
     "One `solve_ik` step (tasks, limits, assembly and the QP) with the same models, tasks and "
     "QP solver (DAQP) as pink and mink, the configuration moving along a smooth path between "
     "timed steps; mink runs on the same URDF loaded into MuJoCo. "
     "`benchmarks/step_vs_pink.py` (`make bench`)."),
    ("step_compiled_peers", "One control step against compiled peers",
     "The same scenes through placo, roboplan-oink, TSID and EmbodiK (C++ libraries with "
     "Python bindings), each installed from PyPI in its own environment and timed against "
     "taskik in one process; the velocities compared step by step along a closed loop, and "
     "where each peer's problem differs from taskik's. "
     "`benchmarks/step_compiled_peers.py` (`make bench-peers`)."),
    ("posture_vs_rtb", "Solving to a posture against roboticstoolbox-python",
     "`solve_posture` with its defaults against roboticstoolbox-python's compiled `ik_LM` "
     "(Chan's Levenberg–Marquardt, λ = 0.1) on the same 2,000 UR5 targets from the same first "
     "configuration, calls alternating target by target in one process: time per call "
     "(median, mean, 95th percentile), success, iterations, and the per-call and "
     "per-iteration costs. `benchmarks/posture_vs_rtb.py` (needs roboticstoolbox-python)."),
    ("step_chains", "Long chains",
     "A frame task on the tip of serial chains of 50 to 200 joints and a posture, with no bound "
     "active and with bounds active. `benchmarks/step_chains.py`."),
    ("fresh_tasks", "A task list built anew at every step",
     "The step when the tasks are created again at every call instead of reused. "
     "`benchmarks/fresh_tasks.py`."),
    ("blas_threads", "BLAS's thread pool",
     "The step with the BLAS library's default thread count against one thread, while a second "
     "process keeps another core busy: the scenes of the first section, and a chain whose "
     "product AᵀA is large enough for OpenBLAS to split over its threads. "
     "`benchmarks/blas_threads.py` (needs threadpoolctl)."),
    ("qp_solvers", "QP solvers",
     "The same step with each installed QP solver. `benchmarks/qp_solvers.py`."),
    ("step_floor", "The step's floor",
     "The Pinocchio calls and the one warm QP solve a step cannot do without, timed alone. "
     "`benchmarks/step_floor.py`."),
    ("step_lean", "A step fused by hand",
     "A step written for one scene without a library's checks or generality, returning the "
     "same velocity. `benchmarks/step_lean.py`."),
    ("settling", "Coming to rest",
     "Whether closed loops settle: 552 seeded episodes over five robots (reachable, "
     "out-of-reach, moving and conflicting targets), weighted and with priority levels, "
     "against the plain step and pink. Explained in [Coming to rest](concepts/settling.md). "
     "`benchmarks/settling.py`."),
    ("settling_bounds", "Coming to rest: the least time any controller needs",
     "`benchmarks/settling_bounds.py`."),
    ("settling_moving", "Coming to rest: moving targets that can be followed",
     "`benchmarks/settling_moving.py`."),
    ("settling_plan", "Coming to rest: solving for the end configuration first",
     "`benchmarks/settling_plan.py`."),
    ("rest_causes", "Why a loop rests short of a reachable target",
     "Classified with `taskik.report`'s reducible fraction. `benchmarks/rest_causes.py`."),
    ("table1", "Solving to a pose: Haviland and Corke's Table 1",
     "The rows of Table 1 of Haviland and Corke, \"Manipulator Differential Kinematics\" "
     "(random restarts), and taskik's default `solve_posture`, against "
     "roboticstoolbox-python's `ik_LM`. `benchmarks/table1.py`."),
    ("trac_ik_style", "Pose IK with joint limits, as TRAC-IK measures it",
     "`benchmarks/trac_ik_style.py`."),
    ("buss_tracking", "Tracking with Buss's Y and double-Y",
     "Every unconstrained backend tracking moving targets. `benchmarks/buss_tracking.py`."),
    ("hierarchy_vs_weighted", "Priority levels against one weighted QP",
     "`benchmarks/hierarchy_vs_weighted.py`."),
    ("joint_limit_map", "Joint limits without a QP",
     "The change of variable of the unconstrained backends against the QP's box. "
     "`benchmarks/joint_limit_map.py`."),
    ("collisions", "Self-collision on Talos, against pink",
     "`benchmarks/collisions.py`."),
    ("collisions_mink", "Self-collision on Talos, against mink",
     "`benchmarks/collisions_mink.py`."),
    ("collisions_instructions", "Self-collision on Talos: instructions per step",
     "`benchmarks/collisions.py --instructions` under callgrind: the step with and without "
     "the limit, before and after the check of the solved step, and by detection distance."),
    ("collisions_near", "Self-collision on Talos: cost per near pair",
     "`benchmarks/collisions.py --near-pairs`: the step by detection distance, against the "
     "step without collisions timed in the same rounds."),
    ("collisions_soak", "Collision soak: Panda among obstacles, Talos self-collision",
     "`benchmarks/collisions.py --soak 35000`: steps closer than the safety distance less "
     "0.1 mm, each reported or not, NaN, limit violations and errors, per robot."),
    ("collision_defaults", "The collision limit's defaults",
     "`benchmarks/collision_defaults.py`."),
    ("moving_obstacles", "Moving obstacles: a step always exists",
     "The Panda among spheres, boxes and slabs moving at up to 0.5 m/s above a table, random "
     "hand targets, 30,000 steps of the default step: exceptions, steps where rows gave way "
     "and how deep, pairs closer than the safety distance and whether the step named them. "
     "Explained in [When limits conflict](concepts/conflicts.md). "
     "`benchmarks/moving_obstacles.py`."),
    ("balance", "Static balance on humanoid postures",
     "Seeded posture problems on Talos, G1 and the bundled humanoid (double support, single "
     "support, feet and a hand on a table; random hand targets, many beyond what balance "
     "allows): the balance limit against pinning the CoM with a `ComTask`, each final posture "
     "checked by the force LP. Explained in [Balance](concepts/balance.md). "
     "`benchmarks/balance.py`."),
    ("balance_free_base", "Static balance with a free floating base",
     "The same problems with the floating base's velocity unbounded (`benchmarks/balance.py "
     "--free-base`): how far first-order steps carry the CoM past the rows when nothing "
     "bounds the base. Explained in [Balance](concepts/balance.md)."),
    ("batch", "Many poses at once",
     "`taskik.batch.solve_poses` against a loop of `solve_posture`. `benchmarks/batch.py`."),
    ("balance_step", "The cost of the balance limit in one step",
     "Talos on both feet, reaching past what balance allows and within it: the same step "
     "with and without `BalanceLimit`, timed at the same configurations. "
     "`benchmarks/balance_step.py`."),
    ("balance_instructions", "The cost of the balance limit in one step: instructions",
     "`benchmarks/balance_step.py --instructions` under callgrind: the same recorded steps "
     "with and without the limit, before and after the limit read the contact frames and "
     "the CoM through the configuration's views, and per call of the limit."),
    ("pink_examples", "pink's own examples, ported",
     "pink's `arm_ur3_velocity_smoothing.py`, `flying_dual_arm_ur3.py`, `humanoid_g1_com.py` "
     "and `barriers/go2_squat.py`, run with pink and with taskik after renaming the imports: "
     "lines changed, the largest velocity difference, tracking error at every step, steps "
     "with v = 0 while an error grows, period-2 steps. `benchmarks/pink_examples/run.py`."),
    ("fuzz_inputs", "Bad input to every public entry point",
     "Seeded mutations of every public entry point's arguments, each case run in a forked "
     "worker: how many give a clear error, a bare exception, a crash or a silently wrong "
     "answer (checked against an independent computation), by module. "
     "`benchmarks/fuzz_inputs.py`."),
    ("batch_integrity", "Batch output that cannot lie",
     "20,000 UR5 pose problems solved by `taskik.batch.solve_poses` into an output file while "
     "the caller and a worker are killed twice each and four part files are damaged by hand "
     "before the last resume: every problem answered once, equal bit for bit to a plain loop. "
     "`benchmarks/batch_integrity.py`."),
    ("retarget", "Retargeting one clip", "`benchmarks/retarget.py`."),
    ("retarget_many", "Retargeting many clips", "`benchmarks/retarget.py`."),
)  # fmt: skip

#: The benchmarks' short codes in the results files, and what the page says instead.
CODE_NAMES = {
    "B1": "the step benchmark",
    "B2": "the Table 1 benchmark",
    "B3": "the tracking benchmark",
    "B4": "the priorities benchmark",
    "B5": "the settling benchmark",
    "B6": "the collision benchmark",
    "seed 004": "Drexler's change of variable",
}
_CODE_RE = re.compile(r"\b(" + "|".join(re.escape(c) for c in CODE_NAMES) + r")\b")

_STEP_ROW = re.compile(
    r"^(?P<robot>\w+)\s+(?P<nv>\d+)\s+(?P<variant>taskik|pink|mink)\s+"
    r"(?P<median>[\d.]+)\s+(?P<p95>[\d.]+)\s",
    re.M,
)


def plain_words(text: str) -> str:
    """``text`` with the benchmarks' short codes replaced by their names."""
    return _CODE_RE.sub(lambda m: CODE_NAMES[m.group(1)], text)


def step_table(text: str) -> list[dict[str, Any]]:
    """Per robot of ``step_vs_pink.txt``: nv and the median and p95 µs of each library."""
    rows: dict[str, dict[str, Any]] = {}
    for m in _STEP_ROW.finditer(text):
        row = rows.setdefault(m["robot"], {"robot": m["robot"], "nv": int(m["nv"])})
        row[m["variant"]] = (float(m["median"]), float(m["p95"]))
    return [r for r in rows.values() if {"taskik", "pink", "mink"} <= r.keys()]


def step_summary(text: str) -> str:
    """The markdown table of :func:`step_table`, ratios computed from the medians."""
    lines = [
        "| robot (nv) | taskik, median / p95 | pink, median | mink, median "
        "| pink / taskik | mink / taskik |",
        "|---|---|---|---|---|---|",
    ]
    for r in step_table(text):
        t, p, k = r["taskik"], r["pink"], r["mink"]
        lines.append(
            f"| {r['robot']} ({r['nv']}) | {t[0]:.1f} / {t[1]:.1f} µs | {p[0]:.1f} µs "
            f"| {k[0]:.1f} µs | {p[0] / t[0]:.1f}× | {k[0] / t[0]:.1f}× |"
        )
    return "\n".join(lines)


def missing_sections(results: Path = RESULTS) -> list[str]:
    """Results files the page has no section for."""
    known = {stem for stem, _, _ in SECTIONS}
    return sorted(p.stem for p in results.glob("*.txt") if p.stem not in known)


def render(results: Path = RESULTS) -> str:
    """The page's markdown."""
    missing = missing_sections(results)
    if missing:
        raise ValueError(f"benchmarks/results/ files without a section in {__file__}: {missing}")
    out = [
        "# Benchmarks",
        "",
        "Generated from `benchmarks/results/` when the documentation is built: the figures "
        "below are the files the benchmark scripts wrote, as they are. Absolute times depend "
        "on the host; ratios measured in the same run are what to compare.",
        "",
        "## One step, in brief",
        "",
        "Median time of one `solve_ik` step and its ratio to pink's and mink's, from "
        "`step_vs_pink.txt`:",
        "",
        step_summary((results / "step_vs_pink.txt").read_text()),
        "",
    ]
    for stem, title, what in SECTIONS:
        path = results / f"{stem}.txt"
        if not path.exists():
            continue
        out += [f"## {title}", "", what, ""]
        if (results / f"{stem}.png").exists():
            out += [f"![{title}](images/benchmarks/{stem}.png)", ""]
        out += [f"`benchmarks/results/{stem}.txt`:", "", "```text"]
        out += [plain_words(path.read_text()).rstrip("\n"), "```", ""]
    return "\n".join(out)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=render()))
    for png in sorted(RESULTS.glob("*.png")):
        files.append(
            File.generated(config, f"images/benchmarks/{png.name}", content=png.read_bytes())
        )
    return files
