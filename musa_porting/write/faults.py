"""Fault injection for the reliability tests: a full disk or a SIGKILL at an exact
moment of the write path, where a real one cannot be arranged (no tmpfs, no second
user) or would land at a random moment.

``MUSA_PORT_FAULTS="stage:3=enospc,commit:40=kill"`` makes the 3rd write of a temp
file fail with "No space left on device", and SIGKILLs the run before its 40th rename
or removal in the output (a point may be named more than once, at other counts).
Points: ``stage`` (each temp file, link or folder written while planning), ``commit``
(each rename or removal in the output), ``manifest`` (the manifest's rename),
``journal`` (after the manifest, before the journal is removed) and ``worker`` (each
forked worker as it starts, before its signal handlers are set). Actions: ``enospc``,
``eacces``, ``kill`` (SIGKILL), ``int`` (SIGINT); for a worker, ``late`` (it starts a
second late, and a stop signal sent to it meanwhile is lost, as one is that reaches a
child between the fork and the reset of its signal handlers) and ``stuck`` (a minute
late, losing every stop signal: a worker that will not end). Unset, it costs one
global lookup per call. Forked workers stage files too: the counts are shared with
them (``prepare`` before the fork), and a kill or interrupt in a worker is sent to the
run itself, as a real one would be.
"""

from __future__ import annotations

import errno
import os
import signal
import time

ENV = "MUSA_PORT_FAULTS"
_spec: dict[str, dict[int, str]] | None = None  # point -> {nth: action}
_counts: dict[str, int] = {}
_shared: tuple | None = None  # (lock, counts by point, point names), shared with workers
_run_pid = 0  # the process that loaded the spec: the run


def _load() -> dict[str, dict[int, str]]:
    spec: dict[str, dict[int, str]] = {}
    for item in os.environ.get(ENV, "").split(","):
        where, _, action = item.partition("=")
        point, _, nth = where.partition(":")
        if point and action:
            spec.setdefault(point.strip(), {})[int(nth or 1)] = action.strip()
    return spec


def prepare() -> None:
    """Before forking workers that may reach fault points: one count per point for all."""
    global _spec, _shared, _run_pid
    if _spec is None:
        _spec, _run_pid = _load(), os.getpid()
    if _spec and _shared is None:
        import multiprocessing

        names = sorted(_spec)
        counts = multiprocessing.RawArray("q", [_counts.get(p, 0) for p in names])
        _shared = (multiprocessing.Lock(), counts, names)


def _count(point: str) -> int:
    if _shared is None:
        _counts[point] = n = _counts.get(point, 0) + 1
        return n
    lock, counts, names = _shared
    i = names.index(point)
    with lock:
        counts[i] += 1
        return counts[i]


def fault(point: str, path: str) -> None:
    """Called before each write-path step at ``point``; fails it when asked to."""
    global _spec, _run_pid
    if _spec is None:
        _spec, _run_pid = _load(), os.getpid()
    if not _spec or point not in _spec:
        return
    action = _spec[point].get(_count(point))
    if action is None:
        return
    if action in ("kill", "int"):
        signum = signal.SIGKILL if action == "kill" else signal.SIGINT
        if os.getpid() != _run_pid:
            os.kill(_run_pid, signum)  # a worker: the run is what is killed or interrupted
            if action == "int":
                return
        os.kill(os.getpid(), signum)
    elif action in ("enospc", "eacces"):
        code = errno.ENOSPC if action == "enospc" else errno.EACCES
        raise OSError(code, os.strerror(code), path)
    elif action in ("late", "stuck"):
        _lose_stop_signals(1.0 if action == "late" else 60.0, first_only=action == "late")


def _lose_stop_signals(seconds: float, first_only: bool) -> None:
    """Wait ``seconds`` (or, ``first_only``, until the first stop signal), and drop the
    stop signals sent meanwhile: the race of a worker that the scheduler has not run
    past its fork when the pool is ended, widened from microseconds to a second."""
    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            if signal.sigtimedwait(stops, left) is not None and first_only:
                break
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
