"""A finding of the check: where the reference stands, and how the message names the
other end (a path, ``file:line``, a short list)."""

from __future__ import annotations

from collections.abc import Sequence

from ..analyze.checks import Diagnostic

Found = tuple[str, Diagnostic]  # the output the finding stands in, and the finding


def finding(cid: str, rel: str, line: int, col: int, text: str, message: str) -> Found:
    """A finding at ``rel:line:col`` of OUT (porting keeps lines: the input's line too)."""
    return rel, Diagnostic(cid, text, line, col, line, col, message)


def listed(items: Sequence[str], shown: int = 2) -> str:
    """``a``, ``a and b``, ``a, b and 3 more``."""
    items = list(items)
    if len(items) <= shown:
        return " and ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"


def where(rel: str, line: int) -> str:
    return f"{rel}:{line}"
