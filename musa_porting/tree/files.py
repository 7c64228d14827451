"""File I/O of a port: reading inputs, comparing, and writing outputs atomically
(a temp file beside the target, then a rename)."""

from __future__ import annotations

import os
import posixpath
import shutil

from ..errors import PortError
from .manifest import TMP_SUFFIX


def read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", path) from None


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
            raise PortError(f"cannot read: {exc.strerror or exc}", a) from None
        return False


def same_stat(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns


def tmp_rel(out_rel: str) -> str:
    """The temp file an output is staged in, beside it."""
    head, tail = posixpath.split(out_rel)
    return posixpath.join(head, f".{tail}{TMP_SUFFIX}")


def write_file(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def atomic_bytes(tmp: str, path: str, data: bytes, mode: int) -> None:
    write_file(tmp, data, mode)
    os.replace(tmp, path)


def atomic_copy(tmp: str, path: str, src: str, mode: int) -> None:
    if os.path.lexists(tmp):
        os.unlink(tmp)
    try:
        shutil.copyfile(src, tmp)
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", src) from None
    os.chmod(tmp, mode)
    os.replace(tmp, path)
