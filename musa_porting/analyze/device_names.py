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
_HOPPER = ("MP2015", "{} is a Hopper helper of warp-specialized kernels (CUTLASS 3); MUSA does "
                     "not run them: write the path as a plain one, or use MUTLASS's MUSA kernels")
_PARTITION = ("MP2113", "{} is a cooperative-groups partition or collective built from 32-bit "
                        "lane masks; the vendor's tables name no cooperative-groups API: write it "
                        "out with 64-bit ballots or shared memory, over tiles of a fixed size")

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
    **dict.fromkeys(("elect_one_sync", "canonical_warp_idx_sync", "canonical_warp_group_idx",
                     "canonical_warp_idx", "canonical_lane_idx"), _HOPPER),
    **dict.fromkeys(("labeled_partition", "binary_partition", "coalesced_threads", "reduce",
                     "inclusive_scan", "exclusive_scan", "tiled_partition"), _PARTITION),
    "__managed__": ("MP2106", "{} puts a variable in managed memory: MUSA names managed memory, "
                              "but on-demand page migration depends on the device; keep it in "
                              "device memory and copy it where the host reads it"),
}
# Left as they are in MUSA ports of real projects that run: notes (one per file).
_NOTES = frozenset({"MP2012", "MP2013"})
# Qualified names whose last part is too common alone (cuda::pipeline, not any pipeline).
_QUALIFIED = {"pipeline": (b"cuda::", b"musa::"), "barrier": (b"cuda::", b"musa::"),
              "make_pipeline": (b"cuda::", b"musa::", b""),
              "memcpy_async": (b"cuda::", b"musa::", b"cg::", b"cooperative_groups::", b""),
              "texture": (b"",),
              **dict.fromkeys(("reduce", "inclusive_scan", "exclusive_scan"),
                              (b"cg::", b"cooperative_groups::"))}
_PREFIXES = re.compile(rb"SM(?:7[05]|8[069]|9[0-9]|1[0-2]\d)_[A-Za-z0-9_]+|"
                       rb"arch::Sm(?:7[05]|8[069]|9\d|1[0-2]\d)\b|(?:MU|CU)_FUNC_ATTRIBUTE_PTX_VERSION")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _qualifier(data: bytes, start: int) -> bytes:
    """``cuda::`` for ``cuda::pipeline`` at ``start`` (b"" when unqualified)."""
    m = re.search(rb"([A-Za-z_]\w*::)\s*$", data[max(0, start - 40):start])
    return m.group(1) if m else b""


_PREFIX_KEYS = ("SM70_", "SM75_", "SM80_", "SM86_", "SM89_", "SM90_", "SM100_", "SM120_", "arch::Sm",
                "_FUNC_ATTRIBUTE_PTX_VERSION")
# An arch tag of a tuning table: the identifier sm80 (or Sm80 outside cutlass::arch::).
_TAG_KEYS = tuple(f"{s}{d}".encode() for s in ("sm", "Sm") for d in "123456789")
_TAG = re.compile(rb"[Ss]m[1-9]\d{1,2}(?![A-Za-z0-9_])")
KEYS = tuple(k.encode() for k in (*_NAMES, *_PREFIX_KEYS)) + _TAG_KEYS
_PREFIX_SET = frozenset(k.encode() for k in _PREFIX_KEYS)
_TAG_SET = frozenset(_TAG_KEYS)
_KEY_SET = frozenset(KEYS)


def name_hazards(scan: Scan) -> Iterator[Hazard]:
    data = scan.out
    hits = scan.hits
    found = sorted((s, k) for k in _KEY_SET.intersection(hits) for s in hits[k])
    for s, key in found:
        if key in _PREFIX_SET:
            yield from _prefixed(data, s)
            continue
        if key in _TAG_SET:
            yield from _arch_tag(data, s)
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
        if name == "tiled_partition" and not data[e:e + 20].lstrip().startswith(b"("):
            continue  # tiled_partition<32>: a tile of a fixed size (MP2002)
        if data[e - 1:e] != b":":
            q = _qualifier(data, s)
            if q and name in _QUALIFIED:
                s -= len(q)
        text = data[s:e].decode()
        yield Hazard(check, s, e, message.format(f"'{text}'"),
                     level="note" if check in _NOTES else "")


def _arch_tag(data: bytes, s: int) -> Iterator[Hazard]:
    """``sm80`` as a whole identifier: a tuning policy or table keyed on an NVIDIA arch
    (``Policy<sm80>``, ``typelist<sm60, sm80>``); not ``cutlass::arch::Sm80`` (MP2010)."""
    m = _TAG.match(data, s)
    if m is None or s and data[s - 1] in IDENT or data[max(0, s - 6):s] == b"arch::":
        return
    tag = m.group().decode()
    yield Hazard("MP2015", s, m.end(), f"'{tag}' keys code on NVIDIA's sm_{tag[2:]}; no MUSA arch "
                 "is an sm number, so a MUSA build takes a fallback tuned for another GPU: add "
                 "an entry for the MUSA arches (mp_21/mp_22: 128-lane warps) and select it "
                 "under __MUSACC__", device=False)


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
