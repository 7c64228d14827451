"""A generated table and its entries, as written to ``mapping/<family>.json``.

Every entry records where its mapping comes from (``source``: ``vendor``,
``cuda-13.5 header cuda_runtime_api.h``, ``torch header ATen/cuda/CUDAContext.h``,
``curated: ...``) and the newest release whose headers declare the CUDA name
(``version``: ``CUDA 11.8`` for a name CUDA 12 removed; None when no header read
declares it). Most entries of a table share both, so the file states the commonest
values once (``default_source``, ``version``) and an entry carries its own only where
it differs: entries stay plain strings, and the 30,000-entry tables load as fast as
before.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

STATUSES = ("supported", "unsupported", "unknown")


@dataclass
class Item:
    """One entry before rendering."""

    musa: str | None
    status: str
    source: str
    version: str | None = None
    note: str = ""
    primary: bool = False  # the CUDA name --reverse restores when several share ``musa``
    kind: str = ""  # function / type / constant / macro / header / name: for coverage.md


@dataclass
class Table:
    family: str
    title: str
    default_status: str
    source: str  # what the table was generated from (a line of prose)
    entries: dict[str, Item]
    headers: list[str] = field(default_factory=list)  # scanned headers (for coverage)

    def defaults(self) -> tuple[str, str | None]:
        """The commonest entry source and version (ties: the first in sort order)."""
        return _mode(i.source for i in self.entries.values()), \
            _mode(i.version for i in self.entries.values())

    def document(self) -> dict[str, object]:
        default_source, default_version = self.defaults()
        doc: dict[str, object] = {
            "family": self.family,
            "title": self.title,
            "default_status": self.default_status,
            "default_source": default_source,
            "source": self.source,
            "entries": {k: render_entry(i, self.default_status, default_source, default_version)
                        for k, i in self.entries.items()},
        }
        if default_version is not None:
            doc["version"] = default_version
        return doc


def _mode(values) -> object:
    counts = Counter(values)
    if not counts:
        return None
    return min(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[0]


def render_entry(item: Item, default_status: str, default_source: str,
                 default_version: str | None) -> str | dict[str, object]:
    """A plain string when everything but the MUSA name is the table's default."""
    if item.musa is not None and item.status == default_status and not item.note \
            and not item.primary and item.source == default_source \
            and item.version == default_version:
        return item.musa
    out: dict[str, object] = {}
    if item.musa is not None:
        out["musa"] = item.musa
    out["status"] = item.status
    if item.note:
        out["note"] = item.note
    if item.primary:
        out["primary"] = True
    if item.source != default_source:
        out["source"] = item.source
    if item.version != default_version:
        out["version"] = item.version
    return out
