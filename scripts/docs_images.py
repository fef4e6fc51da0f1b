"""Makes the documentation's pictures (docs/images/*.png) from the code: ``make images``.

Each picture comes from a snippet of README.md, run as written with one line added after its
``integrate_inplace`` to record what the loop did, so the picture shows what the snippet does:

- ``first_loop.png``: the README's first loop, each task's error over time (``taskik.plots``);
- ``first_loop_joints.png``: the same loop's joints against their position limits;
- ``priorities.png``: the README's priorities snippet, each level's error over time;
- ``settling.png``: that loop's ``‖v‖`` with the default step and with ``adaptive=False``;
- ``collision_scene.png``: the README's collision snippet, the tool's path around the ball
  seen from the side and the closest distance over time against the damper's distances;
- ``viewer.png``: ``taskik view panda`` drawn by headless Chromium (kept as it is when no
  Chromium is installed).

Needs the ``plot`` and ``viewer`` extras. ``--only NAME`` makes one picture.
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
LOOP_LINES = (
    "    configuration.integrate_inplace(v, dt)\n",
    "    configuration.integrate_inplace(v, 0.01)\n",
)


def readme_snippet(marker: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    (snippet,) = [b for b in blocks if marker in b]
    return snippet


def run_recording(snippet: str, record: Callable[[dict], None]) -> dict:
    """Runs ``snippet`` with ``record(namespace)`` called after every step of its loop."""
    line = next(l for l in LOOP_LINES if l in snippet)
    patched = snippet.replace(line, line + "    _record(globals())\n", 1)
    namespace: dict = {"_record": record}
    quiet = patched.replace("print(", "(lambda *a, **k: None)(")
    exec(compile(quiet, "snippet", "exec"), namespace)
    return namespace


def first_loop() -> None:
    from taskik.plots import Recorder

    recorder: list[Recorder] = []

    def record(ns: dict) -> None:
        if not recorder:
            recorder.append(Recorder([ns["tool"], ns["posture"]]))
        recorder[0].record(len(recorder[0].times) * ns["dt"], ns["configuration"])

    run_recording(readme_snippet("taskik.report(configuration, [tool, posture]"), record)
    recorder[0].plot_task_errors(IMAGES / "first_loop.png", "README's first loop: task errors")
    recorder[0].plot_joints(IMAGES / "first_loop_joints.png", title="UR5 joints and their limits")


def priorities() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from taskik.plots import plot_task_errors

    snippet = readme_snippet("hierarchy_report")
    runs = {}
    for name, code in (
        ("default step", snippet),
        ("adaptive=False", snippet.replace("levels, 0.01)", "levels, 0.01, adaptive=False)")),
    ):
        errors: dict[str, list[float]] = {"feet": [], "hand": [], "posture": []}
        speed: list[float] = []

        def record(ns: dict, errors: dict = errors, speed: list = speed) -> None:
            conf = ns["configuration"]
            feet = [np.linalg.norm(f.compute_error(conf)) for f in ns["feet"]]
            errors["feet"].append(float(np.max(feet)))
            errors["hand"].append(float(np.linalg.norm(ns["hand"].compute_error(conf))))
            errors["posture"].append(float(np.linalg.norm(ns["posture"].compute_error(conf))))
            speed.append(float(np.linalg.norm(ns["v"])))

        run_recording(code, record)
        runs[name] = (errors, speed)
    errors, _ = runs["default step"]
    times = 0.01 * np.arange(1, len(errors["feet"]) + 1)
    plot_task_errors(
        times,
        {"level 0: feet (largest)": errors["feet"], "level 1: hand": errors["hand"],
         "level 2: posture": errors["posture"]},
        IMAGES / "priorities.png",
        title="README's priorities snippet: errors per level",
    )  # fmt: skip
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for name, (_, speed) in runs.items():
        ax.plot(times, np.maximum(speed, 1e-16), label=name)
    ax.set_yscale("log")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("‖v‖ (rad/s, m/s)")
    ax.set_title("the same loop: at rest (v = 0, drawn at 1e-16) or swinging")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.savefig(IMAGES / "settling.png", dpi=100)
    plt.close(fig)


def collision_scene() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path: list[np.ndarray] = []
    closest: list[float] = []

    def record(ns: dict) -> None:
        conf = ns["configuration"]
        path.append(conf.get_transform_frame_to_world("tool0").translation.copy())
        closest.append(float(ns["collisions"].distances(conf, all_pairs=True).distance.min()))

    ns = run_recording(readme_snippet("closest approach"), record)
    ball, collisions = ns["ball"], ns["collisions"]
    center = np.asarray(ball.pose.translation)
    radius = float(ball.geometry.radius)
    xy = np.array(path)
    fig, (top, dist) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    top.add_patch(plt.Circle(center[1:], radius, color="C0", alpha=0.4, label="ball (8 cm)"))
    top.plot(xy[:, 1], xy[:, 2], color="C1", label="tool0")
    top.plot(*xy[0, 1:], "o", color="C1")
    target = ns["target"].translation
    top.plot(target[1], target[2], "x", color="C3", markersize=10, label="target")
    top.set_aspect("equal")
    top.set_xlabel("y (m)")
    top.set_ylabel("z (m)")
    top.set_title("UR5 tool seen from the side")
    top.legend(fontsize="small")
    top.grid(alpha=0.3)
    times = 0.01 * np.arange(1, len(closest) + 1)
    dist.plot(times, np.array(closest) * 1e3, color="C1", label="closest pair")
    distances = ((collisions.safety_distance, "d_s"), (collisions.detection_distance, "d_i"))
    for value, name in distances:
        dist.axhline(value * 1e3, color="C3", linestyle="--", linewidth=1)
        dist.text(times[-1], value * 1e3, f" {name}", va="bottom", ha="right", color="C3")
    dist.set_xlabel("time (s)")
    dist.set_ylabel("distance (mm)")
    dist.set_title("closest distance over the loop")
    dist.grid(alpha=0.3)
    fig.savefig(IMAGES / "collision_scene.png", dpi=100)
    plt.close(fig)


CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--virtual-time-budget=8000",
]  # fmt: skip


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def screenshot(url: str, out: Path, size: str) -> None:
    """``url`` drawn by headless Chromium into ``out`` (``size``: "width,height")."""
    browser = chromium()
    assert browser is not None
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--window-size={size}", f"--user-data-dir={profile}",
             f"--screenshot={out}", url],
            capture_output=True, timeout=90, check=True,
        )  # fmt: skip


def orange_share(path: Path) -> float:
    """Share of the picture's pixels in the viewer's link orange (is the robot drawn?)."""
    from PIL import Image

    image = np.asarray(Image.open(path).convert("RGB")).astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return float(((r > 150) & (r - b > 80) & (g > 60) & (g < r - 30)).mean())


def viewer() -> None:
    if chromium() is None:
        print("viewer.png: no headless Chromium installed, kept as it is")
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "taskik.cli", "view", "panda", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(150):
            try:
                with urllib.request.urlopen(url, timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        with tempfile.TemporaryDirectory() as tmp:
            shot = Path(tmp) / "viewer.png"
            for _ in range(8):  # the scene reaches the page over a websocket after it loads
                screenshot(url, shot, "1000,650")
                if orange_share(shot) > 0.01:
                    break
                time.sleep(2.0)
            else:
                raise RuntimeError("the viewer's page never showed the robot")
            shutil.copy(shot, IMAGES / "viewer.png")
    finally:
        server.terminate()
        server.wait(timeout=10)


PICTURES = {
    "first_loop": first_loop,
    "priorities": priorities,
    "collision_scene": collision_scene,
    "viewer": viewer,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(PICTURES), action="append")
    args = parser.parse_args(argv)
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name in args.only or PICTURES:
        PICTURES[name]()
        print(f"made {name}")


if __name__ == "__main__":
    main()
