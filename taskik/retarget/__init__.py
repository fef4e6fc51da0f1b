"""Motion retargeting: a clip of keypoint trajectories (human motion capture, or another
robot's motion) turned into a joint trajectory of a robot, frame by frame, under its joint
position and velocity limits. See ``docs/retargeting.md``.

>>> result = retarget("g1", "clip.npz", "mapping.json")   # doctest: +SKIP
>>> result.save("g1_clip.npz")                             # doctest: +SKIP

Many clips, on every core (or ``engine="ray"``), each to ``out/<clip stem>.npz``:

>>> retarget_many("g1", ["a.npz", "b.npz"], "mapping.json", "out")  # doctest: +SKIP
"""

from pathlib import Path

from .clip import Clip, clip_from_arrays, load_clip, save_clip
from .command import main
from .many import ClipSummary, RetargetBatch, retarget_many
from .mapping import KeypointTask, RetargetMapping, estimate_scale, load_mapping
from .result import RetargetResult, load_result
from .solver import DEFAULT_STEPS, retarget, retarget_file

#: The shipped clip, its generating script and the mappings onto talos, g1 and humanoid.
DATA = Path(__file__).resolve().parent / "data"


def sample_clip_path() -> Path:
    """The shipped clip: Talos squatting, waving its right arm and lifting its left foot
    (17 keypoints, 30 fps, 4 s; made by ``benchmarks/make_retarget_clip.py``)."""
    return DATA / "talos_squat_wave.npz"


def sample_mapping_path(robot: str) -> Path:
    """The shipped mapping of the sample clip's keypoints onto ``robot`` (``talos``, ``g1``
    or ``humanoid``)."""
    return DATA / f"{robot}.json"


__all__ = [
    "DATA",
    "DEFAULT_STEPS",
    "Clip",
    "ClipSummary",
    "KeypointTask",
    "RetargetBatch",
    "RetargetMapping",
    "RetargetResult",
    "clip_from_arrays",
    "estimate_scale",
    "load_clip",
    "load_mapping",
    "load_result",
    "main",
    "retarget",
    "retarget_file",
    "retarget_many",
    "sample_clip_path",
    "sample_mapping_path",
    "save_clip",
]
