"""taskik.batch.solve_poses on a real Ray cluster: a head and a second node started by the
test with ``ray start`` on this machine (GCS on 127.0.0.1), a job spread over both, a
worker process killed mid-job.

Skipped only when Ray is not installed (the ``dev`` extra installs it). Everything the test
starts runs in two process groups of its own, stopped at the end (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_batch import assert_same, reachable_targets
from test_retarget_many import (
    MAPPING,
    OPTIONS,
    ROBOT,
    assert_same_as_loop,
    loop_outputs,
    make_clips,
)

import taskik
from taskik.batch import solve_poses
from taskik.retarget import retarget_many

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'taskik[distributed]')")

RAY = str(Path(sys.executable).with_name("ray"))
ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _ray_client_installed() -> bool:
    """Whether Ray's client server can start (``ray[client]``, which ``ray[default]`` holds:
    its port is then given, not left at 10001); plain ``ray`` starts none and refuses the
    option."""
    try:
        import grpc  # noqa: F401
    except ImportError:
        return False
    return True


def _free_port_block(size: int) -> int:
    """The first of ``size`` consecutive ports that are free now (probed on 127.0.0.1)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + size >= 65000:
            continue
        free = True
        for port in range(base, base + size):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    free = False
                    break
        if free:
            return base
    raise RuntimeError("no block of free ports")


def _start_node(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        # (no log monitor: the driver does not print the workers' logs, log_to_driver=False)
        [RAY, "start", "--block", "--disable-usage-stats", "--include-log-monitor", "false", *args],
        env={**os.environ, **ENV},
        start_new_session=True,  # its own process group: stopped as a whole
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(nodes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to every node's process group, up to 2 s to exit, then SIGKILL."""
    for node in nodes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGTERM)
    deadline = time.monotonic() + 2.0
    for node in nodes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            node.wait(timeout=max(0.1, deadline - time.monotonic()))
    for node in nodes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGKILL)  # what SIGTERM left
        node.wait(timeout=10)


