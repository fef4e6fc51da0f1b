"""Seeded input fuzzer over taskik's public entry points: case generators and a classifier.

Every case is one call of a public entry point, built from a valid call on a robot (the
bundled ``ur5``, ``panda``, ``humanoid``, ``planar_2r`` and a one-joint robot built here)
with at most one argument mutated (None, strings, lists, wrong lengths, NaN/inf, huge and
negative numbers, complex, numpy scalars, bools, transposed homogeneous matrices, unknown
frames, limits or data of another model, ...), plus random *valid* steps (random state, task
mix, costs, gains, dt, backends) that must all succeed. Each case says what it expects:

- ``accept``: the input is valid (possibly odd, e.g. ``np.float32(0.01)`` as dt): the call
  must return a valid result;
- ``reject``: the input is invalid: the call must raise a :class:`taskik.TaskikError`;
- ``any``: either, but a returned result must be valid (finite, right shape).

:func:`classify` runs a case and sorts its outcome into one of :data:`KINDS`:

- ``ok``: a valid result (checked against what was asked: shapes, finiteness, bounds, the
  stored target equal to the given one, ...);
- ``error``: a ``TaskikError`` whose message names the problem (contains one of the case's
  keywords, e.g. ``dt`` for a bad dt);
- ``vague``: a ``TaskikError`` whose message does not name the problem;
- ``bare``: any other exception (TypeError, IndexError, boost ArgumentError, ...);
- ``crash``: the process running the case died (a segfault, an abort, ``os._exit``) or the
  case ran past :data:`CASE_TIMEOUT` seconds; :func:`run_cases` runs the cases in a forked
  worker, so a crash is counted and the run goes on with the next case;
- ``garbage``: a returned result that is not valid (NaN/inf, wrong shape, an invalid input
  accepted silently, a warning such as ComplexWarning emitted on the way);
- ``rejected``: a ``TaskikError`` for an input the case says is valid.

A ``NoSolutionFound`` is a fine outcome of an ``any`` case (e.g. a cost of 1e300 that leaves
the QP numerically out of range).

The generators cover every public entry point, module by module (:func:`module_of`): the
configuration, tasks, limits (CollisionLimit, cones, frozen joints, acceleration and base
velocity caps included), geometry and obstacles, solve_ik and its backends, reports,
solve_posture, metrics, steps, batch (``solve_poses``, its output store and resumes),
retargeting, plots, the viewer's drawing functions, robot loading, the command line, and
``taskik.mjcf`` (qpos conversions, mocap targets under taskik's and mink's names,
``write_configuration``, ``MujocoMirror`` and ``Configuration(mirror=...)``; the cases that
need MuJoCo where it is installed), contacts and static balance (``Contact``, the stance
helpers, ``support_region``, ``check_static_balance``, ``equilibrium_forces``,
``edge_distances``, ``BalanceLimit``).
Where a result can be checked against an independent answer it is: distances against a
direct coal call, batch rows against a plain loop of ``solve_posture``, retargeted q within
the joint limits, frozen joints exactly still, a coupling held after a step, a target taken
at the configuration giving a zero step. The heavy generators (batch, retarget, plots,
command line) run in the first :data:`HEAVY_CYCLES` cycles over the robots only. Balance
results are checked against equilibrium itself: forces that balance the weight inside the
friction cones, a region that contains a sampled CoM exactly when the force LP finds forces.
The public names that arrived later have their own generators (``gen_later_entries``: the
configuration's keyframes, ``Task.adopt`` against the step of the task not adopted, the
collision limit's checked step, the balance limit's margins, far targets, ...;
``gen_array_entries``: the array-level functions of the submodules, the backends' kernels,
``null_basis``, ``friction_generators``, ...). A numpy ``RuntimeWarning`` (overflow, invalid
value) or ``ComplexWarning`` on the way to a ``TaskikError`` counts as garbage too: the check
came after the arithmetic it should have guarded.

``benchmarks/fuzz_inputs.py`` runs every case (more than 40,000) and prints the tables by
module and entry point; ``tests/test_fuzz.py`` runs a seeded subsample (:func:`subsample`,
about 9,300 cases, 20 to 30 s of CPU) and asserts that no module's count of crashes, bare
exceptions, garbage, rejected valid inputs or vague messages exceeds its known count.

Bools are treated as invalid wherever a number is expected (``dt=True`` is almost always a
misplaced argument, not one second): flip :data:`BOOL_IS_NUMBER` to accept them.
"""

from __future__ import annotations

import math
import os
import time
import traceback
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
from mjcf_models import BALL_ARM, TWO_HINGES

import taskik
from taskik import metrics, steps

#: Outcome kinds, in table order.
KINDS = ("ok", "error", "vague", "bare", "crash", "garbage", "rejected")
#: Outcome kinds that are failures.
FAILURES = ("bare", "crash", "garbage", "rejected")
#: Policy: is ``True`` a valid number (dt, cost, gain, ...)? No: a bool there is a mistake.
BOOL_IS_NUMBER = False

ACCEPT, REJECT, ANY = "accept", "reject", "any"

#: Warnings that are garbage even on the way to a ``TaskikError``: numpy's overflow, invalid
#: value and discarded imaginary parts (a check that comes after the arithmetic it guards).
NUMERIC_WARNINGS: tuple[type[Warning], ...] = (RuntimeWarning, np.exceptions.ComplexWarning)

#: The forked worker's stdout and stderr go to /dev/null (progress bars, prints of cases).
QUIET_WORKER = os.environ.get("TASKIK_FUZZ_QUIET", "1") != "0"
#: A case running longer than this (s) counts as a crash (a hang), its worker is killed.
CASE_TIMEOUT = float(os.environ.get("TASKIK_FUZZ_CASE_TIMEOUT", "120"))

#: Modules of the entry points, by entry-name prefix (the first match wins).
MODULE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("Configuration", "configuration"),
    ("custom_configuration_vector", "configuration"),
    ("solve_ik", "solve"),
    ("build_ik", "solve"),
    ("default_solver", "solve"),
    ("JointLimitMap", "backends"),
    ("hierarchy_report", "hierarchy"),
    ("report", "report"),
    ("solve_posture", "posture"),
    ("posture.", "posture"),
    ("metrics.", "metrics"),
    ("steps.", "steps"),
    ("robots.", "robots"),
    ("plots.", "plots"),
    ("cli", "cli"),
    ("batch.", "batch"),
    ("retarget.", "retarget"),
    ("geometry.", "geometry"),
    ("viewer.", "viewer"),
    ("CollisionLimit", "limits.collision"),
    ("ConeLimit", "limits"),
    ("FrozenJoints", "limits"),
    ("AccelerationLimit", "limits"),
    ("BaseVelocityLimit", "limits"),
    ("ConfigurationLimit", "limits"),
    ("VelocityLimit", "limits"),
    ("limits.", "limits"),
    # taskik.mjcf, and mink's names for its target helpers
    ("mjcf.", "mjcf"),
    ("SE3.", "mjcf"),
    ("move_mocap_to_frame", "mjcf"),
    ("BalanceLimit", "contacts"),
    ("Contact", "contacts"),
    ("contacts.", "contacts"),
    ("last_relaxation", "solve"),
)


def module_of(entry: str) -> str:
    """The taskik module of an entry point (``"tasks"`` for every ``...Task...`` entry)."""
    for prefix, module in MODULE_PREFIXES:
        if entry.startswith(prefix):
            return module
    if "Task" in entry:
        return "tasks"
    return "other"


# ---------------------------------------------------------------------------- cases
@dataclass
class Case:
    """One call of an entry point.

    Attributes:
        entry: the entry point (``"solve_ik"``, ``"FrameTask.set_target"``, ...).
        label: what was mutated, e.g. ``"dt=nan"``; ``"valid"`` for an unmutated call.
        run: the call; returns the result to check.
        expect: ``"accept"``, ``"reject"`` or ``"any"``.
        check: returns None when a result is valid, else why it is not.
        names: an error message must contain one of these words (case-insensitive).
        robot: the robot the call is built on.
        module: the taskik module the entry point belongs to (:func:`module_of` of the
            entry when not given).
    """

    entry: str
    label: str
    run: Callable[[], Any]
    expect: str = ANY
    check: Callable[[Any], str | None] | None = None
    names: tuple[str, ...] = ()
    robot: str = ""
    module: str = ""
    source: str = ""  # the generator that made the case (set by :func:`generate`)

    def __post_init__(self) -> None:
        if not self.module:
            self.module = module_of(self.entry)

    @property
    def repro(self) -> str:
        return f"[{self.robot}] {self.entry}: {self.label}"


@dataclass
class Outcome:
    case: Case
    kind: str
    cause: str  # grouping key for failures, e.g. "TypeError at taskik/steps.py:42"
    detail: str  # the message or the reason
    seconds: float = 0.0  # time the case took (with its check)


def _where(exc: BaseException) -> str:
    """The innermost frame of the traceback inside taskik (else the innermost frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if f"{os.sep}taskik{os.sep}" in f.filename]
    f = (inside or frames or [None])[-1]
    if f is None:
        return "?"
    name = f.filename.split(f"{os.sep}taskik{os.sep}")[-1].split(f"site-packages{os.sep}")[-1]
    return f"{name}:{f.lineno}"


def classify(case: Case, error_type: type[BaseException] | None = None) -> Outcome:
    """Run a case and sort its outcome (see the module docstring). ``error_type`` is the
    library's own error class (``taskik.TaskikError`` by default)."""
    library_error = taskik.TaskikError if error_type is None else error_type
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = case.run()
        except library_error as exc:
            msg = str(exc)
            numeric = [w for w in caught if issubclass(w.category, NUMERIC_WARNINGS)]
            if numeric:  # (numpy overflowed or cast on the way to the error)
                w = numeric[0]
                return Outcome(
                    case,
                    "garbage",
                    f"warning {w.category.__name__} before the error: {str(w.message)[:40]}",
                    f"{w.message} ({w.filename}:{w.lineno}), then {type(exc).__name__}: {msg}",
                )
            if case.expect == ACCEPT:
                return Outcome(case, "rejected", f"{type(exc).__name__} on a valid input", msg)
            if case.expect == ANY and type(exc).__name__ == "NoSolutionFound":
                return Outcome(case, "error", type(exc).__name__, msg)
            if not msg.strip():
                return Outcome(case, "vague", "empty message", msg)
            if case.names and not any(n.lower() in msg.lower() for n in case.names):
                return Outcome(case, "vague", f"message names none of {case.names}", msg)
            return Outcome(case, "error", type(exc).__name__, msg)
        except Exception as exc:  # noqa: BLE001 - the point of the fuzzer
            kind = type(exc)
            name = kind.__name__ if kind.__module__ == "builtins" else kind.__qualname__
            if kind.__module__ not in ("builtins",):
                name = f"{kind.__module__}.{name}"
            return Outcome(case, "bare", f"{name} at {_where(exc)}", f"{exc}"[:300])
        except BaseException as exc:  # SystemExit, KeyboardInterrupt from a library
            if isinstance(exc, KeyboardInterrupt):
                raise
            return Outcome(case, "bare", f"{type(exc).__name__} at {_where(exc)}", str(exc))
    if case.expect == REJECT:
        param, vclass = _label_class(case.label)
        return Outcome(case, "garbage", f"accepted invalid {param} ({vclass})", _short(result))
    reason = None
    if case.check is not None:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                reason = case.check(result)
        except Exception as exc:  # noqa: BLE001 - a result the check cannot even read
            reason = f"unreadable result ({type(exc).__name__}: {exc})"
    if reason is not None:
        return Outcome(case, "garbage", reason.split(":")[0], f"{reason} ({_short(result)})")
    if caught:
        w = caught[0]
        return Outcome(
            case,
            "garbage",
            f"warning {w.category.__name__}: {str(w.message)[:48]}",
            f"{w.message} ({w.filename}:{w.lineno})",
        )
    return Outcome(case, "ok", "", "")


def _label_class(label: str) -> tuple[str, str]:
    """``(parameter, class of the bad value)`` of a mutation label, to group failures."""
    param, _, value = label.rpartition("=")
    if (
        not param
        or not param.replace("_", "").replace(" ", "").replace("(", "").replace(")", "").isalnum()
    ):
        param, value = "input", label
    param = param.split(")")[-1].strip() or param
    v = value.lower()
    structural = ("limits", "tasks", "levels", "configuration", "conf_or_model", "model", "data")
    if param in structural or param.startswith(("regularization", "input")):
        cls = value if len(value) < 48 else value[:45] + "..."
    elif "true" in v or "false" in v or "bool" in v:
        cls = "bool"
    elif "transposed" in v:
        cls = "transposed"
    elif "rotation" in v or "det -1" in v or "bottom row" in v or "quaternion" in v:
        cls = value
    elif "complex" in v:
        cls = "complex"
    elif "string" in v or "bytes" in v or v.startswith(("'", "b'", '"')):
        cls = "string"
    elif "nan" in v or "inf" in v:
        cls = "NaN/inf"
    elif v.startswith("none"):
        cls = "None"
    elif any(
        w in v
        for w in ("length", "column", "empty", "nested", "3x", "4x", "flat", "-d", "shape", "[")
    ):
        cls = "shape"
    elif "other" in v or "another" in v:
        cls = "another model"
    elif v.startswith("-") or "negative" in v:
        cls = "negative"
    else:
        cls = value if len(value) < 40 else "value"
    return param, cls


def _short(x: Any) -> str:
    s = repr(x) if not isinstance(x, np.ndarray) else np.array2string(x, precision=3)
    s = " ".join(s.split())
    return s if len(s) <= 120 else s[:117] + "..."


# ---------------------------------------------------------------------------- checks
def finite_array(shape: tuple[int, ...] | None = None) -> Callable[[Any], str | None]:
    def check(x: Any) -> str | None:
        if not isinstance(x, np.ndarray):
            return f"not an ndarray: {type(x).__name__}"
        if shape is not None and x.shape != shape:
            return f"wrong shape: {x.shape} instead of {shape}"
        if x.dtype.kind != "f":
            return f"non-float dtype: {x.dtype}"
        if not np.isfinite(x).all():
            return "NaN/inf in result"
        return None

    return check


def check_velocity(
    nv: int, lb: np.ndarray | None = None, ub: np.ndarray | None = None
) -> Callable[[Any], str | None]:
    base = finite_array((nv,))

    def check(v: Any) -> str | None:
        why = base(v)
        if why is None and lb is not None and ub is not None:
            with np.errstate(all="ignore"):  # ±inf bounds
                below = v < lb - 1e-9 * np.maximum(1.0, np.abs(lb))
                above = v > ub + 1e-9 * np.maximum(1.0, np.abs(ub))
            if below.any() or above.any():
                return "velocity outside the velocity limits"
        return why

    return check


def check_q(model: pin.Model) -> Callable[[Any], str | None]:
    base = finite_array((model.nq,))

    def check(q: Any) -> str | None:
        why = base(q)
        if why is None and not np.allclose(pin.normalize(model, q.copy()), q, atol=1e-6):
            return "q not normalised"
        return why

    return check


def check_configuration(model: pin.Model, q_asked: Any = None) -> Callable[[Any], str | None]:
    qcheck = check_q(model)

    def check(conf: Any) -> str | None:
        if not isinstance(conf, taskik.Configuration):
            return f"not a Configuration: {type(conf).__name__}"
        why = qcheck(conf.q)
        if why:
            return why
        if q_asked is not None and not np.allclose(conf.q, np.asarray(q_asked, dtype=float)):
            return "q differs from what was asked"
        for i in range(min(3, model.nframes)):
            if not np.isfinite(conf.data.oMf[i].homogeneous).all():
                return "NaN/inf in frame placements"
        return None

    return check


def check_se3(expected: pin.SE3 | None = None) -> Callable[[Any], str | None]:
    def check(T: Any) -> str | None:
        if not isinstance(T, pin.SE3):
            return f"not an SE3: {type(T).__name__}"
        if not np.isfinite(T.homogeneous).all():
            return "NaN/inf in result"
        if expected is not None and not np.allclose(T.homogeneous, expected.homogeneous):
            return "transform differs from the frame asked"
        return None

    return check


def check_scalar(lo: float = -math.inf, hi: float = math.inf, allow_inf: bool = False):
    def check(x: Any) -> str | None:
        if isinstance(x, bool) or not isinstance(x, float | int | np.floating | np.integer):
            return f"not a number: {type(x).__name__}"
        if math.isnan(x) or (math.isinf(x) and not allow_inf):
            return "NaN/inf in result"
        if not lo <= x <= hi:
            return f"result out of range: {x} not in [{lo}, {hi}]"
        return None

    return check


def all_of(*checks: Callable[[Any], str | None] | None) -> Callable[[Any], str | None]:
    def check(x: Any) -> str | None:
        for c in checks:
            if c is not None:
                why = c(x)
                if why:
                    return why
        return None

    return check


# --------------------------------------------------------------------------- robots
@dataclass
class Bot:
    """A robot of the fuzzer: its model, reference q and frames to put tasks on."""

    name: str
    model: pin.Model
    q0: np.ndarray
    frames: tuple[str, ...]
    floating: bool = False

    def random_q(self, rng: np.random.Generator) -> np.ndarray:
        return taskik.robots.random_configuration(self.model, self.q0, rng)

    @property
    def vmax(self) -> np.ndarray:
        return np.array(self.model.velocityLimit, dtype=float)


def one_joint_model() -> pin.Model:
    """A single revolute joint (z) with a frame 'tip' 1 m along x (Pinocchio gives its 6×1
    Jacobians as 1-D arrays)."""
    model = pin.Model()
    model.name = "one_joint"
    j = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "joint1")
    model.appendBodyToJoint(
        j, pin.Inertia(1.0, np.array([0.5, 0.0, 0.0]), np.eye(3) * 0.01), pin.SE3.Identity()
    )
    model.addBodyFrame("link1", j, pin.SE3.Identity(), 0)
    model.addFrame(
        pin.Frame(
            "tip", j, 0, pin.SE3(np.eye(3), np.array([1.0, 0.0, 0.0])), pin.FrameType.OP_FRAME
        )
    )
    model.lowerPositionLimit[:] = -2.5
    model.upperPositionLimit[:] = 2.5
    model.velocityLimit[:] = 2.0
    return model


URDF = """<?xml version="1.0"?>
<robot name="tiny">
  <link name="base"/>
  <link name="link1">
    <inertial><mass value="1"/><origin xyz="0.25 0 0"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="link2">
    <inertial><mass value="0.5"/><origin xyz="0.2 0 0"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="link1"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" velocity="1" effort="10"/></joint>
  <joint name="j2" type="revolute"><parent link="link1"/><child link="link2"/>
    <origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" velocity="1" effort="10"/></joint>
</robot>
"""


class World:
    """The robots of the fuzzer (loaded once) and a directory for URDF files."""

    def __init__(self, tmpdir: str | Path) -> None:
        self.tmp = Path(tmpdir)
        self.bots: dict[str, Bot] = {}
        for name in ("ur5", "panda", "humanoid", "planar_2r"):
            r = taskik.robots.load(name)
            frames = r.end_effectors or (r.model.frames[-1].name,)
            self.bots[name] = Bot(name, r.model, r.q0, frames, name == "humanoid")
        m = one_joint_model()
        self.bots["one_joint"] = Bot("one_joint", m, np.array([0.3]), ("tip",))
        self.urdf = self.tmp / "tiny.urdf"
        self.urdf.write_text(URDF)
        self.bad_urdf = self.tmp / "broken.urdf"
        self.bad_urdf.write_text("<robot name='x'><link name='a'/><joint name='j'")
        # order of the rounds: every robot gets its turn
        self.order = ["ur5", "one_joint", "humanoid", "panda", "planar_2r"]
        self.round = 0  # the round being generated (heavy generators run in the first ones)

    def other(self, bot: Bot) -> Bot:
        """A robot with another model (different nv where possible)."""
        return self.bots["humanoid"] if bot.name != "humanoid" else self.bots["ur5"]


# ------------------------------------------------------------------------ mutations
@dataclass(frozen=True)
class Mut:
    label: str
    value: Any
    expect: str


def _num_ok(valid: Callable[[float], bool], x: float) -> str:
    return ACCEPT if valid(x) else REJECT


def scalar_muts(
    base: float,
    valid: Callable[[float], bool],
    *,
    allow_none: bool = False,
    extremes_any: bool = True,
) -> list[Mut]:
    """Mutations of a real scalar parameter whose valid values satisfy ``valid``."""
    out = [Mut(f"{base!r}", float(base), ACCEPT)]
    for x in (0.0, -1.0, 0.5, 1.0, 1.5, 1e-300, 1e300, -1e300, 2e14, -0.0):
        exp = _num_ok(valid, x)
        if extremes_any and exp == ACCEPT and x in (1e-300, 1e300, 2e14):
            exp = ANY  # valid but extreme: a finite result or an error, both fine
        out.append(Mut(f"{x!r}", x, exp))
    for x in (math.nan, math.inf, -math.inf):
        out.append(Mut(f"{x!r}", x, REJECT))
    out += [
        Mut(f"np.float32({base!r})", np.float32(base), _num_ok(valid, float(np.float32(base)))),
        Mut(f"np.float64({base!r})", np.float64(base), ACCEPT),
        Mut("np.float32(nan)", np.float32("nan"), REJECT),
        Mut(f"np.array({base!r}) (0-d)", np.array(base), ANY),
        Mut("None", None, ACCEPT if allow_none else REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut(f"{str(base)!r} (numeric string)", str(base), REJECT),
        Mut(f"[{base!r}]", [base], REJECT),
        Mut(f"[[{base!r}]]", [[base]], REJECT),
        Mut(f"complex({base!r}, 1)", complex(base, 1.0), REJECT),
        Mut(f"np.complex128({base!r})", np.complex128(base), REJECT),
        Mut("object()", object(), REJECT),
    ]
    if float(base).is_integer() and valid(float(base)):
        out.append(Mut(f"np.int64({int(base)})", np.int64(int(base)), ACCEPT))
        out.append(Mut(f"int {int(base)}", int(base), ACCEPT))
    for b in (True, False):
        exp = _num_ok(valid, float(b)) if BOOL_IS_NUMBER else REJECT
        out.append(Mut(repr(b), b, exp))
    return out


def vector_muts(
    base: np.ndarray, *, allow_none: bool = False, scalar_ok: bool = False
) -> list[Mut]:
    """Mutations of a real vector parameter of fixed length (``base`` is valid)."""
    n = len(base)
    rng = np.random.default_rng(n)
    k = int(rng.integers(n)) if n else 0
    out = [
        Mut("valid ndarray", base.copy(), ACCEPT),
        Mut("list", base.tolist(), ACCEPT),
        Mut("tuple", tuple(base.tolist()), ACCEPT),
        Mut("float32 array", base.astype(np.float32), ANY),
        Mut("None", None, ACCEPT if allow_none else REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("list of strings", ["a"] * n, REJECT),
        Mut("nested list [[...]]", [base.tolist()], REJECT),
        Mut("column (n, 1)", base.reshape(-1, 1), REJECT),
        Mut("length n-1", base[:-1].copy(), REJECT if n else ANY),
        Mut("length n+1", np.append(base, 0.0), REJECT),
        Mut("empty", np.zeros(0), ANY if n == 0 else REJECT),
        Mut("complex dtype (imag 0)", base.astype(complex), REJECT),
        Mut("complex (imag 1)", base + 1j, REJECT),
        Mut("bool array", np.ones(n, dtype=bool), ANY if BOOL_IS_NUMBER else REJECT),
        Mut("object array with None", np.array([None] * n, dtype=object), REJECT),
        Mut("scalar 0.5", 0.5, ANY if scalar_ok else REJECT),
    ]
    for x in (math.nan, math.inf, -math.inf):
        if n:
            v = base.copy()
            v[k] = x
            out.append(Mut(f"{x!r} at [{k}]", v, REJECT))
    if n:
        for x in (1e300, -1e300, 2e14):
            v = base.copy()
            v[k] = x
            out.append(Mut(f"{x!r} at [{k}]", v, ANY))
    return out


def merge(*lists: Iterable[Mut]) -> list[Mut]:
    """The mutations of several lists, the first of each label only (``None`` is in both the
    scalar and the vector lists, with the scalar list's expectation)."""
    seen: set[str] = set()
    out = []
    for m in (m for lst in lists for m in lst):
        if m.label not in seen:
            seen.add(m.label)
            out.append(m)
    return out


def option_muts(valid: Iterable[Any], invalid: Iterable[Any]) -> list[tuple[str, Any, str]]:
    """(label, value, expect) of the ``valid`` choices of an option (accepted), then of the
    ``invalid`` ones (rejected), each labelled by its ``repr``."""
    return [(repr(v), v, ACCEPT) for v in valid] + [(repr(v), v, REJECT) for v in invalid]


def name_muts(valid: str, *, int_ok: int | None = None, nframes: int = 0) -> list[Mut]:
    """Mutations of a frame (or joint) name; ``int_ok`` is a valid index when ints are allowed."""
    out = [
        Mut(f"{valid!r}", valid, ACCEPT),
        Mut("unknown name", valid + "_x", REJECT),
        Mut("''", "", REJECT),
        Mut("None", None, REJECT),
        Mut("[name]", [valid], REJECT),
        Mut("bytes", valid.encode(), REJECT),
        Mut("-1", -1, REJECT),
        Mut("nframes (out of range)", nframes, REJECT),
        Mut("10**6", 10**6, REJECT),
        Mut("1.5", 1.5, REJECT),
        Mut("nan", math.nan, REJECT),
        Mut("True", True, REJECT),
    ]
    if int_ok is not None:
        out.append(Mut(f"int {int_ok}", int_ok, ACCEPT))
        out.append(Mut(f"np.int64({int_ok})", np.int64(int_ok), ANY))
    else:
        out.append(Mut("int 1", 1, REJECT))
    return out


def se3_muts(T: pin.SE3) -> list[Mut]:
    """Mutations of a pose target (``pin.SE3`` or 4×4 homogeneous matrix)."""
    H = T.homogeneous.copy()
    if np.allclose(H[:3, 3], 0.0):
        H[:3, 3] = [0.1, 0.2, 0.3]
    bad_R = H.copy()
    bad_R[:3, :3] *= 1.5
    mirror = H.copy()
    mirror[:3, 0] *= -1.0
    bottom = H.copy()
    bottom[3] = [0.1, 0.0, 0.0, 1.0]
    nan = H.copy()
    nan[0, 3] = math.nan
    huge = H.copy()
    huge[0, 3] = 1e300
    nan_se3 = pin.SE3(T)
    nan_se3.translation = np.array([math.nan, 0.0, 0.0])
    return [
        Mut("pin.SE3", pin.SE3(T), ACCEPT),
        Mut("4x4 homogeneous", H, ACCEPT),
        Mut("4x4 as nested list", H.tolist(), ACCEPT),
        Mut("4x4 transposed", H.T.copy(), REJECT),
        Mut("rotation scaled by 1.5", bad_R, REJECT),
        Mut("rotation with det -1", mirror, REJECT),
        Mut("bottom row not [0 0 0 1]", bottom, REJECT),
        Mut("NaN in translation", nan, REJECT),
        Mut("SE3 with NaN translation", nan_se3, REJECT),
        Mut("1e300 in translation", huge, ANY),
        Mut("3x3", H[:3, :3].copy(), REJECT),
        Mut("3x4", H[:3].copy(), REJECT),
        Mut("flat 16", H.ravel().copy(), REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("complex 4x4", H.astype(complex), REJECT),
        Mut("pin.Quaternion (no translation)", pin.Quaternion(T.rotation), ANY),
        Mut("7-vector [p, quat]", pin.SE3ToXYZQUAT(T), REJECT),
    ]


def rotation_muts(R: np.ndarray) -> list[Mut]:
    quat = pin.Quaternion(R)
    q2 = pin.Quaternion(quat.coeffs() * 2.0)
    q0 = pin.Quaternion(0.0, 0.0, 0.0, 0.0)
    qn = pin.Quaternion(math.nan, 0.0, 0.0, 0.0)
    return [
        Mut("3x3 rotation", R.copy(), ACCEPT),
        Mut("nested list", R.tolist(), ACCEPT),
        Mut("pin.SE3", pin.SE3(R, np.zeros(3)), ACCEPT),
        Mut("unit pin.Quaternion", quat, ACCEPT),
        Mut("non-unit pin.Quaternion (norm 2)", q2, REJECT),
        Mut("zero pin.Quaternion", q0, REJECT),
        Mut("NaN pin.Quaternion", qn, REJECT),
        Mut("quaternion as 4-vector", quat.coeffs().copy(), REJECT),
        Mut("scaled rotation", R * 2.0, REJECT),
        Mut("det -1", -R, REJECT),
        Mut("4x4 homogeneous", pin.SE3(R, np.zeros(3)).homogeneous, REJECT),
        Mut("NaN", np.full((3, 3), math.nan), REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("complex", R.astype(complex), REJECT),
    ]


# ------------------------------------------------------------------------- helpers
def conf_of(bot: Bot, q: np.ndarray | None = None) -> taskik.Configuration:
    return taskik.Configuration(bot.model, bot.q0.copy() if q is None else q.copy())


def base_tasks(bot: Bot, conf: taskik.Configuration, target_q: np.ndarray) -> list[taskik.Task]:
    """A valid task list: a frame task toward the pose at ``target_q`` and a posture task."""
    goal = taskik.Configuration(bot.model, target_q)
    tool = taskik.FrameTask(bot.frames[0], 1.0, 0.5, gain=0.5)
    tool.set_target(goal.get_transform_frame_to_world(bot.frames[0]))
    posture = taskik.PostureTask(cost=1e-3)
    posture.set_target(bot.q0)
    tasks: list[taskik.Task] = [tool, posture]
    if bot.floating:
        com = taskik.ComTask(cost=[1.0, 1.0, 0.0])
        com.set_target_from_configuration(conf)
        tasks.append(com)
    return tasks


class NanLimit(taskik.Limit):
    name = "nan"

    def compute_box(self, configuration, dt):
        n = configuration.nv
        return np.arange(n), np.full(n, math.nan), np.full(n, math.nan)


class CrossedLimit(taskik.Limit):
    name = "crossed"

    def __init__(self, hard: bool = True) -> None:
        self.hard = hard

    def compute_box(self, configuration, dt):
        n = configuration.nv
        return np.arange(n), np.ones(n), -np.ones(n)


class WrongIndexLimit(taskik.Limit):
    name = "wrong_index"

    def compute_box(self, configuration, dt):
        n = configuration.nv
        return np.arange(n) + n, -np.ones(n), np.ones(n)


class ShortBoxLimit(taskik.Limit):
    name = "short_box"

    def compute_box(self, configuration, dt):
        n = configuration.nv
        return np.arange(n), -np.ones(max(n - 1, 0)), np.ones(max(n - 1, 0))


class BadRowsLimit(taskik.Limit):
    name = "bad_rows"

    def compute_inequalities(self, configuration, dt):
        n = configuration.nv
        return np.ones((2, n + 1)), np.ones(2)


class NanRowsLimit(taskik.Limit):
    name = "nan_rows"

    def compute_inequalities(self, configuration, dt):
        n = configuration.nv
        return np.ones((1, n)), np.array([math.nan])


class InfBoxLimit(taskik.Limit):
    name = "inf_box"

    def compute_box(self, configuration, dt):
        n = configuration.nv
        return np.arange(n), np.full(n, -math.inf), np.full(n, math.inf)


def finite_report(nlevels: int | None = None) -> Callable[[Any], str | None]:
    def check(rep: Any) -> str | None:
        items = getattr(rep, "tasks", None)
        if items is None:
            items = getattr(rep, "levels", None)
        if items is None:
            return f"not a report: {type(rep).__name__}"
        for t in items:
            for key, val in vars(t).items():
                if isinstance(val, float) and not math.isfinite(val):
                    return f"NaN/inf in report field {key}"
        if nlevels is not None and hasattr(rep, "levels") and len(rep.levels) != nlevels:
            return f"report has {len(rep.levels)} levels, {nlevels} were given"
        str(rep)
        return None

    return check


# ------------------------------------------------------------------------ generators
Gen = Callable[["World", Bot, np.random.Generator], list[Case]]
GENERATORS: list[Gen] = []


def generator(fn: Gen) -> Gen:
    GENERATORS.append(fn)
    return fn


def _cases(
    entry: str,
    bot: Bot,
    muts: Iterable[Mut | tuple[str, Any, str]],
    make: Callable[[Any], Callable[[], Any]],
    check: Callable[[Any], str | None] | None,
    names: tuple[str, ...],
    prefix: str = "",
) -> list[Case]:
    """One case of ``entry`` a mutation (a :class:`Mut` or its (label, value, expect)), in
    order: ``make(value)`` is the call (made at once), labelled ``prefix + label``."""
    out = []
    for m in muts:
        label, value, expect = (m.label, m.value, m.expect) if isinstance(m, Mut) else m
        out.append(Case(entry, f"{prefix}{label}", make(value), expect, check, names, bot.name))
    return out


POSITIVE = lambda x: 0.0 < x < math.inf  # noqa: E731
NONNEG = lambda x: 0.0 <= x < math.inf  # noqa: E731
UNIT = lambda x: 0.0 < x <= 1.0  # noqa: E731

#: A task's gain and Levenberg-Marquardt damping: the valid value mutated, and its range.
TASK_GAIN_RANGES: dict[str, tuple[float, Callable[[float], bool]]] = {
    "gain": (0.5, UNIT),
    "lm_damping": (0.0, NONNEG),
}
TASK_GAINS = tuple(TASK_GAIN_RANGES)


def _task_param_cases(
    entry: str,
    bot: Bot,
    params: Iterable[str],
    frame: str | None,
    make: Callable[[dict[str, Any]], Callable[[], Any]],
    check: Callable[[Any], str | None],
) -> list[Case]:
    """The cases of a task builder's ``params`` (among :data:`TASK_GAINS`), then of its frame
    when ``frame`` (the valid one) is given: ``make({name: value})`` is the call."""
    out: list[Case] = []
    for pname in params:
        base, valid = TASK_GAIN_RANGES[pname]
        muts = scalar_muts(base, valid)
        out += _cases(
            entry, bot, muts, lambda v, p=pname: make({p: v}), check, (pname,), f"{pname}="
        )
    if frame is not None:
        muts = name_muts(frame, nframes=bot.model.nframes)
        out += _cases(entry, bot, muts, lambda v: make({"frame": v}), check, ("frame",), "frame=")
    return out


@generator
def gen_configuration(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model, q = bot.model, bot.random_q(rng)
    out: list[Case] = []
    qm = vector_muts(q, allow_none=True)  # (None: q omitted, the default configuration)
    if bot.floating:
        bad = q.copy()
        bad[3:7] *= 2.0
        zero = q.copy()
        zero[3:7] = 0.0
        qm += [Mut("quaternion of norm 2", bad, REJECT), Mut("zero quaternion", zero, REJECT)]
    for m in qm:
        exp = m.expect
        out.append(
            Case(
                "Configuration",
                f"q={m.label}",
                (lambda v=m.value: taskik.Configuration(model, v)),
                exp,
                check_configuration(model, m.value if exp == ACCEPT else None),
                ("q", "configuration"),
                bot.name,
            )
        )
    other = w.other(bot)
    out += _cases(
        "Configuration",
        bot,
        (
            ("model=None", None, REJECT),
            ("model='ur5'", "ur5", REJECT),
            ("model=Data", model.createData(), REJECT),
            ("model=Configuration", conf_of(bot), REJECT),
        ),
        lambda v: lambda: taskik.Configuration(v, q),
        None,
        ("model",),
    )
    out += _cases(
        "Configuration",
        bot,
        (
            ("data=own createData()", model.createData(), ACCEPT),
            ("data of another model", other.model.createData(), REJECT),
            ("data='abc'", "abc", REJECT),
            ("data=model", model, REJECT),
        ),
        lambda v: lambda: taskik.Configuration(model, q, data=v),
        check_configuration(model, q),
        ("data",),
    )
    # update
    for m in [m for m in qm if m.label != "None"] + [Mut("None (recompute)", None, ACCEPT)]:

        def run(v=m.value):
            c = conf_of(bot)
            c.update(v)
            return c

        exp = m.expect
        asked = None if m.value is None or exp != ACCEPT else m.value
        out.append(
            Case(
                "Configuration.update",
                f"q={m.label}",
                run,
                exp,
                check_configuration(model, asked),
                ("q", "configuration"),
                bot.name,
            )
        )
    return out


@generator
def gen_configuration_methods(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model = bot.model
    q = bot.random_q(rng)
    conf = conf_of(bot, q)  # read-only methods share it
    frame = bot.frames[int(rng.integers(len(bot.frames)))]
    fid = model.getFrameId(frame)
    expected = pin.SE3(conf.data.oMf[fid])
    out: list[Case] = []
    fm = name_muts(frame, int_ok=fid, nframes=model.nframes)
    out += _cases(
        "Configuration.get_transform_frame_to_world",
        bot,
        fm,
        lambda f: lambda: conf.get_transform_frame_to_world(f),
        check_se3(expected),
        ("frame",),
    )
    root = model.frames[1].name
    for m in fm:
        out.append(
            Case(
                "Configuration.get_transform",
                f"frame={m.label}",
                (lambda f=m.value: conf.get_transform(f, root)),
                m.expect,
                check_se3(),
                ("frame",),
                bot.name,
            )
        )
        out.append(
            Case(
                "Configuration.get_transform",
                f"root={m.label}",
                (lambda f=m.value: conf.get_transform(frame, f)),
                m.expect,
                check_se3(),
                ("frame", "root"),
                bot.name,
            )
        )
    jac = finite_array((6, model.nv))
    out += _cases(
        "Configuration.get_frame_jacobian",
        bot,
        fm,
        lambda f: lambda: conf.get_frame_jacobian(f),
        jac,
        ("frame",),
        "frame=",
    )
    refs = [
        Mut("LOCAL", pin.LOCAL, ACCEPT),
        Mut("WORLD", pin.WORLD, ACCEPT),
        Mut("LOCAL_WORLD_ALIGNED", pin.LOCAL_WORLD_ALIGNED, ACCEPT),
        Mut("'WORLD' (string)", "WORLD", REJECT),
        Mut("int 0", 0, REJECT),
        Mut("None", None, REJECT),
        Mut("7", 7, REJECT),
    ]
    out += _cases(
        "Configuration.get_frame_jacobian",
        bot,
        refs,
        lambda r: lambda: taskik.Configuration(model, q).get_frame_jacobian(frame, r),
        jac,
        ("reference", "frame"),
        "reference_frame=",
    )

    def frame_id_ok(expected_name):
        def check(i):
            if isinstance(i, bool) or not isinstance(i, int | np.integer):
                return f"not an int: {type(i).__name__}"
            if model.frames[i].name != expected_name:
                return "frame id of another frame"
            return None

        return check

    out += _cases(
        "Configuration.get_frame_id",
        bot,
        name_muts(frame, nframes=model.nframes),
        lambda f: lambda: conf.get_frame_id(f),
        frame_id_ok(frame),
        ("frame",),
    )
    jname = model.names[model.njoints - 1]

    def joint_id_ok(i):
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            return f"not an int: {type(i).__name__}"
        if model.names[i] != jname:
            return "joint id of another joint"
        return None

    jm = name_muts(jname, nframes=model.njoints) + [Mut("'universe'", "universe", ANY)]
    out += _cases(
        "Configuration.get_joint_id",
        bot,
        jm,
        lambda j: lambda: conf.get_joint_id(j),
        None,
        ("joint",),
    )
    for c in out[-len(jm) :]:
        if c.label != "'universe'":
            c.check = joint_id_ok
    # integrate / integrate_inplace
    v = rng.uniform(-0.5, 0.5, model.nv)
    for m in vector_muts(v):
        out.append(
            Case(
                "Configuration.integrate",
                f"v={m.label}",
                (lambda vv=m.value: conf.integrate(vv, 0.01)),
                m.expect,
                check_q(model),
                ("v",),
                bot.name,
            )
        )

        def inplace(vv=m.value):
            c = conf_of(bot, q)
            c.integrate_inplace(vv, 0.01)
            return c

        out.append(
            Case(
                "Configuration.integrate_inplace",
                f"v={m.label}",
                inplace,
                m.expect,
                check_configuration(model),
                ("v",),
                bot.name,
            )
        )
    for m in scalar_muts(0.01, POSITIVE):
        out.append(
            Case(
                "Configuration.integrate",
                f"dt={m.label}",
                (lambda d=m.value: conf.integrate(v, d)),
                m.expect,
                check_q(model),
                ("dt",),
                bot.name,
            )
        )

        def inplace_dt(d=m.value):
            c = conf_of(bot, q)
            c.integrate_inplace(v, d)
            return c

        out.append(
            Case(
                "Configuration.integrate_inplace",
                f"dt={m.label}",
                inplace_dt,
                m.expect,
                check_configuration(model),
                ("dt",),
                bot.name,
            )
        )
    # check_limits
    out += _cases(
        "Configuration.check_limits",
        bot,
        scalar_muts(1e-6, NONNEG),
        lambda v: lambda: conf.check_limits(v),
        None,
        ("tol",),
        "tol=",
    )
    out.append(
        Case(
            "Configuration.copy",
            "valid",
            lambda: conf.copy(),
            ACCEPT,
            check_configuration(model, q),
            (),
            bot.name,
        )
    )
    return out


def _odd_configurations(q: np.ndarray, model: pin.Model, other: Bot) -> list[tuple[str, Any]]:
    """Odd arguments of ``set_target_from_configuration``, (label, value): the last one is a
    configuration (of another model), the others are not configurations at all."""
    return [
        ("None", None),
        ("'abc'", "abc"),
        ("q vector", q),
        ("model", model),
        ("Configuration of another model", conf_of(other)),
    ]


def _from_odd_configuration(
    bot: Bot,
    q: np.ndarray,
    cls: str,
    make: Callable[[], Any],
    label: str,
    arg: Any,
    expect: str,
    names: tuple[str, ...],
) -> Case:
    """``make()`` (a task of class ``cls``) given ``arg`` (one of
    :func:`_odd_configurations`) by ``set_target_from_configuration``, then a step at ``q``."""

    def run() -> Any:
        t = make()
        t.set_target_from_configuration(arg)
        return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

    entry = f"{cls}.set_target_from_configuration"
    vcheck = check_velocity(bot.model.nv, -bot.vmax, bot.vmax)
    return Case(entry, f"configuration={label}", run, expect, vcheck, names, bot.name)


def _frame_goal(bot: Bot, rng: np.random.Generator, frame: str) -> pin.SE3:
    return conf_of(bot, bot.random_q(rng)).get_transform_frame_to_world(frame)


def _solve_after(bot: Bot, q: np.ndarray, make_task: Callable[[taskik.Configuration], Any]):
    """Build a task on a fresh configuration, then take one solve_ik step with it."""

    def run():
        conf = conf_of(bot, q)
        task = make_task(conf)
        v = taskik.solve_ik(conf, [task], 0.01)
        return v

    return run


@generator
def gen_tasks(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model, nv = bot.model, bot.model.nv
    q = bot.random_q(rng)
    frame = bot.frames[int(rng.integers(len(bot.frames)))]
    goal = _frame_goal(bot, rng, frame)
    vcheck = check_velocity(nv, -bot.vmax, bot.vmax)
    out: list[Case] = []

    # ---- constructors: one argument mutated, then one step
    def frame_task(**kw):
        def make(conf):
            args = {"frame": frame, "position_cost": 1.0, "orientation_cost": 1.0}
            args.update(kw)
            t = taskik.FrameTask(
                args.pop("frame"), args.pop("position_cost"), args.pop("orientation_cost"), **args
            )
            t.set_target(goal)
            return t

        return make

    def position_task(**kw):
        def make(conf):
            args = {"frame": frame, "cost": 1.0, "offset": None}
            args.update(kw)
            t = taskik.PositionTask(args.pop("frame"), args.pop("cost"), args.pop("offset"), **args)
            t.set_target(goal.translation)
            return t

        return make

    def orientation_task(**kw):
        def make(conf):
            args = {"frame": frame, "cost": 1.0}
            args.update(kw)
            t = taskik.OrientationTask(args.pop("frame"), args.pop("cost"), **args)
            t.set_target(goal.rotation)
            return t

        return make

    root = model.frames[1].name

    def relative_task(**kw):
        def make(conf):
            args = {"frame": frame, "root": root}
            args.update(kw)
            t = taskik.RelativeFrameTask(args.pop("frame"), args.pop("root"), **args)
            t.set_target_from_configuration(conf)
            return t

        return make

    def com_task(**kw):
        def make(conf):
            t = taskik.ComTask(**kw)
            t.set_target(conf.com + 0.01)
            return t

        return make

    def posture_task(**kw):
        def make(conf):
            t = taskik.PostureTask(**kw)
            t.set_target(bot.q0)
            return t

        return make

    def damping_task(**kw):
        def make(conf):
            return taskik.DampingTask(**kw)

        return make

    builders = {
        "FrameTask": (frame_task, {"position_cost": 3, "orientation_cost": 3}),
        "PositionTask": (position_task, {"cost": 3}),
        "OrientationTask": (orientation_task, {"cost": 3}),
        "RelativeFrameTask": (relative_task, {"position_cost": 3, "orientation_cost": 3}),
        "ComTask": (com_task, {"cost": 3}),
        "PostureTask": (posture_task, {"cost": nv - (6 if bot.floating else 0)}),
        "DampingTask": (damping_task, {"cost": nv}),
    }
    for cls, (builder, costs) in builders.items():
        entry = f"{cls}()"
        for pname, dim in costs.items():
            muts = merge(
                scalar_muts(1.0, NONNEG),
                [m for m in vector_muts(np.ones(dim), scalar_ok=True) if m.label != "scalar 0.5"],
            )
            neg = np.ones(dim)
            neg[0] = -1.0
            muts.append(Mut("vector with a negative entry", neg, REJECT))
            for m in muts:
                if m.label == "None" and pname.endswith("_cost"):
                    m = Mut(m.label, m.value, ANY)  # FrameTask: None leaves the cost unchanged
                if m.label == "[1.0]" and dim == 1:
                    m = Mut(m.label, m.value, ACCEPT)  # one cost per row of a 1-row task
                out.append(
                    Case(
                        entry,
                        f"{pname}={m.label}",
                        _solve_after(bot, q, builder(**{pname: m.value})),
                        m.expect,
                        vcheck,
                        ("cost",),
                        bot.name,
                    )
                )
        out += _task_param_cases(
            entry,
            bot,
            TASK_GAINS if cls != "DampingTask" else (),
            frame
            if cls in ("FrameTask", "PositionTask", "OrientationTask", "RelativeFrameTask")
            else None,
            lambda kw, b=builder: _solve_after(bot, q, b(**kw)),
            vcheck,
        )
    out += _cases(
        "RelativeFrameTask()",
        bot,
        name_muts(root, nframes=model.nframes),
        lambda v: _solve_after(bot, q, relative_task(root=v)),
        vcheck,
        ("frame", "root"),
        "root=",
    )
    out += _cases(
        "PositionTask()",
        bot,
        vector_muts(np.array([0.0, 0.0, 0.05]), allow_none=True),
        lambda v: _solve_after(bot, q, position_task(offset=v)),
        vcheck,
        ("offset",),
        "offset=",
    )
    out += _cases(
        "PositionTask()",
        bot,
        option_muts(("end", "target"), ("END", None, ["end"])),
        lambda v: _solve_after(bot, q, position_task(jacobian=v)),
        vcheck,
        ("jacobian",),
        "jacobian=",
    )

    # ---- set_target
    def frame_target_check(asked):
        def check(task):
            T = task.target
            if not isinstance(T, pin.SE3) or not np.isfinite(T.homogeneous).all():
                return "target not a finite SE3"
            if isinstance(asked, pin.Quaternion):
                want = asked.toRotationMatrix()
                if not np.allclose(T.rotation, want):
                    return "target differs from what was asked"
                return None
            H = asked.homogeneous if isinstance(asked, pin.SE3) else np.asarray(asked, float)
            if not np.allclose(T.homogeneous, H):
                return "target differs from what was asked"
            return None

        return check

    for cls in ("FrameTask", "RelativeFrameTask"):
        for m in se3_muts(goal):

            def run(val=m.value, cls=cls):
                t = (
                    taskik.FrameTask(frame)
                    if cls == "FrameTask"
                    else taskik.RelativeFrameTask(frame, root)
                )
                t.set_target(val)
                taskik.solve_ik(conf_of(bot, q), [t], 0.01)  # the target must be usable
                return t

            out.append(
                Case(
                    f"{cls}.set_target",
                    f"target={m.label}",
                    run,
                    m.expect,
                    frame_target_check(m.value),
                    ("target", "rotation", "homogeneous", "se3"),
                    bot.name,
                )
            )
    p = goal.translation.copy()
    for cls in ("PositionTask", "ComTask"):
        for m in vector_muts(p):

            def run_p(val=m.value, cls=cls):
                t = taskik.PositionTask(frame) if cls == "PositionTask" else taskik.ComTask()
                t.set_target(val)
                taskik.solve_ik(conf_of(bot, q), [t], 0.01)
                return t

            def check_p(t, val=m.value):
                if not np.allclose(t.target, np.asarray(val, dtype=float)):
                    return "target differs from what was asked"
                return finite_array((3,))(t.target)

            out.append(
                Case(
                    f"{cls}.set_target",
                    f"target={m.label}",
                    run_p,
                    m.expect,
                    check_p,
                    ("target",),
                    bot.name,
                )
            )
    for m in rotation_muts(goal.rotation):

        def run_o(val=m.value):
            t = taskik.OrientationTask(frame)
            t.set_target(val)
            taskik.solve_ik(conf_of(bot, q), [t], 0.01)
            return t

        def check_o(t, val=m.value):
            if isinstance(val, pin.Quaternion):
                want = val.normalized().toRotationMatrix()
            elif isinstance(val, pin.SE3):
                want = val.rotation
            else:
                want = np.asarray(val, dtype=float)
            if not np.allclose(t.target, want):
                return "target differs from what was asked"
            return finite_array((3, 3))(t.target)

        out.append(
            Case(
                "OrientationTask.set_target",
                f"target={m.label}",
                run_o,
                m.expect,
                check_o,
                ("target", "rotation", "quaternion"),
                bot.name,
            )
        )
    pm = vector_muts(bot.q0)
    if bot.floating:
        bad = bot.q0.copy()
        bad[3:7] *= 2.0
        pm.append(Mut("quaternion of norm 2", bad, REJECT))
    other = w.other(bot)
    pm.append(Mut("q0 of another model", other.q0.copy(), REJECT))
    for with_conf in (False, True):

        def run_post(val, with_conf=with_conf):
            conf = conf_of(bot, q)
            t = taskik.PostureTask()
            if with_conf:
                t.set_target(val, conf)
            else:
                t.set_target(val)
            return taskik.solve_ik(conf, [t], 0.01)

        out += _cases(
            "PostureTask.set_target",
            bot,
            pm,
            lambda v: partial(run_post, v),
            vcheck,
            ("target", "q", "posture", "quaternion"),
            f"{'(with configuration) ' if with_conf else ''}q=",
        )
    # set_target_from_configuration with odd arguments
    target_tasks: dict[str, Callable[[], Any]] = {
        "FrameTask": lambda: taskik.FrameTask(frame),
        "PositionTask": lambda: taskik.PositionTask(frame),
        "OrientationTask": lambda: taskik.OrientationTask(frame),
        "ComTask": lambda: taskik.ComTask(),
        "PostureTask": lambda: taskik.PostureTask(),
        "RelativeFrameTask": lambda: taskik.RelativeFrameTask(frame, root),
    }
    for label, arg in _odd_configurations(q, model, other):
        exp_from = ANY if label.startswith("Configuration") else REJECT
        for cls, make in target_tasks.items():
            names = ("configuration", "frame", "posture", "target", "q")
            out.append(_from_odd_configuration(bot, q, cls, make, label, arg, exp_from, names))
    for cls in target_tasks:

        def run_valid(cls=cls):
            conf = conf_of(bot, q)
            t = target_tasks[cls]()
            t.set_target_from_configuration(conf)
            v = taskik.solve_ik(conf, [t], 0.01)
            if not np.allclose(v, 0.0, atol=1e-6):
                return np.full_like(v, math.nan)  # on target: the step must be zero
            return v

        out.append(
            Case(
                f"{cls}.set_target_from_configuration",
                "valid (step must be zero)",
                run_valid,
                ACCEPT,
                vcheck,
                (),
                bot.name,
            )
        )

    # ---- cost setters on an existing task
    def run_cost(val):
        t = taskik.PositionTask(frame)
        t.set_target(goal.translation)
        t.cost = val
        return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

    out += _cases(
        "Task.cost =",
        bot,
        merge(scalar_muts(1.0, NONNEG), vector_muts(np.ones(3), scalar_ok=True)),
        lambda v: partial(run_cost, v),
        vcheck,
        ("cost",),
        "cost=",
    )
    for pname, valid, base in (("gain", UNIT, 0.5), ("lm_damping", NONNEG, 0.0)):

        def run_attr(val, pname=pname):
            t = taskik.PositionTask(frame)
            t.set_target(goal.translation)
            setattr(t, pname, val)
            return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

        out += _cases(
            f"Task.{pname} =",
            bot,
            scalar_muts(base, valid),
            lambda v: partial(run_attr, v),
            vcheck,
            (pname,),
        )
    for which in ("position_cost", "orientation_cost"):

        def run_set(val, which=which):
            t = taskik.FrameTask(frame)
            t.set_target(goal)
            t.set_costs(**{which: val})
            return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

        out += _cases(
            "FrameTask.set_costs",
            bot,
            merge(
                scalar_muts(1.0, NONNEG, allow_none=True), vector_muts(np.ones(3), scalar_ok=True)
            ),
            lambda v: partial(run_set, v),
            vcheck,
            ("cost",),
            f"{which}=",
        )
    # (a bare Task() goes through solve_ik, build_ik, report and solve_posture in task lists;
    # calling its abstract compute_error directly may raise NotImplementedError)
    return out


@generator
def gen_limits(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model = bot.model
    other = w.other(bot)
    q = bot.random_q(rng)
    out: list[Case] = []

    def run_with(make_limit):
        def run():
            conf = conf_of(bot, q)
            lim = make_limit()
            tasks = base_tasks(bot, conf, bot.random_q(np.random.default_rng(1)))
            return taskik.solve_ik(conf, tasks, 0.01, limits=[lim])

        return run

    vcheck = check_velocity(model.nv)
    out += _cases(
        "ConfigurationLimit",
        bot,
        scalar_muts(0.5, UNIT),
        lambda v: run_with(lambda g=v: taskik.ConfigurationLimit(model, g)),
        vcheck,
        ("gain",),
        "gain=",
    )
    for label, mdl, exp in (
        ("model=None", None, REJECT),
        ("model='ur5'", "ur5", REJECT),
        ("model=Configuration", conf_of(bot), REJECT),
        ("model of another robot", other.model, REJECT),
    ):
        out.append(
            Case(
                "ConfigurationLimit",
                label,
                run_with(lambda mm=mdl: taskik.ConfigurationLimit(mm)),
                exp,
                vcheck,
                ("model", "limit", "joint", "shape"),
                bot.name,
            )
        )
        out.append(
            Case(
                "VelocityLimit",
                label,
                run_with(lambda mm=mdl: taskik.VelocityLimit(mm)),
                exp,
                vcheck,
                ("model", "limit", "joint", "shape"),
                bot.name,
            )
        )
    j = model.joints[model.njoints - 1]
    jname = model.names[model.njoints - 1]
    box_lo = np.full(model.nv, -np.inf)
    box_hi = np.full(model.nv, np.inf)
    box_lo[j.idx_v : j.idx_v + j.nv] = -0.3
    box_hi[j.idx_v : j.idx_v + j.nv] = 0.3

    def vbox_of(limit):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lim = np.broadcast_to(np.asarray(limit, dtype=float), (j.nv,))
        except Exception:  # noqa: BLE001 - an invalid limit: only finiteness is checked
            return vcheck
        lo, hi = box_lo.copy(), box_hi.copy()
        lo[j.idx_v : j.idx_v + j.nv] = -lim
        hi[j.idx_v : j.idx_v + j.nv] = lim
        return check_velocity(model.nv, lo, hi)

    for m in scalar_muts(0.3, NONNEG) + [
        Mut("[0.3] * nv_joint", [0.3] * j.nv, ACCEPT),
        Mut("[0.3] * (nv_joint + 1)", [0.3] * (j.nv + 1), REJECT),
        Mut("'0.3'", "0.3", REJECT),
    ]:
        if m.label in ("None", "[0.3]"):
            m = Mut(m.label, m.value, ANY if m.label == "[0.3]" and j.nv == 1 else m.expect)
        out.append(
            Case(
                "VelocityLimit",
                f"limits={{joint: {m.label}}}",
                run_with(lambda val=m.value: taskik.VelocityLimit(model, {jname: val})),
                m.expect,
                vbox_of(m.value),
                ("limit", "velocity", jname),
                bot.name,
            )
        )
    out += _cases(
        "VelocityLimit",
        bot,
        (
            ("limits={'nope': 1}", {"nope": 1.0}, REJECT),
            ("limits={'universe': 1}", {"universe": 1.0}, REJECT),
            ("limits={3: 1}", {3: 1.0}, REJECT),
            ("limits=[1, 2]", [1.0, 2.0], ACCEPT if model.nv == 2 else REJECT),
            ("limits=nv+1 array", np.ones(model.nv + 1), REJECT),
            ("limits='abc'", "abc", REJECT),
            ("limits={}", {}, ACCEPT),
            ("limits=model.velocityLimit array", np.array(model.velocityLimit), ACCEPT),
        ),
        lambda v: run_with(lambda ll=v: taskik.VelocityLimit(model, ll)),
        vcheck,
        ("limit", "joint", "mapping"),
    )
    return out


@generator
def gen_solve_ik(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model, nv = bot.model, bot.model.nv
    other = w.other(bot)
    q = bot.random_q(rng)
    target_q = bot.random_q(rng)
    out: list[Case] = []
    vdefault = check_velocity(nv, -bot.vmax, bot.vmax)
    vfree = check_velocity(nv)

    def call(entry_fn=taskik.solve_ik, tasks=None, dt=0.01, conf=None, **kw):
        c = conf_of(bot, q) if conf is None else conf
        t = base_tasks(bot, c, target_q) if tasks is None else tasks(c)
        return entry_fn(c, t, dt, **kw)

    # dt
    for entry, fn in (("solve_ik", taskik.solve_ik), ("build_ik", taskik.build_ik)):
        chk = vdefault if entry == "solve_ik" else check_problem(nv)
        out += _cases(
            entry,
            bot,
            scalar_muts(0.01, POSITIVE),
            lambda v, fn=fn: lambda d=v: call(fn, dt=d),
            chk,
            ("dt",),
            "dt=",
        )
        out += _cases(
            entry,
            bot,
            scalar_muts(1e-12, NONNEG),
            lambda v, fn=fn: lambda d=v: call(fn, damping=d),
            chk,
            ("damping",),
            "damping=",
        )

    # levels dt
    def run_lv(d):
        c = conf_of(bot, q)
        t = base_tasks(bot, c, target_q)
        return taskik.solve_ik(c, [t[:1], t[1:]], d)

    out += _cases(
        "solve_ik (levels)",
        bot,
        scalar_muts(0.01, POSITIVE),
        lambda v: partial(run_lv, v),
        vdefault,
        ("dt",),
        "dt=",
    )

    # configuration argument
    for label, make_conf, exp in (
        ("configuration=None", lambda: None, REJECT),
        ("configuration='abc'", lambda: "abc", REJECT),
        ("configuration=model", lambda: model, REJECT),
        ("configuration=q", lambda: q.copy(), REJECT),
        ("configuration of another robot", lambda: conf_of(other), REJECT),
    ):
        for entry, fn in (
            ("solve_ik", taskik.solve_ik),
            ("build_ik", taskik.build_ik),
        ):

            def run_conf(make_conf=make_conf, fn=fn):
                c = conf_of(bot, q)
                return fn(make_conf(), base_tasks(bot, c, target_q), 0.01)

            out.append(
                Case(
                    entry,
                    label,
                    run_conf,
                    exp,
                    vdefault,
                    ("configuration", "frame", "posture", "q", "unknown"),
                    bot.name,
                )
            )

    # tasks argument
    def tasks_muts(c):
        t = base_tasks(bot, c, target_q)
        return t

    task_cases = [
        ("tasks=None", lambda c: None, REJECT),
        ("tasks='abc'", lambda c: "abc", REJECT),
        ("tasks=[]", lambda c: [], ANY),
        ("tasks=[None]", lambda c: [None], REJECT),
        ("tasks=[Task()]", lambda c: [taskik.Task()], REJECT),
        ("tasks=[valid, Task()]", lambda c: [*tasks_muts(c), taskik.Task()], REJECT),
        ("tasks=one Task (not a list)", lambda c: tasks_muts(c)[0], ANY),
        ("tasks=tuple", lambda c: tuple(tasks_muts(c)), ACCEPT),
        ("tasks=dict", lambda c: {0: tasks_muts(c)[0]}, REJECT),
        ("tasks=[task, [task]] (mixed)", lambda c: [tasks_muts(c)[0], tasks_muts(c)[1:]], REJECT),
        ("tasks=[[task], task] (mixed)", lambda c: [tasks_muts(c)[:1], tasks_muts(c)[1]], REJECT),
        ("tasks=[[]]", lambda c: [[]], ANY),
        ("tasks=generator", lambda c: (t for t in tasks_muts(c)), ANY),
        ("tasks=[model]", lambda c: [model], REJECT),
        ("tasks=np.array of tasks", lambda c: np.array(tasks_muts(c), dtype=object), ANY),
        ("tasks=[FrameTask without target]", lambda c: [taskik.FrameTask(bot.frames[0])], REJECT),
        ("tasks=[same task twice]", lambda c: [tasks_muts(c)[0]] * 2, ACCEPT),
    ]
    for label, mk, exp in task_cases:
        for entry, fn in (
            ("solve_ik", taskik.solve_ik),
            ("build_ik", taskik.build_ik),
        ):
            out.append(
                Case(
                    entry,
                    label,
                    (lambda mk=mk, fn=fn: call(fn, tasks=mk)),
                    exp,
                    vdefault if entry == "solve_ik" else check_problem(nv),
                    ("task", "level", "target"),
                    bot.name,
                )
            )

    # levels
    def levels_run(mk, **kw):
        def run():
            c = conf_of(bot, q)
            t = base_tasks(bot, c, target_q)
            return taskik.solve_ik(c, mk(t), 0.01, **kw)

        return run

    def same_as_two_levels(v):
        why = vdefault(v)
        if why:
            return why
        c = conf_of(bot, q)
        t = base_tasks(bot, c, target_q)
        ref = taskik.solve_ik(c, [t[:1], t[1:]], 0.01)
        if not np.allclose(v, ref, atol=1e-7):
            return "empty middle level changed the result"
        return None

    for label, mk, exp, chk in (
        (
            "levels [[a], [], [b]] (empty middle)",
            lambda t: [t[:1], [], t[1:]],
            ANY,
            same_as_two_levels,
        ),
        ("levels [[a], [b]]", lambda t: [t[:1], t[1:]], ACCEPT, vdefault),
        ("levels [[], [a]]", lambda t: [[], t], ANY, vdefault),
        ("levels [[a], [None]]", lambda t: [t[:1], [None]], REJECT, vdefault),
        ("levels [[a], [Task()]]", lambda t: [t[:1], [taskik.Task()]], REJECT, vdefault),
        ("levels [[a], 'b']", lambda t: [t[:1], "b"], REJECT, vdefault),
        ("levels [(a,), (b,)] tuples", lambda t: [tuple(t[:1]), tuple(t[1:])], ACCEPT, vdefault),
        ("levels [[a]] * 3 (same task)", lambda t: [t[:1]] * 3, ACCEPT, vdefault),
    ):
        out.append(
            Case("solve_ik (levels)", label, levels_run(mk), exp, chk, ("level", "task"), bot.name)
        )
        out.append(
            Case(
                "solve_ik (levels)",
                f"{label}, limits=[]",
                levels_run(mk, limits=[]),
                exp,
                vfree if chk is vdefault else None,
                ("level", "task"),
                bot.name,
            )
        )
    out += _cases(
        "solve_ik (levels)",
        bot,
        (
            ("method='cascade'", "cascade", ACCEPT),
            ("method='nullspace' (with limits)", "nullspace", REJECT),
            ("method='x'", "x", REJECT),
            ("method=None", None, REJECT),
        ),
        lambda v: levels_run(lambda t: [t[:1], t[1:]], method=v),
        vdefault,
        ("method", "nullspace", "limit"),
    )

    # limits argument
    def limits_run(mk, fn=taskik.solve_ik, levels=False):
        def run():
            c = conf_of(bot, q)
            t = base_tasks(bot, c, target_q)
            return fn(c, [t[:1], t[1:]] if levels else t, 0.01, limits=mk())

        return run

    lim_cases = [
        ("limits=None", lambda: None, ACCEPT),
        ("limits=[]", lambda: [], ACCEPT),
        ("limits=VelocityLimit (not a list)", lambda: taskik.VelocityLimit(model), ACCEPT),
        (
            "limits=[VelocityLimit(other model)]",
            lambda: [taskik.VelocityLimit(other.model)],
            REJECT,
        ),
        (
            "limits=[ConfigurationLimit(other model)]",
            lambda: [taskik.ConfigurationLimit(other.model)],
            REJECT,
        ),
        ("limits=[NaN box]", lambda: [NanLimit()], REJECT),
        ("limits=[hard box lower > upper]", lambda: [CrossedLimit(True)], REJECT),
        ("limits=[soft box lower > upper]", lambda: [CrossedLimit(False)], REJECT),
        ("limits=[box indices out of range]", lambda: [WrongIndexLimit()], REJECT),
        ("limits=[box of wrong length]", lambda: [ShortBoxLimit()], REJECT),
        ("limits=[G with nv+1 columns]", lambda: [BadRowsLimit()], REJECT),
        ("limits=[h with NaN]", lambda: [NanRowsLimit()], REJECT),
        ("limits=[±inf box]", lambda: [InfBoxLimit()], ACCEPT),
        ("limits=[None]", lambda: [None], REJECT),
        ("limits='abc'", lambda: "abc", REJECT),
        ("limits=[Limit()] (no bounds)", lambda: [taskik.Limit()], ACCEPT),
        ("limits=model", lambda: model, REJECT),
    ]
    for label, mk, exp in lim_cases:
        chk = vfree
        for entry, fn, lv in (
            ("solve_ik", taskik.solve_ik, False),
            ("solve_ik (levels)", taskik.solve_ik, True),
            ("build_ik", taskik.build_ik, False),
        ):
            if entry == "build_ik" and "lower > upper" in label:
                exp = ANY  # the QP of the step, infeasible as asked: build_ik may return it
            out.append(
                Case(
                    entry,
                    label,
                    limits_run(mk, fn, lv),
                    exp,
                    check_problem(nv) if entry == "build_ik" else chk,
                    ("limit", "bound", "index", "indices", "shape", "nan", "model"),
                    bot.name,
                )
            )
    # solver / backends / kwargs
    for label, kw, exp in (
        ("solver='daqp'", {"solver": "daqp"}, ACCEPT),
        ("solver='quadprog'", {"solver": "quadprog"}, ANY),
        ("solver='proxqp'", {"solver": "proxqp"}, ANY),
        ("solver='nope'", {"solver": "nope"}, REJECT),
        ("solver=3", {"solver": 3}, REJECT),
        ("solver=['daqp']", {"solver": ["daqp"]}, REJECT),
        ("unknown solver kwarg foo=1", {"foo": 1}, REJECT),
        ("unknown solver kwarg (daqp) eps=nan", {"solver": "daqp", "eps": math.nan}, REJECT),
        ("backend='qp'", {"backend": "qp"}, ACCEPT),
        ("backend=['pinv']", {"backend": ["pinv"]}, REJECT),
        ("backend='PINV'", {"backend": "PINV"}, REJECT),
        ("backend=None", {"backend": None}, REJECT),
        ("backend=3", {"backend": 3}, REJECT),
        ("backend='pinv', limits=None (none)", {"backend": "pinv"}, ACCEPT),
    ):
        out.append(
            Case(
                "solve_ik",
                label,
                (lambda kw=kw: call(**kw)),
                exp,
                vfree if kw.get("backend") == "pinv" else vdefault,  # pinv: no limits
                ("solver", "backend", "foo", "eps", "limit", "option", "argument"),
                bot.name,
            )
        )
        out.append(
            Case(
                "solve_ik (levels)",
                label,
                levels_run(lambda t: [t[:1], t[1:]], **kw),
                ANY if kw.get("backend") == "pinv" else exp,  # levels may need the QP
                vfree if kw.get("backend") == "pinv" else vdefault,
                ("solver", "backend", "foo", "eps", "limit", "option", "argument", "level"),
                bot.name,
            )
        )
    backend_opts = {
        "transpose": [],
        "pinv": [("rcond", 1e-10, NONNEG)],
        "dls": [("lam", 0.1, NONNEG), ("w_bar", 1e-3, NONNEG)],
        "sdls": [("gamma_max", 0.7, POSITIVE)],
        "regularized": [
            ("gamma0", 0.5, lambda x: x != 0 and math.isfinite(x)),
            ("sigma_thr", 0.05, POSITIVE),
        ],
    }
    for backend, opts in backend_opts.items():

        def run_b(kw, backend=backend):
            kw = dict(kw)
            if kw.get("limits") == "velocity":
                kw["limits"] = [taskik.VelocityLimit(model)]
            else:
                kw.setdefault("limits", [])
            return call(backend=backend, **kw)

        out += _cases(
            f"solve_ik backend={backend}",
            bot,
            (
                ("valid", {}, ACCEPT),
                ("unknown option foo=1", {"foo": 1}, REJECT),
                ("max_task_error=nan", {"max_task_error": math.nan}, REJECT),
                ("max_task_error=0.1", {"max_task_error": 0.1}, ACCEPT),
                ("max_task_error=-1", {"max_task_error": -1.0}, REJECT),
                ("max_task_error='a'", {"max_task_error": "a"}, REJECT),
                ("max_joint_step=0", {"max_joint_step": 0.0}, REJECT),
                ("max_joint_step=0.01", {"max_joint_step": 0.01}, ACCEPT),
                ("max_joint_step=nan", {"max_joint_step": math.nan}, REJECT),
                ("damping=nan", {"damping": math.nan}, REJECT),
                ("solver='daqp' (ignored?)", {"solver": "daqp"}, ANY),
                ("limits=[VelocityLimit]", {"limits": "velocity"}, ACCEPT),  # scaled into the box
            ),
            lambda v: partial(run_b, v),
            vfree,
            (
                "max_task_error",
                "max_joint_step",
                "foo",
                "option",
                "damping",
                "limit",
                "solver",
                "backend",
            ),
        )
        for oname, base, valid in opts:
            for m in scalar_muts(base, valid):
                if oname == "w_bar" and m.label in ("[0.001]",):
                    continue

                def run_o(val=m.value, backend=backend, oname=oname):
                    extra = {"damping_kind": "sugihara"} if oname == "w_bar" else {}
                    return call(backend=backend, limits=[], **{oname: val}, **extra)

                out.append(
                    Case(
                        f"solve_ik backend={backend}",
                        f"{oname}={m.label}",
                        run_o,
                        m.expect,
                        vfree,
                        (oname,),
                        bot.name,
                    )
                )
        out += _cases(
            f"solve_ik backend={backend}",
            bot,
            scalar_muts(0.01, POSITIVE),
            lambda v, b=backend: lambda d=v: call(backend=b, limits=[], dt=d),
            vfree,
            ("dt",),
            "dt=",
        )
    for label, kw, exp in (
        ("damping_kind='x'", {"damping_kind": "x"}, REJECT),
        ("damping_kind=None", {"damping_kind": None}, REJECT),
        ("damping_kind='chan'", {"damping_kind": "chan"}, ACCEPT),
        ("form='svd'", {"form": "svd"}, ACCEPT),
        ("form='x'", {"form": "x"}, REJECT),
        ("w_bar wrong length", {"damping_kind": "sugihara", "w_bar": np.ones(nv + 1)}, REJECT),
        ("w_bar per joint", {"damping_kind": "sugihara", "w_bar": np.full(nv, 1e-3)}, ACCEPT),
    ):
        out.append(
            Case(
                "solve_ik backend=dls",
                label,
                (lambda kw=kw: call(backend="dls", limits=[], **kw)),
                exp,
                vfree,
                tuple(kw),
                bot.name,
            )
        )
    out += _cases(
        "solve_ik backend=regularized",
        bot,
        (
            ("branch='x'", {"branch": "x"}, REJECT),
            ("branch=None", {"branch": None}, REJECT),
        ),
        lambda v: lambda: call(backend="regularized", limits=[], **v),
        vfree,
        ("branch",),
    )
    return out


def check_problem(nv: int) -> Callable[[Any], str | None]:
    def check(p: Any) -> str | None:
        if not isinstance(p, taskik.Problem):
            return f"not a Problem: {type(p).__name__}"
        for name in ("P", "r", "A", "c"):
            x = getattr(p, name)
            if not np.isfinite(x).all():
                return f"NaN/inf in Problem.{name}"
        if p.P.shape != (nv, nv) or p.r.shape != (nv,):
            return f"wrong shape: P {p.P.shape}, r {p.r.shape}"
        for name in ("lb", "ub"):
            x = getattr(p, name)
            if x is not None and (x.shape != (nv,) or np.isnan(x).any()):
                return f"NaN or wrong shape in Problem.{name}"
        if p.G is not None and (p.G.shape[1] != nv or not np.isfinite(p.G).all()):
            return "bad inequality rows in Problem.G"
        if p.h is not None and not np.isfinite(p.h).all():
            return "NaN/inf in Problem.h"
        return None

    return check


@generator
def gen_reports(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    nv = bot.model.nv
    q = bot.random_q(rng)
    target_q = bot.random_q(rng)
    out: list[Case] = []

    def step():
        c = conf_of(bot, q)
        t = base_tasks(bot, c, target_q)
        return c, t

    c0, t0 = step()
    try:
        v0 = taskik.solve_ik(c0, t0, 0.01)
    except Exception:  # noqa: BLE001 - the solve_ik cases report it
        v0 = np.zeros(nv)
    for m in vector_muts(v0):
        for entry in ("report", "hierarchy_report"):

            def run(val=m.value, entry=entry):
                c, t = step()
                if entry == "report":
                    return taskik.report(c, t, 0.01, val)
                return taskik.hierarchy_report(c, [t[:1], t[1:]], 0.01, val)

            out.append(
                Case(entry, f"v={m.label}", run, m.expect, finite_report(), ("v",), bot.name)
            )
    for m in scalar_muts(0.01, POSITIVE):
        for entry in ("report", "hierarchy_report"):

            def run_dt(val=m.value, entry=entry):
                c, t = step()
                if entry == "report":
                    return taskik.report(c, t, val, v0)
                return taskik.hierarchy_report(c, [t[:1], t[1:]], val, v0)

            out.append(
                Case(entry, f"dt={m.label}", run_dt, m.expect, finite_report(), ("dt",), bot.name)
            )

    def run_tol(val):
        c, t = step()
        return taskik.report(c, t, 0.01, v0, tol=val)

    out += _cases(
        "report",
        bot,
        scalar_muts(1e-6, NONNEG),
        lambda v: partial(run_tol, v),
        finite_report(),
        ("tol",),
        "tol=",
    )

    def run_t(mk):
        c, t = step()
        return taskik.report(c, mk(t), 0.01, v0)

    out += _cases(
        "report",
        bot,
        (
            ("tasks=None", lambda t: None, REJECT),
            ("tasks=[Task()]", lambda t: [taskik.Task()], REJECT),
            ("tasks=levels", lambda t: [t[:1], t[1:]], REJECT),
            ("tasks=[]", lambda t: [], ANY),
        ),
        lambda v: partial(run_t, v),
        finite_report(),
        ("task",),
    )
    for label, mk, exp, n in (
        ("levels [[a], [], [b]]", lambda t: [t[:1], [], t[1:]], ANY, 3),
        ("levels flat list (not levels)", lambda t: t, REJECT, None),
        ("levels None", lambda t: None, REJECT, None),
        ("levels [[a], [None]]", lambda t: [t[:1], [None]], REJECT, None),
        ("levels [[Task()]]", lambda t: [[taskik.Task()]], REJECT, None),
        ("levels []", lambda t: [], REJECT, None),
    ):

        def run_l(mk=mk):
            c, t = step()
            return taskik.hierarchy_report(c, mk(t), 0.01, v0)

        out.append(
            Case(
                "hierarchy_report", label, run_l, exp, finite_report(n), ("level", "task"), bot.name
            )
        )
    for label, lims, exp in (
        (
            "limits=[VelocityLimit(other model)]",
            lambda: [taskik.VelocityLimit(w.other(bot).model)],
            REJECT,
        ),
        ("limits=[NaN box]", lambda: [NanLimit()], REJECT),
        ("limits='abc'", lambda: "abc", REJECT),
    ):
        for entry in ("report", "hierarchy_report"):

            def run_lim(lims=lims, entry=entry):
                c, t = step()
                if entry == "report":
                    return taskik.report(c, t, 0.01, v0, limits=lims())
                return taskik.hierarchy_report(c, [t[:1], t[1:]], 0.01, v0, limits=lims())

            out.append(
                Case(
                    entry,
                    label,
                    run_lim,
                    exp,
                    finite_report(),
                    ("limit", "model", "nan", "bound"),
                    bot.name,
                )
            )
    return out


@generator
def gen_posture(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model = bot.model
    frame = bot.frames[0]
    goal = _frame_goal(bot, rng, frame)
    q0 = bot.random_q(rng)
    other = w.other(bot)
    out: list[Case] = []
    base_kw = {"max_iterations": 3, "max_searches": 1, "rng": 0, "q0": q0}

    def check_result(res):
        if not isinstance(res, taskik.PostureResult):
            return f"not a PostureResult: {type(res).__name__}"
        why = check_q(model)(res.q)
        if why:
            return why
        if not isinstance(res.success, bool):
            return "success is not a bool"
        if res.searches > 1 or res.iterations > 3:
            return "more iterations or searches than asked"
        if not (math.isfinite(res.error) and res.error >= 0):
            return "NaN/inf in PostureResult.error"
        return None

    def run_with(**kw):
        def run():
            t = taskik.FrameTask(frame)
            t.set_target(goal)
            args = dict(base_kw)
            args.update(kw)
            conf = args.pop("conf_or_model", model)
            tasks = args.pop("tasks", [t])
            return taskik.solve_posture(conf, tasks, **args)

        return run

    out += _cases(
        "solve_posture",
        bot,
        scalar_muts(1e-6, POSITIVE),
        lambda v: run_with(tol=v),
        check_result,
        ("tol",),
        "tol=",
    )
    for pname in ("max_iterations", "max_searches"):
        for m in scalar_muts(1.0, lambda x: x >= 1 and float(x).is_integer() and x < math.inf):
            exp = m.expect
            if isinstance(m.value, float | np.floating) and exp == ACCEPT:
                exp = ANY  # 1.0 for an integer count: odd
            out.append(
                Case(
                    "solve_posture",
                    f"{pname}={m.label}",
                    # a huge count, if accepted, must not run forever: a time budget stops it
                    run_with(**{pname: m.value, "time_budget": 0.2})
                    if m.label in ("1e+300", "200000000000000.0")
                    else run_with(**{pname: m.value}),
                    exp if m.label not in ("1e+300", "200000000000000.0") else REJECT,
                    check_result
                    if pname == "max_searches" or m.label == "1.0"
                    else check_q_result(model),
                    (pname,),
                    bot.name,
                )
            )
    out += _cases(
        "solve_posture",
        bot,
        scalar_muts(1e-3, lambda x: 0.0 <= x < 1.0, extremes_any=False),
        lambda v: run_with(stagnation=v),
        check_result,
        ("stagnation",),
        "stagnation=",
    )
    for m in scalar_muts(
        3.0, lambda x: x >= 1 and float(x).is_integer() and x < 1e6, extremes_any=False
    ):
        exp = ANY if isinstance(m.value, float | np.floating) and m.expect == ACCEPT else m.expect
        out.append(
            Case(
                "solve_posture",
                f"patience={m.label}",
                run_with(patience=m.value),
                exp,
                check_result,
                ("patience",),
                bot.name,
            )
        )
    out += _cases(
        "solve_posture",
        bot,
        scalar_muts(1.0, POSITIVE, allow_none=True),
        lambda v: run_with(time_budget=v),
        check_q_result(model),
        ("time_budget",),
        "time_budget=",
    )
    out += _cases(
        "solve_posture",
        bot,
        scalar_muts(0.1, NONNEG, allow_none=True),
        lambda v: run_with(damping=v),
        check_result,
        ("damping",),
        "damping=",
    )
    out += _cases(
        "solve_posture",
        bot,
        vector_muts(q0, allow_none=True),
        lambda v: run_with(q0=v),
        check_result,
        ("q",),
        "q0=",
    )
    for pname, valid_vals in (
        ("method", ("gn", "lm-chan", "lm-wampler", "lm-sugihara", "qp")),
        ("starts", ("memory", "random")),
        ("joint_limits", ("clip", "reject", "ignore")),
        ("pose_error", ("log6",)),
        ("select", ("first", "nearest")),
    ):
        for val in valid_vals:
            out.append(
                Case(
                    "solve_posture",
                    f"{pname}={val!r}",
                    run_with(**{pname: val}),
                    ACCEPT,
                    check_result,
                    (pname,),
                    bot.name,
                )
            )
        for label, val in (
            ("'x'", "x"),
            ("None", None),
            ("3", 3),
            ("[valid]", [valid_vals[0]]),
            ("upper case", valid_vals[0].upper()),
        ):
            out.append(
                Case(
                    "solve_posture",
                    f"{pname}={label}",
                    run_with(**{pname: val}),
                    REJECT,
                    check_result,
                    (pname,),
                    bot.name,
                )
            )
    # 'nr' needs a square task Jacobian (6 x nv): an error naming it is fine elsewhere
    out.append(
        Case(
            "solve_posture",
            "method='nr'",
            run_with(method="nr"),
            ANY,
            check_result,
            ("method",),
            bot.name,
        )
    )
    out += _cases(
        "solve_posture",
        bot,
        (
            ("rng=0", 0, ACCEPT),
            ("rng=np.int64(0)", np.int64(0), ACCEPT),
            ("rng=Generator", np.random.default_rng(0), ACCEPT),
            ("rng=-1", -1, REJECT),
            ("rng=1.5", 1.5, REJECT),
            ("rng='a'", "a", REJECT),
            ("rng=RandomState", np.random.RandomState(0), ANY),
            ("rng=True", True, REJECT),
        ),
        lambda v: run_with(rng=v, q0=None, starts="random"),
        check_result,
        ("rng", "seed"),
    )

    def tasks_of(kind):
        t = taskik.FrameTask(frame)
        t.set_target(goal)
        return {
            "None": None,
            "[]": [],
            "[None]": [None],
            "[Task()]": [taskik.Task()],
            "single FrameTask": t,
            "tuple": (t,),
            "[FrameTask without target]": [taskik.FrameTask(frame)],
            "[FrameTask(unknown frame)]": [taskik.FrameTask(frame + "_x")],
            "'abc'": "abc",
            "levels [[t]]": [[t]],
        }[kind]

    for kind, exp in (
        ("None", REJECT),
        ("[]", REJECT),
        ("[None]", REJECT),
        ("[Task()]", REJECT),
        ("single FrameTask", ACCEPT),
        ("tuple", ACCEPT),
        ("[FrameTask without target]", REJECT),
        ("[FrameTask(unknown frame)]", REJECT),
        ("'abc'", REJECT),
        ("levels [[t]]", ACCEPT),  # priority levels, as for solve_ik
    ):
        out.append(
            Case(
                "solve_posture",
                f"tasks={kind}",
                run_with(tasks=tasks_of(kind)),
                exp,
                check_result,
                ("task", "target", "frame"),
                bot.name,
            )
        )
    for label, val, exp in (
        ("conf_or_model=Configuration", conf_of(bot, q0), ACCEPT),
        ("conf_or_model=None", None, REJECT),
        ("conf_or_model='ur5'", "ur5", REJECT),
        ("conf_or_model=other model", other.model, REJECT),
        ("conf_or_model=Data", model.createData(), REJECT),
    ):
        out.append(
            Case(
                "solve_posture",
                label,
                run_with(conf_or_model=val, q0=None)
                if label != "conf_or_model=other model"
                else run_with(conf_or_model=val),
                exp,
                check_result,
                ("conf_or_model", "model", "configuration", "frame", "q"),
                bot.name,
            )
        )

    def run_reg(val):
        if val == "posture":
            val = [_posture_task(bot)]
        return run_with(regularization=val)()

    out += _cases(
        "solve_posture",
        bot,
        (
            ("regularization=[PostureTask]", "posture", ACCEPT),
            ("regularization=[None]", [None], REJECT),
            ("regularization='abc'", "abc", REJECT),
            ("regularization=[Task()]", [taskik.Task()], REJECT),
            ("regularization=[PostureTask without target]", [taskik.PostureTask()], REJECT),
        ),
        lambda v: partial(run_reg, v),
        check_result,
        ("regularization", "task", "target"),
    )
    return out


def check_q_result(model: pin.Model) -> Callable[[Any], str | None]:
    def check(res: Any) -> str | None:
        if not isinstance(res, taskik.PostureResult):
            return f"not a PostureResult: {type(res).__name__}"
        return check_q(model)(res.q)

    return check


@generator
def gen_metrics(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model = bot.model
    conf = conf_of(bot, bot.random_q(rng))
    frame = bot.frames[0]
    J = np.array(conf.get_frame_jacobian(frame)).reshape(6, model.nv)
    out: list[Case] = []
    fns = {
        "metrics.manipulability": (metrics.manipulability, check_scalar(0.0)),
        "metrics.condition_number": (
            metrics.condition_number,
            check_scalar(1.0 - 1e-9, allow_inf=True),
        ),
        "metrics.singular_values": (metrics.singular_values, None),
    }

    def sv_check(s):
        why = finite_array()(s)
        if why:
            return why
        if (s < 0).any() or (np.diff(s) > 1e-12).any():
            return "singular values negative or unsorted"
        return None

    jm = [
        Mut("6 x nv ndarray", J.copy(), ACCEPT),
        Mut("nested list", J.tolist(), ACCEPT),
        Mut("NaN entry", np.where(np.arange(J.size).reshape(J.shape) == 0, math.nan, J), REJECT),
        Mut("inf entry", np.where(np.arange(J.size).reshape(J.shape) == 0, math.inf, J), REJECT),
        Mut("1e300 entries", J * 1e300, ANY),
        Mut("1-D", J[0].copy(), REJECT),
        Mut("3-D", J[None].copy(), REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("complex", J + 1j, REJECT),
        Mut("0 x 0", np.zeros((0, 0)), ANY),
        Mut("6 x 0", np.zeros((6, 0)), ANY),
        Mut("zeros (singular)", np.zeros_like(J), ACCEPT),
        Mut("bool matrix", J != 0, REJECT),
    ]
    for entry, (fn, chk) in fns.items():
        chk = chk or sv_check
        out += _cases(
            entry,
            bot,
            jm,
            lambda v, fn=fn: lambda: fn(v),
            chk,
            ("J", "matrix", "jacobian"),
            "J=",
        )
        out += _cases(
            entry,
            bot,
            (
                ("'translation'", "translation", ACCEPT),
                ("'rotation'", "rotation", ACCEPT),
                ("'all'", "all", ACCEPT),
                ("None", None, ACCEPT),
                ("[0, 1]", [0, 1], ACCEPT),
                ("'x'", "x", REJECT),
                ("[]", [], REJECT),
                ("[10]", [10], REJECT),
                ("[-1]", [-1], REJECT),
                ("[0.5]", [0.5], REJECT),
                ("[True]", [True], REJECT),
                ("[[0, 1]]", [[0, 1]], REJECT),
                ("['a']", ["a"], REJECT),
                ("np.array([0, 1])", np.array([0, 1]), ACCEPT),
                ("slice(0, 3)", slice(0, 3), REJECT),
                ("3", 3, REJECT),
            ),
            lambda v, fn=fn: lambda: fn(J, v),
            chk,
            ("part", "row", "indices"),
            "part=",
        )
    fid = model.getFrameId(frame)
    for entry, fn in (
        ("metrics.frame_manipulability", metrics.frame_manipulability),
        ("metrics.frame_condition_number", metrics.frame_condition_number),
    ):
        chk = check_scalar(0.0, allow_inf=True)
        out += _cases(
            entry,
            bot,
            name_muts(frame, int_ok=fid, nframes=model.nframes),
            lambda v, fn=fn: lambda: fn(conf, v),
            chk,
            ("frame",),
            "frame=",
        )
        out += _cases(
            entry,
            bot,
            (
                ("configuration=None", None, REJECT),
                ("configuration=model", model, REJECT),
                ("configuration='a'", "a", REJECT),
            ),
            lambda v, fn=fn: lambda: fn(v, frame),
            chk,
            ("configuration",),
        )
        out += _cases(
            entry,
            bot,
            (
                ("part='x'", "x", REJECT),
                ("part=[7]", [7], REJECT),
                ("part='rotation'", "rotation", ACCEPT),
            ),
            lambda v, fn=fn: lambda: fn(conf, frame, v),
            chk,
            ("part", "row"),
        )
    return out


@generator
def gen_steps(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    model = bot.model
    n = model.nv
    wv = rng.uniform(-2.0, 2.0, n)
    out: list[Case] = []

    def same_shape(val):
        def check(x):
            shape = np.shape(val)
            return (
                None if np.shape(x) == shape else f"wrong shape: {np.shape(x)} instead of {shape}"
            )

        return check

    def bounded(kind, d):
        def check(x):
            if isinstance(x, np.floating):  # np.clip of a scalar
                x = np.asarray(x)
            why = finite_array()(x)
            if why:
                return why
            dd = float(np.asarray(d, dtype=float).max()) if not isinstance(d, bool) else 1.0
            if kind == "norm" and np.linalg.norm(x) > dd * (1 + 1e-9):
                return "result longer than d"
            if kind == "max" and np.abs(x).max(initial=0.0) > dd * (1 + 1e-9):
                return "result exceeds d"
            return None

        return check

    for entry, fn, kind in (
        ("steps.clamp_mag", steps.clamp_mag, "norm"),
        ("steps.clamp_max_abs", steps.clamp_max_abs, "max"),
        ("steps.clip_joint_step", steps.clip_joint_step, "max"),
    ):
        for m in vector_muts(wv):
            exp = m.expect
            if m.label in (
                "scalar 0.5",
                "length n-1",
                "length n+1",
                "empty",
                "column (n, 1)",
                "nested list [[...]]",
            ):
                exp = ANY  # any shape is a valid step vector; the result keeps it
            chk = all_of(bounded(kind, 0.5), same_shape(m.value))
            out.append(
                Case(
                    entry,
                    f"w={m.label}",
                    (lambda val=m.value, fn=fn: fn(val, 0.5)),
                    exp,
                    chk,
                    ("w", "dq", "vector", "step"),
                    bot.name,
                )
            )
        for m in scalar_muts(0.5, POSITIVE):
            if entry == "steps.clip_joint_step" and m.label == "[0.5]":
                m = Mut(m.label, m.value, ANY)  # a per-joint d of length 1 broadcasts
            out.append(
                Case(
                    entry,
                    f"d={m.label}",
                    (lambda val=m.value, fn=fn: fn(wv, val)),
                    m.expect,
                    bounded(kind, m.value if m.expect == ACCEPT else 1e308),
                    ("d",),
                    bot.name,
                )
            )
    out += _cases(
        "steps.clip_joint_step",
        bot,
        (
            ("d per joint", np.full(n, 0.3), ACCEPT),
            ("d per joint, wrong length", np.full(n + 1, 0.3), REJECT),
            ("d per joint with 0", np.where(np.arange(n) == 0, 0.0, 0.3), REJECT),
        ),
        lambda v: lambda: steps.clip_joint_step(wv, v),
        bounded("max", 0.3),
        ("d",),
    )
    err = rng.uniform(-0.2, 0.2, 6)

    def servo_check(res):
        if not (isinstance(res, tuple) and len(res) == 2):
            return f"not a (nu, stopped) pair: {type(res).__name__}"
        why = finite_array((6,))(res[0])
        if why:
            return why
        if not isinstance(res[1], bool | np.bool_):
            return "stopped is not a bool"
        return None

    out += _cases(
        "steps.servo_velocity",
        bot,
        vector_muts(err),
        lambda v: lambda: steps.servo_velocity(v, 1.0, 1.0),
        servo_check,
        ("error",),
        "error=",
    )
    for pname, base, valid in (
        ("gain_translation", 1.0, POSITIVE),
        ("gain_rotation", 1.0, POSITIVE),
        ("max_linear", 0.5, lambda x: x >= 0),
        ("max_angular", 0.5, lambda x: x >= 0),
        ("stop_translation", 0.0, NONNEG),
        ("stop_rotation", 0.0, NONNEG),
    ):
        for m in scalar_muts(base, valid, extremes_any=True):
            kw = {"gain_translation": 1.0, "gain_rotation": 1.0}
            kw[pname] = m.value
            exp = m.expect
            if pname.startswith("max_") and m.label == "inf":
                exp = ACCEPT  # documented default
            if pname.startswith("stop_") and m.label == "inf":
                exp = ANY  # "stop whatever this part's error": odd but meaningful
            out.append(
                Case(
                    "steps.servo_velocity",
                    f"{pname}={m.label}",
                    (lambda kw=kw: steps.servo_velocity(err, **kw)),
                    exp,
                    servo_check,
                    (pname,),
                    bot.name,
                )
            )
    conf = conf_of(bot)
    frame = bot.frames[0]

    def pcc_run(frames, eps=1e-6):
        def run():
            p = steps.PoseChangeConvergence(frames, eps)
            p.update(conf)
            return p.update(conf)

        return run

    def is_true(x):
        return None if x is True or x is np.True_ else f"no pose change not detected: {x!r}"

    for m in name_muts(frame, nframes=model.nframes):
        out.append(
            Case(
                "steps.PoseChangeConvergence",
                f"frames={m.label}",
                pcc_run(m.value),
                ACCEPT if m.label == "[name]" else m.expect,  # a list of names is documented
                is_true,
                ("frame",),
                bot.name,
            )
        )
    out.append(
        Case(
            "steps.PoseChangeConvergence",
            "frames=[]",
            pcc_run([]),
            REJECT,
            is_true,
            ("frame",),
            bot.name,
        )
    )
    out += _cases(
        "steps.PoseChangeConvergence",
        bot,
        scalar_muts(1e-6, POSITIVE),
        lambda v: pcc_run(frame, v),
        is_true,
        ("epsilon",),
        "epsilon=",
    )
    T = conf.get_transform_frame_to_world(frame)
    for m in se3_muts(T):
        exp = m.expect
        out.append(
            Case(
                "steps.pose_change",
                f"T_current={m.label}",
                (lambda val=m.value: steps.pose_change(T, val)),
                exp,
                check_scalar(0.0),
                ("pose", "T_", "transform", "homogeneous"),
                bot.name,
            )
        )
    return out


@generator
def gen_robots(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    out: list[Case] = []

    def robot_check(name):
        def check(r):
            if not isinstance(r, taskik.robots.Robot):
                return f"not a Robot: {type(r).__name__}"
            if r.q0.shape != (r.model.nq,) or not np.isfinite(r.q0).all():
                return "bad q0"
            return None

        return check

    if bot.name in ("ur5", "planar_2r"):  # loading is slowish: two rounds only
        for label, name, exp in option_muts(
            ("ur5", "planar_2r", "buss_y"),
            ("UR5", "", None, 3, ["ur5"], b"ur5", "erd:nonexistent", " ur5"),
        ):
            out.append(
                Case(
                    "robots.load",
                    f"name={label}",
                    (lambda n=name: taskik.robots.load(n)),
                    exp,
                    robot_check(name),
                    ("robot",),
                    bot.name,
                )
            )

    def urdf_check(floating):
        def check(r):
            why = robot_check("tiny")(r)
            if why:
                return why
            has_ff = r.model.njoints > 1 and r.model.joints[1].shortname() == "JointModelFreeFlyer"
            if has_ff != floating:
                return f"floating_base={floating} not honoured"
            return None

        return check

    for label, fb, exp, floating in (
        ("False", False, ACCEPT, False),
        ("True", True, ACCEPT, True),
        ("'no' (string)", "no", REJECT, False),
        ("'yes' (string)", "yes", REJECT, True),
        ("None", None, ANY, False),
        ("np.True_", np.True_, ACCEPT, True),
        ("0", 0, ANY, False),
        ("1", 1, ANY, True),
        ("nan", math.nan, REJECT, True),
        ("[]", [], REJECT, False),
    ):
        out.append(
            Case(
                "robots.load_urdf",
                f"floating_base={label}",
                (lambda fb=fb: taskik.robots.load_urdf(w.urdf, fb)),
                exp,
                urdf_check(floating),
                ("floating_base",),
                bot.name,
            )
        )
    out += _cases(
        "robots.load_urdf",
        bot,
        (
            ("str path", str(w.urdf), ACCEPT),
            ("missing file", str(w.tmp / "missing.urdf"), REJECT),
            ("directory", str(w.tmp), REJECT),
            ("malformed URDF", w.bad_urdf, REJECT),
            ("None", None, REJECT),
            ("3", 3, REJECT),
            ("''", "", REJECT),
            ("bytes path", str(w.urdf).encode(), ANY),
        ),
        lambda v: lambda: taskik.robots.load_urdf(v),
        urdf_check(False),
        ("urdf", "path", "file"),
        "path=",
    )
    out += _cases(
        "robots.load_urdf",
        bot,
        (
            ("None", None, ACCEPT),
            ("[tmp]", [str(w.tmp)], ACCEPT),
            ("'tmp' (a string)", str(w.tmp), ANY),
            ("[3]", [3], ANY),
        ),
        lambda v: lambda: taskik.robots.load_urdf(w.urdf, package_dirs=v),
        urdf_check(False),
        ("package_dirs",),
        "package_dirs=",
    )

    def solver_check(s):
        if not isinstance(s, str) or s not in (
            "daqp",
            "osqp",
            "proxqp",
            "quadprog",
            "cvxopt",
            "highs",
            "clarabel",
            "ecos",
            "scs",
            "piqp",
        ):
            return f"not a QP solver name: {s!r}"
        return None

    out.append(
        Case("default_solver", "valid", taskik.default_solver, ACCEPT, solver_check, (), bot.name)
    )

    def random_q_check(q):
        return check_q(bot.model)(q)

    out += _cases(
        "robots.random_configuration",
        bot,
        (
            ("rng=None", None, ACCEPT),
            ("rng=Generator", np.random.default_rng(0), ACCEPT),
            ("rng=0", 0, ANY),
            ("rng='a'", "a", REJECT),
        ),
        lambda v: lambda: taskik.robots.random_configuration(bot.model, bot.q0, v),
        random_q_check,
        ("rng",),
    )
    return out


#: Random valid calls per round of :func:`gen_random_valid`.
RANDOM_VALID_PER_ROUND = 200


@generator
def gen_random_valid(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """Random *valid* steps: random state (q inside or slightly outside its limits), task
    mix, costs (zeros included), gains, Levenberg-Marquardt terms, dt, damping, reachable or
    unreachable targets, flat or levels, QP or DLS. Each must return a finite velocity within
    the velocity limits (QP) that integrates to a finite, normalised q."""
    model, nv = bot.model, bot.model.nv
    root = model.frames[1].name
    out: list[Case] = []
    for _ in range(RANDOM_VALID_PER_ROUND):
        seed = int(rng.integers(2**31))

        def run(seed=seed):
            r = np.random.default_rng(seed)
            q = bot.random_q(r)
            if r.random() < 0.2:  # start outside the position range: the step must steer back
                lo, hi = model.lowerPositionLimit, model.upperPositionLimit
                for j in model.joints[1:]:
                    if j.nq == 1 and abs(lo[j.idx_q]) < 1e300 and abs(hi[j.idx_q]) < 1e300:
                        q[j.idx_q] = hi[j.idx_q] + r.uniform(0.0, 0.3)
                        break
            conf = conf_of(bot, q)
            goal = conf_of(bot, bot.random_q(r))
            frame = bot.frames[int(r.integers(len(bot.frames)))]
            kinds = r.choice(
                ["frame", "position", "orientation", "relative", "com", "posture", "damping"],
                size=int(r.integers(1, 4)),
                replace=False,
            )
            tasks: list[taskik.Task] = []
            unconstrained = r.random() < 0.25
            for kind in kinds:
                cost = float(r.choice([0.0, 1e-3, 1.0, 10.0, 1e3]))
                kw = {"gain": float(r.uniform(0.05, 1.0))}
                if not unconstrained:
                    kw["lm_damping"] = float(r.choice([0.0, 0.0, 1e-3, 1.0]))
                if kind == "frame":
                    t = taskik.FrameTask(frame, cost, float(r.choice([0.0, 1.0])), **kw)
                    T = goal.get_transform_frame_to_world(frame)
                    T.translation += r.normal(0.0, 0.5, 3)  # often out of reach
                    t.set_target(T)
                elif kind == "position":
                    t = taskik.PositionTask(frame, cost, r.normal(0, 0.05, 3), **kw)
                    t.set_target(goal.get_transform_frame_to_world(frame).translation)
                elif kind == "orientation":
                    t = taskik.OrientationTask(frame, cost, **kw)
                    t.set_target(pin.exp3(r.normal(0.0, 1.0, 3)))
                elif kind == "relative":
                    t = taskik.RelativeFrameTask(frame, root, cost, cost, **kw)
                    t.set_target(goal.get_transform(frame, root))
                elif kind == "com":
                    t = taskik.ComTask(cost, **kw)
                    t.set_target(goal.com)
                elif kind == "posture":
                    t = taskik.PostureTask(cost, **kw)
                    t.set_target(goal.q)
                else:
                    t = taskik.DampingTask(cost)
                tasks.append(t)
            dt = float(10.0 ** r.uniform(-4.0, 0.0))
            damping = float(r.choice([1e-12, 0.0, 1e-6, 1e-2]))
            if unconstrained:
                backend = str(r.choice(["dls", "pinv", "sdls", "transpose", "regularized"]))
                v = taskik.solve_ik(
                    conf,
                    tasks,
                    dt,
                    limits=[],
                    backend=backend,
                    damping=damping if backend == "dls" else 1e-12,  # only DLS has a Tikhonov term
                )
            elif len(tasks) > 1 and r.random() < 0.4:
                v = taskik.solve_ik(conf, [tasks[:1], tasks[1:]], dt, damping=damping)
            else:
                v = taskik.solve_ik(conf, tasks, dt, damping=damping)
            why = (
                check_velocity(nv) if unconstrained else check_velocity(nv, -bot.vmax, bot.vmax)
            )(v)
            if why:
                return why
            conf.integrate_inplace(v, dt)
            return check_configuration(model)(conf)

        out.append(
            Case(
                "solve_ik (random valid)",
                f"seed={seed}",
                run,
                ACCEPT,
                lambda why: why,  # run returns None or what is wrong
                (),
                bot.name,
            )
        )
    return out


# ------------------------------------------------- the modules added since the first pass
#: Heavy generators (batch, retarget, plots, command line: processes, files, figures) run in
#: the first ``HEAVY_CYCLES`` cycles over the robots only (their cases vary little with q).
HEAVY_CYCLES = int(os.environ.get("TASKIK_FUZZ_HEAVY_CYCLES", "2"))


def _heavy_round(w: World, bot: Bot, robots: tuple[str, ...]) -> bool:
    """True when a heavy generator runs on this round (robot in ``robots``, early cycle)."""
    return bot.name in robots and getattr(w, "round", 0) < HEAVY_CYCLES * len(w.order)


def _one_dof_joints(model: pin.Model) -> list[str]:
    return [
        model.names[j]
        for j in range(1, model.njoints)
        if model.joints[j].nq == 1 and model.joints[j].nv == 1
    ]


def _v_indices(model: pin.Model, names: Iterable[str]) -> np.ndarray:
    idx: list[int] = []
    for n in names:
        j = model.joints[model.getJointId(n)]
        idx += range(j.idx_v, j.idx_v + j.nv)
    return np.array(sorted(set(idx)), dtype=int)


def _step_run(
    bot: Bot,
    q: np.ndarray,
    make_tasks: Callable[[taskik.Configuration], list[Any]],
    make_limits: Callable[[taskik.Configuration], Any] | None = None,
    dt: float = 0.01,
    then: Callable[[taskik.Configuration, np.ndarray, Any], Any] | None = None,
    **kw: Any,
) -> Callable[[], Any]:
    """One ``solve_ik`` step on a fresh configuration; ``then(conf, v, limits)`` may turn the
    velocity into the checked result."""

    def run() -> Any:
        conf = conf_of(bot, q)
        tasks = make_tasks(conf)
        if make_limits is None:
            v = taskik.solve_ik(conf, tasks, dt, **kw)
            lims = None
        else:
            lims = make_limits(conf)
            v = taskik.solve_ik(conf, tasks, dt, limits=lims, **kw)
        return v if then is None else then(conf, v, lims)

    return run


def _posture_task(bot: Bot, cost: float = 1e-3) -> taskik.PostureTask:
    p = taskik.PostureTask(cost=cost)
    p.set_target(bot.q0)
    return p


def _other_frame(bot: Bot, frame: str) -> str:
    """A frame at least 5 cm from ``frame`` at q0 (at every q when it is on the base)."""
    model = bot.model
    conf = conf_of(bot)
    p = conf.get_transform_frame_to_world(frame).translation
    for f in model.frames[1:]:
        near = f.name == frame or f.parentJoint > 1
        if (
            not near
            and np.linalg.norm(conf.get_transform_frame_to_world(f.name).translation - p) > 0.05
        ):
            return f.name
    for f in reversed(model.frames):
        if f.name != frame and f.name != "universe":
            return f.name
    return frame


def _zero_step(nv: int) -> Callable[[Any], str | None]:
    """A step from a target taken at the configuration itself: finite and zero."""
    base = finite_array((nv,))

    def check(v: Any) -> str | None:
        why = base(v)
        if why is None and not np.allclose(v, 0.0, atol=1e-6):
            return f"step not zero on target (|v| = {np.abs(v).max():.3g})"
        return why

    return check


@generator
def gen_new_tasks(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The tasks added since the first pass: constructors (one argument mutated, then one
    step), ``set_target``, ``set_target_from_configuration`` (then the step must be zero),
    the coupling held after a step, manipulability leaving a singularity."""
    model, nv = bot.model, bot.model.nv
    q = bot.random_q(rng)
    frame = bot.frames[int(rng.integers(len(bot.frames)))]
    frame_b = _other_frame(bot, frame)
    goal = conf_of(bot, bot.random_q(rng))
    vcheck = check_velocity(nv, -bot.vmax, bot.vmax)
    out: list[Case] = []
    z = np.array([0.0, 0.0, 1.0])
    point = goal.get_transform_frame_to_world(frame).translation + np.array([0.5, 0.2, 0.3])
    joints1 = _one_dof_joints(model)
    cjoints = joints1[:2] if len(joints1) >= 2 else joints1[:1]
    A0 = np.array([[-0.5, 1.0]]) if len(cjoints) == 2 else np.array([[1.0]])

    def with_reg(make: Callable[[taskik.Configuration], Any]):
        return lambda conf: [make(conf), _posture_task(bot)]

    def task_cases(
        entry: str, make: Callable[..., Any], kw: str, muts: Iterable[Any], names: tuple[str, ...]
    ) -> list[Case]:
        """A step with the task ``make(kw=value)`` (and the regulariser), a mutation each."""

        def run(v: Any) -> Callable[[], Any]:
            return _step_run(bot, q, with_reg(make(**{kw: v})))

        return _cases(entry, bot, muts, run, vcheck, names, f"{kw}=")

    makers: dict[str, Callable[..., Callable[[taskik.Configuration], Any]]] = {}

    def axis_task(**kw: Any):
        args = {"frame": frame, "axis": z, "direction": [0.0, 1.0, 0.0], "cost": 1.0}
        args.update(kw)
        return lambda conf: taskik.AxisAlignmentTask(
            args["frame"], args["axis"], args["direction"], args["cost"],
            **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
        )  # fmt: skip

    def look_task(**kw: Any):
        args = {"frame": frame, "axis": z, "target": point, "cost": 1.0}
        args.update(kw)
        return lambda conf: taskik.LookAtTask(
            args["frame"], args["axis"], args["target"], args["cost"],
            **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
        )  # fmt: skip

    def distance_task(**kw: Any):
        args = {"frame_a": frame, "frame_b": frame_b, "distance": 0.3, "cost": 1.0}
        args.update(kw)
        return lambda conf: taskik.DistanceTask(
            args["frame_a"], args["frame_b"], args["distance"], args["cost"],
            **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
        )  # fmt: skip

    def coupling_task(**kw: Any):
        args: dict[str, Any] = {"joints": list(cjoints), "A": A0, "b": [0.1], "q_ref": None}
        args["cost"] = 1.0
        args.update(kw)

        def make(conf: taskik.Configuration) -> Any:
            joints = args["joints"]() if callable(args["joints"]) else args["joints"]
            return taskik.JointCouplingTask(
                joints, args["A"], args["b"], args["q_ref"], args["cost"],
                **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
            )  # fmt: skip

        return make

    def kinetic_task(**kw: Any):
        return lambda conf: taskik.KineticEnergyTask(**kw)

    def lowacc_task(**kw: Any):
        return lambda conf: taskik.LowAccelerationTask(**kw)

    def manip_task(**kw: Any):
        args = {"frame": frame, "target": 0.5, "rows": "all", "cost": 1.0}
        args.update(kw)
        return lambda conf: taskik.ManipulabilityTask(
            args["frame"], args["target"], args["rows"], args["cost"],
            **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
        )  # fmt: skip

    def relcom_task(**kw: Any):
        args = {"frame": frame, "cost": 1.0}
        args.update(kw)

        def make(conf: taskik.Configuration) -> Any:
            t = taskik.RelativeComTask(
                args["frame"], args["cost"],
                **{k: v for k, v in args.items() if k in ("gain", "lm_damping")},
            )  # fmt: skip
            t.set_target([0.0, 0.0, 0.1])
            return t

        return make

    makers = {
        "AxisAlignmentTask": axis_task,
        "LookAtTask": look_task,
        "DistanceTask": distance_task,
        "JointCouplingTask": coupling_task,
        "KineticEnergyTask": kinetic_task,
        "LowAccelerationTask": lowacc_task,
        "ManipulabilityTask": manip_task,
        "RelativeComTask": relcom_task,
    }
    for cls, maker in makers.items():
        entry = f"{cls}()"
        one_row = cls in ("DistanceTask", "JointCouplingTask", "ManipulabilityTask") or (
            cls == "LowAccelerationTask" and nv == 1
        )
        for m in scalar_muts(1.0, NONNEG):
            if m.label == "[1.0]" and one_row:
                m = Mut(m.label, m.value, ACCEPT)  # one cost per row of a 1-row task
            out.append(
                Case(
                    entry,
                    f"cost={m.label}",
                    _step_run(bot, q, with_reg(maker(cost=m.value))),
                    m.expect,
                    vcheck,
                    ("cost",),
                    bot.name,
                )
            )
        params = TASK_GAINS if cls not in ("KineticEnergyTask", "LowAccelerationTask") else ()
        if cls == "LowAccelerationTask":
            params = ("gain",)
        out += _task_param_cases(
            entry,
            bot,
            params,
            frame
            if cls in ("AxisAlignmentTask", "LookAtTask", "ManipulabilityTask", "RelativeComTask")
            else None,
            lambda kw, mk=maker: _step_run(bot, q, with_reg(mk(**kw))),
            vcheck,
        )
    for cls, maker in (("AxisAlignmentTask", axis_task), ("LookAtTask", look_task)):
        out += task_cases(
            f"{cls}()",
            maker,
            "axis",
            [*vector_muts(z), Mut("zero vector", np.zeros(3), REJECT)],
            ("axis",),
        )
    out += task_cases(
        "AxisAlignmentTask()",
        axis_task,
        "direction",
        [*vector_muts(np.array([0.0, 1.0, 0.0])), Mut("zero vector", np.zeros(3), REJECT)],
        ("direction", "target"),
    )
    out += task_cases("LookAtTask()", look_task, "target", vector_muts(point), ("target", "point"))
    here = conf_of(bot, q).get_transform_frame_to_world(frame).translation
    out.append(
        Case(
            "LookAtTask()",
            "target=the frame's own origin",
            _step_run(bot, q, with_reg(look_task(target=here))),
            ANY,
            vcheck,
            ("target", "origin", "point"),
            bot.name,
        )
    )
    out += task_cases(
        "DistanceTask()",
        distance_task,
        "distance",
        scalar_muts(0.3, NONNEG),
        ("distance", "target"),
    )
    for which in ("frame_a", "frame_b"):
        valid = frame if which == "frame_a" else frame_b
        out += _cases(
            "DistanceTask()",
            bot,
            name_muts(valid, nframes=model.nframes),
            lambda v, w=which: _step_run(bot, q, with_reg(distance_task(**{w: v}))),
            vcheck,
            ("frame",),
            f"{which}=",
        )
    out.append(
        Case(
            "DistanceTask()",
            "frame_b=frame_a",
            _step_run(bot, q, with_reg(distance_task(frame_b=frame))),
            REJECT,
            vcheck,
            ("frame", "same", "differ"),
            bot.name,
        )
    )
    # ---- JointCouplingTask
    if cjoints:
        j0 = cjoints[0]
        jm: list[tuple[str, Any, str]] = [
            ("list", list(cjoints), ACCEPT),
            ("tuple", tuple(cjoints), ACCEPT),
            ("['universe', j]", ["universe", *cjoints[1:]], REJECT),
            ("[j, j] (repeated)", [j0, j0], REJECT),
            ("[]", [], REJECT),
            ("None", None, REJECT),
            ("one name as a str", j0, REJECT if len(cjoints) == 2 else ANY),
            ("np.array of names", lambda: np.array(cjoints), ANY),
            ("iterator over names", lambda: iter(cjoints), ANY),
            ("[j, 3]", [j0, 3], REJECT),
            ("[unknown, ...]", [j0 + "_x", *cjoints[1:]], REJECT),
            ("one joint too few", list(cjoints[:-1]) or [], REJECT),
        ]
        out += task_cases("JointCouplingTask()", coupling_task, "joints", jm, ("joint",))
        k = A0.shape[1]
        am = [
            Mut("valid (1, k)", A0.copy(), ACCEPT),
            Mut("nested list", A0.tolist(), ACCEPT),
            Mut("1-D (k,)", A0[0].copy(), ANY),
            Mut("NaN entry", np.where(np.arange(k) == 0, math.nan, A0), REJECT),
            Mut("inf entry", np.where(np.arange(k) == 0, math.inf, A0), REJECT),
            Mut("k+1 columns", np.ones((1, k + 1)), REJECT),
            Mut("(0, k)", np.zeros((0, k)), REJECT),
            Mut("3-D", A0[None].copy(), REJECT),
            Mut("None", None, REJECT),
            Mut("'abc'", "abc", REJECT),
            Mut("complex", A0 + 1j, REJECT),
            Mut("bool matrix", A0 != 0, REJECT),
            Mut("zeros", np.zeros_like(A0), ANY),
        ]
        out += task_cases(
            "JointCouplingTask()",
            coupling_task,
            "A",
            am,
            ("a ", "a must", "shape", "column", "row", "matrix", "coupling"),
        )
        out += task_cases(
            "JointCouplingTask()",
            coupling_task,
            "b",
            vector_muts(np.array([0.1]), allow_none=True, scalar_ok=True),
            ("b", "target"),
        )
        other = w.other(bot)
        out += task_cases(
            "JointCouplingTask()",
            coupling_task,
            "q_ref",
            [
                *vector_muts(bot.q0, allow_none=True),
                Mut("q0 of another model", other.q0.copy(), REJECT),
            ],
            ("q_ref", "q", "configuration"),
        )

        # coupling held: alone, gain 1, no limits: one step lands on A d = b
        for i in range(3):
            A = rng.uniform(-1.0, 1.0, A0.shape)
            A[0, -1] = 1.0
            b = rng.uniform(-0.2, 0.2, 1)

            def held(conf, v, lims, A=A, b=b):
                conf.integrate_inplace(v, 0.01)
                t = taskik.JointCouplingTask(list(cjoints), A, b)
                gap = float(np.abs(t.value(conf) - b).max())
                if gap > 1e-6:
                    return f"coupling not held after a step: |A d - b| = {gap:.3g}"
                return None

            out.append(
                Case(
                    "JointCouplingTask()",
                    f"coupling held after one step (#{i})",
                    _step_run(
                        bot,
                        q,
                        lambda conf, A=A, b=b: [taskik.JointCouplingTask(list(cjoints), A, b)],
                        lambda conf: [],
                        then=held,
                        damping=1e-12,
                    ),
                    ACCEPT,
                    lambda why: why,
                    (),
                    bot.name,
                )
            )
    # ---- KineticEnergyTask and LowAccelerationTask costs given as vectors
    for cls, maker, exp in (
        ("KineticEnergyTask", kinetic_task, REJECT),
        ("LowAccelerationTask", lowacc_task, ACCEPT),
    ):
        for m in vector_muts(np.ones(nv), scalar_ok=True):
            if m.label == "scalar 0.5":
                continue  # a scalar cost: the scalar mutations cover it
            e = m.expect if exp == ACCEPT or m.expect == REJECT else REJECT
            if exp == REJECT and nv == 1 and m.expect == ACCEPT:
                e = ANY  # one coordinate: a vector of one cost is a scalar in disguise
            out.append(
                Case(
                    f"{cls}()",
                    f"cost=vector {m.label}",
                    _step_run(bot, q, with_reg(maker(cost=m.value))),
                    e,
                    vcheck,
                    ("cost",),
                    bot.name,
                )
            )
    # ---- ManipulabilityTask rows and target
    out += task_cases(
        "ManipulabilityTask()",
        manip_task,
        "rows",
        option_muts(("all", "position", "orientation"), ("x", None, ["all"], 3, "ALL")),
        ("rows",),
    )
    out += task_cases(
        "ManipulabilityTask()", manip_task, "target", scalar_muts(0.5, NONNEG), ("target",)
    )
    if bot.name in ("ur5", "panda"):  # at an exact singularity the step must leave it
        qs = np.zeros(model.nq)

        def leaves(conf, v, lims):
            t = taskik.ManipulabilityTask(frame, 1.0)
            m0 = t.manipulability(conf)
            conf.integrate_inplace(v, 0.01)
            m1 = t.manipulability(conf)
            if not m1 > m0 + 1e-12:
                return f"manipulability did not grow from the singularity: {m0:.3g} -> {m1:.3g}"
            return None

        out.append(
            Case(
                "ManipulabilityTask()",
                "at an exact singularity (q = 0): the step must leave it",
                _step_run(
                    bot, qs, lambda conf: [taskik.ManipulabilityTask(frame, 1.0)], then=leaves
                ),
                ACCEPT,
                lambda why: why,
                (),
                bot.name,
            )
        )
    # ---- set_target
    targets: dict[str, tuple[Callable[[], Any], list[Mut]]] = {
        "AxisAlignmentTask": (
            lambda: taskik.AxisAlignmentTask(frame),
            [*vector_muts(np.array([0.0, 1.0, 0.0])), Mut("zero vector", np.zeros(3), REJECT)],
        ),
        "LookAtTask": (lambda: taskik.LookAtTask(frame), vector_muts(point)),
        "DistanceTask": (lambda: taskik.DistanceTask(frame, frame_b), scalar_muts(0.3, NONNEG)),
        "ManipulabilityTask": (
            lambda: taskik.ManipulabilityTask(frame),
            scalar_muts(0.5, NONNEG),
        ),
        "RelativeComTask": (
            lambda: taskik.RelativeComTask(frame),
            vector_muts(np.array([0.0, 0.0, 0.1])),
        ),
    }
    if cjoints:
        targets["JointCouplingTask"] = (
            lambda: taskik.JointCouplingTask(list(cjoints), A0),
            vector_muts(np.array([0.1])),
        )
    for cls, (make, muts) in targets.items():

        def run_t(val, make=make):
            t = make()
            t.set_target(val)
            return taskik.solve_ik(conf_of(bot, q), [t, _posture_task(bot)], 0.01)

        out += _cases(
            f"{cls}.set_target",
            bot,
            muts,
            lambda v: partial(run_t, v),
            vcheck,
            ("target", "direction", "distance", "point", "b"),
            "target=",
        )
    # ---- set_target_from_configuration: odd arguments, then a valid one gives a zero step
    froms: dict[str, Callable[[], Any]] = {
        "AxisAlignmentTask": lambda: taskik.AxisAlignmentTask(frame),
        "LookAtTask": lambda: taskik.LookAtTask(frame),
        "DistanceTask": lambda: taskik.DistanceTask(frame, frame_b),
        "KineticEnergyTask": lambda: taskik.KineticEnergyTask(),
        "LowAccelerationTask": lambda: taskik.LowAccelerationTask(),
        "ManipulabilityTask": lambda: taskik.ManipulabilityTask(frame),
        "RelativeComTask": lambda: taskik.RelativeComTask(frame),
    }
    if cjoints:
        froms["JointCouplingTask"] = lambda: taskik.JointCouplingTask(list(cjoints), A0)
    other = w.other(bot)
    for cls, make in froms.items():
        for label, arg in _odd_configurations(q, model, other):
            exp = ANY if label.startswith("Configuration") else REJECT
            if cls in ("LowAccelerationTask", "KineticEnergyTask"):
                exp = ANY  # no target: documented to accept anything (a no-op)

            names = ("configuration", "frame", "model", "q", "joint")
            out.append(_from_odd_configuration(bot, q, cls, make, label, arg, exp, names))

        def run_zero(make=make):
            conf = conf_of(bot, q)
            t = make()
            t.set_target_from_configuration(conf)
            return taskik.solve_ik(conf, [t], 0.01, limits=[])

        out.append(
            Case(
                f"{cls}.set_target_from_configuration",
                "valid (step must be zero)",
                run_zero,
                ACCEPT,
                _zero_step(nv),
                (),
                bot.name,
            )
        )
    # ---- a task class instead of an instance; tasks of another robot's frames
    for label, mk, exp in (
        ("tasks=[FrameTask] (the class)", lambda: [taskik.FrameTask], REJECT),
        ("tasks=[PostureTask] (the class)", lambda: [taskik.PostureTask], REJECT),
        ("tasks=[ManipulabilityTask(frame of another robot)]",
         lambda: [taskik.ManipulabilityTask(other.frames[0], 0.5)], REJECT),
    ):  # fmt: skip
        out.append(
            Case(
                "solve_ik",
                label,
                (lambda mk=mk: taskik.solve_ik(conf_of(bot, q), mk(), 0.01)),
                exp,
                vcheck,
                ("task", "frame"),
                bot.name,
            )
        )
    return out


def _frozen_still(model: pin.Model, names: Any) -> Callable[[Any], str | None]:
    """The frozen joints' velocities exactly zero (expected indices found independently)."""
    try:
        listed = [names] if isinstance(names, str) else list(names)
        idx = _v_indices(model, listed)
    except Exception:  # noqa: BLE001 - a mutated name list: only finiteness is checked
        idx = np.zeros(0, dtype=int)
    base = finite_array((model.nv,))

    def check(v: Any) -> str | None:
        why = base(v)
        if why is None and len(idx) and np.any(v[idx] != 0.0):
            return f"frozen joint moved: |v| = {np.abs(v[idx]).max():.3g} on a frozen coordinate"
        return why

    return check


@generator
def gen_new_limits(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """FrozenJoints (frozen exactly still, QP and unconstrained backends), AccelerationLimit
    (|v - v_prev| <= a_max dt), BaseVelocityLimit (caps held), ConeLimit (never infeasible
    alone), default_limits."""
    model, nv = bot.model, bot.model.nv
    q = bot.random_q(rng)
    target_q = bot.random_q(rng)
    other = w.other(bot)
    out: list[Case] = []
    joints = _one_dof_joints(model) or [model.names[1]]
    frozen = joints[: max(1, len(joints) // 2)]

    def tasks(conf: taskik.Configuration) -> list[Any]:
        return base_tasks(bot, conf, target_q)

    # ---- FrozenJoints
    fm: list[tuple[str, Any, str]] = [
        ("list", list(frozen), ACCEPT),
        ("tuple", tuple(frozen), ACCEPT),
        ("one name (str)", frozen[0], ACCEPT),
        ("['universe']", ["universe"], REJECT),
        ("[unknown]", [frozen[0] + "_x"], REJECT),
        ("None", None, REJECT),
        ("[]", [], ANY),
        ("[3]", [3], REJECT),
        ("3", 3, REJECT),
        ("np.array of names", np.array(frozen), ANY),
        ("[name, name]", [frozen[0], frozen[0]], ANY),
        ("b'name'", frozen[0].encode(), REJECT),
    ]
    for label, names, exp in fm:
        for backend in ("qp", "dls", "pinv"):
            kw: dict[str, Any] = {} if backend == "qp" else {"backend": backend}

            def make_lims(conf, names=names, backend=backend):
                lim = taskik.FrozenJoints(model, names)
                if backend == "qp":
                    return [*taskik.limits.default_limits(model), lim]
                return [lim]

            out.append(
                Case(
                    "FrozenJoints",
                    f"joints={label}, backend={backend}",
                    _step_run(bot, q, tasks, make_lims, **kw),
                    exp,
                    _frozen_still(model, names),
                    ("joint",),
                    bot.name,
                )
            )
    keep = joints[-1:]
    out.append(
        Case(
            "FrozenJoints",
            "all_but(one joint)",
            _step_run(bot, q, tasks, lambda c: [taskik.FrozenJoints.all_but(model, keep)]),
            ACCEPT,
            _frozen_still(model, [n for n in model.names[1:] if n not in keep]),
            (),
            bot.name,
        )
    )
    out += _cases(
        "FrozenJoints",
        bot,
        (
            ("model=None", None, REJECT),
            ("model='ur5'", "ur5", REJECT),
            ("model of another robot", other.model, REJECT),
            ("model=Data", model.createData(), REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, lambda c: [taskik.FrozenJoints(v, frozen)]),
        check_velocity(nv),
        ("model", "joint", "limit"),
    )
    # ---- AccelerationLimit
    dt = 0.01

    def acc_check(a_max: Any) -> Callable[[Any], str | None]:
        base = finite_array((nv,))
        try:
            cap = np.broadcast_to(np.asarray(a_max, dtype=float), (nv,))
        except Exception:  # noqa: BLE001 - a mapping or an invalid cap
            cap = None

        def check(v: Any) -> str | None:
            why = base(v)
            if why is None and cap is not None:
                with np.errstate(all="ignore"):
                    over = np.abs(v) > cap * dt * (1 + 1e-9) + 1e-12
                if over.any():
                    return "velocity change above a_max dt from rest"
            return why

        return check

    for m in scalar_muts(2.0, POSITIVE):
        if m.label == "[2.0]" and nv == 1:
            m = Mut(m.label, m.value, ANY)  # one cap per coordinate: a vector of one
        out.append(
            Case(
                "AccelerationLimit",
                f"a_max={m.label}",
                _step_run(bot, q, tasks, lambda c, a=m.value: [taskik.AccelerationLimit(model, a)]),
                m.expect,
                acc_check(m.value if m.expect == ACCEPT else None),
                ("a_max", "acceleration"),
                bot.name,
            )
        )
    for m in vector_muts(np.full(nv, 2.0), scalar_ok=True):
        if m.label.startswith("inf at"):
            m = Mut(m.label, m.value, ACCEPT)  # documented: inf leaves a coordinate free
        elif m.label.startswith("-1e+300 at"):
            m = Mut(m.label, m.value, REJECT)  # a negative cap
        elif m.label == "scalar 0.5":
            m = Mut(m.label, m.value, ACCEPT)
        out.append(
            Case(
                "AccelerationLimit",
                f"a_max=vector {m.label}",
                _step_run(bot, q, tasks, lambda c, a=m.value: [taskik.AccelerationLimit(model, a)]),
                m.expect,
                acc_check(m.value if m.expect != REJECT else None),
                ("a_max", "acceleration"),
                bot.name,
            )
        )
    jn = joints[0]
    out += _cases(
        "AccelerationLimit",
        bot,
        (
            ("{joint: 2.0}", {jn: 2.0}, ACCEPT),
            ("{unknown: 2.0}", {jn + "_x": 2.0}, REJECT),
            ("{joint: -1}", {jn: -1.0}, REJECT),
            ("{joint: nan}", {jn: math.nan}, REJECT),
            ("{joint: 'a'}", {jn: "a"}, REJECT),
            ("{}", {}, ANY),
            ("{3: 2.0}", {3: 2.0}, REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, lambda c, a=v: [taskik.AccelerationLimit(model, a)]),
        check_velocity(nv),
        ("a_max", "acceleration", "joint"),
        "a_max=",
    )
    out += _cases(
        "AccelerationLimit",
        bot,
        (
            ("True", True, ACCEPT),
            ("False", False, ACCEPT),
            ("np.True_", np.True_, ACCEPT),
            ("'yes'", "yes", REJECT),
            ("None", None, REJECT),
            ("1", 1, REJECT),
        ),
        lambda v: _step_run(
            bot,
            q,
            tasks,
            lambda c, b=v: [taskik.AccelerationLimit(model, 2.0, braking=b)],
        ),
        acc_check(2.0),
        ("braking",),
        "braking=",
    )
    v_prev = rng.uniform(-0.1, 0.1, nv)

    def run_prev(val):
        conf = conf_of(bot, q)
        lim = taskik.AccelerationLimit(model, 2.0)
        lim.set_previous_velocity(val)
        return taskik.solve_ik(conf, tasks(conf), dt, limits=[lim])

    out += _cases(
        "AccelerationLimit.set_previous_velocity",
        bot,
        vector_muts(v_prev, allow_none=True),
        lambda v: partial(run_prev, v),
        check_velocity(nv),
        ("v", "velocity"),
        "v=",
    )
    # ---- BaseVelocityLimit
    floating = bot.floating

    def base_check(lin: Any, shape: str) -> Callable[[Any], str | None]:
        base = finite_array((nv,))

        def check(v: Any) -> str | None:
            why = base(v)
            if why is None and floating:
                try:
                    cap = np.asarray(lin, dtype=float)
                except Exception:  # noqa: BLE001
                    return None
                if shape == "norm" and np.linalg.norm(v[:3]) > float(cap.max()) * (1 + 1e-9):
                    return "base speed above its norm cap"
                if shape == "box" and (np.abs(v[:3]) > cap * (1 + 1e-9) + 1e-12).any():
                    return "base velocity above its box cap"
            return why

        return check

    bexp = ACCEPT if floating else REJECT
    for m in scalar_muts(0.2, NONNEG, allow_none=True):
        exp = m.expect if floating else REJECT
        if m.label == "None":
            exp = ANY if floating else REJECT  # angular cap alone
        out.append(
            Case(
                "BaseVelocityLimit",
                f"linear={m.label}",
                _step_run(
                    bot,
                    q,
                    tasks,
                    lambda c, x=m.value: [taskik.BaseVelocityLimit(model, x, angular=0.5)],
                ),
                exp,
                base_check(m.value, "box") if exp == ACCEPT else check_velocity(nv),
                ("linear", "base", "cap"),
                bot.name,
            )
        )
    for m in vector_muts(np.array([0.2, 0.1, 0.05]), allow_none=True):
        if m.label == "scalar 0.5":
            continue  # the scalar mutations cover it
        exp = m.expect if floating else REJECT
        out.append(
            Case(
                "BaseVelocityLimit",
                f"linear=vector {m.label}",
                _step_run(
                    bot, q, tasks, lambda c, x=m.value: [taskik.BaseVelocityLimit(model, x, 0.5)]
                ),
                exp if m.label != "None" else (ANY if floating else REJECT),
                base_check(m.value, "box") if exp == ACCEPT else check_velocity(nv),
                ("linear", "base", "cap"),
                bot.name,
            )
        )
    for label, kw, exp in (
        ("shape='norm'", {"shape": "norm"}, bexp),
        ("shape='x'", {"shape": "x"}, REJECT),
        ("shape=None", {"shape": None}, REJECT),
        ("frame='world'", {"frame": "world"}, bexp),
        ("frame='x'", {"frame": "x"}, REJECT),
        ("vertices=4", {"shape": "norm", "vertices": 4}, bexp),
        ("vertices=3", {"shape": "norm", "vertices": 3}, REJECT),
        ("vertices=1.5", {"shape": "norm", "vertices": 1.5}, REJECT),
        ("vertices=1000", {"shape": "norm", "vertices": 1000}, ANY),
        ("vertices=True", {"shape": "norm", "vertices": True}, REJECT),
        ("linear=None, angular=None", {"linear": None}, REJECT),
        ("shape='norm', linear vector", {"shape": "norm", "linear": [0.1, 0.2, 0.3]}, REJECT),
    ):
        if label == "vertices=1000" and not floating:
            exp = REJECT
        args: dict[str, Any] = {"linear": 0.2}
        args.update(kw)
        if "angular=None" not in label:
            args.setdefault("angular", 0.5)
        out.append(
            Case(
                "BaseVelocityLimit",
                label,
                _step_run(
                    bot, q, tasks, lambda c, args=args: [taskik.BaseVelocityLimit(model, **args)]
                ),
                exp,
                base_check(0.2, args.get("shape", "box"))
                if exp == ACCEPT and args.get("frame") != "world"
                else check_velocity(nv),
                ("shape", "frame", "vertices", "cap", "base", "linear"),
                bot.name,
            )
        )
    # ---- ConeLimit
    frame = bot.frames[0]
    conf0 = conf_of(bot, q)
    axis_world = conf0.get_transform_frame_to_world(frame).rotation @ np.array([0.0, 0.0, 1.0])

    def cone(**kw: Any) -> Callable[[taskik.Configuration], list[Any]]:
        args = {
            "frame": frame,
            "axis": [0.0, 0.0, 1.0],
            "direction": axis_world,
            "half_angle": 0.5,
        }
        args.update(kw)
        return lambda c: [taskik.ConeLimit(**args)]

    for pname, muts, names in (
        ("half_angle", scalar_muts(0.5, lambda x: 0.0 < x < math.pi / 2), ("half_angle", "angle")),
        ("gain", scalar_muts(0.5, UNIT), ("gain",)),
        ("axis", [*vector_muts(np.array([0.0, 0.0, 1.0])), Mut("zero", np.zeros(3), REJECT)],
         ("axis",)),
        ("direction", [*vector_muts(axis_world), Mut("zero", np.zeros(3), REJECT)],
         ("direction",)),
        ("frame", name_muts(frame, nframes=model.nframes), ("frame",)),
    ):  # fmt: skip
        out += _cases(
            "ConeLimit",
            bot,
            muts,
            lambda v, p=pname: _step_run(bot, q, tasks, cone(**{p: v})),
            check_velocity(nv),
            names,
            f"{pname}=",
        )
    out += _cases(
        "ConeLimit",
        bot,
        (
            ("8", 8, ACCEPT),
            ("3", 3, ACCEPT),
            ("2", 2, REJECT),
            ("0", 0, REJECT),
            ("4.5", 4.5, REJECT),
            ("True", True, REJECT),
            ("'8'", "8", REJECT),
            ("np.int64(8)", np.int64(8), ACCEPT),
            ("None", None, REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, cone(faces=v)),
        check_velocity(nv),
        ("faces",),
        "faces=",
    )
    # alone, near the opposite direction: never infeasible (its docstring)
    for k, tilt in enumerate((0.0, 1e-3, 0.05)):
        d = -axis_world + np.array([tilt, -tilt, 0.0])
        out.append(
            Case(
                "ConeLimit",
                f"alone, direction opposite the axis (tilt {tilt:g}) #{k}",
                _step_run(
                    bot,
                    q,
                    lambda conf: [_posture_task(bot, 1.0)],
                    lambda c, d=d: [taskik.ConeLimit(frame, [0.0, 0.0, 1.0], d, 0.3)],
                ),
                ACCEPT,
                check_velocity(nv),
                (),
                bot.name,
            )
        )

    # ---- default_limits
    def run_dl(mdl):
        lims = taskik.limits.default_limits(mdl)
        conf = conf_of(bot, q)
        return taskik.solve_ik(conf, tasks(conf), dt, limits=lims)

    out += _cases(
        "limits.default_limits",
        bot,
        (
            ("model", model, ACCEPT),
            ("None", None, REJECT),
            ("'ur5'", "ur5", REJECT),
            ("Configuration", conf_of(bot), REJECT),
        ),
        lambda v: partial(run_dl, v),
        check_velocity(nv, -bot.vmax, bot.vmax),
        ("model",),
        "model=",
    )
    return out


# ------------------------------------------------------------- collisions and geometry
def _coal_distance(scene: Any, data: pin.Data, pair: int) -> float:
    """The distance of one pair of a CollisionScene by a direct coal call (placements from
    the joint placements of ``data``, or the obstacle's pose)."""
    import coal

    gm = scene.geometry_model
    a, b = (int(x) for x in scene.pairs[pair])

    def placed(k: int) -> tuple[Any, Any]:
        obj = gm.geometryObjects[k]
        if k >= scene._first_obstacle:
            M = scene.obstacles[k - scene._first_obstacle].pose
        else:
            M = data.oMi[obj.parentJoint] * obj.placement
        return obj.geometry, coal.Transform3s(M.rotation, M.translation)

    ga, ta = placed(a)
    gb, tb = placed(b)
    res = coal.DistanceResult()
    coal.distance(ga, ta, gb, tb, coal.DistanceRequest(), res)
    return float(res.min_distance)


def check_distances(nv: int) -> Callable[[Any], str | None]:
    """``(PairDistances, data, owner)`` checked: shapes, finite values, each distance equal to
    coal's (``owner``: a CollisionLimit or a CollisionScene)."""

    def check(res: Any) -> str | None:
        near, data, owner = res
        scene = getattr(owner, "scene", owner)
        k = len(near.pairs)
        for name, shape in (
            ("distance", (k,)),
            ("point_a", (k, 3)),
            ("point_b", (k, 3)),
            ("normal", (k, 3)),
            ("gradient", (k, nv)),
        ):
            x = np.asarray(getattr(near, name))
            if x.shape != shape:
                return f"wrong shape: PairDistances.{name} {x.shape} instead of {shape}"
            if not np.isfinite(x).all():
                return f"NaN/inf in PairDistances.{name}"
        for i, pair in enumerate(near.pairs):
            ref = _coal_distance(scene, data, int(pair))
            if abs(ref - near.distance[i]) > 1e-6 + 1e-6 * abs(ref):
                return (
                    f"distance differs from coal's: pair {scene.names[int(pair)]}: "
                    f"{near.distance[i]:.6g} vs {ref:.6g}"
                )
        return None

    return check


def _shapes(rng: np.random.Generator, centre: np.ndarray) -> list[Any]:
    """One obstacle of each kind near ``centre`` (m)."""
    geo = taskik.geometry
    p = centre + rng.normal(0.0, 0.1, 3)
    R = pin.exp3(rng.normal(0.0, 1.0, 3))
    cube = np.array([[x, y, z] for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (0, 0.1)])
    tris = np.array(
        [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    )  # fmt: skip
    return [
        geo.sphere("s", 0.05, p),
        geo.capsule("c", 0.03, 0.2, pin.SE3(R, p)),
        geo.box("b", [0.1, 0.2, 0.05], pin.SE3(R, p)),
        geo.cylinder("y", 0.04, 0.15, pin.SE3(R, p)),
        geo.halfspace("h", [0.0, 0.0, 1.0], float(centre[2] - 0.3)),
        geo.mesh("m", cube, tris, pin.SE3(R, p)),
    ]


@generator
def gen_collision(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """CollisionLimit: constructor arguments, obstacles, a step; its distances against a
    direct coal call; clearance and report."""
    if bot.name == "one_joint":
        return []
    model, nv = bot.model, bot.model.nv
    robot = taskik.robots.load(bot.name) if bot.name in taskik.robots.list() else None
    q = bot.random_q(rng)
    target_q = bot.random_q(rng)
    other = w.other(bot)
    geo = taskik.geometry
    caps = geo.fit_capsules(model, 0.03)
    tip = conf_of(bot, q).get_transform_frame_to_world(bot.frames[0]).translation
    out: list[Case] = []

    def tasks(conf: taskik.Configuration) -> list[Any]:
        return base_tasks(bot, conf, target_q)

    def limit(**kw: Any) -> Callable[[taskik.Configuration], list[Any]]:
        def make(conf: taskik.Configuration) -> list[Any]:
            args: dict[str, Any] = {"geometry_model": caps}
            args.update(kw)
            rob = args.pop("robot", model)
            return [taskik.ConfigurationLimit(model), taskik.CollisionLimit(rob, **args)]

        return make

    vcheck = check_velocity(nv)
    for pname, base, valid in (
        ("safety_distance", 0.01, lambda x: 0.0 <= x < 0.048),
        ("detection_distance", 0.05, lambda x: 0.012 < x < math.inf),
        ("speed", 0.5, POSITIVE),
        ("gain", 0.5, UNIT),
        ("buffer", 0.002, lambda x: 0.0 <= x < 0.04),
    ):
        out += _cases(
            "CollisionLimit",
            bot,
            scalar_muts(base, valid),
            lambda v, p=pname: _step_run(bot, q, tasks, limit(**{p: v})),
            vcheck,
            (pname, "distance", "buffer"),
            f"{pname}=",
        )
    names = [o.name for o in caps.geometryObjects]
    pair = (names[0], names[-1]) if len(names) > 1 else (names[0], names[0])
    out += _cases(
        "CollisionLimit",
        bot,
        (
            ("True", True, ACCEPT),
            ("False", False, ACCEPT),
            ("[pair of names]", [pair], ACCEPT if pair[0] != pair[1] else REJECT),
            ("[('x', 'y')]", [("x", "y")], REJECT),
            ("[(a, a)]", [(names[0], names[0])], REJECT),
            ("[(a,)]", [(names[0],)], REJECT),
            ("'abc'", "abc", REJECT),
            ("None", None, REJECT),
            ("[3]", [3], REJECT),
            ("1", 1, REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, limit(self_collision=v)),
        vcheck,
        ("self_collision", "pair", "geometry", "collision"),
        "self_collision=",
    )
    sph = geo.sphere("ball", 0.05, tip + [0.2, 0.0, 0.0])
    out += _cases(
        "CollisionLimit",
        bot,
        (
            ("[sphere]", lambda: [geo.sphere("ball", 0.05, tip + [0.2, 0.0, 0.0])], ACCEPT),
            ("one of each shape", lambda: _shapes(np.random.default_rng(3), tip), ACCEPT),
            ("[]", lambda: [], ACCEPT),
            ("[None]", lambda: [None], REJECT),
            ("'abc'", lambda: "abc", REJECT),
            ("[two obstacles of one name]", lambda: [sph, geo.sphere("ball", 0.1)], REJECT),
            ("[the same obstacle twice]", lambda: [sph, sph], REJECT),
            ("a sphere (not a list)", lambda: sph, ANY),
            ("[model]", lambda: [model], REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, lambda c: limit(obstacles=v())(c)),
        vcheck,
        ("obstacle",),
        "obstacles=",
    )
    out += _cases(
        "CollisionLimit",
        bot,
        [*vector_muts(bot.q0, allow_none=True), Mut("q0 of another model", other.q0, REJECT)],
        lambda v: _step_run(bot, q, tasks, limit(q_reference=v)),
        vcheck,
        ("q_reference", "q", "configuration"),
        "q_reference=",
    )
    srdf_bad = w.tmp / "broken.srdf"
    srdf_bad.write_text("<robot name='x'><disable_collisions link1=")
    out += _cases(
        "CollisionLimit",
        bot,
        (
            ("None", None, ACCEPT),
            ("missing file", str(w.tmp / "missing.srdf"), REJECT),
            ("a directory", str(w.tmp), REJECT),
            ("malformed file", str(srdf_bad), REJECT),
            ("3", 3, REJECT),
        ),
        lambda v: _step_run(bot, q, tasks, limit(srdf=v)),
        vcheck,
        ("srdf", "file", "path"),
        "srdf=",
    )
    other_caps = geo.fit_capsules(other.model, 0.03)
    rob_cases: list[tuple[str, Any, Any, str]] = [
        ("robot=model, geometry_model=capsules", model, caps, ACCEPT),
        ("robot=model alone (no geometry)", model, None, REJECT),
        ("robot=None", None, caps, REJECT),
        ("robot='ur5'", "ur5", caps, REJECT),
        ("geometry_model of another robot", model, other_caps, REJECT),
        ("geometry_model='abc'", model, "abc", REJECT),
        ("geometry_model=Data", model, model.createData(), REJECT),
    ]
    if robot is not None and robot.collision_model is not None:
        rob_cases.append(("robot=Robot (its own geometry)", robot, None, ACCEPT))
    for label, rob, gm, exp in rob_cases:

        def make_rob(conf, rob=rob, gm=gm):
            return [taskik.CollisionLimit(rob, gm)]

        out.append(
            Case(
                "CollisionLimit",
                label,
                _step_run(bot, q, tasks, make_rob),
                exp,
                vcheck,
                ("geometry", "model", "robot", "collision"),
                bot.name,
            )
        )
    # ---- distances against coal, clearance, report, obstacles added and moved
    for k in range(4):
        r = np.random.default_rng(int(rng.integers(2**31)))
        qk = bot.random_q(r)
        tip_k = conf_of(bot, qk).get_transform_frame_to_world(bot.frames[0]).translation
        seed_k = int(r.integers(2**31))

        def run_d(qk=qk, tip_k=tip_k, seed=seed_k):
            lim = taskik.CollisionLimit(
                model, caps, obstacles=_shapes(np.random.default_rng(seed), tip_k)
            )
            conf = conf_of(bot, qk)
            return lim.distances(conf, all_pairs=True), conf.data, lim

        out.append(
            Case(
                "CollisionLimit.distances",
                f"every pair against coal (#{k})",
                (lambda run_d=run_d: run_d()),
                ACCEPT,
                check_distances(nv),
                (),
                bot.name,
            )
        )

        def run_c(qk=qk, tip_k=tip_k):
            obstacles = _shapes(np.random.default_rng(1), tip_k)
            lim = taskik.CollisionLimit(model, caps, obstacles=obstacles)
            conf = conf_of(bot, qk)
            every = lim.distances(conf, all_pairs=True).distance
            c = lim.clearance(conf)
            want = float(every.min()) - lim.safety_distance if len(every) else math.inf
            if not abs(c - want) < 1e-6:  # GJK's own tolerance
                return f"clearance {c} is not min d - d_s = {want}"
            rep = lim.report(conf, np.zeros(nv), 0.01)
            str(rep)
            return None

        out.append(
            Case(
                "CollisionLimit.clearance",
                f"min d - d_s and report (#{k})",
                run_c,
                ACCEPT,
                lambda why: why,
                (),
                bot.name,
            )
        )

    def run_move(val):
        obs = geo.sphere("ball", 0.05, tip + 0.3)
        lim = taskik.CollisionLimit(model, caps, obstacles=[obs])
        obs.move_to(val)
        conf = conf_of(bot, q)
        return lim.distances(conf, all_pairs=True), conf.data, lim

    out += _cases(
        "geometry.Obstacle.move_to",
        bot,
        (
            ("SE3", pin.SE3(np.eye(3), tip + 0.1), ACCEPT),
            ("position", tip + 0.1, ACCEPT),
            ("NaN position", np.array([math.nan, 0.0, 0.0]), REJECT),
            ("'abc'", "abc", REJECT),
            ("None", None, ANY),
            ("4x4 with a scaled rotation", np.diag([2.0, 2.0, 2.0, 1.0]), REJECT),
        ),
        lambda v: partial(run_move, v),
        check_distances(nv),
        ("pose",),
        "pose=",
    )

    def run_add(make_obs):
        lim = taskik.CollisionLimit(model, caps, obstacles=[geo.sphere("ball", 0.05, tip)])
        lim.add_obstacle(make_obs())
        conf = conf_of(bot, q)
        return lim.distances(conf, all_pairs=True), conf.data, lim

    out += _cases(
        "CollisionLimit.add_obstacle",
        bot,
        (
            ("a new sphere", lambda: geo.sphere("new", 0.05, tip), ACCEPT),
            ("None", lambda: None, REJECT),
            ("'abc'", lambda: "abc", REJECT),
            ("a name already there", lambda: geo.sphere("ball", 0.05, tip), REJECT),
        ),
        lambda v: partial(run_add, v),
        check_distances(nv),
        ("obstacle", "name"),
        "obstacle=",
    )

    def run_rm(name):
        lim = taskik.CollisionLimit(model, caps, obstacles=[geo.sphere("ball", 0.05, tip)])
        lim.remove_obstacle(name)
        conf = conf_of(bot, q)
        return taskik.solve_ik(conf, tasks(conf), 0.01, limits=[lim])

    out += _cases(
        "CollisionLimit.remove_obstacle",
        bot,
        option_muts(("ball",), ("nope", None, 3)),
        lambda v: partial(run_rm, v),
        vcheck,
        ("obstacle", "name"),
        "name=",
    )
    return out


def pose_muts(T: pin.SE3) -> list[Mut]:
    """Mutations of an obstacle pose (pin.SE3, 4×4 homogeneous matrix or position, None)."""
    out = [
        Mut(m.label, m.value, ANY if m.label.startswith("pin.Quaternion") else m.expect)
        for m in se3_muts(T)
        if m.label != "None"
    ]
    out += [
        Mut("position (3,)", T.translation.copy(), ACCEPT),
        Mut("None (origin)", None, ACCEPT),
        Mut("position with NaN", np.array([math.nan, 0.0, 0.0]), REJECT),
        Mut("position of length 2", T.translation[:2].copy(), REJECT),
    ]
    return out


def check_obstacle(kind: str, pose: Any = None) -> Callable[[Any], str | None]:
    """An Obstacle of the shape asked, at the pose asked, whose distance to a unit sphere
    placed 3 m away is coal's."""

    def check(obs: Any) -> str | None:
        if not isinstance(obs, taskik.geometry.Obstacle):
            return f"not an Obstacle: {type(obs).__name__}"
        if obs.kind != kind:
            return f"shape {obs.kind} instead of {kind}"
        H = obs.pose.homogeneous
        if not np.isfinite(H).all():
            return "NaN/inf in the obstacle pose"
        if pose is not None:
            if isinstance(pose, pin.SE3):
                want = pose.homogeneous
            else:
                arr = np.asarray(pose, dtype=float)
                want = np.eye(4)
                if arr.shape == (3,):
                    want[:3, 3] = arr
                else:
                    want = arr
            if not np.allclose(H, want, atol=1e-9):
                return "obstacle pose differs from the pose asked"
        scene = taskik.geometry.CollisionScene(
            World1.model(), World1.geometry(), (), [obs]
        )  # one sphere on a fixed body: a pair per obstacle
        data = World1.model().createData()
        pin.forwardKinematics(World1.model(), data, np.zeros(World1.model().nq))
        near = scene.distances(data, 10.0, all_pairs=True)
        return check_distances(World1.model().nv)((near, data, scene))

    return check


class World1:
    """A one-joint model with one sphere of radius 0.1 m on its body, 3 m from the origin,
    to measure obstacles against (built once)."""

    _m: pin.Model | None = None
    _g: pin.GeometryModel | None = None

    @classmethod
    def model(cls) -> pin.Model:
        if cls._m is None:
            cls._m = one_joint_model()
        return cls._m

    @classmethod
    def geometry(cls) -> pin.GeometryModel:
        import coal

        if cls._g is None:
            gm = pin.GeometryModel()
            gm.addGeometryObject(
                pin.GeometryObject(
                    "probe", 1, pin.SE3(np.eye(3), np.array([3.0, 0.0, 0.0])), coal.Sphere(0.1)
                )
            )
            cls._g = gm
        return cls._g


@generator
def gen_geometry(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """Obstacle shapes (each checked against a direct coal distance), fit_capsules,
    convexify, self_collision_pairs, CollisionScene and its distances."""
    geo = taskik.geometry
    model, nv = bot.model, bot.model.nv
    out: list[Case] = []
    T = pin.SE3(pin.exp3(rng.normal(0.0, 1.0, 3)), rng.normal(0.0, 0.5, 3))
    shape_args: dict[str, tuple[Callable[..., Any], dict[str, Any], str]] = {
        "sphere": (geo.sphere, {"radius": 0.1}, "sphere"),
        "capsule": (geo.capsule, {"radius": 0.05, "length": 0.3}, "capsule"),
        "box": (geo.box, {"size": np.array([0.1, 0.2, 0.3])}, "box"),
        "cylinder": (geo.cylinder, {"radius": 0.05, "length": 0.3}, "cylinder"),
    }
    for name, (fn, args, kind) in shape_args.items():
        entry = f"geometry.{name}"
        for pname, val in args.items():
            if pname == "size":
                muts = [
                    *vector_muts(val),
                    Mut("a zero side", np.array([0.1, 0.0, 0.3]), REJECT),
                    Mut("a negative side", np.array([0.1, -0.2, 0.3]), REJECT),
                ]
            else:
                muts = scalar_muts(val, POSITIVE)
            for m in muts:
                kw = dict(args)
                kw[pname] = m.value
                out.append(
                    Case(
                        entry,
                        f"{pname}={m.label}",
                        (lambda fn=fn, kw=kw: fn("obs", pose=T, **kw)),
                        m.expect,
                        check_obstacle(kind, T),
                        (pname, "radius", "length", "size"),
                        bot.name,
                    )
                )
        for m in pose_muts(T):
            out.append(
                Case(
                    entry,
                    f"pose={m.label}",
                    (lambda fn=fn, val=m.value, args=args: fn("obs", pose=val, **args)),
                    m.expect,
                    check_obstacle(kind, m.value if m.expect == ACCEPT else None),
                    ("pose", "rotation", "homogeneous"),
                    bot.name,
                )
            )
        out += _cases(
            entry,
            bot,
            option_muts(("obs",), ("", None, 3, b"obs")),
            lambda v, fn=fn, args=args: lambda: fn(v, pose=T, **args),
            check_obstacle(kind, T),
            ("name",),
            "name=",
        )
    out += _cases(
        "geometry.halfspace",
        bot,
        [*vector_muts(np.array([0.0, 0.0, 1.0])), Mut("zero normal", np.zeros(3), REJECT)],
        lambda v: lambda: geo.halfspace("h", v, -1.0),
        check_obstacle("halfspace"),
        ("normal",),
        "normal=",
    )
    # an offset is bounded like every obstacle's extent (geometry.MAX_EXTENT, 1e6 m)
    out += _cases(
        "geometry.halfspace",
        bot,
        scalar_muts(-1.0, lambda x: math.isfinite(x) and abs(x) <= 1e6),
        lambda v: lambda: geo.halfspace("h", [0.0, 0.0, 1.0], v),
        check_obstacle("halfspace"),
        ("offset",),
        "offset=",
    )
    cube = np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)])
    tris = np.array(
        [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    )  # fmt: skip
    flat = cube.copy()
    flat[:, 2] = 0.0
    vm = [
        Mut("cube (8 x 3)", cube, ACCEPT),
        Mut("nested list", cube.tolist(), ACCEPT),
        Mut("NaN vertex", np.where(np.arange(24).reshape(8, 3) == 0, math.nan, cube), REJECT),
        Mut("inf vertex", np.where(np.arange(24).reshape(8, 3) == 0, math.inf, cube), REJECT),
        Mut("8 x 2", cube[:, :2].copy(), REJECT),
        Mut("empty", np.zeros((0, 3)), REJECT),
        Mut("flat (coplanar)", flat, ANY),
        Mut("all vertices at one point", np.zeros((8, 3)), ANY),
        Mut("2 vertices", cube[:2].copy(), REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("complex", cube + 1j, REJECT),
        Mut("1e300 vertex", np.where(np.arange(24).reshape(8, 3) == 0, 1e300, cube), ANY),
    ]
    tm = [
        Mut("valid", tris, ACCEPT),
        Mut("nested list", tris.tolist(), ACCEPT),
        Mut("index out of range", np.where(tris == 7, 8, tris), REJECT),
        Mut("negative index", np.where(tris == 7, -1, tris), REJECT),
        Mut("float indices 1.5", tris + 0.5, REJECT),
        Mut("t x 4", np.hstack([tris, tris[:, :1]]), REJECT),
        Mut("empty", np.zeros((0, 3), dtype=int), ANY),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("huge index 2**40", np.where(tris == 7, 2**40, tris), REJECT),
        Mut("one triangle", tris[:1].copy(), ANY),
    ]
    for entry in ("geometry.mesh", "geometry.convex_hull"):
        for pname, muts in (("vertices", vm), ("triangles", tm)):

            def run_mesh(val, entry=entry, pname=pname):
                kw = {"vertices": cube, "triangles": tris}
                kw[pname] = val
                if entry == "geometry.mesh":
                    return geo.mesh("m", kw["vertices"], kw["triangles"], T)
                return geo.Obstacle("m", geo.convex_hull(kw["vertices"], kw["triangles"]), T)

            out += _cases(
                entry,
                bot,
                muts,
                lambda v: partial(run_mesh, v),
                check_obstacle("mesh", T) if entry == "geometry.mesh" else None,
                (pname, "vertex", "vertices", "triangle", "mesh", "hull"),
                f"{pname}=",
            )

    # ---- robot geometry
    def caps_check(gm: Any) -> str | None:
        if not isinstance(gm, pin.GeometryModel):
            return f"not a GeometryModel: {type(gm).__name__}"
        for o in gm.geometryObjects:
            if not 0 <= o.parentJoint < model.njoints:
                return "geometry on a joint the model lacks"
        return None

    out += _cases(
        "geometry.fit_capsules",
        bot,
        scalar_muts(0.03, POSITIVE),
        lambda v: lambda: geo.fit_capsules(model, v),
        caps_check,
        ("radius",),
        "radius=",
    )
    out += _cases(
        "geometry.fit_capsules",
        bot,
        (
            ("None", None, REJECT),
            ("'ur5'", "ur5", REJECT),
            ("Data", model.createData(), REJECT),
        ),
        lambda v: lambda: geo.fit_capsules(v, 0.03),
        caps_check,
        ("model",),
        "model=",
    )
    caps = geo.fit_capsules(model, 0.03)
    out += _cases(
        "geometry.convexify",
        bot,
        (
            ("capsules", caps, ACCEPT),
            ("None", None, REJECT),
            ("model", model, REJECT),
            ("'abc'", "abc", REJECT),
        ),
        lambda v: lambda: geo.convexify(v),
        caps_check,
        ("geometry",),
        "geometry_model=",
    )
    other = w.other(bot)

    def pairs_check(sel: Any) -> str | None:
        n = len(caps.geometryObjects)
        pairs = np.asarray(sel.pairs).reshape(-1, 2)
        if ((pairs < 0) | (pairs >= n)).any() or (pairs[:, 0] == pairs[:, 1]).any():
            return "self-collision pair out of range or of one geometry"
        str(sel)
        return None

    sc_cases: list[tuple[str, dict[str, Any], str]] = [
        ("valid", {}, ACCEPT),
        ("geometry of another robot", {"geometry_model": geo.fit_capsules(other.model, 0.03)},
         REJECT),
        ("model=None", {"model": None}, REJECT),
        ("srdf missing", {"srdf": str(w.tmp / "missing.srdf")}, REJECT),
        ("srdf=3", {"srdf": 3}, REJECT),
    ]  # fmt: skip
    sc_cases += [
        (f"q_reference={m.label}", {"q_reference": m.value}, m.expect) for m in vector_muts(bot.q0)
    ]
    sc_cases += [
        (f"contact_distance={m.label}", {"contact_distance": m.value}, m.expect)
        for m in scalar_muts(0.0, NONNEG)
    ]

    def run_sc(kw):
        args: dict[str, Any] = {
            "model": model,
            "geometry_model": caps,
            "q_reference": bot.q0,
            "srdf": None,
            "contact_distance": 0.0,
        }
        args.update(kw)
        return geo.self_collision_pairs(
            args["model"], args["geometry_model"], args["q_reference"], args["srdf"],
            args["contact_distance"],
        )  # fmt: skip

    out += _cases(
        "geometry.self_collision_pairs",
        bot,
        sc_cases,
        lambda v: partial(run_sc, v),
        pairs_check,
        ("q_reference", "contact_distance", "srdf", "geometry", "model", "q"),
    )
    n = len(caps.geometryObjects)
    q = bot.random_q(rng)
    tip = conf_of(bot, q).get_transform_frame_to_world(bot.frames[0]).translation

    def run_scene(pairs):
        scene = geo.CollisionScene(model, caps, pairs, [geo.sphere("s", 0.05, tip)])
        conf = conf_of(bot, q)
        return scene.distances(conf.data, 0.05, all_pairs=True), conf.data, scene

    out += _cases(
        "geometry.CollisionScene",
        bot,
        (
            ("[(0, n-1)]", [(0, n - 1)], ACCEPT if n > 1 else REJECT),
            ("[]", [], ACCEPT),
            ("[(0, 0)]", [(0, 0)], REJECT),
            ("[(0, n)]", [(0, n)], REJECT),
            ("[(-1, 0)]", [(-1, 0)], REJECT),
            ("[(0.5, 1)]", [(0.5, 1)], REJECT),
            ("[(0, 1, 2)]", [(0, 1, 2)], REJECT),
            ("'ab'", "ab", REJECT),
            ("None", None, REJECT),
            ("[(True, False)]", [(True, False)], REJECT),
        ),
        lambda v: partial(run_scene, v),
        check_distances(nv),
        ("pair", "geometr"),
        "self_pairs=",
    )

    def run_dd(val):
        scene = geo.CollisionScene(model, caps, [], _shapes(np.random.default_rng(5), tip))
        conf = conf_of(bot, q)
        return scene.distances(conf.data, val), conf.data, scene

    out += _cases(
        "geometry.CollisionScene.distances",
        bot,
        scalar_muts(0.05, NONNEG),
        lambda v: partial(run_dd, v),
        check_distances(nv),
        ("detection_distance", "distance"),
        "detection_distance=",
    )

    def run_q(val):
        # (a first evaluation at q: the second lowers the pairs' bounds in joint space from it)
        scene = geo.CollisionScene(model, caps, [], _shapes(np.random.default_rng(5), tip))
        conf = conf_of(bot, q)
        scene.distances(conf.data, 0.05, q=conf.q)
        return scene.distances(conf.data, 0.05, q=val), conf.data, scene

    out += _cases(
        "geometry.CollisionScene.distances",
        bot,
        vector_muts(np.asarray(q, dtype=float), allow_none=True),
        lambda v: partial(run_q, v),
        check_distances(nv),
        ("q",),
        "q=",
    )

    def run_data(mk):
        scene = geo.CollisionScene(model, caps, [], [geo.sphere("s", 0.05, tip)])
        return scene.distances(mk(), 0.05, all_pairs=True), None, scene

    out += _cases(
        "geometry.CollisionScene.distances",
        bot,
        (
            ("data of another model", lambda: other.model.createData(), REJECT),
            ("None", lambda: None, REJECT),
            ("'abc'", lambda: "abc", REJECT),
        ),
        lambda v: partial(run_data, v),
        None,
        ("data", "model"),
        "data=",
    )
    return out


@generator
def gen_misc(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The leftovers of the first pass and small entry points: custom_configuration_vector,
    JointLimitMap, robots.list, solve_posture(regularization=...), osqp options, a dt of
    5e-324, load_urdf's package_dirs and bad joint ranges, reports with the new tasks."""
    model, nv = bot.model, bot.model.nv
    q = bot.random_q(rng)
    target_q = bot.random_q(rng)
    other = w.other(bot)
    out: list[Case] = []
    joints = _one_dof_joints(model)
    # ---- custom_configuration_vector
    if joints:
        jn = joints[0]
        j = model.joints[model.getJointId(jn)]

        def ccv_check(asked: Any) -> Callable[[Any], str | None]:
            base = check_q(model)

            def check(qq: Any) -> str | None:
                why = base(qq)
                if why is None and asked is not None:
                    try:
                        a = float(np.asarray(asked, dtype=float).reshape(-1)[0])
                    except Exception:  # noqa: BLE001
                        return None
                    if qq[j.idx_q] != a:
                        return "joint value differs from the one asked"
                return why

            return check

        for m in [
            *scalar_muts(0.3, lambda x: math.isfinite(x)),
            Mut("length 2", np.array([0.1, 0.2]), REJECT),
        ]:
            if m.label == "[0.3]":
                m = Mut(m.label, m.value, ACCEPT)  # the joint's nq = 1 coordinates
            elif m.label == "[[0.3]]":
                m = Mut(m.label, m.value, ANY)
            out.append(
                Case(
                    "custom_configuration_vector",
                    f"{jn}={m.label}",
                    (lambda val=m.value: taskik.custom_configuration_vector(model, {jn: val})),
                    m.expect,
                    ccv_check(m.value if m.expect == ACCEPT else None),
                    ("value", jn, "joint"),
                    bot.name,
                )
            )
        for label, rob, vals, exp in (
            ("robot=None", None, {jn: 0.1}, REJECT),
            ("robot='ur5'", "ur5", {jn: 0.1}, REJECT),
            ("robot=Configuration", conf_of(bot), {jn: 0.1}, ANY),
            ("values={unknown: 0.1}", model, {jn + "_x": 0.1}, REJECT),
            ("values={3: 0.1}", model, {3: 0.1}, REJECT),
            ("values={'universe': 0.1}", model, {"universe": 0.1}, REJECT),
            ("values='abc'", model, "abc", REJECT),
            ("values=[0.1]", model, [0.1], REJECT),
            ("values=None", model, None, ACCEPT),
        ):
            out.append(
                Case(
                    "custom_configuration_vector",
                    label,
                    (lambda rob=rob, vals=vals: taskik.custom_configuration_vector(rob, vals)),
                    exp,
                    check_q(model),
                    ("robot", "model", "joint", "values", "mapping"),
                    bot.name,
                )
            )

    # ---- JointLimitMap (through the unconstrained backend that uses it)
    def jlm_run(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            conf = conf_of(bot, q)
            lmap = taskik.JointLimitMap(**kw)
            return taskik.solve_ik(
                conf,
                base_tasks(bot, conf, target_q),
                0.01,
                limits=[taskik.ConfigurationLimit(model)],
                backend="dls",
                joint_limit_map=lmap,
            )

        return run

    out += _cases(
        "JointLimitMap",
        bot,
        option_muts(("threshold", "damped"), ("x", None, ["damped"])),
        lambda v: jlm_run(inversion=v),
        check_velocity(nv),
        ("inversion",),
        "inversion=",
    )
    for pname, base, valid in (
        ("threshold", 1e-8, lambda x: 0.0 < x <= 1.0),
        ("damping", 1e-2, POSITIVE),
        ("z_max", 1e8, lambda x: 1.0 < x < math.inf),
    ):
        out += _cases(
            "JointLimitMap",
            bot,
            scalar_muts(base, valid),
            lambda v, p=pname: jlm_run(**{p: v}),
            check_velocity(nv),
            (pname,),
            f"{pname}=",
        )

    def run_jl(val):
        conf = conf_of(bot, q)
        return taskik.solve_ik(
            conf, base_tasks(bot, conf, target_q), 0.01,
            limits=[taskik.ConfigurationLimit(model)], backend="dls", joint_limit_map=val,
        )  # fmt: skip

    out += _cases(
        "solve_ik backend=dls",
        bot,
        (
            ("joint_limit_map='threshold'", "threshold", REJECT),
            ("joint_limit_map=None", None, ANY),
            ("joint_limit_map=3", 3, REJECT),
        ),
        lambda v: partial(run_jl, v),
        check_velocity(nv),
        ("joint_limit_map",),
    )

    # ---- solve_ik / build_ik leftovers
    def call(fn: Callable[..., Any], dt: Any = 0.01, **kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            conf = conf_of(bot, q)
            return fn(conf, base_tasks(bot, conf, target_q), dt, **kw)

        return run

    for label, run, exp, chk in (
        ("solver='osqp', unknown option foo=1", call(taskik.solve_ik, solver="osqp", foo=1),
         REJECT, check_velocity(nv)),
        ("solver='osqp', eps_abs=nan", call(taskik.solve_ik, solver="osqp", eps_abs=math.nan),
         REJECT, check_velocity(nv)),
        ("solver='osqp'", call(taskik.solve_ik, solver="osqp"), ANY, check_velocity(nv)),
        ("dt=5e-324", call(taskik.build_ik, dt=5e-324), ANY, check_problem(nv)),
        ("dt=1e-310 (subnormal)", call(taskik.build_ik, dt=1e-310), ANY, check_problem(nv)),
    ):  # fmt: skip
        entry = "build_ik" if label.startswith("dt") else "solve_ik"
        out.append(
            Case(entry, label, run, exp, chk, ("solver", "option", "foo", "eps", "dt"), bot.name)
        )
    # ---- solve_posture regularization given as a task, a number
    frame = bot.frames[0]
    goal = conf_of(bot, target_q).get_transform_frame_to_world(frame)

    def run_reg(val):
        if val == "posture":
            val = _posture_task(bot)
        elif val == "other":
            val = [_posture_task(other)]
        t = taskik.FrameTask(frame)
        t.set_target(goal)
        return taskik.solve_posture(
            model, [t], regularization=val, max_iterations=3, max_searches=1, rng=0
        )

    out += _cases(
        "solve_posture",
        bot,
        (
            ("regularization=<a PostureTask> (not a list)", "posture", ANY),
            ("regularization=5", 5, REJECT),
            ("regularization=[]", [], ACCEPT),
            ("regularization=None", None, ACCEPT),
            ("regularization=[PostureTask of another model]", "other", REJECT),
        ),
        lambda v: partial(run_reg, v),
        check_q_result(model),
        ("regularization", "task", "posture", "target", "q"),
    )

    # ---- select= with more values
    def run_sel(val):
        t = taskik.FrameTask(frame)
        t.set_target(goal)
        return taskik.solve_posture(
            model, [t], q0=q, select=val, max_iterations=3, max_searches=2, rng=0
        )

    out += _cases(
        "solve_posture",
        bot,
        (
            ("select='nearest' with q0", "nearest", ACCEPT),
            ("select=np.str_('first')", np.str_("first"), ACCEPT),
            ("select=b'first'", b"first", REJECT),
            ("select=np.array(['first'])", np.array(["first"]), REJECT),
            ("select=lambda", lambda q: 0.0, REJECT),
        ),
        lambda v: partial(run_sel, v),
        check_q_result(model),
        ("select",),
    )

    # ---- posture.damping_matrix / step_direction (the formulas of solve_posture's methods)
    if bot.name in ("ur5", "planar_2r"):
        from taskik.posture import damping_matrix, step_direction

        A = np.array(conf_of(bot, q).get_frame_jacobian(frame)).reshape(6, nv)
        c = rng.normal(0.0, 0.1, 6)

        def step_check(dq: Any) -> str | None:
            return finite_array((nv,))(dq)

        for label, args, exp in (
            ("lm-chan", ("lm-chan", A, c, 0.5, 1e-3), ACCEPT),
            ("lm-sugihara, w_bar per joint", ("lm-sugihara", A, c, 0.5, np.full(nv, 1e-3)),
             ACCEPT),
            ("gn-pinv", ("gn-pinv", A, c, 0.5, 0.0), ACCEPT),
            ("method='x'", ("x", A, c, 0.5, 1e-3), REJECT),
            ("A None", ("lm-chan", None, c, 0.5, 1e-3), REJECT),
            ("c of the wrong length", ("lm-chan", A, c[:3], 0.5, 1e-3), REJECT),
            ("NaN in A", ("lm-chan", A * math.nan, c, 0.5, 1e-3), REJECT),
            ("damping='a'", ("lm-wampler", A, c, 0.5, "a"), REJECT),
        ):  # fmt: skip
            out.append(
                Case(
                    "posture.step_direction",
                    label,
                    (lambda args=args: step_direction(*args)),
                    exp,
                    step_check,
                    ("method", "a ", "c ", "shape", "nan", "damping", "jacobian"),
                    bot.name,
                )
            )
        out += _cases(
            "posture.damping_matrix",
            bot,
            (
                ("lm-wampler", ("lm-wampler", 0.5, nv, 1e-3), ACCEPT),
                ("method='x'", ("x", 0.5, nv, 1e-3), REJECT),
                ("nv=-1", ("lm-chan", 0.5, -1, 1e-3), REJECT),
                ("damping=None", ("lm-chan", 0.5, nv, None), REJECT),
            ),
            lambda v: lambda: damping_matrix(*v),
            finite_array((nv, nv)),
            ("method", "nv", "damping"),
        )

    # ---- report and hierarchy_report with the new tasks and limits
    def new_tasks(conf: taskik.Configuration) -> list[Any]:
        t = base_tasks(bot, conf, target_q)
        m = taskik.ManipulabilityTask(frame, 0.5)
        k = taskik.KineticEnergyTask(1e-3)
        lo = taskik.LowAccelerationTask(1e-3)
        a = taskik.AxisAlignmentTask(frame, direction=[0.0, 0.0, 1.0], cost=0.1)
        return [*t, m, k, lo, a]

    def new_limits() -> list[Any]:
        lims: list[Any] = [
            *taskik.limits.default_limits(model),
            taskik.AccelerationLimit(model, 5.0),
        ]
        if joints:
            lims.append(taskik.FrozenJoints(model, joints[:1]))
        return lims

    def run_rep() -> Any:
        conf = conf_of(bot, q)
        t = new_tasks(conf)
        lims = new_limits()
        v = taskik.solve_ik(conf, t, 0.01, limits=lims)
        return taskik.report(conf, t, 0.01, v, limits=lims)

    def run_hrep() -> Any:
        conf = conf_of(bot, q)
        t = new_tasks(conf)
        levels = [t[:1], t[1:]]
        lims = new_limits()
        v = taskik.solve_ik(conf, levels, 0.01, limits=lims)
        return taskik.hierarchy_report(conf, levels, 0.01, v, limits=lims)

    out.append(
        Case("report", "new tasks and limits", run_rep, ACCEPT, finite_report(), (), bot.name)
    )
    out.append(
        Case(
            "hierarchy_report",
            "new tasks and limits",
            run_hrep,
            ACCEPT,
            finite_report(2),
            (),
            bot.name,
        )
    )
    # ---- robots
    if bot.name == "ur5":
        out.append(
            Case(
                "robots.list",
                "valid",
                taskik.robots.list,
                ACCEPT,
                lambda names: (
                    None
                    if isinstance(names, list) and "ur5" in names
                    else "robots.list() misses ur5"
                ),
                (),
                bot.name,
            )
        )
        urdf = w.tmp / "tiny.urdf"
        for label, dirs, exp in (
            ("'models' (one folder as a string)", str(w.tmp), ACCEPT),  # documented form
            ("3", 3, REJECT),
            ("[]", [], ANY),
            ("[missing dir]", [str(w.tmp / "nope")], ANY),
        ):
            out.append(
                Case(
                    "robots.load_urdf",
                    f"package_dirs={label}",
                    (lambda d=dirs: taskik.robots.load_urdf(urdf, package_dirs=d)),
                    exp,
                    None,
                    ("package_dirs",),
                    bot.name,
                )
            )
        crossed = w.tmp / "crossed.urdf"
        crossed.write_text(URDF.replace('lower="-2" upper="2"', 'lower="2" upper="-2"', 1))
        zero_axis = w.tmp / "zero_axis.urdf"
        zero_axis.write_text(URDF.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>', 1))
        nan_limit = w.tmp / "nan_limit.urdf"
        nan_limit.write_text(URDF.replace('lower="-2"', 'lower="nan"', 1))
        for label, path in (
            ("a joint with lower > upper", crossed),
            ("a joint with a zero axis", zero_axis),
            ("a joint limit of NaN", nan_limit),
        ):
            out.append(
                Case(
                    "robots.load_urdf",
                    f"path={label}",
                    (lambda p=path: taskik.robots.load_urdf(p)),
                    REJECT,
                    None,
                    ("joint", "limit", "axis", "lower", "upper", "urdf"),
                    bot.name,
                )
            )
        out += _cases(
            "robots.load_urdf",
            bot,
            (
                ("srdf missing", str(w.tmp / "missing.srdf"), REJECT),
                ("srdf=3", 3, REJECT),
                ("srdf malformed", str(w.bad_urdf), REJECT),
            ),
            lambda v: lambda: taskik.robots.load_urdf(urdf, srdf=v),
            None,
            ("srdf", "file", "path"),
        )
    return out


# ---------------------------------------------------------------------------- batch
#: Options of the batch cases (small searches: a problem takes milliseconds).
BATCH_OPTIONS: dict[str, Any] = {"max_searches": 2, "max_iterations": 8}


def plain_loop(
    model: pin.Model, frame: str, targets: Any, seed: int, options: dict[str, Any]
) -> dict[str, np.ndarray]:
    """What ``solve_poses`` documents it computes, as a plain loop of ``solve_posture``."""
    rows: dict[str, list[Any]] = {k: [] for k in ("q", "success", "iterations", "searches")}
    rows["error"] = []
    for i, T in enumerate(targets):
        task = taskik.FrameTask(frame)
        task.set_target(T if isinstance(T, pin.SE3) else pin.SE3(np.asarray(T, dtype=float)))
        r = taskik.solve_posture(model, [task], rng=taskik.batch.problem_seed(seed, i), **options)
        rows["q"].append(r.q)
        rows["success"].append(r.success)
        rows["iterations"].append(r.iterations)
        rows["searches"].append(r.searches)
        rows["error"].append(r.error)
    return {k: np.array(v) for k, v in rows.items()}


def check_batch(
    model: pin.Model, frame: str, targets: Any, options: dict[str, Any]
) -> Callable[[Any], str | None]:
    """A BatchResult equal, bit for bit, to the plain loop (every problem answered once)."""

    def check(res: Any) -> str | None:
        if not isinstance(res, taskik.batch.BatchResult):
            return f"not a BatchResult: {type(res).__name__}"
        tg = list(targets() if callable(targets) else targets)
        size = len(tg)
        if res.q.shape != (size, model.nq):
            return f"wrong shape: q {res.q.shape} instead of {(size, model.nq)}"
        for name in ("success", "iterations", "searches", "error", "time"):
            if getattr(res, name).shape != (size,):
                return f"wrong shape: {name} {getattr(res, name).shape}"
        if not np.isfinite(res.q).all() or not np.isfinite(res.error).all():
            return "NaN/inf in result"
        ref = plain_loop(model, frame, tg, res.seed, options)
        for name, want in ref.items():
            got = getattr(res, name)
            if not np.array_equal(got, want):
                diff = got != want
                bad = np.flatnonzero(diff.reshape(size, -1).any(axis=1))
                return f"batch answer differs from a plain loop (problems {bad[:5].tolist()})"
        return None

    return check


@generator
def gen_batch(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """solve_poses: every argument mutated, answers against a plain loop of solve_posture;
    outputs that cannot be written; resumes from damaged parts; BatchResult load and save."""
    if not _heavy_round(w, bot, ("ur5", "planar_2r", "humanoid")):
        return []
    from taskik.batch.problems import make_job, solve_chunk
    from taskik.batch.result import FIELDS
    from taskik.batch.store import Store

    model = bot.model
    frame = bot.frames[0]
    n = 3
    targets = np.array(
        [conf_of(bot, bot.random_q(rng)).get_transform_frame_to_world(frame).homogeneous
         for _ in range(n)]
    )  # fmt: skip
    out: list[Case] = []
    robot: Any = taskik.robots.load(bot.name) if bot.name in taskik.robots.list() else model
    opts = dict(BATCH_OPTIONS)
    ok = check_batch(model, frame, targets, opts)
    tmp = Path(w.tmp) / f"batch_{bot.name}_{w.round}"
    tmp.mkdir(exist_ok=True)
    counter = iter(range(10**9))

    def fresh(suffix: str = ".npz") -> Path:
        return tmp / f"out{next(counter)}{suffix}"

    def solve(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            args: dict[str, Any] = {"workers": 1, **opts}
            args.update(kw)
            rob = args.pop("robot", robot)
            fr = args.pop("frame", frame)
            tg = args.pop("targets", targets)
            if callable(tg):
                tg = tg()
            if isinstance(args.get("output"), str) and args["output"] == "fresh":
                args["output"] = fresh()
            return taskik.batch.solve_poses(rob, fr, tg, **args)

        return run

    def add(label: str, run: Callable[[], Any], exp: str, check: Any, names: tuple) -> None:
        out.append(Case("batch.solve_poses", label, run, exp, check, names, bot.name))

    add("valid", solve(), ACCEPT, ok, ())
    add("workers=2", solve(workers=2), ACCEPT, ok, ())
    add("workers=2, chunk_size=1", solve(workers=2, chunk_size=1), ACCEPT, ok, ())
    add("output=a new .npz", solve(output="fresh"), ACCEPT, ok, ())
    for label, rob, exp in (
        ("Robot or model", robot, ACCEPT),
        ("pin.Model", model, ACCEPT),
        ("None", None, REJECT),
        ("'ur5'", "ur5", REJECT),
        ("Data", model.createData(), REJECT),
        ("Configuration", conf_of(bot), REJECT),
    ):
        add(f"robot={label}", solve(robot=rob), exp, ok, ("robot", "model"))
    for m in name_muts(frame, nframes=model.nframes):
        add(f"frame={m.label}", solve(frame=m.value), m.expect, ok, ("frame",))
    bad_rot = targets.copy()
    bad_rot[1, :3, :3] *= 1.5
    nan_t = targets.copy()
    nan_t[2, 0, 3] = math.nan
    bottom = targets.copy()
    bottom[0, 3] = [0.1, 0.0, 0.0, 1.0]
    huge = targets.copy()
    huge[0, 0, 3] = 1e300
    for label, tg, exp, chk in (
        ("N x 4 x 4", targets, ACCEPT, ok),
        ("list of pin.SE3", [pin.SE3(T) for T in targets], ACCEPT, ok),
        ("list of 4x4 lists", [T.tolist() for T in targets], ANY, ok),
        ("one 4x4 (no N)", targets[0], REJECT, None),
        ("a rotation scaled by 1.5", bad_rot, REJECT, None),
        ("NaN in a translation", nan_t, REJECT, None),
        ("bottom row not [0 0 0 1]", bottom, REJECT, None),
        ("1e300 in a translation", huge, ANY, check_batch(model, frame, huge, opts)),
        ("transposed", np.transpose(targets, (0, 2, 1)).copy(), REJECT, None),
        ("N x 3 x 4", targets[:, :3].copy(), REJECT, None),
        ("empty (0 x 4 x 4)", np.zeros((0, 4, 4)), ANY, check_batch(model, frame, [], opts)),
        ("None", None, REJECT, None),
        ("'abc'", "abc", REJECT, None),
        ("[SE3, None]", [pin.SE3(targets[0]), None], REJECT, None),
        ("complex", targets.astype(complex), REJECT, None),
        ("a generator of SE3", lambda: (pin.SE3(T) for T in targets), ANY, ok),
        ("7-vectors [p, quat]", np.array([pin.SE3ToXYZQUAT(pin.SE3(T)) for T in targets]),
         REJECT, None),
    ):  # fmt: skip
        add(f"targets={label}", solve(targets=tg), exp, chk, ("target", "pose", "index"))
    for label, val, exp in option_muts(("local",), ("x", None, "LOCAL")):
        add(f"engine={label}", solve(engine=val), exp, ok, ("engine",))
    for label, val, exp in (
        ("np.int64(1)", np.int64(1), ACCEPT),
        ("0", 0, REJECT),
        ("-1", -1, REJECT),
        ("1.5", 1.5, REJECT),
        ("True", True, REJECT),
        ("'2'", "2", REJECT),
        ("None (every core)", None, ACCEPT),
    ):
        add(f"workers={label}", solve(workers=val), exp, ok, ("workers",))
    for label, val, exp in (
        ("1", 1, ACCEPT),
        ("10**6", 10**6, ACCEPT),
        ("0", 0, REJECT),
        ("-1", -1, REJECT),
        ("1.5", 1.5, REJECT),
        ("True", True, REJECT),
        ("'a'", "a", REJECT),
        ("None", None, ACCEPT),
    ):
        add(f"chunk_size={label}", solve(chunk_size=val), exp, ok, ("chunk_size",))
    for label, val, exp in (
        ("7", 7, ACCEPT),
        ("np.int64(3)", np.int64(3), ACCEPT),
        ("None (drawn)", None, ACCEPT),
        ("-1", -1, REJECT),
        ("1.5", 1.5, REJECT),
        ("'a'", "a", REJECT),
        ("True", True, REJECT),
        ("2**70", 2**70, ANY),
    ):
        add(f"seed={label}", solve(seed=val), exp, ok, ("seed",))
    for label, kw, exp in (
        ("tol=1e-8", {"tol": 1e-8}, ACCEPT),
        ("method='x'", {"method": "x"}, REJECT),
        ("tol=nan", {"tol": math.nan}, REJECT),
        ("rng=0", {"rng": 0}, REJECT),
        ("q0=...", {"q0": bot.q0}, REJECT),
        ("foo=1", {"foo": 1}, REJECT),
        ("max_searches=0", {"max_searches": 0}, REJECT),
        ("select='nearest'", {"select": "nearest"}, ANY),
        ("regularization=[]", {"regularization": []}, ANY),
    ):
        o = {**opts, **kw}
        chk = check_batch(model, frame, targets, o) if exp != REJECT else None
        names = (*kw, "option", "solve_posture", "per problem")
        add(f"option {label}", solve(**kw), exp, chk, names)
    add("progress=True", solve(progress=True), ACCEPT, ok, ())
    add("progress='yes'", solve(progress="yes"), ANY, ok, ("progress",))
    # ---- outputs that cannot be written, or are not paths
    a_file = tmp / "a_file"
    a_file.write_text("x")
    for label, path, exp in (
        ("under /proc (unwritable)", "/proc/taskik_fuzz/out.npz", REJECT),
        ("an existing directory", str(tmp), REJECT),
        ("under a missing directory", str(tmp / "missing" / "out.npz"), ANY),
        ("under a file", str(a_file / "out.npz"), REJECT),
        ("3", 3, REJECT),
        ("''", "", REJECT),
        ("suffix .txt", "fresh_txt", ANY),
        ("an existing garbage file", "garbage", REJECT),
    ):

        def run_out(path=path):
            if path == "fresh_txt":
                path = fresh(".txt")
            elif path == "garbage":
                path = fresh()
                Path(path).write_bytes(b"not a zip file at all")
            return solve(output=path)()

        add(f"output={label}", run_out, exp, ok, ("output", "path", "file", "write", "director"))

    # ---- resume from the parts of an earlier run, some damaged
    def resume(damage: str) -> Callable[[], Any]:
        def run() -> Any:
            path = fresh()
            job = make_job(model, frame, targets, 0, opts)
            store = Store(path, job)
            values = solve_chunk(job, 0, n)
            for a, b in ((0, 1), (1, 2)):
                store.write(a, b, {k: values[k][a:b] for k in FIELDS})
            files = sorted(store.parts.glob("*-*.npz"))
            if damage == "truncated":
                data = files[0].read_bytes()
                files[0].write_bytes(data[: len(data) // 2])
            elif damage == "corrupted":
                data = bytearray(files[0].read_bytes())
                for i in range(len(data) // 3, len(data) // 3 + 64):
                    data[i] ^= 0xFF
                files[0].write_bytes(bytes(data))
            elif damage == "too few rows":
                # a part named for problems 0..3 holding the row of problem 0 only
                files[0].rename(store.parts / f"{0:010d}-{3:010d}.npz")
                files[1].unlink()
            elif damage == "values changed":
                with np.load(files[1]) as f:
                    vals = {k: f[k].copy() for k in FIELDS}
                vals["q"] += 0.5
                with open(files[1], "wb") as fh:
                    np.savez(fh, **vals)
            elif damage == "overlapping parts":
                store.write(0, 2, {k: values[k][0:2] for k in FIELDS})
            elif damage == "a stray file":
                (store.parts / "notes-here.npz").write_bytes(b"hello")
            elif damage == "manifest garbage":
                (store.parts / "job.json").write_text("{not json")
            elif damage == "manifest of another job":
                (store.parts / "job.json").write_text('{"key": "x", "size": 3}')
            store.close()
            # a damaged part is announced by a RuntimeWarning that names it and says its
            # problems are solved again: the documented behaviour, not a defect; any other
            # warning goes on to the classifier
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = taskik.batch.solve_poses(
                    robot, frame, targets, output=path, workers=1, **opts
                )
            for w in caught:
                announced = issubclass(w.category, RuntimeWarning) and (
                    "solved again" in str(w.message) or "damaged" in str(w.message)
                )
                if not announced:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            return result

        return run

    for damage, exp in (
        ("none", ACCEPT),
        ("truncated", ANY),
        ("corrupted", ANY),
        ("too few rows", ANY),
        ("values changed", ANY),
        ("overlapping parts", ANY),
        ("a stray file", ANY),
        ("manifest garbage", ANY),
        ("manifest of another job", REJECT),
    ):
        add(
            f"resume, part files: {damage}",
            resume(damage),
            exp,
            ok,
            ("part", "job", "output", "chunk", "different"),
        )

    def rerun_same() -> Any:
        path = fresh()
        solve(output=path)()
        return solve(output=path)()

    add("output of the same job again (read back)", rerun_same, ACCEPT, ok, ())

    def rerun_other() -> Any:
        path = fresh()
        solve(output=path)()
        return solve(output=path, seed=5)()

    add("output of another job", rerun_other, REJECT, None, ("different", "job", "output"))
    # ---- BatchResult.load / save, problem_seed
    good = fresh()
    npz_other = fresh()
    np.savez(npz_other, a=np.zeros(3))

    def make_good() -> None:
        if not good.exists():
            taskik.batch.solve_poses(robot, frame, targets[:1], workers=1, **opts).save(good)

    def run_load(path):
        make_good()
        return taskik.batch.BatchResult.load(path)

    out += _cases(
        "batch.BatchResult.load",
        bot,
        (
            ("a saved result", good, ACCEPT),
            ("missing file", tmp / "missing.npz", REJECT),
            ("a directory", tmp, REJECT),
            ("garbage bytes", a_file, REJECT),
            ("an npz of other arrays", npz_other, REJECT),
            ("None", None, REJECT),
            ("3", 3, REJECT),
        ),
        lambda v: partial(run_load, v),
        lambda r: (
            None
            if isinstance(r, taskik.batch.BatchResult) and len(r) == 1
            else "not the saved result"
        ),
        ("path", "file", "result", "read", "npz"),
        "path=",
    )

    def run_save(path):
        make_good()
        r = taskik.batch.BatchResult.load(good)
        return r.save(fresh() if path == "fresh" else path)

    out += _cases(
        "batch.BatchResult.save",
        bot,
        (
            ("a new path", "fresh", ACCEPT),
            ("under /proc (unwritable)", "/proc/taskik_fuzz/r.npz", REJECT),
            ("a directory", str(tmp), REJECT),
            ("None", None, REJECT),
        ),
        lambda v: partial(run_save, v),
        lambda p: None if Path(p).is_file() else "no file written",
        ("path", "file", "write", "save", "director"),
        "path=",
    )
    out += _cases(
        "batch.problem_seed",
        bot,
        (
            ("(0, 0)", (0, 0), ACCEPT),
            ("(7, 5)", (7, 5), ACCEPT),
            ("(-1, 0)", (-1, 0), REJECT),
            ("(0, -1)", (0, -1), REJECT),
            ("(1.5, 0)", (1.5, 0), REJECT),
            ("('a', 0)", ("a", 0), REJECT),
            ("(None, 0)", (None, 0), REJECT),
            ("(0, 2**40)", (0, 2**40), ANY),
        ),
        lambda v: lambda: taskik.batch.problem_seed(*v),
        lambda s: (
            None
            if isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 0
            else f"not a seed: {s!r}"
        ),
        ("seed", "index"),
        "seed, index=",
    )
    return out


# ------------------------------------------------------------------------- retarget
def check_retarget(model: pin.Model, n: int, k: int) -> Callable[[Any], str | None]:
    """A RetargetResult of n frames and k keypoints: finite, q within the position limits."""
    lo = np.asarray(model.lowerPositionLimit, dtype=float)
    hi = np.asarray(model.upperPositionLimit, dtype=float)
    bounded = np.isfinite(lo) & np.isfinite(hi) & (np.abs(lo) < 1e10) & (np.abs(hi) < 1e10)

    def check(res: Any) -> str | None:
        from taskik.retarget import RetargetResult

        if not isinstance(res, RetargetResult):
            return f"not a RetargetResult: {type(res).__name__}"
        if res.q.shape != (n, model.nq):
            return f"wrong shape: q {res.q.shape} instead of {(n, model.nq)}"
        if not np.isfinite(res.q).all():
            return "NaN/inf in retargeted q"
        if res.position_errors.shape != (n, k) or not np.isfinite(res.position_errors).all():
            return "position errors of the wrong shape or not finite"
        tol = 1e-6
        q = res.q[:, bounded]
        if ((q < lo[bounded] - tol) | (q > hi[bounded] + tol)).any():
            return "retargeted q outside the joint limits"
        for qq in res.q:
            if not np.allclose(pin.normalize(model, qq.copy()), qq, atol=1e-6):
                return "retargeted q not normalised"
        return None

    return check


@generator
def gen_retarget(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """retarget, retarget_many, clip_from_arrays, load_mapping, load_clip / save_clip,
    load_result, estimate_scale: every argument mutated; results within the joint limits."""
    if not _heavy_round(w, bot, ("ur5", "panda", "humanoid")):
        return []
    import json

    from taskik import retarget as rt

    model = bot.model
    robot = taskik.robots.load(bot.name)
    frames = bot.frames[:2]
    k = len(frames)
    conf0 = conf_of(bot)
    start = np.array([conf0.get_transform_frame_to_world(f).translation for f in frames])
    n = 3
    moves = rng.normal(0.0, 0.05, (n, k, 3))
    moves[0] = 0.0
    positions = start[None] + np.cumsum(moves, axis=0)
    names = tuple(f"kp{i}" for i in range(k))
    pairs = list(zip(names, frames, strict=True))
    mapping = {"scale": 1.0, "tasks": [{"keypoint": a, "frame": f} for a, f in pairs]}
    clip = rt.clip_from_arrays(names, positions, 30.0)
    tmp = Path(w.tmp) / f"retarget_{bot.name}_{w.round}"
    tmp.mkdir(exist_ok=True)
    clip_npz = rt.save_clip(clip, tmp / "clip.npz")
    clip_csv = rt.save_clip(clip, tmp / "clip.csv")
    map_json = tmp / "map.json"
    map_json.write_text(json.dumps(mapping))
    map_yaml = tmp / "map.yaml"
    map_yaml.write_text(
        "scale: 1.0\ntasks:\n" + "".join(f"  - keypoint: {a}\n    frame: {f}\n" for a, f in pairs)
    )
    bad_json = tmp / "bad.json"
    bad_json.write_text("{not json")
    garbage = tmp / "garbage.npz"
    garbage.write_bytes(b"not a zip")
    a_file = tmp / "a_file"
    a_file.write_text("x")
    counter = iter(range(10**9))
    ok = check_retarget(model, n, k)
    out: list[Case] = []
    base_kw: dict[str, Any] = {"steps": 2, "first_steps": 4}

    def run_rt(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            args = {"robot": robot, "clip": clip, "mapping": mapping, **base_kw}
            args.update(kw)
            return rt.retarget(args.pop("robot"), args.pop("clip"), args.pop("mapping"), **args)

        return run

    def add(entry: str, label: str, run: Callable[[], Any], exp: str, chk: Any, nm: tuple) -> None:
        out.append(Case(entry, label, run, exp, chk, nm, bot.name))

    for label, val, exp in (
        ("Robot", robot, ACCEPT),
        (f"{bot.name!r}", bot.name, ACCEPT),
        ("'nope'", "nope", REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
        ("pin.Model", model, ANY),
    ):
        add("retarget.retarget", f"robot={label}", run_rt(robot=val), exp, ok, ("robot",))
    for label, val, exp in (
        ("Clip", clip, ACCEPT),
        (".npz path", clip_npz, ACCEPT),
        (".csv path", str(clip_csv), ACCEPT),
        ("missing path", tmp / "missing.npz", REJECT),
        ("a directory", tmp, REJECT),
        ("garbage .npz", garbage, REJECT),
        (".txt path", a_file, REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
    ):
        add("retarget.retarget", f"clip={label}", run_rt(clip=val), exp, ok,
            ("clip", "file", "path"))  # fmt: skip
    t0 = {"keypoint": names[0], "frame": frames[0]}
    for label, val, exp in (
        ("dict", mapping, ACCEPT),
        (".json path", map_json, ACCEPT),
        (".yaml path", str(map_yaml), ACCEPT),
        ("RetargetMapping", rt.load_mapping(mapping), ACCEPT),
        ("missing path", tmp / "missing.json", REJECT),
        ("bad JSON", bad_json, REJECT),
        ("a directory", tmp, REJECT),
        ("{} (no tasks)", {}, REJECT),
        ("tasks=[]", {"tasks": []}, REJECT),
        ("tasks='abc'", {"tasks": "abc"}, REJECT),
        ("an unknown frame", {"tasks": [{**t0, "frame": "nope"}]}, REJECT),
        ("an unknown keypoint", {"tasks": [{**t0, "keypoint": "nope"}]}, REJECT),
        ("an unknown key", {**mapping, "colour": "red"}, REJECT),
        ("scale=-1", {**mapping, "scale": -1.0}, REJECT),
        ("scale=nan", {**mapping, "scale": math.nan}, REJECT),
        ("scale='a'", {**mapping, "scale": "a"}, REJECT),
        ("position_cost=-1", {"tasks": [{**t0, "position_cost": -1.0}]}, REJECT),
        ("an orientation asked of a keypoint without one",
         {"tasks": [{**t0, "orientation_cost": 1.0}]}, REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
        ("a list", [1, 2], REJECT),
    ):  # fmt: skip
        add(
            "retarget.retarget",
            f"mapping={label}",
            run_rt(mapping=val),
            exp,
            ok,
            ("mapping", "task", "frame", "keypoint", "scale", "cost", "orientation", "json",
             "file", "key"),
        )  # fmt: skip
    for pname in ("steps", "first_steps"):
        for m in scalar_muts(2.0, lambda x: x >= 1 and float(x).is_integer() and x < 1e4):
            exp = m.expect
            if isinstance(m.value, float | np.floating) and exp == ACCEPT:
                exp = ANY  # 2.0 for a count
            if m.label == "200000000000000.0":
                continue  # a valid count of 2e14 steps would run for days
            add("retarget.retarget", f"{pname}={m.label}", run_rt(**{pname: m.value}), exp, ok,
                (pname,))  # fmt: skip
    for m in vector_muts(robot.q0, allow_none=True):
        add("retarget.retarget", f"q_start={m.label}", run_rt(q_start=m.value), m.expect, ok,
            ("q_start", "q"))  # fmt: skip
    for label, val, exp in option_muts(("daqp", None), ("nope", 3)):
        add("retarget.retarget", f"solver={label}", run_rt(solver=val), exp, ok, ("solver",))
    seen: list[tuple[int, int]] = []
    for label, val, exp in (
        ("a callable", lambda i, m: seen.append((i, m)), ACCEPT),
        ("3", 3, REJECT),
    ):
        add("retarget.retarget", f"progress={label}", run_rt(progress=val), exp, ok,
            ("progress",))  # fmt: skip
    for label, mk, exp in (
        ("()", lambda: (), ACCEPT),
        ("[VelocityLimit]", lambda: [taskik.VelocityLimit(model)], ACCEPT),
        ("[None]", lambda: [None], REJECT),
        ("'abc'", lambda: "abc", REJECT),
        ("[VelocityLimit(other model)]", lambda: [taskik.VelocityLimit(w.other(bot).model)],
         REJECT),
        ("None", lambda: None, REJECT),
    ):  # fmt: skip

        def run_lim(mk=mk):
            return run_rt(limits=mk())()

        add("retarget.retarget", f"limits={label}", run_lim, exp, ok, ("limit",))
    # ---- clip_from_arrays
    quats = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))

    def clip_ok(c: Any) -> str | None:
        return None if isinstance(c, rt.Clip) and c.n_frames == n else "not the clip"

    def cfa(**kw: Any) -> Callable[[], Any]:
        args: dict[str, Any] = {"names": names, "positions": positions, "fps": 30.0}
        args.update(kw)
        return lambda: rt.clip_from_arrays(
            args.pop("names"), args.pop("positions"), args.pop("fps"), **args
        )

    for label, val, exp in (
        ("tuple", names, ACCEPT),
        ("list", list(names), ACCEPT),
        ("[]", [], REJECT),
        ("repeated", [names[0]] * k, REJECT if k > 1 else ACCEPT),
        ("[3, ...]", [3, *names[1:]], REJECT),
        ("one str", names[0], REJECT),
        ("None", None, REJECT),
        ("['', ...]", ["", *names[1:]], REJECT),
    ):
        add("retarget.clip_from_arrays", f"names={label}", cfa(names=val), exp, clip_ok,
            ("name", "keypoint"))  # fmt: skip
    nan_p = positions.copy()
    nan_p[1, 0, 2] = math.nan
    for label, val, exp in (
        ("(N, K, 3)", positions, ACCEPT),
        ("nested list", positions.tolist(), ACCEPT),
        ("NaN", nan_p, REJECT),
        ("(N, K+1, 3)", np.zeros((n, k + 1, 3)), REJECT),
        ("(N, K, 2)", positions[..., :2].copy(), REJECT),
        ("2-D", positions[:, 0].copy(), REJECT),
        ("no frames", np.zeros((0, k, 3)), REJECT),
        ("complex", positions + 1j, REJECT),
        ("'abc'", "abc", REJECT),
        ("None", None, REJECT),
        ("bool", positions > 0, REJECT),
        ("int", np.ones((n, k, 3), dtype=int), ACCEPT),
    ):
        add("retarget.clip_from_arrays", f"positions={label}", cfa(positions=val), exp, clip_ok,
            ("position", "frame"))  # fmt: skip
    for m in scalar_muts(30.0, POSITIVE):
        add("retarget.clip_from_arrays", f"fps={m.label}", cfa(fps=m.value), m.expect, clip_ok,
            ("fps",))  # fmt: skip
    for label, val, exp in (
        ("{kp: unit quaternions}", {names[0]: quats}, ACCEPT),
        ("{kp: quaternions of norm 2}", {names[0]: quats * 2.0}, REJECT),
        ("{kp: (N, 3)}", {names[0]: quats[:, :3]}, REJECT),
        ("{kp: NaN}", {names[0]: quats * math.nan}, REJECT),
        ("{unknown: ...}", {"nope": quats}, REJECT),
        ("{kp: 'abc'}", {names[0]: "abc"}, REJECT),
        ("'abc'", "abc", REJECT),
        ("{3: ...}", {3: quats}, REJECT),
        ("[quats]", [quats], REJECT),
    ):
        add("retarget.clip_from_arrays", f"orientations={label}", cfa(orientations=val), exp,
            clip_ok, ("orientation", "quaternion", "keypoint"))  # fmt: skip
    for label, val, exp in (
        ("{kp: bools}", {names[0]: np.array([True, False, True])}, ACCEPT),
        ("{kp: 0/1 ints}", {names[0]: np.array([1, 0, 1])}, ACCEPT),
        ("{kp: 0.5}", {names[0]: np.full(n, 0.5)}, REJECT),
        ("{kp: 2}", {names[0]: np.full(n, 2)}, REJECT),
        ("{kp: wrong length}", {names[0]: np.ones(n + 1, dtype=bool)}, REJECT),
        ("{unknown: ...}", {"nope": np.ones(n, dtype=bool)}, REJECT),
        ("'abc'", "abc", REJECT),
    ):
        add("retarget.clip_from_arrays", f"contacts={label}", cfa(contacts=val), exp, clip_ok,
            ("contact", "keypoint"))  # fmt: skip
    # ---- files: load_mapping, load_clip, save_clip, load_result, RetargetResult.save
    json_list = tmp / "list.json"
    json_list.write_text("[1, 2]")
    for label, val, exp in (
        ("dict", mapping, ACCEPT),
        (".json", map_json, ACCEPT),
        (".yaml", map_yaml, ACCEPT),
        ("missing", tmp / "missing.json", REJECT),
        ("bad JSON", bad_json, REJECT),
        ("directory", tmp, REJECT),
        (".npz (unknown format)", clip_npz, REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
        ("bytes path", str(map_json).encode(), REJECT),
        ("a JSON list", json_list, REJECT),
    ):
        add("retarget.load_mapping", f"source={label}", (lambda val=val: rt.load_mapping(val)),
            exp, lambda m: None if isinstance(m, rt.RetargetMapping) else "not a mapping",
            ("mapping", "file", "json", "path", "format"))  # fmt: skip
    bad_csv = tmp / "bad.csv"
    bad_csv.write_text("a,b\n1,zz\n")
    other_npz = tmp / "other.npz"
    np.savez(other_npz, a=np.zeros(2))
    for label, val, exp in (
        (".npz", clip_npz, ACCEPT),
        (".csv", clip_csv, ACCEPT),
        ("missing", tmp / "missing.npz", REJECT),
        ("garbage .npz", garbage, REJECT),
        ("bad csv", bad_csv, REJECT),
        ("directory", tmp, REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
        ("an npz of other arrays", other_npz, REJECT),
    ):
        add("retarget.load_clip", f"path={label}", (lambda val=val: rt.load_clip(val)), exp,
            clip_ok, ("clip", "file", "path", "csv", "npz", "column", "array"))  # fmt: skip
    for label, val, exp in (
        (".npz", "new.npz", ACCEPT),
        (".csv", "new.csv", ACCEPT),
        (".txt", "new.txt", REJECT),
        ("under /proc", "/proc/taskik_fuzz/c.npz", REJECT),
        ("a directory", "DIR", REJECT),
        ("None", None, REJECT),
        ("under a missing directory", "missing/c.npz", ANY),
        ("clip=None", "clip=None", REJECT),
    ):

        def run_sc(val=val):
            what: Any = clip
            if val == "DIR":
                val = tmp
            elif val == "clip=None":
                what, val = None, tmp / f"{next(counter)}.npz"
            elif isinstance(val, str) and not val.startswith("/"):
                val = tmp / f"{next(counter)}_{val}"
            return rt.load_clip(rt.save_clip(what, val))

        add("retarget.save_clip", f"path={label}", run_sc, exp, clip_ok,
            ("path", "file", "write", "clip", "suffix", "format", "director"))  # fmt: skip
    res_path = tmp / "result.npz"

    def saved_result() -> Path:
        if not res_path.exists():
            rt.retarget(robot, clip, mapping, **base_kw).save(res_path)
        return res_path

    for label, val, exp in (
        ("a saved result", "RES", ACCEPT),
        ("missing", tmp / "missing.npz", REJECT),
        ("garbage", garbage, REJECT),
        ("a clip file", clip_npz, REJECT),
        ("directory", tmp, REJECT),
        ("None", None, REJECT),
    ):

        def run_lr(val=val):
            saved_result()
            return rt.load_result(res_path if val == "RES" else val)

        add("retarget.load_result", f"path={label}", run_lr, exp, ok,
            ("result", "file", "path", "npz", "array"))  # fmt: skip
    for label, val, exp in (
        ("a new path", "new", ACCEPT),
        ("under /proc", "/proc/taskik_fuzz/r.npz", REJECT),
        ("a directory", "DIR", REJECT),
        ("None", None, REJECT),
    ):

        def run_rs(val=val):
            r = rt.load_result(saved_result())
            if val == "new":
                val = tmp / f"r{next(counter)}.npz"
            elif val == "DIR":
                val = tmp
            return rt.load_result(r.save(val))

        add("retarget.RetargetResult.save", f"path={label}", run_rs, exp, ok,
            ("path", "file", "write", "director"))  # fmt: skip
    pts = rng.normal(0.0, 1.0, (4, 3))
    for label, a, b, exp in (
        ("valid", pts, pts * 0.5, ACCEPT),
        ("flat keypoints", np.zeros((4, 3)), pts, REJECT),
        ("NaN", pts * math.nan, pts, REJECT),
        ("shapes differ", pts, pts[:3], REJECT),
        ("None", None, pts, REJECT),
        ("'abc'", "abc", pts, REJECT),
    ):
        add("retarget.estimate_scale", label, (lambda a=a, b=b: rt.estimate_scale(a, b)), exp,
            check_scalar(0.0), ("scale", "keypoint", "shape", "point"))  # fmt: skip

    # ---- retarget_many
    def run_many(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            args: dict[str, Any] = {
                "robot": robot, "clips": [clip_npz], "mapping": mapping,
                "output_dir": tmp / f"many{next(counter)}", "workers": 1, **base_kw,
            }  # fmt: skip
            args.update(kw)
            if callable(args["clips"]):
                args["clips"] = args["clips"]()
            return rt.retarget_many(
                args.pop("robot"), args.pop("clips"), args.pop("mapping"),
                args.pop("output_dir"), **args,
            )  # fmt: skip

        return run

    def many_ok(batch: Any) -> str | None:
        if not isinstance(batch, rt.RetargetBatch):
            return f"not a RetargetBatch: {type(batch).__name__}"
        for s in batch.clips:
            why = ok(rt.load_result(s.output))
            if why:
                return why
        return None

    (tmp / "other").mkdir(exist_ok=True)
    same_stem = rt.save_clip(clip, tmp / "other" / "clip.npz")
    for label, val, exp in (
        ("[npz]", [clip_npz], ACCEPT),
        ("[npz, csv] (one stem)", [clip_npz, clip_csv], REJECT),
        ("two clips of one stem in two folders", [clip_npz, same_stem], REJECT),
        ("[]", [], ANY),
        ("[missing]", [tmp / "missing.npz"], REJECT),
        ("a str (not a list)", str(clip_npz), REJECT),
        ("None", None, REJECT),
        ("[3]", [3], REJECT),
        ("[garbage .npz]", [garbage], REJECT),
        ("a generator", lambda: (p for p in [clip_npz]), ANY),
    ):
        add("retarget.retarget_many", f"clips={label}", run_many(clips=val), exp, many_ok,
            ("clip", "file", "stem", "path"))  # fmt: skip
    for label, val, exp in (
        ("a file", a_file, REJECT),
        ("under /proc", "/proc/taskik_fuzz/out", REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
    ):
        add("retarget.retarget_many", f"output_dir={label}", run_many(output_dir=val), exp,
            many_ok, ("output", "folder", "director", "path"))  # fmt: skip
    for label, kw, exp in (
        ("workers=2", {"workers": 2}, ACCEPT),
        ("workers=0", {"workers": 0}, REJECT),
        ("workers=1.5", {"workers": 1.5}, REJECT),
        ("workers='a'", {"workers": "a"}, REJECT),
        ("engine='x'", {"engine": "x"}, REJECT),
        ("steps=0", {"steps": 0}, REJECT),
        ("foo=1", {"foo": 1}, REJECT),
        ("robot='nope'", {"robot": "nope"}, REJECT),
        ("mapping=bad JSON", {"mapping": bad_json}, REJECT),
        ("progress=True", {"progress": True}, ACCEPT),
    ):
        add("retarget.retarget_many", label, run_many(**kw), exp, many_ok,
            (*kw, "option", "robot", "mapping", "json"))  # fmt: skip

    def many_equal() -> Any:
        batch = run_many()()
        ref = rt.retarget(robot, clip_npz, mapping, **base_kw)
        got = rt.load_result(batch.clips[0].output)
        if not np.array_equal(got.q, ref.q):
            return "retarget_many output differs from retarget"
        return None

    add("retarget.retarget_many", "output equal to retarget's", many_equal, ACCEPT,
        lambda why: why, ())  # fmt: skip
    return out


# ----------------------------------------------------------------- plots, command line
def check_png(res: Any) -> str | None:
    """A path to a PNG file that was written."""
    p = Path(res) if isinstance(res, str | os.PathLike) else None
    if p is None or not p.is_file():
        return f"no file written: {res!r}"
    if p.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        return "the file written is not a PNG"
    return None


@generator
def gen_plots(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """plot_task_errors, plot_joint_trajectories, Recorder: every argument mutated."""
    if not _heavy_round(w, bot, ("ur5", "planar_2r")):  # a figure takes seconds
        return []
    from taskik import plots

    model = bot.model
    tmp = Path(w.tmp) / f"plots_{bot.name}_{w.round}"
    tmp.mkdir(exist_ok=True)
    counter = iter(range(10**9))
    T = 5
    times = np.linspace(0.0, 0.4, T)
    errs = {"a": np.abs(rng.normal(0.0, 1.0, T)), "b": np.abs(rng.normal(0.0, 1.0, T))}
    qs = np.array([bot.random_q(rng) for _ in range(T)])
    joints = _one_dof_joints(model)
    out: list[Case] = []

    def png(name: str = "p.png") -> Path:
        return tmp / f"{next(counter)}_{name}"

    a_file = tmp / "a_file"
    a_file.write_text("x")
    paths: list[tuple[str, Any, str]] = [
        ("a new .png", "NEW", ACCEPT),
        (".jpg", "NEW.jpg", REJECT),
        ("no suffix", "NEW.", REJECT),
        ("under /proc", "/proc/taskik_fuzz/p.png", REJECT),
        ("a directory named x.png", "DIR", REJECT),
        ("under a file", str(a_file / "p.png"), REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
    ]

    def path_of(val: Any) -> Any:
        if val == "NEW":
            return png()
        if val == "NEW.jpg":
            return png("p.jpg")
        if val == "NEW.":
            return png("p")
        if val == "DIR":
            d = png()
            d.mkdir()
            return d
        return val

    def pte(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            args: dict[str, Any] = {"times": times, "errors": errs, "path": "NEW"}
            args.update(kw)
            args["path"] = path_of(args["path"])
            return plots.plot_task_errors(args.pop("times"), args.pop("errors"), **args)

        return run

    def pjt(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            args: dict[str, Any] = {"times": times, "qs": qs, "model": model, "path": "NEW"}
            args.update(kw)
            args["path"] = path_of(args["path"])
            return plots.plot_joint_trajectories(
                args.pop("times"), args.pop("qs"), args.pop("model"), **args
            )

        return run

    names = ("path", "png", "file", "write", "director", "suffix")
    for label, val, exp in paths:
        out.append(Case("plots.plot_task_errors", f"path={label}", pte(path=val), exp,
                        check_png, names, bot.name))  # fmt: skip
        out.append(Case("plots.plot_joint_trajectories", f"path={label}", pjt(path=val), exp,
                        check_png, names, bot.name))  # fmt: skip
    for label, val, exp in (
        ("valid", times, ACCEPT),
        ("list", times.tolist(), ACCEPT),
        ("one entry short", times[:-1], REJECT),
        ("empty", np.zeros(0), REJECT),
        ("NaN entry", np.where(np.arange(T) == 1, math.nan, times), ANY),
        ("2-D", times[None], REJECT),
        ("None", None, REJECT),
        ("'abc'", "abc", REJECT),
        ("complex", times + 1j, REJECT),
    ):
        for entry, fn in (
            ("plots.plot_task_errors", pte),
            ("plots.plot_joint_trajectories", pjt),
        ):
            out.append(Case(entry, f"times={label}", fn(times=val), exp, check_png,
                            ("times", "time", "entry", "sample"), bot.name))  # fmt: skip
    for label, val, exp in (
        ("{}", {}, REJECT),
        ("{'a': wrong length}", {"a": np.ones(T + 1)}, REJECT),
        ("{'a': 'abc'}", {"a": "abc"}, REJECT),
        ("{'a': NaN values}", {"a": np.full(T, math.nan)}, ANY),
        ("{'a': negative values}", {"a": -np.ones(T)}, ANY),
        ("None", None, REJECT),
        ("a list", [np.ones(T)], REJECT),
        ("{3: values}", {3: np.ones(T)}, ANY),
        ("{'a': 2-D}", {"a": np.ones((T, 2))}, REJECT),
    ):
        out.append(Case("plots.plot_task_errors", f"errors={label}", pte(errors=val), exp,
                        check_png, ("error", "times", "entry"), bot.name))  # fmt: skip
    for label, val, exp in (
        ("title=None", {"title": None}, ANY),
        ("title=3", {"title": 3}, ANY),
        ("log=False", {"log": False}, ACCEPT),
        ("log='yes'", {"log": "yes"}, ANY),
    ):
        out.append(Case("plots.plot_task_errors", label, pte(**val), exp, check_png,
                        ("title", "log"), bot.name))  # fmt: skip
    other = w.other(bot)
    for label, val, exp in (
        ("(T, nq+1)", np.hstack([qs, qs[:, :1]]), REJECT),
        ("1-D", qs[0], REJECT),
        ("NaN", np.where(np.arange(qs.size).reshape(qs.shape) == 0, math.nan, qs), ANY),
        ("None", None, REJECT),
        ("'abc'", "abc", REJECT),
        ("list of arrays", list(qs), ACCEPT),
    ):
        out.append(Case("plots.plot_joint_trajectories", f"qs={label}", pjt(qs=val), exp,
                        check_png, ("qs", "nq", "configuration", "shape"), bot.name))  # fmt: skip
    for label, val, exp in (
        ("another robot's model", other.model, REJECT),
        ("None", None, REJECT),
        ("'ur5'", "ur5", REJECT),
    ):
        out.append(Case("plots.plot_joint_trajectories", f"model={label}", pjt(model=val), exp,
                        check_png, ("model", "qs", "nq"), bot.name))  # fmt: skip
    for label, val, exp in (
        ("[a joint]", joints[:1], ACCEPT),
        ("['nope']", ["nope"], REJECT),
        ("a joint name as a str", joints[0], REJECT),
        ("[3]", [3], REJECT),
        ("[]", [], REJECT),
        ("None (all)", None, ACCEPT),
    ):
        out.append(Case("plots.plot_joint_trajectories", f"joints={label}", pjt(joints=val),
                        exp, check_png, ("joint",), bot.name))  # fmt: skip
    # ---- Recorder
    frame = bot.frames[0]
    goal = conf_of(bot, bot.random_q(rng)).get_transform_frame_to_world(frame)

    def task() -> Any:
        t = taskik.FrameTask(frame)
        t.set_target(goal)
        return t

    own = object()

    def rec(tasks: Any, t: Any = 0.0, conf: Any = own, plot: str = "errors") -> Callable:
        def run() -> Any:
            r = plots.Recorder(tasks() if callable(tasks) else tasks)
            for i in range(3):
                c = conf_of(bot, qs[i]) if conf is own else conf
                r.record(t if i == 0 else 0.01 * i, c)
            p = png()
            return r.plot_task_errors(p) if plot == "errors" else r.plot_joints(p)

        return run

    for label, val, exp in (
        ("[FrameTask]", lambda: [task()], ACCEPT),
        ("[FrameTask, FrameTask]", lambda: [task(), task()], ACCEPT),
        ("[]", [], REJECT),
        ("None", None, REJECT),
        ("[None]", [None], REJECT),
        ("'abc'", "abc", REJECT),
        ("[FrameTask without target]", lambda: [taskik.FrameTask(frame)], REJECT),
    ):
        out.append(Case("plots.Recorder", f"tasks={label}", rec(val), exp, check_png,
                        ("task", "target", "error"), bot.name))  # fmt: skip
    for m in scalar_muts(0.0, lambda x: math.isfinite(x)):
        out.append(Case("plots.Recorder.record", f"t={m.label}", rec(lambda: [task()], t=m.value),
                        m.expect, check_png, ("t", "time"), bot.name))  # fmt: skip
    for label, val, exp in (
        ("None", None, REJECT),
        ("a q vector", qs[0], REJECT),
        ("the model", model, REJECT),
        ("a Configuration of another robot", conf_of(other), REJECT),
    ):
        out.append(Case("plots.Recorder.record", f"configuration={label}",
                        rec(lambda: [task()], conf=val), exp, check_png,
                        ("configuration", "frame", "model"), bot.name))  # fmt: skip
    out.append(Case("plots.Recorder.plot_joints", "after three records",
                    rec(lambda: [task()], plot="joints"), ACCEPT, check_png, (),
                    bot.name))  # fmt: skip

    def empty_plot() -> Any:
        return plots.Recorder([task()]).plot_task_errors(png())

    out.append(Case("plots.Recorder.plot_task_errors", "nothing recorded", empty_plot, REJECT,
                    check_png, ("nothing", "sample", "record"), bot.name))  # fmt: skip
    return out


class CliError(taskik.TaskikError):
    """A non-zero exit status of the command line, with what it printed to stderr."""


def cli_run(argv: list[str], check_file: Path | None = None) -> Callable[[], Any]:
    """``taskik.cli.main(argv)`` with its output captured: exit 0 returns the output; another
    status raises :class:`CliError` carrying stderr (a message that names the problem or not,
    as for a TaskikError); any exception escaping ``main`` is the command line's own."""
    import contextlib
    import io

    def run() -> Any:
        from taskik import cli

        so, se = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
            try:
                code = cli.main([str(a) for a in argv])
            except SystemExit as exc:  # argparse: usage errors, --help, --version
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if code:
            raise CliError(se.getvalue().strip() or so.getvalue().strip())
        return (so.getvalue(), check_file)

    return run


def check_cli(res: Any) -> str | None:
    text, path = res
    if path is not None and not Path(path).is_file():
        return f"exit 0 but {path} not written"
    return None


@generator
def gen_cli(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The ``taskik`` command line: robots, demo, bench, view, batch, retarget; bad
    arguments, missing and unwritable files. Exit 0 must have written the output."""
    if not _heavy_round(w, bot, ("ur5",)):
        return []
    import json

    from taskik import retarget as rt

    frame = bot.frames[0]
    tmp = Path(w.tmp) / f"cli_{w.round}"
    tmp.mkdir(exist_ok=True)
    targets = np.array(
        [conf_of(bot, bot.random_q(rng)).get_transform_frame_to_world(frame).homogeneous
         for _ in range(2)]
    )  # fmt: skip
    good = tmp / "targets.npz"
    np.savez(good, targets=targets)
    other_key = tmp / "poses.npz"
    np.savez(other_key, poses=targets, extra=np.zeros(2))
    bad_shape = tmp / "bad_shape.npz"
    np.savez(bad_shape, targets=targets[:, :3])
    nan_npz = tmp / "nan.npz"
    t2 = targets.copy()
    t2[0, 0, 3] = math.nan
    np.savez(nan_npz, targets=t2)
    garbage = tmp / "garbage.npz"
    garbage.write_bytes(b"not a zip")
    counter = iter(range(10**9))

    def o(suffix: str = ".npz") -> Path:
        return tmp / f"o{next(counter)}{suffix}"

    out: list[Case] = []

    def add(label: str, argv: list[Any], exp: str, names: tuple, written: Path | None = None):
        out.append(Case("cli", label, cli_run(argv, written), exp, check_cli, names, bot.name))

    add("robots", ["robots"], ACCEPT, ())
    add("--version", ["--version"], ACCEPT, ())
    add("no command", [], ANY, ("command", "usage"))
    add("an unknown command", ["nope"], REJECT, ("invalid choice", "nope", "usage"))
    add("demo --list", ["demo", "--list"], ACCEPT, ())
    add("demo nope", ["demo", "nope"], REJECT, ("example", "nope"))
    add("bench --list", ["bench", "--list"], ACCEPT, ())
    add("bench --calls 0", ["bench", "--calls", "0"], REJECT, ("calls",))
    add("bench --calls -3", ["bench", "--calls", "-3"], REJECT, ("calls",))
    add("bench --calls x", ["bench", "--calls", "x"], REJECT, ("calls", "invalid"))
    add("bench nope", ["bench", "nope"], REJECT, ("benchmark", "nope", "script"))
    add("view nope", ["view", "nope"], REJECT, ("robot", "nope"))
    fresh = o()
    add("batch (valid)", ["batch", "ur5", frame, good, "-o", fresh, "-q", "--max-searches", "2"],
        ACCEPT, (), fresh)  # fmt: skip
    base = ["batch", "ur5", frame]
    for label, argv, exp, names in (
        ("batch --key poses", [*base, other_key, "-o", o(), "-q", "--key", "poses"], ACCEPT, ()),
        ("batch, a missing input", [*base, tmp / "missing.npz", "-o", o(), "-q"], REJECT,
         ("missing", "read", "file", "no such")),
        ("batch, a garbage input", [*base, garbage, "-o", o(), "-q"], REJECT,
         ("read", "npz", "zip")),
        ("batch, an input without 'targets'", [*base, other_key, "-o", o(), "-q"], REJECT,
         ("targets", "key")),
        ("batch, --key nope", [*base, good, "-o", o(), "-q", "--key", "nope"], REJECT,
         ("nope", "key")),
        ("batch, targets N x 3 x 4", [*base, bad_shape, "-o", o(), "-q"], REJECT,
         ("target", "shape", "4")),
        ("batch, a NaN target", [*base, nan_npz, "-o", o(), "-q"], REJECT,
         ("target", "nan", "finite")),
        ("batch, an unknown frame", ["batch", "ur5", "nope", good, "-o", o(), "-q"], REJECT,
         ("frame", "nope")),
        ("batch, an unknown robot", ["batch", "nope", frame, good, "-o", o(), "-q"], REJECT,
         ("robot", "nope")),
        ("batch --workers 0", [*base, good, "-o", o(), "-q", "--workers", "0"], REJECT,
         ("workers",)),
        ("batch --chunk-size -1", [*base, good, "-o", o(), "-q", "--chunk-size", "-1"], REJECT,
         ("chunk",)),
        ("batch --seed -1", [*base, good, "-o", o(), "-q", "--seed", "-1"], REJECT, ("seed",)),
        ("batch --tol nan", [*base, good, "-o", o(), "-q", "--tol", "nan"], REJECT, ("tol",)),
        ("batch --method x", [*base, good, "-o", o(), "-q", "--method", "x"], REJECT,
         ("method",)),
        ("batch -o under /proc", [*base, good, "-o", "/proc/taskik_fuzz/o.npz", "-q"], REJECT,
         ("output", "write", "file", "director", "path")),
        ("batch -o a directory", [*base, good, "-o", tmp, "-q"], REJECT,
         ("output", "director", "file", "path")),
        ("batch without -o", [*base, good, "-q"], REJECT, ("output", "-o")),
        ("batch --engine x", [*base, good, "-o", o(), "-q", "--engine", "x"], REJECT,
         ("engine", "invalid choice")),
    ):  # fmt: skip
        add(label, argv, exp, names)
    # ---- retarget
    frames = bot.frames[:1]
    conf0 = conf_of(bot)
    p0 = conf0.get_transform_frame_to_world(frames[0]).translation
    positions = p0[None, None] + rng.normal(0.0, 0.02, (3, 1, 3))
    clip = rt.clip_from_arrays(("kp",), positions, 30.0)
    clip_path = rt.save_clip(clip, tmp / "clip.npz")
    mapping = tmp / "map.json"
    mapping.write_text(
        json.dumps({"scale": 1.0, "tasks": [{"keypoint": "kp", "frame": frames[0]}]})
    )
    bad_map = tmp / "bad.json"
    bad_map.write_text("{oops")
    r_out = o()
    rbase = ["retarget", "--robot", "ur5", "--mapping", mapping, "--steps", "2"]
    add("retarget (valid)", [*rbase, clip_path, r_out], ACCEPT, (), r_out)
    d_out = tmp / f"dir{next(counter)}"
    add("retarget --output-dir (valid)", [*rbase, clip_path, "--output-dir", d_out, "--workers",
        "1"], ACCEPT, (), None)  # fmt: skip
    for label, argv, exp, names in (
        ("retarget, a missing clip", [*rbase, tmp / "missing.npz", o()], REJECT,
         ("clip", "missing", "not found")),
        ("retarget, a garbage clip", [*rbase, garbage, o()], REJECT, ("clip", "read", "npz")),
        ("retarget, a bad mapping", ["retarget", "--robot", "ur5", "--mapping", bad_map,
         clip_path, o()], REJECT, ("mapping", "json")),
        ("retarget, a missing mapping", ["retarget", "--robot", "ur5", "--mapping",
         tmp / "none.json", clip_path, o()], REJECT, ("mapping", "not found")),
        ("retarget, an unknown robot", ["retarget", "--robot", "nope", "--mapping", mapping,
         clip_path, o()], REJECT, ("robot", "nope")),
        ("retarget --steps 0", [*rbase[:-2], "--steps", "0", clip_path, o()], REJECT,
         ("steps",)),
        ("retarget --first-steps -1", [*rbase, "--first-steps", "-1", clip_path, o()], REJECT,
         ("first_steps", "first-steps")),
        ("retarget, output under /proc", [*rbase, clip_path, "/proc/taskik_fuzz/r.npz"],
         REJECT, ("output", "write", "path", "file", "director")),
        ("retarget, output a directory", [*rbase, clip_path, tmp], REJECT,
         ("output", "director", "path", "file")),
        ("retarget, output .txt", [*rbase, clip_path, o(".txt")], ANY,
         ("output", "suffix", "npz")),
        ("retarget, one path only", [*rbase, clip_path], REJECT, ("input", "output")),
        ("retarget, three paths", [*rbase, clip_path, clip_path, o()], REJECT,
         ("input", "output")),
        ("retarget without --robot", ["retarget", "--mapping", mapping, clip_path, o()],
         REJECT, ("robot",)),
        ("retarget --output-dir a file", [*rbase, clip_path, "--output-dir", garbage],
         REJECT, ("output", "folder", "file")),
        ("retarget --workers 0", [*rbase, clip_path, "--output-dir", tmp / "d0", "--workers",
         "0"], REJECT, ("workers",)),
    ):  # fmt: skip
        add(label, argv, exp, names)
    return out


def check_shapes(njoints: int | None) -> Callable[[Any], str | None]:
    """A list of viewer Shapes (or an (anchor, shapes) pair) with finite placements and
    sizes, on joints of the model."""

    def check(res: Any) -> str | None:
        from taskik.viewer import Shape

        anchor = None
        if isinstance(res, tuple):
            anchor, res = res
            if not isinstance(anchor, pin.SE3) or not np.isfinite(anchor.homogeneous).all():
                return "anchor not a finite SE3"
        if not isinstance(res, list) or not all(isinstance(s, Shape) for s in res):
            return f"not a list of Shapes: {type(res).__name__}"
        for s in res:
            if not np.isfinite(s.placement.homogeneous).all():
                return f"NaN/inf in the placement of {s.name}"
            sizes = [s.radius, s.length, *(getattr(s, "size", None) or ())]
            if not all(math.isfinite(float(x)) and float(x) >= 0 for x in sizes):
                return f"NaN/inf or negative size of {s.name}"
            if njoints is not None and not 0 <= s.joint < njoints:
                return f"shape {s.name} on joint {s.joint} of a model of {njoints} joints"
        return None

    return check


@generator
def gen_viewer(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The viewer's drawing functions (no server): skeleton_shapes, geometry_shapes,
    robot_shapes, obstacle_shapes."""
    if bot.name not in ("ur5", "planar_2r", "humanoid"):
        return []
    from taskik import viewer

    model = bot.model
    robot = taskik.robots.load(bot.name)
    caps = taskik.geometry.fit_capsules(model, 0.03)
    ok = check_shapes(model.njoints)
    out: list[Case] = []

    def add(entry: str, label: str, run: Callable[[], Any], exp: str, chk: Any, names: tuple):
        out.append(Case(entry, label, run, exp, chk, names, bot.name))

    for m in scalar_muts(0.03, POSITIVE, allow_none=True):
        add("viewer.skeleton_shapes", f"radius={m.label}",
            (lambda r=m.value: viewer.skeleton_shapes(model, r)), m.expect, ok,
            ("radius",))  # fmt: skip
    for label, val in (("None", None), ("'ur5'", "ur5"), ("Data", model.createData())):
        add("viewer.skeleton_shapes", f"model={label}",
            (lambda v=val: viewer.skeleton_shapes(v)), REJECT, ok, ("model",))  # fmt: skip
    for label, val, exp in (
        ("Robot", robot, ACCEPT),
        ("None", None, REJECT),
        ("'ur5'", "ur5", REJECT),
        ("pin.Model", model, REJECT),
    ):
        add("viewer.robot_shapes", f"robot={label}", (lambda v=val: viewer.robot_shapes(v)),
            exp, ok, ("robot",))  # fmt: skip
    for label, val, exp in (
        ("capsules", caps, ACCEPT),
        ("None", None, REJECT),
        ("pin.Model", model, REJECT),
        ("'abc'", "abc", REJECT),
    ):
        add("viewer.geometry_shapes", f"geometry_model={label}",
            (lambda v=val: viewer.geometry_shapes(v)), exp, ok, ("geometry",))  # fmt: skip
    for label, val, exp in (
        ("a callable", lambda i, n: None, ACCEPT),
        ("3", 3, REJECT),
    ):
        add("viewer.geometry_shapes", f"progress={label}",
            (lambda v=val: viewer.geometry_shapes(caps, v)), exp, ok, ("progress",))  # fmt: skip
    tip = conf_of(bot).get_transform_frame_to_world(bot.frames[0]).translation
    for obs in _shapes(np.random.default_rng(7), tip):  # (the shared rng left untouched)
        add("viewer.obstacle_shapes", f"obstacle={obs.kind}",
            (lambda o=obs: viewer.obstacle_shapes(o)), ACCEPT, check_shapes(None), ())  # fmt: skip
    for label, val in (("None", None), ("'abc'", "abc"), ("a coal.Sphere", "coal")):

        def run_bad(val=val):
            if val == "coal":
                import coal

                val = coal.Sphere(0.1)
            return viewer.obstacle_shapes(val)

        add("viewer.obstacle_shapes", f"obstacle={label}", run_bad, REJECT, check_shapes(None),
            ("obstacle",))  # fmt: skip
    plane = taskik.geometry.halfspace("h", [0.0, 0.0, 1.0], -0.5)
    for m in scalar_muts(4.0, POSITIVE):
        add("viewer.obstacle_shapes", f"extent={m.label}",
            (lambda e=m.value: viewer.obstacle_shapes(plane, e)), m.expect, check_shapes(None),
            ("extent",))  # fmt: skip
    return out


# --------------------------------------------------------------- taskik.mjcf (MuJoCo)
class MjcfWorld:
    """The MJCF model of the mjcf cases: Pinocchio's, and MuJoCo's when MuJoCo is installed
    (``mujoco`` None otherwise: the cases that need it are not generated)."""

    def __init__(self, tmp: Path) -> None:
        path = tmp / "mjcf_ball_arm.xml"
        path.write_text(BALL_ARM)
        self.path = path
        self.model = pin.buildModelFromMJCF(str(path))
        try:
            import mujoco
        except ImportError:
            self.mujoco: Any = None
            self.mj_model: Any = None
        else:
            self.mujoco = mujoco
            self.mj_model = mujoco.MjModel.from_xml_path(str(path))

    def mj_data(self) -> Any:
        data = self.mujoco.MjData(self.mj_model)
        self.mujoco.mj_forward(self.mj_model, data)
        return data


_MJCF_WORLDS: dict[Path, MjcfWorld] = {}


def mjcf_world(w: World) -> MjcfWorld:
    if w.tmp not in _MJCF_WORLDS:
        _MJCF_WORLDS[w.tmp] = MjcfWorld(w.tmp)
    return _MJCF_WORLDS[w.tmp]


def mocap_pose(pos: Any, quat: Any) -> pin.SE3:
    """The pose a mocap body's ``mocap_pos``, ``mocap_quat`` (w, x, y, z) stand for."""
    w_, x, y, z = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    return pin.SE3(pin.Quaternion(w_, x, y, z).matrix(), np.asarray(pos, dtype=float))


def check_read_back(
    forward: Callable[[Any], Any], asked: np.ndarray
) -> Callable[[Any], str | None]:
    """A finite vector that the inverse conversion turns back into the one asked."""
    base = finite_array(asked.shape)

    def check(x: Any) -> str | None:
        why = base(x)
        if why is None and not np.allclose(forward(x), asked, rtol=0, atol=1e-12):
            return "converted back, not the vector asked"
        return why

    return check


class _MocapData:
    """Stands for MuJoCo's data with two mocap bodies (what SE3.from_mocap_id reads)."""

    def __init__(self, pos: Any = None, quat: Any = None) -> None:
        c = math.cos(math.pi / 8)
        s = math.sin(math.pi / 8)
        self.mocap_pos = np.array([[0.1, 0.2, 0.3], [0.5, -0.2, 0.9]]) if pos is None else pos
        self.mocap_quat = np.array([[1.0, 0, 0, 0], [2 * c, 0, 0, 2 * s]]) if quat is None else quat


@generator
def gen_mjcf(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """taskik.mjcf: q_from_qpos and qpos_from_q on every robot (read back), and, on the
    humanoid's rounds, the MJCF model's mocap targets (mocap_se3, SE3.from_mocap_id,
    SE3.from_mocap_name against the pose written), move_mocap_to_frame (read back as the
    site's pose), write_configuration and MujocoMirror (MuJoCo's site where Pinocchio puts
    it), Configuration(mirror=...) and DampingTask(model, cost); those that need MuJoCo only
    where it is installed."""
    from taskik import mjcf

    out: list[Case] = []
    model = bot.model
    other = w.other(bot).model

    def add(entry: str, label: str, run: Callable[[], Any], expect: str, check, names, robot):
        out.append(Case(entry, label, run, expect, check, names, robot))

    # ---- qpos <-> q on this robot (a model with a joint MuJoCo lacks is refused: ANY)
    q = bot.random_q(rng)
    plain = all(
        j.shortname() in ("JointModelFreeFlyer", "JointModelSpherical") or j.nq == j.nv
        for j in model.joints[1:]
    )
    if plain:
        qpos = mjcf.qpos_from_q(model, q)
        for entry, fn, back, base in (
            ("mjcf.q_from_qpos", mjcf.q_from_qpos, mjcf.qpos_from_q, qpos),
            ("mjcf.qpos_from_q", mjcf.qpos_from_q, mjcf.q_from_qpos, q),
        ):
            for m in vector_muts(base):
                check = (
                    check_read_back(lambda x, b=back: b(model, x), base)
                    if m.label == "valid ndarray"
                    else finite_array((model.nq,))
                )
                label = f"read back, {m.label}" if m.label == "valid ndarray" else m.label
                add(entry, f"vector={label}", (lambda f=fn, v=m.value: f(model, v)), m.expect,
                    check, ("qpos", "q", "shape", "finite", "real", "number", "numeric"),
                    bot.name)  # fmt: skip
            for label, bad in (("None", None), ("'robot'", "robot"), ("another model", other)):
                add(entry, f"model={label}", (lambda f=fn, mm=bad, v=base: f(mm, v)),
                    REJECT, None, ("model", "shape", "pinocchio"), bot.name)  # fmt: skip
    if bot.name != "humanoid":
        return out

    mw = mjcf_world(w)
    arm = mw.model
    robot = "mjcf_ball_arm"
    # ---- SE3.from_mocap_id and mocap_se3 on data stand-ins (MuJoCo not needed)
    stand_in_model = type("M", (), {"nmocap": 2})()
    expected = mocap_pose(_MocapData().mocap_pos[1], _MocapData().mocap_quat[1])
    index_muts = [
        Mut("1", 1, ACCEPT),
        Mut("np.int64(1)", np.int64(1), ACCEPT),
        Mut("2 (out of range)", 2, REJECT),
        Mut("-1", -1, REJECT),
        Mut("True", True, REJECT),
        Mut("1.0", 1.0, REJECT),
        Mut("None", None, REJECT),
        Mut("[1]", [1], REJECT),
        Mut("'1'", "1", REJECT),
    ]
    for m in index_muts:
        add("SE3.from_mocap_id", f"mocap_id={m.label}",
            (lambda i=m.value: taskik.SE3.from_mocap_id(_MocapData(), i)), m.expect,
            check_se3(expected), ("mocap",), robot)  # fmt: skip
        if m.value != "1":  # (a name is looked up in MuJoCo's model: below)
            add("mjcf.mocap_se3", f"mocap={m.label}",
                (lambda i=m.value: mjcf.mocap_se3(stand_in_model, _MocapData(), i)), m.expect,
                check_se3(expected), ("mocap",), robot)  # fmt: skip
    data_muts = [
        Mut("NaN in mocap_pos", _MocapData(pos=np.array([[0, 0, 0], [np.nan, 0, 0]])), REJECT),
        Mut("inf in mocap_quat", _MocapData(quat=np.array([[1, 0, 0, 0], [np.inf, 0, 0, 0]])),
            REJECT),
        Mut("zero quaternion", _MocapData(quat=np.zeros((2, 4))), REJECT),
        Mut("mocap_pos of 2 columns", _MocapData(pos=np.zeros((2, 2))), REJECT),
        Mut("mocap_quat of 3 columns", _MocapData(quat=np.ones((2, 3))), REJECT),
        Mut("one mocap body", _MocapData(pos=np.zeros((1, 3)), quat=np.ones((1, 4))), REJECT),
        Mut("strings in mocap_pos", _MocapData(pos=[["a"] * 3] * 2), REJECT),
        Mut("None", None, REJECT),
        Mut("'data'", "data", REJECT),
        Mut("a dict", {"mocap_pos": np.zeros((2, 3))}, REJECT),
    ]  # fmt: skip
    for m in data_muts:
        names = ("mocap", "data", "quaternion", "mjdata")
        add("SE3.from_mocap_id", f"data={m.label}",
            (lambda d=m.value: taskik.SE3.from_mocap_id(d, 1)), m.expect, None, names,
            robot)  # fmt: skip
        add("mjcf.mocap_se3", f"data={m.label}",
            (lambda d=m.value: mjcf.mocap_se3(stand_in_model, d, 1)), m.expect, None, names,
            robot)  # fmt: skip
    for label, bad in (
        ("None", None),
        ("'model'", "model"),
        ("nmocap='2'", type("M", (), {"nmocap": "2"})()),
    ):
        add("mjcf.mocap_se3", f"mj_model={label}",
            (lambda mm=bad: mjcf.mocap_se3(mm, _MocapData(), 1)), REJECT, None,
            ("mj_model", "mjmodel"), robot)  # fmt: skip
    # ---- without MuJoCo's model: what needs no MuJoCo refuses clearly
    for args, label in (((None, None, "target", "tip", "site"), "mj_model=None"),
                        ((None, None, "target", "tip", "joint"), "frame_type='joint'"),
                        ((None, None, 3, "tip", "site"), "mocap_name=3")):  # fmt: skip
        add("move_mocap_to_frame", label, (lambda a=args: taskik.move_mocap_to_frame(*a)),
            REJECT, None, ("mj_model", "frame_type", "mocap_name"), robot)  # fmt: skip
    # ---- DampingTask(model, cost): mink's call, the free joint's velocities undamped
    nv = model.nv
    weights = np.ones(nv)
    weights[:6] = 0.0

    def damping_check(asked: Any) -> Callable[[Any], str | None]:
        def check(task: Any) -> str | None:
            if not isinstance(task, taskik.DampingTask):
                return f"not a DampingTask: {type(task).__name__}"
            given = np.asarray(asked, dtype=float).reshape(-1)
            expected_cost = np.broadcast_to(given if given.size == nv else given[:1], nv)
            if not np.array_equal(task.cost, expected_cost * weights):
                return "cost differs from mink's (the free joint undamped)"
            return None

        return check

    for m in merge(scalar_muts(0.5, NONNEG), vector_muts(0.5 * np.ones(nv), scalar_ok=True)):
        expect = ACCEPT if m.label == "[0.5]" else m.expect  # (mink's cost of shape (1,))
        add("DampingTask(model, cost)", f"cost={m.label}",
            (lambda c=m.value: taskik.DampingTask(model, c)), expect, damping_check(m.value),
            ("cost",), bot.name)  # fmt: skip
    for label, bad in (
        ("'humanoid'", "humanoid"),
        ("an array", np.ones(3)),
        ("object()", object()),
    ):
        add("DampingTask(model, cost)", f"model={label}",
            (lambda mm=bad: taskik.DampingTask(model=mm, cost=0.5)), REJECT, None,
            ("model",), bot.name)  # fmt: skip
    # ---- Configuration(mirror=...): a mirror without write is refused
    for label, bad in (("object()", object()), ("'mujoco'", "mujoco"), ("3", 3)):
        add("Configuration(mirror=)", f"mirror={label}",
            (lambda mm=bad: taskik.Configuration(model, q, mirror=mm)), REJECT, None,
            ("mirror",), bot.name)  # fmt: skip
    if mw.mujoco is None:
        return out
    # ---- with MuJoCo: names, move_mocap_to_frame, write_configuration, MujocoMirror
    mj_model = mw.mj_model
    arm_q = taskik.robots.random_configuration(arm, pin.neutral(arm), rng)
    conf = taskik.Configuration(arm, arm_q)
    target_pose = mocap_pose(mj_model.body("target").pos, mj_model.body("target").quat)
    for m in name_muts("target"):
        if m.label == "-1" or isinstance(m.value, int) and not isinstance(m.value, bool):
            expect = REJECT if m.value != 0 else ACCEPT
        else:
            expect = m.expect
        add("SE3.from_mocap_name", f"mocap_name={m.label}",
            (lambda n=m.value: taskik.SE3.from_mocap_name(mj_model, mw.mj_data(), n)),
            REJECT if not isinstance(m.value, str) else expect, check_se3(target_pose),
            ("mocap", "body", "name"), robot)  # fmt: skip
        add("mjcf.mocap_se3", f"mocap={m.label}",
            (lambda n=m.value: mjcf.mocap_se3(mj_model, mw.mj_data(), n)), expect,
            check_se3(target_pose), ("mocap", "body", "name"), robot)  # fmt: skip
    add("SE3.from_mocap_name", "mocap_name='plain' (not a mocap body)",
        lambda: taskik.SE3.from_mocap_name(mj_model, mw.mj_data(), "plain"), REJECT, None,
        ("mocap",), robot)  # fmt: skip

    def moved_to(frame: str, kind: str) -> Callable[[], Any]:
        def run() -> Any:
            data = mw.mj_data()
            data.qpos[:] = mjcf.qpos_from_q(arm, arm_q)
            mw.mujoco.mj_kinematics(mj_model, data)
            taskik.move_mocap_to_frame(mj_model, data, "target", frame, kind)
            return data

        return run

    def check_moved(frame: str, kind: str) -> Callable[[Any], str | None]:
        def check(data: Any) -> str | None:
            element = getattr(data, kind)(frame)
            pose = pin.SE3(element.xmat.reshape(3, 3), element.xpos)
            got = mjcf.mocap_se3(mj_model, data, "target")
            return None if got.isApprox(pose, 1e-9) else "mocap body not at the frame"

        return check

    for kind, frame in (("site", "tip"), ("body", "lower"), ("geom", "forearm")):
        add("move_mocap_to_frame", f"read back, {kind} {frame}", moved_to(frame, kind), ACCEPT,
            check_moved(frame, kind), (), robot)  # fmt: skip
    for m in name_muts("tip"):
        if m.label == "'tip'":
            continue
        add("move_mocap_to_frame", f"frame_name={m.label}",
            (lambda n=m.value: taskik.move_mocap_to_frame(mj_model, mw.mj_data(), "target", n,
                                                          "site")),
            REJECT, None, ("site", "frame"), robot)  # fmt: skip
    for label, bad in (("'joint'", "joint"), ("None", None), ("'SITE'", "SITE"), ("1", 1)):
        add("move_mocap_to_frame", f"frame_type={label}",
            (lambda t=bad: taskik.move_mocap_to_frame(mj_model, mw.mj_data(), "target", "tip",
                                                      t)),
            REJECT, None, ("frame_type",), robot)  # fmt: skip
    for label, bad in (("'plain' (not mocap)", "plain"), ("'targt'", "targt"), ("None", None)):
        add("move_mocap_to_frame", f"mocap_name={label}",
            (lambda n=bad: taskik.move_mocap_to_frame(mj_model, mw.mj_data(), n, "tip",
                                                      "site")),
            REJECT, None, ("mocap", "body"), robot)  # fmt: skip
    add("move_mocap_to_frame", "mj_data=None",
        lambda: taskik.move_mocap_to_frame(mj_model, None, "target", "tip", "site"), REJECT,
        None, ("mj_data", "mjdata"), robot)  # fmt: skip

    def check_in_step(result: Any) -> str | None:
        data = result.data if isinstance(result, mjcf.MujocoMirror) else result
        c = result if isinstance(result, taskik.Configuration) else conf
        if isinstance(result, taskik.Configuration):
            data = result.mirror.data
        if not np.allclose(data.qpos, mjcf.qpos_from_q(arm, c.q), rtol=0, atol=1e-12):
            return "MuJoCo's qpos is not the configuration's"
        site = c.get_transform_frame_to_world("tip")
        mj_site = pin.SE3(data.site("tip").xmat.reshape(3, 3), data.site("tip").xpos)
        return None if mj_site.isApprox(site, 1e-9) else "MuJoCo's site not where Pinocchio's is"

    def written(mj_m: Any, mj_d: Any, c: Any) -> Callable[[], Any]:
        def run() -> Any:
            data = mw.mj_data() if mj_d == "fresh" else mj_d
            mjcf.write_configuration(mj_m, data, c)
            return data

        return run

    other_mj = mw.mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><body><joint/><geom size='0.1'/></body></worldbody></mujoco>"
    )
    add("mjcf.write_configuration", "valid", written(mj_model, "fresh", conf), ACCEPT,
        check_in_step, (), robot)  # fmt: skip
    for label, args in (
        ("configuration=None", (mj_model, "fresh", None)),
        ("configuration=a model", (mj_model, "fresh", arm)),
        ("configuration of another robot", (mj_model, "fresh", taskik.Configuration(model, q))),
        ("mj_model of another robot", (other_mj, "fresh", conf)),
        ("mj_model=None", (None, "fresh", conf)),
        ("mj_data=None", (mj_model, None, conf)),
        ("mj_data of another robot", (mj_model, mw.mujoco.MjData(other_mj), conf)),
    ):
        add("mjcf.write_configuration", label, written(*args), REJECT, None,
            ("configuration", "mj_model", "mj_data", "same robot", "mjmodel", "mjdata", "nq"),
            robot)  # fmt: skip
    add("mjcf.MujocoMirror", "valid, no data", lambda: mjcf.MujocoMirror(mj_model), ACCEPT,
        lambda r: None if isinstance(r, mjcf.MujocoMirror) else "not a mirror", (),
        robot)  # fmt: skip
    for label, args in (
        ("mj_model=None", (None,)),
        ("mj_model=Pinocchio's", (arm,)),
        ("mj_model='scene.xml'", ("scene.xml",)),
        ("mj_data of another robot", (mj_model, mw.mujoco.MjData(other_mj))),
        ("mj_data='data'", (mj_model, "data")),
    ):
        add("mjcf.MujocoMirror", label, (lambda a=args: mjcf.MujocoMirror(*a)), REJECT, None,
            ("mjmodel", "mjdata", "mj_data"), robot)  # fmt: skip
    v = rng.uniform(-1.0, 1.0, arm.nv)

    def mirrored(step: str) -> Callable[[], Any]:
        def run() -> Any:
            c = taskik.Configuration(arm, arm_q, mirror=mjcf.MujocoMirror(mj_model))
            if step == "integrate_inplace":
                c.integrate_inplace(v, 0.1)
            elif step == "update":
                c.update(c.integrate(v, 0.2))
            return c

        return run

    for step in ("construction", "update", "integrate_inplace"):
        add("Configuration(mirror=)", f"read back, MujocoMirror after {step}", mirrored(step),
            ACCEPT, check_in_step, (), robot)  # fmt: skip
    add("Configuration(mirror=)", "mirror=MujocoMirror of another robot",
        lambda: taskik.Configuration(model, q, mirror=mjcf.MujocoMirror(mj_model)), REJECT, None,
        ("same robot", "nq"), bot.name)  # fmt: skip
    return out


# -------------------------------------------------------------------------- balance
#: Robots of the balance generator, loaded once (stance helpers take a robot).
_BALANCE_ROBOTS: dict[str, Any] = {}


#: Mutations of a number of friction-pyramid generators (an integer in [3, 64]).
EDGE_MUTS = [
    Mut("8", 8, ACCEPT),
    Mut("3", 3, ACCEPT),
    Mut("64", 64, ACCEPT),
    Mut("2", 2, REJECT),
    Mut("0", 0, REJECT),
    Mut("-4", -4, REJECT),
    Mut("65", 65, REJECT),
    Mut("3.5", 3.5, REJECT),
    Mut("8.0", 8.0, REJECT),
    Mut("np.int64(6)", np.int64(6), ACCEPT),
    Mut("True", True, REJECT),
    Mut("None", None, REJECT),
    Mut("'8'", "8", REJECT),
    Mut("nan", math.nan, REJECT),
    Mut("10**9", 10**9, REJECT),
]


def _balance_robot(name: str) -> Any:
    if name not in _BALANCE_ROBOTS:
        _BALANCE_ROBOTS[name] = taskik.robots.load(name)
    return _BALANCE_ROBOTS[name]


def _equilibrium_error(world: Any, forces: np.ndarray, com: np.ndarray, mu: np.ndarray) -> str:
    """Why ``forces`` (n, 3, units of the weight) do not hold ``com`` on ``world`` (a
    ContactSet) inside the friction cones, or ''."""
    if not isinstance(forces, np.ndarray) or forces.shape != world.points.shape:
        return f"forces of shape {np.shape(forces)}, not {world.points.shape}"
    if not np.isfinite(forces).all():
        return "NaN/inf forces"
    total = forces.sum(axis=0)
    moment = np.cross(world.points, forces).sum(axis=0)
    scale = 1.0 + float(np.abs(world.points).max()) + float(np.abs(com[:2]).max())
    if np.abs(total - (0.0, 0.0, 1.0)).max() > 1e-6:
        return f"forces do not balance the weight (sum {np.round(total, 6).tolist()})"
    if np.abs(moment - (com[1], -com[0], 0.0)).max() > 1e-6 * scale:
        return "forces do not balance the moment of the weight"
    fn = np.einsum("ij,ij->i", forces, world.normals)
    ft = np.linalg.norm(forces - fn[:, None] * world.normals, axis=1)
    if (fn < -1e-7).any() or (ft > mu * fn + 1e-6 * (1.0 + np.abs(fn))).any():
        return "a contact force outside its friction cone"
    return ""


def check_region(world: Any, edges: int = 8) -> Callable[[Any], str | None]:
    """A SupportRegion that is a convex polygon whose inside, sampled, is exactly where the
    force LP finds forces (1 mm margins either side of the edge)."""

    def check(region: Any) -> str | None:
        from taskik.contacts import SupportRegion, equilibrium_forces

        if not isinstance(region, SupportRegion):
            return f"not a SupportRegion: {type(region).__name__}"
        V, N, b = region.vertices, region.normals, region.offsets
        if V.ndim != 2 or V.shape[1:] != (2,) or N.shape != V.shape or b.shape != (len(V),):
            return f"inconsistent region shapes {V.shape}, {N.shape}, {b.shape}"
        if not (np.isfinite(V).all() and np.isfinite(N).all() and np.isfinite(b).all()):
            return "NaN/inf in the region"
        if len(V) >= 3:
            if np.abs(np.linalg.norm(N, axis=1) - 1.0).max() > 1e-9:
                return "edge normals not unit"
            if (N @ V.T - b[:, None]).max() > 1e-7 * (1.0 + np.abs(V).max()):
                return "region not convex (a vertex outside an edge)"
        if world is None or not region.bounded:
            return None
        rng = np.random.default_rng(len(V))
        lo, hi = world.points[:, :2].min(axis=0) - 0.3, world.points[:, :2].max(axis=0) + 0.3
        for c in rng.uniform(lo, hi, (12, 2)):
            d = region.signed_distance(c)
            if abs(d) < 2e-3:
                continue
            com = np.array([c[0], c[1], 0.8])
            f = equilibrium_forces(world, com, edges)
            if (f is not None) != (d > 0):
                return f"region and force LP disagree at {np.round(c, 3).tolist()} (d={d:.4f})"
            if f is not None:
                why = _equilibrium_error(world, f, com, world.friction)
                if why:
                    return why
        return None

    return check


def check_balance(robot_contacts: Callable[[], Any]) -> Callable[[Any], str | None]:
    """A BalanceCheck whose forces hold the CoM inside the cones, stable iff forces exist,
    and whose margin agrees with stability (1 mm either side)."""

    def check(res: Any) -> str | None:
        from taskik.contacts import BalanceCheck

        if not isinstance(res, BalanceCheck):
            return f"not a BalanceCheck: {type(res).__name__}"
        if res.stable != (res.forces is not None):
            return "stable but no forces, or forces but not stable"
        empty = not len(res.region.vertices)
        if not ((math.isfinite(res.margin) or empty) and np.isfinite(res.com).all()):
            return "NaN/inf margin or CoM"
        if res.region.bounded and res.margin > 1e-3 and not res.stable:
            return f"margin {res.margin:.4f} inside but not stable"
        world = robot_contacts()
        # (the hull of flat contacts at several heights is a subset of the region: the
        # CoM may be held outside it)
        exact = not world.is_flat() or np.ptp(world.points[:, 2]) < 1e-9
        if res.margin < -1e-3 and res.stable and exact:
            return f"margin {res.margin:.4f} outside but stable"
        if res.forces is not None:
            why = _equilibrium_error(world, res.forces, res.com, world.friction)
            if why:
                return why
        return None

    return check


def check_balance_step(nv: int) -> Callable[[Any], str | None]:
    """(v, status, names, G, h) of a step with a BalanceLimit: finite, consistent."""
    vcheck = finite_array((nv,))

    def check(res: Any) -> str | None:
        from taskik.limits.balance import BalanceStatus

        v, status, names, rows = res
        why = vcheck(v)
        if why:
            return why
        if not isinstance(status, BalanceStatus) or not math.isfinite(status.margin):
            return f"bad status {status!r}"
        if rows is not None:
            G, h = rows
            if G.shape != (len(h), nv) or not np.isfinite(G).all() or np.isnan(h).any():
                return f"bad rows G {G.shape}, h {h.shape}"
            if len(names) != len(h) or not all(isinstance(n, str) for n in names):
                return "row names do not match the rows"
        return None

    return check


@generator
def gen_balance(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """Contacts and static balance: Contact, Contact.rectangle, the stance helpers,
    support_region, check_static_balance, equilibrium_forces, edge_distances, ContactSet and
    BalanceLimit (construction, a step, compute_inequalities, status, row_names). Results are
    checked against equilibrium itself: forces that balance the weight inside the cones, a
    region that contains a sampled CoM iff the force LP succeeds."""
    from taskik.contacts import (
        Contact,
        ContactSet,
        both_feet,
        check_static_balance,
        equilibrium_forces,
        feet_and_hand,
        one_foot,
        sole,
        support_region,
    )
    from taskik.contacts.equilibrium import edge_distances

    own = np.random.default_rng([20261126, getattr(w, "round", 0)])  # (the shared rng untouched)
    model, nv = bot.model, bot.model.nv
    q = bot.random_q(own) if bot.name != "humanoid" else bot.q0.copy()
    robot = _balance_robot(bot.name) if bot.name != "one_joint" else None
    other = w.other(bot)
    out: list[Case] = []

    def add(entry: str, label: str, run: Callable[[], Any], exp: str, chk: Any, names: tuple):
        out.append(Case(entry, label, run, exp, chk, names, bot.name, module="contacts"))

    def conf() -> taskik.Configuration:
        return conf_of(bot, q)

    # the stance: both soles of a humanoid; a rectangle under another robot's tip
    if bot.name == "humanoid":
        c0 = conf()
        stance = both_feet(robot, c0)
    else:
        stance = [Contact.rectangle(bot.frames[0], 0.2, 0.1)]
    frame = stance[0].frame.name
    points = stance[0].points.copy()

    def world_of(contacts: list[Any]) -> Callable[[], Any]:
        return lambda: ContactSet.of(conf(), contacts)

    def balance_of(contacts: list[Any], edges: Any = 8) -> Callable[[], Any]:
        return lambda: check_static_balance(conf(), contacts, edges)

    good = check_balance(world_of(stance))

    # ---- Contact(): every argument, checked through check_static_balance
    def contact_run(**kw: Any) -> Callable[[], Any]:
        args: dict[str, Any] = {"frame": frame, "points": points}
        args.update(kw)

        def run() -> Any:
            c = Contact(**args)
            return check_static_balance(conf(), [c, *stance[1:]])

        return run

    def contact_check(**kw: Any) -> Callable[[Any], str | None]:
        def check(res: Any) -> str | None:
            args: dict[str, Any] = {"frame": frame, "points": points}
            args.update(kw)
            try:
                c = Contact(**args)
            except Exception:  # noqa: BLE001
                return None
            return check_balance(world_of([c, *stance[1:]]))(res)

        return check

    for m in name_muts(frame):
        add("Contact()", f"frame={m.label}", contact_run(frame=m.value), m.expect,
            contact_check(frame=m.value), ("frame", "name"))  # fmt: skip
    pm: list[Mut] = [
        Mut("valid (k, 3)", points, ACCEPT),
        Mut("list", points.tolist(), ACCEPT),
        Mut("one point (3,)", points[0].copy(), ACCEPT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("empty (0, 3)", np.zeros((0, 3)), REJECT),
        Mut("(k, 2)", points[:, :2].copy(), REJECT),
        Mut("(3, k) transposed", points.T.copy(), REJECT if len(points) != 3 else ANY),
        Mut("(k, 3, 1)", points[:, :, None].copy(), REJECT),
        Mut("complex", points + 1j, REJECT),
        Mut("ragged list", [[0.0, 0.0, 0.0], [0.1, 0.0]], REJECT),
        Mut("all points equal", np.tile(points[0], (4, 1)), ANY),
        Mut("collinear", np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.2, 0.0, 0.0]]), ANY),
        Mut("1e300 corner", np.vstack([points, [1e300, 0.0, 0.0]]), ANY),
        Mut("2e14 corner", np.vstack([points, [2e14, 0.0, 0.0]]), ANY),
    ]
    for x in (math.nan, math.inf, -math.inf):
        bad = points.copy()
        bad[0, 1] = x
        pm.append(Mut(f"{x!r} at [0, 1]", bad, REJECT))
    for m in pm:
        add("Contact()", f"points={m.label}", contact_run(points=m.value), m.expect,
            contact_check(points=m.value), ("points", "contact"))  # fmt: skip
    nm = [
        Mut(f"normal={m.label}", m.value, m.expect)
        for m in vector_muts(np.array([0.0, 0.0, 1.0]))
        if "1e300" not in m.label and "2e14" not in m.label
    ]
    nm += [
        Mut("normal=zero", np.zeros(3), REJECT),
        Mut("normal=1e-12 long", np.array([0.0, 0.0, 1e-12]), REJECT),
        Mut("normal=down (a ceiling)", np.array([0.0, 0.0, -1.0]), ANY),
        Mut("normal=tilted 30°", np.array([0.5, 0.0, math.sqrt(3) / 2]), ACCEPT),
        Mut("normal=unnormalised (0, 0, 5)", np.array([0.0, 0.0, 5.0]), ACCEPT),
        Mut("normal=1e300 long", np.array([0.0, 0.0, 1e300]), ANY),
        Mut("normal=horizontal (a wall)", np.array([1.0, 0.0, 0.0]), ANY),
    ]
    for m in nm:
        val = m.value
        add("Contact()", m.label, contact_run(normal=val), m.expect, contact_check(normal=val),
            ("normal",))  # fmt: skip
    for m in scalar_muts(0.7, POSITIVE):
        add("Contact()", f"friction={m.label}", contact_run(friction=m.value), m.expect,
            contact_check(friction=m.value), ("friction",))  # fmt: skip
    for label, val, exp in (
        ("True", True, ACCEPT),
        ("False", False, ACCEPT),
        ("np.bool_(True)", np.bool_(True), ACCEPT),
        ("1", 1, REJECT),
        ("None", None, REJECT),
        ("'yes'", "yes", REJECT),
    ):
        add("Contact()", f"held={label}", contact_run(held=val), exp, contact_check(held=val),
            ("held",))  # fmt: skip

    # ---- Contact.rectangle
    def rect_run(**kw: Any) -> Callable[[], Any]:
        args: dict[str, Any] = {"frame": frame, "length": 0.2, "width": 0.1}
        args.update(kw)
        return lambda: check_static_balance(conf(), [Contact.rectangle(**args)])

    def rect_check(**kw: Any) -> Callable[[Any], str | None]:
        args: dict[str, Any] = {"frame": frame, "length": 0.2, "width": 0.1}
        args.update(kw)

        def check(res: Any) -> str | None:
            return check_balance(world_of([Contact.rectangle(**args)]))(res)

        return check

    for pname, base in (("length", 0.2), ("width", 0.1)):
        for m in scalar_muts(base, POSITIVE):
            add("Contact.rectangle", f"{pname}={m.label}", rect_run(**{pname: m.value}),
                m.expect, rect_check(**{pname: m.value}), (pname,))  # fmt: skip
    for m in vector_muts(np.array([0.05, -0.02])):
        add("Contact.rectangle", f"center={m.label}", rect_run(center=m.value), m.expect,
            rect_check(center=m.value), ("center",))  # fmt: skip
    for m in scalar_muts(0.7, POSITIVE):
        add("Contact.rectangle", f"friction={m.label}", rect_run(friction=m.value), m.expect,
            rect_check(friction=m.value), ("friction",))  # fmt: skip

    # ---- stance helpers
    robots: list[tuple[str, Any, str]] = [
        ("None", None, REJECT),
        ("'humanoid'", "humanoid", REJECT),
        ("pin.Model", model, REJECT),
        ("3", 3, REJECT),
    ]
    if robot is not None:
        robots.append(("Robot", robot, ACCEPT if bot.name == "humanoid" else ANY))
        robots.append(("Robot of another model", _balance_robot(other.name), REJECT))
    confs: list[tuple[str, Any, str]] = [
        ("None", None, REJECT),
        ("q array", q, REJECT),
        ("pin.Data", model.createData(), REJECT),
        ("configuration of another model", "other", REJECT),
    ]

    def stance_check(res: Any) -> str | None:
        res = [res] if isinstance(res, Contact) else res
        if not isinstance(res, list) or not res or not all(isinstance(c, Contact) for c in res):
            return f"not a list of Contact: {_short(res)}"
        for c in res:
            if not (np.isfinite(c.points).all() and c.points.shape[1:] == (3,)):
                return "bad contact points"
        if bot.name != "humanoid":
            return None
        return check_balance(world_of(res))(check_static_balance(conf(), res))

    helpers: list[tuple[str, Callable[..., Any]]] = [
        ("contacts.both_feet", lambda r, c, **k: both_feet(r, c, **k)),
        ("contacts.one_foot", lambda r, c, **k: one_foot(r, c, **k)),
        ("contacts.sole", lambda r, c, **k: sole(r, c, frame, **k)),
        ("contacts.feet_and_hand", lambda r, c, **k: feet_and_hand(r, c, frame, (0, 0, 1), **k)),
    ]
    for entry, helper in helpers:
        real = robot if robot is not None else "no robot"
        for label, val, exp in robots:
            add(entry, f"robot={label}", (lambda h=helper, r=val: h(r, conf())), exp,
                stance_check, ("robot", "frame", "feet", "end_effectors"))  # fmt: skip
        if bot.name != "humanoid":  # (no feet: the helpers' other arguments are not reached)
            continue
        exp_ok = ACCEPT if bot.name == "humanoid" else ANY
        for label, val, exp in confs:

            def crun(h=helper, val=val):
                c = conf_of(other) if isinstance(val, str) else val
                return h(robot, c)

            add(entry, f"configuration={label}", crun, exp, stance_check,
                ("configuration", "frame", "model", "robot"))  # fmt: skip
        for m in scalar_muts(0.7, POSITIVE):
            add(entry, f"friction={m.label}",
                (lambda h=helper, f=m.value, r=real: h(r, conf(), friction=f)),
                m.expect if m.expect != ACCEPT else exp_ok, stance_check,
                ("friction",))  # fmt: skip
    if bot.name == "humanoid":
        exp_ok = ACCEPT
        for label, val, exp in (
            ("'left'", "left", exp_ok),
            ("'right'", "right", exp_ok),
            ("'up'", "up", REJECT),
            ("None", None, REJECT),
            ("1", 1, REJECT),
        ):
            add("contacts.one_foot", f"side={label}",
                (lambda s=val: one_foot(robot, conf(), s)), exp, stance_check,
                ("side",))  # fmt: skip
        for m in name_muts(frame):
            add("contacts.feet_and_hand", f"hand={m.label}",
                (lambda f=m.value: feet_and_hand(robot, conf(), f, (0, 0, 1))),
                m.expect if m.expect != ACCEPT else exp_ok, stance_check,
                ("hand", "frame"))  # fmt: skip
            add("contacts.sole", f"frame={m.label}",
                (lambda f=m.value: sole(robot, conf(), f)),
                m.expect if m.expect != ACCEPT else exp_ok, stance_check,
                ("frame",))  # fmt: skip
        for m in nm:
            add("contacts.feet_and_hand", m.label,
                (lambda n=m.value: feet_and_hand(robot, conf(), frame, n)),
                m.expect if m.expect != ACCEPT else exp_ok, stance_check,
                ("normal",))  # fmt: skip
        for m in scalar_muts(0.5, POSITIVE):
            add("contacts.feet_and_hand", f"hand_friction={m.label}",
                (lambda f=m.value: feet_and_hand(robot, conf(), frame, (0, 0, 1),
                                                  hand_friction=f)),
                m.expect if m.expect != ACCEPT else exp_ok, stance_check,
                ("friction",))  # fmt: skip

    # ---- ContactSet, support_region, equilibrium_forces, edge_distances
    world = ContactSet.of(conf(), stance)
    tilted = ContactSet(
        np.vstack([world.points, world.points[:2] + [0.3, 0.2, 0.25]]),
        np.vstack([world.normals, np.tile([0.0, 0.5, math.sqrt(3) / 2], (2, 1))]),
        np.concatenate([world.friction, [0.5, 0.5]]),
    )
    sets: list[tuple[str, Any, str]] = [
        ("ContactSet.of(stance)", world, ACCEPT),
        ("non-coplanar set", tilted, ACCEPT),
        ("None", None, REJECT),
        ("list of Contact", stance, REJECT),
        ("'abc'", "abc", REJECT),
    ]
    for what, k in (("points", 0), ("normals", 1), ("friction", 2)):
        arrays = [world.points.copy(), world.normals.copy(), world.friction.copy()]
        arrays[k].flat[0] = math.nan
        sets.append((f"NaN in {what}", arrays, REJECT))
        arrays = [world.points.copy(), world.normals.copy(), world.friction.copy()]
        arrays[k] = arrays[k][:-1]
        sets.append((f"{what} one short", arrays, REJECT))
    sets += [
        ("friction 0", [world.points, world.normals, np.zeros(len(world.friction))], REJECT),
        ("friction -1", [world.points, world.normals, -np.ones(len(world.friction))], REJECT),
        ("zero normals", [world.points, np.zeros_like(world.normals), world.friction], REJECT),
        ("empty", [np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)], REJECT),
        ("points 1e300", [world.points * 1e300, world.normals, world.friction], ANY),
        ("points (n, 2)", [world.points[:, :2], world.normals, world.friction], REJECT),
        ("complex points", [world.points + 1j, world.normals, world.friction], REJECT),
    ]

    def make_set(val: Any) -> Any:
        return ContactSet(*val) if isinstance(val, list) and len(val) == 3 else val

    for label, val, exp in sets:
        chk = check_region(val if isinstance(val, ContactSet) else None)
        add("contacts.support_region", f"contacts={label}",
            (lambda v=val: support_region(make_set(v))), exp, chk,
            ("contact", "points", "normal", "friction"))  # fmt: skip
        com = np.array([*world.points[:, :2].mean(axis=0), 0.8])
        fchk = (
            (lambda f, s=val, c=com: _equilibrium_error(s, f, c, s.friction) or None
             if f is not None else None)
            if isinstance(val, ContactSet) else None
        )  # fmt: skip
        add("contacts.equilibrium_forces", f"contacts={label}",
            (lambda v=val, c=com: equilibrium_forces(make_set(v), c)), exp, fchk,
            ("contact", "points", "normal", "friction"))  # fmt: skip
    for m in EDGE_MUTS:
        add("contacts.support_region", f"edges={m.label}",
            (lambda e=m.value: support_region(tilted, e)), m.expect, check_region(None),
            ("edges",))  # fmt: skip
        add("contacts.equilibrium_forces", f"edges={m.label}",
            (lambda e=m.value: equilibrium_forces(world, world.points.mean(axis=0), e)),
            m.expect, None, ("edges",))  # fmt: skip
        add("contacts.check_static_balance", f"edges={m.label}", balance_of(stance, m.value),
            m.expect, good, ("edges",))  # fmt: skip
    for m in scalar_muts(1e-4, POSITIVE):
        add("contacts.support_region", f"tol={m.label}",
            (lambda t=m.value: support_region(tilted, 8, t)), m.expect, check_region(None),
            ("tol",))  # fmt: skip
    for m in [
        Mut("64", 64, ACCEPT),
        Mut("1", 1, ANY),
        Mut("0", 0, REJECT),
        Mut("-1", -1, REJECT),
        Mut("2.5", 2.5, REJECT),
        Mut("None", None, REJECT),
    ]:
        add("contacts.support_region", f"max_iterations={m.label}",
            (lambda k=m.value: support_region(tilted, 8, 1e-4, k)), m.expect,
            check_region(None), ("max_iterations", "iterations"))  # fmt: skip
    com0 = np.array([*world.points[:, :2].mean(axis=0), 0.8])
    fcheck = lambda f: (  # noqa: E731
        _equilibrium_error(world, f, com0, world.friction) or None if f is not None else None
    )
    for m in vector_muts(com0):
        add("contacts.equilibrium_forces", f"com={m.label}",
            (lambda c=m.value: equilibrium_forces(world, c)),
            ANY if m.label == "length n-1" else m.expect,
            fcheck if m.label in ("valid ndarray", "list", "tuple") else None,
            ("com",))  # fmt: skip
    V = support_region(world).vertices
    c2 = V.mean(axis=0) + [0.01, 0.0]

    def dcheck(k: int) -> Callable[[Any], str | None]:
        return finite_array((k,))

    vm: list[Mut] = [
        Mut("valid (k, 2)", V, ACCEPT),
        Mut("list", V.tolist(), ACCEPT),
        Mut("one vertex", V[:1].copy(), ACCEPT),
        Mut("two vertices", V[:2].copy(), ACCEPT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
        Mut("empty (0, 2)", np.zeros((0, 2)), REJECT),
        Mut("(k, 3)", np.column_stack([V, np.zeros(len(V))]), REJECT),
        Mut("flat (2k,)", V.ravel(), REJECT),
        Mut("NaN vertex", np.vstack([V, [math.nan, 0.0]]), REJECT),
        Mut("inf vertex", np.vstack([V, [math.inf, 0.0]]), REJECT),
        Mut("complex", V + 1j, REJECT),
        Mut("repeated vertex", np.vstack([V, V[-1:]]), ACCEPT),
    ]
    for m in vm:
        k = len(m.value) if isinstance(m.value, np.ndarray) and m.value.ndim == 2 else len(V)
        add("contacts.edge_distances", f"vertices={m.label}",
            (lambda v=m.value: edge_distances(v, c2)), m.expect,
            dcheck(k),
            ("vert", "polygon"))  # fmt: skip
    for m in vector_muts(c2):
        exp = ANY if m.label == "length n+1" else m.expect  # ((x, y, z): z ignored)
        add("contacts.edge_distances", f"point={m.label}",
            (lambda c=m.value: edge_distances(V, c)), exp, dcheck(len(V)),
            ("point",))  # fmt: skip

    # ---- check_static_balance
    cm: list[tuple[str, Any, str]] = [
        ("stance", stance, ACCEPT),
        ("tuple", tuple(stance), ACCEPT),
        ("one Contact (not a list)", stance[0], ACCEPT),
        ("None", None, REJECT),
        ("[]", [], REJECT),
        ("[None]", [None], REJECT),
        ("'abc'", "abc", REJECT),
        ("[a Limit]", [taskik.limits.VelocityLimit(model)], REJECT),
        ("contact on another robot's frame",
         [Contact.rectangle(_other_name(other, model), 0.2, 0.1)], REJECT),
        ("generator of contacts", "gen", ACCEPT),
    ]  # fmt: skip
    for label, val, exp in cm:

        def srun(val=val):
            v = (c for c in stance) if val == "gen" else val
            return check_static_balance(conf(), v)

        add("contacts.check_static_balance", f"contacts={label}", srun, exp,
            good if label != "one Contact (not a list)" else check_balance(world_of(stance[:1])),
            ("contact", "frame"))  # fmt: skip
    for label, val in (
        ("None", None),
        ("pin.Model", model),
        ("q array", q),
        ("configuration of another model", "other"),
    ):

        def brun(val=val):
            c = conf_of(other) if isinstance(val, str) else val
            return check_static_balance(c, stance)

        add("contacts.check_static_balance", f"configuration={label}", brun, REJECT, good,
            ("configuration", "frame", "model"))  # fmt: skip

    # ---- BalanceLimit
    target_q = bot.random_q(own)

    def step(make: Callable[[], Any], dt: Any = 0.01) -> Callable[[], Any]:
        def run() -> Any:
            c = conf()
            limit = make()
            tasks = base_tasks(bot, c, target_q)
            v = taskik.solve_ik(c, tasks, 0.01, limits=[*taskik.limits.default_limits(model),
                                                        limit])  # fmt: skip
            rows = limit.compute_inequalities(c, dt)
            return v, limit.status(c), limit.row_names(), rows

        return run

    bcheck = check_balance_step(nv)
    # (a stance whose region is a point or a segment cannot hold the CoM: any)
    area = bot.name == "humanoid" or len(points) >= 3
    ok_exp = ACCEPT if area else ANY
    names = ("contact", "region", "balance")
    for label, val, exp in cm:
        if label == "one Contact (not a list)":
            exp = ok_exp

        def lrun(val=val):
            v = (c for c in stance) if val == "gen" else val
            return taskik.BalanceLimit(v)

        add("BalanceLimit", f"contacts={label}", step(lrun), exp if exp != ACCEPT else ok_exp,
            bcheck, names + ("frame",))  # fmt: skip
    for pname, base, valid in (
        ("margin", 0.01, NONNEG),
        ("gain", 0.5, UNIT),
        ("tolerance", 1e-3, NONNEG),
        ("detection_distance", 0.05, POSITIVE),
    ):
        for m in scalar_muts(base, valid):
            exp = m.expect
            if pname == "detection_distance" and m.label == "inf":
                exp = ACCEPT  # (the default: every edge)
            if exp == ACCEPT and pname == "margin" and m.value is not None and float(m.value) > 0.3:
                exp = ANY  # (a margin wider than the feet: no CoM can keep it; a step still)
            add("BalanceLimit", f"{pname}={m.label}",
                step(lambda p=pname, x=m.value: taskik.BalanceLimit(stance, **{p: x})),
                exp if exp != ACCEPT else ok_exp, bcheck, (pname,))  # fmt: skip
    for m in [
        Mut("8", 8, ACCEPT),
        Mut("3", 3, ACCEPT),
        Mut("2", 2, REJECT),
        Mut("3.5", 3.5, REJECT),
        Mut("True", True, REJECT),
        Mut("None", None, REJECT),
        Mut("'8'", "8", REJECT),
        Mut("10**9", 10**9, REJECT),
    ]:
        add("BalanceLimit", f"edges={m.label}",
            step(lambda e=m.value: taskik.BalanceLimit(stance, edges=e)),
            m.expect if m.expect != ACCEPT else ok_exp, bcheck, ("edges",))  # fmt: skip
    for m in scalar_muts(0.01, POSITIVE):
        add("BalanceLimit.compute_inequalities", f"dt={m.label}",
            step(lambda: taskik.BalanceLimit(stance), dt=m.value),
            m.expect if m.expect != ACCEPT else ok_exp, bcheck, ("dt",))  # fmt: skip
    for label, val in (
        ("None", None),
        ("pin.Model", model),
        ("q array", q),
        ("configuration of another model", "other"),
    ):

        def strun(val=val):
            c = conf_of(other) if isinstance(val, str) else val
            return taskik.BalanceLimit(stance).status(c)

        add("BalanceLimit.status", f"configuration={label}", strun, REJECT, None,
            ("configuration", "frame", "model"))  # fmt: skip

        def irun(val=val):
            c = conf_of(other) if isinstance(val, str) else val
            return taskik.BalanceLimit(stance).compute_inequalities(c, 0.01)

        add("BalanceLimit.compute_inequalities", f"configuration={label}", irun, REJECT, None,
            ("configuration", "frame", "model"))  # fmt: skip
    add("BalanceLimit.row_names", "before any rows",
        (lambda: taskik.BalanceLimit(stance).row_names()), ACCEPT,
        (lambda r: None if r == [] else f"names before rows: {r!r}"), ())  # fmt: skip
    return out


def _float32_any(muts: Iterable[Mut]) -> list[Mut]:
    """``muts`` with the valid float32 array made an ``any`` case (accepted or refused)."""
    return [
        Mut(m.label, m.value, ANY) if m.expect == ACCEPT and m.label == "float32 array" else m
        for m in muts
    ]


def _other_name(other: Bot, model: pin.Model) -> str:
    """A frame of ``other`` that ``model`` does not have."""
    for f in reversed(other.model.frames):
        if not model.existFrame(f.name):
            return f.name
    return "no_such_frame_x"


# ------------------------------------------------------------------------- running
# ------------------------------------------------- mink's call shapes, targets, composite joints
def _extreme_any(muts: list[Mut]) -> list[Mut]:
    """The accepted mutations of a huge magnitude (±1e300, 2e14) as ``any``: valid, but
    a step at those bounds may fairly be refused."""
    out = []
    for m in muts:
        big = isinstance(m.value, float) and math.isfinite(m.value) and abs(m.value) >= 1e14
        out.append(Mut(m.label, m.value, ANY) if big and m.expect == ACCEPT else m)
    return out


def check_within_ranges(model: pin.Model) -> Callable[[Any], str | None]:
    """A solve_posture result whose q keeps every bounded 1-DoF coordinate (composite
    joints' hinges included) inside its range."""
    ranges = taskik.configuration.PositionRanges(model)
    base = finite_array((model.nq,))

    def check(result: Any) -> str | None:
        q = getattr(result, "q", None)
        why = base(q)
        if why is None:
            x = q[ranges.q_indices]
            if ((x < ranges.lower - 1e-9) | (x > ranges.upper + 1e-9)).any():
                return f"q outside the joint ranges under joint_limits='clip': {q.tolist()}"
        return why

    return check


@generator
def gen_leftovers(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """mink's remaining call shapes (``ConfigurationLimit(model, gain,
    min_distance_from_limits)``, ``VelocityLimit(model=, velocities=)``, ``ComTask(cost,
    gain, lm_damping)``, the positional ``FrameTask`` and ``RelativeFrameTask`` of mink's
    order), each followed by a step; targets assigned as attributes (then a step: junk must
    be refused at the assignment or at the step); solve_posture with targets whose squared
    error overflows (refused, no warning); and ``joint_limits="clip"`` on an MJCF body with
    two hinges (one composite joint: q must stay in both ranges)."""
    model, q = bot.model, bot.random_q(rng)
    out: list[Case] = []
    vcheck = check_velocity(model.nv)
    frame = bot.frames[0]

    def step(
        make_tasks: Callable[[taskik.Configuration], list[Any]],
        make_limits: Callable[[], list[Any]] | None = None,
    ) -> Callable[[], Any]:
        """The tasks and limits built in the case (an error there is the case's outcome),
        their targets taken at q, then one step with a posture."""

        def run() -> Any:
            conf = conf_of(bot, q)
            tasks = make_tasks(conf)
            limits = None if make_limits is None else make_limits()
            for task in tasks:
                task.set_target_from_configuration(conf)
            return taskik.solve_ik(conf, [*tasks, _posture_task(bot)], 0.01, limits=limits)

        return run

    def hand(conf: taskik.Configuration) -> list[Any]:
        return [taskik.FrameTask(frame, 1.0, 1.0)]

    # ConfigurationLimit(model, gain, min_distance_from_limits), by position and keyword
    ranges = taskik.configuration.PositionRanges(model)
    width = float(np.min(ranges.upper - ranges.lower)) if ranges.lower.size else math.inf
    for m in _extreme_any(scalar_muts(0.01, lambda x: math.isfinite(x) and 2 * x <= width)):
        for how, make in (
            ("by position", lambda d: taskik.ConfigurationLimit(model, 0.95, d)),
            ("keyword", lambda d: taskik.ConfigurationLimit(model, min_distance_from_limits=d)),
        ):
            out.append(
                Case(
                    "ConfigurationLimit(min_distance_from_limits)",
                    f"{how}: {m.label}",
                    step(hand, lambda mk=make, d=m.value: [mk(d)]),
                    m.expect,
                    vcheck,
                    ("min_distance_from_limits", "range"),
                    bot.name,
                )
            )
    # VelocityLimit(model=..., velocities=...)
    joint = next((n for n in model.names[1:] if model.joints[model.getJointId(n)].nv == 1), None)
    if joint is not None:
        out += _cases(
            "VelocityLimit(velocities=)",
            bot,
            (
                ("{joint: 1.0}", {joint: 1.0}, ACCEPT),
                ("{joint: np.float32(0.5)}", {joint: np.float32(0.5)}, ACCEPT),
                ("{} (no caps)", {}, ACCEPT),
                ("None (the model's)", None, ACCEPT),
                ("{joint: -1.0}", {joint: -1.0}, REJECT),
                ("{joint: nan}", {joint: math.nan}, REJECT),
                ("{joint: [1, 2]}", {joint: [1.0, 2.0]}, REJECT),
                ("{'nope': 1.0}", {"nope": 1.0}, REJECT),
                ("{'universe': 1.0}", {"universe": 1.0}, REJECT),
                ("a vector of nv caps", np.ones(model.nv), REJECT),
                ("a list of names", [joint], REJECT),
                ("'abc'", "abc", REJECT),
            ),
            lambda val: step(hand, lambda v=val: [taskik.VelocityLimit(model=model, velocities=v)]),
            vcheck,
            ("velocit", "joint", "nope", "universe", "mapping"),
        )
        out.append(
            Case(
                "VelocityLimit(velocities=)",
                "and limits too",
                lambda: taskik.VelocityLimit(model, {joint: 1.0}, velocities={joint: 2.0}),
                REJECT,
                None,
                ("two sets", "velocities"),
                bot.name,
            )
        )
    # ComTask(cost, gain, lm_damping) by position
    out += _cases(
        "ComTask(cost, gain, lm_damping)",
        bot,
        scalar_muts(0.5, UNIT),
        lambda v: step(lambda c, g=v: [taskik.ComTask(1.0, g, 0.1)]),
        vcheck,
        ("gain",),
        "gain=",
    )
    out += _cases(
        "ComTask(cost, gain, lm_damping)",
        bot,
        scalar_muts(0.1, NONNEG),
        lambda v: step(lambda c, d=v: [taskik.ComTask(1.0, 0.5, d)]),
        vcheck,
        ("lm_damping",),
        "lm_damping=",
    )
    # FrameTask and RelativeFrameTask in mink's positional order
    root = _other_frame(bot, frame)
    for label, frame_type, expect in option_muts(("site", "body"), ("geom", "joint", None, 1.0)):
        out.append(
            Case(
                "FrameTask(frame_name, frame_type, ...)",
                f"frame_type={label}",
                step(lambda c, t=frame_type: [taskik.FrameTask(frame, t, 1.0, 0.5, 0.8, 0.1)]),
                expect,
                vcheck,
                ("frame_type", "frame", "position", "argument"),
                bot.name,
            )
        )
        out.append(
            Case(
                "RelativeFrameTask(frame_name, frame_type, root_name, root_type, ...)",
                f"root_type={label}",
                step(
                    lambda c, t=frame_type: [
                        taskik.RelativeFrameTask(frame, "site", root, t, 1.0, 0.5, 0.8)
                    ]
                ),
                expect,
                vcheck,
                ("root_type", "frame", "root", "argument"),
                bot.name,
            )
        )
    out += _cases(
        "FrameTask(frame_name, frame_type, ...)",
        bot,
        scalar_muts(0.8, UNIT),
        lambda v: step(lambda c, g=v: [taskik.FrameTask(frame, "site", 1.0, 1.0, g)]),
        vcheck,
        ("gain",),
        "gain=",
    )
    # targets assigned as attributes, then a step
    conf0 = conf_of(bot, q)
    T = conf0.get_transform_frame_to_world(frame)
    p = T.translation.copy()

    def assigned(make: Callable[[], Any], name: str, value: Any) -> Callable[[], Any]:
        def run() -> Any:
            conf = conf_of(bot, q)
            task = make()
            setattr(task, name, value)
            return taskik.solve_ik(conf, [task, _posture_task(bot)], 0.01)

        return run

    for m in se3_muts(T):
        for name in ("target", "transform_target_to_world"):
            out.append(
                Case(
                    f"FrameTask.{name} =",
                    m.label,
                    assigned(lambda: taskik.FrameTask(frame), name, m.value),
                    m.expect,
                    vcheck,
                    ("target", "rotation", "homogeneous", "translation"),
                    bot.name,
                )
            )
    out += _cases(
        "PositionTask.target =",
        bot,
        _float32_any(vector_muts(p)),
        lambda v: assigned(lambda: taskik.PositionTask(frame), "target", v),
        vcheck,
        ("target",),
    )
    out += _cases(
        "PostureTask.target_q =",
        bot,
        vector_muts(bot.q0.copy()),
        lambda v: assigned(lambda: taskik.PostureTask(1e-2), "target_q", v),
        vcheck,
        ("target", "quaternion", "configuration"),
    )

    # mink's DampingTask is (model, cost) only: a third argument by position is refused
    out.append(
        Case(
            "DampingTask(model, cost, extra)",
            "gain 0.5 by position",
            lambda: taskik.DampingTask(model, 1.0, 0.5),
            REJECT,
            None,
            ("DampingTask(model, cost)", "arguments"),
            bot.name,
        )
    )

    # the tasks' other public attributes (an axis, a point's offset), assigned, then a step
    def reassigned(make: Callable[[], Any], name: str, value: Any) -> Callable[[], Any]:
        def run() -> Any:
            conf = conf_of(bot, q)
            task = make()
            task.set_target_from_configuration(conf)
            setattr(task, name, value)
            return taskik.solve_ik(conf, [task, _posture_task(bot)], 0.01)

        return run

    out += _cases(
        "PositionTask.offset =",
        bot,
        _float32_any(vector_muts(np.array([0.0, 0.0, 0.1]), allow_none=True)),
        lambda v: reassigned(lambda: taskik.PositionTask(frame), "offset", v),
        vcheck,
        ("offset",),
    )
    for m in vector_muts(np.array([0.0, 1.0, 0.0])):
        zero = isinstance(m.value, np.ndarray) and m.value.size == 3 and not np.any(m.value)
        out.append(
            Case(
                "AxisAlignmentTask.axis =",
                m.label,
                reassigned(lambda: taskik.AxisAlignmentTask(frame), "axis", m.value),
                REJECT if zero else m.expect,
                vcheck,
                ("axis",),
                bot.name,
            )
        )
    # solve_posture: a target whose squared error overflows is refused, without a warning
    for x, expect in ((1e300, REJECT), (-1e200, REJECT), (2e150, REJECT), (1e100, ANY)):
        far = pin.SE3(T.rotation, p + np.array([x, 0.0, 0.0]))

        def posture_run(far: pin.SE3 = far) -> Any:
            task = taskik.FrameTask(frame)
            task.set_target(far)
            return taskik.solve_posture(conf_of(bot, q), [task], max_searches=2)

        out.append(
            Case(
                "solve_posture",
                f"target at {x:g} m",
                posture_run,
                expect,
                lambda r: None if np.isfinite(r.error) and not r.success else "E not finite",
                ("target", "overflow"),
                bot.name,
            )
        )
    # joint_limits="clip" keeps the hinges of a composite joint in range (once per robot)
    path = w.tmp / "two_hinges.xml"
    if not path.exists():
        path.write_text(TWO_HINGES)
    mjcf_model = pin.buildModelFromMJCF(str(path))
    for k in range(3):
        goal = rng.uniform(-2.0, 2.0, 3)

        def clip_run(goal: np.ndarray = goal, seed: int = k) -> Any:
            conf = taskik.Configuration(mjcf_model, np.zeros(3))
            tip = taskik.Configuration(mjcf_model, goal).get_transform_frame_to_world("tip")
            task = taskik.PositionTask("tip")
            task.set_target(tip.translation)
            return taskik.solve_posture(conf, [task], max_searches=2, rng=seed)

        out.append(
            Case(
                "solve_posture",
                f"composite joints, clip, goal {k}",
                clip_run,
                ACCEPT,
                check_within_ranges(mjcf_model),
                (),
                bot.name,
            )
        )
    return out


# ------------------------------------------ entry points that arrived after the fuzzer's last run
def check_equal_to(expected: Callable[[], Any], atol: float = 1e-9) -> Callable[[Any], str | None]:
    """A finite array equal (to ``atol``) to what ``expected()`` computes independently."""

    def check(x: Any) -> str | None:
        want = np.asarray(expected(), dtype=float)
        why = finite_array(want.shape)(x)
        if why is None and not np.allclose(x, want, rtol=0.0, atol=atol):
            return f"differs from the independent answer by {np.abs(x - want).max():.3g}"
        return why

    return check


class _LongNameTask(taskik.PositionTask):
    """A position task whose repr (its row label in a report) is long and spans lines."""

    def __repr__(self) -> str:
        return "PositionTask(" + "x" * 150 + "\nsecond line\t|tab)"


@generator
def gen_later_entries(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The public entry points that arrived after the fuzzer last grew:
    ``Configuration.update_from_keyframe`` and ``check_q``; ``Task.adopt`` (a step after
    adopting must equal the step of the task not adopted); ``PostureTask.write_error``
    (against ``compute_error``); ``FrameTask.set_position_cost`` and
    ``set_orientation_cost``; ``ConfigurationLimit.check``; ``limits.PositionBarrier`` (its
    arguments, a step, margins, safe_damping); ``last_relaxation``;
    ``CollisionLimit.expect_check``, ``check_step`` (in and out of order) and ``report``;
    ``BalanceLimit.margins``, ``balance_margin`` and ``status`` (another model's
    configuration); ``Contact`` fields assigned; ``ContactSet.from_points``,
    ``SupportRegion.signed_distance`` and ``contains``; ``solve_posture``'s ``strict``,
    ``limits`` and ``pose_error``; the report's columns (a limit's status line, long task
    names)."""
    model, nv, nq = bot.model, bot.model.nv, bot.model.nq
    own = np.random.default_rng([20261127, getattr(w, "round", 0)])  # (the shared rng untouched)
    q = bot.random_q(own)
    target_q = bot.random_q(own)
    other = w.other(bot)
    frame = bot.frames[0]
    out: list[Case] = []
    vcheck = check_velocity(nv)

    def add(entry: str, label: str, run: Callable[[], Any], exp: str, chk: Any, names: tuple):
        out.append(Case(entry, label, run, exp, chk, names, bot.name))

    # ---- Configuration.update_from_keyframe (a copy of the model with a keyframe "home")
    keyed = pin.Model(model)
    home = bot.random_q(own)
    keyed.referenceConfigurations["home"] = home

    def keyframe(name: Any) -> Callable[[], Any]:
        def run() -> Any:
            conf = taskik.Configuration(keyed, q.copy())
            conf.update_from_keyframe(name)
            return conf

        return run

    for m in name_muts("home", nframes=0):
        if m.label == "nframes (out of range)":
            continue
        add("Configuration.update_from_keyframe", f"name={m.label}", keyframe(m.value), m.expect,
            check_configuration(keyed, home), ("keyframe", "home"))  # fmt: skip
    add("Configuration.update_from_keyframe", "name='home' on a model without keyframes",
        lambda: conf_of(bot, q).update_from_keyframe("home"), REJECT, None,
        ("keyframe", "home"))  # fmt: skip
    bad_key = pin.Model(model)
    bad_key.referenceConfigurations["short"] = np.zeros(max(nq - 1, 0))
    add("Configuration.update_from_keyframe", "keyframe of the wrong size",
        lambda: taskik.Configuration(bad_key, q.copy()).update_from_keyframe("short"),
        REJECT, None, ("q", "keyframe", "size", "shape"))  # fmt: skip

    # ---- Configuration.check_q
    conf0 = conf_of(bot, q)
    qmuts = vector_muts(q)
    if bot.floating:
        bad = q.copy()
        bad[3:7] *= 2.0
        qmuts.append(Mut("quaternion of norm 2", bad, REJECT))
    add_q = [Mut(m.label, m.value, ANY if m.label == "float32 array" else m.expect) for m in qmuts]
    out += _cases("Configuration.check_q", bot, add_q,
                  lambda v: (lambda: conf0.check_q(v)), finite_array((nq,)),
                  ("q", "configuration", "quaternion"), "q=")  # fmt: skip

    # ---- Task.adopt: whatever is adopted, the next step is the one of the task not adopted
    def made(kind: str, m: pin.Model = model, f: str = frame) -> Any:
        if kind == "frame":
            t: Any = taskik.FrameTask(f, 1.0, 0.5)
        elif kind == "position":
            t = taskik.PositionTask(f)
        elif kind == "orientation":
            t = taskik.OrientationTask(f)
        else:
            t = taskik.PostureTask(1e-2)
        goal = taskik.Configuration(m, target_q if m is model else other.q0)
        t.set_target_from_configuration(goal)
        return t

    def served(kind: str, b: Bot, f: str) -> Any:
        """A task of ``kind`` that served a step of robot ``b``."""
        t = made(kind, b.model, f)
        taskik.solve_ik(conf_of(b), [t, _posture_task(b)], 0.01)
        return t

    root = _other_frame(bot, frame)
    for kind in ("frame", "position", "orientation", "posture"):
        plain = lambda kind=kind: taskik.solve_ik(  # noqa: E731
            conf_of(bot, q), [made(kind), _posture_task(bot)], 0.01
        )
        resolved: list[tuple[str, Callable[[], Any], str]] = [
            ("the same task", lambda kind=kind: served(kind, bot, frame), ACCEPT),
            ("a task of another frame", lambda kind=kind: served(kind, bot, root), ACCEPT),
            ("a task of another model",
             lambda kind=kind: served(kind, other, other.frames[0]), ACCEPT),
            ("a task of another type",
             lambda kind=kind: served("posture" if kind != "posture" else "frame", bot, frame),
             ACCEPT),
            ("a task that served no step", lambda kind=kind: made(kind), ACCEPT),
            ("None", lambda: None, ANY),
            ("'abc'", lambda: "abc", ANY),
        ]  # fmt: skip
        for label, make_resolved, exp in resolved:

            def adopted(kind: str = kind, mk: Callable[[], Any] = make_resolved) -> Any:
                t = made(kind)
                t.adopt(mk())
                return taskik.solve_ik(conf_of(bot, q), [t, _posture_task(bot)], 0.01)

            add("Task.adopt", f"{kind}: resolved={label}", adopted, exp,
                check_equal_to(plain, 1e-7), ("adopt", "task", "resolved"))  # fmt: skip

    # ---- PostureTask.write_error (the step's rows of a selection posture)
    def write_error(e_out: Any, conf: Any = None, target: Any = "set") -> Callable[[], Any]:
        def run() -> Any:
            t = taskik.PostureTask(1e-2)
            if target == "set":
                t.set_target(target_q)
            c = conf_of(bot, q) if conf is None else conf
            out_ = e_out() if callable(e_out) else e_out
            t.write_error(c, out_)
            return out_

        return run

    def expected_error() -> np.ndarray:
        t = taskik.PostureTask(1e-2)
        t.set_target(target_q)
        return t.compute_error(conf_of(bot, q))

    dim = len(expected_error())
    ro = np.zeros(dim)
    ro.setflags(write=False)
    for label, e_out, exp in (
        ("e_out=zeros(dim)", lambda: np.zeros(dim), ACCEPT),
        ("e_out=a view of a wider array", lambda: np.zeros(dim + 3)[2 : 2 + dim], ACCEPT),
        ("e_out=length dim+1", lambda: np.zeros(dim + 1), REJECT),
        ("e_out=length dim-1", lambda: np.zeros(max(dim - 1, 0)), REJECT),
        ("e_out=column (dim, 1)", lambda: np.zeros((dim, 1)), REJECT),
        ("e_out=int array", lambda: np.zeros(dim, dtype=int), REJECT),
        ("e_out=float32 array", lambda: np.zeros(dim, dtype=np.float32), REJECT),
        ("e_out=complex array", lambda: np.zeros(dim, dtype=complex), REJECT),
        ("e_out=read-only array", lambda: ro, REJECT),
        ("e_out=list", lambda: [0.0] * dim, REJECT),
        ("e_out=None", lambda: None, REJECT),
        ("e_out='abc'", lambda: "abc", REJECT),
    ):
        chk = check_equal_to(expected_error) if exp == ACCEPT else None
        add("PostureTask.write_error", label, write_error(e_out), exp, chk,
            ("e_out", "error", "shape", "dtype", "float", "writ", "array"))  # fmt: skip
    for label, c, exp in (
        ("configuration=None", None, REJECT),
        ("configuration=q array", q.copy(), REJECT),
        ("configuration=another model's", "other", REJECT),
    ):

        def wrong_conf(c: Any = c) -> Any:
            t = taskik.PostureTask(1e-2)
            t.set_target(target_q)
            cc = conf_of(other) if isinstance(c, str) else c
            t.write_error(cc, np.zeros(dim))

        add("PostureTask.write_error", label, wrong_conf, exp, None,
            ("configuration", "target", "model", "nq", "q"))  # fmt: skip
    add("PostureTask.write_error", "no target set", write_error(lambda: np.zeros(dim),
        target=None), REJECT, None, ("target",))  # fmt: skip

    # ---- FrameTask.set_position_cost / set_orientation_cost, then a step
    for method in ("set_position_cost", "set_orientation_cost"):

        def set_cost(val: Any, method: str = method) -> Callable[[], Any]:
            def run() -> Any:
                c = conf_of(bot, q)
                t = made("frame")
                getattr(t, method)(val)
                return taskik.solve_ik(c, [t, _posture_task(bot)], 0.01)

            return run

        muts = merge(scalar_muts(1.0, NONNEG), vector_muts(np.ones(3), scalar_ok=True))
        out += _cases(f"FrameTask.{method}", bot, _extreme_any(muts), set_cost, vcheck,
                      ("cost",), "cost=")  # fmt: skip

    # ---- ConfigurationLimit.check(q, tol)
    climit = taskik.ConfigurationLimit(model)
    inside = taskik.robots.random_configuration(model, bot.q0, own)
    out += _cases("ConfigurationLimit.check", bot, _float32_any(vector_muts(inside)),
                  lambda v: (lambda: climit.check(v)), None,
                  ("q", "configuration", "limit", "outside"), "q=")  # fmt: skip
    ranges = taskik.configuration.PositionRanges(model)
    if ranges.q_indices.size:
        outside = inside.copy()
        outside[ranges.q_indices[0]] = ranges.upper[0] + 0.5
        add("ConfigurationLimit.check", "q=0.5 past an upper bound",
            lambda: climit.check(outside), REJECT, None, ("outside",))  # fmt: skip
    out += _cases("ConfigurationLimit.check", bot,
                  [m for m in scalar_muts(1e-6, NONNEG) if m.label != "None"],
                  lambda v: (lambda: climit.check(inside, v)), None, ("tol",),
                  "tol=")  # fmt: skip

    # ---- limits.PositionBarrier: arguments, a step, margins and safe damping
    if bot.name != "one_joint":
        p = conf_of(bot, q).get_transform_frame_to_world(frame).translation
        lo, hi = p - 0.5, p + 0.5

        def barrier(**kw: Any) -> Callable[[], Any]:
            args: dict[str, Any] = {"frame": frame, "p_min": lo, "p_max": hi}
            args.update(kw)

            def run() -> Any:
                lim = taskik.limits.PositionBarrier(**args)
                c = conf_of(bot, q)
                v = taskik.solve_ik(c, base_tasks(bot, c, target_q), 0.01, limits=[lim])
                margins = lim.margins(c)
                damping = lim.safe_damping(c)
                if not np.isfinite(margins).all() or not math.isfinite(damping):
                    return np.full(nv, math.nan)
                return v

            return run

        for pname, base in (("p_min", lo), ("p_max", hi)):
            muts = [m for m in vector_muts(base, allow_none=True) if m.label != "empty"]
            out += _cases("limits.PositionBarrier", bot, _float32_any(_extreme_any(muts)),
                          lambda v, pn=pname: barrier(**{pn: v}), vcheck,
                          (pname, "PositionBarrier", "finite", "above"), f"{pname}=")  # fmt: skip

        def upper_of(indices: Any) -> Any:
            """``p_max`` of one value per index (those of ``hi``) when the indices are axes."""
            try:
                return hi[[int(i) for i in indices]]
            except (TypeError, ValueError, IndexError):
                return hi

        out += _cases("limits.PositionBarrier", bot,
                      (("[0, 2]", [0, 2], ACCEPT), ("(2,)", (2,), ACCEPT), ("[]", [], REJECT),
                       ("[0, 0, 1]", [0, 0, 1], REJECT), ("[3]", [3], REJECT),
                       ("[-1]", [-1], REJECT), ("[0.5]", [0.5], REJECT), ("'x'", "x", REJECT),
                       ("[True]", [True], REJECT), ("np.int64 array", np.arange(3), ACCEPT),
                       ("None (all three)", None, ACCEPT), ("1 (a bare int)", 1, ANY)),
                      lambda v: barrier(indices=v, p_min=None, p_max=upper_of(
                          v if isinstance(v, list | tuple | np.ndarray) else [0, 1, 2])),
                      vcheck, ("indices", "PositionBarrier", "index"), "indices=")  # fmt: skip
        gmuts = [
            Mut(m.label, m.value, ANY) if m.label == "[1.0]" else m
            for m in _extreme_any(scalar_muts(1.0, POSITIVE))
        ]  # (one gain for every row)
        out += _cases("limits.PositionBarrier", bot, gmuts, lambda v: barrier(gain=v), vcheck,
                      ("gain",), "gain=")  # fmt: skip
        out += _cases("limits.PositionBarrier", bot, _extreme_any(scalar_muts(0.0, NONNEG)),
                      lambda v: barrier(safe_displacement_gain=v), vcheck,
                      ("safe_displacement_gain",), "safe_displacement_gain=")  # fmt: skip
        out += _cases("limits.PositionBarrier", bot, name_muts(frame, nframes=model.nframes),
                      lambda v: barrier(frame=v), vcheck, ("frame",), "frame=")  # fmt: skip
        add("limits.PositionBarrier", "p_min above p_max", barrier(p_min=hi, p_max=lo), REJECT,
            None, ("p_min", "above"))  # fmt: skip
        add("limits.PositionBarrier", "neither bound", barrier(p_min=None, p_max=None), REJECT,
            None, ("p_min", "p_max"))  # fmt: skip

    # ---- last_relaxation
    add("last_relaxation", "a configuration that never stepped",
        lambda: taskik.last_relaxation(conf_of(bot, q)), ACCEPT,
        lambda r: None if not r else "a relaxation recorded for no step", ())  # fmt: skip
    for label, val in (
        ("None", None),
        ("'abc'", "abc"),
        ("q array", q.copy()),
        ("model", model),
        ("int 1", 1),
        ("[configuration]", [conf0]),
    ):
        add("last_relaxation", f"configuration={label}",
            (lambda v=val: taskik.last_relaxation(v)), REJECT, None,
            ("configuration",))  # fmt: skip

    # ---- ConeLimit.margins with another model's configuration
    add("ConeLimit.margins", "configuration of another model",
        lambda: taskik.ConeLimit(frame, [0, 0, 1], [0, 0, 1], 1.0).margins(conf_of(other)),
        REJECT, None,
        ("frame", "model", "configuration"))  # fmt: skip

    # ---- solve_posture: strict, limits, pose_error
    def posture(**kw: Any) -> Callable[[], Any]:
        def run() -> Any:
            t = made("frame")
            args: dict[str, Any] = {"max_iterations": 3, "max_searches": 1, "rng": 0, "q0": q}
            args.update(kw)
            return taskik.solve_posture(model, [t], **args)

        return run

    def posture_ok(res: Any) -> str | None:
        why = check_q(model)(getattr(res, "q", None))
        if why is None and not (math.isfinite(res.error) and res.error >= 0.0):
            return "error not finite"
        return why

    for label, val, exp in (
        ("True", True, ACCEPT),
        ("False", False, ACCEPT),
        ("np.bool_(True)", np.bool_(True), ACCEPT),
        ("1", 1, REJECT),
        ("'yes'", "yes", REJECT),
        ("None", None, REJECT),
    ):
        add("solve_posture", f"strict={label}", posture(strict=val, method="qp",
            limits=[taskik.ConfigurationLimit(model)]), exp, posture_ok,
            ("strict",))  # fmt: skip
    for label, val, exp in (
        ("pose_error='world'", {"pose_error": "world"}, ANY),  # (unit costs, gain 1 only)
        ("pose_error='WORLD'", {"pose_error": "WORLD"}, REJECT),
        ("pose_error=None", {"pose_error": None}, REJECT),
        ("limits=[] (any method)", {"limits": []}, ACCEPT),
        (
            "limits=[ConfigurationLimit] method='qp'",
            {"limits": [taskik.ConfigurationLimit(model)], "method": "qp"},
            ACCEPT,
        ),
        (
            "limits=[ConfigurationLimit] method='gn'",
            {"limits": [taskik.ConfigurationLimit(model)], "method": "gn"},
            REJECT,
        ),
        (
            "limits=[VelocityLimit(other model)] method='qp'",
            {"limits": [taskik.VelocityLimit(other.model)], "method": "qp"},
            REJECT,
        ),
        ("limits=[None] method='qp'", {"limits": [None], "method": "qp"}, REJECT),
        ("limits='abc' method='qp'", {"limits": "abc", "method": "qp"}, REJECT),
        ("limits=[NaN box] method='qp'", {"limits": [NanLimit()], "method": "qp"}, REJECT),
    ):
        add("solve_posture", label, posture(**val), exp, posture_ok,
            ("pose_error", "limit", "method", "model", "nan", "bound"))  # fmt: skip

    # ---- far targets (1e30 ... 1e200 m): a step or NoSolutionFound, without a numpy warning
    def far(kind: str, x: float, backend: str | None = None) -> Callable[[], Any]:
        def run() -> Any:
            c = conf_of(bot, q)
            if kind == "frame":
                t: Any = taskik.FrameTask(frame)
                t.set_target(pin.SE3(np.eye(3), np.array([x, 0.0, 0.0])))
            elif kind == "position":
                t = taskik.PositionTask(frame)
                t.set_target([x, 0.0, 0.0])
            else:
                t = taskik.ComTask()
                t.set_target([x, 0.0, 0.0])
            kw = {} if backend is None else {"backend": backend}
            return taskik.solve_ik(c, [t, _posture_task(bot)], 0.01, **kw)

        return run

    for x in (1e30, 1e100, 1e154, 1e200):
        for kind in ("frame", "position", "com"):
            add("solve_ik", f"{kind} target at {x:g} m", far(kind, x), ANY, vcheck,
                ("target", "solution", "finite"))  # fmt: skip
        for backend in ("dls", "transpose"):
            add(f"solve_ik backend={backend}", f"frame target at {x:g} m", far("frame", x, backend),
                ANY, vcheck, ("target", "solution", "finite"))  # fmt: skip

    # ---- report: the limit status column, long task names
    def report_with(make_tasks: Callable[[taskik.Configuration], list[Any]], lims: Any = None):
        def run() -> Any:
            c = conf_of(bot, q)
            tasks = make_tasks(c)
            limits = None if lims is None else lims()
            v = taskik.solve_ik(c, tasks, 0.01, limits=limits)
            rep = taskik.report(c, tasks, 0.01, v, limits=limits)
            text = str(rep)
            if any(len(line) > 120 for line in text.splitlines()):
                return "a line of the report is wider than 120 characters"
            return rep

        return run

    def long_task(c: taskik.Configuration) -> list[Any]:
        t = _LongNameTask(frame)
        t.set_target_from_configuration(conf_of(bot, target_q))
        return [t, _posture_task(bot)]

    add("report", "a task named by 150 characters and a newline", report_with(long_task),
        ACCEPT, finite_report(), ())  # fmt: skip
    if bot.name != "one_joint":
        add("report", "limits=[CollisionLimit]", report_with(
            lambda c: base_tasks(bot, c, target_q),
            lambda: [taskik.CollisionLimit(model, taskik.geometry.fit_capsules(model, 0.03))]),
            ACCEPT, finite_report(), ())  # fmt: skip

    # ---- CollisionLimit.expect_check / check_step / report
    if bot.name != "one_joint":
        caps = taskik.geometry.fit_capsules(model, 0.03)

        solved, same = object(), object()  # (the step solved, the configuration stepped)

        def coll(order: str, v: Any = solved, dt: Any = 0.01, conf: Any = same):
            def run() -> Any:
                c = conf_of(bot, q)
                lim = taskik.CollisionLimit(model, caps)
                tasks = base_tasks(bot, c, target_q)
                step = taskik.solve_ik(c, tasks, 0.01, limits=[lim])
                vv = step if v is solved else v
                cc = c if conf is same else conf
                if order == "announced":
                    lim.expect_check()
                    lim.compute_inequalities(c, 0.01)
                elif order == "moved":
                    lim.expect_check()
                    lim.compute_inequalities(c, 0.01)
                    c.integrate_inplace(step, 0.01)
                elif order == "fresh":
                    lim = taskik.CollisionLimit(model, caps)
                res = lim.check_step(cc, vv, dt)
                if res is not None:
                    G, h = res
                    if G.shape != (len(h), nv) or not np.isfinite(G).all():
                        return np.full(nv, math.nan)
                return step

            return run

        for order in ("announced", "after solve_ik", "fresh", "moved"):
            add("CollisionLimit.check_step", f"the solved step ({order})", coll(order), ACCEPT,
                vcheck, ())  # fmt: skip
        for m in vector_muts(np.zeros(nv)):
            if m.expect == ACCEPT:
                continue
            for order in ("announced", "fresh"):
                add("CollisionLimit.check_step", f"v={m.label} ({order})",
                    coll(order, v=m.value), m.expect, vcheck, ("v",))  # fmt: skip
        for m in scalar_muts(0.01, POSITIVE):
            if m.expect == ACCEPT:
                continue
            for order in ("announced", "fresh"):
                add("CollisionLimit.check_step", f"dt={m.label} ({order})",
                    coll(order, dt=m.value), m.expect, vcheck, ("dt",))  # fmt: skip
        for label, val in (("None", None), ("another model's", "other"), ("q array", q.copy())):
            for order in ("announced", "fresh"):
                add("CollisionLimit.check_step", f"configuration={label} ({order})",
                    coll(order, conf=conf_of(other) if isinstance(val, str) else val), REJECT,
                    vcheck,
                    ("configuration", "model"))  # fmt: skip

        def coll_report(v: Any = solved, dt: Any = 0.01, conf: Any = same):
            def run() -> Any:
                c = conf_of(bot, q)
                lim = taskik.CollisionLimit(model, caps)
                step = taskik.solve_ik(c, base_tasks(bot, c, target_q), 0.01, limits=[lim])
                rep = lim.report(c if conf is same else conf, step if v is solved else v, dt)
                d = np.asarray(rep.distances, dtype=float)
                if not np.isfinite(d).all():
                    return "NaN in the report's distances"
                return rep

            return run

        def rep_ok(rep: Any) -> str | None:
            return rep if isinstance(rep, str) else None

        add("CollisionLimit.report", "the solved step", coll_report(), ACCEPT, rep_ok, ())
        add("CollisionLimit.report", "v=None", coll_report(v=None), ACCEPT, rep_ok, ())
        for m in vector_muts(np.zeros(nv), allow_none=True):
            if m.expect != ACCEPT:
                add("CollisionLimit.report", f"v={m.label}", coll_report(v=m.value), m.expect,
                    rep_ok, ("v",))  # fmt: skip
        for m in scalar_muts(0.01, POSITIVE):
            if m.expect != ACCEPT:
                add("CollisionLimit.report", f"dt={m.label}", coll_report(dt=m.value), m.expect,
                    rep_ok, ("dt",))  # fmt: skip
        for label, val in (("None", None), ("another model's", conf_of(other))):
            add("CollisionLimit.report", f"configuration={label}", coll_report(conf=val), REJECT,
                rep_ok, ("configuration", "model"))  # fmt: skip

    # ---- contacts: BalanceLimit's margins, balance_margin, status; Contact fields;
    # ContactSet.from_points; SupportRegion.signed_distance and contains
    from taskik.contacts import Contact, ContactSet, support_region

    stance = [Contact.rectangle(frame, 0.2, 0.1)]
    blimit = taskik.BalanceLimit(stance)
    for meth in ("margins", "balance_margin", "status"):
        for label, val in (
            ("None", None),
            ("q array", q.copy()),
            ("'abc'", "abc"),
            ("another model's", conf_of(other)),
            ("model", model),
        ):
            add(f"BalanceLimit.{meth}", f"configuration={label}",
                (lambda m=meth, v=val: getattr(blimit, m)(v)), REJECT, None,
                ("configuration", "frame", "model", frame))  # fmt: skip
        add(f"BalanceLimit.{meth}", "configuration=valid",
            (lambda m=meth: getattr(taskik.BalanceLimit(stance), m)(conf_of(bot, q))), ACCEPT,
            lambda r: None if np.isfinite(getattr(r, "margin", r)).all() else "NaN",
            ())  # fmt: skip
    contact = stance[0]
    for field_name, val in (
        ("frame", "x"),
        ("points", np.zeros((1, 3))),
        ("normal", [1, 0, 0]),
        ("friction", 0.3),
        ("held", False),
    ):
        add("Contact", f"assigned {field_name}",
            (lambda f=field_name, v=val: setattr(contact, f, v)), REJECT, None,
            ("fixed", field_name))  # fmt: skip
    region = support_region(ContactSet.of(conf_of(bot, q), stance))
    centre = region.vertices.mean(axis=0) if len(region.vertices) else np.zeros(2)
    for meth in ("signed_distance", "contains"):
        for m in vector_muts(centre):
            exp = m.expect
            if m.label in ("length n+1",):
                exp = ANY  # (x, y, z) of a CoM: z ignored
            add(f"contacts.SupportRegion.{meth}", f"point={m.label}",
                (lambda mm=meth, v=m.value: getattr(region, mm)(v)), exp,
                (lambda r: None if isinstance(r, bool | np.bool_) or math.isfinite(r)
                 else "NaN/inf distance"), ("point",))  # fmt: skip
    out += _cases("contacts.SupportRegion.contains", bot,
                  [m for m in scalar_muts(0.0, lambda x: math.isfinite(x))],
                  lambda v: (lambda: region.contains(centre, v)),
                  lambda r: None if isinstance(r, bool | np.bool_) else "not a bool",
                  ("margin",), "margin=")  # fmt: skip
    world_pts = [c.world_points(conf_of(bot, q)) for c in stance]
    for label, pts, cs, exp in (
        ("valid", world_pts, stance, ACCEPT),
        ("points=[] and contacts=[]", [], [], REJECT),
        ("one more contact than points", world_pts, stance * 2, REJECT),
        ("NaN in points", [np.full_like(world_pts[0], math.nan)], stance, REJECT),
        ("points of shape (k, 2)", [world_pts[0][:, :2]], stance, REJECT),
        ("points=None", None, stance, REJECT),
        ("contacts=None", world_pts, None, REJECT),
        ("contacts=['x']", world_pts, ["x"], REJECT),
    ):
        add("contacts.ContactSet.from_points", label,
            (lambda p=pts, c=cs: ContactSet.from_points(p, c)), exp,
            (lambda s: None if np.isfinite(s.points).all() else "NaN points"),
            ("points", "contact"))  # fmt: skip
    return out


def check_matrix_muts(A: np.ndarray) -> list[Mut]:
    """Mutations of a real matrix argument (``A`` is valid)."""
    m, n = A.shape
    nan = A.copy()
    nan[0, 0] = math.nan
    inf = A.copy()
    inf[-1, -1] = math.inf
    huge = A.copy()
    huge[0, 0] = 1e300
    return [
        Mut("valid ndarray", A.copy(), ACCEPT),
        Mut("nested list", A.tolist(), ACCEPT),
        Mut("NaN at [0, 0]", nan, REJECT),
        Mut("inf at [-1, -1]", inf, REJECT),
        Mut("1e300 at [0, 0]", huge, ANY),
        Mut("transposed", A.T.copy(), REJECT if m != n else ACCEPT),
        Mut("flat", A.ravel().copy(), REJECT if m > 1 else ANY),
        Mut("3-d", A[None].copy(), REJECT),
        Mut("empty (0, n)", np.zeros((0, n)), ANY),
        Mut("complex", A.astype(complex), REJECT),
        Mut("strings", np.full((m, n), "a"), REJECT),
        Mut("bool", np.ones((m, n), dtype=bool), ANY if BOOL_IS_NUMBER else REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
    ]


@generator
def gen_array_entries(w: World, bot: Bot, rng: np.random.Generator) -> list[Case]:
    """The array-level public functions of the submodules: the classic backends
    (``solve_pinv``, ``solve_dls``, ``solve_dls_svd``, ``solve_sdls``, ``solve_transpose``,
    ``check_solver``, ``RegularizedJacobian``), ``hierarchy.null_basis``,
    ``contacts.friction_generators`` and ``convex_hull_2d``, ``utils`` (``get_joint_idx``,
    ``get_root_joint_dim``, ``VectorSpace``), ``plots.task_label`` and the retargeting's
    ``KeypointTask.from_dict`` and ``RetargetMapping.from_dict``. Results are checked
    against an independent answer where there is one (numpy's pseudo-inverse, the hull
    containing every point)."""
    from taskik import backends, hierarchy, plots, utils
    from taskik.contacts import convex_hull_2d, friction_generators

    own = np.random.default_rng([20261128, getattr(w, "round", 0)])
    model = bot.model
    m_rows, n_cols = 3, max(model.nv, 2)
    A = own.standard_normal((m_rows, n_cols))
    c = own.standard_normal(m_rows)
    out: list[Case] = []

    def add(entry: str, label: str, run: Callable[[], Any], exp: str, chk: Any, names: tuple,
            module: str = "") -> None:  # fmt: skip
        out.append(Case(entry, label, run, exp, chk, names, bot.name, module=module))

    def pinv_ok(x: Any) -> str | None:
        why = finite_array((n_cols,))(x)
        if why is None and not np.allclose(x, np.linalg.pinv(A) @ c, atol=1e-8):
            return "not the pseudo-inverse solution"
        return why

    solvers: list[tuple[str, Callable[..., Any], Any]] = [
        ("backends.solve_pinv", lambda AA, cc: backends.solve_pinv(AA, cc), pinv_ok),
        ("backends.solve_dls", lambda AA, cc: backends.solve_dls(AA, cc, 1e-3), None),
        ("backends.solve_dls_svd", lambda AA, cc: backends.solve_dls_svd(AA, cc, 1e-3), None),
        ("backends.solve_sdls", lambda AA, cc: backends.solve_sdls(AA, cc), None),
        ("backends.solve_transpose", lambda AA, cc: backends.solve_transpose(AA, cc), None),
    ]
    for entry, fn, chk in solvers:
        base = chk or finite_array((n_cols,))
        for mut in check_matrix_muts(A):
            exp = mut.expect
            if mut.label == "transposed" and exp == ACCEPT:
                exp = ANY
            add(entry, f"A={mut.label}", (lambda f=fn, a=mut.value: f(a, c)), exp,
                base if mut.label in ("valid ndarray", "nested list") else None,
                ("A", "matrix", "shape", "finite", "numeric", "real"), "backends")  # fmt: skip
        for mut in vector_muts(c):
            add(entry, f"c={mut.label}", (lambda f=fn, v=mut.value: f(A, v)), mut.expect,
                base if mut.expect == ACCEPT and mut.label != "float32 array" else None,
                ("c", "e", "shape", "finite", "numeric", "real", "rows"), "backends")  # fmt: skip
    for label, kw, exp in (
        ("damping=0.0", {"damping": 0.0}, ANY),
        ("damping=-1.0", {"damping": -1.0}, REJECT),
        ("damping=nan", {"damping": math.nan}, REJECT),
        ("damping=None", {"damping": None}, REJECT),
        ("damping=vector of n", {"damping": np.full(n_cols, 1e-3)}, ANY),
        ("damping=vector of n+1", {"damping": np.full(n_cols + 1, 1e-3)}, REJECT),
    ):
        add("backends.solve_dls", label, (lambda k=kw: backends.solve_dls(A, c, **k)), exp,
            finite_array((n_cols,)), ("damping",), "backends")  # fmt: skip
    for label, kw, exp in (
        ("rcond=-1.0", {"rcond": -1.0}, REJECT),
        ("rcond=nan", {"rcond": math.nan}, REJECT),
        ("rcond='abc'", {"rcond": "abc"}, REJECT),
        ("rcond=0.0", {"rcond": 0.0}, ANY),
    ):
        add("backends.solve_pinv", label, (lambda k=kw: backends.solve_pinv(A, c, **k)), exp,
            finite_array((n_cols,)), ("rcond",), "backends")  # fmt: skip
    for label, kw, exp in (
        ("gamma_max=0.0", {"gamma_max": 0.0}, ANY),
        ("gamma_max=-1.0", {"gamma_max": -1.0}, REJECT),
        ("gamma_max=nan", {"gamma_max": math.nan}, REJECT),
        ("starts=[0]", {"starts": [0]}, ACCEPT),
        ("starts=[0, 5]", {"starts": [0, 5]}, REJECT),
        ("starts=[1]", {"starts": [1]}, REJECT),
        ("starts=[0, 0]", {"starts": [0, 0]}, REJECT),
        ("starts='abc'", {"starts": "abc"}, REJECT),
    ):
        add("backends.solve_sdls", label, (lambda k=kw: backends.solve_sdls(A, c, **k)), exp,
            finite_array((n_cols,)), ("gamma_max", "starts", "rows", "group"),
            "backends")  # fmt: skip
    for label, val, exp in (
        ("'daqp'", "daqp", ACCEPT),
        ("'nope'", "nope", REJECT),
        ("None", None, REJECT),
        ("1", 1, REJECT),
        ("''", "", REJECT),
    ):
        add("backends.check_solver", f"solver={label}", (lambda s=val: backends.check_solver(s)),
            exp, lambda s: None if isinstance(s, str) else "not a name", ("solver",),
            "backends")  # fmt: skip
    for pname, base, valid in (
        ("gamma0", 0.5, lambda x: x != 0 and math.isfinite(x)),  # (its sign is a branch)
        ("sigma_thr", 0.05, POSITIVE),
        ("rcond", 1e-10, NONNEG),  # (0: no cut-off, as for solve_pinv)
    ):
        out += [
            Case("backends.RegularizedJacobian", f"{pname}={mut.label}",
                 (lambda p=pname, v=mut.value: backends.RegularizedJacobian(**{p: v})),
                 mut.expect if mut.expect != ACCEPT else ANY, None, (pname,), bot.name,
                 module="backends")
            for mut in scalar_muts(base, valid)
        ]  # fmt: skip
    for label, val, exp in (
        ("'auto'", "auto", ACCEPT),
        ("'nope'", "nope", REJECT),
        ("None", None, REJECT),
    ):
        add("backends.RegularizedJacobian", f"branch={label}",
            (lambda b=val: backends.RegularizedJacobian(branch=b)), exp, None, ("branch",),
            "backends")  # fmt: skip

    # hierarchy.null_basis
    def null_ok(res: Any) -> str | None:
        N, rank = res
        if not isinstance(N, np.ndarray) or not np.isfinite(N).all():
            return "null basis not finite"
        if N.size and not np.allclose(A @ N, 0.0, atol=1e-8):
            return "B N is not zero"
        return None

    for mut in check_matrix_muts(A):
        exp = ANY if mut.label == "transposed" else mut.expect
        add("hierarchy.null_basis", f"B={mut.label}", (lambda b=mut.value: hierarchy.null_basis(b)),
            exp, null_ok if mut.label == "valid ndarray" else None,
            ("B", "matrix", "shape", "finite", "numeric", "real"), "hierarchy")  # fmt: skip
    for mut in scalar_muts(0.0, NONNEG):
        add("hierarchy.null_basis", f"scale={mut.label}",
            (lambda s=mut.value: hierarchy.null_basis(A, s)), ANY if mut.expect == ACCEPT
            else mut.expect, None, ("scale",), "hierarchy")  # fmt: skip

    # contacts.friction_generators, convex_hull_2d
    def gens_ok(G: Any) -> str | None:
        why = finite_array((8, 3))(G)
        if why is None and not np.allclose(G[:, 2], 1.0):
            return "a generator off the cone's axis component"
        return why

    for mut in vector_muts(np.array([0.0, 0.0, 1.0])):
        zero = isinstance(mut.value, np.ndarray) and mut.value.size == 3 and not np.any(mut.value)
        add("contacts.friction_generators", f"normal={mut.label}",
            (lambda n=mut.value: friction_generators(n, 0.5, 8)),
            REJECT if zero else mut.expect, None,
            ("normal", "shape", "finite", "numeric", "real"), "contacts")  # fmt: skip
    add("contacts.friction_generators", "valid", lambda: friction_generators(np.array(
        [0.0, 0.0, 1.0]), 0.5, 8), ACCEPT, gens_ok, (), "contacts")  # fmt: skip
    for mut in scalar_muts(0.5, lambda x: 0.0 < x <= 100.0):
        add("contacts.friction_generators", f"friction={mut.label}",
            (lambda f=mut.value: friction_generators(np.array([0.0, 0.0, 1.0]), f, 8)),
            mut.expect, None, ("friction",), "contacts")  # fmt: skip
    for label, val, exp in (
        ("8", 8, ACCEPT),
        ("3", 3, ACCEPT),
        ("2", 2, REJECT),
        ("0", 0, REJECT),
        ("-4", -4, REJECT),
        ("3.5", 3.5, REJECT),
        ("True", True, REJECT),
        ("None", None, REJECT),
        ("10**6 (above MAX_EDGES)", 10**6, REJECT),
    ):
        add("contacts.friction_generators", f"edges={label}",
            (lambda e=val: friction_generators(np.array([0.0, 0.0, 1.0]), 0.5, e)), exp,
            finite_array(), ("edges",), "contacts")  # fmt: skip
    pts = own.uniform(-1.0, 1.0, (12, 2))

    def hull_ok(H: Any) -> str | None:
        why = finite_array()(H)
        if why is not None:
            return why
        if H.ndim != 2 or H.shape[1] != 2:
            return f"hull of shape {H.shape}"
        # every point inside the counter-clockwise hull
        for i in range(len(H)):
            a, b = H[i], H[(i + 1) % len(H)]
            cross = (b[0] - a[0]) * (pts[:, 1] - a[1]) - (b[1] - a[1]) * (pts[:, 0] - a[0])
            if (cross < -1e-9).any():
                return "a point outside the hull"
        return None

    hmuts = [
        Mut("valid", pts.copy(), ACCEPT),
        Mut("list", pts.tolist(), ACCEPT),
        Mut("one point", pts[:1].copy(), ANY),
        Mut("empty (0, 2)", np.zeros((0, 2)), ANY),
        Mut("all equal", np.ones((5, 2)), ANY),
        Mut("collinear", np.c_[np.arange(5.0), np.arange(5.0)], ANY),
        Mut("duplicates", np.vstack([pts, pts]), ACCEPT),
        Mut("(k, 3)", np.c_[pts, pts[:, :1]], REJECT),
        Mut("flat", pts.ravel().copy(), REJECT),
        Mut("NaN", np.where(np.arange(24).reshape(12, 2) == 3, math.nan, pts), REJECT),
        Mut("1e300", np.where(np.arange(24).reshape(12, 2) == 3, 1e300, pts), ANY),
        Mut("complex", pts.astype(complex), REJECT),
        Mut("None", None, REJECT),
        Mut("'abc'", "abc", REJECT),
    ]
    for mut in hmuts:
        add("contacts.convex_hull_2d", f"points={mut.label}",
            (lambda p=mut.value: convex_hull_2d(p)), mut.expect,
            hull_ok if mut.label in ("valid", "list", "duplicates") else finite_array(),
            ("points", "shape", "finite", "numeric", "real"), "contacts")  # fmt: skip

    # utils
    joint = model.names[-1]
    for mut in name_muts(joint, nframes=model.njoints):
        add("utils.get_joint_idx", f"joint_name={mut.label}",
            (lambda j=mut.value: utils.get_joint_idx(model, j)), mut.expect,
            lambda r: None if isinstance(r, tuple) and len(r) == 2 else "not (idx_q, idx_v)",
            ("joint",), "configuration")  # fmt: skip
    for label, val in (("None", None), ("'robot'", "robot"), ("a Configuration", conf_of(bot))):
        for entry, fn in (
            ("utils.get_joint_idx", lambda mm: utils.get_joint_idx(mm, joint)),
            ("utils.get_root_joint_dim", utils.get_root_joint_dim),
        ):
            add(entry, f"model={label}", (lambda f=fn, v=val: f(v)), REJECT, None,
                ("model",), "configuration")  # fmt: skip
    add("utils.get_root_joint_dim", "model", lambda: utils.get_root_joint_dim(model), ACCEPT,
        lambda r: None if isinstance(r, tuple) and len(r) == 2 else "not (nq, nv)", (),
        "configuration")  # fmt: skip
    for label, val, exp in (
        ("3", 3, ACCEPT),
        ("0", 0, ANY),
        ("-1", -1, REJECT),
        ("2.5", 2.5, REJECT),
        ("None", None, REJECT),
        ("'3'", "3", REJECT),
        ("True", True, REJECT),
        ("np.int64(3)", np.int64(3), ACCEPT),
    ):
        add("utils.VectorSpace", f"dim={label}", (lambda d=val: utils.VectorSpace(d).zeros),
            exp, finite_array(), ("dim",), "configuration")  # fmt: skip

    # plots.task_label
    for label, val, exp in (
        ("a FrameTask", taskik.FrameTask(bot.frames[0]), ACCEPT),
        ("a PostureTask", taskik.PostureTask(1.0), ACCEPT),
        ("None", None, REJECT),
        ("'abc'", "abc", REJECT),
        ("a limit", taskik.VelocityLimit(model), REJECT),
    ):
        add("plots.task_label", f"task={label}", (lambda t=val: plots.task_label(t)), exp,
            lambda s: None if isinstance(s, str) and s else "not a label", ("task",),
            "plots")  # fmt: skip

    # hierarchy.solve_hierarchy and check_levels called directly
    from taskik.geometry.robot import check_pairs
    from taskik.limits.limit import velocity_index_name
    from taskik.relax import least_violation, relax_rank

    q = bot.random_q(own)
    target_q = bot.random_q(own)

    def levels_of(conf: taskik.Configuration) -> list[list[Any]]:
        tasks = base_tasks(bot, conf, target_q)
        return [tasks[:1], tasks[1:]]

    def hier(mk: Callable[[list[list[Any]]], Any] = lambda lv: lv, **kw: Any) -> Callable:
        def run() -> Any:
            conf = conf_of(bot, q)
            args: dict[str, Any] = {"dt": 0.01}
            args.update(kw)
            return hierarchy.solve_hierarchy(conf, mk(levels_of(conf)), **args)

        return run

    hcheck = check_velocity(model.nv)
    for label, mk, exp in (
        ("levels valid", lambda lv: lv, ACCEPT),
        ("levels flat list", lambda lv: lv[0] + lv[1], REJECT),
        ("levels []", lambda lv: [], REJECT),
        ("levels [[None]]", lambda lv: [[None]], REJECT),
        ("levels None", lambda lv: None, REJECT),
        ("levels 'abc'", lambda lv: "abc", REJECT),
    ):
        add("hierarchy.solve_hierarchy", label, hier(mk), exp, hcheck, ("level", "task"),
            "hierarchy")  # fmt: skip
        add("hierarchy.check_levels", label,
            (lambda mk=mk: hierarchy.check_levels(mk(levels_of(conf_of(bot, q))))), exp,
            None, ("level", "task"), "hierarchy")  # fmt: skip
    for mut in scalar_muts(0.01, POSITIVE):
        add("hierarchy.solve_hierarchy", f"dt={mut.label}", hier(dt=mut.value),
            mut.expect, hcheck, ("dt",), "hierarchy")  # fmt: skip
    for label, kw, exp in (
        ("method='nope'", {"method": "nope"}, REJECT),
        ("method=None", {"method": None}, REJECT),
        ("damping=-1.0", {"damping": -1.0}, REJECT),
        ("damping=nan", {"damping": math.nan}, REJECT),
        ("strict='yes'", {"strict": "yes"}, REJECT),
        ("adaptive=None", {"adaptive": None}, REJECT),
        ("solver='nope'", {"solver": "nope"}, REJECT),
        (
            "limits=[VelocityLimit(other model)]",
            {"limits": [taskik.VelocityLimit(w.other(bot).model)]},
            REJECT,
        ),
        ("configuration=None", {"configuration": None}, REJECT),
    ):

        def no_conf() -> Any:
            return hierarchy.solve_hierarchy(None, levels_of(conf_of(bot, q)), 0.01)

        add("hierarchy.solve_hierarchy", label, no_conf if "configuration" in kw else hier(**kw),
            exp, hcheck,
            ("method", "damping", "strict", "adaptive", "solver", "limit", "model",
             "configuration"), "hierarchy")  # fmt: skip

    # small helpers of the submodules: check_pairs, velocity_index_name, relax_rank,
    # least_violation
    for label, pairs, exp in (
        ("[(0, 1)]", [(0, 1)], ACCEPT),
        ("[(1, 0)] (sorted)", [(1, 0)], ACCEPT),
        ("[(0, 0)]", [(0, 0)], REJECT),
        ("[(0, 5)] (out of range)", [(0, 5)], REJECT),
        ("[(0, -1)]", [(0, -1)], REJECT),
        ("[(0, 1.5)]", [(0, 1.5)], REJECT),
        ("[(0, True)]", [(0, True)], REJECT),
        ("[(0, 1, 2)]", [(0, 1, 2)], REJECT),
        ("None", None, REJECT),
        ("'ab'", "ab", REJECT),
    ):
        add("geometry.check_pairs", f"pairs={label}", (lambda p=pairs: check_pairs(p, 3)), exp,
            lambda r: None if isinstance(r, list) else "not a list", ("pair",),
            "geometry")  # fmt: skip
    for label, i, exp in (
        ("0", 0, ACCEPT),
        ("nv-1", model.nv - 1, ACCEPT),
        ("nv (out of range)", model.nv, REJECT),
        ("-1", -1, REJECT),
        ("1.5", 1.5, REJECT),
        ("None", None, REJECT),
        ("True", True, REJECT),
    ):
        add("limits.velocity_index_name", f"i={label}",
            (lambda k=i: velocity_index_name(model, k)), exp,
            lambda r: None if isinstance(r, str) and r else "not a name", ("index", "velocity"),
            "limits")  # fmt: skip
    for label, lim, exp in (
        ("VelocityLimit", taskik.VelocityLimit(model), ACCEPT),
        ("None", None, REJECT),
        ("'abc'", "abc", REJECT),
    ):
        add("relax.relax_rank", f"limit={label}", (lambda x=lim: relax_rank(x)), exp, None,
            ("limit",), "solve")  # fmt: skip
    G = own.standard_normal((4, 3))
    h = own.standard_normal(4)
    for label, args, exp in (
        ("valid", (G, h, None, None, np.zeros(4)), ACCEPT),
        ("G None", (None, h, None, None, np.zeros(4)), REJECT),
        ("h of 3", (G, h[:3], None, None, np.zeros(4)), REJECT),
        ("NaN in h", (G, np.full(4, math.nan), None, None, np.zeros(4)), REJECT),
        ("ranks of 3", (G, h, None, None, np.zeros(3)), REJECT),
        ("lb of 2", (G, h, np.zeros(2), None, np.zeros(4)), REJECT),
    ):
        add("relax.least_violation", label, (lambda a=args: least_violation(*a)), exp,
            None, ("G", "h", "rank", "lb", "bound", "row", "shape"), "solve")  # fmt: skip

    # retarget's from_dict
    if getattr(w, "round", 0) < HEAVY_CYCLES * len(w.order):
        from taskik.retarget import KeypointTask, RetargetMapping

        frame = bot.frames[0]
        kp = {"frame": frame, "keypoint": "hand", "position_cost": 1.0}
        for label, entry, exp in (
            ("valid", kp, ANY),
            ("None", None, REJECT),
            ("a list", [kp], REJECT),
            ("position_cost='abc'", {**kp, "position_cost": "abc"}, REJECT),
            ("position_cost=nan", {**kp, "position_cost": math.nan}, REJECT),
            ("position_cost=-1", {**kp, "position_cost": -1.0}, REJECT),
            ("unknown key", {**kp, "nope": 1}, REJECT),
            ("offset of 2", {**kp, "offset": [0.0, 0.0]}, REJECT),
        ):
            add("retarget.KeypointTask.from_dict", label,
                (lambda e=entry: KeypointTask.from_dict(e, "fuzz")), exp, None,
                ("position_cost", "keypoint", "frame", "offset", "nope", "fuzz", "dict",
                 "mapping", "entry"), "retarget")  # fmt: skip
        for label, data, exp in (
            ("None", None, REJECT),
            ("[]", [], REJECT),
            ("{}", {}, REJECT),
            ("{'robot': 1}", {"robot": 1}, REJECT),
            ("'abc'", "abc", REJECT),
        ):
            add("retarget.RetargetMapping.from_dict", label,
                (lambda d=data: RetargetMapping.from_dict(d)), exp, None,
                ("mapping", "robot", "keypoint", "dict", "task"), "retarget")  # fmt: skip
    return out


def generate(world: World, n: int, seed: int = 0, min_rounds: int | None = None) -> list[Case]:
    """At least ``n`` cases: whole rounds of every generator, one robot per round (in turn,
    every robot at least once unless ``min_rounds`` says otherwise), with seeded random
    configurations and targets."""
    rng = np.random.default_rng(seed)
    if min_rounds is None:
        min_rounds = len(world.order)
    cases: list[Case] = []
    r = 0
    while len(cases) < n or r < min_rounds:
        bot = world.bots[world.order[r % len(world.order)]]
        world.round = r
        for gen in GENERATORS:
            made = gen(world, bot, rng)
            for c in made:
                c.source = gen.__name__
            cases += made
        r += 1
    return cases


#: Cases a subsample always keeps: those whose check compares with an independent answer
#: (coal, a plain loop, retarget itself, the relation held, the joint held still, ...).
KEY_LABELS = (
    "coupling held",
    "exact singularity",
    "direction opposite",
    "against coal",
    "resume, part files",
    "equal to retarget",
    "step must be zero",
    "all_but",
    "read back",
    "joints=list, backend=",
)


def subsample(cases: Sequence[Case], every: dict[str, int]) -> list[Case]:
    """One case in ``every[generator]`` of each entry point of that generator (the first,
    then every k-th, so every entry point keeps at least one case) and every case of
    :data:`KEY_LABELS`; generators not named keep all their cases. The seeded test runs
    this subset to stay fast."""
    seen: Counter = Counter()
    out = []
    for c in cases:
        k = every.get(c.source, 1)
        key = (c.source, c.entry)
        if seen[key] % k == 0 or any(label in c.label for label in KEY_LABELS):
            out.append(c)
        seen[key] += 1
    return out


def run_cases(
    cases: Sequence[Case],
    progress: Callable[[int], None] | None = None,
    error_type: type[BaseException] | None = None,
    isolate: bool | None = None,
) -> list[Outcome]:
    """Classify every case, in order. ``isolate`` (default: on where ``os.fork`` exists) runs
    them in a forked worker that reports each outcome through a pipe: a case that kills the
    worker (segfault, abort) or runs past :data:`CASE_TIMEOUT` is counted as a ``crash`` and
    a new worker, forked from this process again, goes on with the next case."""
    if isolate is None:
        isolate = hasattr(os, "fork")
    if not isolate:
        out = []
        for i, case in enumerate(cases):
            t0 = time.perf_counter()
            o = classify(case, error_type)
            o.seconds = time.perf_counter() - t0
            out.append(o)
            if progress is not None:
                progress(i)
        return out
    return _run_forked(cases, progress, error_type)


def _run_forked(
    cases: Sequence[Case],
    progress: Callable[[int], None] | None,
    error_type: type[BaseException] | None,
) -> list[Outcome]:
    import pickle
    import select
    import signal
    import struct
    import sys

    done: list[Outcome | None] = [None] * len(cases)
    start = 0
    while start < len(cases):
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: classify from ``start`` on, one record per case
            os.close(read_fd)
            import faulthandler

            faulthandler.disable()  # a crash is reported by the parent, not traced here
            if QUIET_WORKER:  # progress bars and prints of the cases: not the table's
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
            code = 0
            try:
                for j in range(start, len(cases)):
                    t0 = time.perf_counter()
                    o = classify(cases[j], error_type)
                    dt = time.perf_counter() - t0
                    blob = pickle.dumps((j, o.kind, o.cause, o.detail, dt))
                    os.write(write_fd, struct.pack("!I", len(blob)) + blob)
            except BaseException:  # noqa: BLE001 - reported as the crash of the next case
                code = 3
            finally:
                os._exit(code)
        os.close(write_fd)
        buf = b""
        nxt = start
        timed_out = False
        while True:
            ready, _, _ = select.select([read_fd], [], [], CASE_TIMEOUT)
            if not ready:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            buf += chunk
            while len(buf) >= 4:
                (size,) = struct.unpack("!I", buf[:4])
                if len(buf) < 4 + size:
                    break
                j, kind, cause, detail, dt = pickle.loads(buf[4 : 4 + size])
                buf = buf[4 + size :]
                done[j] = Outcome(cases[j], kind, cause, detail, dt)
                nxt = j + 1
                if progress is not None:
                    progress(j)
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        if nxt < len(cases):  # the worker died (or hung) in case ``nxt``
            if timed_out:
                why = f"timeout after {CASE_TIMEOUT:g} s"
            elif os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
                why = f"killed by {signal.Signals(sig).name}"
            else:
                why = f"worker exit status {os.WEXITSTATUS(status)}"
            done[nxt] = Outcome(cases[nxt], "crash", why, why)
            if progress is not None:
                progress(nxt)
            nxt += 1
        start = nxt
    return [o for o in done if o is not None]


@dataclass
class Summary:
    outcomes: list[Outcome]
    by_entry: dict[str, Counter] = field(default_factory=dict)
    by_module: dict[str, Counter] = field(default_factory=dict)
    causes: dict[tuple[str, str], list[Outcome]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        by_entry: dict[str, Counter] = defaultdict(Counter)
        by_module: dict[str, Counter] = defaultdict(Counter)
        causes: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            by_entry[o.case.entry][o.kind] += 1
            by_module[o.case.module][o.kind] += 1
            if o.kind not in ("ok", "error"):
                causes[(o.kind, o.cause)].append(o)
        self.by_entry = dict(by_entry)
        self.by_module = dict(by_module)
        self.causes = dict(causes)

    def __repr__(self) -> str:
        return f"Summary({len(self.outcomes)} outcomes: {dict(self.totals)})"

    @property
    def totals(self) -> Counter:
        return Counter(o.kind for o in self.outcomes)

    def module_table(self) -> str:
        """The outcomes by module, plus the share of vague messages among the errors."""
        return self.table(by="module")

    def table(self, by: str = "entry") -> str:
        rows = self.by_module if by == "module" else self.by_entry
        title = "module" if by == "module" else "entry point"
        width = max([len(title), *(len(e) for e in rows)])
        head = f"{title:<{width}} " + " ".join(f"{k:>8}" for k in KINDS) + f" {'total':>7}"
        lines = [head, "-" * len(head)]
        for entry in sorted(rows):
            c = rows[entry]
            lines.append(
                f"{entry:<{width}} "
                + " ".join(f"{c.get(k, 0):>8}" for k in KINDS)
                + f" {sum(c.values()):>7}"
            )
        t = self.totals
        lines.append("-" * len(head))
        lines.append(
            f"{'total':<{width}} "
            + " ".join(f"{t.get(k, 0):>8}" for k in KINDS)
            + f" {len(self.outcomes):>7}"
        )
        return "\n".join(lines)

    def failures(self, kinds: Sequence[str] = KINDS[2:], examples: int = 3) -> str:
        lines = []
        order = sorted(self.causes.items(), key=lambda kv: (KINDS.index(kv[0][0]), -len(kv[1])))
        for (kind, cause), outs in order:
            if kind not in kinds:
                continue
            entries = Counter(o.case.entry for o in outs).most_common(4)
            where = ", ".join(f"{e} {n}" for e, n in entries)
            lines.append(f"[{kind}] {cause}: {len(outs)} cases ({where})")
            seen = set()
            shown = 0
            for o in outs:
                key = (o.case.entry, o.case.label)
                if key in seen:
                    continue
                seen.add(key)
                lines.append(f"    {o.case.repro}  ->  {o.detail[:160]}")
                shown += 1
                if shown >= examples:
                    break
        return "\n".join(lines) if lines else "(none)"
