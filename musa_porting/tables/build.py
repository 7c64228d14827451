"""Building the tables: every name a family's headers declare (CUDA 11.8 to 13),
derived, classified and made into an entry; the header, macro and PyTorch tables;
then the vendor's names over all of them, and one ``primary`` per shared MUSA name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from ..rules.vocabulary import Vocabulary
from . import irregular
from .families import (
    DRIVER_INTEROP_HEADERS,
    EMBEDDED_DRIVER,
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
from .headers import Declarations, HeaderSet, Version, header_release, release_label, version_label
from .irregular import Name, Prefix
from .legacy_torch import FAMILY as LEGACY_TORCH
from .legacy_torch import build_legacy_torch
from .model import Item, Table
from .mutlass import FAMILY as MUTLASS
from .mutlass import build_mutlass
from .nvml import FAMILY as NVML
from .nvml import build_nvml
from .pytorch import torch_headers, torch_names, torch_version
from .vendor import VENDOR, Vendor, VendorReport, apply_vendor

CURATED = "curated"


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


def _declared_by(hs: HeaderSet, name: str, rels: Iterable[str]) -> tuple[Version, str]:
    """The newest release declaring ``name`` in any of ``rels``, and that header (the
    first in sort order among those of that release)."""
    best: tuple[Version, str] | None = None
    for rel in sorted(rels):
        v = hs.newest(rel).get(name)
        if v is not None and (best is None or v > best[0]):
            best = (v, rel)
    assert best is not None
    return best


def build_family(fam: Family, hs: HeaderSet, owned: set[str], vocab: Vocabulary | None) -> Table | None:
    headers = hs.match(fam.headers)
    if not headers:
        return None
    prefixes = irregular.PREFIXES[fam.name]
    kind, where = _kinds(hs, headers)
    generation = hs.generation(headers)
    entries: dict[str, Item] = {}
    unsupported_note = irregular.UNSUPPORTED_NOTES.get(fam.name, "")
    for name in sorted(kind):
        if name in owned or name in SKIP_NAMES or SKIP_PATTERN.search(name):
            continue
        if fam.name == "fp16_bf16" and re.match(irregular.FP16_KEEP_PATTERN, name):
            continue
        derived = derive(name, prefixes, fam.pfn, vocab)
        if derived is None:
            continue
        musa, prefix = derived
        if fam.embeds_api and musa is not None:
            musa = EMBEDDED_DRIVER.sub("mu", musa)
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
        newest, rel = _declared_by(hs, name, where[name])
        entries[name] = Item(musa, status, f"cuda-{version_label(newest)} header {rel}",
                             release_label(newest, generation), note, kind=kind[name])
    if fam.pfn:
        _plain_pfn(entries, prefixes, vocab)
    if fam.name == "npp":
        _npp_legacy(entries, owned)
    decl = Declarations.of(hs, headers)
    for item in irregular.FAMILY_NAMES.get(fam.name, ()):
        entries[item.cuda] = _curated_item(item, decl, kind.get(item.cuda, item.kind))
    return Table(fam.name, fam.title, fam.default_status, _source(hs, headers),
                 dict(sorted(entries.items())), headers)


def _curated_item(item: Name, decl: Declarations, kind: str | None = None) -> Item:
    return Item(item.musa, item.status, f"{CURATED}: {item.source}", decl.version(item.cuda),
                item.note, item.primary, kind or item.kind)


def _only_some_versions(hs: HeaderSet, name: str, headers: Iterable[str]) -> str:
    """The origins declaring ``name`` when every header declaring it has copies of
    several CUDA 13 releases and only some declare it; "" otherwise."""
    origins: set[str] = set()
    for rel in headers:
        part = hs.partial(rel).get(name)
        if part is None:
            return ""
        origins.update(part)
    return ", ".join(sorted(origins))


def _plain_pfn(entries: dict[str, Item], prefixes: Iterable[Prefix], vocab: Vocabulary | None) -> None:
    """CUDA 12 also had ``#define PFN_cuCtxGetCurrent PFN_cuCtxGetCurrent_v4000``; CUDA 13
    keeps only the versioned typedefs, but user code still names the plain PFN_cuXxx.
    It takes the status of the function it points to, and the typedef's source."""
    for name in sorted(entries):
        if not VERSIONED_PFN.match(name):
            continue
        plain = re.sub(r"_v\d+$", "", name)
        if plain in entries:
            continue
        func = entries.get(plain[len(irregular.PFN):])
        derived = derive(plain, prefixes, pfn=True, vocab=vocab)
        assert derived is not None and derived[0] is not None
        typedef = entries[name]
        status, note = ("supported", "") if func is None else (func.status, func.note)
        entries[plain] = Item(derived[0] if func is None or func.musa is not None else None,
                              status, typedef.source, typedef.version, note, kind="type")


