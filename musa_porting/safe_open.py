"""Opening a file to read it: a regular file only, and the file that was looked at.

Every file musa-port reads (sources, rule files, settings, its own manifest and
journal) comes from a tree it may not trust. A FIFO there would block the run for
ever, a device such as ``/dev/zero`` would fill memory, and a file swapped for a link
between the walk and the read would publish whatever the link points at. So a file is
looked at with ``stat`` first and opened only if it is a regular file (a FIFO or a
device is never opened), opened with ``O_NOFOLLOW`` unless the caller follows links
on purpose (a rule file named on the command line may be a link), and ``fstat`` after
the open proves it is the file that was looked at, or the one the walk saw
(``expect``: its device and inode; such a file is opened without the ``stat``, see
``_open_walked``). The errors are ``OSError`` with a sentence for
``strerror``, which the callers turn into their one-line messages.
"""

from __future__ import annotations

import errno
import os
import stat

_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a link"))


def swapped(path: str, what: str = "another file") -> OSError:
    """The file at ``path`` is not the one that was looked at (or walked)."""
    return OSError(errno.ESTALE, f"replaced by {what} since musa-port listed it", path)


def what_is(mode: int) -> str:
    """'a FIFO', 'a device', ... for a file mode that is not a regular file's."""
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def not_regular(path: str, mode: int) -> OSError:
    return OSError(errno.EINVAL, f"{what_is(mode)}, not a regular file: not read", path)


def open_regular(path: str, *, follow: bool = False, expect: tuple[int, int] | None = None,
                 dir_fd: int | None = None) -> tuple[int, os.stat_result]:
    """An fd open for reading on the regular file at ``path``, and its stat. ``expect``
    is the (device, inode) the file must have; ``dir_fd`` opens ``path`` relative to a
    folder's fd."""
    if expect is not None:  # the walk saw a regular file: see _open_walked
        return _open_walked(path, expect, follow, dir_fd)
    before = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
    if not stat.S_ISREG(before.st_mode):
        raise not_regular(path, before.st_mode)
    try:
        fd = os.open(path, _FLAGS | (0 if follow else NOFOLLOW), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # it became a link since the stat
            raise swapped(path, "a link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise swapped(path, what_is(st.st_mode) if not stat.S_ISREG(st.st_mode)
                          else "another file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _open_walked(path: str, expect: tuple[int, int], follow: bool,
                 dir_fd: int | None) -> tuple[int, os.stat_result]:
    """A file the walk saw as a regular file, opened without a ``stat`` first (a
    source is read once per run: the stat cost a tenth of the cold port's file I/O).
    Only a swap since the walk can put a FIFO or a device there, and ``O_NONBLOCK``
    keeps a FIFO from blocking; ``fstat`` then refuses it before a byte is read."""
    try:
        fd = os.open(path, _FLAGS | (0 if follow else NOFOLLOW), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise swapped(path, "a link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise swapped(path, what_is(st.st_mode))
        if (st.st_dev, st.st_ino) != expect:
            raise swapped(path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: str, *, follow: bool = False, expect: tuple[int, int] | None = None,
                 dir_fd: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (see ``open_regular``)."""
    data, _ = read_regular_stat(path, follow=follow, expect=expect, dir_fd=dir_fd)
    return data


def read_regular_stat(path: str, *, follow: bool = False, expect: tuple[int, int] | None = None,
                      dir_fd: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes and the stat, once read, of the regular file at ``path``."""
    fd, st = open_regular(path, follow=follow, expect=expect, dir_fd=dir_fd)
    try:
        parts = []
        want = st.st_size + 1  # all of it in one read, and the end in the next
        while True:
            chunk = os.read(fd, max(want, 1 << 16))
            if not chunk:
                break
            parts.append(chunk)
            want -= len(chunk)
        return b"".join(parts), os.fstat(fd)
    finally:
        os.close(fd)


def regular_chunks(path: str, size: int, expect: tuple[int, int] | None = None):
    """A regular file's bytes in pieces of ``size`` (never held whole), for a look at a
    file the run reads again later: one that cannot be opened or read yields nothing
    more (what reads it later reports why)."""
    try:
        fd, _ = open_regular(path, expect=expect)
    except OSError:
        return
    with os.fdopen(fd, "rb") as fh:
        while True:
            try:
                chunk = fh.read(size)
            except OSError:
                return
            if not chunk:
                return
            yield chunk
