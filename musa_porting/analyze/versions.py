"""Version and arch checks (MP2003): comparisons of a CUDA version or arch number,
which a rename carries over with CUDA's number (``__CUDA_ARCH__ >= 800`` becomes
``__MUSA_ARCH__ >= 800``, never true on MUSA), and ``#if`` tests of NVIDIA arch macros.

Patterns from public CUDA code: PyTorch extensions (``#if __CUDA_ARCH__ < 600`` around
a double ``atomicAdd``, ``#if CUDA_VERSION < 9000`` around ``__shfl``), CCCL and CUTLASS
(``CUB_PTX_ARCH``, ``CUTLASS_ARCH_MMA_SM80_ENABLED``, ``__CUDA_ARCH_FEAT_SM90_ALL``),
vLLM-style kernels (``__CUDACC_VER_MAJOR__ >= 12``). A MUSA name the source already
had (``__MUSA_ARCH__ >= 220`` written by hand) is MUSA's number, and not reported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ..port.cxx.arch_values import MUSA_VALUES
from ..port.lines import Lines
from .arches import ARCHES
from .scan import Hazard, Scan

ARCH_NAMES = frozenset(("__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "CUB_PTX_ARCH"))
TOOLKIT_VERSIONS = frozenset(("CUDA_VERSION", "CUDART_VERSION"))
NVCC_VERSIONS = frozenset(("__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__",
                           "__CUDACC_VER__", "__NVCC_VER_MAJOR__"))
LIBRARY_VERSIONS = {"CUDNN_VERSION": "cuDNN", "CUDNN_MAJOR": "cuDNN", "CUBLAS_VERSION": "cuBLAS",
                    "NCCL_VERSION_CODE": "NCCL", "NCCL_MAJOR": "NCCL", "CUSPARSE_VERSION": "cuSPARSE",
                    "CUFFT_VERSION": "cuFFT", "CUSOLVER_VERSION": "cuSOLVER",
                    "CURAND_VERSION": "cuRAND", "THRUST_VERSION": "Thrust", "CUB_VERSION": "CUB"}
_KNOWN = ARCH_NAMES | TOOLKIT_VERSIONS | NVCC_VERSIONS | frozenset(LIBRARY_VERSIONS)
_NAME_THEN_NUMBER = re.compile(rb"\s*([<>]=?|==|!=)\s*\(?\s*(\d+)")
_NUMBER_THEN_NAME = re.compile(rb"(?<![A-Za-z0-9_.])(\d+)\s*\)?\s*([<>]=?|==|!=)\s*$")
CURRENT_ARCHES = (800, 860, 890, 900)  # the NVIDIA GPUs code is written for today
CURRENT_TOOLKITS = (11080, 12000, 12080, 13000)
MUSA_VERSION = 50200  # an example MUSA release number (MUSA 5.2.0)
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_LEAD = re.compile(rb"[ \t\xef\xbb\xbf]*")
_DIRECTIVE = re.compile(rb"#[ \t]*(?:if|ifdef|ifndef|elif)\b([^\n]*)")
_SM_MACRO = re.compile(rb"\b[A-Za-z_]*?(?<![A-Za-z0-9])(?:SM|sm|Sm)_?(\d{2,3})[a-z]?(?![0-9])\w*")
_GUARD = re.compile(r"_H(?:PP)?_*$")  # an include guard (__SM_30_INTRINSICS_H__), not an arch test
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _holds(op: str, a: int, b: int) -> bool:
    return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


@functools.lru_cache(maxsize=256)
def arch_advice(op: str, number: int) -> tuple[str, str]:
    """What ``__MUSA_ARCH__ op number`` does on MUSA, and the MUSA number that
    corresponds (musa-port's own table: sm_80 ~ 220, sm_90 ~ 310)."""
    values = {a: ARCHES[a].value for a in ("mp_21", "mp_22", "mp_31")}
    true_on = [a for a, v in values.items() if _holds(op, v, number)]  # type: ignore[arg-type]
    if not true_on:
        does = "never true on MUSA (__MUSA_ARCH__ is 210, 220 or 310)"
    elif len(true_on) == len(values):
        does = "true on every MUSA arch (__MUSA_ARCH__ is 210, 220 or 310)"
    else:
        does = f"true only on {'/'.join(true_on)}"
    current = {_holds(op, v, number) for v in CURRENT_ARCHES}
    if len(current) == 1 and all(_holds(op, v, number) in current for v in values.values()):
        does += ", as on current NVIDIA GPUs (sm_80, sm_90): the branch MUSA takes is likely meant"
    if number >= 900:
        counterpart = f"sm_{number // 10} corresponds to __MUSA_ARCH__ {op} 310"
    elif number >= 800:
        counterpart = f"sm_{number // 10} corresponds to __MUSA_ARCH__ {op} 220"
    else:
        counterpart = (f"MUSA has no counterpart of sm_{number // 10}: decide which MUSA arches "
                       "have what the branch needs")
    return does, counterpart


def _cuda_version(number: int) -> str:
    return f"{number // 1000}.{number % 1000 // 10}" if number >= 1000 else str(number)


def _message(cuda: str, shown: str, op: str, number: int) -> str:
    text = f"'{shown}'"
    if cuda in ARCH_NAMES:
        does, counterpart = arch_advice(op, number)
        return f"{text} compares a CUDA arch number: {does}; {counterpart}"
    if cuda in TOOLKIT_VERSIONS:
        same = {_holds(op, v, number) for v in (*CURRENT_TOOLKITS, MUSA_VERSION)}
        likely = (": it takes the branch a current CUDA toolkit (11.x-13.x) takes, which is likely "
                  "meant") if len(same) == 1 else ""
        return (f"{text} compares a CUDA version ({_cuda_version(number)}); after the rename it "
                f"is MUSA's release number ({MUSA_VERSION} is MUSA 5.2){likely}; compare with the "
                "MUSA release that has what the branch needs")
    if cuda in NVCC_VERSIONS:
        return (f"{text} tests nvcc's version; mcc may not define {cuda}, or not as nvcc does "
                "(then the other branch is compiled): test __MUSACC__ instead")
    lib = LIBRARY_VERSIONS[cuda]
    return (f"{text} compares a {lib} version; its MUSA counterpart is numbered differently: "
            "compare with the MUSA library's own versions")


_KNOWN_KEYS = tuple(sorted(n.encode() for n in _KNOWN))
SM_KEYS = tuple(f"{p}{d}".encode() for p in ("SM", "sm_", "sm", "Sm") for d in "6789") + (b"SM1", b"sm_1")
KEYS = _KNOWN_KEYS + SM_KEYS


def _names(scan: Scan) -> Iterator[tuple[int, int, str]]:
    """(start, end, CUDA name) in the ported text of each version or arch name: renamed
    by the port (``__MUSA_ARCH__``, was ``__CUDA_ARCH__``) or left as it is
    (``__CUDACC_VER_MAJOR__``, ``CUB_PTX_ARCH``)."""
    edits = scan.edits
    for i, e in enumerate(edits.edits):
        if e.old in _KNOWN:
            yield edits.out_starts[i], edits.out_ends[i], e.old
    data = scan.out
    for key in _KNOWN_KEYS:
        for s in scan.hits.get(key, ()):
            e = s + len(key)
            if (s == 0 or data[s - 1] not in IDENT) and (e == len(data) or data[e] not in IDENT):
                yield s, e, key.decode()


def version_hazards(scan: Scan) -> Iterator[Hazard]:
    """MP2003: comparisons of CUDA versions and arch numbers, NVIDIA arch macros in #if."""
    data = scan.out
    places = {s: (e, name) for s, e, name in _names(scan)}
    for s in sorted(places):
        e, cuda = places[s]
        after = _NAME_THEN_NUMBER.match(data, e)
        if after is not None:
            op, number = after.group(1).decode(), int(after.group(2))
            if not _ported_threshold(cuda, op, number):
                yield Hazard("MP2003", s, after.end(),
                             _message(cuda, data[s:after.end()].decode(), op, number))
            continue
        before = _NUMBER_THEN_NAME.search(data, max(0, s - 40), s)
        if before is not None:
            op, number = _FLIP[before.group(2).decode()], int(before.group(1))
            if not _ported_threshold(cuda, op, number):
                yield Hazard("MP2003", before.start(), e,
                             _message(cuda, data[before.start():e].decode(), op, number))
    if scan.has(*SM_KEYS):
        yield from _sm_macros(scan)


def _ported_threshold(cuda: str, op: str, number: int) -> bool:
    """``__CUDA_ARCH__ >= 800`` that the port already wrote as ``__MUSA_ARCH__ >= 220``
    (port/cxx/arch_values.py, reported there as MP3104): an ordering against a MUSA arch
    value is not a CUDA number carried over."""
    return cuda == "__CUDA_ARCH__" and op in ("<", "<=", ">", ">=") and number in MUSA_VALUES


def _sm_macros(scan: Scan) -> Iterator[Hazard]:
    """NVIDIA arch macros in #if lines: found from their SMxx words, then the line."""
    data = scan.out
    lines, seen = Lines(data), set()
    for at in scan.at(*SM_KEYS):
        bol = lines.start(at)
        if bol in seen:
            continue
        seen.add(bol)
        d = _DIRECTIVE.match(data, _LEAD.match(data, bol).end())
        if d is None:
            continue
        for m in _SM_MACRO.finditer(data, d.start(1), d.end(1)):
            name = m.group().decode()
            if name.startswith(("__MUSA_ARCH", "__CUDA_ARCH__")) or _GUARD.search(name):
                continue
            sm = int(m.group(1))
            sm = sm * 10 if sm < 100 else sm
            yield Hazard("MP2003", m.start(), m.end(),
                         f"'{name}' tests an NVIDIA arch (sm_{sm // 10}) in #if: no MUSA build "
                         "defines it, so the branch is dropped (or, negated, always taken); "
                         f"decide by __MUSA_ARCH__: {arch_advice('>=', sm)[1]}")
