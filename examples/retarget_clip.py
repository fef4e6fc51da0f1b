"""Retarget a motion clip onto a humanoid: the shipped Talos clip (a squat, a wave of the
right arm, a lifted foot; 17 keypoints at 30 fps) onto Unitree G1 (example-robot-data).

The mapping (taskik/retarget/data/g1.json) says which G1 frame follows which keypoint; the
scale (Talos → G1 size) is estimated from the first frame. Each frame is solved from the
previous one in two QP steps under G1's joint position and velocity limits, the feet held on
the ground while the clip's contact flags are set. The result (joint trajectory, per-frame
errors) is saved as .npz and read back.

Run: ``python examples/retarget_clip.py`` (``taskik retarget`` does the same from a shell).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

import taskik
from taskik.retarget import (
    load_clip,
    load_result,
    retarget,
    sample_clip_path,
    sample_mapping_path,
    save_clip,
)


def main() -> dict[str, float]:
    """Returns the speed (frames/s), the mean keypoint error (m) and the pelvis's squat depth
    on G1 against Talos's, scaled (1 when reproduced exactly)."""
    clip = load_clip(sample_clip_path())
    print(f"clip: {clip.n_frames} frames at {clip.fps:g} fps, keypoints {', '.join(clip.names)}")
    robot = taskik.robots.load("g1")
    result = retarget(robot, clip, sample_mapping_path("g1"))
    print(result.summary())
    worst = result.position_errors.max(axis=0)
    for name, error in sorted(zip(result.keypoints, worst, strict=True), key=lambda x: -x[1])[:4]:
        print(f"  largest error: {name:<15} {error * 1e3:6.1f} mm")

    with tempfile.TemporaryDirectory() as scratch:
        output = Path(os.environ.get("TASKIK_OUTPUT") or scratch)
        output.mkdir(parents=True, exist_ok=True)
        saved = load_result(result.save(output / "g1_squat_wave.npz"))
        csv = save_clip(clip, output / "talos_squat_wave.csv")  # the same clip as CSV
        print(f"wrote {output / 'g1_squat_wave.npz'} ({saved.n_frames} frames) and {csv.name}")

    conf = robot.configuration()
    pelvis = []
    for q in saved.q[[0, 30]]:  # standing, and the bottom of the squat at 1 s
        conf.update(q)
        pelvis.append(conf.get_transform_frame_to_world("pelvis").translation[2])
    talos = clip.position("pelvis")[[0, 30], 2]
    depth = (pelvis[0] - pelvis[1]) / (result.scale * (talos[0] - talos[1]))
    print(f"squat depth on G1 / Talos's scaled: {depth:.2f}")
    return {
        "frames_per_second": result.frames_per_second,
        "mean_error": float(np.mean(result.position_errors)),
        "squat_depth_ratio": float(depth),
    }


if __name__ == "__main__":
    main()
