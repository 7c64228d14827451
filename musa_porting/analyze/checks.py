"""Findings: each has a stable ID, described in the catalogue (``analyze/catalogue``,
which the docs' findings pages, ``--help-all``, ``explain`` and the reports read), so
that CI can suppress or gate on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import PortError
from .catalogue import CHECKS, FAMILIES, Check, family_checks

__all__ = ["CHECKS", "Check", "Diagnostic", "parse_ids"]


@dataclass(frozen=True)
class Diagnostic:
    """One finding, placed in the ported file and in the CUDA original (1-based)."""

    id: str
    text: str
    line: int
    column: int
    src_line: int
    src_column: int
    message: str
    end_line: int = 0  # the last line of a finding over several lines (0: ``line``)
    severity: str = ""  # this finding's level, where it is not its check's ("": the check's)

    @property
    def check(self) -> Check:
        return CHECKS[self.id]

    @property
    def level(self) -> str:
        """``error``, ``warning`` or ``note``: a check reports some findings at a lower
        level than its own (MP2002 at note level where 128-lane warps keep working)."""
        return self.severity or CHECKS[self.id].level

    @property
    def last_line(self) -> int:
        return max(self.end_line, self.line)

    def to_list(self) -> list:
        return [self.id, self.text, self.line, self.column, self.src_line, self.src_column,
                self.message, self.end_line, self.severity]

    @classmethod
    def from_list(cls, row: Sequence) -> Diagnostic:
        return cls(*row)  # 7 fields in a manifest of an older musa-port


def parse_ids(values: Iterable[str]) -> frozenset[str]:
    """``--suppress MP1002,MP2001``: IDs, names (``unknown-cuda-name``) or families
    (``warp-size``: every ID of the family)."""
    by_name = {c.name: c.id for c in CHECKS.values()}
    out = set()
    for v in values:
        for item in v.split(","):
            item = item.strip()
            if not item:
                continue
            if item in FAMILIES:
                out.update(c.id for c in family_checks(item))
                continue
            cid = by_name.get(item, item.upper())
            if cid not in CHECKS:
                raise PortError(f"unknown diagnostic {item!r}; known: "
                                + ", ".join(sorted(CHECKS)) + " (or a family: "
                                + ", ".join(FAMILIES) + ")")
            out.add(cid)
    return frozenset(out)
