"""Fault injection for the reliability tests: a full disk or a SIGKILL at an exact
moment of the write path, where a real one cannot be arranged (no tmpfs, no second
user) or would land at a random moment.

``MUSA_PORT_FAULTS="stage:3=enospc,commit:40=kill"`` makes the 3rd write of a temp
file fail with "No space left on device", and SIGKILLs the run before its 40th rename
or removal in the output. Points: ``stage`` (each temp file, link or folder written
while planning), ``commit`` (each rename or removal in the output), ``manifest`` (the
manifest's rename) and ``journal`` (after the manifest, before the journal is removed).
Actions: ``enospc``, ``eacces``, ``kill`` (SIGKILL), ``int`` (SIGINT). Unset, it costs
one global lookup per call.
"""

from __future__ import annotations

import errno
import os
import signal

ENV = "MUSA_PORT_FAULTS"
_spec: dict[str, tuple[int, str]] | None = None
_counts: dict[str, int] = {}


def _load() -> dict[str, tuple[int, str]]:
    spec = {}
    for item in os.environ.get(ENV, "").split(","):
        where, _, action = item.partition("=")
        point, _, nth = where.partition(":")
        if point and action:
            spec[point.strip()] = (int(nth or 1), action.strip())
    return spec


def fault(point: str, path: str) -> None:
    """Called before each write-path step at ``point``; fails it when asked to."""
    global _spec
    if _spec is None:
        _spec = _load()
    if not _spec or point not in _spec:
        return
    _counts[point] = n = _counts.get(point, 0) + 1
    nth, action = _spec[point]
    if n != nth:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "int":
        os.kill(os.getpid(), signal.SIGINT)
    elif action in ("enospc", "eacces"):
        code = errno.ENOSPC if action == "enospc" else errno.EACCES
        raise OSError(code, os.strerror(code), path)
