"""Derive the name-part vocabulary (``mapping/vocabulary.json``) from Moore Threads'
own mapping tables, plus the words other public sources name (``NAMED_WORDS``).

Every CUDA -> MUSA pair of the vendor's tables is split into name parts; where the
two names differ only in some parts, each differing pair of parts is a candidate
word (``CUDA_ERROR_NVLINK_UNCORRECTABLE -> MUSA_ERROR_MTLINK_UNCORRECTABLE`` gives
``CUDA -> MUSA`` and ``NVLINK -> MTLINK``). A word is kept when the vendor uses it in
at least ``MIN_NAMES`` names, it is at least four letters (``cu`` and ``nv`` are
everywhere: ``cu_seqlens``), and the vendor never keeps it unchanged in a name where
it renames another part.

    python -m musa_porting.tables.vocabulary --vendor ../shared/data/torch_musa [--check]

The vendor's data is BSD-3-Clause (mapping/LICENSE.torch_musa); the output names the
vendor file and an example for each word.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from ..rules.vocabulary import VOCABULARY_FILE, split_parts

ROOT = Path(__file__).resolve().parents[2]
VENDOR_TABLES = ("general", "extra", "dnn-naming", "include", "dnn-header")
MIN_NAMES = 3
MIN_LENGTH = 4

# Words the vendor's tables do not spell out as a word, from other public sources:
# (MUSA word, source, whole part only).
NAMED_WORDS = {
    "NCCL": ("MCCL", "torch_musa's C++ sources: MCCL for NCCL (ProcessGroupMCCL, MCCLComm)",
             False),
    "CUDNN": ("MUDNN", "vendor dnn-naming.json: cudnnCreate -> mudnnCreate, "
              "CUDNN_STATUS_SUCCESS -> MUDNN_STATUS_SUCCESS", False),
    "CUTLASS": ("MUTLASS", "MooreThreads/mutlass: MUTLASS is Moore Threads' CUTLASS "
                "(cutlass:: -> mutlass::)", False),
    # A whole part only: EXECUTE, cuter and execute hold the letters.
    "CUTE": ("MUTE", "MooreThreads/mutlass: MuTe is its CuTe (cute:: -> mute::, CUTE_* -> "
             "MUTE_*)", True),
    "NVCC": ("MCC", "musa-port's own table: mcc is MUSA's compiler driver, where CUDA has nvcc",
             False),
    "NPP": ("MTPP", "vendor general.json: nppAlphaOp -> mtppAlphaOp", False),
    # THC-era prefixes (TorcH Cuda, THCP its Python bindings'): a whole part only.
    "THCP": ("THMP", "torch_musa's C++ sources: THMP for THCP, the prefix of the Python "
             "bindings (THMPStream_get_musa_stream in torch_musa/csrc/core/Stream.cpp, "
             "THMPEvent_get_musa_event in torch_musa/csrc/core/Event.cpp)", True),
    "THC": ("THM", "the THC-era prefix with MUSA's letter, as torch_musa's C++ sources "
            "write THMP for THCP (THMPStream_get_musa_stream, torch_musa/csrc/core/Stream.cpp)",
            True),
}
# The API prefixes (cu, nv) glued to a project's name: only as the name's first part,
# followed by a capitalised part (cuCheck, nvAssert) or, in upper case, by an underscore
# and an upper-case part (CU_CHECK, NV_MAX_SMEM); never cu_seqlens or a word of prose.
# (MUSA word, source.)
LEAD_WORDS = {
    "CU": ("MU", "vendor general.json: the driver API's prefix, cuLaunchKernel -> "
           "muLaunchKernel, CU_CUBEMAP_FACE_POSITIVE_X -> MU_CUBEMAP_FACE_POSITIVE_X"),
    "NV": ("MT", "vendor general.json: __nv_bfloat16 -> __mt_bfloat16, nppAlphaOp -> "
           "mtppAlphaOp"),
}

# Inner words of the vendor's tables below MIN_NAMES that every name holding them
# renames alike (the review of every inner-word change, with LEFT_OUT below).
REVIEWED_WORDS = ("NVSWITCH", "NVBLAS")
# NVL is NVLink's abbreviation in communication libraries (num_nvl_bytes,
# NUM_MAX_NVL_PEERS): the vendor renames NVLINK (and every NV word it maps) so. A whole
# part only, so nvlist or NVLS stay.
IMPLIED_WORDS = {"NVL": ("MTL", "NVLINK", True)}

# Inner-word changes of the vendor's tables that are not vocabulary words, each with
# why (tests/rules/test_vocabulary.py checks that every change is a word or listed here).
LEFT_OUT = {
    **{w: "two letters or fewer: the API prefixes (cu, CU, nv), which the tables' prefix "
          "rules handle; in names they are not CUDA's (cu_seqlens, nv_half) except as a "
          "name's first part in the lead words' shape (LEAD_WORDS: cuCheck, NV_MAX_SMEM)"
       for w in ("C", "CU", "NV")},
    **{w: "the driver's CU prefix glued to a word (CUGLDeviceList, CUGPUDirectRDMA..., "
          "..._CUDEVICE, cuuint32_t): whole names of the tables, not a word of their own"
       for w in ("CUG", "CUGL", "CUGPU", "CUDEVICE", "CUCONTEXT", "CUUINT")},
    **{w: "a LAPACK routine (C for complex: cusolverDnCungbr): the vendor renames its C as "
          "if it were CUDA's cu, not a CUDA word"
       for w in ("CUNGBR", "CUNGQR", "CUNGTR", "CUNMQR", "CUNMTR")},
    "CUTOFF": "an English word (nCutoffValue -> nMutoffValue): renamed as if it began with cu",
    "CUBRT": "a cube root (nppsCubrt_32f), renamed as if it began with cu",
    "CONVERSION": "an English word (NV_NPPI_COLOR_CONVERSION_H): its NV renamed by mistake",
    "HGPUNV": "one Windows handle type (HGPUNV), a whole name of the tables",
    "NVN": "one name (cuEventCreateFromNVNSync): NVN is a graphics API, not a CUDA word",
    "NVPTX": "one name (__OPENMP_NVPTX__): MUSA has no PTX, so an MTPTX would name nothing",
    **{w: "a whole name of the tables (the header nvfunctional, the namespaces nvstd and "
          "nvcuda), not a word inside other names" for w in ("NVFUNCTIONAL", "NVSTD", "NVCUDA")},
    "PHILOX": "curandStatePhilox4_32_10_t -> murand_state_philox4x32_10: renamed whole, its "
              "parts do not line up",
}


def _pairs(vendor: Path):
    for table in VENDOR_TABLES:
        path = vendor / "mapping" / f"{table}.json"
        for cuda, musa in json.loads(path.read_text(encoding="utf-8")).items():
            if isinstance(musa, str):
                yield table, cuda, musa


def _changes(vendor: Path):
    """(CUDA part, MUSA part, table, CUDA name, MUSA name) of every part the vendor's
    tables change, in names whose parts line up; and the parts they keep unchanged in
    a name where another part changes."""
    kept: Counter[str] = Counter()
    changes = []
    for table, cuda, musa in _pairs(vendor):
        a, b = split_parts(cuda), split_parts(musa)
        if len(a) != len(b) or a == b:
            continue
        for x, y in zip(a, b):
            if x == y:
                kept[x.upper()] += 1
            else:
                changes.append((x, y, table, cuda, musa))
    return changes, kept


def unreviewed(vendor: Path, vocabulary) -> list[tuple[str, str, str]]:
    """The vendor's inner-word changes (CUDA part, MUSA part, an example) that the
    vocabulary does not make and LEFT_OUT does not explain: empty after a review."""
    out = {}
    for x, y, _table, cuda, musa in _changes(vendor)[0]:
        if not (x.isalpha() and y.isalpha()) or vocabulary.rename_part(x) == y:
            continue
        if x.upper() not in LEFT_OUT:
            out.setdefault((x.upper(), y.upper()), f"{cuda} -> {musa}")
    return [(a, b, e) for (a, b), e in sorted(out.items())]


def derive(vendor: Path) -> dict[str, dict[str, object]]:
    counts: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], tuple[str, str, str]] = {}
    changes, kept_unchanged = _changes(vendor)
    for x, y, table, cuda, musa in changes:
        key = x.upper()
        if not (x.isalpha() and y.isalpha()) or y.upper() == key:
            continue
        # One word, whatever its case style: CUDA, cuda and Cuda count together.
        pair = (key, y.upper())
        counts[pair] += 1
        example.setdefault(pair, (table, cuda, musa))
    words: dict[str, dict[str, object]] = {}
    sources: dict[str, str] = {}
    for (cuda, musa), n in counts.most_common():
        if len(cuda) < MIN_LENGTH or cuda in sources or kept_unchanged[cuda]:
            continue  # kept_unchanged: the vendor also keeps it, not a word it always renames
        table, k, v = example[(cuda, musa)]
        sources[cuda] = f"vendor {table}.json: {n} names, e.g. {k} -> {v}"
        if n >= MIN_NAMES or cuda in REVIEWED_WORDS:
            words[cuda] = {"musa": musa, "source": sources[cuda]}
    for cuda, (musa, via, whole) in IMPLIED_WORDS.items():
        words[cuda] = {"musa": musa, "source": f"{cuda} abbreviates {via} in communication "
                       "libraries (num_nvl_bytes, NUM_MAX_NVL_PEERS), renamed as "
                       f"{sources[via]}", "whole": whole}
    for cuda, (musa, source, whole) in NAMED_WORDS.items():
        words.setdefault(cuda, {"musa": musa, "source": source, **({"whole": True} if whole else {})})
    for cuda, (musa, source) in LEAD_WORDS.items():
        words.setdefault(cuda, {"musa": musa, "source": source, "lead": True})
    return dict(sorted(words.items()))


def render(words: dict[str, dict[str, str]]) -> str:
    doc = {
        "description": "Name-part vocabulary: a CUDA word inside a name and its MUSA word "
                       "(matched as UPPER, lower and Capitalised name parts). Generated by "
                       "python -m musa_porting.tables.vocabulary; see LICENSE.torch_musa.",
        "words": words,
    }
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m musa_porting.tables.vocabulary",
                                 description="Derive mapping/vocabulary.json from the vendor tables.")
    ap.add_argument("--vendor", type=Path, default=ROOT.parent / "shared" / "data" / "torch_musa",
                    help="torch_musa's data folder (with mapping/*.json)")
    ap.add_argument("--out", type=Path, default=ROOT / "mapping" / VOCABULARY_FILE)
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = ap.parse_args(argv)
    text = render(derive(args.vendor))
    old = args.out.read_text(encoding="utf-8") if args.out.is_file() else None
    if args.check:
        if old != text:
            print(f"out of date: {args.out}", file=sys.stderr)
            return 1
        return 0
    if old != text:
        args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(json.loads(text)['words'])} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
