"""A keypoint clip: world positions (and optionally orientations) of named keypoints over
frames at a fixed rate, with optional per-frame contact flags; its ``.npz`` and CSV files.

Units: metres, seconds, quaternions ``(x, y, z, w)`` (Pinocchio's ``coeffs()`` order), z up.

``.npz`` layout (``numpy.savez``):

- ``names`` (K,) str, ``positions`` (N, K, 3) float, ``fps`` () float;
- optional ``orientation_names`` (M,) str and ``orientations`` (N, M, 4) float;
- optional ``contact_names`` (C,) str and ``contacts`` (N, C) bool.

CSV layout: an optional first line ``# fps: 30``; a header ``time,<k>.x,<k>.y,<k>.z,...``
with, per keypoint ``<k>``, its three position columns, optionally ``<k>.qx,<k>.qy,<k>.qz,
<k>.qw`` and ``<k>.contact`` (0 or 1); one row per frame. Without the ``# fps`` line the rate
is ``1 / Δt`` of the ``time`` column, which must then be evenly spaced.
"""

from __future__ import annotations

import csv
import io
import math
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ..exceptions import InvalidInput, UnknownName, check_positive_scalar

#: Largest deviation of a quaternion's norm from 1 accepted (it is then normalised).
QUATERNION_NORM_TOLERANCE = 1e-3

_AXES = ("x", "y", "z")
_QUAT = ("qx", "qy", "qz", "qw")


def _nonfinite(values: np.ndarray, names: tuple[str, ...], what: str, source: str) -> None:
    """InvalidInput naming the first frame and keypoint of ``values`` (N, K, d) not finite."""
    bad = ~np.isfinite(values).all(axis=2)
    if bad.any():
        frame, k = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidInput(
            f"clip {source}: frame {frame}, keypoint {names[k]!r} has a NaN or inf {what}"
            f" ({int(bad.any(axis=1).sum())} frame(s) affected)"
        )


