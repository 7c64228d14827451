"""Writing a report file: atomically (a CI job may read it while we write), or to
stdout for ``-``.

The temp file is created beside the report with ``O_EXCL`` under a name no one can
know in advance (``write.files.tmp_rel``), so neither a link planted there nor a file
of that name is ever written through or removed, and it is removed on any failure. A
path that is not a regular file (a FIFO, a device, ``/dev/stdout``) is written
through instead (``write/through.py``). Report paths are checked before the port runs
(``check_target``): a report that cannot be written must not turn a finished port into
an error, nor leave anything behind. Text is UTF-8; a file name that is not (its bytes
held as surrogates) is written with ``\\xNN`` escapes.
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
    from ..write.through import check_named

    why = check_named(path)
    if why is not None:  # written through: its folder is not written
        if why:
            raise PortError(f"{option}: {why}", path)
        return
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
    from ..write.files import replace_atomically
    from ..write.through import goes_through, write_through

    try:
        if goes_through(path):
            write_through(path, data)
        else:
            replace_atomically(os.path.abspath(path), data, 0o666 & ~_umask())
    except OSError as exc:
        raise PortError(f"cannot write: {exc.strerror or exc}", path) from None


def write_text(path: str, text: str) -> None:
    write_bytes(path, readable(text))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
