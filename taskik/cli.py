"""The ``taskik`` command: ``taskik robots``, ``taskik view <robot>``, ``taskik demo [name]``,
``taskik bench [script]``, ``taskik batch <robot> <frame> <in.npz> -o <out.npz>``,
``taskik retarget <clip> <out.npz> --robot R --mapping M``.
``taskik <command> --help`` describes each one."""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import runpy
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

if TYPE_CHECKING:
    from .configuration import Configuration
    from .tasks.task import Task

#: The source checkout (examples/ and benchmarks/ live there, not in the installed package).
CHECKOUT = Path(__file__).resolve().parent.parent
#: ``taskik bench`` prints that a script is still running after this many seconds (s) without
#: output, checking every HEARTBEAT_PERIOD seconds.
HEARTBEAT_SILENCE = 3.0
HEARTBEAT_PERIOD = 1.0


class Progress:
    """A one-line progress bar on stderr (a line every second when stderr is not a terminal)."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total, self.label = max(int(total), 1), label
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.start = self._last = time.perf_counter()
        self.done = 0

    def update(self, done: int, label: str | None = None) -> None:
        """Record ``done`` of ``total`` and redraw if it is time to."""
        self.done, self.label = done, label or self.label
        now = time.perf_counter()
        if done < self.total and now - self._last < (0.1 if self.tty else 1.0):
            return
        self._last = now
        width = 30
        filled = int(width * done / self.total)
        line = (
            f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {self.label}"
            f" ({now - self.start:.1f} s)"
        )
        self.stream.write(("\r" + line + "\033[K") if self.tty else line + "\n")
        if self.tty and done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _summary(path: Path) -> str:
    """First paragraph of a script's docstring, on one line (it may span several lines)."""
    try:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    except (SyntaxError, UnicodeDecodeError):
        doc = ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def _print_listing(rows: Sequence[tuple[str, str]], width: int) -> None:
    """``name  summary`` rows, the summaries whole, wrapped to the terminal's width and
    aligned after the names (a name wider than ``width`` gets its summary on the next line)."""
    columns = shutil.get_terminal_size((100, 24)).columns
    text_width = max(columns - width - 1, 30)
    indent = " " * (width + 1)
    for name, summary in rows:
        lines = textwrap.wrap(
            summary, text_width, break_long_words=False, break_on_hyphens=False
        ) or [""]
        if len(name) > width:
            print(name)
            first = indent + lines[0]
        else:
            first = f"{name:<{width}} {lines[0]}"
        print(first.rstrip())
        for line in lines[1:]:
            print(indent + line)


def _close(name: str, choices: Sequence[str]) -> str:
    matches = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(matches)}?" if matches else ""
    return f"{hint} Choices: {', '.join(choices)}."


# -- robots ------------------------------------------------------------------------------
def cmd_robots(args: argparse.Namespace) -> int:
    from . import robots

    print(f"{'robot':<14} {'nq':>3} {'nv':>3}  end effectors")
    bundled = list(robots._BUNDLED)
    for name in bundled:
        robot = robots.load(name)
        effectors = ", ".join(robot.end_effectors) or "-"
        print(f"{name:<14} {robot.model.nq:>3} {robot.model.nv:>3}  {effectors}")
    others = [n for n in robots.list() if n not in bundled]
    if others:
        print(f"\nwith example-robot-data ({len(others)}, loaded on use): " + ", ".join(others))
    else:
        print(
            "\nexample-robot-data is not installed: for more, install the robots extra "
            "(pip install -e '.[robots]' from a clone) or pip install example-robot-data"
        )
    return 0