@dataclass(eq=False)  # arrays: compare their fields, not the objects
class Clip:
    """Keypoint trajectories sampled at ``fps`` frames per second.

    Attributes:
        names: keypoint names, unique.
        positions: (N, K, 3) world positions (m), ``positions[i, k]`` of ``names[k]`` at frame i.
        fps: frame rate (1/s), > 0.
        orientations: keypoint name → (N, 4) world orientations, unit quaternions (x, y, z, w),
            for the keypoints that have one.
        contacts: keypoint name → (N,) bool, True on the frames where that keypoint (a foot)
            touches the ground.
        source: where the clip came from (a file name), used in error messages.
    """

    names: tuple[str, ...]
    positions: np.ndarray
    fps: float
    orientations: dict[str, np.ndarray] = field(default_factory=dict)
    contacts: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "<arrays>"

    def __post_init__(self) -> None:
        src = self.source
        if isinstance(self.names, str | bytes) or not isinstance(self.names, Iterable):
            raise InvalidInput(f"clip {src}: keypoint names must be a list of strings")
        names = tuple(self.names)
        if not names or not all(isinstance(n, str) and n for n in names):
            raise InvalidInput(f"clip {src}: keypoint names must be non-empty strings")
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise InvalidInput(f"clip {src}: keypoint names repeated: {dup}")
        self.names = names
        pos = _real(self.positions, f"clip {src}: positions")
        if pos.dtype.kind not in "fiu" or pos.ndim != 3 or pos.shape[1:] != (len(names), 3):
            raise InvalidInput(
                f"clip {src}: positions must be real numbers of shape (N, {len(names)}, 3), "
                f"got {pos.dtype} {pos.shape}"
            )
        if pos.shape[0] == 0:
            raise InvalidInput(f"clip {src}: no frames")
        self.positions = np.ascontiguousarray(pos, dtype=float)
        _nonfinite(self.positions, names, "position", src)
        self.fps = check_positive_scalar(self.fps, f"clip {src}: fps")
        n = self.n_frames
        quats: dict[str, np.ndarray] = {}
        for name, value in _mapping(self.orientations, f"clip {src}: orientations").items():
            self.index(name)
            q = _real(value, f"clip {src}: orientations of {name!r}")
            if q.dtype.kind not in "fiu" or q.shape != (n, 4):
                raise InvalidInput(
                    f"clip {src}: orientations of {name!r} must be ({n}, 4) quaternions "
                    f"(x, y, z, w), got {q.dtype} {q.shape}"
                )
            q = q.astype(float)
            _nonfinite(q[:, None, :], (name,), "orientation", src)
            norm = np.linalg.norm(q, axis=1)
            off = np.abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE
            if off.any():
                i = int(np.flatnonzero(off)[0])
                raise InvalidInput(
                    f"clip {src}: frame {i}, keypoint {name!r}: orientation is not a unit "
                    f"quaternion (norm {norm[i]:.6g})"
                )
            quats[name] = q / norm[:, None]
        self.orientations = quats
        flags: dict[str, np.ndarray] = {}
        for name, value in _mapping(self.contacts, f"clip {src}: contacts").items():
            self.index(name)
            c = _real(value, f"clip {src}: contacts of {name!r}")
            if c.shape != (n,) or c.dtype.kind not in "biu" or not np.isin(c, (0, 1)).all():
                raise InvalidInput(
                    f"clip {src}: contacts of {name!r} must be {n} booleans (0/1), "
                    f"got {c.dtype} {c.shape}"
                )
            flags[name] = c.astype(bool)
        self.contacts = flags

    @property
    def n_frames(self) -> int:
        """Number of frames N."""
        return int(self.positions.shape[0])

    @property
    def dt(self) -> float:
        """Time between frames (s), ``1 / fps``."""
        return 1.0 / self.fps

    def index(self, name: str) -> int:
        """Column of keypoint ``name``; :class:`UnknownName` with close matches otherwise."""
        try:
            return self.names.index(name)
        except ValueError:
            err = UnknownName("keypoint", name, self.names)
            err.args = (f"clip {self.source}: {err}",)
            raise err from None

    def position(self, name: str) -> np.ndarray:
        """(N, 3) positions of keypoint ``name`` (m)."""
        return self.positions[:, self.index(name)]


def clip_from_arrays(
    names: list[str] | tuple[str, ...],
    positions: npt.ArrayLike,
    fps: float,
    orientations: Mapping[str, npt.ArrayLike] | None = None,
    contacts: Mapping[str, npt.ArrayLike] | None = None,
) -> Clip:
    """A :class:`Clip` from plain arrays (checked as in :class:`Clip`): ``names`` a list,
    tuple or array of K str, ``positions`` (N, K, 3), ``orientations`` and ``contacts``
    mappings from keypoint names to (N, 4) and (N,) arrays (or None)."""
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise InvalidInput(f"clip names must be a list of keypoint names, got {names!r}")
    listed = list(names.ravel()) if isinstance(names, np.ndarray) else list(names)
    bad = [n for n in listed if not isinstance(n, str)]
    if bad:
        raise InvalidInput(
            f"clip names must be keypoint names (str), got {type(bad[0]).__name__} {bad[0]!r}"
        )
    for what, given in (("orientations", orientations), ("contacts", contacts)):
        if given is not None and not isinstance(given, Mapping):
            raise InvalidInput(
                f"clip {what} must be a dict from keypoint names to arrays, or None; got "
                f"{type(given).__name__}"
            )
    # (the arrays are converted and checked by Clip)
    quats: dict[str, Any] = dict(orientations or {})
    flags: dict[str, Any] = dict(contacts or {})
    return Clip(
        tuple(str(n) for n in listed), _real(positions, "clip positions"), fps, quats, flags
    )


def _mapping(value: object, what: str) -> dict:
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{what} must be a dict from keypoint names to arrays")
    return dict(value)


