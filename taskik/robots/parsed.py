"""example-robot-data robots parsed once per process.

Parsing a robot of example-robot-data reads its URDF and every mesh (Talos about 1.2 s of
CPU, G1 about 2.5 s); :func:`parsed` keeps what a parse gives and hands each caller a deep
copy of it (a tenth of a parse's time or less). The cached parse is read again when any
file it was built from changes on disk.

The key is made of values, never of objects: the robot's name, the loader's class (module
and qualified name), and the path, size and modification time (in ns) of the URDF (or SDF),
the SRDF and every mesh file the parse read. The URDF's and SRDF's paths are found as
example-robot-data's loader finds them (its class attributes and ``getModelPath``), without
parsing; the meshes' paths are those the parse recorded (``GeometryObject.meshPath``), stat'ed
again at each call. Whatever is stat'ed differently from the time of the parse (a file
edited, replaced, moved or deleted) makes the next call parse again.

Copies share nothing mutable with the cache or with each other: the model is
``pin.Model.copy()``, the geometry models ``GeometryModel.clone()`` (which copies every
coal geometry; ``copy()``, ``copy.deepcopy`` and the ``GeometryModel`` constructor
would share the meshes, so that vertices edited in one robot would show in the next), ``q0``
a new array, the SRDF path an immutable ``pathlib.Path``.

One lock serializes the look-ups and parses: threads loading at once parse a robot once
and each gets its own copy; a forked child starts with a lock of its own (and the parent's
cached parses, which it copies like its own). :func:`clear` drops cached parses (and their
memory: Talos's meshes are some tens of MB).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

#: One file as the key sees it: (path, size in bytes, modification time in ns); a file
#: that cannot be stat'ed is (path, -1, -1).
FileStamp = tuple[str, int, int]


@dataclass(frozen=True)
class Parsed:
    """What :func:`~taskik.robots.load` builds a :class:`~taskik.robots.Robot` from: the model, its
    reference configuration ``q0`` (nq,), the visual and collision geometry models and the
    SRDF file (None when the robot has none)."""

    model: pin.Model
    q0: np.ndarray
    visual_model: pin.GeometryModel | None
    collision_model: pin.GeometryModel | None
    srdf: Path | None

    def copy(self) -> Parsed:
        """A deep copy: its own model, geometry models (every mesh copied) and ``q0``."""
        return Parsed(
            self.model.copy(),
            np.array(self.q0, dtype=float),
            None if self.visual_model is None else self.visual_model.clone(),
            None if self.collision_model is None else self.collision_model.clone(),
            self.srdf,
        )


@dataclass(frozen=True)
class _Entry:
    key: tuple[object, ...]
    meshes: tuple[str, ...]
    parsed: Parsed


_LOCK = threading.Lock()
_ENTRIES: dict[str, _Entry] = {}


def _new_lock_after_fork() -> None:
    """A child forked while another thread held the lock (parsing) would wait for it
    forever: the child gets a lock of its own. (The entries are whole: one is stored by a
    single assignment.)"""
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


def source_files(name: str) -> tuple[str, ...] | None:
    """The URDF (or SDF) file and the SRDF file (if any) that example-robot-data's loader
    of ``name`` reads, found as that loader finds them, without parsing anything; None when
    example-robot-data is not installed, does not know ``name``, or cannot find the files
    (its loader then raises its own error)."""
    try:
        from example_robot_data.robots_loader import ROBOTS, getModelPath
    except ImportError:
        return None
    cls = ROBOTS.get(name)
    if cls is None:
        return None
    if cls.urdf_filename:
        relative = os.path.join(cls.path, cls.urdf_subpath, cls.urdf_filename)
    else:
        relative = os.path.join(cls.path, cls.sdf_subpath, cls.sdf_filename)
    try:
        root = cls.model_path if cls.model_path is not None else getModelPath(relative)
    except OSError:
        return None
    files = [os.path.join(root, relative)]
    if cls.srdf_filename:
        files.append(os.path.join(root, cls.path, cls.srdf_subpath, cls.srdf_filename))
    return tuple(files)


def stamps(paths: Sequence[str]) -> tuple[FileStamp, ...]:
    """(path, size, modification time in ns) of each file; (path, -1, -1) where a file
    cannot be stat'ed."""
    out = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append((path, -1, -1))
        else:
            out.append((path, st.st_size, st.st_mtime_ns))
    return tuple(out)


def key(name: str, meshes: Sequence[str] = ()) -> tuple[object, ...] | None:
    """The cache key of ``name`` given the mesh files its parse read: the name, the
    loader's class and the :func:`stamps` of :func:`source_files` and ``meshes``; None
    when the source files cannot be found (such a robot is not cached)."""
    sources = source_files(name)
    if sources is None:
        return None
    from example_robot_data.robots_loader import ROBOTS

    cls = ROBOTS[name]
    return (name, f"{cls.__module__}.{cls.__qualname__}", stamps([*sources, *meshes]))


def mesh_files(*geometry_models: pin.GeometryModel | None) -> tuple[str, ...]:
    """The files of the meshes of ``geometry_models`` (sorted, each once): the
    ``meshPath`` of every geometry object that names an existing file (primitive shapes
    name none)."""
    paths = {
        g.meshPath
        for gm in geometry_models
        if gm is not None
        for g in gm.geometryObjects
        if g.meshPath and os.path.isfile(g.meshPath)
    }
    return tuple(sorted(paths))


def parsed(name: str, parse: Callable[[], Parsed]) -> Parsed:
    """A deep copy of ``parse()``'s result for the robot ``name``, parsed once per process
    while the files it was built from are unchanged (see the module's docstring).

    ``parse`` is called, under the lock, when there is no cached parse of ``name`` or its
    key has changed; without a key (:func:`source_files` is None) it is called every time
    and nothing is cached. An exception from ``parse`` propagates and caches nothing.
    """
    if source_files(name) is None:  # (no files to stat: not cached)
        return parse()
    with _LOCK:
        entry = _ENTRIES.get(name)
        if entry is None or key(name, entry.meshes) != entry.key:
            _ENTRIES.pop(name, None)
            before = key(name)  # the URDF and SRDF stat'ed before they are read
            fresh = parse()
            if before is None:  # (its files went away meanwhile: the parse raised, or no cache)
                return fresh
            # the meshes are stat'ed once parsed (the parse is what names them)
            meshes = mesh_files(fresh.visual_model, fresh.collision_model)
            name_, loader, sources = before
            assert isinstance(sources, tuple)
            entry = _Entry((name_, loader, sources + stamps(meshes)), meshes, fresh)
            _ENTRIES[name] = entry
        template = entry.parsed
    return template.copy()


def clear(*names: str) -> None:
    """Drop the cached parses of ``names`` (of every robot when none is given): the next
    load of each parses its files again."""
    with _LOCK:
        if not names:
            _ENTRIES.clear()
        for name in names:
            _ENTRIES.pop(name, None)


def cached() -> list[str]:
    """Names of the robots whose parse is cached in this process."""
    with _LOCK:
        return sorted(_ENTRIES)
