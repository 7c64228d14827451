"""Families MUSA has no counterpart for (MP2109): NVSHMEM and its IBGDA transport,
GPUDirect Storage (cuFile) and GPUDirect RDMA's kernel interface (``nvidia_p2p_*``).

No table of the vendor's and no name torch_musa's sources use names any of them, so a
call is a residual that cannot compile: an error where it is called or included, with
the family and what to do. The residual scan (``residuals.RESIDUAL_RE``) finds their
names, as it finds every CUDA-looking one.
"""

from __future__ import annotations

import re

# (pattern of the name, the family, what to do)
_FAMILIES = (
    (re.compile(r"^(?:nvshmemi?x?|NVSHMEMI?X?)_?(?:[A-Za-z0-9_]*_)?(?:ibgda|IBGDA)|^(?:ibgda|IBGDA)"),
     "NVSHMEM's IBGDA transport", "take it out of the MUSA build (#ifndef __MUSACC__); MCCL's "
     "point-to-point calls (mcclSend, mcclRecv) stand for its puts and gets"),
    (re.compile(r"^(?:nvshmem|NVSHMEM)"),
     "NVSHMEM", "take it out of the MUSA build (#ifndef __MUSACC__), or replace its puts, gets "
     "and collectives by MCCL's (mcclSend, mcclRecv, mcclAllGather)"),
    (re.compile(r"^(?:cuFile|CUfile|CU_FILE_)"),
     "GPUDirect Storage (cuFile)", "read the file on the host and copy it with musaMemcpy"),
    (re.compile(r"^nvidia_p2p_"),
     "GPUDirect RDMA's kernel interface", "register the memory through MCCL, or stage it in "
     "host memory"),
)
_HEADER_WORDS = ("nvshmem", "cufile", "nv-p2p")  # nvshmem.h, nvshmemx.h, cufile.h, nv-p2p.h
_HEADERS = re.compile(r"(?:^|/)(?:nvshmem\w*|cufile|nv-p2p)\.h$")
_HINT = re.compile(r"nvshmem|NVSHMEM|ibgda|IBGDA|cuFile|CUfile|CU_FILE_|nvidia_p2p_")


def family(name: str) -> tuple[str, str] | None:
    """(family, what to do) of a name MUSA has no counterpart for, if it is one."""
    if _HINT.match(name) is None and "ibgda" not in name and "IBGDA" not in name:
        return None
    for pattern, fam, instead in _FAMILIES:
        if pattern.search(name):
            return fam, instead
    return None


def message(name: str, found: tuple[str, str]) -> str:
    fam, instead = found
    return f"'{name}' is {fam}, which MUSA has no counterpart for: {instead}"


def header(target: str) -> str | None:
    """The message for an include of such a family's header, if it is one."""
    if not any(w in target for w in _HEADER_WORDS) or _HEADERS.search(target) is None:
        return None  # (asked of every include of every file: the words first)
    fam, instead = family(target.rsplit("/", 1)[-1].replace(".h", "")) or ("NVSHMEM", "")
    return f"#include of '{target}', a header of {fam}, which MUSA has no counterpart for: {instead}"
