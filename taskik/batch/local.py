"""The local engine: worker processes on this machine, no server.

Start-up: where the platform can fork (Linux), the workers are forked from the calling
process *after* it has solved the job's first problem, so they inherit the model, the
targets and the warm solver state (the seed memory, built once, ≈ 0.1 s) without any
copy; a chunk message is then two integers ``(start, stop)`` and its reply the result
arrays of the chunk (≈ 80 B per UR5 problem). Elsewhere the workers are spawned and receive
the job (model and targets) once each, pickled.

Faults: a worker that dies (killed, out of memory) is replaced and its chunk given to
another worker; each chunk is accepted once, so every problem is solved once in the output.
An exception raised by a solve is not retried: it is raised in the caller, as itself with
the worker's traceback as its ``__cause__`` (:class:`WorkerTraceback`), or, when it cannot
be pickled, as a :class:`WorkerError` carrying its type, message and traceback as text.

The engine runs any chunked work (:data:`Work`), not only pose IK.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import traceback
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from ..exceptions import TaskikError

#: Times a chunk may lose its worker before the job gives up.
MAX_RETRIES = 3

#: Chunks sent to a worker ahead: it starts the next one without waiting for the caller
#: (which, on a busy machine, may wait milliseconds for a core to read a reply).
IN_FLIGHT = 2

#: What a worker runs for the chunk ``[start, stop)``: its result arrays, by name, with
#: ``"worker"`` (who solved it). With fork it is inherited as is; with spawn it is pickled
#: once per worker (e.g. ``functools.partial(solve_chunk, job)``).
Work = Callable[[int, int], dict[str, np.ndarray]]

#: Called in the caller's process with ``(start, stop, arrays)`` as each chunk finishes.
OnChunk = Callable[[int, int, dict[str, np.ndarray]], None]


class WorkerLost(TaskikError, RuntimeError):
    """A chunk lost its worker more than ``MAX_RETRIES`` (3) times: the job stops."""


def cpu_count() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return os.cpu_count() or 1


class WorkerError(TaskikError, RuntimeError):
    """An exception raised in a worker that could not travel back as itself (it, its
    arguments or its attributes cannot be pickled, or it cannot be rebuilt in the caller):
    its type, message and the worker's traceback, as text.

    Attributes:
        type_name: ``module.QualifiedName`` of the worker's exception.
        message: its ``str()``.
        traceback: the worker's formatted traceback (``traceback.format_exception``).
    """

    def __init__(self, type_name: str, message: str, traceback: str, where: str = "") -> None:
        """``where``: where it was raised, e.g. ``"in a worker on problems 3..9"``."""
        self.type_name = type_name
        self.message = message
        self.traceback = traceback
        self.where = where
        super().__init__(
            f"{type_name}: {message} (raised {where or 'in a worker'}; it could not be sent "
            f"back as itself, so here as text, with its traceback:)\n{traceback.rstrip()}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.type_name, self.message, self.traceback, self.where))


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker, as text: set as the ``__cause__``
    of that exception when it is raised again in the caller (printed above it)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return "\n\n" + self.text.rstrip()


def _type_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # (a broken __str__)
        return repr(exc.args)


def _round_trips(value: object) -> bool:
    try:
        pickle.loads(pickle.dumps(value))
        return True
    except Exception:
        return False


def _portable(exc: Exception) -> object:
    """``exc`` if it survives pickling (the pipe); otherwise ``(type, args, attributes)``
    if they do, rebuilt by :func:`_rebuilt` without calling its ``__init__`` (whose
    signature may not be its ``args``: e.g. :class:`taskik.exceptions.UnknownName`);
    otherwise None (sent as text, see :class:`WorkerError`)."""
    if _round_trips(exc):
        return exc
    parts = (type(exc), exc.args, dict(getattr(exc, "__dict__", {})))
    return parts if _round_trips(parts) else None


def _rebuilt(value: object) -> BaseException:
    """The exception a worker sent (see :func:`_portable`)."""
    if isinstance(value, BaseException):
        return value
    cls: type[BaseException]
    args: tuple[Any, ...]
    attributes: dict[str, Any]
    cls, args, attributes = value  # type: ignore[misc]
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(attributes)
    return exc


def error_reply(start: int, stop: int, exc: Exception, about: str = "") -> tuple[Any, ...]:
    """The reply of a worker whose ``work(start, stop)`` raised ``exc``: the exception (or
    what rebuilds it) with its type name, message and traceback text, always picklable.
    ``about``: what failed when it was not the work (e.g. pickling its result), put
    before the message; the exception is then sent as text only."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    value = None if about else _portable(exc)
    return ("error", start, stop, value, _type_name(type(exc)), about + _text(exc), text)