def _group_processes(groups: set[int], title: str) -> list[int]:
    """Pids of the processes whose command line starts with ``title`` and that belong to
    one of ``groups`` or whose parent does (Ray may start its workers in groups of their
    own)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().decode(errors="replace")
            if not cmd.startswith(title):
                continue
            stat = (entry / "stat").read_text()
            ppid, pgid = (int(x) for x in stat.rsplit(")", 1)[1].split()[1:3])
            if pgid in groups or os.getpgid(ppid) in groups:
                out.append(int(entry.name))
        except (OSError, ProcessLookupError, ValueError):
            continue
    return out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[tuple[str, set[int]]]:
    """A head node and a second node, one CPU each: ``(address, process groups)``."""
    base = _free_port_block(200)
    temp = tempfile.mkdtemp(prefix="tkray")  # short: Ray's socket paths must stay < 108 chars
    ports = {
        "gcs": base,
        "client": base + 1,
        "agent_head": base + 2,
        "agent_node": base + 3,
    }
    client = _ray_client_installed()  # (plain ray starts no client server)
    head = _start_node(
        [
            "--head",
            "--port", str(ports["gcs"]),
            "--node-ip-address", "127.0.0.1",
            "--num-cpus", "1",
            "--include-dashboard", "false",
            "--temp-dir", temp,
            *(["--ray-client-server-port", str(ports["client"])] if client else []),
            "--dashboard-agent-listen-port", str(ports["agent_head"]),
            "--min-worker-port", str(base + 10),
            "--max-worker-port", str(base + 99),
        ]
    )  # fmt: skip
    nodes = [head]
    address = f"127.0.0.1:{ports['gcs']}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", ports["gcs"])) == 0:
                    break
            assert head.poll() is None, "ray start --head exited"
            time.sleep(0.2)
        nodes.append(
            _start_node(
                [
                    "--address", address,
                    "--node-ip-address", "127.0.0.1",
                    "--num-cpus", "1",
                    "--dashboard-agent-listen-port", str(ports["agent_node"]),
                    "--min-worker-port", str(base + 100),
                    "--max-worker-port", str(base + 199),
                ]
            )
        )  # fmt: skip
        for key, value in ENV.items():
            os.environ[key] = value
        # The GCS port opens before the head node has registered itself: on a loaded machine
        # ray.init can find no node yet ("No node info found"). Try again for up to 60 s.
        deadline = time.monotonic() + 60
        while True:
            try:
                ray.init(address=address, log_to_driver=False)
                break
            except (ConnectionError, RuntimeError):
                with contextlib.suppress(Exception):
                    ray.shutdown()
                assert head.poll() is None, "ray start --head exited"
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)
        deadline = time.monotonic() + 30
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert time.monotonic() < deadline, "the second node did not join in 30 s"
            time.sleep(0.2)
        yield address, {node.pid for node in nodes}
    finally:
        with contextlib.suppress(Exception):
            ray.shutdown()
        _stop(nodes)
        shutil.rmtree(temp, ignore_errors=True)  # Ray's session files and logs


def test_ray_batch_over_two_nodes_equals_the_loop_and_survives_a_killed_worker(cluster, tmp_path):
    """A job over both nodes gives the local answers bit for bit (which equal the loop's,
    tests/test_batch.py); killing a worker mid-job (SIGKILL) loses no problem and solves
    none twice in the output."""
    address, groups = cluster
    robot = taskik.robots.load("ur5")
    targets = reachable_targets(robot, "tool0", 6000, seed=8)  # 60 chunks of 100
    expected = solve_poses(robot, "tool0", targets, workers=1)
    # small jobs first, until the workers of both nodes have started and taken chunks (on
    # a busy host the second node's worker may start after a first job is done): bounded
    local = solve_poses(robot, "tool0", targets[:400], workers=1)
    nodes: set[str] = set()
    deadline = time.monotonic() + 90
    while len(nodes) < 2:
        assert time.monotonic() < deadline, f"in 90 s the jobs ran on nodes {nodes} only"
        warm = solve_poses(robot, "tool0", targets[:400], engine="ray", chunk_size=20)
        assert_same(warm, local)
        nodes |= {w.rsplit("/", 1)[1] for w in warm.workers if "/" in w}

    output = tmp_path / "ray.npz"
    parts = output.with_name("ray.npz.parts")
    box: dict[str, object] = {}
    import threading

    def run() -> None:
        try:
            box["result"] = solve_poses(
                robot, "tool0", targets, engine="ray", chunk_size=100, output=output,
                address=address,
            )  # fmt: skip
        except BaseException as exc:  # (reported below)
            box["error"] = exc

    runner = threading.Thread(target=run)
    runner.start()
    killed = None
    try:
        deadline = time.monotonic() + 30
        while killed is None and time.monotonic() < deadline and runner.is_alive():
            if parts.is_dir() and len(list(parts.glob("*.npz"))) >= 5:
                busy = _group_processes(groups, "ray::_chunk_task")
                if busy:
                    killed = busy[0]
                    os.kill(killed, signal.SIGKILL)
            time.sleep(0.005)
    finally:
        runner.join(timeout=60)
    assert killed is not None, "no Ray worker was caught running a chunk"
    assert "error" not in box, box.get("error")
    result = box["result"]
    assert_same(result, expected)
    assert len(result.workers) == 1 + -(-(len(targets) - 1) // 100)  # each chunk once
    assert not any(w.startswith(f"{killed}@") for w in result.workers[-3:])
    assert not parts.exists()


def test_retarget_many_over_two_nodes_writes_what_the_loop_writes(cluster, tmp_path):
    """taskik.retarget.retarget_many on the Ray engine (run_ray_work): each clip a task,
    its result written by the caller; the outputs are the loop's, bit for bit."""
    address, _ = cluster
    clips, loop = make_clips(tmp_path / "clips"), loop_outputs(tmp_path / "loop")
    batch = retarget_many(
        ROBOT, clips, MAPPING, tmp_path / "out", engine="ray", address=address, **OPTIONS
    )
    assert_same_as_loop(batch, clips, loop)
    assert len(batch.workers) == len(clips) and all("/" in w for w in batch.workers)