def _npp_legacy(entries: dict[str, Item], owned: set[str]) -> None:
    """``nppiResize_8u_C1R`` for each ``nppiResize_8u_C1R_Ctx`` that NPP 13 declares alone."""
    for name in sorted(entries):
        legacy = name[: -len("_Ctx")]
        ctx = entries[name]
        if ctx.kind != "function" or not name.endswith("_Ctx") or legacy in entries or legacy in owned:
            continue
        assert ctx.musa is not None
        status = "supported" if legacy.startswith(irregular.NPP_SUPPORTED_PREFIX) else "unknown"
        entries[legacy] = Item(ctx.musa[: -len("_Ctx")], status, ctx.source, ctx.version,
                               irregular.NPP_LEGACY_NOTE, kind="function")


def _delimited(name: str, item: Item) -> dict[str, Item]:
    """A header as ``<name>`` and ``"name"``: the delimiters make the key match only a
    whole include target, so ``foo/cuda.h`` of another package is left alone."""
    out: dict[str, Item] = {}
    for left, right in (("<", ">"), ('"', '"')):
        musa = None if item.musa is None else left + item.musa + right
        out[left + name + right] = Item(musa, item.status, item.source, item.version, item.note,
                                        item.primary, "header")
    return out


def build_headers(hs: HeaderSet, tables: dict[str, Table], vocab: Vocabulary | None) -> Table:
    """headers.json: the brief's header names, and every public header of a family
    whose name carries the family's prefix (``cusolverDn.h -> musolverDn.h``, unknown)."""
    entries: dict[str, Item] = {}
    curated = {i.cuda: i for i in irregular.HEADERS}
    derived: dict[str, Item] = {}
    generation = hs.generation(rel for f in FAMILIES for rel in hs.match(f.headers))
    for fam in FAMILIES:
        if fam.name not in tables:
            continue
        patterns = fam.public_headers or tuple(p for p in fam.headers if "/" not in p)
        for rel in hs.match(patterns):
            if rel in curated or rel.startswith("generated_"):
                continue
            newest = header_release(hs, rel)
            source = f"cuda-{version_label(newest)} header {rel}"
            version = release_label(newest, generation)
            base = PurePosixPath(rel).name
            stem, dot, ext = base.partition(".")
            interop = rel in RUNTIME_INTEROP_HEADERS or rel in DRIVER_INTEROP_HEADERS
            if fam.default_status == "unsupported" or interop or fam.name in irregular.NO_HEADER_NOTES:
                note = INTEROP_NOTE if interop else irregular.NO_HEADER_NOTES.get(
                    fam.name, irregular.UNSUPPORTED_NOTES.get(fam.name, ""))
                derived[rel] = Item(None, "unsupported", source, version, note)
                continue
            d = derive(stem, irregular.PREFIXES[fam.name], vocab=vocab)
            if d is None or d[0] is None:
                continue
            derived[rel] = Item(rel[: len(rel) - len(base)] + d[0] + dot + ext, "unknown", source, version)
    for rel in sorted(derived):
        entries.update(_delimited(rel, derived[rel]))
    decl = Declarations()
    for name, item in curated.items():
        entries.update(_delimited(name, _curated_item(item, decl)))
    labels = ", ".join(o for o in hs.origins if hs.versions.get(o)) or "no headers"
    return Table("headers", "Header names, with their include delimiters", "supported",
                 f"musa-port brief (BRIEF.md: Headers); derived from the family headers in {labels}",
                 dict(sorted(entries.items())))


def build_macros(decl: Declarations, vocab: Vocabulary | None) -> Table:
    """The brief's compiler and version macros, and nvcc's (named by the vocabulary
    until the vendor's names replace them)."""
    entries: dict[str, Item] = {}
    for item in irregular.MACROS:
        entries[item.cuda] = _curated_item(item, decl, "macro")
    for item in irregular.NVCC_MACROS:
        musa = vocab.rename(item.cuda) if vocab else None
        entries[item.cuda] = Item(musa, "unknown" if musa else "unsupported",
                                  f"{CURATED}: {item.source}", decl.version(item.cuda),
                                  "MUSA name derived from the CUDA one; not verified", kind="macro")
    return Table("macros", "Compiler and version macros", "supported",
                 "musa-port brief (docs/BRIEF.md): macros; nvcc, NVRTC and CUDA header "
                 "documentation: predefined and user macros", dict(sorted(entries.items())))


