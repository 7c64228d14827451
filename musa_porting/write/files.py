"""File I/O of a port: reading inputs, comparing, and writing outputs atomically
(a temp file beside the target, then a rename)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
from collections.abc import Iterable, Iterator

from ..errors import InputError
from ..safe_open import NOFOLLOW, open_regular, read_regular, read_regular_stat
from .manifest import TMP_SUFFIX


def cannot_read(exc: OSError, path: str) -> InputError:
    """The error for a file that could not be read. One that is gone was there when
    the walk listed it: it vanished during the run (deleted or renamed)."""
    if isinstance(exc, FileNotFoundError) or not os.path.lexists(path):
        return InputError("vanished during the run (deleted or renamed after musa-port listed "
                          "it); run again", path)
    return InputError(f"cannot read: {exc.strerror or exc}", path)


def read_file(path: str, expect: tuple[int, int] | None = None, follow: bool = False) -> bytes:
    """A regular file's bytes (never a FIFO's or a device's; not through a link unless
    ``follow``); ``expect``: the (device, inode) the walk saw (see safe_open)."""
    try:
        return read_regular(path, expect=expect, follow=follow)
    except OSError as exc:
        raise cannot_read(exc, path) from None


def read_source(path: str, expect: tuple[int, int] | None = None) -> tuple[bytes, os.stat_result]:
    """A source's bytes and its stat once read: a stat that differs from the walk's
    says the file changed while the run read it."""
    try:
        return read_regular_stat(path, expect=expect)
    except OSError as exc:
        raise cannot_read(exc, path) from None


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files_equal(a: str, b: str, expect: tuple[int, int] | None = None) -> bool:
    """Whether source ``a`` (the walk's ``expect``) and output ``b`` hold the same bytes;
    ``b`` is never read through a link."""
    try:
        fa, _ = open_regular(a, expect=expect)
    except OSError as exc:
        raise cannot_read(exc, a) from None
    with os.fdopen(fa, "rb") as ha:
        try:
            fb, st = open_regular(b)
        except OSError:
            return False
        with os.fdopen(fb, "rb") as hb:
            if os.fstat(fa).st_size != st.st_size:
                return False
            while True:
                try:
                    x = ha.read(1 << 20)
                except OSError as exc:
                    raise cannot_read(exc, a) from None
                if x != hb.read(1 << 20):
                    return False
                if not x:
                    return True


def same_stat(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns


def new_token() -> str:
    """A run's own part of its temp names: random, so no name a tree holds (a source
    named as another output's temp file) can be one of them; the journal records it,
    so recovery removes that run's temp files and nothing else."""
    return os.urandom(8).hex()  # secrets.token_hex(8), without importing secrets and random


def temp_name(key: str, token: str) -> str:
    """The temp name for output ``key`` (a path relative to the output) in the run of
    ``token``: short, so a 255-byte file name still has one, and unique per output."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f".{token}.{digest}{TMP_SUFFIX}"


def tmp_rel(out_rel: str) -> str:
    """A temp file beside ``out_rel``, a name no one could know in advance."""
    return posixpath.join(posixpath.dirname(out_rel), temp_name(out_rel, new_token()))


def _create(path: str, dir_fd: int | None = None) -> int:
    """A new file at ``path`` (a name in the folder ``dir_fd`` when given), never
    through a link, and never over anything: a temp name is the run's own (``temp_name``),
    so a file already there is someone else's, and the write fails (EEXIST)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600, dir_fd=dir_fd)


def write_file(path: str, data: bytes, mode: int, dir_fd: int | None = None) -> os.stat_result:
    """Write a new file; returns its stat (a rename keeps its size and mtime)."""
    fd = _create(path, dir_fd)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fchmod(fd, mode)
        return os.fstat(fd)
    finally:
        os.close(fd)


def write_chunks(path: str, chunks: Iterable[bytes], mode: int,
                 dir_fd: int | None = None) -> os.stat_result:
    """Write a new file from pieces (a large manifest is never one string in memory)."""
    fd = _create(path, dir_fd)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        return os.fstat(fd)
    finally:
        os.close(fd)


def copy_file(src: str, path: str, mode: int, expect: tuple[int, int] | None = None,
              dir_fd: int | None = None) -> os.stat_result:
    """Copy source ``src`` (the walk's ``expect``) to a new file at ``path``; a read
    error names ``src`` (PortError), a write error is an OSError on ``path``."""
    try:
        fin = os.fdopen(open_regular(src, expect=expect)[0], "rb")
    except OSError as exc:
        raise cannot_read(exc, src) from None
    def chunks() -> Iterator[bytes]:
        while True:
            try:
                chunk = fin.read(1 << 20)
            except OSError as exc:
                raise cannot_read(exc, src) from None
            if not chunk:
                return
            yield chunk

    with fin:
        return write_chunks(path, chunks(), mode, dir_fd)


def atomic_bytes(tmp: str, path: str, data: bytes, mode: int) -> None:
    write_file(tmp, data, mode)
    os.replace(tmp, path)


def write_if_changed(path: str, data: bytes, mode: int, named: bool = False) -> None:
    """Write one file outside a tree port (``musa-port x.cu -o FILE``,
    ``SimplePorting.modify_file``, the build's generated files): atomically, through
    a temp file beside it, and not at all when it holds these bytes already, so its
    mtime stays and make, ninja and editors see no change. A link there is replaced,
    never written through; but a path the user ``named`` on the command line that is
    not a regular file (a FIFO, a device, a link to one, /dev/stdout) is written
    through, as ``cat > path`` would (``write/through.py``)."""
    if named:
        from .through import goes_through, write_through

        if goes_through(path):
            write_through(path, data)
            return
    try:
        if read_regular(path) == data:
            return
    except OSError:
        pass  # no file yet, or not a regular one: written below
    replace_atomically(path, data, mode)


def replace_atomically(path: str, data: bytes, mode: int) -> None:
    """``path`` replaced by a file of ``data`` (a new file renamed over it); the temp
    file is removed on any failure."""
    tmp = tmp_rel(path)
    try:
        atomic_bytes(tmp, path, data, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
