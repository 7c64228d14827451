"""The last manifest a run wrote or read, decoded and checked, in a marshal file: a
no-change re-run loads it in a few milliseconds instead of parsing and checking the
JSON again (on the bench corpus, 2.7 MB of it: most of what such a run did).

It lives in the user's cache folder, as the compiled tables do (``table_cache``;
``MUSA_PORT_CACHE_DIR=off`` turns both off), one file per output folder, with the
manifest's own bytes: it is used only when the manifest in the output has exactly
those bytes (and this musa-port, this Python and this record layout made it). So it
is a memo of ``load_manifest`` on those bytes, never an answer for another file. Any
trouble with it (a folder that cannot be written, a truncated or foreign file) falls
back to the JSON: the cache only ever saves time.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import sys
from contextlib import suppress

# A larger manifest is not cached: its copy would cost the run memory (and 100,000
# files' re-run is dominated by checking each one anyway).
MAX_RECORDS = 20_000
KEEP = 32  # manifests of this many output folders stay cached
_SIZES = struct.Struct("<QQ")


def _file(out_dir: str) -> str | None:
    from ..rules.cache_folder import cache_folder

    folder = cache_folder()
    if folder is None:
        return None
    name = hashlib.sha256(os.fsencode(os.path.abspath(out_dir))).hexdigest()[:32]
    return os.path.join(folder, f"manifest-{name}.marshal")


def _key(layout: tuple, size: int) -> tuple:
    from .. import __version__

    return (__version__, sys.version, marshal.version, layout, size)


def load(out_dir: str, raw: bytes, layout: tuple) -> tuple | None:
    """What ``save`` cached for ``out_dir`` (records as tuples of the fields named in
    ``layout``), if it was made from a manifest of the bytes ``raw``."""
    path = _file(out_dir)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            data = memoryview(fh.read())
        # The sizes of what made it and of the decoded manifest, then those, with the
        # manifest's bytes between them.
        head_size, size = _SIZES.unpack_from(data)
        start = _SIZES.size + head_size
        if marshal.loads(data[_SIZES.size:start]) != _key(layout, len(raw)) or \
                data[start:start + len(raw)] != raw:
            return None
        return marshal.loads(data[start + len(raw):start + len(raw) + size])
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None  # missing, truncated, or written by something else: read the JSON


def save(out_dir: str, raw: bytes, layout: tuple, records: int, content: tuple) -> None:
    """Cache ``content``, what a manifest of the bytes ``raw`` holds."""
    path = _file(out_dir)
    if path is None or records > MAX_RECORDS:
        return
    from ..rules.cache_folder import write_cached

    try:
        head, body = marshal.dumps(_key(layout, len(raw))), marshal.dumps(content)
    except ValueError:
        return
    if write_cached(path, (_SIZES.pack(len(head), len(body)), head, raw, body)):
        _evict(os.path.dirname(path))  # else a read-only home: the next run parses the JSON


def _evict(folder: str) -> None:
    """Keep the manifests of the ``KEEP`` output folders used last (what cannot be
    looked at or removed stays: another run may be at it)."""
    found = []
    with suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("manifest-") and entry.name.endswith(".marshal"):
                with suppress(OSError):
                    found.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(found, reverse=True)[KEEP:]:
        with suppress(OSError):
            os.unlink(path)
