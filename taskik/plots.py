"""Plots of a run: task errors over time and joint trajectories against their limits.

Needs matplotlib (the ``plot`` extra: ``pip install -e '.[plot]'`` from a clone, or ``pip
install matplotlib``), imported only when a plot is made; figures are drawn off-screen (Agg)
and saved as PNG.

    recorder = taskik.plots.Recorder(tasks)
    for k in range(steps):
        v = taskik.solve_ik(configuration, tasks, dt)
        configuration.integrate_inplace(v, dt)
        recorder.record(k * dt, configuration)
    recorder.plot_task_errors("errors.png")
    recorder.plot_joints("joints.png")
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

from .configuration import Configuration, check_configuration, check_model
from .exceptions import InvalidInput, UnknownName, real_array, real_scalar
from .tasks.task import Task

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the Agg backend."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(
            "taskik.plots needs matplotlib: pip install matplotlib (or, from a clone, "
            "pip install -e '.[plot]')"
        ) from exc
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def task_label(task: Task) -> str:
    """A short name for a task: its class and, when it has one, its frame.

    Raises:
        InvalidInput: ``task`` is not a :class:`taskik.Task`.
    """
    if not isinstance(task, Task):
        raise InvalidInput(f"task_label needs a taskik.Task, got {type(task).__name__}")
    frame = getattr(task, "frame", None)
    name = getattr(frame, "name", frame)
    return f"{type(task).__name__}({name})" if name else type(task).__name__


def _check_times(times: Sequence[float] | np.ndarray, n: int, what: str) -> np.ndarray:
    times = real_array(times, "times")
    if times.ndim != 1 or len(times) != n:
        raise InvalidInput(f"times must have one entry per {what} ({n}), got shape {times.shape}")
    if len(times) == 0:
        raise InvalidInput("nothing to plot: no sample recorded")
    return times


def plot_task_errors(
    times: Sequence[float] | np.ndarray,
    errors: Mapping[str, Sequence[float] | np.ndarray],
    path: str | Path,
    title: str = "task errors",
    log: bool = True,
) -> Path:
    """Save a plot of each task's error norm ``‖e‖`` over time (log scale by default).

    ``errors`` maps a label to one error norm per entry of ``times``. Returns the path.
    """
    path = _check_path(path)
    if not isinstance(errors, Mapping):
        raise InvalidInput(
            f"errors must map a label to error norms (a dict), got {type(errors).__name__}"
        )
    if not errors:
        raise InvalidInput("errors is empty: give at least one task's error norms")
    series = []
    for label, values in errors.items():
        values = real_array(values, f"error values of {label!r}")
        if values.ndim != 1:
            raise InvalidInput(
                f"error values of {label!r} must be one norm per time (1-D), got shape "
                f"{values.shape}"
            )
        times = _check_times(times, len(values), f"error value of {label!r}")
        series.append((str(label), values))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for label, values in series:
        ax.plot(times, np.maximum(values, 1e-16) if log else values, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("‖e‖ (m, rad)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return _save(fig, plt, path)


def plot_joint_trajectories(
    times: Sequence[float] | np.ndarray,
    qs: Sequence[np.ndarray] | np.ndarray,
    model: pin.Model,
    path: str | Path,
    joints: Sequence[str] | None = None,
    title: str = "joint positions and their limits",
) -> Path:
    """Save one small plot per 1-DoF joint: its position over time, with the lower and upper
    position limits as dashed lines (when finite). ``qs`` holds one configuration per entry
    of ``times``; ``joints`` selects joints by name (default: every revolute/prismatic joint).
    Returns the path."""
    path = _check_path(path)
    model = check_model(model, "plot_joint_trajectories")
    qs = real_array(qs, "qs")
    if qs.ndim != 2 or qs.shape[1] != model.nq:
        raise InvalidInput(f"qs must be (samples, nq = {model.nq}), got shape {qs.shape}")
    times = _check_times(times, len(qs), "configuration")
    one_dof = [j for j in range(1, model.njoints) if model.joints[j].nq == 1]
    if joints is not None:
        if isinstance(joints, str | bytes) or not all(isinstance(n, str) for n in joints):
            raise InvalidInput(f"joints must be a list of joint names, got {joints!r}")
        names = {model.names[j]: j for j in one_dof}
        missing = [n for n in joints if n not in names]
        if missing:
            raise UnknownName("joint", missing[0], list(names))
        one_dof = [names[n] for n in joints]
    if not one_dof:
        raise InvalidInput("the model has no 1-DoF joint to plot (joints: none selected)")
    plt = _pyplot()
    cols = min(4, len(one_dof))
    rows = -(-len(one_dof) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.2 * cols, 2.2 * rows), squeeze=False, layout="constrained"
    )
    for ax, joint in zip(axes.flat, one_dof, strict=False):
        iq = model.joints[joint].idx_q
        ax.plot(times, qs[:, iq], color="C0")
        for bound in (model.lowerPositionLimit[iq], model.upperPositionLimit[iq]):
            if np.isfinite(bound) and abs(bound) < 1e10:
                ax.axhline(bound, color="C3", linestyle="--", linewidth=1)
        ax.set_title(model.names[joint], fontsize="small")
        ax.tick_params(labelsize="x-small")
    for ax in list(axes.flat)[len(one_dof) :]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.supxlabel("time (s)")
    return _save(fig, plt, path)


def _check_path(path: str | Path) -> Path:
    """``path`` as a Path to a ``.png`` file that is not a directory (checked before a
    figure is made)."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidInput(f"path must be a file path ending in .png, got {type(path).__name__}")
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise InvalidInput(f"plots are saved as PNG: the path must end in .png, got {path}")
    if path.is_dir():
        raise InvalidInput(f"cannot write the plot: {path} is a directory")
    return path