# -- view --------------------------------------------------------------------------------
def cmd_view(args: argparse.Namespace) -> int:
    from . import robots

    robot = robots.load(args.robot)
    try:
        from .viewer import Viewer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        print(f"taskik view: {exc}", file=sys.stderr)
        return 2

    bars: dict[str, Progress] = {}

    def say(done: int, total: int, what: str) -> None:
        bars.setdefault(what, Progress(total, what)).update(done)

    print(f"loading {robot.name} (nq = {robot.model.nq}) ...", file=sys.stderr)
    viewer = Viewer(
        robot, frames=args.frame, host=args.host, port=args.port, dt=args.dt, progress=say
    )
    frames = ", ".join(t.frame.name for t in viewer.frame_tasks)
    print(f"taskik viewer for {robot.name}: {viewer.url}", flush=True)
    print(f"drag the gizmos on {frames}; Ctrl-C to stop", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(viewer.url)
    viewer.serve_forever()
    return 0


# -- demo --------------------------------------------------------------------------------
def _examples() -> dict[str, Path]:
    folder = Path(os.environ.get("TASKIK_EXAMPLES", CHECKOUT / "examples"))
    return {p.stem: p for p in sorted(folder.glob("*.py"))} if folder.is_dir() else {}


def cmd_demo(args: argparse.Namespace) -> int:
    examples = _examples()
    if not examples:
        print(
            "taskik demo: no examples/ folder found next to the package; run from a source "
            "checkout (git clone, pip install -e .) or set TASKIK_EXAMPLES",
            file=sys.stderr,
        )
        return 2
    if args.list:
        _print_listing([(name, _summary(path)) for name, path in examples.items()], 24)
        return 0
    if args.name not in examples:
        print(
            f"taskik demo: unknown example {args.name!r}" + _close(args.name, list(examples)),
            file=sys.stderr,
        )
        return 2
    path = examples[args.name]
    print(f"running {path}", file=sys.stderr, flush=True)
    argv, sys.argv = sys.argv, [str(path)]
    try:
        runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = argv
    return 0


# -- bench -------------------------------------------------------------------------------
def _step_scenario(name: str) -> tuple[Configuration, list[Task]]:
    """(configuration, tasks) for one step benchmark: every end effector 10 cm away."""
    import pinocchio as pin

    from . import FrameTask, PostureTask, robots
    from .viewer.app import default_frames

    robot = robots.load(name)
    conf = robot.configuration()
    tasks: list[Task] = []
    for frame in default_frames(robot):
        task = FrameTask(frame, position_cost=1.0, orientation_cost=0.5)
        target = conf.get_transform_frame_to_world(frame)
        task.set_target(pin.SE3(target.rotation, target.translation + [0.1, 0.0, 0.0]))
        tasks.append(task)
    posture = PostureTask(cost=1e-3)
    posture.set_target(robot.q0)
    return conf, [*tasks, posture]


def cmd_bench_steps(args: argparse.Namespace) -> int:
    from . import robots, solve_ik

    names = args.robots or ["ur5", "panda", "humanoid"] + (
        ["talos"] if "talos" in robots.list() else []
    )
    unknown = [n for n in names if n not in robots.list()]
    if unknown:
        print(
            f"taskik bench: unknown robot {unknown[0]!r}" + _close(unknown[0], robots.list()),
            file=sys.stderr,
        )
        return 2
    dt = 0.01
    progress = Progress(len(names) * args.calls, "")
    rows = []
    for k, name in enumerate(names):
        conf, tasks = _step_scenario(name)
        for _ in range(20):  # warm-up: assembly cache, solver workspace
            solve_ik(conf, tasks, dt)
        times = np.empty(args.calls)
        for i in range(args.calls):
            t0 = time.perf_counter()
            solve_ik(conf, tasks, dt)
            times[i] = time.perf_counter() - t0
            if i % 50 == 0 or i == args.calls - 1:
                progress.update(k * args.calls + i + 1, name)
        rows.append((name, conf.model.nv, len(tasks), *np.percentile(times * 1e6, [50, 95])))
    print(f"\none solve_ik step (tasks + limits + QP), {args.calls} calls per robot")
    print(f"{'robot':<10} {'nv':>3} {'tasks':>5} {'median µs':>10} {'p95 µs':>8}")
    for name, nv, ntasks, median, p95 in rows:
        print(f"{name:<10} {nv:>3} {ntasks:>5} {median:>10.1f} {p95:>8.1f}")
    return 0


def _benchmark_scripts() -> dict[str, Path]:
    folder = Path(os.environ.get("TASKIK_BENCHMARKS", CHECKOUT / "benchmarks"))
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.py")) if not p.stem.startswith("_")}


def cmd_bench_script(script: str, extra: list[str]) -> int:
    scripts = _benchmark_scripts()
    if not scripts:
        print(
            "taskik bench: no benchmarks/ folder next to the package (source checkout only)",
            file=sys.stderr,
        )
        return 2
    if script not in scripts:
        print(
            f"taskik bench: unknown benchmark {script!r}" + _close(script, list(scripts)),
            file=sys.stderr,
        )
        return 2
    cmd = [sys.executable, "-u", str(scripts[script]), *extra]
    print("running " + " ".join(cmd[2:]), file=sys.stderr, flush=True)
    start = time.perf_counter()
    last_output = [start]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    done = threading.Event()

    def heartbeat() -> None:  # the scripts print their results at the end: show time passing
        while not done.wait(HEARTBEAT_PERIOD):
            if time.perf_counter() - last_output[0] > HEARTBEAT_SILENCE:
                sys.stderr.write(
                    f"\r… {script} running, {time.perf_counter() - start:.0f} s\033[K"
                    if sys.stderr.isatty()
                    else f"… {script} running, {time.perf_counter() - start:.0f} s\n"
                )
                sys.stderr.flush()
                if not sys.stderr.isatty():
                    last_output[0] = time.perf_counter()

    thread = threading.Thread(target=heartbeat, daemon=True)
    thread.start()
    assert proc.stdout is not None
    for line in proc.stdout:
        last_output[0] = time.perf_counter()
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")
        sys.stdout.write(line)
        sys.stdout.flush()
    code = proc.wait()
    done.set()
    thread.join()
    print(
        f"{script} finished in {time.perf_counter() - start:.1f} s (exit {code})", file=sys.stderr
    )
    return code


def cmd_bench(args: argparse.Namespace) -> int:
    if args.list:
        rows = [("steps", "(built in) one solve_ik step per robot, median / p95 µs")]
        rows += [(name, _summary(path)) for name, path in _benchmark_scripts().items()]
        _print_listing(rows, 22)
        return 0
    if args.calls < 1:
        print(f"taskik bench: --calls must be at least 1, got {args.calls}", file=sys.stderr)
        return 2
    if args.script in (None, "steps"):
        if args.extra:
            print(f"taskik bench: unexpected arguments {args.extra}", file=sys.stderr)
            return 2
        return cmd_bench_steps(args)
    return cmd_bench_script(args.script, args.extra)


# -- batch -------------------------------------------------------------------------------
def cmd_batch(args: argparse.Namespace) -> int:
    from . import robots
    from .batch import solve_poses
    from .exceptions import InvalidInput

    try:
        with np.load(args.input) as f:
            names = list(f.keys())
            key = args.key or ("targets" if "targets" in names or len(names) != 1 else names[0])
            if key not in names:
                raise InvalidInput(
                    f"{args.input} has no array {key!r} (it has {', '.join(names) or 'none'}); "
                    "name the N × 4 × 4 poses with --key"
                )
            targets = f[key]
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot read {args.input} as an .npz file ({exc})") from None
    options = {
        name: value
        for name, value in (
            ("method", args.method),
            ("tol", args.tol),
            ("max_iterations", args.max_iterations),
            ("max_searches", args.max_searches),
        )
        if value is not None
    }
    result = solve_poses(
        robots.load(args.robot), args.frame, targets, engine=args.engine, workers=args.workers,
        chunk_size=args.chunk_size, output=args.output, progress=not args.quiet,
        seed=args.seed, address=args.address, **options,
    )  # fmt: skip
    print(f"{result} -> {args.output}")
    return 0


# -- parser ------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``taskik`` command."""
    parser = argparse.ArgumentParser(
        prog="taskik",
        description="Multi-task differential inverse kinematics on Pinocchio models.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"taskik {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "robots",
        help="list the robots that taskik.robots.load knows",
        description="List the bundled robots (nq, nv, end effectors) and, when "
        "example-robot-data is installed, its robots.",
    )
    p.set_defaults(func=cmd_robots)

    p = sub.add_parser(
        "view",
        help="serve a browser page: the robot, draggable targets, IK following live",
        description="Serve a page showing ROBOT with a draggable gizmo on each task frame; the "
        "IK (taskik.solve_ik with the model's limits) follows live. Needs the viewer extra "
        "(pip install -e '.[viewer]' from a clone, or pip install viser).",
    )
    p.add_argument("robot", help="robot name (see `taskik robots`)")
    p.add_argument(
        "--frame",
        action="append",
        metavar="FRAME",
        help="frame to put a target on (repeat; default: the end effectors)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free)")
    p.add_argument("--dt", type=float, default=0.02, help="IK period in s (default 0.02)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.set_defaults(func=cmd_view)

    p = sub.add_parser(
        "demo",
        help="run an example (examples/NAME.py)",
        description="Run examples/NAME.py from the source checkout "
        "(default: demo). --list shows them.",
    )
    p.add_argument("name", nargs="?", default="demo", help="example name (default: demo)")
    p.add_argument("--list", action="store_true", help="list the examples")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "bench",
        help="time solve_ik steps, or run a benchmark script",
        description="Without SCRIPT (or with `steps`): time one solve_ik step on the bundled "
        "robots (and Talos with example-robot-data), with a progress bar. With SCRIPT: run "
        "benchmarks/SCRIPT.py of the source checkout, passing the remaining arguments "
        "(e.g. `taskik bench step_vs_pink --calls 200`); --list shows them.",
    )
    p.add_argument("script", nargs="?", help="benchmark script name (default: steps)")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="arguments for the script")
    p.add_argument("--list", action="store_true", help="list the benchmarks")
    p.add_argument("--calls", type=int, default=2000, help="timed calls per robot (steps)")
    p.add_argument("--robots", nargs="+", metavar="ROBOT", help="robots to time (steps)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "batch",
        help="pose IK for many targets on every core (or a Ray cluster): .npz in, .npz out",
        description="Solve taskik.solve_posture for each pose of INPUT (an .npz holding an "
        "N × 4 × 4 array, 'targets' or its only array) with taskik.batch.solve_poses; write "
        "q, success, iterations, searches, error and time to OUTPUT (.npz). Finished chunks "
        "are kept next to OUTPUT as they go: the same command resumes a stopped run.",
    )
    p.add_argument("robot", help="robot name (see `taskik robots`)")
    p.add_argument("frame", help="the frame to place")
    p.add_argument("input", help=".npz file with the target poses (world frame, m)")
    p.add_argument("-o", "--output", required=True, help="result .npz file")
    p.add_argument("--key", help="array of INPUT holding the poses (default: targets)")
    p.add_argument("--engine", choices=("local", "ray"), default="local", help="default local")
    p.add_argument("--address", help="Ray cluster address (auto, ray://host:port)")
    p.add_argument("--workers", type=int, help="local processes (default: every core)")
    p.add_argument("--chunk-size", type=int, help="problems per chunk (default 256)")
    p.add_argument("--seed", type=int, default=0, help="seed of the job (default 0)")
    p.add_argument("--method", help="solve_posture method (default lm-chan)")
    p.add_argument("--tol", type=float, help="solve_posture tol (default 1e-6)")
    p.add_argument("--max-iterations", type=int, help="per search (default 15)")
    p.add_argument("--max-searches", type=int, help="per problem (default 100)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser(
        "retarget",
        help="retarget a keypoint clip onto a robot: clip file in, joint trajectory .npz out",
        description="taskik retarget INPUT OUTPUT --robot R --mapping M [--steps N] "
        "[--first-steps N] (see docs/retargeting.md)",
        add_help=False,
    )
    p.add_argument("args", nargs=argparse.REMAINDER, help="the command's arguments")
    p.set_defaults(func=cmd_retarget)
    return parser


def cmd_retarget(args: argparse.Namespace) -> int:
    """Hand the arguments to :func:`taskik.retarget.command.main`."""
    from .retarget.command import main as retarget_main

    return retarget_main(args.args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``taskik`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["retarget"]:  # its own parser: every argument, --help included, is its
        try:
            return cmd_retarget(argparse.Namespace(args=argv[1:]))
        except OSError as exc:  # a file the command could not read or write
            print(f"taskik retarget: {_os_error(exc)}", file=sys.stderr)
            return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    from .exceptions import TaskikError

    try:
        return int(args.func(args) or 0)
    except TaskikError as exc:
        print(f"taskik {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file the command could not read or write
        print(f"taskik {args.command}: {_os_error(exc)}", file=sys.stderr)
        return 2


def _os_error(exc: OSError) -> str:
    """``cannot read or write <file>: <reason>`` for an error of the file system."""
    where = exc.filename if exc.filename is not None else "a file"
    return f"cannot read or write {where}: {exc.strerror or exc}"


if __name__ == "__main__":
    sys.exit(main())
