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


@dataclass(frozen=True)
class Family:
    """A group of findings: the summary counts them together, the docs give it a page."""

    key: str
    title: str
    about: str
