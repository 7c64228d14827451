"""A finding's description (``Check``) and its family (``Family``): the catalogue's
record types, in their own module so that the family modules (``names.py``,
``device.py``...) and the catalogue that gathers them do not import each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """A diagnostic kind: stable ID, short name, level, and its help."""

    id: str
    name: str
    level: str  # SARIF levels: "error", "warning", "note"
    residual: bool  # counts as a residual (--check, conversion rate)
    description: str  # one sentence of what (docs, --help-all, SARIF short description)
    example: str  # code that gets the finding
    family: str = ""  # a key of FAMILIES
    why: str = ""  # why it matters
    instead: str = ""  # what to do, or to write instead
    fixed: str = ""  # the example, ported by hand (optional)
    device: bool = False  # a device-code hazard: never reported in host-only code
    # Where some of its findings are reported at note level, what they are (MP2002: the
    # 32-lane idioms a 128-lane warp keeps): the heading says "warning, or note where ...".
    lower: str = ""

    @property
    def levels(self) -> str:
        """The level a reader is told: the check's, and where some findings are notes."""
        return f"{self.level}, or note where {self.lower}" if self.lower else self.level


@dataclass(frozen=True)
class Family:
    """A group of findings: the summary counts them together, the docs give it a page."""

    key: str
    title: str
    about: str