def _save(fig: Figure, plt: ModuleType, path: Path) -> Path:
    """Save the figure (its folder made when missing) and close it, also on failure."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise InvalidInput(f"cannot write the plot to {path}: {exc.strerror or exc}") from exc
    finally:
        plt.close(fig)
    return path


class Recorder:
    """Collects, step by step, the time, the configuration and each task's error norm.

    Args:
        tasks: the tasks whose error norms are recorded (labels from :func:`task_label`).
    """

    def __init__(self, tasks: Sequence[Task]) -> None:
        if isinstance(tasks, str | bytes | Task) or not isinstance(tasks, Sequence):
            raise InvalidInput(f"Recorder needs a list of tasks, got {type(tasks).__name__}")
        bad = [t for t in tasks if not isinstance(t, Task)]
        if bad:
            raise InvalidInput(f"Recorder tasks must be taskik tasks, got {bad[0]!r}")
        self.tasks = list(tasks)
        self.labels = [task_label(t) for t in self.tasks]
        for k, label in enumerate(self.labels):  # make repeated labels unique
            if self.labels.count(label) > 1:
                self.labels[k] = f"{label} #{self.labels[: k + 1].count(label)}"
        self.times: list[float] = []
        self.qs: list[np.ndarray] = []
        self.errors: dict[str, list[float]] = {label: [] for label in self.labels}
        self.model: pin.Model | None = None

    def record(self, t: float, configuration: Configuration) -> None:
        """Append time ``t``, ``configuration.q`` and every task's ``‖e‖``."""
        configuration = check_configuration(configuration, "Recorder.record")
        t = real_scalar(t, "Recorder.record time t")
        if not np.isfinite(t):
            raise InvalidInput(f"Recorder.record time t must be finite, got {t}")
        if self.model is not None and configuration.model.nq != self.model.nq:
            raise InvalidInput(
                f"Recorder.record: this configuration has nq = {configuration.model.nq}, the "
                f"ones recorded before have nq = {self.model.nq} (another model)"
            )
        norms = [float(np.linalg.norm(task.compute_error(configuration))) for task in self.tasks]
        self.model = configuration.model
        self.times.append(t)
        self.qs.append(np.array(configuration.q))
        for label, norm in zip(self.labels, norms, strict=True):
            self.errors[label].append(norm)

    def plot_task_errors(self, path: str | Path, title: str = "task errors") -> Path:
        """:func:`plot_task_errors` of what was recorded."""
        return plot_task_errors(self.times, self.errors, path, title=title)

    def plot_joints(
        self,
        path: str | Path,
        joints: Sequence[str] | None = None,
        title: str = "joint positions and their limits",
    ) -> Path:
        """:func:`plot_joint_trajectories` of what was recorded."""
        if self.model is None:
            raise InvalidInput("nothing to plot: no sample recorded")
        return plot_joint_trajectories(
            self.times, self.qs, self.model, path, joints=joints, title=title
        )


__all__ = ["Recorder", "plot_joint_trajectories", "plot_task_errors", "task_label"]
