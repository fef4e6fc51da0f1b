"""Every examples/*.py runs to the end as a script (TASKIK_SMOKE=1 shortens the loops of
the examples that support it) and writes its plots outside the repository; and what each
one's main() returns shows it achieves what it demonstrates."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))

# PNGs that the examples with plots must write into $TASKIK_OUTPUT.
EXPECTED_PLOTS = {
    "manipulator_servoing": [
        "ur5_servoing_errors.png",
        "ur5_servoing_joints.png",
        "panda_servoing_errors.png",
        "panda_servoing_joints.png",
    ],
    "humanoid_posture": ["*_posture_errors.png"],
}


def repo_pngs() -> set[Path]:
    found = set()
    for folder, subfolders, files in os.walk(ROOT):
        # (every .venv*: the peers' benchmark environments hold ~10^5 files of their own)
        subfolders[:] = [
            d for d in subfolders if not d.startswith(".venv") and d not in (".git", "site")
        ]
        found.update(Path(folder, f) for f in files if f.endswith(".png"))
    return found


def test_the_examples_are_found():
    names = {p.stem for p in EXAMPLES}
    assert {"manipulator_servoing", "humanoid_posture", "control_loop", "demo"} <= names


#: One interpreter per test process that imports what the examples import (numpy, Pinocchio,
#: taskik and its plots, viewer, batch and retarget modules, matplotlib's pyplot) and runs
#: nothing else; each example then runs in a process forked from it, as ``python
#: examples/<name>.py`` runs it: a process of its own, started in a folder of its own, with
#: its environment, argv and sys.path[0], stdout and stderr to files, the script's statements
#: run in order as the module ``__main__``, its ``if __name__ == "__main__":`` block
#: included. One thing is added: the ``main`` that the block calls is the script's own, wrapped
#: to record each call's arguments and value (:func:`script_main`), so that the tests below
#: read what the script run computed instead of running the same example a second time. The
#: fork saves each example the imports (about 2 s of CPU) and the parse of example-robot-data's
#: Talos and G1, which the launcher loads once (``taskik.robots.load`` keeps a process's parses
#: and a fork inherits them: each load in an example is then a copy, as a script's second load
#: is; four loads in three examples, about 7 s of CPU, for 4 s in the launcher), nothing else:
#: no example runs in a process another one ran in.
LAUNCHER = r"""
import ast, functools, importlib.machinery, json, os, pickle, sys, traceback, types
sys.path[0] = sys.argv[1]  # (not the working folder: imports resolve as for a script there)
import numpy, pinocchio, matplotlib.pyplot
import taskik, taskik.plots, taskik.viewer, taskik.batch, taskik.retarget
for name in ("talos", "g1"):  # (see the comment above the launcher)
    try:
        taskik.robots.load(name)
    except taskik.TaskikError:  # (example-robot-data not installed)
        pass
print("ready", flush=True)


def run_as_main(path, calls):
    tree = ast.parse(open(path).read(), path)
    block = next(  # the `if __name__ == "__main__":` block: main is wrapped just before it
        (i for i, node in enumerate(tree.body)
         if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)),
        len(tree.body),
    )
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    sys.modules["__main__"] = module
    before = compile(ast.Module(tree.body[:block], []), path, "exec", dont_inherit=True)
    exec(before, module.__dict__)
    main = module.__dict__.get("main")
    if callable(main):
        @functools.wraps(main)
        def recorded(*args, **kwargs):
            value = main(*args, **kwargs)
            calls.append((args, kwargs, value))
            return value
        module.main = recorded
    flags = before.co_flags & 0x1000000  # (from __future__ import annotations, if it was)
    exec(compile(ast.Module(tree.body[block:], []), path, "exec", flags, True), module.__dict__)


for line in sys.stdin:
    job = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setpgid(0, 0)  # (its own process group: stopped as a whole on a timeout)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            os.chdir(job["cwd"])
            os.environ.clear()
            os.environ.update(job["env"])
            path = job["path"]
            sys.argv = [path]
            sys.path[0] = os.path.dirname(path)
            calls = []
            try:
                run_as_main(path, calls)
            finally:
                try:
                    record = pickle.dumps(calls)
                except Exception as exc:  # (a value that does not pickle: said, not hidden)
                    record = pickle.dumps(f"main's calls do not pickle: {exc!r}")
                with open(job["pickle"], "wb") as f:
                    f.write(record)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(json.dumps(pid), flush=True)
    _, status = os.waitpid(pid, 0)
    print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)
