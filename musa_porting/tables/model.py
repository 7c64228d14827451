"""A generated table and its entries, as written to ``mapping/<family>.json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

Entry = Union[str, dict[str, object]]  # "musa", "status", "note": str; "primary": bool
STATUSES = ("supported", "unsupported", "unknown")


@dataclass
class Table:
    family: str
    title: str
    default_status: str
    source: str
    entries: dict[str, Entry]
    kinds: dict[str, str] = field(default_factory=dict)
    headers: list[str] = field(default_factory=list)  # scanned headers (for coverage)

    def document(self) -> dict[str, object]:
        return {
            "family": self.family,
            "title": self.title,
            "default_status": self.default_status,
            "source": self.source,
            "entries": self.entries,
        }


def make_entry(musa: str | None, status: str, note: str, default_status: str,
           primary: bool = False) -> Entry:
    if musa is not None and status == default_status and not note and not primary:
        return musa
    out: dict[str, object] = {}
    if musa is not None:
        out["musa"] = musa
    out["status"] = status
    if note:
        out["note"] = note
    if primary:
        out["primary"] = True
    return out  # type: ignore[return-value]



def musa_of(entry: Entry) -> str | None:
    return entry if isinstance(entry, str) else entry.get("musa")  # type: ignore[return-value]


