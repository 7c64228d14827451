"""Ninja's output, read as it streams in and attributed to each compile, in time
linear in its length, with a cap on what is kept.

A compiler can print without end (10,000 warnings of one template, a loop in a
macro): each line appended to its file's output string made a build quadratic in one
file's output (100,000 lines took over 300 s), and every line was kept. Now each
compile keeps the first and the last ``KEEP`` bytes of its output, whole lines, with
a line between saying how much was cut; the errors and warnings of the lines cut are
still counted, so the totals stay whole.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import ERRORS, severity
from .result import FileBuild

KEEP = 64 * 1024  # bytes kept at each end of one compile's output

STATUS = "@@musa-port[%f/%t] "
STATUS_RE = re.compile(r"^@@musa-port\[(\d+)/(\d+)\] (.*)$")
_FAILED_RE = re.compile(r"^FAILED: (?:\[code=(\d+)\] )?(.*?)\s*$")


class OutputLog:
    """One compile's output: its first ``KEEP`` bytes, its last ``KEEP`` bytes, and
    what was cut between them counted (lines, bytes, errors, warnings)."""

    __slots__ = ("head", "tail", "_head_size", "_tail_size", "_head_open",
                 "cut_lines", "cut_bytes", "cut_errors", "cut_warnings")

    def __init__(self) -> None:
        self.head: list[str] = []
        self.tail: deque[str] = deque()
        self._head_size = self._tail_size = 0
        self._head_open = True
        self.cut_lines = self.cut_bytes = self.cut_errors = self.cut_warnings = 0

    def add(self, line: str) -> None:
        size = len(line) + 1
        if self._head_open:
            if self._head_size + size <= KEEP:
                self.head.append(line)
                self._head_size += size
                return
            self._head_open = False  # in order: nothing after this line goes to the head
        self.tail.append(line)
        self._tail_size += size
        while self._tail_size > KEEP and len(self.tail) > 1:
            old = self.tail.popleft()
            self._tail_size -= len(old) + 1
            self.cut_lines += 1
            self.cut_bytes += len(old) + 1
            sev = severity(old)
            if sev == "warning":
                self.cut_warnings += 1
            elif sev in ERRORS:
                self.cut_errors += 1

    def text(self) -> str:
        lines = self.head
        if self.cut_lines:
            lines = [*lines, f"musa-port: [{self.cut_lines:,} lines ({self.cut_bytes:,} bytes) "
                             f"of this output cut here: the first and last {KEEP // 1024} KB "
                             "are kept]"]
        return "".join(line + "\n" for line in [*lines, *self.tail])


@dataclass
class NinjaOutput:
    """What a ninja run printed: each compile's output (by object), the compiles ninja
    said FAILED (with their exit code when it gives one), and its own lines."""

    logs: dict[str, OutputLog] = field(default_factory=dict)
    failed: dict[str, int | None] = field(default_factory=dict)
    own: OutputLog = field(default_factory=OutputLog)
    up_to_date: bool = False


def failed_edge(outputs: str, build_dir: Path, by_obj: dict[str, FileBuild]) -> FileBuild | None:
    """The compile of a ``FAILED: <outputs>`` line. ninja joins an edge's outputs with
    spaces and does not escape them, so a path with a space is tried whole first."""
    for target in (outputs, outputs.split(" ")[0]):
        target = target if os.path.isabs(target) else str(build_dir / target)
        hit = by_obj.get(os.path.normpath(target))
        if hit is not None:
            return hit
    return None


def edge_of(desc: str, by_desc: dict[str, FileBuild], link: FileBuild | None) -> FileBuild | None:
    """The compile (or link) of a status line's description (``CC a.cpp``, ``LINK x``)."""
    rel = desc.split(" ", 1)[1] if " " in desc else desc
    return by_desc.get(rel) or (link if link is not None and desc.startswith("LINK") else None)


def read_output(lines: Iterable[str], files: list[FileBuild], link: FileBuild | None,
                build_dir: Path, progress: Callable[[int, int], None] | None = None
                ) -> NinjaOutput:
    """Attribute ninja's output (``lines``, as it prints them) to each compile."""
    by_obj = {f.obj: f for f in files}
    if link is not None:
        by_obj[link.obj] = link
    by_desc = {f.path: f for f in files}
    seen = NinjaOutput()
    logs = seen.logs
    current: OutputLog | None = None
    skip_command_line = False
    for raw in lines:
        line = raw.rstrip("\n")
        seen.own.add(line)
        m = STATUS_RE.match(line)
        if m:
            edge = edge_of(m.group(3), by_desc, link)
            current = None if edge is None else logs.setdefault(edge.obj, OutputLog())
            if progress is not None:
                progress(int(m.group(1)), int(m.group(2)))
            continue
        f = _FAILED_RE.match(line)
        if f:
            edge = failed_edge(f.group(2), build_dir, by_obj)
            current = None if edge is None else logs.setdefault(edge.obj, OutputLog())
            if edge is not None:
                seen.failed[edge.obj] = int(f.group(1)) if f.group(1) else None
            skip_command_line = True
            continue
        if skip_command_line:
            skip_command_line = False  # ninja echoes the failed command: not compiler output
            continue
        if line.startswith("ninja: "):
            seen.up_to_date = seen.up_to_date or line == "ninja: no work to do."
            current = None
            continue
        if current is not None:
            current.add(line)
    return seen


def keep_output(item: FileBuild, log: OutputLog | None) -> None:
    """Give ``item`` what its compile printed (capped) and the counts of what was cut."""
    if log is None:
        return
    item.output = log.text()
    item.cut_lines, item.cut_bytes = log.cut_lines, log.cut_bytes
    item.cut_errors, item.cut_warnings = log.cut_errors, log.cut_warnings
