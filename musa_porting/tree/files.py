"""File I/O of a port: reading inputs, comparing, and writing outputs atomically
(a temp file beside the target, then a rename)."""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterable, Iterator

from ..errors import PortError
from .manifest import TMP_SUFFIX


def cannot_read(exc: OSError, path: str) -> PortError:
    """The error for a file that could not be read. One that is gone was there when
    the walk listed it: it vanished during the run (deleted or renamed)."""
    if isinstance(exc, FileNotFoundError) or not os.path.lexists(path):
        return PortError("vanished during the run (deleted or renamed after musa-port listed "
                         "it); run again", path)
    return PortError(f"cannot read: {exc.strerror or exc}", path)


def read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise cannot_read(exc, path) from None


def read_source(path: str) -> tuple[bytes, os.stat_result]:
    """A source's bytes and its stat once read: a stat that differs from the walk's
    says the file changed while the run read it."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
            return data, os.fstat(fh.fileno())
    except OSError as exc:
        raise cannot_read(exc, path) from None


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files_equal(a: str, b: str) -> bool:
    try:
        if os.path.getsize(a) != os.path.getsize(b) or os.path.islink(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError as exc:
        if not os.path.exists(a) or not os.access(a, os.R_OK):
            raise cannot_read(exc, a) from None
        return False


def same_stat(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns


def temp_name(key: str) -> str:
    """The temp name for output ``key`` (a path relative to the output): short, so a
    255-byte file name still has one, and unique per output."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f".{digest}{TMP_SUFFIX}"


def tmp_rel(out_rel: str) -> str:
    """The temp file an output is written to first, beside it."""
    return posixpath.join(posixpath.dirname(out_rel), temp_name(out_rel))


def _create(path: str) -> int:
    """A new file at ``path``, never through a link: a leftover of the same name (a
    temp file of a killed run) is removed first."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, 0o600)
    except FileExistsError:
        os.unlink(path)
        return os.open(path, flags, 0o600)


def write_file(path: str, data: bytes, mode: int) -> os.stat_result:
    """Write a new file; returns its stat (a rename keeps its size and mtime)."""
    fd = _create(path)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fchmod(fd, mode)
        return os.fstat(fd)
    finally:
        os.close(fd)


def write_chunks(path: str, chunks: Iterable[bytes], mode: int) -> os.stat_result:
    """Write a new file from pieces (a large manifest is never one string in memory)."""
    fd = _create(path)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        return os.fstat(fd)
    finally:
        os.close(fd)


def copy_file(src: str, path: str, mode: int) -> os.stat_result:
    """Copy ``src`` to a new file at ``path``; a read error names ``src`` (PortError),
    a write error is an OSError on ``path``."""
    try:
        fin = open(src, "rb")
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
        return write_chunks(path, chunks(), mode)


def atomic_bytes(tmp: str, path: str, data: bytes, mode: int) -> None:
    write_file(tmp, data, mode)
    os.replace(tmp, path)
