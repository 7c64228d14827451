"""User rules that matched nothing at identifier boundaries, but would have matched
inside longer names: said, with the count and an example, never silently.

torch_musa's SimplePorting replaces substrings, so its users write rules meant for
longer names: SageAttention's ``".advance_offset": ".template advance_offset"`` is meant
for ``.advance_offset_by_column`` and ``_by_row`` (32 places). musa-port matches a key
whose edge is a letter or digit at identifier boundaries only, so such a rule matches
nothing. The warning names the explicit form that matches inside names
(``substr:KEY``, ``port/engine.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ..port.automata import ALNUM as _ALNUM
from ..port.engine import SUBSTRING_PREFIX, WORD_KEY
from ..rules import RuleSet
from ..rules.model import USER_FAMILY

_IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _candidates(ruleset: RuleSet, by_rule: Mapping[str, int]) -> list[str]:
    """The user rules with a boundary to hold (a letter or digit at an edge) that
    matched nothing."""
    out = []
    for k, r in ruleset.rules.items():
        if r.family != USER_FAMILY or r.value is None or r.value == k or by_rule.get(k):
            continue
        kb = k.encode("utf-8")
        if k.startswith(SUBSTRING_PREFIX) or not (kb[0] in _ALNUM or kb[-1] in _ALNUM):
            continue
        if WORD_KEY.fullmatch(kb) and len(kb) < 4:
            continue  # cu, nv: inside names is what boundaries are for (Acmumulate)
        out.append(k)
    return out


def _inside(data: bytes, key: bytes) -> tuple[int, int, bytes] | None:
    """(count, line of the first, the name around it) of the places ``key`` occurs where
    a boundary fails."""
    count, first = 0, None
    pos = data.find(key)
    while pos >= 0:
        end = pos + len(key)
        left = key[0] in _ALNUM and pos > 0 and data[pos - 1] in _IDENT
        right = key[-1] in _ALNUM and end < len(data) and data[end] in _IDENT
        if left or right:
            count += 1
            if first is None:
                s, e = pos, end  # the longer name, from the key's edges that hold a boundary
                while key[0] in _ALNUM and s > 0 and data[s - 1] in _IDENT:
                    s -= 1
                while key[-1] in _ALNUM and e < len(data) and data[e] in _IDENT:
                    e += 1
                first = (data.count(b"\n", 0, pos) + 1, data[s:e])
        pos = data.find(key, end)
    return None if first is None else (count, first[0], first[1])


def near_miss_warnings(src: str, files: Iterable[str], ruleset: RuleSet,
                       by_rule: Mapping[str, int]) -> list[str]:
    """One warning per user rule that matched nothing at identifier boundaries in the
    ``files`` of ``src`` (paths relative to it) but occurs inside longer names."""
    keys = _candidates(ruleset, by_rule)
    if not keys:
        return []
    found: dict[str, list] = {}
    for rel in files:
        try:
            with open(os.path.join(src, rel), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        for k in keys:
            kb = k.encode("utf-8")
            if kb not in data:
                continue
            hit = _inside(data, kb)
            if hit is None:
                continue
            slot = found.setdefault(k, [0, rel, hit[1], hit[2]])
            slot[0] += hit[0]
    out = []
    for k, (n, rel, line, name) in sorted(found.items()):
        shown = name.decode("utf-8", "replace")
        out.append(f"warning: user rule '{k}' matched nothing at identifier boundaries, but occurs "
                   f"{n} time{'s' if n != 1 else ''} inside longer names (e.g. "
                   f"{os.path.join(src, rel)}:{line}: '{shown}'); write the key as "
                   f"'{SUBSTRING_PREFIX}{k}' to match there too, as torch_musa's substring "
                   "replace does")
    return out
