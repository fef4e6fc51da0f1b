"""taskik.batch.solve_poses on the local engine: the same answers as a loop of
solve_posture, bit for bit, whatever the chunking; every problem once when a worker is
killed; a stopped run resumes; bad input named."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import taskik
from taskik.batch import BatchResult, problem_seed, solve_poses
from taskik.exceptions import InvalidInput, UnknownName


def reachable_targets(robot: taskik.robots.Robot, frame: str, n: int, seed: int) -> np.ndarray:
    """``n`` poses of ``frame`` at random valid configurations, ``(n, 4, 4)``."""
    rng = np.random.default_rng(seed)
    data = robot.model.createData()
    fid = robot.model.getFrameId(frame)
    out = np.empty((n, 4, 4))
    for k in range(n):
        pin.forwardKinematics(robot.model, data, robot.random_configuration(rng))
        out[k] = pin.updateFramePlacement(robot.model, data, fid).homogeneous
    return out


def loop(robot, frame, targets, seed=0, **options) -> BatchResult:
    """The specification: one solve_posture per target, problem i seeded (seed, i)."""
    task = taskik.FrameTask(frame)
    rows = []
    for i, T in enumerate(targets):
        task.set_target(T)
        rows.append(taskik.solve_posture(robot.model, [task], rng=problem_seed(seed, i), **options))
    return BatchResult(
        q=np.array([r.q for r in rows]),
        success=np.array([r.success for r in rows]),
        iterations=np.array([r.iterations for r in rows]),
        searches=np.array([r.searches for r in rows]),
        error=np.array([r.error for r in rows]),
        time=np.array([r.time for r in rows]),
        seed=seed,
    )


def assert_same(a: BatchResult, b: BatchResult) -> None:
    """Bit-for-bit the same answers (the solve times differ, of course)."""
    for name in ("q", "success", "iterations", "searches", "error"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.fixture(scope="module")
def ur5_job():
    robot = taskik.robots.load("ur5")
    targets = reachable_targets(robot, "tool0", 24, seed=3)
    # a few unreachable targets too: failures, restarts and random starts take part
    targets[5, :3, 3] += [2.0, 0.0, 0.0]
    targets[17, :3, 3] += [0.0, 0.0, 3.0]
    options = {"max_searches": 12}  # 1 + 8 nearest memory entries + 3 random starts
    return robot, targets, options, loop(robot, "tool0", targets, seed=11, **options)


def test_problem_seed_is_seed_times_2_to_32_plus_index():
    assert problem_seed(0, 0) == 0
    assert problem_seed(3, 5) == 3 * 2**32 + 5
    assert len({problem_seed(s, i) for s in range(4) for i in range(100)}) == 400


@pytest.mark.parametrize("chunk_size", [1, 7, 24])
@pytest.mark.parametrize("workers", [1, 2])
def test_batch_equals_loop_bit_for_bit(ur5_job, chunk_size, workers):
    robot, targets, options, expected = ur5_job
    got = solve_poses(
        robot, "tool0", targets, workers=workers, chunk_size=chunk_size, seed=11, **options
    )
    assert_same(got, expected)
    assert expected.success.sum() == 22 and not expected.success[[5, 17]].any()
    chunks = 1 + -(-(len(targets) - 1) // chunk_size)  # the first problem, then the chunks
    assert len(got.workers) == chunks
    if workers == 2 and chunk_size < 24:
        assert len(set(got.workers)) >= 2  # the caller's first problem, then the workers


def test_list_of_se3_and_model_give_the_same_answers(ur5_job):
    robot, targets, options, expected = ur5_job
    poses = [pin.SE3(T) for T in targets]
    got = solve_poses(robot.model, "tool0", poses, workers=2, seed=11, **options)
    assert_same(got, expected)


def test_the_seed_chooses_the_random_starts(ur5_job):
    """With random starts, another seed gives other solutions (the UR5 has up to 8 per
    pose); the same seed the same ones."""
    robot, targets, _, _ = ur5_job
    a, b, c = (
        solve_poses(robot, "tool0", targets[:5], workers=1, seed=s, starts="random")
        for s in (1, 2, 1)
    )
    assert a.success.all() and b.success.all()
    assert not np.array_equal(a.q, b.q)
    assert_same(a, c)


def test_result_round_trips_through_npz(ur5_job, tmp_path):
    robot, targets, options, expected = ur5_job
    got = solve_poses(robot, "tool0", targets, workers=1, seed=11, **options)
    back = BatchResult.load(got.save(tmp_path / "r.npz"))
    assert_same(back, got)
    np.testing.assert_array_equal(back.time, got.time)
    assert (back.seed, back.key) == (11, got.key)
    assert "24 problems, 22 solved" in str(got)


def _wait_for_parts(parts: Path, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if parts.is_dir() and len(list(parts.glob("*.npz"))) >= count:
            return
        time.sleep(0.002)
    raise AssertionError(f"fewer than {count} chunks written to {parts} in {timeout} s")


def test_a_killed_worker_loses_no_problem_and_solves_none_twice(tmp_path):
    """SIGKILL one worker mid-job: its chunk is given to a new worker; every problem is in
    the output once, with the loop's answer."""
    robot = taskik.robots.load("ur5")
    targets = reachable_targets(robot, "tool0", 3000, seed=4)
    output = tmp_path / "out.npz"
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = solve_poses(
                robot, "tool0", targets, workers=2, chunk_size=40, output=output
            )
        except BaseException as exc:  # (reported below)
            box["error"] = exc

    runner = threading.Thread(target=run)
    runner.start()
    try:
        _wait_for_parts(output.with_name("out.npz.parts"), 3, timeout=30.0)
        import multiprocessing

        victims = [p for p in multiprocessing.active_children() if p.is_alive()]
        assert victims, "no worker process to kill"
        victim = victims[0].pid
        assert victim is not None
        os.kill(victim, signal.SIGKILL)
    finally:
        runner.join(timeout=60.0)
    assert "error" not in box, box.get("error")
    result = box["result"]
    assert isinstance(result, BatchResult)
    assert_same(result, loop(robot, "tool0", targets))
    chunks = 1 + -(-(len(targets) - 1) // 40)
    assert len(result.workers) == chunks  # each chunk accepted once
    assert all(f"{victim}@" not in w for w in result.workers[-5:])  # replaced
    assert not output.with_name("out.npz.parts").exists()


def _processes_with_argument(argument: str) -> list[int]:
    """Pids of the live processes (not zombies) with ``argument`` on their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if argument.encode() in args and state != "Z":
                found.append(int(entry.name))
    return found


RUN_AND_BE_KILLED = textwrap.dedent(
    """
    import sys, numpy as np, taskik
    from taskik.batch import solve_poses
    targets = np.load(sys.argv[1])["targets"]
    solve_poses(taskik.robots.load("ur5"), "tool0", targets, workers=2, chunk_size=25,
                output=sys.argv[2])
    """
)


def test_a_stopped_run_resumes_without_duplicates_or_losses(tmp_path):
    """A run killed mid-job (SIGKILL of the whole process) leaves its finished chunks; the
    same call resumes: only the missing problems are solved, the answer is the loop's."""
    robot = taskik.robots.load("ur5")
    targets = reachable_targets(robot, "tool0", 2000, seed=5)
    np.savez(tmp_path / "targets.npz", targets=targets)
    output = tmp_path / "poses.npz"
    parts = output.with_name("poses.npz.parts")
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN_AND_BE_KILLED, str(tmp_path / "targets.npz"), str(output)]
    )
    try:
        _wait_for_parts(parts, 4, timeout=60.0)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert not output.exists()
    written = len(list(parts.glob("*.npz")))
    assert written >= 4
    # its workers see the caller gone (end of file on their pipe) and exit
    deadline = time.monotonic() + 10.0
    while _processes_with_argument(str(tmp_path / "targets.npz")):
        assert time.monotonic() < deadline, "workers outlived the killed caller by 10 s"
        time.sleep(0.05)
    result = solve_poses(robot, "tool0", targets, workers=2, chunk_size=25, output=output)
    assert_same(result, loop(robot, "tool0", targets))
    total_chunks = 2000 // 25
    assert len(result.workers) < total_chunks  # what was written was not solved again
    assert output.exists() and not parts.exists()
    assert_same(BatchResult.load(output), result)
    # the finished job: read back, nothing solved
    again = solve_poses(robot, "tool0", targets, workers=2, chunk_size=25, output=output)
    assert again.workers == []
    assert_same(again, result)
    with pytest.raises(InvalidInput, match="different job"):
        solve_poses(robot, "tool0", targets, output=output, seed=1)


