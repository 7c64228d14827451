"""The user's cache folder of musa-port, where the compiled tables and the checked
copies of manifests go, and how a file gets there. Its own module, with no pathlib: a
no-change re-run asks for it and imports nothing else of the rules."""

from __future__ import annotations

import os
from collections.abc import Iterable


def cache_folder() -> str | None:
    """``$MUSA_PORT_CACHE_DIR`` (``off``: None, no caching), else
    ``$XDG_CACHE_HOME/musa-port``, else ``~/.cache/musa-port``."""
    env = os.environ.get("MUSA_PORT_CACHE_DIR")
    if env:
        return None if env == "off" else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "musa-port")


def write_cached(path: str, parts: Iterable[bytes]) -> bool:
    """Write a cache file atomically (a temp file of this process, then a rename), its
    folder made first. False when that fails (a read-only home, a full disk): a cache
    only ever saves time, so the caller goes on without it."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            for part in parts:
                fh.write(part)
        os.replace(tmp, path)
        return True
    except (OSError, ValueError):
        return False
