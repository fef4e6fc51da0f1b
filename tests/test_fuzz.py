"""Seeded input fuzzing of every public entry point (harness: ``tests/fuzz.py``).

Thousands of calls, each a valid call on a robot with one argument mutated (None, strings,
lists, wrong lengths, NaN/inf, huge, negative, complex, numpy scalars, bools, transposed
homogeneous matrices, unknown frames, limits or data of another model, ...). Every call must
end in a valid result or a ``taskik.TaskikError`` whose message names the problem: no bare
exception (TypeError, IndexError, boost ArgumentError, ...), no garbage result (NaN/inf,
wrong shape, an invalid input silently accepted, a warning on the way), and no valid input
rejected. On failure the table of outcomes by entry point and examples of every failure
cause are printed. ``benchmarks/fuzz_inputs.py`` runs more cases.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fuzz  # noqa: E402

#: At least this many cases; every robot gets a whole round of every generator.
N_CASES = int(os.environ.get("TASKIK_FUZZ_CASES", "5000"))
SEED = int(os.environ.get("TASKIK_FUZZ_SEED", "20261123"))


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    world = fuzz.World(tmp_path_factory.mktemp("fuzz"))
    cases = fuzz.generate(world, N_CASES, seed=SEED)
    return fuzz.Summary(fuzz.run_cases(cases))


def _report(summary: fuzz.Summary, kinds) -> str:
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
        "FrameTask()",
        "PositionTask()",
        "OrientationTask()",
        "RelativeFrameTask()",
        "ComTask()",
        "PostureTask()",
        "DampingTask()",
        "FrameTask.set_target",
        "FrameTask.set_costs",
        "PostureTask.set_target_from_configuration",
        "Task.cost =",
        "ConfigurationLimit",
        "VelocityLimit",
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
        "metrics.manipulability",
        "metrics.frame_condition_number",
        "steps.clamp_mag",
        "steps.servo_velocity",
        "steps.PoseChangeConvergence",
        "robots.load",
        "robots.load_urdf",
        "default_solver",
    ):
        assert entry in entries, entry
    print(summary.table())


def test_fuzz_no_bare_exception(summary):
    bare = summary.totals.get("bare", 0)
    assert bare == 0, f"{bare} bare exceptions" + _report(summary, ("bare",))


def test_fuzz_no_garbage_result(summary):
    garbage = summary.totals.get("garbage", 0)
    assert garbage == 0, f"{garbage} garbage results" + _report(summary, ("garbage",))


def test_fuzz_no_valid_input_rejected(summary):
    rejected = summary.totals.get("rejected", 0)
    assert rejected == 0, f"{rejected} valid inputs rejected" + _report(summary, ("rejected",))


def test_fuzz_errors_name_the_problem(summary):
    vague = summary.totals.get("vague", 0)
    assert vague == 0, f"{vague} errors that do not name the problem" + _report(summary, ("vague",))


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