def sendable(exc: Exception, where: str = "") -> Exception:
    """``exc`` if it survives pickling, otherwise a :class:`WorkerError` with its type,
    message and traceback (for engines that pickle a worker's exception themselves, as
    Ray does). ``where``: e.g. ``"in a worker on problems 3..9"``."""
    if _round_trips(exc):
        return exc
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return WorkerError(_type_name(type(exc)), _text(exc), text, where)


def raised_in_worker(reply: tuple[Any, ...], label: str) -> BaseException:
    """The exception to raise in the caller for a worker's :func:`error_reply`: the
    worker's own, its traceback as ``__cause__`` (:class:`WorkerTraceback`), or a
    :class:`WorkerError` when it cannot be rebuilt."""
    _, start, stop, value, type_name, message, text = reply
    where = f"in a worker on {label} {start}..{stop - 1}"
    if value is not None:
        try:
            exc = _rebuilt(value)
        except Exception:
            pass
        else:
            exc.__cause__ = WorkerTraceback(text)
            return exc
    return WorkerError(type_name, message, text, where)


def _serve(conn: Connection, work: Work, inherited: list[Connection]) -> None:
    """A worker: solve the chunks it is sent until it is sent None, or until the caller is
    gone (end of file on ``conn``). ``inherited``: the caller's ends of the pipes that a
    forked worker holds copies of (its own and earlier workers'); closed first, so that
    the caller's death closes every pipe and no worker outlives it. An exception of the
    work, or a result that cannot be pickled, is sent back as an error (not retried)."""
    for end in inherited:
        end.close()
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                return
            start, stop = msg
            try:
                out = work(start, stop)
            except Exception as exc:  # raised in the caller, not retried
                data = ForkingPickler.dumps(error_reply(start, stop, exc))
            else:
                try:
                    data = ForkingPickler.dumps(("ok", start, stop, out))
                except Exception as exc:
                    data = ForkingPickler.dumps(error_reply(start, stop, exc, "its result: "))
            conn.send_bytes(data)
    except (EOFError, OSError, KeyboardInterrupt):  # (the caller is gone)
        return


class _Worker:
    def __init__(self, ctx: mp.context.BaseContext, work: Work, others: list[_Worker]) -> None:
        self.conn, child = ctx.Pipe()
        forked = ctx.get_start_method() == "fork"  # (spawned workers inherit no pipe)
        inherited = [self.conn, *(w.conn for w in others)] if forked else []
        self.process: BaseProcess = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child, work, inherited), daemon=True
        )
        self.process.start()
        child.close()
        self.chunks: deque[tuple[int, int]] = deque()  # sent, not answered (in order)

    def send(self, chunk: tuple[int, int]) -> None:
        self.chunks.append(chunk)
        # (a worker that died meanwhile: its sentinel fires and the chunk is given again)
        with contextlib.suppress(OSError):
            self.conn.send(chunk)

    def ask_to_stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)

    def stop(self) -> None:
        """Ask to stop, wait up to 1 s, then kill."""
        self.ask_to_stop()
        self.process.join(timeout=1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=1.0)
        self.conn.close()


