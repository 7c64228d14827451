"""Moore Threads' own data, read at generation time: the five CUDA -> MUSA tables of
torch_musa (``mapping/*.json``), the MUSA names its C++ uses (``attested_names.tsv``)
and its header paths (``headers.txt``). BSD-3-Clause (``mapping/LICENSE.torch_musa``).

Where the vendor maps a CUDA name, its MUSA name wins over the naming rules: its
libraries' headers were made from NVIDIA's by the same renaming, so it knows what the
MUSA name is, inner words and struct members included (``CUDA_ERROR_NVLINK_UNCORRECTABLE
-> MUSA_ERROR_MTLINK_UNCORRECTABLE``). ``apply_vendor`` does that to the built tables
and records where the vendor and the rules disagree, for ``docs/coverage.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..rules.vocabulary import split_parts
from . import irregular
from .model import Table
from .vocabulary import VENDOR_TABLES

ROOT = Path(__file__).resolve().parents[2]
HEADER_TABLES = ("include", "dnn-header")
VENDOR = "vendor"
VENDOR_NOTE = "the vendor's MUSA name; MUSA support not verified"
_IDENT = re.compile(r"[A-Za-z_]\w*")


def default_vendor_dir() -> Path:
    """``../shared/data/torch_musa`` beside the checkout (where CI has it)."""
    return ROOT.parent / "shared" / "data" / "torch_musa"


@dataclass(frozen=True)
class Vendor:
    names: dict[str, tuple[str, str]]  # CUDA -> (MUSA, vendor table): names, macros, file names
    headers: dict[str, tuple[str, str]]  # include targets (include.json, dnn-header.json)
    attested: frozenset[str]  # MUSA identifiers torch_musa's C++ uses
    torch_headers: tuple[str, ...]  # torch_musa/csrc/... header paths
    label: str  # "MooreThreads/torch_musa <commit> (<date>)"


def is_header_key(key: str) -> bool:
    """An include target of the vendor's include table (``cuda.h``, ``crt/nvfunctional``),
    not a name that happens to be there (``SparseCUDAApplyUtils``)."""
    return "." in key or "/" in key or key.islower()


def load_vendor(folder: Path) -> Vendor:
    def read(name: str) -> str:
        path = folder / name
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SystemExit(f"error: {path}: {exc.strerror or exc} (the vendor data; "
                             "--vendor DIR names its folder)") from None

    names: dict[str, tuple[str, str]] = {}
    headers: dict[str, tuple[str, str]] = {}
    for table in VENDOR_TABLES:
        for cuda, musa in json.loads(read(f"mapping/{table}.json")).items():
            if table in HEADER_TABLES and is_header_key(cuda):
                headers.setdefault(cuda, (musa, table))
            else:
                names.setdefault(cuda, (musa, table))
    attested = frozenset(line.split("\t", 1)[0] for line in read("attested_names.tsv").splitlines()
                         if line and not line.startswith("#"))
    torch_headers = tuple(line.strip() for line in read("headers.txt").splitlines() if line.strip())
    label = read("SOURCE").strip() if (folder / "SOURCE").is_file() else str(folder)
    return Vendor(names, headers, attested, torch_headers, label)


def exception_reason(key: str) -> str | None:
    """Why musa-port does not follow the vendor for ``key``, or None."""
    if key in irregular.VENDOR_EXCEPTIONS:
        return irregular.VENDOR_EXCEPTIONS[key]
    for pattern, reason in irregular.VENDOR_EXCEPTION_PATTERNS:
        if re.match(pattern, key):
            return reason
    return None


@dataclass
class VendorReport:
    """What applying the vendor's tables did, for coverage.md."""

    disagreements: list[tuple[str, str, str, str, str | None]] = field(default_factory=list)
    # (group, family, CUDA, vendor's MUSA, the rules' MUSA or None)
    exceptions: list[tuple[str, str, str]] = field(default_factory=list)  # (CUDA, vendor's, reason)
    added: dict[str, int] = field(default_factory=dict)  # family -> vendor-only entries
    label: str = ""


def disagreement_group(cuda: str, vendor: str, rules: str | None) -> str:
    """What kind of disagreement: the rules had no MUSA name, the vendor renames a word
    inside the name that the rules keep, or a different name altogether."""
    if rules is None:
        return "the rules had no MUSA name (reported as unsupported)"
    a, b = split_parts(vendor), split_parts(rules)
    if len(a) == len(b):
        return "the vendor renames a part the rules keep (or the reverse)"
    return "a different name"


def apply_vendor(tables: dict[str, Table], vendor: Vendor, family_of, item_for) -> VendorReport:
    """The vendor's MUSA name for every key it maps, in place.

    ``family_of(cuda, vendor_table)`` names the table a vendor-only name goes to;
    ``item_for(cuda, musa, family)`` makes its entry (status, version). Header keys get
    both include forms in ``headers``.
    """
    report = VendorReport(label=vendor.label)
    where = {key: fam for fam, t in tables.items() for key in t.entries}

    def put(key: str, musa: str, family: str) -> None:
        fam = where.get(key)
        if fam is None:
            if family not in tables:
                return  # a partial run without that family's headers
            tables[family].entries[key] = item_for(key, musa, family)
            where[key] = family
            report.added[family] = report.added.get(family, 0) + 1
            return
        item = tables[fam].entries[key]
        if item.musa != musa:
            report.disagreements.append(
                (disagreement_group(key, musa, item.musa), fam, key, musa, item.musa))
        if item.musa is None or item.status == "unsupported":
            item.status, item.note = "unknown", VENDOR_NOTE
        item.musa = musa
        item.source = VENDOR

    for key, (musa, table) in sorted(vendor.names.items()):
        reason = exception_reason(key)
        if reason is not None:
            report.exceptions.append((key, musa, reason))
            continue
        put(key, musa, family_of(key, table))
    for key, (musa, _table) in sorted(vendor.headers.items()):
        reason = exception_reason(key)
        if reason is not None:
            report.exceptions.append((key, musa, reason))
            continue
        for left, right in (("<", ">"), ('"', '"')):
            put(left + key + right, left + musa + right, "headers")
    report.disagreements.sort()
    return report