"""
#: Seconds an example may take (as the subprocess of each example had).
TIMEOUT = 180.0

_LAUNCHER: list[subprocess.Popen] = []


def launcher() -> subprocess.Popen:
    if not _LAUNCHER:
        env = {**os.environ, "TASKIK_SMOKE": "1", "MPLBACKEND": "Agg"}
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, str(ROOT / "examples")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        _LAUNCHER.append(proc)
        assert _read_line(proc, TIMEOUT) == "ready"
    return _LAUNCHER[0]


_PENDING = bytearray()  # what the launcher wrote after the last line read


def _read_line(proc: subprocess.Popen, timeout: float) -> str:
    """The launcher's next line (read from its pipe directly: a buffered reader could hold a
    second line that ``select`` then waits for)."""
    import select
    import time

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    while b"\n" not in _PENDING:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0.0))
        assert ready, f"no answer from the examples' launcher within {timeout} s"
        chunk = os.read(fd, 4096)
        assert chunk, "the examples' launcher exited"
        _PENDING.extend(chunk)
    line, _, rest = bytes(_PENDING).partition(b"\n")
    _PENDING[:] = rest
    return line.decode().strip()


@pytest.fixture(scope="module", autouse=True)
def _stop_the_launcher():
    yield
    _PENDING.clear()
    while _LAUNCHER:
        proc = _LAUNCHER.pop()
        assert proc.stdin is not None
        proc.stdin.close()  # (it leaves its loop and exits)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


_RUNS: dict[str, tuple[subprocess.CompletedProcess, object, Path]] = {}


def run_forked(
    example: Path, work: Path, env: dict[str, str], pickled: Path
) -> subprocess.CompletedProcess:
    """``examples/<example>`` run in a process forked from the launcher, in ``work``."""
    import json
    import signal

    proc = launcher()
    assert proc.stdin is not None
    job = {
        "path": str(example),
        "cwd": str(work),
        "env": env,
        "stdout": str(work / "stdout.txt"),
        "stderr": str(work / "stderr.txt"),
        "pickle": str(pickled),
    }
    proc.stdin.write((json.dumps(job) + "\n").encode())
    proc.stdin.flush()
    pid = int(_read_line(proc, TIMEOUT))
    try:
        code = int(_read_line(proc, TIMEOUT))
    except AssertionError:
        os.killpg(pid, signal.SIGKILL)  # (the launcher then reports it and goes on)
        raise
    return subprocess.CompletedProcess(
        [sys.executable, str(example)],
        code,
        (work / "stdout.txt").read_text(),
        (work / "stderr.txt").read_text(),
    )


def script_run(example: Path, tmp_path_factory) -> tuple[subprocess.CompletedProcess, object, Path]:
    """``python examples/<example>`` (TASKIK_SMOKE=1, plots into a folder of its own) run once
    per test process: the finished process, the calls of main that the script made (a list
    of ``(args, kwargs, value)``) and the output folder."""
    if example.stem not in _RUNS:
        work = tmp_path_factory.mktemp(example.stem)
        output = work / "out"
        env = {**os.environ, "TASKIK_SMOKE": "1", "TASKIK_OUTPUT": str(output), "MPLBACKEND": "Agg"}
        pickled = work / "main.pickle"
        before = repo_pngs()
        result = run_forked(example, work, env, pickled)
        assert result.returncode == 0, f"{example.name} failed:\n{result.stderr[-3000:]}"
        assert repo_pngs() == before, f"{example.name} wrote a PNG into the repository"
        import pickle

        _RUNS[example.stem] = (result, pickle.loads(pickled.read_bytes()), output)
    return _RUNS[example.stem]


SCRIPT = """
from __future__ import annotations
import sys


def main(x: int = 1) -> dict:
    return {"x": x, "name": __name__, "argv": sys.argv[1:]}


VALUE = 3
if __name__ == "__main__":
    main()
    main(VALUE)
    print("block ran as", __name__, main.__name__)
    {}