def _replace(
    ctx: mp.context.BaseContext,
    work: Work,
    pool: list[_Worker],
    dead: _Worker,
    pending: deque[tuple[int, int]],
    lost: dict[tuple[int, int], int],
    label: str,
) -> _Worker:
    """A new worker for ``dead``, whose unanswered chunks go back to the front of
    ``pending``; :class:`WorkerLost` when a chunk has lost more than MAX_RETRIES workers.
    Only the chunk the worker was solving (its first unanswered one: a worker solves its
    chunks in order) counts as lost; the one queued behind it had not started."""
    if dead.chunks:
        chunk = dead.chunks[0]
        lost[chunk] = lost.get(chunk, 0) + 1
        if lost[chunk] > MAX_RETRIES:
            raise WorkerLost(
                f"{label} {chunk[0]}..{chunk[1] - 1} lost their worker {lost[chunk]} times "
                f"(exit code {dead.process.exitcode}); giving up"
            )
    pending.extendleft(reversed(dead.chunks))
    dead.chunks.clear()
    dead.stop()
    return _Worker(ctx, work, [w for w in pool if w is not dead])


def start_method() -> str:
    """``"fork"`` where available (no copy of the job), otherwise ``"spawn"``."""
    return "fork" if "fork" in mp.get_all_start_methods() else "spawn"


def run_local(
    work: Work,
    ranges: list[tuple[int, int]],
    workers: int,
    on_chunk: OnChunk,
    label: str = "problems",
) -> list[str]:
    """Run ``work`` on the chunks ``ranges`` in ``workers`` processes (1: in this
    process); ``on_chunk`` receives each chunk once, as it finishes. Returns the worker of
    each chunk, in completion order. ``label``: what the indices count, in messages."""
    names: list[str] = []
    if workers <= 1 or len(ranges) <= 1:
        for start, stop in ranges:
            out = work(start, stop)
            names.append(str(out["worker"]))
            on_chunk(start, stop, out)
        return names
    ctx = mp.get_context(start_method())
    pending = deque(ranges)
    lost: dict[tuple[int, int], int] = {}
    pool: list[_Worker] = []
    for _ in range(min(workers, len(ranges))):
        pool.append(_Worker(ctx, work, pool))
    try:
        while pending or any(w.chunks for w in pool):
            # each worker holds IN_FLIGHT chunks: the next one is queued when it finishes one
            for i, w in enumerate(pool):
                if len(w.chunks) < IN_FLIGHT and pending and not w.process.is_alive():
                    pool[i] = w = _replace(
                        ctx, work, pool, w, pending, lost, label
                    )  # (died after a reply)
                while len(w.chunks) < IN_FLIGHT and pending:
                    w.send(pending.popleft())
            busy = [w for w in pool if w.chunks]
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for i, w in enumerate(pool):
                if not w.chunks or (w.conn not in ready and w.process.sentinel not in ready):
                    continue
                reply = None
                try:
                    if w.conn.poll():
                        reply = w.conn.recv()
                except (EOFError, OSError):
                    reply = None
                except Exception as exc:  # (a reply the caller cannot unpickle)
                    chunk = w.chunks[0]
                    raise WorkerError(
                        _type_name(type(exc)),
                        f"the reply could not be read: {_text(exc)}",
                        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
                        f"in the caller, reading the reply for {label} {chunk[0]}..{chunk[1] - 1}",
                    ) from exc
                if reply is None:  # the worker died (its sentinel fired, nothing to read)
                    if w.process.is_alive() and w.conn not in ready:
                        continue  # (spurious wake-up)
                    pool[i] = _replace(ctx, work, pool, w, pending, lost, label)
                    continue
                kind, start, stop, value = reply[:4]
                w.chunks.popleft()  # (== (start, stop): a worker answers in order)
                if kind == "error":
                    raise raised_in_worker(reply, label)
                names.append(str(value["worker"]))
                on_chunk(start, stop, value)
    finally:
        for w in pool:  # all at once: they exit in parallel
            w.ask_to_stop()
        for w in pool:
            w.stop()
    return names
