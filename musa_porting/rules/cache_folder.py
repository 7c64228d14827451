"""The user's cache folder of musa-port, where the compiled tables and the checked
copies of manifests go. Its own module, with no pathlib: a no-change re-run asks for
it and imports nothing else of the rules."""

from __future__ import annotations

import os


def cache_folder() -> str | None:
    """``$MUSA_PORT_CACHE_DIR`` (``off``: None, no caching), else
    ``$XDG_CACHE_HOME/musa-port``, else ``~/.cache/musa-port``."""
    env = os.environ.get("MUSA_PORT_CACHE_DIR")
    if env:
        return None if env == "off" else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "musa-port")
