"""Residuals: CUDA names and headers left in the ported code (MP1001, MP1002, MP1003).

What looks like CUDA is decided by one regex over identifier starts (with THC's and
NVML's names, which the legacy_torch and nvml tables know and MUSA does not all have); what the
tables know but cannot port (and what the user keeps) by ``Knowledge``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass


def _at_identifier_start(alternatives: list[bytes]) -> re.Pattern[bytes]:
    """One regex for alternatives that each begin with a literal byte, matched only at
    the start of an identifier. The boundary look-behind sits after the first byte so
    every branch starts with a literal and the regex engine can skip ahead with its
    first-byte scan (a leading look-behind would make it try every offset)."""
    by_first: dict[bytes, list[bytes]] = {}
    for alt in alternatives:
        by_first.setdefault(alt[:1], []).append(alt[1:])
    branches = [re.escape(first) + rb"(?<![A-Za-z0-9_]" + re.escape(first) + rb")(?:"
                + b"|".join(rests) + b")" for first, rests in sorted(by_first.items())]
    return re.compile(b"|".join(branches))


_W = rb"[A-Za-z0-9_]"
RESIDUAL_RE = _at_identifier_start(
    [p + _W + b"*" for p in (b"cuda", b"CUDA", b"cublas", b"CUBLAS", b"curand", b"CURAND",
                             b"cusparse", b"CUSPARSE", b"cufft", b"CUFFT", b"cusolver",
                             b"CUSOLVER", b"cudnn", b"CUDNN", b"nccl", b"NCCL", b"cupti",
                             b"CUPTI", b"nvtx", b"NVTX", b"nvrtc", b"NVRTC", b"nvcuda",
                             b"CUTLASS", b"nvshmem", b"ibgda", b"nvidia_p2p_", b"THArgCheck")]
    + [b"cu[A-Z]" + _W + b"*", b"CU_" + _W + b"+", b"CU[a-z]" + _W + b"*",
       b"THC(?:[A-Z][a-z]|uda)" + _W + b"*", b"nvml[A-Z]" + _W + b"*",
       b"__(?:nv|NV|CUDA|cuda)" + _W + b"*", b"nv_" + _W + b"+", b"NV" + _W + b"+"]
)

_W_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
# The literal heads of RESIDUAL_RE's alternatives, a character class spelt out.
_HEADS = sorted({
    "cuda", "CUDA", "cublas", "CUBLAS", "curand", "CURAND", "cusparse", "CUSPARSE", "cufft",
    "CUFFT", "cusolver", "CUSOLVER", "cudnn", "CUDNN", "nccl", "NCCL", "cupti", "CUPTI", "nvtx",
    "NVTX", "nvrtc", "NVRTC", "nvcuda", "CUTLASS", "CU_", "__nv", "__NV", "__CUDA", "__cuda", "nv_",
    "nvshmem", "ibgda", "nvidia_p2p_", "THArgCheck", "THC", "nvml",
    *("cu" + c for c in _W_CHARS[:26]), *("CU" + c for c in _W_CHARS[26:52]),
    *("NV" + c for c in _W_CHARS)})
_IDENT = frozenset(_W_CHARS.encode())
_heads_automaton = None
# The heads of names that look like CUDA's without a vocabulary word in them (``NVPF_CHECK``,
# ``cuSPH_Grid``, ``nv_clamp``): the symbol index looks for the tree's definitions of
# such names apart (``analyze/symbols.py``), as the vocabulary's finder does not see them.
_WORDY = ("cuda", "cublas", "curand", "cusparse", "cufft", "cusolver", "cudnn", "nccl", "cupti",
          "nvtx", "cutlass", "__cuda")
_LIKE_HEADS = [h for h in _HEADS if not h.lower().startswith(_WORDY)]
_like_automaton = None


def _automaton():
    """The heads in an Aho-Corasick automaton (``ahocorasick_rs``), built on first use;
    False without the wheel or with ``MUSA_PORT_PURE_PYTHON=1``."""
    global _heads_automaton
    if _heads_automaton is None:
        _heads_automaton = False
        if os.environ.get("MUSA_PORT_PURE_PYTHON") != "1":
            try:
                import ahocorasick_rs
            except ImportError:
                pass
            else:
                heads = [h for h in _HEADS if not any(o != h and h.startswith(o) for o in _HEADS)]
                _heads_automaton = ahocorasick_rs.BytesAhoCorasick(
                    [h.encode() for h in heads], implementation=ahocorasick_rs.Implementation.DFA)
    return _heads_automaton


def like_matches(data: bytes) -> list[re.Match[bytes]]:
    """The matches of ``RESIDUAL_RE`` that start with a head holding no vocabulary word
    (``NV...``, ``cu[A-Z]...``, ``nv_...``): where names that look like CUDA's but that
    no vocabulary word finds stand (a few others too: the caller checks the name)."""
    global _like_automaton
    if _like_automaton is None:
        _like_automaton = False
        if _automaton():
            import ahocorasick_rs

            heads = [h for h in _LIKE_HEADS
                     if not any(o != h and h.startswith(o) for o in _LIKE_HEADS)]
            _like_automaton = ahocorasick_rs.BytesAhoCorasick(
                [h.encode() for h in heads], implementation=ahocorasick_rs.Implementation.DFA)
    if not _like_automaton:
        return residual_matches(data)
    return _matches_at_starts(_like_automaton, data)


def residual_matches(data: bytes) -> list[re.Match[bytes]]:
    """What ``RESIDUAL_RE.finditer(data)`` finds, found faster: the automaton finds
    the identifier starts where a head stands (in Rust, where the regex tries every
    offset against two dozen first bytes) and the regex is matched there only. Every
    match runs to the end of its identifier, so the two never disagree."""
    ac = _automaton()
    if not ac:
        return list(RESIDUAL_RE.finditer(data))
    return _matches_at_starts(ac, data)


def _matches_at_starts(ac, data: bytes) -> list[re.Match[bytes]]:
    """``RESIDUAL_RE`` matched at each identifier start where the automaton ``ac`` finds
    one of its heads (once per start)."""
    out = []
    match = RESIDUAL_RE.match
    ident = _IDENT
    last = -1
    for _, s, _e in ac.find_matches_as_indexes(data, overlapping=True):
        if s == last or (s and data[s - 1] in ident):
            continue
        last = s
        m = match(data, s)
        if m is not None:
            out.append(m)
    return out


# Names that look like CUDA but must stay: thrust/cub internals, the CUDA compiler's
# own version macros, which MUSA's compiler also defines for compatibility.
BUILTIN_KEEP = frozenset({
    "cuda_cub", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__",
    "__CUDACC_RDC__", "__CUDACC_EXTENDED_LAMBDA__", "__CUDACC_RELAXED_CONSTEXPR__",
    "__NV_NO_HOST_COMPILER_CHECK",
})

CUDA_HEADER_RE = re.compile(
    r"(?:^|/)(?:cuda[A-Za-z0-9_]*|cu(?:blas|rand|sparse|fft|solver|dnn|pti|Complex)[A-Za-z0-9_]*"
    r"|nccl|nvrtc|nvToolsExt[A-Za-z0-9_]*|npp[A-Za-z0-9_]*|nvtx3?[A-Za-z0-9_/]*)\.(?:h|hpp|cuh)$"
    r"|^(?:ATen|c10)/cuda/"
)


@dataclass(frozen=True)
class Knowledge:
    """What the scanner needs to know about the rules in force."""

    known: Mapping[str, str]  # CUDA names the tables know but do not rewrite: their notes
    keep: Set[str]  # names the user keeps (--keep, or a rule X: X)
    cuda_headers: Set[str]  # header names (no delimiters) the tables know as CUDA's
    tree_include: object = None  # callable(target) -> bool: is it a file of the tree

