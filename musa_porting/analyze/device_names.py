"""Names that mark hand work: arch-specific device APIs (MP2010-MP2014) and the
feature names no table holds (texture references, grid sync, PTX versions).

Patterns from public CUDA code: FlashAttention-style kernels (``wmma::``, CuTe's
``SM80_16x8x16_F32F16F16F32_TN``, ``warpgroup_arrive()``, ``cuda::pipeline``), GEMM
and reduction libraries (``__ldg``, ``__reduce_add_sync``, ``__dp4a``), Hopper kernels
(``__cluster_dims__``, ``this_cluster()``), and older CUDA samples (texture references,
``this_grid().sync()``). A name counts only as a whole identifier (or, for ``wmma::``
and ``SM80_...``, where an identifier starts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .scan import Hazard, Scan

_TENSOR = ("MP2010", "{} is NVIDIA tensor-core code; MUSA's matrix units have no 1:1 "
                     "counterpart: use MUTLASS's MUSA atoms, muBLAS/muDNN, or a SIMT path")
_ASYNC = ("MP2011", "{} is an sm_80/sm_90 asynchronous copy with no MUSA equivalent: copy "
                    "with plain loads and stores, then __syncthreads()")
_HINT = ("MP2012", "{} is a load or store with an NVIDIA cache hint; MUSA may not provide it: "
                   "a plain access through a const __restrict__ pointer")
_CLUSTER = ("MP2014", "{} uses thread block clusters (sm_90); MUSA has none: exchange data "
                      "between blocks through global memory")

# name -> (check, message); "{}" is the name as written.
_NAMES: dict[str, tuple[str, str]] = {
    "wmma::": _TENSOR, "nvcuda::": _TENSOR, "GMMA::": _TENSOR, "OpClassTensorOp": _TENSOR,
    "warpgroup_arrive": _TENSOR, "warpgroup_commit_batch": _TENSOR, "warpgroup_wait": _TENSOR,
    "warpgroup_fence_operand": _TENSOR,
    "pipeline": _ASYNC, "memcpy_async": _ASYNC, "__pipeline_memcpy_async": _ASYNC,
    "__pipeline_commit": _ASYNC, "__pipeline_wait_prior": _ASYNC, "make_pipeline": _ASYNC,
    "barrier": _ASYNC, "CUtensorMap": _ASYNC, "MUtensorMap": _ASYNC,
    "cp_async_bulk_tensor": _ASYNC,
    **dict.fromkeys(("__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stcg",
                     "__stcs", "__stwb", "__stwt"), _HINT),
    "__match_any_sync": ("MP2013", "{} (sm_70) may not exist on MUSA: emulate it with a loop of "
                                   "__shfl_sync and __ballot_sync"),
    "__match_all_sync": ("MP2013", "{} (sm_70) may not exist on MUSA: compare against lane 0 "
                                   "with __shfl_sync, then __all_sync"),
    **dict.fromkeys(("__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                     "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync"),
                    ("MP2013", "{} (sm_80) may not exist on MUSA: reduce with a __shfl_xor_sync "
                               "butterfly over the warp's lanes")),
    "__nanosleep": ("MP2013", "{} (sm_70) may not exist on MUSA: back off with a bounded spin"),
    **dict.fromkeys(("__dp4a", "__dp2a_lo", "__dp2a_hi"),
                    ("MP2013", "{} (sm_61) may not exist on MUSA: multiply and add the bytes "
                               "in plain integer arithmetic")),
    "__cluster_dims__": _CLUSTER, "this_cluster": _CLUSTER, "cluster_group": _CLUSTER,
    "map_shared_rank": _CLUSTER, "cluster_sync": _CLUSTER,
    "texture": ("MP2102", "{} declares a texture reference, which CUDA 12 removed and MUSA may "
                          "lack: use a texture object, or plain loads"),
    "this_grid": ("MP2103", "{} is a grid-wide group: its sync() needs a cooperative launch, "
                            "which the vendor does not document for MUSA; split the kernel at "
                            "the barrier into two launches"),
    "grid_group": ("MP2103", "{} is a grid-wide group: its sync() needs a cooperative launch, "
                             "which the vendor does not document for MUSA; split the kernel at "
                             "the barrier into two launches"),
    "ptxVersion": ("MP2107", "{} is the PTX version of a kernel; MUSA kernels are not PTX: "
                             "decide by __MUSA_ARCH__ or the device's properties instead"),
}
# Left as they are in MUSA ports of real projects that run: notes (one per file).
_NOTES = frozenset({"MP2012", "MP2013"})
# Qualified names whose last part is too common alone (cuda::pipeline, not any pipeline).
_QUALIFIED = {"pipeline": (b"cuda::", b"musa::"), "barrier": (b"cuda::", b"musa::"),
              "make_pipeline": (b"cuda::", b"musa::", b""),
              "memcpy_async": (b"cuda::", b"musa::", b"cg::", b"cooperative_groups::", b""),
              "texture": (b"",)}
_PREFIXES = re.compile(rb"SM(?:7[05]|8[069]|9[0-9]|1[0-2]\d)_[A-Za-z0-9_]+|"
                       rb"arch::Sm(?:7[05]|8[069]|9\d|1[0-2]\d)\b|(?:MU|CU)_FUNC_ATTRIBUTE_PTX_VERSION")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _qualifier(data: bytes, start: int) -> bytes:
    """``cuda::`` for ``cuda::pipeline`` at ``start`` (b"" when unqualified)."""
    m = re.search(rb"([A-Za-z_]\w*::)\s*$", data[max(0, start - 40):start])
    return m.group(1) if m else b""


_PREFIX_KEYS = ("SM70_", "SM75_", "SM80_", "SM86_", "SM89_", "SM90_", "SM100_", "SM120_", "arch::Sm",
                "_FUNC_ATTRIBUTE_PTX_VERSION")
KEYS = tuple(k.encode() for k in (*_NAMES, *_PREFIX_KEYS))
_PREFIX_SET = frozenset(k.encode() for k in _PREFIX_KEYS)
_KEY_SET = frozenset(KEYS)


def name_hazards(scan: Scan) -> Iterator[Hazard]:
    data = scan.out
    hits = scan.hits
    found = sorted((s, k) for k in _KEY_SET.intersection(hits) for s in hits[k])
    for s, key in found:
        if key in _PREFIX_SET:
            yield from _prefixed(data, s)
            continue
        e = s + len(key)
        if s and data[s - 1] in IDENT or (not data[e - 1:e] == b":" and e < len(data) and data[e] in IDENT):
            continue
        name = data[s:e].decode()
        check, message = _NAMES[name]
        if name in _QUALIFIED and _qualifier(data, s) not in _QUALIFIED[name]:
            continue
        if name == "texture" and not data[e:e + 20].lstrip().startswith(b"<"):
            continue
        if data[e - 1:e] != b":":
            q = _qualifier(data, s)
            if q and name in _QUALIFIED:
                s -= len(q)
        text = data[s:e].decode()
        yield Hazard(check, s, e, message.format(f"'{text}'"),
                     level="note" if check in _NOTES else "")


def _prefixed(data: bytes, pos: int) -> Iterator[Hazard]:
    """An ``SM80_...`` atom, an ``arch::Sm80`` tag or a PTX-version attribute at or
    around ``pos`` (where its key was found)."""
    s = pos
    while s > 0 and data[s - 1] in IDENT:
        s -= 1
    m = _PREFIXES.match(data, s) or _PREFIXES.match(data, pos)
    if m is None:
        return
    s = m.start()
    if s and data[s - 1] in IDENT:
        return
    text = m.group().decode()
    if "PTX_VERSION" in text:
        yield Hazard("MP2107", s, m.end(), f"'{text}' asks for a kernel's PTX version; MUSA "
                     "kernels are not PTX: decide by __MUSA_ARCH__ or the device's properties "
                     "instead")
    elif "TMA" in text or "CP_ASYNC" in text:
        yield Hazard(_ASYNC[0], s, m.end(), _ASYNC[1].format(f"'{text}'"))
    else:
        yield Hazard(_TENSOR[0], s, m.end(), _TENSOR[1].format(f"'{text}'"))
