"""Shared timing helpers for the benchmarks (median / p95 over repeated calls)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def time_calls(fn: Callable[[], object], n: int, warmup: int = 50) -> np.ndarray:
    """Wall-clock duration of each of ``n`` calls (µs), after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    out = np.empty(n)
    clock = time.perf_counter_ns
    for i in range(n):
        t0 = clock()
        fn()
        out[i] = (clock() - t0) * 1e-3
    return out


def interleaved(fns: dict[str, Callable[[], object]], n: int, rounds: int = 5) -> dict:
    """Time several functions in alternating rounds so machine noise hits all of them alike."""
    samples: dict[str, list[np.ndarray]] = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            samples[name].append(time_calls(fn, n // rounds, warmup=20))
    return {k: np.concatenate(v) for k, v in samples.items()}


def stats(us: np.ndarray) -> tuple[float, float]:
    """(median, p95) in µs."""
    return float(np.median(us)), float(np.percentile(us, 95))


def closed_loop(configuration, solve: Callable[[], object], q0, dt: float, restart: int = 100):
    """One call = one control step: ``v = solve()``, then ``integrate_inplace(v, dt)``; the
    configuration (taskik's or pink's: both have ``update`` and ``integrate_inplace``) goes
    back to ``q0`` every ``restart`` calls, so successive QPs differ as in a real loop."""
    count = 0

    def step() -> None:
        nonlocal count
        count += 1
        if count % restart == 0:
            configuration.update(q0)
        configuration.integrate_inplace(solve(), dt)

    return step


def publish(text: str, path) -> None:
    """Print a result table and write it (with a final newline) to ``path``."""
    from pathlib import Path

    print(text)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n")


def moving_path(model, q0, n: int, amplitude: float = 0.1, period: int = 400) -> np.ndarray:
    """``n`` configurations (rows) on a smooth path around ``q0``: each velocity coordinate
    ``j`` follows ``amplitude · sin(2π k / period + φ_j)`` (phases spread over the joints),
    applied with ``pin.integrate`` (so floating bases move on their manifold), clipped into
    the finite position limits and normalised (``pin.normalize``). Consecutive rows differ by
    about ``2π · amplitude / period`` per coordinate, as in a control loop."""
    import pinocchio as pin

    lower = np.asarray(model.lowerPositionLimit, dtype=float)
    upper = np.asarray(model.upperPositionLimit, dtype=float)
    finite = np.isfinite(lower) & np.isfinite(upper) & (np.abs(upper) < 1e10)
    finite &= np.abs(lower) < 1e10
    phase = np.linspace(0.0, 2.0 * np.pi, model.nv, endpoint=False)
    q0 = np.asarray(q0, dtype=float)
    out = np.empty((n, model.nq))
    for k in range(n):
        dq = amplitude * np.sin(2.0 * np.pi * k / period + phase)
        q = pin.integrate(model, q0, dq)
        q[finite] = np.clip(q[finite], lower[finite], upper[finite])
        out[k] = pin.normalize(model, q)
    return out


def time_steps(
    prepare: Callable[[int], object] | None,
    fn: Callable[[], object],
    indices: range,
    warmup: int = 20,
) -> np.ndarray:
    """Wall-clock duration (µs) of ``fn()`` for each ``k`` in ``indices``, ``prepare(k)``
    (e.g. setting the configuration to the path's k-th q) run untimed before each call;
    ``warmup`` untimed calls first (on the indices just before, wrapped by the caller)."""
    clock = time.perf_counter_ns
    first = indices.start
    for k in range(first - warmup, first):
        if prepare is not None:
            prepare(k)
        fn()
    out = np.empty(len(indices))
    for i, k in enumerate(indices):
        if prepare is not None:
            prepare(k)
        t0 = clock()
        fn()
        out[i] = (clock() - t0) * 1e-3
    return out


def largest_difference(
    mark: Callable[[int], object],
    a: Callable[[], np.ndarray],
    b: Callable[[], np.ndarray],
    m: int,
    samples: int = 50,
) -> float:
    """The largest ``max |a() − b()|`` over about ``samples`` indices of a path of ``m``
    configurations (``mark(k)`` selects index k): two steps that must give the same v."""
    worst = 0.0
    for k in range(0, m, max(1, m // samples)):
        mark(k)
        worst = max(worst, float(np.abs(a() - b()).max()))
    return worst


def interleaved_steps(
    contenders: dict[str, tuple[Callable[[int], object] | None, Callable[[], object]]],
    n: int,
    rounds: int = 5,
    warmup: int = 20,
) -> dict:
    """Like :func:`interleaved`, with a moving configuration: each contender is
    ``(prepare, fn)``; round ``r`` times ``fn`` after ``prepare(k)`` for the same indices
    ``k`` for every contender (``prepare`` untimed; ``k`` runs over 0 … n-1 in all, so each
    contender sees the same sequence of configurations). ``prepare`` must accept any integer
    (wrap it modulo the path length): warm-up calls use the indices before a round's
    first."""
    per = n // rounds
    samples: dict[str, list[np.ndarray]] = {k: [] for k in contenders}
    for r in range(rounds):
        span = range(r * per, (r + 1) * per)
        for name, (prepare, fn) in contenders.items():
            samples[name].append(time_steps(prepare, fn, span, warmup))
    return {k: np.concatenate(v) for k, v in samples.items()}
