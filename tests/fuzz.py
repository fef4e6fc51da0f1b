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
- ``garbage``: a returned result that is not valid (NaN/inf, wrong shape, an invalid input
  accepted silently, a warning such as ComplexWarning emitted on the way);
- ``rejected``: a ``TaskikError`` for an input the case says is valid.

A ``NoSolutionFound`` is a fine outcome of an ``any`` case (e.g. a cost of 1e300 that leaves
the QP numerically out of range). ``tests/test_fuzz.py`` runs one round of every generator
per robot (about 17,000 cases, ~10 s) and asserts no bare, garbage, rejected or vague
outcome; ``benchmarks/fuzz_inputs.py`` runs more, prints the table and compares with pink.

Bools are treated as invalid wherever a number is expected (``dt=True`` is almost always a
misplaced argument, not one second): flip :data:`BOOL_IS_NUMBER` to accept them.
"""

from __future__ import annotations

import math
import os
import traceback
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

import taskik
from taskik import metrics, steps

#: Outcome kinds, in table order.
KINDS = ("ok", "error", "vague", "bare", "garbage", "rejected")
#: Outcome kinds that are failures.
FAILURES = ("bare", "garbage", "rejected")
#: Policy: is ``True`` a valid number (dt, cost, gain, ...)? No: a bool there is a mistake.
BOOL_IS_NUMBER = False

ACCEPT, REJECT, ANY = "accept", "reject", "any"


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
    """

    entry: str
    label: str
    run: Callable[[], Any]
    expect: str = ANY
    check: Callable[[Any], str | None] | None = None
    names: tuple[str, ...] = ()
    robot: str = ""

    @property
    def repro(self) -> str:
        return f"[{self.robot}] {self.entry}: {self.label}"


@dataclass
class Outcome:
    case: Case
    kind: str
    cause: str  # grouping key for failures, e.g. "TypeError at taskik/steps.py:42"
    detail: str  # the message or the reason


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
    muts: Iterable[Mut],
    make: Callable[[Any], Callable[[], Any]],
    check: Callable[[Any], str | None] | None,
    names: tuple[str, ...],
    prefix: str = "",
) -> list[Case]:
    return [
        Case(entry, f"{prefix}{m.label}", make(m.value), m.expect, check, names, bot.name)
        for m in muts
    ]


