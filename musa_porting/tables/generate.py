"""Generate the default mapping tables (``mapping/*.json``) and ``docs/coverage.md``.

The tables are derived from the real CUDA headers: the CUDA toolkit's include folder
(``/usr/local/cuda/include``) plus the headers shipped inside NVIDIA's PyPI wheels
(cuBLAS, cuRAND, cuSPARSE, cuFFT, cuSOLVER, cuDNN, NCCL, NVTX, NVRTC, CUPTI, NPP and
the CUDA runtime, in their CUDA 13 releases and, for the runtime and the math
libraries, also CUDA 12.9 and 11.8). Every function, type, enum constant and macro a
header declares (see ``scan.py``) whose name starts with its family's API prefix
becomes an entry; the prefix changes, CUDA words inside change by the vocabulary
(``mapping/vocabulary.json``), the rest stays (``cublasSgemm_v2 -> mublasSgemm_v2``,
``CU_CUBEMAP_FACE_POSITIVE_X -> MU_CUBEMAP_FACE_POSITIVE_X``). The torch wheel's
``ATen/cuda``, ``c10/cuda`` and ``torch/csrc/cuda`` headers give the ``pytorch``
family. Then Moore Threads' own tables (``--vendor DIR``, torch_musa's data) override:
where they map a name, their MUSA name wins. ``irregular.py`` holds the curated
prefixes and whole names, each with its source.

Usage (from a checkout; the output is deterministic, byte for byte, for the same
headers, and needs no network)::

    # once: the pinned wheels (about 5 GB; only their include/ members are read)
    python -m musa_porting.tables.generate --fetch-wheels /tmp/wheels
    # which runs: pip download --no-deps -d /tmp/wheels nvidia-cublas==13.10.0.20 ...
    # (the pins are WHEELS in headers.py)

    # write mapping/*.json and docs/coverage.md
    python -m musa_porting.tables.generate --wheels-dir /tmp/wheels
    # write nothing; exit 1 if a committed file differs from what would be written
    python -m musa_porting.tables.generate --wheels-dir /tmp/wheels --check

Options: ``--include DIR`` (repeatable; default ``$CUDA_INCLUDE`` or
``/usr/local/cuda/include``), ``--wheels-dir DIR`` (``*.whl`` files, read in place),
``--out DIR`` (default ``mapping/`` of the checkout), ``--coverage FILE`` (default
``docs/coverage.md`` of the checkout, or ``OUT/coverage.md`` when ``--out`` is given),
``--partial`` (write only the families whose headers were found, instead of failing),
``--vendor DIR`` (torch_musa's data folder; default ``../shared/data/torch_musa``
beside the checkout) or ``--no-vendor`` (the naming rules alone).

The generator is not run in CI (CI has no wheels); the generated files are committed.
``tests/tables/test_tables.py`` regenerates them by hand (``MUSA_PORT_TABLE_HEADERS=DIR``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..rules.vocabulary import build_vocabulary
from .build import build_all
from .headers import fetch_wheels, load_headers
from .output import check_tables, outputs
from .vendor import default_vendor_dir, load_vendor

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m musa_porting.tables.generate",
        description="Generate musa-port's default mapping tables from CUDA headers.")
    ap.add_argument("--include", action="append", type=Path, metavar="DIR",
                    help="a CUDA include folder (repeatable; default $CUDA_INCLUDE or "
                         "/usr/local/cuda/include)")
    ap.add_argument("--wheels-dir", type=Path, metavar="DIR",
                    help="a folder of NVIDIA *.whl files whose include/ headers are read")
    ap.add_argument("--fetch-wheels", type=Path, metavar="DIR",
                    help="first download the pinned wheels into DIR (network), then use it "
                         "as --wheels-dir")
    ap.add_argument("--out", type=Path, metavar="DIR", help="where to write the *.json tables")
    ap.add_argument("--coverage", type=Path, metavar="FILE", help="where to write coverage.md")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if a file differs from what would be written")
    ap.add_argument("--partial", action="store_true",
                    help="skip families whose headers are missing instead of failing")
    ap.add_argument("--vendor", type=Path, metavar="DIR", default=default_vendor_dir(),
                    help="torch_musa's data folder: its mapping tables, attested names and "
                         "headers (default: ../shared/data/torch_musa beside the checkout)")
    ap.add_argument("--no-vendor", action="store_true",
                    help="without the vendor's data (the naming rules alone)")
    args = ap.parse_args(argv)

    includes = args.include or [Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))]
    wheels_dir = args.wheels_dir
    if args.fetch_wheels is not None:
        fetch_wheels(args.fetch_wheels)
        wheels_dir = args.fetch_wheels
    if args.out is None and not (ROOT / "pyproject.toml").is_file():
        ap.error("--out is required outside a musa-port checkout")
    out_dir = args.out or ROOT / "mapping"
    coverage = args.coverage or (out_dir / "coverage.md" if args.out else ROOT / "docs" / "coverage.md")

    vendor = None if args.no_vendor else load_vendor(args.vendor)
    hs = load_headers(includes, wheels_dir)
    tables, report = build_all(hs, partial=args.partial, vendor=vendor, vocab=build_vocabulary())
    problems = check_tables(tables)
    for p in problems:
        print("error:", p, file=sys.stderr)
    if problems:
        return 1
    files = outputs(tables, hs, report)
    stale = []
    for name, text in files.items():
        path = coverage if name == "coverage.md" else out_dir / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old != text:
            stale.append(str(path))
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for fam, t in tables.items():
        print(f"{fam}.json: {len(t.entries)} entries")
    print(f"total: {sum(len(t.entries) for t in tables.values())} entries")
    if args.check and stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
