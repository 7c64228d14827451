"""What the port renamed but a rename does not settle, read off the edits and their
rules' status: a PyTorch name torch_musa does not use (MP1012), a low-precision type or
conversion the vendor's tables do not give (MP2016: a warning at its first use in a file,
a note at each other, as an FP8 kernel names its vector types on every line), cuBLAS
calls with type and algorithm enums or names the vendor does not give (MP2201), NCCL
names torch_musa's MCCL code does not use (MP2202), cuDNN names renamed to muDNN C names
torch_musa's code does not use (MP2204: it calls muDNN through its C++ classes).

Patterns from public CUDA code: PyTorch extensions (``ScalarTypeToCudaDataType``),
FP8 quantization kernels (``__nv_cvt_float2_to_fp8x2``), transformer GEMMs
(``cublasGemmEx`` with ``CUDA_R_16F``, ``CUBLAS_COMPUTE_32F`` and
``CUBLAS_GEMM_DEFAULT_TENSOR_OP``; cuBLASLt FP8 matmuls), distributed runtimes
(``ncclCommInitRankConfig``, ``ncclCommSplit``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator

from .code_view import match
from .scan import Hazard, Scan

FAMILIES = frozenset(("pytorch", "fp16_bf16", "cublas", "runtime", "nccl", "cudnn"))
_GEMM_EX = re.compile(r"^cublas\w*[Gg]emm\w*Ex(?:_64)?$")
_LT_MATMUL = re.compile(r"^cublasLtMatmul$")
_BLAS_NAME = re.compile(r"^(?:cublas|CUBLAS|CUDA_[RC]_)")
_BLAS_PREFIXES = ("cublas", "CUBLAS", "CUDA_")  # what the three above start with
_ENUM = re.compile(r"^(?:MUSA_[RC]_\w+|MUBLAS_COMPUTE_\w+|MUBLAS_GEMM_\w+)$")
_TYPED = "mublasSgemm, mublasDgemm, mublasCgemm, mublasZgemm and their StridedBatched forms"
_MCCL_USED = ("mcclCommInitRank, mcclCommAbort, mcclGroupStart/mcclGroupEnd, mcclAllReduce, "
              "mcclAllGather, mcclReduceScatter, mcclBroadcast, mcclSend, mcclRecv")
_MUDNN_USED = "the names its sources use are muHandle, muTensor and mudnn, from " \
    "torch_musa/csrc/aten/mudnn/Handle.h"
NAMES_FILE = "torch_musa_names.txt"
VENDOR = "vendor"


@functools.lru_cache(maxsize=1)
def torch_musa_names() -> frozenset[str]:
    """The MUSA identifiers torch_musa's C++ sources use (``mapping/``, BSD-3-Clause)."""
    from ..rules.mapping_dir import default_mapping_folder

    with open(os.path.join(default_mapping_folder(), NAMES_FILE), encoding="utf-8") as fh:
        return frozenset(line.strip() for line in fh if line.strip() and line[0] != "#")


def renamed_hazards(scan: Scan) -> Iterator[Hazard]:
    edits = scan.edits
    types: dict[str, int] = {}  # the low-precision names of this file: the line of each's first
    for i, e in enumerate(edits.edits):
        rule = e.rule
        family = getattr(rule, "family", None)
        if family not in FAMILIES or e.old[:1] in "<\"":  # headers: include_findings
            continue
        start, end = edits.out_starts[i], edits.out_ends[i]
        was = f"'{e.new}' (was '{e.old}')"
        if family == "pytorch":
            if rule.status == "unknown" and e.old not in scan.defined:  # not the tree's own
                yield Hazard("MP1012", start, end, f"{was} is a name torch_musa's sources do not "
                             "use: it may not exist there; write it out with what torch_musa has",
                             device=False)
        elif family == "fp16_bf16":
            if rule.status != "unknown":
                continue
            if e.old not in types:
                types[e.old] = scan.out.count(b"\n", 0, start) + 1
                yield Hazard("MP2016", start, end, f"{was} is not in the vendor's tables (they "
                             "name __mt_bfloat16, __mt_fp8_e4m3 and __mt_fp8_e5m2): MUSA's "
                             "headers may not declare it; convert through the types they name",
                             device=False)
            else:
                yield Hazard("MP2016", start, end, f"{was} again (its first use in this file, "
                             f"line {types[e.old]}, is the warning): rewrite it here too",
                             device=False, level="note")
        elif family == "nccl":
            if e.new not in torch_musa_names():
                yield Hazard("MP2202", start, end, f"{was} is not among the MCCL names "
                             f"torch_musa's sources use ({_MCCL_USED}): MCCL may lack it or "
                             "its options; use those calls, or guard it with MCCL_MAJOR/"
                             "MCCL_MINOR", device=False)
        elif family == "cudnn":
            if e.new not in torch_musa_names():
                yield Hazard("MP2204", start, end, f"{was}: torch_musa's sources call muDNN "
                             f"through its C++ API ({_MUDNN_USED}), never by cuDNN's C names "
                             "with the prefix changed; check that your SDK's mudnn.h declares "
                             "it, or rewrite the call with muDNN's operator classes",
                             device=False)
        elif not e.old.startswith(_BLAS_PREFIXES):  # (most edits: read no further)
            continue
        elif _GEMM_EX.match(e.old) or _LT_MATMUL.match(e.old):
            yield _blas_call(scan, e.old, e.new, start, end)
        elif _BLAS_NAME.match(e.old) and rule.origin != VENDOR and rule.status != "unsupported":
            yield Hazard("MP2201", start, end, f"{was} is not in the vendor's tables (the name "
                         "comes from the naming rules): muBLAS may not have it; keep this path "
                         "out of the MUSA build unless your SDK's mublas.h or mublasLt.h "
                         "declares it", device=False)


def _blas_call(scan: Scan, old: str, new: str, start: int, end: int) -> Hazard:
    """A GEMM with type enums, or a cuBLASLt matmul: what its arguments say."""
    was = f"'{new}' (was '{old}')"
    if _LT_MATMUL.match(old):
        return Hazard("MP2201", start, end, f"{was}: torch_musa creates muBLASLt handles but "
                      "calls no muBLASLt matmul itself; check that your SDK's mublasLt.h has "
                      "the descriptors, epilogues and types used here, or call the typed GEMM "
                      f"({_TYPED})", device=False)
    enums = _enum_arguments(scan, end)
    shown = f" ({', '.join(enums)})" if enums else ""
    algo = [n for n in enums if "TENSOR_OP" in n or "_ALGO" in n]
    pick = (f"; {', '.join(algo)} numbers NVIDIA's kernels: use MUBLAS_GEMM_DEFAULT" if algo
            else "")
    return Hazard("MP2201", start, end, f"{was} takes its data, compute and algorithm types as "
                  f"enums{shown}: torch_musa calls only muBLAS's typed GEMMs ({_TYPED}); call "
                  f"the typed GEMM of the data type{pick}", device=False)


def _enum_arguments(scan: Scan, after: int) -> list[str]:
    """The MUSA data, compute and algorithm enums among the arguments of the call whose
    name ends at ``after``, in order, each once."""
    code = scan.code
    open_at = after
    while open_at < len(code) and code[open_at] in b" \t\r\n":
        open_at += 1
    if open_at >= len(code) or code[open_at] != 0x28:
        return []
    close = match(code, open_at)
    found = re.findall(rb"[A-Za-z_]\w*", scan.out[open_at:close])
    return list(dict.fromkeys(n.decode() for n in found if _ENUM.match(n.decode())))