def test_parts_of_another_job_are_refused(tmp_path, ur5_job):
    robot, targets, options, _ = ur5_job
    parts = tmp_path / "o.npz.parts"
    parts.mkdir()
    (parts / "job.json").write_text('{"key": "something else", "size": 24}')
    with pytest.raises(InvalidInput, match="chunks of a different job"):
        solve_poses(robot, "tool0", targets, output=tmp_path / "o.npz")


@pytest.mark.parametrize(
    ("targets", "message"),
    [
        (np.zeros((3, 3, 4)), r"N × 4 × 4 array .* got shape \(3, 3, 4\)"),
        (np.eye(4), r"got shape \(4, 4\)"),
        (np.zeros((0, 4, 4)), r"got shape \(0, 4, 4\)"),
        ("poses", "N × 4 × 4 array"),
        (pin.SE3.Identity(), "wrap a single pin.SE3 in a list"),
        ([pin.SE3.Identity(), np.eye(4)], "mixes pin.SE3"),
    ],
)
def test_bad_target_shapes_are_named(ur5, targets, message):
    with pytest.raises(InvalidInput, match=message):
        solve_poses(ur5, "tool0", targets)


def test_nan_and_non_rigid_targets_name_their_index(ur5):
    targets = np.tile(np.eye(4), (6, 1, 1))
    targets[4, 0, 3] = np.nan
    with pytest.raises(InvalidInput, match=r"targets \[4\] contain NaN or inf \(1 of 6\)"):
        solve_poses(ur5, "tool0", targets)
    targets[4, 0, 3] = 0.0
    targets[2, :3, :3] *= 2.0
    with pytest.raises(InvalidInput, match=r"targets\[2\] is not a rigid .* not orthonormal"):
        solve_poses(ur5, "tool0", targets)
    targets[2, :3, :3] = np.diag([1.0, 1.0, -1.0])
    with pytest.raises(InvalidInput, match=r"targets\[2\] is not a rigid .* a reflection"):
        solve_poses(ur5, "tool0", targets)
    targets[2] = np.eye(4)
    targets[3, 3, 0] = 0.5  # a transposed pose
    with pytest.raises(InvalidInput, match=r"targets\[3\] .* last row .*\(transposed\?\)"):
        solve_poses(ur5, "tool0", targets)


