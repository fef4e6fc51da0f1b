"""``taskik retarget INPUT OUTPUT --robot R --mapping M``: a clip file in, a joint
trajectory file out."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..exceptions import TaskikError
from .solver import DEFAULT_STEPS, FIRST_FRAME_STEPS, retarget


def parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    p = argparse.ArgumentParser(
        prog="taskik retarget",
        description="Retarget a keypoint clip (.npz or .csv) onto a robot; write the joint "
        "trajectory and per-frame errors to OUTPUT (.npz).",
    )
    p.add_argument("input", help="clip file (.npz or .csv)")
    p.add_argument("output", help="result file (.npz), written through a temporary file")
    p.add_argument("--robot", required=True, help="robot name (taskik robots lists them)")
    p.add_argument("--mapping", required=True, help="mapping file (.json, or .yaml with PyYAML)")
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="QP steps per frame")
    p.add_argument(
        "--first-steps", type=int, default=FIRST_FRAME_STEPS, help="steps of the first frame"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 done, 2 bad input)."""
    args = parser().parse_args(argv)
    try:
        result = retarget(
            args.robot, args.input, args.mapping, steps=args.steps, first_steps=args.first_steps
        )
        result.save(args.output)
    except TaskikError as exc:
        print(f"taskik retarget: error: {exc}", file=sys.stderr)
        return 2
    print(result.summary())
    print(f"wrote {args.output}")
    return 0
