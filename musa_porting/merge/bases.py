"""The base: the exact bytes musa-port wrote for each output, kept compressed in
OUT's musa-port folder, so that a later run can tell the user's edits from its own
and merge them (``hand_edits``).

Bases go into pack files, ``OUT/.musa-port/base/<run>-<pid>.pack``: each process of
a run (the forked workers port and stage files) appends the zlib-compressed bytes of
the outputs it planned to a pack of its own, and the output's manifest record points
at them: ``sha256:pack:offset:length`` (``base`` in the record; only the sha256 for an
output too large to keep, or one that is not text and cannot be merged). One file per
process, not per output: creating files costs as much as porting them, and a cold
port must not pay that twice. Packs are written before the commit and read only
through the manifest that names them; after a run that wrote a manifest, packs it no
longer names are removed (``collect``), and the live bases of a pack whose live share
fell below a quarter are copied into this run's pack (``sparse_packs``,
``BaseWriter.move``), so that OUT never holds more than about four times its bases.
"""

from __future__ import annotations

import errno
import hashlib
import os
import zlib

from ..safe_open import NOFOLLOW, open_regular
from ..write.manifest import STATE_DIR_NAME as STATE_DIR
from ..write.outdir import OutDir

BASE_DIR = STATE_DIR + "/base"
# zlib's fastest level: on the bench corpus the packs are 20% of the text it wrote
# (level 6: 17%) for half the CPU time, and compressing is most of what bases cost.
LEVEL = 1
PACK_SUFFIX = ".pack"
# Outputs larger than this keep only their sha256: a merge of them is not attempted
# (a file that large is generated, not edited by hand), and their copy would double OUT.
MAX_BASE = 8 << 20


def sha_of(pointer: str) -> str:
    return pointer.split(":", 1)[0]


def is_text(data: bytes) -> bool:
    """Bytes a line merge can handle: no NUL (binary, UTF-16)."""
    return b"\0" not in data


def parse_pointer(pointer: str) -> tuple[str, str, int, int] | None:
    """(sha256, pack, offset, length) of a base pointer, or None when it is not one as a
    run writes it (the manifest is the user's file: every part is checked, and no
    number is longer than a file's size can be)."""
    parts = pointer.split(":")
    if len(parts) != 4:
        return None
    sha, pack, offset, length = parts
    if "/" in pack or not pack.endswith(PACK_SUFFIX) or not all(
            n.isascii() and n.isdigit() and len(n) <= 18 for n in (offset, length)):
        return None
    return sha, pack, int(offset), int(length)


def base_bytes(out: str, pointer: str, more: tuple[str, ...] = ()) -> bytes | None:
    """The base bytes ``pointer`` names, from OUT's packs (or those of the folders
    ``more``); None when there are none (only a hash), or the pack is gone or does not
    hold what the pointer's sha256 says (never trusted: OUT is the user's). What is
    read is bounded by the pack's real size, and what is inflated by the largest base
    a run keeps, checked as it streams."""
    parsed = parse_pointer(pointer)
    if parsed is None:
        return None
    sha, pack, offset, length = parsed
    for root in (out, *more):
        try:  # a regular file only, never through a link (OUT is the user's: a FIFO blocks)
            fd, st = open_regular(os.path.join(root, BASE_DIR, pack))
        except OSError:
            continue
        try:
            if offset + length > st.st_size:
                continue
            data = _inflate(fd, offset, length)
        except OSError:
            continue
        finally:
            os.close(fd)
        if data is not None and hashlib.sha256(data).hexdigest() == sha:
            return data
    return None


def _inflate(fd: int, offset: int, length: int) -> bytes | None:
    """The bytes that the zlib stream at ``offset`` (``length`` bytes) of the pack
    inflates to; None when it is not one, or inflates past ``MAX_BASE``."""
    z = zlib.decompressobj()
    parts: list[bytes] = []
    size = 0
    end = offset + length
    try:
        while offset < end:
            blob = os.pread(fd, min(1 << 20, end - offset), offset)
            if not blob:
                return None
            offset += len(blob)
            while blob:
                piece = z.decompress(blob, MAX_BASE + 1 - size)
                size += len(piece)
                if size > MAX_BASE:
                    return None
                parts.append(piece)
                blob = z.unconsumed_tail
        if not z.eof:
            return None
    except zlib.error:
        return None
    return b"".join(parts)


