"""Writing a report file: atomically (a CI job may read it while we write), or to
stdout for ``-``.

The temp file is made by ``tempfile.mkstemp`` beside the report (``O_EXCL``, a name
no one can guess in advance), so a link planted at a predictable name is never
written through, and it is removed on any failure. Report paths are checked before
the port runs (``check_target``): a report that cannot be written must not turn a
finished port into an error, nor leave anything behind. Text is UTF-8; a file name
that is not (its bytes held as surrogates) is written with ``\\xNN`` escapes.
"""

from __future__ import annotations

import os
import sys

from ..errors import PortError


def readable(text: str) -> bytes:
    """``text`` as UTF-8, undecodable bytes of file names as ``\\xNN`` escapes."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate that is not an undecodable byte
            return text.encode("utf-8", "backslashreplace")
        return raw.decode("utf-8", "backslashreplace").encode("utf-8")


def check_target(path: str, option: str) -> None:
    """Fail now, naming ``path``, if a report cannot be written there."""
    if path == "-":
        return
    if not path:
        raise PortError(f"{option}: the report's path is empty")
    if os.path.isdir(path):
        raise PortError(f"{option}: is a folder; name a file", path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise PortError(f"{option}: folder not found: {folder}", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PortError(f"{option}: cannot write into its folder {folder}", path)


def write_bytes(path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    import tempfile  # not at start-up: it imports random, shutil, bz2, lzma

    folder, name = os.path.split(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise PortError(f"cannot write: {exc.strerror or exc}", path) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # already renamed, or gone
        if isinstance(exc, OSError):
            raise PortError(f"cannot write: {exc.strerror or exc}", path) from None
        raise


def write_text(path: str, text: str) -> None:
    write_bytes(path, readable(text))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
