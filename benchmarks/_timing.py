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
