"""The tree's word for the vendor, from how its backend folders are named.

Trees that keep one folder per vendor side by side (``nvidia/``, ``ascend/``,
``cambricon/``, ``metax/``: InfiniCore's devices, FlagGems' ``runtime/backend/_nvidia``)
are ported into a folder named by the vendor, as their porters name it (InfiniCore's
``moore/``), not by the API (``musa/``), which is what a tree of API folders (``cuda/``,
``hip/``, ``sycl/``) gets. So when a folder named for NVIDIA has at least two siblings
named for other vendors, and more of them than named for APIs, the tree's vendor word
(what NVIDIA becomes in its names, folders and messages) is ``moore``; ``--vendor-word``
always wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..rules.vocabulary import split_parts

if TYPE_CHECKING:
    from .walk import Entry

DEFAULT_WORD = "musa"
VENDOR_STYLE_WORD = "moore"  # as InfiniCore names its Moore Threads devices (``moore/``)
MIN_VENDOR_SIBLINGS = 2
# Folder words that name a company or its accelerator line.
VENDORS = frozenset("""
amd intel ascend huawei cambricon metax iluvatar hygon kunlun kunlunxin enflame biren moore
mthreads sophgo tsingmicro qualcomm apple habana graphcore sambanova denglin hexaflake xilinx
""".split())
# Folder words that name a programming interface or a device kind (cpu is neither side's).
APIS = frozenset("""
cuda hip rocm musa sycl opencl metal vulkan mlu npu xpu maca corex bang cann gcu tops mps dcu
triton oneapi level_zero
""".split())


def _words(name: str) -> set[str]:
    return {p.lower() for p in split_parts(name) if p.isalpha()}


def tree_vendor_word(entries: Iterable[Entry]) -> str:
    """``moore`` when a folder named for NVIDIA sits among per-vendor folders, else
    ``musa``."""
    folders: dict[str, list[str]] = {}
    for e in entries:
        if e.kind == "dir":
            parent, _, name = e.rel.rpartition("/")
            folders.setdefault(parent, []).append(name)
    for names in folders.values():
        if not any("nvidia" in _words(n) for n in names):
            continue
        others = [_words(n) for n in names if "nvidia" not in _words(n)]
        vendors = sum(1 for w in others if w & VENDORS)
        apis = sum(1 for w in others if w & APIS and not w & VENDORS)
        if vendors >= MIN_VENDOR_SIBLINGS and vendors > apis:
            return VENDOR_STYLE_WORD
    return DEFAULT_WORD
