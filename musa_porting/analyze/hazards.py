"""Porting hazards: code that ports by name but not in meaning, and the hand work it
asks for (the MP20xx and MP21xx findings of the catalogue).

Each family has its module: ``ptx`` (inline PTX), ``warp`` (32-lane warps, block
sizes), ``versions`` (version and arch checks), ``device_names`` (arch-specific device
APIs), ``features`` (what MUSA lacks, from the tables), ``shared_memory`` and ``fp64``.
They read the *ported* text, so that a user's rule that rewrites a hazard away also
silences it. Device hazards are dropped in host-only code (``host_code``); one
finding per check and line is kept, the first.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..port.cxx import lexer
from ..port.engine import Edit
from . import blocks, device_names, enable_macros, fp64, ptx, shared_memory, versions, warp
from .arches import Target
from .blocks import block_size
from .catalogue import DEVICE_IDS
from .device_names import name_hazards
from .features import feature_hazards
from .fp64 import fp64_hazards
from .host_code import HIP, HOST, is_host_file
from .offsets import EditMap
from .pragmas import pragma_hazards
from .ptx import ptx_hazards
from .renamed import renamed_hazards
from .scan import PLATFORM_KEYS, Hazard, Scan
from .torch_device import device_api_hazards
from .versions import version_hazards
from .warp import warp_size

# Checks run on every file, and those about warps (only for arches with wide warps).
CHECKS: tuple[Callable[[Scan], Iterable[Hazard]], ...] = (
    ptx_hazards, version_hazards, name_hazards, feature_hazards, renamed_hazards,
    device_api_hazards, pragma_hazards, shared_memory.shared_memory, fp64_hazards)
WARP_CHECKS: tuple[Callable[[Scan], Iterable[Hazard]], ...] = (warp_size, block_size)
# The words the checks look for, found in one pass over each file (scan.hits); the
# enable-macro gates' too (``find_diagnostics`` reads them off the same pass).
KEYS = tuple(sorted({*ptx.KEYS, *warp.KEYS, *blocks.KEYS, *versions.KEYS, *device_names.KEYS,
                     *shared_memory.KEYS, *fp64.KEYS, *PLATFORM_KEYS, *enable_macros.KEYS}))


def find_hazards(out: bytes, edits: Sequence[Edit] | EditMap = (), target: Target | None = None,
                 rel: str = "", noncode: Callable[[], Iterable[tuple[int, int]]] | None = None,
                 defined: frozenset[str] = frozenset()) -> list[Hazard]:
    """Every hazard in the ported text ``out`` of file ``rel`` (its edits say which
    names the port renamed; ``defined``, which names the tree defines), in file order.
    ``noncode`` gives the spans of ``out``'s comments and strings when the caller knows
    them."""
    return scan_hazards(new_scan(out, edits, target, rel, noncode, defined))


def new_scan(out: bytes, edits: Sequence[Edit] | EditMap = (), target: Target | None = None,
             rel: str = "", noncode: Callable[[], Iterable[tuple[int, int]]] | None = None,
             defined: frozenset[str] = frozenset()) -> Scan:
    """The scan of ``out`` the checks share (``find_hazards`` says what the arguments are)."""
    emap = edits if isinstance(edits, EditMap) else EditMap(edits)
    scan = Scan(out, target or Target(), emap, rel, noncode, KEYS)
    scan.defined = defined
    return scan


def scan_hazards(scan: Scan) -> list[Hazard]:
    """Every hazard of a scanned file, in file order."""
    out, rel = scan.out, scan.rel
    checks = CHECKS + (WARP_CHECKS if scan.target.wide_warps else ())
    found = [h for check in checks for h in check(scan)]
    if not found:
        return []
    host_file = is_host_file(rel, out)
    hip = _Spans(s for s in scan.platform_spans if s[2] == HIP)
    host = _Spans(s for s in scan.platform_spans if s[2] == HOST)

    def compiled(h: Hazard) -> bool:
        """Not in HIP-only code; a device hazard not in host-only code either."""
        if hip.holds(h.start):
            return False
        if h.device if h.device is not None else h.id in DEVICE_IDS:
            return not host_file and not host.holds(h.start)
        return True

    return list(_first_per_line(out, sorted((h for h in found if compiled(h)),
                                            key=lambda h: (h.start, h.id))))


# Checks whose every statement is its own place to rewrite: each inline-assembly
# statement, also the several of one line or of one macro's body.
EVERY_STATEMENT = frozenset({"MP2001"})
# Checks that say one thing per line whatever names they quote (a VMM call and the
# handle type among its arguments are one place to rewrite), at each level (a type's
# first use in a file, a warning, beside another's later use, a note).
ONE_PER_LINE = frozenset({"MP1012", "MP2015", "MP2016", "MP2106", "MP2110", "MP2111", "MP2113",
                          "MP2114", "MP2201", "MP2202", "MP2204"})


def _first_per_line(out: bytes, hazards: list[Hazard]) -> Iterator[Hazard]:
    """One hazard per check, line and message (the first; the quoted text aside):
    ``cg::grid_group g = cg::this_grid()`` is one place to change, not two. A macro is
    one place too: what its body holds is reported once, where it first appears,
    however many lines the body takes. An inline-assembly statement is always its own
    place (``EVERY_STATEMENT``)."""
    macros = _Spans((s, e, "") for s, e in macro_spans(out)) if b"\\\n" in out or b"\\\r\n" in out \
        else None
    seen: set[tuple[str, int, str]] = set()
    places: set[tuple[str, int]] = set()
    line, pos = 1, 0
    for h in hazards:
        line += out.count(b"\n", pos, h.start)
        pos = h.start
        where = line
        if macros is not None:
            at = macros.at(h.start)
            if at is not None:
                where = -at - 1
        key = (h.id, where, h.level) if h.id in ONE_PER_LINE else \
            (h.id, where, _QUOTED.sub("", h.message)) if h.id not in EVERY_STATEMENT \
            else (h.id, h.start, "")
        if key in seen or (h.id, h.start) in places:
            continue  # or the same place found twice (a name the tables and a check both know)
        seen.add(key)
        places.add((h.id, h.start))
        yield h


_DEFINE = re.compile(rb"#[ \t]*define\b")
_QUOTED = re.compile(r"'[^']*'")


def macro_spans(data: bytes) -> list[tuple[int, int]]:
    """The spans of the ``#define``s that continue over several lines."""
    out = []
    for m in _DEFINE.finditer(data):
        end = m.end()
        while True:
            nl = data.find(b"\n", end)
            if nl < 0:
                end = len(data)
                break
            end = nl + 1
            last = nl
            while last and data[last - 1] == 0x0D:  # before a CRLF's CR
                last -= 1
            if not last or data[last - 1] != 0x5C:  # the line does not end in a backslash
                break
        if data.count(b"\n", m.start(), end) > 1:
            out.append((m.start(), end))
    return out


class _Spans:
    """Merged spans, and whether an offset is in one of them."""

    def __init__(self, spans: Iterable[tuple[int, int, str]]):
        self.spans = lexer.merge_spans([(s, e) for s, e, _ in spans])
        self.starts = [s for s, _ in self.spans]

    def holds(self, pos: int) -> bool:
        return self.at(pos) is not None

    def at(self, pos: int) -> int | None:
        """The start of the span that holds ``pos``, if one does."""
        i = bisect_right(self.starts, pos) - 1
        return self.starts[i] if i >= 0 and pos < self.spans[i][1] else None
