"""How signals reach a run: Ctrl-C, SIGTERM and SIGHUP become an exception in the main
process (so every cleanup path runs), never in a worker; the commit of a port (its
renames) finishes before one takes effect; and workers die with their parent.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

_STOP_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
                      if s is not None)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: handled like Ctrl-C, exit 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


def install() -> None:
    """In the command line's main process: SIGTERM and SIGHUP raise ``Terminated``."""
    if threading.current_thread() is not threading.main_thread():
        return
    for s in _STOP_SIGNALS:
        signal.signal(s, _raise_terminated)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends, then deliver the first.
    A port's commit is renames only (a second for 100,000 files): finishing it leaves
    a complete output and manifest, where stopping halfway would leave temp files."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    signums = (signal.SIGINT, *_STOP_SIGNALS)
    old = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in signums}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if caught:
            handler = old[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), caught[0])


_WORKER_SIGNALS = (signal.SIGINT, *_STOP_SIGNALS)


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """Around forking workers: Ctrl-C, SIGTERM and SIGHUP are held (blocked), so that a
    worker starts with them held and takes them only once its own handlers are set
    (``worker_init``). A signal sent to a child before that would otherwise run the
    parent's handler in it, or be lost (one that arrives before the fork's reset of
    Python's signal state is cleared by it). Held in this process too, for as long as
    the fork takes; one that comes meanwhile is delivered at the block's end."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _WORKER_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def worker_init(parent: int) -> None:
    """In a forked worker: Ctrl-C is the parent's to handle (it stops the pool), SIGTERM
    ends the worker quietly, and the worker dies when its parent does (Linux), instead
    of printing BrokenPipeError tracebacks into a terminal. The signals held since the
    fork (``stop_signals_held``) are taken from here on."""
    from .write.faults import fault

    fault("worker", "")  # the tests' late or stuck worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for s in _STOP_SIGNALS:
        signal.signal(s, signal.SIG_DFL)
    die_with_parent(signal.SIGKILL, parent)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _WORKER_SIGNALS)


_PRCTL: list = []  # libc's prctl, loaded in the parent (see prepare_death_signal)


def prepare_death_signal() -> None:
    """Load libc's prctl now, in the parent: a child between fork and exec must not
    import anything (another thread may hold the import lock)."""
    if not _PRCTL:
        try:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (OSError, AttributeError):
            _PRCTL.append(None)  # not Linux


def die_with_parent(signum: int, parent: int) -> None:
    """Ask Linux to send ``signum`` to this process when its parent (pid ``parent``)
    exits. Call prepare_death_signal() in the parent first."""
    prctl = _PRCTL[0] if _PRCTL else None
    if prctl is None:
        return  # not Linux: workers end when the pool's pipe closes
    prctl(1, int(signum), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before prctl
        os.kill(os.getpid(), signum)
