"""Port two of mink's examples to taskik with the changes of docs/coming_from_mink.md, count
the changed lines, and run both versions headless to compare them.

    python benchmarks/mink_examples/port_examples.py --mink PATH_TO_MINK_CHECKOUT [--ticks N]

The examples are mink's ``examples/arm_iiwa.py`` and ``examples/humanoid_g1.py`` (read from
your mink checkout, with their MJCF files, which this repository does not ship). Each edit
below replaces one line of mink's file, found by its exact text (a missing line stops the
script: the example changed upstream), with the lines of the port, and has a kind:

- ``import``: the modules imported: ``import taskik as mink``, so that the names taskik shares
  with mink (``Configuration``, ``FrameTask``, ``PostureTask``, ``ComTask``, ``solve_ik``,
  ``SE3`` with its ``from_mocap_id`` and ``from_mocap_name``, ``move_mocap_to_frame``) stay
  as they are written, and ``taskik.mjcf`` for MuJoCo's side where the example needs it;
- ``loading``: the Pinocchio model built from the same MJCF file, and the configuration
  (with ``mirror=mjcf.MujocoMirror(model)`` where the example reads MuJoCo's data from
  mink's configuration);
- ``state``: the lines that read mink's configuration's MuJoCo model and data
  (``configuration.model``, ``.data``), which taskik's configuration keeps Pinocchio's;
- ``target``: a mocap body's pose read as an ``SE3`` or put at a site (none left: taskik
  has mink's names for them).

Lines that the edits do not touch are mink's as they are: the tasks' keywords
(``frame_name=``, ``frame_type=``), ``PostureTask(model, cost=...)``, the positional
``solve_ik(configuration, tasks, dt, solver, damping)``,
``configuration.update_from_keyframe(name)``, ``mink.SE3.from_mocap_id(data, i)``,
``mink.SE3.from_mocap_name(model, data, name)`` and ``mink.move_mocap_to_frame(...)``.

With MuJoCo installed, both versions then run headless (the viewer replaced by one that moves
the mocap targets along a fixed path for ``--ticks`` ticks, the rate limiter by one that does
not sleep): the port always, mink's original when mink is installed. The script prints the
changed lines per kind and the largest difference between the two runs' ``qpos`` (the arm:
after MuJoCo's simulation step; the humanoid: the IK configuration shown by the viewer).
Nothing is written outside the output folder (a temporary one by default).
"""

from __future__ import annotations

import argparse
import importlib
import re
import runpy
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Edit:
    old: str  # one line of mink's example, stripped
    new: tuple[str, ...]  # the lines of the port (indented as the old line)
    kind: str  # import, loading, state or target


IMPORTS = Edit(
    "import mink",
    ("import pinocchio as pin", "import taskik as mink", "from taskik import mjcf"),
    "import",
)

ARM = [
    Edit("import mink", ("import pinocchio as pin", "import taskik as mink"), "import"),
    Edit(
        "configuration = mink.Configuration(model)",
        (
            'robot = pin.buildModelFromMJCF((_HERE / "kuka_iiwa_14" / "iiwa14.xml").as_posix())',
            "configuration = mink.Configuration(robot)",
        ),
        "loading",
    ),
]

G1 = [
    IMPORTS,
    Edit(
        "configuration = mink.Configuration(model)",
        (
            'robot = pin.buildModelFromMJCF((_HERE / "unitree_g1" / "g1.xml").as_posix())',
            "configuration = mink.Configuration(robot, mirror=mjcf.MujocoMirror(model))",
        ),
        "loading",
    ),
    Edit("model = configuration.model", (), "state"),  # (mink's is MuJoCo's model)
    Edit("data = configuration.data", ("data = configuration.mirror.data",), "state"),
]

EXAMPLES = {"arm_iiwa.py": ARM, "humanoid_g1.py": G1}
#: mink's names that ``import taskik as mink`` keeps: taskik has each, with mink's call shapes.
SHARED = (
    "Configuration",
    "FrameTask",
    "PostureTask",
    "ComTask",
    "solve_ik",
    "SE3",
    "move_mocap_to_frame",
)
KINDS = ("import", "loading", "state", "target")


