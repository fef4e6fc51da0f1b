"""``taskik retarget INPUT OUTPUT --robot R --mapping M``: a clip file in, a joint
trajectory file out; ``taskik retarget INPUT... --output-dir DIR ...``: many clips, on every
core (or a Ray cluster), each to ``DIR/<stem>.npz``, finished ones skipped on a rerun."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..batch.solve import ENGINES
from ..exceptions import TaskikError
from .many import retarget_many
from .solver import DEFAULT_STEPS, FIRST_FRAME_STEPS, retarget


def parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    p = argparse.ArgumentParser(
        prog="taskik retarget",
        description="Retarget keypoint clips (.npz or .csv) onto a robot; write the joint "
        "trajectory and per-frame errors of each (.npz). One clip: INPUT OUTPUT. Several: "
        "INPUT... --output-dir DIR (each to DIR/<stem>.npz, on every core, resumable).",
    )
    p.add_argument(
        "paths", nargs="+", metavar="INPUT", help="clip file(s), then OUTPUT without --output-dir"
    )
    p.add_argument(
        "--output-dir", help="folder of the results of several clips (made when missing)"
    )
    p.add_argument("--robot", required=True, help="robot name (taskik robots lists them)")
    p.add_argument("--mapping", required=True, help="mapping file (.json, or .yaml with PyYAML)")
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="QP steps per frame")
    p.add_argument(
        "--first-steps", type=int, default=FIRST_FRAME_STEPS, help="steps of the first frame"
    )
    p.add_argument("--engine", choices=ENGINES, default="local", help="with --output-dir")
    p.add_argument("--workers", type=int, help="local processes (default: every core)")
    p.add_argument("--address", help="Ray cluster address (engine ray; default: a local Ray)")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 done, 2 bad input)."""
    p = parser()
    args = p.parse_args(argv)
    if args.output_dir is None and len(args.paths) != 2:
        p.error("give INPUT OUTPUT, or several INPUT files with --output-dir DIR")
    options = {"steps": args.steps, "first_steps": args.first_steps}
    try:
        if args.output_dir is not None:
            batch = retarget_many(
                args.robot,
                args.paths,
                args.mapping,
                args.output_dir,
                engine=args.engine,
                workers=args.workers,
                address=args.address,
                progress=args.progress,
                **options,
            )
            print(batch)
            return 0
        result = retarget(args.robot, args.paths[0], args.mapping, **options)
        result.save(args.paths[1])
    except TaskikError as exc:
        print(f"taskik retarget: error: {exc}", file=sys.stderr)
        return 2
    print(result.summary())
    print(f"wrote {args.paths[1]}")
    return 0