def _real(value: npt.ArrayLike, what: str) -> np.ndarray:
    """``value`` as an array; :class:`InvalidInput` when numpy cannot make one (ragged lists)."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"{what} must be an array of numbers: {exc}") from None


def as_path(value: object, what: str) -> Path:
    """``value`` as a ``pathlib.Path`` when it is a ``str`` or an ``os.PathLike`` of
    str; :class:`InvalidInput` naming ``what`` otherwise (None, bytes, a number, a list...,
    an empty name, a NUL character)."""
    if not isinstance(value, str | os.PathLike):
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise InvalidInput(
            f"{what} must be a file path (a str or a pathlib.Path), got "
            f"{type(value).__name__} {shown}"
        )
    try:
        text = os.fspath(value)
    except TypeError as exc:
        raise InvalidInput(f"{what} must be a file path: {exc}") from None
    if not isinstance(text, str):
        raise InvalidInput(f"{what} must be a path of text, got the bytes {text!r}")
    if not text:
        raise InvalidInput(f"{what} is an empty path")
    if "\0" in text:
        raise InvalidInput(f"{what} {text!r} contains a NUL character")
    return Path(text)


def _os_reason(exc: BaseException) -> str:
    """An OS error's reason without its repeated file name."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


def read_text(path: Path, what: str) -> str:
    """The text of file ``path`` (UTF-8); :class:`InvalidInput` naming it when it is missing,
    cannot be read or is not text."""
    try:
        if not path.is_file():
            raise InvalidInput(f"{what} file not found: {path}")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read {what} file {path}: {_os_reason(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{what} file {path} is not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from exc


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], None]) -> Path:
    """Call ``write`` on a temporary file next to ``path``, flush it to disk, then rename it
    to ``path``.

    A failure leaves ``path`` as it was (absent or the previous file), never half-written;
    a path that cannot be written (no such folder, a folder in its place, a name too long,
    no permission, a full disk) raises :class:`InvalidInput` naming it.
    """
    path = as_path(path, "output path")
    try:
        if not path.parent.is_dir():
            raise InvalidInput(f"cannot write {path}: folder {path.parent} does not exist")
        if path.is_dir():
            raise InvalidInput(f"cannot write {path}: it is a folder")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InvalidInput(f"cannot write {path}: {_os_reason(exc)}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InvalidInput(f"cannot write {path}: {_os_reason(exc)}") from exc
        raise
    return path


def load_npz(path: str | os.PathLike[str], required: tuple[str, ...], what: str) -> dict:
    """The arrays of an ``.npz`` file; :class:`InvalidInput` naming the file when it cannot be
    read (missing, a folder, damaged: every array is read and its compressed data checked)
    or misses one of ``required``."""
    path = as_path(path, f"{what} file")
    try:
        if not path.is_file():
            raise InvalidInput(f"{what} file not found: {path}")
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except OSError as exc:
        raise InvalidInput(f"cannot read {what} file {path}: {_os_reason(exc)}") from exc
    except (  # what a damaged zip raises: bad structure, CRC, method, flags, data
        ValueError,
        zipfile.BadZipFile,
        EOFError,
        zlib.error,
        KeyError,
        NotImplementedError,
        RuntimeError,
        struct.error,
    ) as exc:
        raise InvalidInput(f"{what} file {path} is not a readable .npz file: {exc}") from exc
    missing = [k for k in required if k not in arrays]
    if missing:
        raise InvalidInput(
            f"{what} file {path} has no {', '.join(repr(m) for m in missing)} array "
            f"(it holds {sorted(arrays)})"
        )
    return arrays


def _names(arrays: dict, key: str, path: Path) -> tuple[str, ...]:
    value = arrays[key]
    if value.ndim != 1 or value.dtype.kind != "U":
        raise InvalidInput(f"clip file {path}: {key!r} must be a 1-D array of strings")
    return tuple(str(s) for s in value)


def _read_npz(path: Path) -> Clip:
    arrays = load_npz(path, ("names", "positions", "fps"), "clip")
    names = _names(arrays, "names", path)
    orientations: dict[str, np.ndarray] = {}
    contacts: dict[str, np.ndarray] = {}
    for key, target in (("orientation", orientations), ("contact", contacts)):
        data_key = key + "s"
        if (key + "_names" in arrays) != (data_key in arrays):
            raise InvalidInput(f"clip file {path}: {key}_names and {data_key} go together")
        if data_key in arrays:
            listed = _names(arrays, key + "_names", path)
            values = arrays[data_key]
            if values.ndim < 2 or values.shape[1] != len(listed):
                raise InvalidInput(
                    f"clip file {path}: {data_key} has shape {values.shape}, "
                    f"expected (N, {len(listed)}{', 4' if key == 'orientation' else ''})"
                )
            target.update({n: values[:, j] for j, n in enumerate(listed)})
    fps = arrays["fps"]
    if fps.shape != () or fps.dtype.kind not in "fiu":
        raise InvalidInput(f"clip file {path}: fps must be a number, got {fps!r}")
    return Clip(names, arrays["positions"], float(fps), orientations, contacts, str(path))


def _write_npz(clip: Clip, handle: IO[bytes]) -> None:
    arrays: dict[str, np.ndarray] = {
        "names": np.array(clip.names),
        "positions": clip.positions,
        "fps": np.array(clip.fps),
    }
    if clip.orientations:
        arrays["orientation_names"] = np.array(list(clip.orientations))
        arrays["orientations"] = np.stack(list(clip.orientations.values()), axis=1)
    if clip.contacts:
        arrays["contact_names"] = np.array(list(clip.contacts))
        arrays["contacts"] = np.stack(list(clip.contacts.values()), axis=1)
    np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


def _csv_columns(header: list[str], path: Path) -> tuple[list[str], dict[str, dict[str, int]]]:
    """Keypoint names in order and, per keypoint, its column of each field."""
    if not header or header[0] != "time":
        raise InvalidInput(f"clip file {path}: the CSV header must start with 'time'")
    names: list[str] = []
    columns: dict[str, dict[str, int]] = {}
    for j, label in enumerate(header[1:], start=1):
        name, dot, part = label.rpartition(".")
        if not dot or part not in (*_AXES, *_QUAT, "contact"):
            raise InvalidInput(
                f"clip file {path}: column {j + 1} {label!r} is not <keypoint>.x/.y/.z, "
                "<keypoint>.qx/.qy/.qz/.qw or <keypoint>.contact"
            )
        if name not in columns:
            names.append(name)
            columns[name] = {}
        if part in columns[name]:
            raise InvalidInput(f"clip file {path}: column {label!r} appears twice")
        columns[name][part] = j
    for name in names:
        parts = columns[name]
        for group in (_AXES, _QUAT):
            if (group is _AXES or any(p in parts for p in group)) and not all(
                p in parts for p in group
            ):
                lacking = [f"{name}.{p}" for p in group if p not in parts]
                raise InvalidInput(f"clip file {path}: columns {lacking} are missing")
    return names, columns


def _read_csv(path: Path) -> Clip:
    text = read_text(path, "clip")
    lines = text.splitlines()
    fps: float | None = None
    start = 0
    if lines and lines[0].startswith("#"):
        key, _, value = lines[0].lstrip("# ").partition(":")
        if key.strip() != "fps":
            raise InvalidInput(
                f"clip file {path}: line 1 must be '# fps: <rate>', got {lines[0]!r}"
            )
        try:
            fps = float(value)
        except ValueError as exc:
            raise InvalidInput(f"clip file {path}: line 1: fps {value.strip()!r}") from exc
        start = 1
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    if len(rows) < 2:
        raise InvalidInput(f"clip file {path}: a header and at least one frame are needed")
    names, columns = _csv_columns([c.strip() for c in rows[0]], path)
    values = np.empty((len(rows) - 1, len(rows[0])))
    for i, row in enumerate(rows[1:]):
        line = i + start + 2
        if len(row) != len(rows[0]):
            raise InvalidInput(
                f"clip file {path}: line {line} (frame {i}) has {len(row)} values, "
                f"the header {len(rows[0])}"
            )
        try:
            values[i] = [float(x) for x in row]
        except ValueError as exc:
            raise InvalidInput(f"clip file {path}: line {line} (frame {i}): {exc}") from exc
    if fps is None:
        step = np.diff(values[:, 0])
        if step.size == 0 or not (step > 0).all() or np.ptp(step) > 1e-6 * max(step.max(), 1):
            raise InvalidInput(
                f"clip file {path}: without a '# fps: <rate>' line the time column must "
                "increase in equal steps (at least two frames)"
            )
        fps = 1.0 / float(step.mean())
    if not math.isfinite(fps):
        raise InvalidInput(f"clip file {path}: fps must be finite")
    pos = np.stack([values[:, [columns[n][a] for a in _AXES]] for n in names], axis=1)
    quats = {n: values[:, [c[p] for p in _QUAT]] for n, c in columns.items() if "qw" in c}
    contacts = {n: values[:, c["contact"]] for n, c in columns.items() if "contact" in c}
    for name, flags in contacts.items():
        if not np.isin(flags, (0.0, 1.0)).all():
            frame = int(np.flatnonzero(~np.isin(flags, (0.0, 1.0)))[0])
            raise InvalidInput(
                f"clip file {path}: frame {frame}, {name}.contact must be 0 or 1, "
                f"got {flags[frame]}"
            )
        contacts[name] = flags.astype(int)
    return Clip(tuple(names), pos, fps, quats, contacts, str(path))


def _write_csv(clip: Clip, handle: IO[bytes]) -> None:
    header = ["time"]
    blocks = [np.arange(clip.n_frames)[:, None] / clip.fps]
    for k, name in enumerate(clip.names):
        header += [f"{name}.{a}" for a in _AXES]
        blocks.append(clip.positions[:, k])
        if name in clip.orientations:
            header += [f"{name}.{p}" for p in _QUAT]
            blocks.append(clip.orientations[name])
        if name in clip.contacts:
            header.append(f"{name}.contact")
            blocks.append(clip.contacts[name][:, None].astype(float))
    table = np.hstack(blocks)
    out = io.StringIO()
    out.write(f"# fps: {clip.fps!r}\n")
    out.write(",".join(header) + "\n")
    np.savetxt(out, table, delimiter=",", fmt="%.17g")
    handle.write(out.getvalue().encode())


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".csv"):
        raise InvalidInput(f"clip file {path}: unknown format {suffix!r}; use .npz or .csv")
    return suffix


def load_clip(path: str | os.PathLike[str]) -> Clip:
    """Read a clip from a ``.npz`` or ``.csv`` file (layouts in this module's docstring).

    Raises:
        InvalidInput: unknown suffix, missing file, malformed content, NaN frames; the message
            names the file, and the frame and keypoint when one is at fault.
    """
    path = as_path(path, "clip file")
    suffix = _suffix(path)
    return _read_npz(path) if suffix == ".npz" else _read_csv(path)


def save_clip(clip: Clip, path: str | os.PathLike[str]) -> Path:
    """Write ``clip`` to ``path`` (``.npz`` or ``.csv``) through a temporary file and a
    rename, so that a failure never leaves a half-written file."""
    if not isinstance(clip, Clip):
        raise InvalidInput(f"clip must be a taskik.retarget.Clip, got {type(clip).__name__}")
    path = as_path(path, "clip file")
    writer = _write_npz if _suffix(path) == ".npz" else _write_csv
    return atomic_write(path, lambda handle: writer(clip, handle))
