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

from ..rules.vocabulary import Vocabulary, split_parts
from . import irregular
from .families import FAMILIES, Context, derive
from .headers import Declarations, HeaderSet, header_release, release_label
from .model import Item, Table
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


# A vendor-only name's family by the first vocabulary word in it.
WORD_FAMILY = {
    "CUBLAS": "cublas", "CUBLASLT": "cublas", "CUBLASXT": "cublas", "CURAND": "curand",
    "CUSPARSE": "cusparse", "CUFFT": "cufft", "CUSOLVER": "cusolver", "CUSOLVERRF": "cusolver",
    "CUDNN": "cudnn", "NCCL": "nccl", "CUPTI": "cupti", "NVTX": "nvtx", "NPP": "npp",
    "NPPI": "npp", "NPPS": "npp", "CUBIN": "driver", "NVVM": "device", "CUDACC": "macros",
}


def vendor_family(key: str, vendor_table: str, vocab: Vocabulary | None) -> str:
    """The table a name only the vendor maps goes to: torch's names to ``pytorch``,
    libdevice's to ``device``, else the family whose prefix rule takes it, else the
    family of the first CUDA word in it."""
    if vendor_table in ("extra", "include") or not re.fullmatch(r"[A-Za-z_]\w*", key):
        return "pytorch"  # torch's names (extra.json) and file names
    if re.match(irregular.FP16_KEEP_PATTERN, key):
        return "fp16_bf16"
    if key.startswith("__nv"):
        return "device"  # libdevice and NVVM intrinsics (__nv_sinf, __nvvm_*)
    for fam in FAMILIES:
        if derive(key, irregular.PREFIXES[fam.name], fam.pfn) is not None:
            return fam.name
    if vocab is not None:
        for part in key.replace("_", " ").split():
            for word, fam_name in WORD_FAMILY.items():
                if part.upper().startswith(word) and vocab.rename_part(part) is not None:
                    return fam_name
    return "runtime"


def vendor_item(key: str, musa: str, family: str, hs: HeaderSet, decl: Declarations) -> Item:
    """The entry of a name only the vendor maps: its family's status rules (graphics
    interop and the like: unknown, since the vendor names a MUSA form), the newest
    release declaring it, if any."""
    fam = next((f for f in FAMILIES if f.name == family), None)
    status, note = (fam.default_status if fam else "supported"), ""
    kind = decl.newest[key][2] if key in decl.newest else ("header" if key[:1] in '<"' else "name")
    if fam is not None and fam.classify is not None:
        d = derive(key, irregular.PREFIXES[family], fam.pfn)
        if d is not None:
            status, note = fam.classify(Context(key, kind, frozenset(), d[1]), status, note)
    if status == "unsupported":
        status, note = "unknown", VENDOR_NOTE
    if kind != "header":
        version = decl.version(key)
    elif key[1:-1] in hs.files and any(hs.versions.get(o) for o, _ in hs.files[key[1:-1]]):
        version = release_label(header_release(hs, key[1:-1]), decl.generation)
    else:
        version = None
    return Item(musa, status, VENDOR, version, note, kind=kind)


def apply_vendor(tables: dict[str, Table], vendor: Vendor, hs: HeaderSet, decl: Declarations,
                 vocab: Vocabulary | None) -> VendorReport:
    """The vendor's MUSA name for every key it maps, in place; a name no table has is
    added (``vendor_family``, ``vendor_item``). Header keys get both include forms in
    ``headers``."""
    report = VendorReport(label=vendor.label)
    where = {key: fam for fam, t in tables.items() for key in t.entries}

    def put(key: str, musa: str, family: str) -> None:
        fam = where.get(key)
        if fam is None:
            if family not in tables:
                return  # a partial run without that family's headers
            tables[family].entries[key] = vendor_item(key, musa, family, hs, decl)
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
        put(key, musa, vendor_family(key, table, vocab))
    for key, (musa, _table) in sorted(vendor.headers.items()):
        reason = exception_reason(key)
        if reason is not None:
            report.exceptions.append((key, musa, reason))
            continue
        for left, right in (("<", ">"), ('"', '"')):
            put(left + key + right, left + musa + right, "headers")
    report.disagreements.sort()
    return report