def test_unknown_frame_suggests_close_names(ur5):
    with pytest.raises(UnknownName, match="did you mean 'tool0'"):
        solve_poses(ur5, "tool_0", np.eye(4)[None])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"engine": "dask"}, "engine must be one of"),
        ({"workers": 0}, "workers must be an int >= 1"),
        ({"chunk_size": 0}, "chunk_size must be an int >= 1"),
        ({"seed": -1}, "seed must be an int >= 0"),
        ({"rng": 3}, "sets 'rng' per problem; use seed"),
        ({"q0": np.zeros(6)}, "sets 'q0' per problem"),
        ({"method": "newton"}, "unknown method 'newton'"),
        ({"max_iteration": 5}, "unknown option 'max_iteration' .*did you mean max_iterations"),
        ({"tasks": []}, "unknown option 'tasks'"),
    ],
)
def test_bad_options_are_named_before_any_worker_starts(ur5, kwargs, message, tmp_path):
    with pytest.raises(InvalidInput, match=message):
        solve_poses(
            ur5, "tool0", np.tile(np.eye(4), (3, 1, 1)), output=tmp_path / "o.npz", **kwargs
        )
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_ray_engine_without_ray_says_how_to_install(ur5, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray → ImportError
    installs = r"pip install 'ray\[default\]' \(or, from a clone, pip install -e '\.\[distri"
    with pytest.raises(ImportError, match=installs):
        solve_poses(ur5, "tool0", np.tile(np.eye(4), (3, 1, 1)), engine="ray")


def test_progress_bar_counts_problems(ur5_job, capsys):
    robot, targets, options, expected = ur5_job
    got = solve_poses(robot, "tool0", targets, workers=1, progress=True, seed=11, **options)
    assert_same(got, expected)
    err = capsys.readouterr().err
    assert re.search(r"100%.*24(\.0)?/24(\.0)? .*problems/s", err), err


def test_spawned_workers_give_the_same_answers(ur5_job, monkeypatch):
    """Where fork is not available the workers are spawned and receive the job pickled:
    the same answers."""
    from taskik.batch import local

    robot, targets, options, expected = ur5_job
    monkeypatch.setattr(local, "start_method", lambda: "spawn")
    got = solve_poses(robot, "tool0", targets, workers=2, chunk_size=8, seed=11, **options)
    assert_same(got, expected)
    assert len(set(got.workers)) == 3  # the caller and two spawned workers


def test_floating_base_humanoid_equals_the_loop(humanoid):
    """A floating base (nq = nv + 1, the general search loop on the work configuration,
    random starts around the reference posture): the loop's answers."""
    frame = "larm_effector_body"
    targets = reachable_targets(humanoid, frame, 12, seed=2)
    expected = loop(humanoid, frame, targets, max_searches=3)
    got = solve_poses(humanoid, frame, targets, workers=2, chunk_size=3, max_searches=3)
    assert got.q.shape == (12, humanoid.model.nq)
    assert expected.success.all()
    assert_same(got, expected)