def build_pytorch(hs: HeaderSet, owned: set[str], vocab: Vocabulary | None,
                  vendor: Vendor | None) -> Table:
    """The curated PyTorch names, and the torch headers' names and paths."""
    decl = Declarations()
    entries = {i.cuda: _curated_item(i, decl) for i in irregular.PYTORCH}
    sources = "musa-port brief (docs/BRIEF.md): PyTorch / torch_musa"
    if vocab is not None and vendor is not None and hs.match(["ATen/cuda/*"]):
        entries.update(torch_names(hs, vocab, vendor.attested, owned | set(entries)))
        entries.update(torch_headers(hs, vocab, vendor.attested, vendor.torch_headers))
        sources += (f"; {torch_version(hs)} headers (ATen/cuda, c10/cuda, torch/csrc/cuda); "
                    f"torch_musa's names and headers ({vendor.label})")
    return Table("pytorch", "PyTorch / torch_musa names", "supported", sources, dict(sorted(entries.items())))


def assign_primaries(tables: dict[str, Table]) -> None:
    """Exactly one ``primary`` among the keys sharing a MUSA name, none on a lone one.
    A curated choice stays; else the vendor's key, a key of a current API (not the
    legacy_torch family's), the ``<...>`` include form, then the shortest key
    (``--reverse`` restores it)."""
    by_value: dict[str, list[tuple[str, Item, str]]] = {}
    for fam, table in tables.items():
        for key, item in table.entries.items():
            if item.musa is not None:
                by_value.setdefault(item.musa, []).append((key, item, fam))
    for keys in by_value.values():
        if len(keys) == 1:
            keys[0][1].primary = False
            continue
        # A legacy name (THC's) is never the one --reverse writes back.
        keys.sort(key=lambda k: (not k[1].primary, k[1].source != VENDOR, k[2] == LEGACY_TORCH,
                                 not k[0].startswith("<"), len(k[0]), k[0]))
        for i, (_key, item, _fam) in enumerate(keys):
            item.primary = i == 0


def build_all(hs: HeaderSet, partial: bool = False, vendor: Vendor | None = None,
              vocab: Vocabulary | None = None) -> tuple[dict[str, Table], VendorReport | None]:
    """Every table, keyed by family (files are written in this order), and what the
    vendor's tables changed."""
    # Names declared anywhere a family reads or at the top of a CUDA include folder
    # (math_constants.h's CUDART_PI): the version of a vendor-only or curated name.
    top_level = {rel for rel, copies in hs.files.items()
                 if "/" not in rel and any(hs.versions.get(o) for o, _ in copies)}
    decl = Declarations.of(hs, top_level | {rel for f in FAMILIES for rel in hs.match(f.headers)})
    macros = build_macros(decl, vocab)
    owned: set[str] = set(macros.entries) | {i.cuda for i in irregular.PYTORCH} | {
        i.cuda for names in irregular.FAMILY_NAMES.values() for i in names}
    tables: dict[str, Table] = {}
    missing = []
    for fam in FAMILIES:
        table = build_family(fam, hs, owned, vocab)
        if table is None:
            missing.append(fam.name)
            continue
        tables[fam.name] = table
        owned |= set(table.entries)
    if vendor is not None and not hs.match(["ATen/cuda/*"]):
        missing.append("pytorch (the torch wheel)")
    if missing and not partial:
        raise SystemExit(
            "error: no headers found for: " + ", ".join(missing)
            + "\n(fetch them with --fetch-wheels DIR, pass --wheels-dir DIR, or use --partial)")
    tables["headers"] = build_headers(hs, tables, vocab)
    tables["macros"] = macros
    tables["pytorch"] = build_pytorch(hs, owned, vocab, vendor)
    tables[MUTLASS] = build_mutlass()
    tables[LEGACY_TORCH] = build_legacy_torch()
    if "pymtml.py" in hs.extras:
        origin, text = hs.extras["pymtml.py"]
        tables[NVML] = build_nvml(text, origin.split(" ", 1)[1])
    elif not partial:
        raise SystemExit("error: no mthreads-ml-py wheel (the nvml family's source): fetch it "
                         "with --fetch-wheels DIR, or use --partial")
    report = None
    if vendor is not None:
        report = apply_vendor(tables, vendor, hs, decl, vocab)
        for table in tables.values():
            table.entries = dict(sorted(table.entries.items()))
    assign_primaries(tables)
    return tables, report

