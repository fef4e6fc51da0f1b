"""One BLAS thread for the step's large products, the caller's thread count restored after.

OpenBLAS (numpy's BLAS) splits a matrix product over its thread pool once the product is
large enough, about 4.4e5 multiply-adds for ``AᵀA`` with OpenBLAS 0.3.31 (a 110 × 64 ``A``
is split, 120 × 60 is not). On a machine whose other cores are busy, the split waits for
threads that do not get a core: ``AᵀA`` of a 100 × 100 ``A`` took 12.8 ms with the default
two threads against 48 µs with one, 200 × 60 took 86 against 42 µs (same process, a second
process busy on the other core). Smaller products never wake the pool: the step benchmark's
scenes (nv ≤ 38) and the chains of nv 50 to 200 (whose posture rows enter ``P``'s diagonal,
not ``AᵀA``) measured the same step time with OpenBLAS's default threads and with one.

:func:`hold` sets every BLAS library found by threadpoolctl to one thread and returns what
to give back to :func:`release`, which restores each library's count as it was: a user's
own ``numpy`` calls outside a step keep their threads. A step whose products are below
:data:`THREADED_WORK` calls neither (the calls cost about 5 µs). OpenBLAS's thread count is
one per process: numpy code running in another Python thread *during* a large step runs
with one BLAS thread too.

threadpoolctl (BSD, pure Python) is a dependency; where it is missing anyway (a vendored
copy), :func:`hold` does nothing and BLAS keeps its own thread count
(``OPENBLAS_NUM_THREADS=1`` in the environment has the same effect for the whole process).
"""

from __future__ import annotations

from typing import Any

#: Multiply-adds of a product (``rows · nv²`` for ``AᵀA``) from which the step holds BLAS to
#: one thread: below OpenBLAS's own threading threshold (about 4.4e5), with a margin.
THREADED_WORK = 300_000

# threadpoolctl's controllers of the BLAS libraries loaded in this process (found once, on
# the first large step: finding them costs about a millisecond); [] without threadpoolctl.
_controllers: list[Any] | None = None


def _blas_controllers() -> list[Any]:
    global _controllers
    if _controllers is None:
        try:
            from threadpoolctl import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
                ThreadpoolController,
            )
        except ImportError:
            _controllers = []
        else:
            found = ThreadpoolController().select(user_api="blas")
            _controllers = list(found.lib_controllers)
    return _controllers


def hold() -> list[tuple[Any, int]]:
    """Set every BLAS library to one thread; returns ``(library, its thread count)`` for
    the libraries changed, to pass to :func:`release`."""
    held = []
    for lib in _controllers if _controllers is not None else _blas_controllers():
        count = lib.num_threads
        if count != 1:
            lib.set_num_threads(1)
            held.append((lib, count))
    return held


def release(held: list[tuple[Any, int]]) -> None:
    """Give each library of ``held`` (from :func:`hold`) its thread count back."""
    for lib, count in held:
        lib.set_num_threads(count)
