"""The ``pytorch`` family: the PyTorch C++ API a CUDA extension uses, from the torch
wheel's ``ATen/cuda``, ``c10/cuda`` and ``torch/csrc/cuda`` headers.

Every name those headers declare that carries a CUDA word (``CUDACachingAllocator``,
``getCurrentCUDABlasHandle``, ``C10_CUDA_KERNEL_LAUNCH_CHECK``, ``CUDA_NUM_THREADS``)
becomes an entry with the word renamed by the vocabulary; it is ``supported`` only
where torch_musa's own C++ uses the MUSA name (``attested_names.tsv``), else
``unknown``. Every header of those folders maps to the torch_musa header that exists
(``headers.txt``), with the include's own delimiter: ``<ATen/cuda/CUDAContext.h>`` ->
``<torch_musa/csrc/aten/musa/MUSAContext.h>``; a header torch_musa does not have in
its sources is the one its build ports from PyTorch's (``<ATen/cuda/CUDAApplyUtils.cuh>``
-> ``<ATen/musa/MUSAApplyUtils.muh>``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from ..rules.vocabulary import Vocabulary
from . import irregular
from .headers import TORCH_DIRS, HeaderSet
from .model import Item

TORCH_PATTERNS = tuple(d + "*" for d in TORCH_DIRS)
ATTESTED = "the MUSA name is used by torch_musa's sources (attested_names.tsv)"
UNATTESTED = "the MUSA name is not used by torch_musa's sources; not verified"
# Where torch_musa keeps its counterpart of each torch folder.
ANALOG_DIRS = {"ATen/cuda/": "torch_musa/csrc/aten/musa/", "c10/cuda/": "torch_musa/csrc/core/",
               "torch/csrc/cuda/": "torch_musa/csrc/core/"}
TORCH_MUSA_NOTE = "torch_musa header (its include folder is on the path of MUSAExtension builds)"
PORTED_NOTE = ("the header torch_musa's build ports from PyTorch's (its generated ATen/musa "
               "include folder)")


def torch_version(hs: HeaderSet) -> str:
    """``torch 2.13.0`` (a wheel's local version such as ``+cpu`` left out)."""
    origins = sorted({o.split("+")[0] for rel in hs.match(TORCH_PATTERNS) for o in hs.origins_of(rel)})
    return ", ".join(origins)


def torch_names(hs: HeaderSet, vocab: Vocabulary, attested: frozenset[str],
                owned: set[str]) -> dict[str, Item]:
    """Every name with a CUDA word the torch headers declare, not already a key."""
    version = torch_version(hs)
    items: dict[str, Item] = {}
    for rel in hs.match(TORCH_PATTERNS):
        decl = hs.declared(rel)
        for kind, names in (("function", decl.functions), ("type", decl.types),
                            ("constant", decl.constants), ("macro", decl.macros),
                            ("type", decl.namespaces), ("constant", decl.variables)):
            for name in sorted(names):
                if name in owned or name in items or name in irregular.FORBIDDEN_KEYS:
                    continue
                musa = vocab.rename(name)
                if musa is None:
                    continue
                known = musa in attested
                items[name] = Item(musa, "supported" if known else "unknown",
                                   f"torch header {rel}", version,
                                   "" if known else UNATTESTED, kind=kind)
    return dict(sorted(items.items()))


def _ported_base(base: str, vocab: Vocabulary) -> str:
    stem, dot, ext = base.partition(".")
    return (vocab.rename(stem) or stem) + dot + ("muh" if ext == "cuh" else ext)


def torch_musa_header(rel: str, vocab: Vocabulary, musa_headers: Iterable[str]
                      ) -> tuple[str, bool] | None:
    """The torch_musa header (from ``headers.txt``) standing for torch's ``rel``, and
    whether it is the one in torch_musa's own folder of the same role; None if none.

    Same file name after renaming (``CUDAGuard.h`` -> ``MUSAGuard.h``, ``.cuh`` ->
    ``.muh``), else the MUSA-prefixed name torch_musa gives its own versions
    (``DeviceUtils.cuh`` -> ``MUSADeviceUtils.muh``). Several candidates: the one in the
    folder of the same role (``ATen/cuda`` -> ``aten/musa``), else none.
    """
    top = next(d for d in TORCH_DIRS if rel.startswith(d))
    sub = rel[len(top):]
    base = _ported_base(posixpath.basename(sub), vocab)
    analog = ANALOG_DIRS[top] + posixpath.dirname(sub)
    headers = list(musa_headers)
    for wanted in (base, "MUSA" + base):
        found = [h for h in headers if posixpath.basename(h) == wanted]
        same_role = [h for h in found if posixpath.dirname(h) == analog.rstrip("/")]
        if len(found) == 1:
            return found[0], bool(same_role)
        if same_role:
            return same_role[0], True
    return None


def torch_headers(hs: HeaderSet, vocab: Vocabulary, attested: frozenset[str],
                  musa_headers: Iterable[str]) -> dict[str, Item]:
    """Every header of the torch folders, as ``<path>`` and ``"path"``."""
    version = torch_version(hs)
    musa_headers = tuple(musa_headers)
    items: dict[str, Item] = {}
    for rel in hs.match(TORCH_PATTERNS):
        source = f"torch header {rel}"
        hit = torch_musa_header(rel, vocab, musa_headers)
        if hit is not None:
            # The delimiter the include used is kept: <ATen/cuda/CUDAContext.h> ->
            # <torch_musa/csrc/aten/musa/MUSAContext.h>, as porters write it.
            for left, right in (("<", ">"), ('"', '"')):
                items[left + rel + right] = Item(left + hit[0] + right, "supported", source, version,
                                                 TORCH_MUSA_NOTE, kind="header")
            continue
        top = next(d for d in TORCH_DIRS if rel.startswith(d))
        sub = rel[len(top):]
        ported = top.replace("/cuda/", "/musa/") + posixpath.join(
            posixpath.dirname(sub), _ported_base(posixpath.basename(sub), vocab))
        stem = posixpath.basename(ported).partition(".")[0]
        known = stem in attested and stem != posixpath.basename(sub).partition(".")[0]
        note = f"{PORTED_NOTE}; " + (ATTESTED if known else UNATTESTED)
        for left, right in (("<", ">"), ('"', '"')):
            items[left + rel + right] = Item(left + ported + right, "supported" if known else "unknown",
                                             source, version, note, kind="header")
    return dict(sorted(items.items()))
