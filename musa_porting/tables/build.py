"""Building the tables: every name a family's headers declare, derived, classified
and made into an entry; then the curated header, macro and PyTorch tables."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from . import irregular
from .families import (
    DRIVER_INTEROP_HEADERS,
    FAMILIES,
    INTEROP_NOTE,
    RUNTIME_INTEROP_HEADERS,
    SKIP_NAMES,
    SKIP_PATTERN,
    VERSIONED_PFN,
    Context,
    Family,
    derive,
)
from .headers import HeaderSet
from .irregular import Name, Prefix
from .model import Entry, Table, make_entry, musa_of


def _kinds(hs: HeaderSet, headers: list[str]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """name -> kind (function > type > constant > macro) and name -> declaring headers."""
    kind: dict[str, str] = {}
    where: dict[str, set[str]] = {}
    rank = {"function": 0, "type": 1, "constant": 2, "macro": 3}
    for rel in headers:
        decl = hs.declared(rel)
        for k, names in (("function", decl.functions), ("type", decl.types),
                         ("constant", decl.constants), ("macro", decl.macros)):
            for n in names:
                where.setdefault(n, set()).add(rel)
                if n not in kind or rank[k] < rank[kind[n]]:
                    kind[n] = k
    return kind, where


def _source(hs: HeaderSet, headers: list[str]) -> str:
    """``label: h1, h2; label2: h3`` grouping headers by where they came from."""
    by_origin: dict[str, list[str]] = {}
    for rel in headers:
        key = ", ".join(hs.origins_of(rel))
        by_origin.setdefault(key, []).append(rel)
    return "; ".join(f"{o}: {', '.join(rels)}" for o, rels in sorted(by_origin.items()))


def build_family(fam: Family, hs: HeaderSet, owned: set[str]) -> Table | None:
    headers = hs.match(fam.headers)
    if not headers:
        return None
    prefixes = irregular.PREFIXES[fam.name]
    kind, where = _kinds(hs, headers)
    entries: dict[str, Entry] = {}
    kinds: dict[str, str] = {}
    unsupported_note = irregular.UNSUPPORTED_NOTES.get(fam.name, "")
    for name in sorted(kind):
        if name in owned or name in SKIP_NAMES or SKIP_PATTERN.search(name):
            continue
        if fam.name == "fp16_bf16" and re.match(irregular.FP16_KEEP_PATTERN, name):
            continue
        derived = derive(name, prefixes, fam.pfn)
        if derived is None:
            continue
        musa, prefix = derived
        status = prefix.status or fam.default_status
        note = prefix.note
        if musa is None:
            status, note = "unsupported", unsupported_note or note
        elif fam.classify is not None:
            status, note = fam.classify(Context(name, kind[name], frozenset(where[name]), prefix),
                                        status, note)
            if status == "unsupported":
                musa = None  # known to have no MUSA form: reported, never rewritten
        if status == "supported":
            only = _only_some_versions(hs, name, where[name])
            if only:
                status, note = "unknown", f"only in {only}; MUSA support not verified"
        entries[name] = make_entry(musa, status, note, fam.default_status)
        kinds[name] = kind[name]
    if fam.pfn:
        _plain_pfn(entries, kinds, prefixes)
    if fam.name == "npp":
        _npp_legacy(entries, kinds, owned)
    for item in irregular.FAMILY_NAMES.get(fam.name, ()):
        entries[item.cuda] = make_entry(item.musa, item.status, item.note, fam.default_status)
        kinds.setdefault(item.cuda, item.kind)
    return Table(fam.name, fam.title, fam.default_status, _source(hs, headers), entries, kinds, headers)


def _only_some_versions(hs: HeaderSet, name: str, headers: Iterable[str]) -> str:
    """The origins declaring ``name`` when every header declaring it has copies of
    several versions and only some declare it; "" otherwise."""
    origins: set[str] = set()
    for rel in headers:
        part = hs.partial(rel).get(name)
        if part is None:
            return ""
        origins.update(part)
    return ", ".join(sorted(origins))


def _plain_pfn(entries: dict[str, Entry], kinds: dict[str, str], prefixes: Iterable[Prefix]) -> None:
    """CUDA 12 also had ``#define PFN_cuCtxGetCurrent PFN_cuCtxGetCurrent_v4000``; CUDA 13
    keeps only the versioned typedefs, but user code still names the plain PFN_cuXxx.
    It takes the status of the function it points to."""
    for name in sorted(entries):
        if not VERSIONED_PFN.match(name):
            continue
        plain = re.sub(r"_v\d+$", "", name)
        if plain in entries:
            continue
        func = entries.get(plain[len(irregular.PFN):])
        derived = derive(plain, prefixes, pfn=True)
        assert derived is not None and derived[0] is not None
        musa = derived[0]
        if func is None or isinstance(func, str):
            entries[plain] = musa
        elif "musa" in func:
            entries[plain] = {**func, "musa": musa}
        else:
            entries[plain] = dict(func)
        kinds[plain] = "type"


def _npp_legacy(entries: dict[str, Entry], kinds: dict[str, str], owned: set[str]) -> None:
    """``nppiResize_8u_C1R`` for each ``nppiResize_8u_C1R_Ctx`` that NPP 13 declares alone."""
    for name in sorted(entries):
        legacy = name[: -len("_Ctx")]
        if kinds[name] != "function" or not name.endswith("_Ctx") or legacy in entries or legacy in owned:
            continue
        musa = musa_of(entries[name])
        assert musa is not None
        status = "supported" if legacy.startswith(irregular.NPP_SUPPORTED_PREFIX) else "unknown"
        entries[legacy] = make_entry(musa[: -len("_Ctx")], status, irregular.NPP_LEGACY_NOTE, "unknown")
        kinds[legacy] = "function"


def _curated(items: Iterable[Name]) -> dict[str, Entry]:
    return {i.cuda: make_entry(i.musa, i.status, i.note, "supported", i.primary) for i in items}


def _delimited(name: str, entry: Entry) -> dict[str, Entry]:
    """A header as ``<name>`` and ``"name"``: the delimiters make the key match only a
    whole include target, so ``foo/cuda.h`` of another package is left alone. When
    both forms map to one (quoted) MUSA header, only ``<name>`` stays primary."""
    out: dict[str, Entry] = {}
    quoted = name in irregular.QUOTED_TARGETS
    for left, right in (("<", ">"), ('"', '"')):
        nl, nr = ('"', '"') if quoted else (left, right)
        if isinstance(entry, str):
            out[left + name + right] = nl + entry + nr
            continue
        new = dict(entry)
        if "musa" in entry:
            new["musa"] = nl + str(entry["musa"]) + nr
        if quoted and left == '"':
            new.pop("primary", None)
        out[left + name + right] = new
    return out


def build_headers(hs: HeaderSet, tables: dict[str, Table]) -> Table:
    """headers.json: the brief's header names, and every public header of a family
    whose name carries the family's prefix (``cusolverDn.h -> musolverDn.h``, unknown)."""
    entries: dict[str, Entry] = {}
    curated = {i.cuda: i for i in irregular.HEADERS}
    derived: dict[str, Entry] = {}
    for fam in FAMILIES:
        if fam.name not in tables:
            continue
        patterns = fam.public_headers or tuple(p for p in fam.headers if "/" not in p)
        for rel in hs.match(patterns):
            if rel in curated or rel.startswith("generated_"):
                continue
            base = PurePosixPath(rel).name
            stem, dot, ext = base.partition(".")
            interop = rel in RUNTIME_INTEROP_HEADERS or rel in DRIVER_INTEROP_HEADERS
            if fam.default_status == "unsupported" or interop:
                note = INTEROP_NOTE if interop else irregular.UNSUPPORTED_NOTES.get(fam.name, "")
                derived[rel] = {"status": "unsupported", "note": note}
                continue
            prefixes = irregular.PREFIXES[fam.name]
            d = derive(stem, prefixes)
            if d is None or d[0] is None:
                continue
            derived[rel] = {"musa": rel[: len(rel) - len(base)] + d[0] + dot + ext, "status": "unknown"}
    for rel in sorted(derived):
        entries.update(_delimited(rel, derived[rel]))
    for name, item in curated.items():
        entries.update(_delimited(name, make_entry(item.musa, item.status, item.note, "supported",
                                               item.primary)))
    labels = ", ".join(hs.origins) or "no headers"
    return Table("headers", "Header names, with their include delimiters", "supported",
                 f"musa-port brief (BRIEF.md: Headers); derived from the family headers in {labels}",
                 dict(sorted(entries.items())), {k: "header" for k in entries})


