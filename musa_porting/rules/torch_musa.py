"""torch_musa's own tables among the shipped ones: what ``SimplePorting`` renames by
default, so that a ``setup.py`` written and hand-fixed against torch_musa's
SimplePorting gets the tree it knows (docs/simple-porting.md).

Every entry of the shipped tables whose ``source`` is ``vendor`` carries the MUSA name of
one of torch_musa's five tables (``mapping/NOTICE``): those stay. torch_musa replaces
its keys inside longer names too, and where that gives the MUSA name the shipped tables
have for the longer name (``CUDAGuard`` -> ``MUSAGuard`` makes ``OptionalCUDAGuard``
``OptionalMUSAGuard``, as the tables say), that entry stays as well: the tables then
apply it at identifier boundaries, with the same result. torch_musa's general
table also maps the bare words ``cuda`` -> ``musa`` and ``cu`` -> ``mu``, which its
``str.replace`` applies inside every name (``Accumulate`` -> ``Acmumulate``); at
identifier boundaries the word ``cuda`` is the namespace of ``at::cuda`` and
``c10::cuda`` and the folder of torch's header paths, and the entries whose MUSA name is
their key with that word made ``musa`` are what that rule does there: they stay too.
Every other entry (MUTLASS/MuTe, NCCL, NVTX, NVRTC, which torch_musa's tables do not
have; fp8 and bfloat16 types, ``kCUDA``, CUDA names newer than its tables) is known but
not rewritten, and reported as left, as a switched-off family is. A family the caller
switches on by name (``enable_families``) keeps all of its entries.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterable

from .model import USER_FAMILY, Rule, RuleSet

VENDOR = "vendor"  # a table entry's "source" when its MUSA name is torch_musa's
NOTE = "not in torch_musa's tables: SimplePorting(extended=True) renames it"
# The vendor's keys whose MUSA name the shipped tables correct (tables/irregular.py's
# VENDOR_EXCEPTIONS that have an entry): torch_musa renames them, and so does SimplePorting,
# to the corrected name.
CORRECTED = frozenset({"CUDA_VERSION"})
_BARE_WORD = re.compile(r"(?<![A-Za-z0-9_])(cuda|cu)(?![A-Za-z0-9_])")


def bare_word_form(rule: Rule) -> bool:
    """Whether ``rule`` is what torch_musa's bare ``cuda`` -> ``musa`` (or ``cu`` -> ``mu``)
    does to its key at identifier boundaries (``at::cuda`` -> ``at::musa``)."""
    value = rule.value
    if value is None or value == rule.key:
        return False
    return _BARE_WORD.sub(lambda m: "musa" if m.group(1) == "cuda" else "mu", rule.key) == value


def renamed_inside(rs: RuleSet) -> frozenset[str]:
    """The keys of the entries not from the vendor whose MUSA name torch_musa's text
    replacement of the key gives (its keys longest first, as ``str.replace`` inside the
    name; the bare words left out). Cached beside the compiled tables."""
    from .mapping_dir import default_mapping_dir

    shipped = str(default_mapping_dir()) in rs.sources
    cache = _cache_path() if shipped else None
    if cache is not None:
        try:
            with open(cache, encoding="utf-8") as fh:
                return frozenset(fh.read().split("\n")) - {""}
        except OSError:
            pass
    vendor = {k: r.value for k, r in rs.rules.items() if r.origin == VENDOR and r.value}
    keys = [k for k in vendor if k[:1] not in '<"']  # an include target is not inside a name
    out = set()
    for (key, value), hits in _hits(keys, [(k, r.value) for k, r in rs.rules.items()
                                          if r.origin != VENDOR and r.value and r.value != k]):
        text = key
        for k in sorted(hits, key=len, reverse=True):
            text = text.replace(k, vendor[k])
        if text == value:
            out.add(key)
    if cache is not None:
        from .cache_folder import write_cached

        write_cached(cache, ["\n".join(sorted(out)).encode("utf-8", "surrogateescape")])
    return frozenset(out)


def _hits(keys: list[str], entries: list[tuple[str, str]]):
    """Each entry with the ``keys`` found inside its key (those it has)."""
    try:
        import ahocorasick_rs
    except ImportError:  # the pure-Python way: every piece of the key looked up
        known = frozenset(keys)
        for entry in entries:
            k = entry[0]
            found = {k[i:j] for i in range(len(k)) for j in range(i + 5, len(k) + 1)} & known
            if found:
                yield entry, found
        return
    ac = ahocorasick_rs.AhoCorasick(keys, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
    for entry in entries:
        found = {keys[i] for i, _, _ in ac.find_matches_as_indexes(entry[0], overlapping=True)}
        if found:
            yield entry, found


def _cache_path() -> str | None:
    from .cache_folder import cache_folder
    from .mapping_dir import default_mapping_dir
    from .table_cache import cache_key

    folder = cache_folder()
    if folder is None:
        return None
    d = default_mapping_dir()
    try:
        return os.path.join(folder, f"torch-musa-{cache_key(sorted(d.glob('*.json')))}.txt")
    except OSError:
        return None


def torch_musa_only(rs: RuleSet, families: Iterable[str] = ()) -> RuleSet:
    """``rs`` with only torch_musa's renames rewriting (the user's rules and the
    ``families`` named stay whole); every other table entry known, not rewritten."""
    whole = frozenset(families) | {USER_FAMILY}
    inside = renamed_inside(rs)
    rules: dict[str, Rule] = {}
    headers = set()
    new = tuple.__new__
    gc_was_on = gc.isenabled()
    gc.disable()  # 33,000 acyclic tuples, on the start-up path (as rules/tables.py)
    try:
        for key, r in rs.rules.items():
            if (r.value is None or r.family in whole or r.origin == VENDOR or key in inside
                    or key in CORRECTED or ("cu" in key and bare_word_form(r))):
                rules[key] = r
            else:
                rules[key] = new(Rule, (key, None, *r[2:6], r.note or NOTE, *r[7:]))
                if key[:1] in '<"':
                    headers.add(r.value.strip('<>"'))
    finally:
        if gc_was_on:
            gc.enable()
    return RuleSet(rules, list(rs.sources), dict(rs.families), set(rs.disabled),
                   rs.other_headers | headers)
