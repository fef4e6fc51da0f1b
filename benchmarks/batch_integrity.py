"""Batch output under faults: every problem answered exactly once, the loop's answer.

UR5 ``tool0``, ``--problems`` targets (default 20,000: poses at random configurations, one
in 50 moved 2 m away so that failures, restarts and random starts take part), solved by
``taskik.batch.solve_poses(output=..., workers=2, chunk_size=--chunk-size)`` in a child
process, which this script hurts:

1. run 1: a worker killed (SIGKILL) after 10 % of the parts are written, then the caller
   killed (SIGKILL) at 25 %;
2. run 2 (the same call resumes): a worker killed (SIGTERM) after 15 % more parts, then the
   caller killed (SIGTERM) after 30 % more;
3. by hand, on the parts left on disk: one part truncated to half its bytes, one corrupted
   (64 bytes flipped in the middle of its data), one rewritten as a valid archive with its
   arrays cut to one row (what an earlier version spread over the part's problems), one
   rewritten as a valid archive with one solution value moved by one ulp (only the part's
   checksum can see it);
4. run 3 resumes to the end.

Checks: the workers of a killed caller exit by themselves; run 3 rejects exactly the four
damaged parts; it reads back every other part and solves exactly the problems that are not
in them; over the three runs each problem is held by exactly one surviving part or solve
(the damaged parts' problems: the part rejected, then one solve); the result file reads
back (its checksum checked) and equals, bit for bit (q, success, iterations, searches,
error), a plain loop of ``solve_posture`` with the same seeds in this process.

``--throttle`` sleeps that many seconds per chunk in the workers (the answers do not
change), so that a small job lasts long enough to be hurt (the test suite runs this with a
few hundred problems). The wall times are those of a shared machine: context, not claims.

    python benchmarks/batch_integrity.py [--problems 20000] [--chunk-size 100] [--throttle 0]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import taskik
from taskik.batch import BatchResult, problem_seed, solve_poses
from taskik.batch import solve as batch_solve
from taskik.batch.store import PART, Store

FRAME = "tool0"
SEED = 0
RESULTS = Path(__file__).parent / "results" / "batch_integrity.txt"
FIELDS = ("q", "success", "iterations", "searches", "error")  # (time: measured, differs)


def make_targets(n: int, seed: int = 29) -> np.ndarray:
    """``n`` UR5 tool poses at random configurations; every 50th moved 2 m away."""
    robot = taskik.robots.load("ur5")
    model, rng = robot.model, np.random.default_rng(seed)
    data, fid = model.createData(), model.getFrameId(FRAME)
    out = np.empty((n, 4, 4))
    for k in range(n):
        pin.forwardKinematics(model, data, robot.random_configuration(rng))
        out[k] = pin.updateFramePlacement(model, data, fid).homogeneous
    out[::50, 0, 3] += 2.0
    return out


def plain_loop(targets: np.ndarray) -> dict[str, np.ndarray]:
    """The specification: ``solve_posture`` on each target in turn, problem i seeded
    ``problem_seed(SEED, i)``."""
    model = taskik.robots.load("ur5").model
    task = taskik.FrameTask(FRAME)
    rows = []
    for i, T in enumerate(targets):
        task.set_target(T)
        rows.append(taskik.solve_posture(model, [task], rng=problem_seed(SEED, i)))
    return {name: np.array([getattr(r, name) for r in rows]) for name in FIELDS}


# -- the child: one run of solve_poses, with a journal ---------------------------------
def child(workdir: Path, chunk_size: int, throttle: float) -> None:
    """One run of the job in this process (started by :func:`start_run`); writes the
    problems it read back (``resumed-<pid>.npy``) and the parts it rejected
    (``rejected-<pid>.txt``) before solving."""
    targets = np.load(workdir / "targets.npz")["targets"]
    opened = Store.open

    def open_and_record(self):
        arrays, done, finished = opened(self)
        np.save(workdir / f"resumed-{os.getpid()}.npy", done)
        lines = [f"{name}\t{why}\n" for name, why in self.rejected]
        (workdir / f"rejected-{os.getpid()}.txt").write_text("".join(lines))
        return arrays, done, finished

    Store.open = open_and_record  # type: ignore[method-assign]
    if throttle > 0:
        solve_chunk = batch_solve.solve_chunk

        def slow(job, start, stop, chunk_targets=None):
            time.sleep(throttle)  # (in the worker: the answers do not change)
            return solve_chunk(job, start, stop, chunk_targets)

        batch_solve.solve_chunk = slow  # type: ignore[assignment]
    solve_poses(
        taskik.robots.load("ur5"),
        FRAME,
        targets,
        workers=2,
        chunk_size=chunk_size,
        output=workdir / "poses.npz",
        seed=SEED,
    )


# -- the parent: runs, hurts and checks ------------------------------------------------
def parts_on_disk(parts: Path) -> set[tuple[int, int]]:
    """The ranges of the part files in ``parts`` (temporary files aside)."""
    if not parts.is_dir():
        return set()
    found = set()
    for entry in parts.iterdir():
        match = PART.match(entry.name)
        if match:
            found.add((int(match[1]), int(match[2])))
    return found


def children_of(pid: int) -> list[int]:
    """Live (not zombie) child processes of ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return sorted(out)


def alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


class Run:
    """One child run of the job, in its own session (so that whatever it leaves can be
    stopped)."""

    def __init__(self, workdir: Path, chunk_size: int, throttle: float) -> None:
        self.workdir = workdir
        self.parts = workdir / "poses.npz.parts"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(workdir), "--chunk-size",
             str(chunk_size), "--throttle", str(throttle)],
            start_new_session=True,
            env={**os.environ, "PYTHONWARNINGS": "default"},
        )  # fmt: skip
        self.events: list[str] = []
        self.workers: set[int] = set()

    def wait_parts(self, count: int, deadline: float) -> None:
        """Until ``count`` parts are on disk (AssertionError past ``deadline`` or if the
        run ends first)."""
        while len(parts_on_disk(self.parts)) < count:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"the run ended (exit {self.proc.returncode}) before {count} parts"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"fewer than {count} parts before the deadline")
            self.workers.update(children_of(self.proc.pid))
            time.sleep(0.003)

    def kill_worker(self, sig: signal.Signals, deadline: float) -> int:
        while True:
            workers = children_of(self.proc.pid)
            if workers:
                break
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError("no worker to kill")
            time.sleep(0.003)
        victim = workers[0]
        held = len(parts_on_disk(self.parts))
        os.kill(victim, sig)
        self.events.append(f"worker {victim} sent {sig.name} with {held} parts on disk")
        return victim

    def kill_caller(self, sig: signal.Signals, deadline: float) -> float:
        """Kill the caller; seconds until its workers are gone (they see the pipe close)."""
        self.workers.update(children_of(self.proc.pid))
        held = len(parts_on_disk(self.parts))
        os.kill(self.proc.pid, sig)
        self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        t0 = time.monotonic()
        while any(alive(w) for w in self.workers):
            if time.monotonic() > t0 + 20.0:
                raise AssertionError(f"workers {sorted(self.workers)} outlived their caller")
            time.sleep(0.01)
        gone = time.monotonic() - t0
        self.events.append(
            f"caller {self.proc.pid} sent {sig.name} with {held} parts on disk; its "
            f"workers ({len(self.workers)} seen in the run) were gone {gone:.2f} s later"
        )
        return gone

    def stop(self) -> None:
        """Whatever is left of this run (its process group: the caller and its workers),
        killed."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        for w in self.workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)


def damage(parts: Path, chosen: list[tuple[int, int]]) -> list[str]:
    """Truncate, corrupt, cut to one row and change by one ulp the parts ``chosen`` (in
    that order)."""
    done = []
    names = [parts / f"{a:010d}-{b:010d}.npz" for a, b in chosen]
    data = names[0].read_bytes()
    names[0].write_bytes(data[: len(data) // 2])
    done.append(f"{names[0].name}: truncated to {len(data) // 2} of {len(data)} bytes")
    data = bytearray(names[1].read_bytes())
    middle = len(data) // 2
    for k in range(middle, middle + 64):
        data[k] ^= 0xA5
    names[1].write_bytes(bytes(data))
    done.append(f"{names[1].name}: 64 bytes flipped at offset {middle} of {len(data)}")
    with np.load(names[2]) as f:
        arrays = {k: (f[k][:1] if f[k].ndim else f[k]) for k in f.files}
    with open(names[2], "wb") as out:
        np.savez(out, **arrays)
    done.append(f"{names[2].name}: rewritten with every array cut to its first row")
    with np.load(names[3]) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["q"][0, 0] = np.nextafter(arrays["q"][0, 0], np.inf)
    with open(names[3], "wb") as out:
        np.savez(out, **arrays)
    done.append(f"{names[3].name}: rewritten (a valid archive) with one q value 1 ulp up")
    return done


def run(problems: int, chunk_size: int, throttle: float, workdir: Path, timeout: float) -> dict:
    """The whole scenario in ``workdir``; a report (figures and lines of text). Raises
    AssertionError when a run cannot be hurt as planned (a deadline passed)."""
    t_start = time.monotonic()
    deadline = t_start + timeout
    workdir.mkdir(parents=True, exist_ok=True)
    targets = make_targets(problems)
    np.savez(workdir / "targets.npz", targets=targets)
    parts_dir = workdir / "poses.npz.parts"
    total = 1 + -(-(problems - 1) // chunk_size)  # the caller's first problem, then chunks
    lines: list[str] = []
    written: list[set[tuple[int, int]]] = []  # new parts of each killed run
    runs = []
    try:
        plan = [
            (signal.SIGKILL, 0.10, signal.SIGKILL, 0.25),
            (signal.SIGTERM, 0.40, signal.SIGTERM, 0.70),
        ]
        for k, (worker_sig, at_worker, caller_sig, at_caller) in enumerate(plan, 1):
            before = parts_on_disk(parts_dir)
            r = Run(workdir, chunk_size, throttle)
            runs.append(r)
            t0 = time.monotonic()
            r.wait_parts(max(len(before) + 2, int(at_worker * total)), deadline)
            r.kill_worker(worker_sig, deadline)
            r.wait_parts(max(len(before) + 4, int(at_caller * total)), deadline)
            r.kill_caller(caller_sig, deadline)
            after = parts_on_disk(parts_dir)
            assert before <= after, "a killed run removed parts"
            written.append(after - before)
            solved = sum(b - a for a, b in after - before)
            lines.append(
                f"run {k}: {len(after - before)} parts ({solved} problems) written in "
                f"{time.monotonic() - t0:.1f} s; " + "; ".join(r.events)
            )
        on_disk = sorted(parts_on_disk(parts_dir))
        full = [(a, b) for a, b in on_disk if b - a == chunk_size]  # (not a first problem)
        chosen = [full[len(full) // 4], full[len(full) // 2], full[-2], full[len(full) // 8]]
        lines += ["damaged by hand before run 3:"] + [f"  {d}" for d in damage(parts_dir, chosen)]
        r = Run(workdir, chunk_size, throttle)
        runs.append(r)
        t0 = time.monotonic()
        code = r.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        assert code == 0, f"run 3 failed (exit {code})"
        t_run3 = time.monotonic() - t0
    finally:
        for r in runs:
            r.stop()
    pid = runs[-1].proc.pid
    resumed = np.load(workdir / f"resumed-{pid}.npy")
    rejected = (workdir / f"rejected-{pid}.txt").read_text().splitlines()
    result = BatchResult.load(workdir / "poses.npz")  # (its checksum checked)
    # each problem: how many surviving answers (parts of runs 1-2 not rejected, solves of 3)
    damaged = {name: why for name, why in (line.split("\t", 1) for line in rejected)}
    holders = np.zeros(problems, dtype=np.int64)
    for new in written:
        for a, b in new:
            if f"{a:010d}-{b:010d}.npz" not in damaged:
                holders[a:b] += 1
    holders[~resumed] += 1  # run 3 solved what it did not read back
    t0 = time.monotonic()
    expected = plain_loop(targets)
    t_loop = time.monotonic() - t0
    equal = np.ones(problems, dtype=bool)
    for name in FIELDS:
        same = getattr(result, name) == expected[name]
        equal &= same.all(axis=1) if same.ndim == 2 else same
    chosen_names = {f"{a:010d}-{b:010d}.npz" for a, b in chosen}
    written_total = sum(b - a for new in written for a, b in new) + int((~resumed).sum())
    report = {
        "problems": problems,
        "rows": len(result),
        "equal_to_loop": int(equal.sum()),
        "answered_once": int((holders == 1).sum()),
        "answered_twice_or_more": int((holders > 1).sum()),
        "unanswered": int((holders == 0).sum()),
        "resumed_by_run_3": int(resumed.sum()),
        "solved_by_run_3": int((~resumed).sum()),
        "rejected": sorted(damaged),
        "damaged": sorted(chosen_names),
        "solved": float(result.success.mean()),
        "written_total": written_total,
        "rejected_problems": sum(b - a for a, b in chosen),
        "lines": lines,
    }
    lines += [f"run 3 rejected {len(damaged)} parts:"]
    lines += [f"  {name}: {why}" for name, why in sorted(damaged.items())]
    lines += [
        f"run 3: read back {report['resumed_by_run_3']} problems from "
        f"{len(on_disk) - len(damaged)} parts, solved {report['solved_by_run_3']} "
        f"({t_run3:.1f} s); the result file read back with its checksum checked",
        f"answered exactly once: {report['answered_once']} of {problems} "
        f"(twice or more: {report['answered_twice_or_more']}, never: {report['unanswered']})",
        f"problems written to the output over the three runs: {written_total} = {problems} "
        f"+ {report['rejected_problems']} of the rejected parts (the chunks in flight when "
        "a process was killed were never written: lost work, not answers)",
        f"equal bit for bit to a plain loop of solve_posture ({t_loop:.1f} s): "
        f"{report['equal_to_loop']} of {problems} (q, success, iterations, searches, error); "
        f"{report['solved']:.1%} solved (one target in 50 is out of reach)",
        f"total wall time {time.monotonic() - t_start:.0f} s",
    ]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", type=int, default=20_000)
    parser.add_argument("--chunk-size", type=int, default=100)
    parser.add_argument("--throttle", type=float, default=0.0, help="s per chunk, in workers")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary dir")
    parser.add_argument("--timeout", type=float, default=1800.0, help="s, the whole scenario")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.chunk_size, args.throttle)
        return
    import shutil
    import tempfile

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="batch_integrity_"))
    try:
        report = run(args.problems, args.chunk_size, args.throttle, workdir, args.timeout)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    head = (
        f"Batch output under faults: UR5 {FRAME!r}, {args.problems} problems, workers=2, "
        f"chunk_size={args.chunk_size}, throttle {args.throttle} s/chunk, "
        f"{os.cpu_count()} cores (load average {load})"
    )
    ok = (
        report["equal_to_loop"] == report["answered_once"] == report["rows"] == args.problems
        and report["rejected"] == report["damaged"]
    )
    text = "\n".join([head, "", *report["lines"], "", "PASS" if ok else "FAIL"])
    print(text)
    if args.problems == 20_000 and args.workdir is None:
        RESULTS.write_text(text + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