"""


@pytest.mark.parametrize(
    ("end", "code", "calls"),
    [
        ("", 0, [((), {}, {"x": 1, "name": "__main__", "argv": []}),
                 ((3,), {}, {"x": 3, "name": "__main__", "argv": []})]),
        ("main(lambda: 0)", 0, "main's calls do not pickle: "),
        ("sys.exit(3)", 3, None),
    ],
)  # fmt: skip
def test_the_launcher_runs_a_script_as_main_and_records_each_call_of_its_main(
    tmp_path, end, code, calls
):
    """The script's statements run as ``__main__``, its block included; each call of its
    main is recorded with its arguments and value, in order; a value that does not pickle is
    said, not dropped; the script's exit code is the run's."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.replace("{}", end or "pass"))
    (tmp_path / "work").mkdir()
    pickled = tmp_path / "calls.pickle"
    result = run_forked(script, tmp_path / "work", dict(os.environ), pickled)
    assert result.returncode == code, result.stderr
    assert "block ran as __main__ main" in result.stdout
    import pickle

    recorded = pickle.loads(pickled.read_bytes())
    if isinstance(calls, str):
        assert recorded.startswith(calls), recorded
    elif calls is not None:
        assert recorded == calls
    else:
        assert len(recorded) == 2


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(example, tmp_path_factory):
    result, _, output = script_run(example, tmp_path_factory)
    assert result.stdout.strip(), f"{example.name} printed nothing"
    for pattern in EXPECTED_PLOTS.get(example.stem, []):
        written = list(output.glob(pattern))
        assert written and all(p.stat().st_size > 10_000 for p in written), (pattern, written)


