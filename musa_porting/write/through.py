"""Writing to a path the user named that is not a regular file.

A file musa-port writes (``-o FILE``, ``--diff=FILE``, the reports) replaces what is
at its path by a rename, so a reader sees the old file or the new one, never half.
But a path that exists and is not a regular file is a place to write to, not a file
to replace: renaming over ``/dev/null`` (as root) left a regular file where the
machine's null device was, a FIFO's reader (``>(jq .)``) got nothing, and
``--report-json /dev/stdout`` replaced the link instead of printing. Such a path is
written through, as ``cat > path`` would: a device, a FIFO, a link to one of those.
A path that names one of this process's own open files (``/dev/stdout``,
``/dev/fd/N``, ``/proc/self/fd/N``, or a link to one) is that stream: written at its
place, as ``-`` writes stdout (a new open would start at its first byte again).
A socket cannot be opened to be written: ``check_named`` refuses it before anything
runs.
"""

from __future__ import annotations

import os
import re
import stat
import sys

_MAX_LINKS = 40  # as the kernel's limit on links followed in one path


def own_fd(path: str) -> int | None:
    """The file descriptor of this process that ``path`` names, if any, following
    links one at a time (``/dev/stdout`` -> ``/proc/self/fd/1``)."""
    fd_folder = re.compile(rf"/proc/{os.getpid()}(?:/task/\d+)?/fd")
    p = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        head, tail = os.path.split(p)
        if tail.isdigit() and fd_folder.fullmatch(os.path.realpath(head)):
            return int(tail)
        try:
            target = os.readlink(p)
        except OSError:
            return None  # not a link: the end of the chain
        p = os.path.normpath(os.path.join(head, target))
    return None


def goes_through(path: str) -> bool:
    """Whether a write to ``path`` goes through it instead of replacing it: it exists
    and, links followed, is not a regular file or a folder; or it is one of our own
    streams (``own_fd``)."""
    try:
        st = os.stat(path)
    except OSError:
        return False  # nothing there (or a dangling link): a new file is made
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return True
    return stat.S_ISREG(st.st_mode) and own_fd(path) is not None


def check_named(path: str) -> str | None:
    """What makes ``path`` impossible to write through ("" when it can be, None when
    it is not written through at all): checked before a run, so a finished port never
    ends in an error about its report."""
    if not goes_through(path):
        return None
    if own_fd(path) is not None:
        return ""
    st = os.stat(path)
    if stat.S_ISSOCK(st.st_mode):
        return "is a socket, which cannot be written as a file (name a file, a FIFO or a device)"
    if not os.access(path, os.W_OK):
        return "cannot write to it: permission denied"
    return ""


def write_through(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in place (see the module docstring). Opening a FIFO
    waits for its reader, as ``cat > fifo`` does."""
    fd = own_fd(path)
    if fd in (1, 2):  # as "-" writes stdout: after what Python holds for it
        stream = sys.stdout if fd == 1 else sys.stderr
        stream.flush()
        stream.buffer.write(data)
        stream.flush()
        return
    if fd is not None:
        _write_all(fd, data)
        return
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
