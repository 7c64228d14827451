"""The shipped tables, compiled: a run loads 33,000 rules from a marshal file instead
of parsing 3 MB of JSON and building each rule again.

The cache is written on the first run after an install or a change of the tables,
into the user's cache folder (``$MUSA_PORT_CACHE_DIR``, else
``$XDG_CACHE_HOME/musa-port``, else ``~/.cache/musa-port``), and keyed by the tables'
names, sizes and modification times, the musa-port version and the Python version
(marshal's format is Python's own). ``MUSA_PORT_CACHE_DIR=off`` turns it off. Any
trouble with it (a folder that cannot be written, a truncated or foreign file) falls
back to the JSON without a word: the cache only ever saves time, it never decides
what a rule says.
"""

from __future__ import annotations

import gc
import hashlib
import marshal
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path

from .cache_folder import cache_folder, write_cached
from .model import Rule

Loaded = tuple[list[Rule], dict[str, bool]]  # the rules in table order, families


def cache_dir() -> Path | None:
    """Where the compiled tables go (None: caching is off)."""
    folder = cache_folder()
    return None if folder is None else Path(folder)


def cache_key(tables: Sequence[Path]) -> str:
    """What the compiled tables depend on: every table file, this version, this Python."""
    from .. import __version__

    h = hashlib.sha256(f"{__version__}|{sys.version}|{marshal.version}".encode())
    for path in tables:
        st = path.stat()
        h.update(f"|{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def cached_tables(tables: Sequence[Path], load: Callable[[], Loaded]) -> Loaded:
    """The rules and families of ``tables``: from the cache when it holds them, else
    from ``load()`` (the JSON), which then fills the cache."""
    folder = cache_dir()
    if folder is None:
        return load()
    try:
        path = folder / f"tables-{cache_key(tables)}.marshal"
    except OSError:
        return load()
    hit = _read(path)
    if hit is not None:
        return hit
    rules, families = load()
    _write(folder, path, rules, families)
    return rules, families


def _read(path: Path) -> Loaded | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    gc_was_on = gc.isenabled()
    gc.disable()  # 33,000 acyclic tuples: the collector would walk them for nothing
    try:
        plain, families = marshal.loads(data)
        if not isinstance(families, dict) or (plain and len(plain[0]) != len(Rule._fields)):
            return None  # another layout of Rule: compile again
        new = tuple.__new__
        return [new(Rule, t) for t in plain], families
    except (EOFError, ValueError, TypeError):
        return None  # truncated, or written by something else: load the JSON again
    finally:
        if gc_was_on:
            gc.enable()


def _write(folder: Path, path: Path, rules: list[Rule], families: dict[str, bool]) -> None:
    """Write the cache atomically and drop the compiled copies of older tables."""
    try:
        data = marshal.dumps(([tuple(r) for r in rules], families))
    except ValueError:
        return
    if not write_cached(str(path), (data,)):
        return  # a read-only home, a full disk: the next run parses the JSON again
    with suppress(OSError):  # another run may be removing them too
        for old in folder.glob("tables-*.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