def port(source: str, edits: list[Edit], here: Path) -> tuple[str, dict[str, int]]:
    """The ported file and its changed lines per kind (the lines the port adds or changes,
    and, for an edit that only deletes, the lines deleted)."""
    lines = source.splitlines()
    changed = dict.fromkeys(KINDS, 0)
    for edit in edits:
        hits = [k for k, line in enumerate(lines) if line.strip() == edit.old]
        if not hits:
            raise SystemExit(f"not found in the example (changed upstream?): {edit.old!r}")
        for k in reversed(hits):
            indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
            new = [indent + line for line in edit.new]
            kept = sum(1 for line in new if line == lines[k])
            changed[edit.kind] += max(len(new) - kept, 0 if new else 1)
            lines[k : k + 1] = new
    text = "\n".join(lines) + "\n"
    left = sorted(set(re.findall(r"\bmink\.(\w+)", text)) - set(SHARED))
    if left:
        raise SystemExit(f"mink names left in the port that taskik does not share: {left}")
    # (the harness's line, not a change of the port: the port runs from another folder)
    text = text.replace("_HERE = Path(__file__).parent", f"_HERE = Path({str(here)!r})", 1)
    return text, changed


class _Rate:
    def __init__(self, frequency: float, warn: bool = True) -> None:
        self.dt = 1.0 / frequency

    def sleep(self) -> None:
        pass


class _Viewer:
    """Runs ``ticks`` ticks; before each, moves every mocap body along a fixed path (a few
    cm and a few degrees from where the example put it), and records ``data.qpos``."""

    def __init__(self, mujoco: types.ModuleType, model: object, data: object, ticks: int) -> None:
        self.mujoco, self.model, self.data, self.ticks = mujoco, model, data, ticks
        self.cam = None
        self.tick = -1
        self.start: tuple[np.ndarray, np.ndarray] | None = None
        self.qpos: list[np.ndarray] = []

    def __enter__(self) -> _Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def is_running(self) -> bool:
        self.tick += 1
        if self.tick >= self.ticks:
            return False
        data = self.data
        if self.start is None:
            self.start = (data.mocap_pos.copy(), data.mocap_quat.copy())
        s = np.sin(2 * np.pi * self.tick / max(self.ticks, 1))
        pos, quat = self.start
        data.mocap_pos[:] = pos + 0.05 * s * np.array([1.0, 0.5, 0.8])
        turn = np.array([np.cos(0.05 * s), np.sin(0.05 * s), 0.0, 0.0])  # about x, w x y z
        for i in range(len(quat)):
            self.mujoco.mju_mulQuat(data.mocap_quat[i], quat[i], turn)
        return True

    def sync(self) -> None:
        self.qpos.append(np.array(self.data.qpos))


def run(path: Path, ticks: int) -> np.ndarray:
    """Run an example file headless; the qpos it shows at every tick."""
    mujoco = importlib.import_module("mujoco")
    importlib.import_module("mujoco.viewer")
    viewers: list[_Viewer] = []

    def launch_passive(model: object, data: object, **_: object) -> _Viewer:
        viewers.append(_Viewer(mujoco, model, data, ticks))
        return viewers[-1]

    mujoco.viewer.launch_passive = launch_passive
    mujoco.mjv_defaultFreeCamera = lambda *args: None
    sys.modules["loop_rate_limiters"] = types.SimpleNamespace(RateLimiter=_Rate)  # type: ignore[assignment]
    runpy.run_path(str(path), run_name="__main__")
    return np.array(viewers[-1].qpos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mink", type=Path, required=True, help="a mink checkout")
    parser.add_argument("--out", type=Path, default=None, help="where to write the ports")
    parser.add_argument("--ticks", type=int, default=200)
    args = parser.parse_args()
    examples = args.mink / "examples"
    out = args.out or Path(tempfile.mkdtemp(prefix="mink_ports_"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        importlib.import_module("mujoco")
        can_run = True
    except ImportError:
        can_run = False
    try:
        importlib.import_module("mink")
        has_mink = True
    except ImportError:
        has_mink = False
    for name, edits in EXAMPLES.items():
        text, changed = port((examples / name).read_text(), edits, examples.resolve())
        target = out / name.replace(".py", "_taskik.py")
        target.write_text(text)
        print(
            f"{name}: {sum(changed.values())} changed lines: "
            + ", ".join(f"{kind} {changed[kind]}" for kind in KINDS)
            + f"; beyond imports and loading: {changed['state'] + changed['target']} -> {target}"
        )
        if not can_run:
            continue
        ported = run(target, args.ticks)
        line = f"  port: {len(ported)} ticks, ran"
        if has_mink:
            original = run(examples / name, args.ticks)
            gap = np.abs(ported - original).max()
            line += f"; mink's original: largest |qpos difference| over the run {gap:.2g}"
        print(line)


if __name__ == "__main__":
    main()
