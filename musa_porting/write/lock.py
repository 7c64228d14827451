"""One writer per output folder: an exclusive ``fcntl.flock`` on ``OUT/.musa-port-lock``.

Two runs into one output at once (two builds of one ``setup.py``) would otherwise
stage into the same temp files and remove each other's. The second run waits for the
first, up to ``wait`` seconds, then fails with one line. The lock file is removed
when the run ends, so a finished output holds nothing but its files; a waiter that
locked a file removed meanwhile notices (another inode is at the path now) and
locks again. A lock dies with its process, so a killed run never blocks the next.

An output folder we may not write into (read-only) takes no lock: a run that has
nothing to write still succeeds there, and one that must write fails at its first
write, naming it, with nothing written.
"""

from __future__ import annotations

import errno
import os
import time

from ..errors import PortError
from .manifest import LOCK_NAME

try:
    import fcntl
except ImportError:  # Windows: no flock; runs are not serialised there
    fcntl = None  # type: ignore[assignment]


def held(out: str) -> bool:
    """Whether a run holds ``out``'s lock now (``musa-port build`` asks, never waits)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(os.path.join(out, LOCK_NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # no lock file (or not one we can open): no run holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EAGAIN, errno.EACCES)
    finally:
        os.close(fd)
    return False


class OutputLock:
    def __init__(self, out: str, wait: float):
        self.out = out
        self.path = os.path.join(out, LOCK_NAME)
        self.wait = wait
        self.fd: int | None = None
        self.created: list[str] = []  # folders created for the output (removed on failure)

    def __enter__(self) -> OutputLock:
        self._make_output()
        if fcntl is None:
            return self
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                    return self  # read-only output: see the module docstring
                if exc.errno == errno.ENOENT:  # a failed first run removed the folder
                    self._make_output()
                    continue
                raise PortError(f"cannot create the lock file: {exc.strerror or exc}",
                                self.path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise PortError(f"cannot lock: {exc.strerror or exc}", self.path) from None
                if time.monotonic() >= deadline:
                    raise PortError(f"another musa-port run is writing {self.out}; waited "
                                    f"{self.wait:g} s (--wait SECONDS to wait longer)",
                                    self.path) from None
                time.sleep(0.05)
                continue
            try:
                same = os.fstat(fd).st_ino == os.lstat(self.path).st_ino
            except OSError:
                same = False
            if same:
                self.fd = fd
                return self
            os.close(fd)  # the holder removed that file as it finished: lock the new one

    def _make_output(self) -> None:
        """Create the output folder and any missing parent, remembering which."""
        missing = []
        p = self.out
        while not os.path.lexists(p):
            missing.append(p)
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
        for p in reversed(missing):
            try:
                os.mkdir(p)
            except FileExistsError:
                continue
            except OSError as exc:
                raise PortError(f"cannot create the output folder: {exc.strerror or exc}",
                                p) from None
            self.created.append(p)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.fd is not None:
            try:
                os.unlink(self.path)  # while still held: see the module docstring
            except OSError:
                pass  # already gone (the output was removed)
            os.close(self.fd)
            self.fd = None
        if exc_type is not None:
            for p in reversed(self.created):  # a failed first run leaves no output folder
                try:
                    os.rmdir(p)
                except OSError:
                    break  # not empty: something else lives there now