POSITIVE = lambda x: 0.0 < x < math.inf  # noqa: E731
NONNEG = lambda x: 0.0 <= x < math.inf  # noqa: E731
UNIT = lambda x: 0.0 < x <= 1.0  # noqa: E731


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
    for label, mdl, exp in (
        ("model=None", None, REJECT),
        ("model='ur5'", "ur5", REJECT),
        ("model=Data", model.createData(), REJECT),
        ("model=Configuration", conf_of(bot), REJECT),
    ):
        out.append(
            Case(
                "Configuration",
                label,
                (lambda mm=mdl: taskik.Configuration(mm, q)),
                exp,
                None,
                ("model",),
                bot.name,
            )
        )
    for label, data, exp in (
        ("data=own createData()", model.createData(), ACCEPT),
        ("data of another model", other.model.createData(), REJECT),
        ("data='abc'", "abc", REJECT),
        ("data=model", model, REJECT),
    ):
        out.append(
            Case(
                "Configuration",
                label,
                (lambda d=data: taskik.Configuration(model, q, data=d)),
                exp,
                check_configuration(model, q),
                ("data",),
                bot.name,
            )
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
    for m in scalar_muts(1e-6, NONNEG):
        out.append(
            Case(
                "Configuration.check_limits",
                f"tol={m.label}",
                (lambda t=m.value: conf.check_limits(t)),
                m.expect,
                None,
                ("tol",),
                bot.name,
            )
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
        if cls != "DampingTask":
            for pname, valid in (("gain", UNIT), ("lm_damping", NONNEG)):
                base = 0.5 if pname == "gain" else 0.0
                for m in scalar_muts(base, valid):
                    out.append(
                        Case(
                            entry,
                            f"{pname}={m.label}",
                            _solve_after(bot, q, builder(**{pname: m.value})),
                            m.expect,
                            vcheck,
                            (pname,),
                            bot.name,
                        )
                    )
        if cls in ("FrameTask", "PositionTask", "OrientationTask", "RelativeFrameTask"):
            for m in name_muts(frame, nframes=model.nframes):
                out.append(
                    Case(
                        entry,
                        f"frame={m.label}",
                        _solve_after(bot, q, builder(frame=m.value)),
                        m.expect,
                        vcheck,
                        ("frame",),
                        bot.name,
                    )
                )
    for m in name_muts(root, nframes=model.nframes):
        out.append(
            Case(
                "RelativeFrameTask()",
                f"root={m.label}",
                _solve_after(bot, q, relative_task(root=m.value)),
                m.expect,
                vcheck,
                ("frame", "root"),
                bot.name,
            )
        )
    for m in vector_muts(np.array([0.0, 0.0, 0.05]), allow_none=True):
        out.append(
            Case(
                "PositionTask()",
                f"offset={m.label}",
                _solve_after(bot, q, position_task(offset=m.value)),
                m.expect,
                vcheck,
                ("offset",),
                bot.name,
            )
        )
    for label, val, exp in (
        ("'end'", "end", ACCEPT),
        ("'target'", "target", ACCEPT),
        ("'END'", "END", REJECT),
        ("None", None, REJECT),
        ("['end']", ["end"], REJECT),
    ):
        out.append(
            Case(
                "PositionTask()",
                f"jacobian={label}",
                _solve_after(bot, q, position_task(jacobian=val)),
                exp,
                vcheck,
                ("jacobian",),
                bot.name,
            )
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
        for m in pm:

            def run_post(val=m.value, with_conf=with_conf):
                conf = conf_of(bot, q)
                t = taskik.PostureTask()
                if with_conf:
                    t.set_target(val, conf)
                else:
                    t.set_target(val)
                return taskik.solve_ik(conf, [t], 0.01)

            out.append(
                Case(
                    "PostureTask.set_target",
                    f"{'(with configuration) ' if with_conf else ''}q={m.label}",
                    run_post,
                    m.expect,
                    vcheck,
                    ("target", "q", "posture", "quaternion"),
                    bot.name,
                )
            )
    # set_target_from_configuration with odd arguments
    for label, arg in (
        ("None", None),
        ("'abc'", "abc"),
        ("q vector", q),
        ("model", model),
        ("Configuration of another model", conf_of(other)),
    ):
        exp_from = ANY if label.startswith("Configuration") else REJECT
        for cls in (
            "FrameTask",
            "PositionTask",
            "OrientationTask",
            "ComTask",
            "PostureTask",
            "RelativeFrameTask",
        ):

            def run_from(arg=arg, cls=cls):
                t = {
                    "FrameTask": lambda: taskik.FrameTask(frame),
                    "PositionTask": lambda: taskik.PositionTask(frame),
                    "OrientationTask": lambda: taskik.OrientationTask(frame),
                    "ComTask": lambda: taskik.ComTask(),
                    "PostureTask": lambda: taskik.PostureTask(),
                    "RelativeFrameTask": lambda: taskik.RelativeFrameTask(frame, root),
                }[cls]()
                t.set_target_from_configuration(arg)
                return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

            out.append(
                Case(
                    f"{cls}.set_target_from_configuration",
                    f"configuration={label}",
                    run_from,
                    exp_from,
                    vcheck,
                    ("configuration", "frame", "posture", "target", "q"),
                    bot.name,
                )
            )
    for cls in (
        "FrameTask",
        "PositionTask",
        "OrientationTask",
        "ComTask",
        "PostureTask",
        "RelativeFrameTask",
    ):

        def run_valid(cls=cls):
            conf = conf_of(bot, q)
            t = {
                "FrameTask": lambda: taskik.FrameTask(frame),
                "PositionTask": lambda: taskik.PositionTask(frame),
                "OrientationTask": lambda: taskik.OrientationTask(frame),
                "ComTask": lambda: taskik.ComTask(),
                "PostureTask": lambda: taskik.PostureTask(),
                "RelativeFrameTask": lambda: taskik.RelativeFrameTask(frame, root),
            }[cls]()
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
    for m in merge(scalar_muts(1.0, NONNEG), vector_muts(np.ones(3), scalar_ok=True)):

        def run_cost(val=m.value):
            t = taskik.PositionTask(frame)
            t.set_target(goal.translation)
            t.cost = val
            return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

        out.append(
            Case("Task.cost =", f"cost={m.label}", run_cost, m.expect, vcheck, ("cost",), bot.name)
        )
    for pname, valid, base in (("gain", UNIT, 0.5), ("lm_damping", NONNEG, 0.0)):
        for m in scalar_muts(base, valid):

            def run_attr(val=m.value, pname=pname):
                t = taskik.PositionTask(frame)
                t.set_target(goal.translation)
                setattr(t, pname, val)
                return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

            out.append(
                Case(f"Task.{pname} =", m.label, run_attr, m.expect, vcheck, (pname,), bot.name)
            )
    for which in ("position_cost", "orientation_cost"):
        for m in merge(
            scalar_muts(1.0, NONNEG, allow_none=True), vector_muts(np.ones(3), scalar_ok=True)
        ):

            def run_set(val=m.value, which=which):
                t = taskik.FrameTask(frame)
                t.set_target(goal)
                t.set_costs(**{which: val})
                return taskik.solve_ik(conf_of(bot, q), [t], 0.01)

            out.append(
                Case(
                    "FrameTask.set_costs",
                    f"{which}={m.label}",
                    run_set,
                    m.expect,
                    vcheck,
                    ("cost",),
                    bot.name,
                )
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
    for m in scalar_muts(0.5, UNIT):
        out.append(
            Case(
                "ConfigurationLimit",
                f"gain={m.label}",
                run_with(lambda g=m.value: taskik.ConfigurationLimit(model, g)),
                m.expect,
                vcheck,
                ("gain",),
                bot.name,
            )
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
    for label, lims, exp in (
        ("limits={'nope': 1}", {"nope": 1.0}, REJECT),
        ("limits={'universe': 1}", {"universe": 1.0}, REJECT),
        ("limits={3: 1}", {3: 1.0}, REJECT),
        ("limits=[1, 2]", [1.0, 2.0], ACCEPT if model.nv == 2 else REJECT),
        ("limits=nv+1 array", np.ones(model.nv + 1), REJECT),
        ("limits='abc'", "abc", REJECT),
        ("limits={}", {}, ACCEPT),
        ("limits=model.velocityLimit array", np.array(model.velocityLimit), ACCEPT),
    ):
        out.append(
            Case(
                "VelocityLimit",
                label,
                run_with(lambda ll=lims: taskik.VelocityLimit(model, ll)),
                exp,
                vcheck,
                ("limit", "joint", "mapping"),
                bot.name,
            )
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
        for m in scalar_muts(0.01, POSITIVE):
            out.append(
                Case(
                    entry,
                    f"dt={m.label}",
                    (lambda d=m.value, fn=fn: call(fn, dt=d)),
                    m.expect,
                    chk,
                    ("dt",),
                    bot.name,
                )
            )
        for m in scalar_muts(1e-12, NONNEG):
            out.append(
                Case(
                    entry,
                    f"damping={m.label}",
                    (lambda d=m.value, fn=fn: call(fn, damping=d)),
                    m.expect,
                    chk,
                    ("damping",),
                    bot.name,
                )
            )
    # levels dt
    for m in scalar_muts(0.01, POSITIVE):

        def run_lv(d=m.value):
            c = conf_of(bot, q)
            t = base_tasks(bot, c, target_q)
            return taskik.solve_ik(c, [t[:1], t[1:]], d)

        out.append(
            Case(
                "solve_ik (levels)", f"dt={m.label}", run_lv, m.expect, vdefault, ("dt",), bot.name
            )
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
    for label, val, exp in (
        ("method='cascade'", "cascade", ACCEPT),
        ("method='nullspace' (with limits)", "nullspace", REJECT),
        ("method='x'", "x", REJECT),
        ("method=None", None, REJECT),
    ):
        out.append(
            Case(
                "solve_ik (levels)",
                label,
                levels_run(lambda t: [t[:1], t[1:]], method=val),
                exp,
                vdefault,
                ("method", "nullspace", "limit"),
                bot.name,
            )
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
        for label, kw, exp in (
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
        ):

            def run_b(kw=kw, backend=backend):
                kw = dict(kw)
                if kw.get("limits") == "velocity":
                    kw["limits"] = [taskik.VelocityLimit(model)]
                else:
                    kw.setdefault("limits", [])
                return call(backend=backend, **kw)

            out.append(
                Case(
                    f"solve_ik backend={backend}",
                    label,
                    run_b,
                    exp,
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
                    bot.name,
                )
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
        for m in scalar_muts(0.01, POSITIVE):
            out.append(
                Case(
                    f"solve_ik backend={backend}",
                    f"dt={m.label}",
                    (lambda d=m.value, backend=backend: call(backend=backend, limits=[], dt=d)),
                    m.expect,
                    vfree,
                    ("dt",),
                    bot.name,
                )
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
    for label, kw, exp in (
        ("branch='x'", {"branch": "x"}, REJECT),
        ("branch=None", {"branch": None}, REJECT),
    ):
        out.append(
            Case(
                "solve_ik backend=regularized",
                label,
                (lambda kw=kw: call(backend="regularized", limits=[], **kw)),
                exp,
                vfree,
                ("branch",),
                bot.name,
            )
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
    for m in scalar_muts(1e-6, NONNEG):

        def run_tol(val=m.value):
            c, t = step()
            return taskik.report(c, t, 0.01, v0, tol=val)

        out.append(
            Case("report", f"tol={m.label}", run_tol, m.expect, finite_report(), ("tol",), bot.name)
        )
    for label, mk, exp in (
        ("tasks=None", lambda t: None, REJECT),
        ("tasks=[Task()]", lambda t: [taskik.Task()], REJECT),
        ("tasks=levels", lambda t: [t[:1], t[1:]], REJECT),
        ("tasks=[]", lambda t: [], ANY),
    ):

        def run_t(mk=mk):
            c, t = step()
            return taskik.report(c, mk(t), 0.01, v0)

        out.append(Case("report", label, run_t, exp, finite_report(), ("task",), bot.name))
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

    for m in scalar_muts(1e-6, POSITIVE):
        out.append(
            Case(
                "solve_posture",
                f"tol={m.label}",
                run_with(tol=m.value),
                m.expect,
                check_result,
                ("tol",),
                bot.name,
            )
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
    for m in scalar_muts(1e-3, lambda x: 0.0 <= x < 1.0, extremes_any=False):
        out.append(
            Case(
                "solve_posture",
                f"stagnation={m.label}",
                run_with(stagnation=m.value),
                m.expect,
                check_result,
                ("stagnation",),
                bot.name,
            )
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
    for m in scalar_muts(1.0, POSITIVE, allow_none=True):
        out.append(
            Case(
                "solve_posture",
                f"time_budget={m.label}",
                run_with(time_budget=m.value),
                m.expect,
                check_q_result(model),
                ("time_budget",),
                bot.name,
            )
        )
    for m in scalar_muts(0.1, NONNEG, allow_none=True):
        out.append(
            Case(
                "solve_posture",
                f"damping={m.label}",
                run_with(damping=m.value),
                m.expect,
                check_result,
                ("damping",),
                bot.name,
            )
        )
    for m in vector_muts(q0, allow_none=True):
        out.append(
            Case(
                "solve_posture",
                f"q0={m.label}",
                run_with(q0=m.value),
                m.expect,
                check_result,
                ("q",),
                bot.name,
            )
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
    for label, val, exp in (
        ("rng=0", 0, ACCEPT),
        ("rng=np.int64(0)", np.int64(0), ACCEPT),
        ("rng=Generator", np.random.default_rng(0), ACCEPT),
        ("rng=-1", -1, REJECT),
        ("rng=1.5", 1.5, REJECT),
        ("rng='a'", "a", REJECT),
        ("rng=RandomState", np.random.RandomState(0), ANY),
        ("rng=True", True, REJECT),
    ):
        out.append(
            Case(
                "solve_posture",
                label,
                run_with(rng=val, q0=None, starts="random"),
                exp,
                check_result,
                ("rng", "seed"),
                bot.name,
            )
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
    for label, val, exp in (
        ("regularization=[PostureTask]", "posture", ACCEPT),
        ("regularization=[None]", [None], REJECT),
        ("regularization='abc'", "abc", REJECT),
        ("regularization=[Task()]", [taskik.Task()], REJECT),
        ("regularization=[PostureTask without target]", [taskik.PostureTask()], REJECT),
    ):

        def run_reg(val=val):
            if val == "posture":
                p = taskik.PostureTask(cost=1e-3)
                p.set_target(bot.q0)
                val = [p]
            return run_with(regularization=val)()

        out.append(
            Case(
                "solve_posture",
                label,
                run_reg,
                exp,
                check_result,
                ("regularization", "task", "target"),
                bot.name,
            )
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
        for m in jm:
            out.append(
                Case(
                    entry,
                    f"J={m.label}",
                    (lambda val=m.value, fn=fn: fn(val)),
                    m.expect,
                    chk,
                    ("J", "matrix", "jacobian"),
                    bot.name,
                )
            )
        for label, part, exp in (
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
        ):
            out.append(
                Case(
                    entry,
                    f"part={label}",
                    (lambda p=part, fn=fn: fn(J, p)),
                    exp,
                    chk,
                    ("part", "row", "indices"),
                    bot.name,
                )
            )
    fid = model.getFrameId(frame)
    for entry, fn in (
        ("metrics.frame_manipulability", metrics.frame_manipulability),
        ("metrics.frame_condition_number", metrics.frame_condition_number),
    ):
        chk = check_scalar(0.0, allow_inf=True)
        for m in name_muts(frame, int_ok=fid, nframes=model.nframes):
            out.append(
                Case(
                    entry,
                    f"frame={m.label}",
                    (lambda f=m.value, fn=fn: fn(conf, f)),
                    m.expect,
                    chk,
                    ("frame",),
                    bot.name,
                )
            )
        for label, c, exp in (
            ("configuration=None", None, REJECT),
            ("configuration=model", model, REJECT),
            ("configuration='a'", "a", REJECT),
        ):
            out.append(
                Case(
                    entry,
                    label,
                    (lambda c=c, fn=fn: fn(c, frame)),
                    exp,
                    chk,
                    ("configuration",),
                    bot.name,
                )
            )
        for label, part, exp in (
            ("part='x'", "x", REJECT),
            ("part=[7]", [7], REJECT),
            ("part='rotation'", "rotation", ACCEPT),
        ):
            out.append(
                Case(
                    entry,
                    label,
                    (lambda p=part, fn=fn: fn(conf, frame, p)),
                    exp,
                    chk,
                    ("part", "row"),
                    bot.name,
                )
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
    for label, d, exp in (
        ("d per joint", np.full(n, 0.3), ACCEPT),
        ("d per joint, wrong length", np.full(n + 1, 0.3), REJECT),
        ("d per joint with 0", np.where(np.arange(n) == 0, 0.0, 0.3), REJECT),
    ):
        out.append(
            Case(
                "steps.clip_joint_step",
                label,
                (lambda d=d: steps.clip_joint_step(wv, d)),
                exp,
                bounded("max", 0.3),
                ("d",),
                bot.name,
            )
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

    for m in vector_muts(err):
        out.append(
            Case(
                "steps.servo_velocity",
                f"error={m.label}",
                (lambda e=m.value: steps.servo_velocity(e, 1.0, 1.0)),
                m.expect,
                servo_check,
                ("error",),
                bot.name,
            )
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
    for m in scalar_muts(1e-6, POSITIVE):
        out.append(
            Case(
                "steps.PoseChangeConvergence",
                f"epsilon={m.label}",
                pcc_run(frame, m.value),
                m.expect,
                is_true,
                ("epsilon",),
                bot.name,
            )
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
        for label, name, exp in (
            ("'ur5'", "ur5", ACCEPT),
            ("'planar_2r'", "planar_2r", ACCEPT),
            ("'buss_y'", "buss_y", ACCEPT),
            ("'UR5'", "UR5", REJECT),
            ("''", "", REJECT),
            ("None", None, REJECT),
            ("3", 3, REJECT),
            ("['ur5']", ["ur5"], REJECT),
            ("b'ur5'", b"ur5", REJECT),
            ("'erd:nonexistent'", "erd:nonexistent", REJECT),
            ("' ur5'", " ur5", REJECT),
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
    for label, path, exp in (
        ("str path", str(w.urdf), ACCEPT),
        ("missing file", str(w.tmp / "missing.urdf"), REJECT),
        ("directory", str(w.tmp), REJECT),
        ("malformed URDF", w.bad_urdf, REJECT),
        ("None", None, REJECT),
        ("3", 3, REJECT),
        ("''", "", REJECT),
        ("bytes path", str(w.urdf).encode(), ANY),
    ):
        out.append(
            Case(
                "robots.load_urdf",
                f"path={label}",
                (lambda p=path: taskik.robots.load_urdf(p)),
                exp,
                urdf_check(False),
                ("urdf", "path", "file"),
                bot.name,
            )
        )
    for label, dirs, exp in (
        ("None", None, ACCEPT),
        ("[tmp]", [str(w.tmp)], ACCEPT),
        ("'tmp' (a string)", str(w.tmp), ANY),
        ("[3]", [3], ANY),
    ):
        out.append(
            Case(
                "robots.load_urdf",
                f"package_dirs={label}",
                (lambda d=dirs: taskik.robots.load_urdf(w.urdf, package_dirs=d)),
                exp,
                urdf_check(False),
                ("package_dirs",),
                bot.name,
            )
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

    for label, r, exp in (
        ("rng=None", None, ACCEPT),
        ("rng=Generator", np.random.default_rng(0), ACCEPT),
        ("rng=0", 0, ANY),
        ("rng='a'", "a", REJECT),
    ):
        out.append(
            Case(
                "robots.random_configuration",
                label,
                (lambda r=r: taskik.robots.random_configuration(bot.model, bot.q0, r)),
                exp,
                random_q_check,
                ("rng",),
                bot.name,
            )
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


# ------------------------------------------------------------------------- running
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
        for gen in GENERATORS:
            cases += gen(world, bot, rng)
        r += 1
    return cases


def run_cases(
    cases: Sequence[Case],
    progress: Callable[[int], None] | None = None,
    error_type: type[BaseException] | None = None,
) -> list[Outcome]:
    out = []
    for i, case in enumerate(cases):
        out.append(classify(case, error_type))
        if progress is not None:
            progress(i)
    return out


@dataclass
class Summary:
    outcomes: list[Outcome]
    by_entry: dict[str, Counter] = field(default_factory=dict)
    causes: dict[tuple[str, str], list[Outcome]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        by_entry: dict[str, Counter] = defaultdict(Counter)
        causes: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            by_entry[o.case.entry][o.kind] += 1
            if o.kind not in ("ok", "error"):
                causes[(o.kind, o.cause)].append(o)
        self.by_entry = dict(by_entry)
        self.causes = dict(causes)

    def __repr__(self) -> str:
        return f"Summary({len(self.outcomes)} outcomes: {dict(self.totals)})"

    @property
    def totals(self) -> Counter:
        return Counter(o.kind for o in self.outcomes)

    def table(self) -> str:
        width = max([len("entry point"), *(len(e) for e in self.by_entry)])
        head = f"{'entry point':<{width}} " + " ".join(f"{k:>8}" for k in KINDS) + f" {'total':>7}"
        lines = [head, "-" * len(head)]
        for entry in sorted(self.by_entry):
            c = self.by_entry[entry]
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