def build_all(hs: HeaderSet, partial: bool = False) -> dict[str, Table]:
    """Every table, keyed by family (files are written in this order)."""
    macros = _curated(irregular.MACROS)
    pytorch = _curated(irregular.PYTORCH)
    owned: set[str] = set(macros) | set(pytorch) | {
        i.cuda for names in irregular.FAMILY_NAMES.values() for i in names}
    tables: dict[str, Table] = {}
    missing = []
    for fam in FAMILIES:
        table = build_family(fam, hs, owned)
        if table is None:
            missing.append(fam.name)
            continue
        tables[fam.name] = table
        owned |= set(table.entries)
    if missing and not partial:
        raise SystemExit(
            "error: no headers found for: " + ", ".join(missing)
            + "\n(fetch them with --fetch-wheels DIR, pass --wheels-dir DIR, or use --partial)")
    tables["headers"] = build_headers(hs, tables)
    tables["macros"] = Table("macros", "Compiler and version macros", "supported",
                             "musa-port brief (docs/BRIEF.md): macros", macros, {k: "macro" for k in macros})
    tables["pytorch"] = Table("pytorch", "PyTorch / torch_musa names", "supported",
                              "musa-port brief (docs/BRIEF.md): PyTorch / torch_musa", pytorch,
                              {k: "name" for k in pytorch})
    return tables


