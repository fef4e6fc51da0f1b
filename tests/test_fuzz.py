"""Seeded input fuzzing of every public entry point (harness: ``tests/fuzz.py``).

Thousands of calls, each a valid call on a robot with one argument mutated (None, strings,
lists, wrong lengths, NaN/inf, huge, negative, complex, numpy scalars, bools, transposed
homogeneous matrices, unknown frames, limits or data of another model, unwritable or damaged
files, ...). Every call must end in a valid result or a ``taskik.TaskikError`` whose message
names the problem: no bare exception (TypeError, IndexError, boost ArgumentError, ...), no
process crash (the cases run in a forked worker, so a segfault is counted), no garbage result
(NaN/inf, wrong shape, an invalid input silently accepted, a warning on the way, a distance
that is not coal's, a batch answer that is not the plain loop's, a retargeted q outside the
joint limits, a frozen joint that moved, a coupling not held), and no valid input rejected.

The modules whose defects are being fixed on other branches are listed in
:data:`KNOWN_DEFECTS` with today's counts: for them the test asserts the count does not
grow; for every other module (and every kind not listed), zero. Empty an entry as its fixes
land. ``benchmarks/fuzz_inputs.py`` runs every case (more than 25,000) and writes the table.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fuzz  # noqa: E402

#: At least this many cases before the subsample; every robot gets a whole round of every
#: generator.
N_CASES = int(os.environ.get("TASKIK_FUZZ_CASES", "5000"))
SEED = int(os.environ.get("TASKIK_FUZZ_SEED", "20261123"))

#: The subsample (one case in k of each entry point of a generator, the first kept, and every
#: case compared with an independent answer): about 9,300 of the 41,569 cases, so that the
#: suite stays within CI's time; k is larger (6 to 12) where cases are costly (a QP solve, a
#: batch run, coal distances, a support-region LP) and the generator makes many of them. The
#: whole run is the benchmark's, ``benchmarks/fuzz_inputs.py``. Plots draw a figure in about
#: a second: one case per entry point.
EVERY = {
    "gen_tasks": 6,
    "gen_solve_ik": 6,
    "gen_balance": 8,
    "gen_steps": 3,
    "gen_leftovers": 2,
    "gen_posture": 3,
    "gen_configuration_methods": 3,
    "gen_random_valid": 6,
    "gen_reports": 4,
    "gen_metrics": 2,
    "gen_new_tasks": 8,
    "gen_new_limits": 6,
    "gen_collision": 6,
    "gen_geometry": 6,
    "gen_misc": 6,
    "gen_batch": 8,
    "gen_retarget": 2,
    "gen_plots": 10**6,
    "gen_cli": 8,
    "gen_mjcf": 2,
    "gen_later_entries": 12,
    "gen_array_entries": 6,
}

#: Known defects, by module and outcome kind: the count this subset measured on the day the
#: fuzzer reached these modules (see benchmarks/results/fuzz_findings.md for each defect and
#: a reproducer). The test fails if a count grows; lower an entry (or remove it) as fixes
#: land. A module or kind not listed must stay at zero.
#: None is open today: every finding of benchmarks/results/fuzz_findings.md is fixed.
KNOWN_DEFECTS: dict[str, dict[str, int]] = {}


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    world = fuzz.World(tmp_path_factory.mktemp("fuzz"))
    cases = fuzz.subsample(fuzz.generate(world, N_CASES, seed=SEED), EVERY)
    return fuzz.Summary(fuzz.run_cases(cases))


def _report(summary: fuzz.Summary, kinds, module: str | None = None) -> str:
    if module is not None:
        summary = fuzz.Summary([o for o in summary.outcomes if o.case.module == module])
    return "\n" + summary.table() + "\n\n" + summary.failures(kinds, examples=3)


def test_fuzz_covers_every_entry_point(summary):
    assert len(summary.outcomes) >= 5000
    robots = {o.case.robot for o in summary.outcomes}
    assert robots >= {"ur5", "panda", "humanoid", "planar_2r", "one_joint"}
    entries = set(summary.by_entry)
    for entry in (
        "Configuration",
        "Configuration.update",
        "Configuration.integrate",
        "Configuration.integrate_inplace",
        "Configuration.get_transform_frame_to_world",
        "Configuration.get_transform",
        "Configuration.get_frame_jacobian",
        "Configuration.get_frame_id",
        "Configuration.get_joint_id",
        "Configuration.check_limits",
        "Configuration.copy",
        "custom_configuration_vector",
        "FrameTask()",
        "PositionTask()",
        "OrientationTask()",
        "RelativeFrameTask()",
        "ComTask()",
        "PostureTask()",
        "DampingTask()",
        "AxisAlignmentTask()",
        "LookAtTask()",
        "DistanceTask()",
        "JointCouplingTask()",
        "KineticEnergyTask()",
        "LowAccelerationTask()",
        "ManipulabilityTask()",
        "RelativeComTask()",
        "FrameTask.set_target",
        "FrameTask.set_costs",
        "PostureTask.set_target_from_configuration",
        "JointCouplingTask.set_target",
        "Task.cost =",
        "ConfigurationLimit",
        "VelocityLimit",
        "FrozenJoints",
        "AccelerationLimit",
        "BaseVelocityLimit",
        "ConeLimit",
        "CollisionLimit",
        "CollisionLimit.distances",
        "limits.default_limits",
        "geometry.sphere",
        "geometry.box",
        "geometry.mesh",
        "geometry.fit_capsules",
        "geometry.self_collision_pairs",
        "geometry.CollisionScene",
        "JointLimitMap",
        "solve_ik",
        "solve_ik (levels)",
        "solve_ik backend=pinv",
        "solve_ik backend=dls",
        "solve_ik backend=sdls",
        "solve_ik backend=transpose",
        "solve_ik backend=regularized",
        "build_ik",
        "report",
        "hierarchy_report",
        "solve_posture",
        "batch.solve_poses",
        "batch.BatchResult.load",
        "retarget.retarget",
        "retarget.retarget_many",
        "retarget.clip_from_arrays",
        "retarget.load_mapping",
        "plots.plot_task_errors",
        "plots.plot_joint_trajectories",
        "plots.Recorder",
        "cli",
        "viewer.skeleton_shapes",
        "viewer.robot_shapes",
        "viewer.geometry_shapes",
        "viewer.obstacle_shapes",
        "metrics.manipulability",
        "metrics.frame_condition_number",
        "steps.clamp_mag",
        "steps.servo_velocity",
        "steps.PoseChangeConvergence",
        "robots.load",
        "robots.load_urdf",
        "default_solver",
        "Contact()",
        "Contact.rectangle",
        "contacts.both_feet",
        "contacts.one_foot",
        "contacts.feet_and_hand",
        "contacts.sole",
        "contacts.support_region",
        "contacts.check_static_balance",
        "contacts.equilibrium_forces",
        "contacts.edge_distances",
        "BalanceLimit",
        "BalanceLimit.compute_inequalities",
        "BalanceLimit.status",
        "BalanceLimit.row_names",
    ):
        assert entry in entries, entry
    # taskik.mjcf and mink's names for its helpers (those that run MuJoCo where it is installed)
    mjcf_entries = [
        "mjcf.q_from_qpos",
        "mjcf.qpos_from_q",
        "mjcf.mocap_se3",
        "SE3.from_mocap_id",
        "move_mocap_to_frame",
        "DampingTask(model, cost)",
        "Configuration(mirror=)",
    ]
    if importlib.util.find_spec("mujoco") is not None:
        mjcf_entries += ["SE3.from_mocap_name", "mjcf.write_configuration", "mjcf.MujocoMirror"]
    for entry in mjcf_entries:
        assert entry in entries, entry
    balance = [o for o in summary.outcomes if o.case.source == "gen_balance"]
    assert len(balance) >= 350  # (one in eight of the balance generator's 3,114)
    print(summary.module_table())


@pytest.mark.parametrize("kind", [*fuzz.FAILURES, "vague"])
def test_fuzz_no_new_defect(summary, kind):
    """Per module: zero, or at most the known count of :data:`KNOWN_DEFECTS`."""
    grown = []
    for module, counts in sorted(summary.by_module.items()):
        allowed = KNOWN_DEFECTS.get(module, {}).get(kind, 0)
        if counts.get(kind, 0) > allowed:
            grown.append((module, counts.get(kind, 0), allowed))
    if grown:
        lines = [f"{m}: {n} {kind} outcomes (known: {a})" for m, n, a in grown]
        detail = "".join(_report(summary, (kind,), m) for m, _, _ in grown)
        pytest.fail("\n".join(lines) + detail)
    fixed = [
        f"{m}: {summary.by_module.get(m, {}).get(kind, 0)} {kind} (known: {c[kind]})"
        for m, c in KNOWN_DEFECTS.items()
        if kind in c and summary.by_module.get(m, {}).get(kind, 0) < c[kind]
    ]
    if fixed:  # lower KNOWN_DEFECTS to these counts
        print("fewer defects than KNOWN_DEFECTS lists:", "; ".join(fixed))


def test_known_defects_name_real_modules_and_kinds():
    kinds = {*fuzz.FAILURES, "vague"}
    modules = {module for _, module in fuzz.MODULE_PREFIXES} | {"tasks"}
    for module, counts in KNOWN_DEFECTS.items():
        assert module in modules, module
        assert set(counts) <= kinds and all(n > 0 for n in counts.values()), (module, counts)


def test_classifier_sorts_outcomes():
    """The classifier itself, on calls whose outcome is known."""
    import warnings

    import numpy as np

    import taskik

    def raises(exc):
        def run():
            raise exc

        return run

    def warns():
        warnings.warn("imaginary part discarded", np.exceptions.ComplexWarning, stacklevel=1)
        return np.zeros(2)

    finite = fuzz.finite_array((2,))
    cases = {
        "ok": fuzz.Case("f", "valid", lambda: np.zeros(2), fuzz.ACCEPT, finite),
        "error": fuzz.Case(
            "f", "dt=nan", raises(taskik.InvalidInput("dt must be > 0")), fuzz.REJECT, None, ("dt",)
        ),
        "vague": fuzz.Case(
            "f", "dt=nan", raises(taskik.InvalidInput("bad input")), fuzz.REJECT, None, ("dt",)
        ),
        "bare": fuzz.Case("f", "dt=nan", raises(TypeError("x")), fuzz.REJECT),
        "rejected": fuzz.Case(
            "f", "dt=np.float32(0.01)", raises(taskik.InvalidInput("dt")), fuzz.ACCEPT
        ),
    }
    for kind, case in cases.items():
        assert fuzz.classify(case).kind == kind, kind
    garbage = [
        fuzz.Case("f", "dt=nan", lambda: np.zeros(2), fuzz.REJECT),  # accepted invalid input
        fuzz.Case("f", "dt=1e-300", lambda: np.full(2, np.nan), fuzz.ANY, finite),
        fuzz.Case("f", "valid", lambda: np.zeros(3), fuzz.ACCEPT, finite),
        fuzz.Case("f", "valid", warns, fuzz.ACCEPT, finite),
    ]
    for case in garbage:
        assert fuzz.classify(case).kind == "garbage", case
    assert fuzz.classify(garbage[0]).cause == "accepted invalid dt (NaN/inf)"

    def overflows_then_refuses():
        with np.errstate(over="warn"):
            np.float64(1e200) * np.float64(1e200)
        raise taskik.NoSolutionFound("daqp", "exit flag -1")

    # numpy's overflow on the way to a library error is garbage too (a check after the
    # arithmetic it should guard); an error alone is fine
    late = fuzz.classify(fuzz.Case("f", "target at 1e154 m", overflows_then_refuses, fuzz.ANY))
    assert late.kind == "garbage" and "before the error" in late.cause


def test_a_crashing_or_hanging_case_is_counted_and_the_run_goes_on(monkeypatch):
    """A case that kills its process (here os.abort, as a segfault would) or hangs is a
    ``crash`` outcome; the cases after it still run, in a new worker."""
    import signal
    import time

    import numpy as np

    monkeypatch.setattr(fuzz, "CASE_TIMEOUT", 1.0)
    finite = fuzz.finite_array((2,))
    cases = [
        fuzz.Case("f", "before", lambda: np.zeros(2), fuzz.ACCEPT, finite),
        fuzz.Case("f", "abort", lambda: os.abort(), fuzz.ANY),
        fuzz.Case("f", "segfault", lambda: os.kill(os.getpid(), signal.SIGSEGV), fuzz.ANY),
        fuzz.Case("f", "hang", lambda: time.sleep(60), fuzz.ANY),
        fuzz.Case("f", "after", lambda: np.zeros(2), fuzz.ACCEPT, finite),
    ]
    outcomes = fuzz.run_cases(cases)
    assert [o.kind for o in outcomes] == ["ok", "crash", "crash", "crash", "ok"]
    assert outcomes[1].cause == "killed by SIGABRT"
    assert outcomes[2].cause == "killed by SIGSEGV"
    assert outcomes[3].cause.startswith("timeout")
    assert [o.case.label for o in outcomes] == [c.label for c in cases]


def test_the_garbage_checks_catch_wrong_answers(tmp_path):
    """Each check that compares with an independent answer flags a result made wrong on
    purpose: a distance off coal's by 1 mm, a batch row of another problem, a retargeted q
    past a joint limit, a frozen joint moving by 1e-12, a step that is not zero."""
    import numpy as np

    import taskik
    from taskik import retarget as rt

    world = fuzz.World(tmp_path)
    ur5 = world.bots["ur5"]
    model, nv = ur5.model, ur5.model.nv
    geo = taskik.geometry
    conf = fuzz.conf_of(ur5)
    tip = conf.get_transform_frame_to_world("tool0").translation
    lim = taskik.CollisionLimit(
        model, geo.fit_capsules(model, 0.03), obstacles=[geo.sphere("s", 0.05, tip + 0.1)]
    )
    near = lim.distances(conf, all_pairs=True)
    check = fuzz.check_distances(nv)
    assert check((near, conf.data, lim)) is None
    near.distance[-1] += 1e-3
    assert "coal" in check((near, conf.data, lim))

    rng = np.random.default_rng(0)
    targets = np.array(
        [fuzz.conf_of(ur5, ur5.random_q(rng)).get_transform_frame_to_world("tool0").homogeneous
         for _ in range(2)]
    )  # fmt: skip
    res = taskik.batch.solve_poses(model, "tool0", targets, workers=1, **fuzz.BATCH_OPTIONS)
    same = fuzz.check_batch(model, "tool0", targets, fuzz.BATCH_OPTIONS)
    assert same(res) is None
    res.q[1] = res.q[0]
    assert "plain loop" in same(res)

    p0 = conf.get_transform_frame_to_world("tool0").translation
    clip = rt.clip_from_arrays(("kp",), np.repeat(p0[None, None], 2, axis=0), 30.0)
    mapping = {"scale": 1.0, "tasks": [{"keypoint": "kp", "frame": "tool0"}]}
    result = rt.retarget(taskik.robots.load("ur5"), clip, mapping, steps=1, first_steps=2)
    within = fuzz.check_retarget(model, 2, 1)
    assert within(result) is None
    result.q[1, 1] = model.upperPositionLimit[1] + 1e-3
    assert "joint limits" in within(result)

    still = fuzz._frozen_still(model, ["shoulder_pan_joint"])
    v = np.zeros(nv)
    v[1] = 0.3
    assert still(v) is None
    v[0] = 1e-12
    assert "frozen" in still(v)
    assert fuzz._zero_step(nv)(np.zeros(nv)) is None
    assert "not zero" in fuzz._zero_step(nv)(np.full(nv, 1e-3))


def test_fuzz_covers_minks_call_shapes_assigned_targets_and_composite_clipping(summary):
    """The cases of ``gen_leftovers``: mink's remaining constructor shapes, targets and other
    attributes assigned, solve_posture's overflowing targets and clipping inside composite
    joints (on the code before these fixes, one round on each robot: 1,065 bare exceptions,
    65 garbage results and 35 vague messages of 1,500 cases; after: none)."""
    entries = set(summary.by_entry)
    for entry in (
        "ConfigurationLimit(min_distance_from_limits)",
        "VelocityLimit(velocities=)",
        "ComTask(cost, gain, lm_damping)",
        "FrameTask(frame_name, frame_type, ...)",
        "RelativeFrameTask(frame_name, frame_type, root_name, root_type, ...)",
        "FrameTask.target =",
        "FrameTask.transform_target_to_world =",
        "PositionTask.target =",
        "PostureTask.target_q =",
        "PositionTask.offset =",
        "AxisAlignmentTask.axis =",
    ):
        assert entry in entries, entry
    labels = {o.case.label for o in summary.outcomes if o.case.entry == "solve_posture"}
    assert {"target at 1e+300 m", "composite joints, clip, goal 0"} <= labels


#: Public names that no fuzz case calls by name, and why: exceptions, constants, the result
#: and report data classes (checked through the calls that return them), and entry points
#: the fuzzer reaches through another (the QP backends through ``solve_ik``), or that need a
#: process, a browser or files of their own (the viewer, the retargeting command line).
NOT_FUZZED_BY_NAME = {
    # exceptions and constants
    "taskik.TaskikError", "taskik.InvalidInput", "taskik.InvalidConfiguration",
    "taskik.NoSolutionFound", "taskik.NotWithinConfigurationLimits", "taskik.TargetNotSet",
    "taskik.UnknownName", "taskik.batch.OutputError", "taskik.batch.WorkerError",
    "taskik.batch.WorkerLost", "taskik.backends.UNCONSTRAINED_BACKENDS", "taskik.batch.ENGINES",
    "taskik.hierarchy.METHODS", "taskik.posture.DEFAULT_DAMPING",
    "taskik.posture.JOINT_LIMIT_POLICIES", "taskik.posture.METHODS",
    "taskik.posture.POSE_ERRORS", "taskik.posture.SELECTS", "taskik.posture.STARTS",
    "taskik.relax.EPS", "taskik.relax.REFERENCE_SPEED", "taskik.relax.RELAX_RANKS",
    "taskik.retarget.DATA", "taskik.retarget.DEFAULT_STEPS", "taskik.contacts.hull.HULL_MARGIN",
    # results, reports and rows: made by the calls the fuzzer makes, and checked there
    "taskik.CollisionReport", "taskik.PostureResult", "taskik.Problem", "taskik.StepReport",
    "taskik.contacts.BalanceCheck", "taskik.geometry.PairDistances",
    "taskik.geometry.PairSelection", "taskik.hierarchy.HierarchyReport",
    "taskik.hierarchy.LevelSplit", "taskik.hierarchy.LevelStatus", "taskik.limits.limit.Box",
    "taskik.limits.limit.Inequalities", "taskik.limits.limit.StackedBox",
    "taskik.relax.Relaxation", "taskik.relax.RelaxedRow", "taskik.retarget.Clip",
    "taskik.retarget.ClipSummary", "taskik.retarget.RetargetBatch", "taskik.viewer.NearPair",
    "taskik.viewer.Shape", "taskik.Limit",
    # the subpackages themselves
    "taskik.relax", "taskik.tasks",
    # reached through another entry point: the QP backends through solve_ik (every solver
    # case), the geometry model check through CollisionLimit and fit_capsules, the limit mask
    # through every limit, the sample paths through retarget's cases
    "taskik.backends.solve_qp", "taskik.backends.solve_qp_arrays",
    "taskik.geometry.robot.check_geometry_model", "taskik.limits.limit.finite_limit_mask",
    "taskik.retarget.sample_clip_path", "taskik.retarget.sample_mapping_path",
    # the drifted hull's kernels (arrays the caller checked: no validation of their own, by
    # design) through BalanceLimit.compute_inequalities; their own tests in test_balance
    "taskik.contacts.hull.drifted_hull", "taskik.contacts.hull.hull_by_order",
    "taskik.contacts.hull.hull_vertex_order",
    # a process, a server or a browser of their own (their tests: test_viewer*, test_retarget*)
    "taskik.retarget.main", "taskik.retarget.retarget_file", "taskik.viewer.Viewer",
    "taskik.viewer.view", "taskik.viewer.CollisionDrawing", "taskik.viewer.default_frames",
}  # fmt: skip


def public_names() -> list[str]:
    """Every name of ``taskik.__all__`` and of its public submodules' ``__all__`` (a class or
    function that several modules export counted once, under its first name)."""
    import importlib
    import pkgutil

    import taskik

    modules = ["taskik"] + [
        m.name
        for m in pkgutil.walk_packages(taskik.__path__, "taskik.")
        if not any(part.startswith("_") for part in m.name.split(".")[1:])
    ]
    names = []
    seen: set[int] = set()  # (a class or function exported by several modules: once)
    for name in modules:
        module = importlib.import_module(name)
        for n in getattr(module, "__all__", ()):
            obj = getattr(module, n)
            if callable(obj) and id(obj) in seen:
                continue
            seen.add(id(obj))
            names.append(f"{name}.{n}")
    return names


def test_fuzz_calls_every_public_name(summary):
    """Every public name is an entry point of some fuzz case (its name in the entry), or is
    listed in :data:`NOT_FUZZED_BY_NAME` with the reason: a new public function without fuzz
    cases fails here."""
    import re

    words = {w for e in summary.by_entry for w in re.findall(r"[A-Za-z_]\w*", e)}
    names = public_names()
    missing = [n for n in names if n.rsplit(".", 1)[1] not in words and n not in NOT_FUZZED_BY_NAME]
    assert not missing, f"public names without fuzz cases: {missing}"
    stale = sorted(NOT_FUZZED_BY_NAME - set(names))
    assert not stale, f"NOT_FUZZED_BY_NAME lists names that are not public: {stale}"


def test_fuzz_covers_the_entry_points_that_arrived_after_its_last_run(summary):
    """The cases of ``gen_later_entries`` and ``gen_array_entries``."""
    entries = set(summary.by_entry)
    for entry in (
        "Configuration.update_from_keyframe",
        "Configuration.check_q",
        "Task.adopt",
        "PostureTask.write_error",
        "FrameTask.set_position_cost",
        "FrameTask.set_orientation_cost",
        "ConfigurationLimit.check",
        "limits.PositionBarrier",
        "last_relaxation",
        "CollisionLimit.check_step",
        "CollisionLimit.report",
        "BalanceLimit.margins",
        "BalanceLimit.balance_margin",
        "Contact",
        "contacts.SupportRegion.contains",
        "contacts.ContactSet.from_points",
        "contacts.friction_generators",
        "contacts.convex_hull_2d",
        "backends.solve_pinv",
        "backends.RegularizedJacobian",
        "hierarchy.null_basis",
        "hierarchy.solve_hierarchy",
        "utils.VectorSpace",
        "plots.task_label",
    ):
        assert entry in entries, entry
    adopt = [o for o in summary.outcomes if o.case.entry == "Task.adopt"]
    assert adopt and all(o.kind in ("ok", "error") for o in adopt)