# ------------------------------------------------------------------ what each one achieves
# Each example's main() returns what it printed as numbers; these tests run it in-process,
# short (TASKIK_SMOKE=1) where it supports that, and check what it demonstrates. Bounds are
# the values measured when the test was written, with a margin of about 3–5× for errors
# that should be small (or about 15 % for figures that are not errors to be minimised).
def run_main(name, monkeypatch, tmp_path, *args):
    monkeypatch.setenv("TASKIK_SMOKE", "1")
    monkeypatch.setenv("TASKIK_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    module = runpy.run_path(str(ROOT / "examples" / f"{name}.py"), run_name=f"example_{name}")
    return module["main"](*args)


def script_main(name, tmp_path_factory, *args):
    """main()'s value in the script run of ``examples/<name>.py`` (:func:`script_run`),
    checked to be the script's only call of main, with these arguments."""
    calls = script_run(ROOT / "examples" / f"{name}.py", tmp_path_factory)[1]
    assert isinstance(calls, list), calls  # (else: why its value could not be kept)
    assert [(a, k) for a, k, _ in calls] == [(args, {})], (name, calls)
    return calls[0][2]


def test_control_loop_tracks_the_circle(monkeypatch, tmp_path):
    s = run_main("control_loop", monkeypatch, tmp_path)
    assert s["ticks"] == 30  # 0.3 s at 100 Hz
    # measured 0.013 mm (one tick of the 314 mm/s circle is 3.1 mm): gain 1 keeps up
    assert s["error_max_mm"] < 0.05
    assert s["error_mean_mm"] <= s["error_max_mm"]


def test_demo_reaches_every_pose_and_holds_the_feet(tmp_path_factory):
    r = script_main("demo", tmp_path_factory)
    steps = [step for step, _ in r["ur5_poses"]]
    assert len(steps) == 4
    assert all(err < 1e-5 for _, err in r["ur5_poses"])  # TOL: every pose reached
    assert max(steps) <= 60, steps  # measured 26, 38, 41, 29 steps
    e = r["humanoid_errors"]
    assert e["left foot"] < 5e-5 and e["right foot"] < 5e-5  # measured 1.3e-5 (weighted)
    assert e["com"] < 5e-4  # measured 1.1e-4
    assert e["hand"] < 3e-4  # measured 6.3e-5


@pytest.mark.parametrize("robot", [None, "humanoid"])  # None: Talos when installed
def test_humanoid_posture_meets_feet_com_and_hands(monkeypatch, tmp_path, tmp_path_factory, robot):
    if robot is None:  # what the script's block runs without arguments: main(None)
        r = script_main("humanoid_posture", tmp_path_factory, None)
        output = script_run(ROOT / "examples" / "humanoid_posture.py", tmp_path_factory)[2]
    else:
        r, output = run_main("humanoid_posture", monkeypatch, tmp_path, robot), tmp_path / "out"
    # measured after 40 steps (Talos / bundled humanoid): feet 3.7e-6 / 1.8e-6,
    # CoM 3.8e-5 / 3.5e-5, hands 4.8e-4 / 2.6e-4
    assert r["left foot"] < 2e-5 and r["right foot"] < 2e-5, r
    assert r["com"] < 2e-4, r
    assert r["left hand"] < 2e-3 and r["right hand"] < 2e-3, r
    assert r["joint_margin"] >= -1e-9  # the joint limits hold
    assert list(output.glob(f"{r['robot']}_posture_errors.png"))


def test_manipulator_servoing_reaches_targets_within_limits(tmp_path_factory):
    r = script_main("manipulator_servoing", tmp_path_factory)
    for name, results in r.items():
        assert len(results) == 2, name
        assert all(margin >= -1e-9 for _, margin in results), (name, results)  # limits hold
    (ur5_1, _), (ur5_2, _) = r["ur5"]
    (panda_1, _), (panda_2, _) = r["panda"]
    assert ur5_1 < 5e-5 and panda_1 < 5e-5  # measured 7.9e-6, 5.4e-6 after 30 steps
    assert ur5_2 < 2e-2  # measured 4.5e-3 after 30 steps
    # the 3 rad turn of the Panda's hand (|e| ≈ 3 at the start) is under way: 0.86 measured
    assert panda_2 < 1.0


def test_prioritized_arm_keeps_the_tool_only_with_levels(tmp_path_factory):
    r = script_main("prioritized_arm", tmp_path_factory)
    assert r["prioritized"]["worst_tool"] < 3e-4  # measured 8.6e-5 (second-order drift)
    assert r["weighted"]["worst_tool"] > 1e-3  # measured 4.2e-3: the elbow drags the tool
    for run in r.values():  # asked to move 0.15 m, 0.035 m short measured in both runs
        assert run["elbow"] < 0.05, r


def test_prioritized_humanoid_feet_and_com_hold(tmp_path_factory):
    r = script_main("prioritized_humanoid", tmp_path_factory)
    assert r["reachable"]["feet_com"] < 1e-9  # measured 6.7e-16
    assert r["reachable"]["hand"] < 1e-6  # measured 1.5e-15
    assert r["far_prioritized"]["feet_com"] < 1e-4  # measured 2.5e-5
    assert 5.0 < r["far_prioritized"]["hand"] < 6.2  # out of reach; 5.89 m measured (from 8.2)
    assert r["far_weighted"]["feet_com"] > 0.1  # measured 1.86 m: weighted, the feet give way


def test_buss_double_y_tracks_and_stops(tmp_path_factory):
    r = script_main("buss_double_y", tmp_path_factory)
    dls, dls_clamped, sdls = r["tracking"].values()
    # mean distances over 4 s, measured 0.556, 0.513, 0.521 m (Buss's targets leave reach)
    assert dls < 0.64 and dls_clamped < 0.59 and sdls < 0.6, r["tracking"]
    assert dls_clamped < dls  # ClampMag helps DLS
    frozen = r["frozen"]
    assert frozen["stopped"]  # the pose-change test fired, not the iteration cap
    assert frozen["iterations"] <= 1200  # measured 804
    d = frozen["distances"]
    assert d["effector_3"] < 1e-4 and d["effector_4"] < 1e-4, d  # measured 1.9e-6, 2.4e-5
    assert d["effector_1"] > 2.0, d  # out of reach: 2.42 m measured


def test_solve_to_pose_results(monkeypatch, tmp_path):
    import numpy as np
    import pinocchio as pin

    import taskik

    r = run_main("solve_to_pose", monkeypatch, tmp_path)
    pose = r["pose"]
    assert pose["result"].success and pose["result"].error < 1e-6
    assert pose["result"].iterations <= 15  # one search (measured 4)
    assert pose["position_error"] < 1e-3 and pose["rotation_error"] < 2e-3  # 1.1e-4, 3.9e-4

    posture = r["posture"]
    result = posture["result"]
    assert result.success and max(result.residuals) < 1e-10  # tol
    assert abs(np.linalg.norm(result.q[3:7]) - 1.0) < 1e-12
    conf = taskik.robots.load("humanoid").configuration(result.q)  # checked from q itself
    for foot in posture["tasks"][:2]:
        M = conf.get_transform_frame_to_world(foot.frame.name)
        assert np.linalg.norm(M.translation - foot.target.translation) < 2e-5
        assert np.linalg.norm(pin.log3(foot.target.rotation.T @ M.rotation)) < 2e-5

    unreachable = r["unreachable"]["result"]
    assert not unreachable.success and unreachable.searches == 5
    # 2 m away, reach 0.95 m: E ≥ ½ 1.05² = 0.55; measured 0.606 (best of 5 searches)
    assert 0.5 < unreachable.error < 0.7


def test_the_retarget_example_squats_g1_as_deep_as_talos_scaled(tmp_path_factory):
    from test_retarget import BOUNDS

    out = script_main("retarget_clip", tmp_path_factory)
    output = script_run(ROOT / "examples" / "retarget_clip.py", tmp_path_factory)[2]
    assert out["squat_depth_ratio"] == pytest.approx(1.0, abs=0.2)
    assert out["mean_error"] < BOUNDS["g1"][1]
    assert {p.name for p in output.iterdir()} == {"g1_squat_wave.npz", "talos_squat_wave.csv"}


def test_demo_runs_and_prints_every_task(tmp_path_factory):
    """``python examples/demo.py`` (which reads no TASKIK_SMOKE: its whole run) prints each
    pose's error and every humanoid task."""
    out = script_run(ROOT / "examples" / "demo.py", tmp_path_factory)[0].stdout
    assert out.count("|e| =") >= 4
    for name in ("lleg_effector_body", "rleg_effector_body", "ComTask", "rarm_effector_body"):
        assert name in out


def test_examples_run_and_show_strict_priority(tmp_path_factory):
    """What the prioritized examples print (their script runs): the levels hold the tool, the
    weighted run's elbow drags it; the humanoid's feet hold unless weighted."""
    out = script_run(ROOT / "examples" / "prioritized_arm.py", tmp_path_factory)[0].stdout
    prio, weighted = out.split("weighted, one level:")
    worst = [float(line.split(":")[1]) for line in out.splitlines() if "worst tool" in line]
    assert worst[0] < 1e-3 < worst[1]  # the weighted elbow drags the tool, not the levels
    assert "PositionTask" in prio and "weighted" not in prio.split("\n", 1)[1]
    assert "elbow moved by" in weighted
    out = script_run(ROOT / "examples" / "prioritized_humanoid.py", tmp_path_factory)[0].stdout
    finals = [line for line in out.splitlines() if "after 300 steps" in line]
    feet = [float(line.split("|e| = ")[1].split(",")[0]) for line in finals]
    assert feet[0] < 1e-9 and feet[1] < 1e-3 and feet[2] > 0.1


def test_example_maps_the_reachable_grid(monkeypatch, tmp_path_factory):
    """examples/batch_poses.py (its script run: main()), then main() again in this process on
    the same output folder: the finished file read back."""
    import numpy as np
    from test_batch import assert_same

    r = script_main("batch_poses", tmp_path_factory)
    output = script_run(ROOT / "examples" / "batch_poses.py", tmp_path_factory)[2]
    result, points = r["result"], r["points"]
    assert len(result) == len(points) == 567
    # measured 31.7 %: the grid spans ±1 m, the UR5 reaches about 0.85 m from its shoulder
    assert 0.2 < result.success.mean() < 0.45
    far = np.linalg.norm(points, axis=1) > 1.3
    assert not result.success[far].any()  # beyond any reach: never claimed
    assert r["check_error"] < 1.5e-3  # |e| < √(2 tol) by forward kinematics
    assert list(output.glob("ur5_reach_567.npz"))
    monkeypatch.setenv("TASKIK_SMOKE", "1")
    monkeypatch.setenv("TASKIK_OUTPUT", str(output))
    monkeypatch.chdir(output)
    module = runpy.run_path(str(ROOT / "examples" / "batch_poses.py"), run_name="example")
    again = module["main"]()["result"]  # read back from the finished file
    assert again.workers == []
    assert_same(again, result)


def test_example_sweeps_a_ball_through_the_arm_which_keeps_clear(tmp_path_factory):
    """examples/viewer_obstacles.py (its script run: main(8080), which with TASKIK_SMOKE=1
    runs the loop without serving a page)."""
    r = script_main("viewer_obstacles", tmp_path_factory, 8080)
    # measured: 9.7 mm closest (d_s = 10 mm, the ball moving at 0.29 m/s), a pair active in
    # 35 of 150 steps, 4 segments at most, the hand on its target behind the box
    assert r["closest_mm"] > r["safety_mm"] - 1.0, r
    assert r["active_steps"] >= 10 and r["segments_max"] >= 1, r
    assert r["target_miss_mm"] < 5.0, r