def make_folders(outdir: OutDir, rel: str) -> None:
    """Make the folder ``rel`` of OUT and those above it (musa-port's own: a file or a
    link in their place is an error, never written through)."""
    parts = rel.split("/")
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            outdir.mkdir(sub, 0o755)
        except FileExistsError:
            if not outdir.is_dir(sub):
                raise OSError(errno.ENOTDIR, "a file or a link is where musa-port's folder "
                              "must be (move it away)", outdir.path(sub)) from None


class BaseWriter:
    """Appends bases to this process's pack (a forked worker opens its own)."""

    def __init__(self, outdir: OutDir):
        self.outdir = outdir
        self.run = os.urandom(4).hex()  # secrets.token_hex(4), without importing secrets
        self._pid = 0
        self._fd = -1
        self._name = ""
        self._offset = 0

    def put(self, data: bytes, sha: str) -> str:
        """Keep ``data`` (whose sha256 is ``sha``); returns the record's pointer."""
        if len(data) > MAX_BASE or not is_text(data):
            return sha
        return self._append(sha, zlib.compress(data, LEVEL))

    def _append(self, sha: str, blob: bytes) -> str:
        if self._pid != os.getpid():
            self._open()
        view = memoryview(blob)
        while view:
            view = view[os.write(self._fd, view):]
        pointer = f"{sha}:{self._name}:{self._offset}:{len(blob)}"
        self._offset += len(blob)
        return pointer

    def _open(self) -> None:
        make_folders(self.outdir, BASE_DIR)  # on first use: any process, a worker may be first
        self._pid = os.getpid()
        self._name = f"{self.run}-{self._pid}{PACK_SUFFIX}"
        fd, name = self.outdir.at(f"{BASE_DIR}/{self._name}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(name, flags, 0o644, dir_fd=fd)
        self._offset = 0

    def move(self, pointer: str) -> str:
        """Copy the base ``pointer`` names (compressed, as it is) into this process's
        pack; returns its new pointer (the old one if it cannot be read)."""
        parsed = parse_pointer(pointer)
        if parsed is None:
            return pointer
        sha, pack, offset, length = parsed
        try:
            fd, name = self.outdir.at(f"{BASE_DIR}/{pack}")
            src, st = open_regular(name, dir_fd=fd)
        except OSError:
            return pointer
        try:
            if offset + length > st.st_size:
                return pointer
            blob = os.pread(src, length, offset)
        except OSError:
            return pointer
        finally:
            os.close(src)
        return self._append(sha, blob) if len(blob) == length else pointer

    def close(self) -> None:
        if self._fd >= 0 and self._pid == os.getpid():
            os.close(self._fd)
        self._fd, self._pid = -1, 0


    def discard(self) -> None:
        """The run failed before its commit: its packs (every process's) go."""
        self.close()
        collect(self.outdir, set(), self.run + "-")


def sparse_packs(outdir: OutDir, pointers, skip: str) -> set[str]:
    """The packs (not this run's: names starting with ``skip``) of which the bases
    ``pointers`` name are less than a quarter."""
    live: dict[str, int] = {}
    for p in pointers:
        parsed = parse_pointer(p)
        if parsed is not None and not parsed[1].startswith(skip):
            live[parsed[1]] = live.get(parsed[1], 0) + parsed[3]
    sparse = set()
    for name, n in live.items():
        st = outdir.lstat(f"{BASE_DIR}/{name}")
        if st is not None and n * 4 < st.st_size:
            sparse.add(name)
    return sparse


def packs_named(pointers) -> set[str]:
    return {p.split(":")[1] for p in pointers if p.count(":") == 3}


def collect(outdir: OutDir, live: set[str], prefix: str = "") -> None:
    """Remove the packs no record names (an earlier run's, or a killed run's); only
    those whose name starts with ``prefix``."""
    try:
        names = outdir.names(BASE_DIR)
    except OSError:
        return
    for name in names:
        if name not in live and name.startswith(prefix):
            try:
                outdir.unlink(f"{BASE_DIR}/{name}")
            except OSError:
                pass  # a folder someone put there: not ours to remove
