"""The ``mutlass`` family: CUTLASS and CuTe code ported to MUTLASS and MuTe.

MUTLASS is Moore Threads' CUTLASS (public repository MooreThreads/mutlass): the
library keeps CUTLASS's layout under its own name, so the namespaces, the include
folders and the macro prefixes change and the rest of each name stays
(``cutlass::gemm::device::Gemm`` -> ``mutlass::gemm::device::Gemm``,
``<cute/tensor.hpp>`` -> ``<mute/tensor.hpp>``, ``CUTLASS_HOST_DEVICE`` ->
``MUTLASS_HOST_DEVICE``). The keys are those prefixes, never the bare words: a table
key ``cutlass`` would also rewrite URLs and paths (``github.com/NVIDIA/cutlass``), and
``cute`` prose. Names the project builds from the words (``CutlassGemm``,
``cutlass_kernel``) are project symbols: the vocabulary has CUTLASS and CUTE.

Not covered: arch-specific CUTLASS/CuTe code (SM80 ``cp.async``, SM90 TMA,
``warpgroup_*``, GMMA atoms) keeps its names and has no 1:1 MUSA counterpart: hand
work.
"""

from __future__ import annotations

from .irregular import Name
from .model import Item, Table

FAMILY = "mutlass"
SOURCE = "MooreThreads/mutlass: MUTLASS is Moore Threads' CUTLASS, MuTe its CuTe"

NAMES = (
    Name("cutlass::", "mutlass::", SOURCE, kind="name"),
    Name("cute::", "mute::", SOURCE, kind="name"),
    # A namespace opened or used by name (specialisations, using-directives).
    Name("namespace cutlass", "namespace mutlass", SOURCE, kind="name"),
    Name("namespace cute", "namespace mute", SOURCE, kind="name"),
    # The include folders, as <...> and "..." (any header under them).
    *(Name(f"{q}{lib}/", f"{q}{mu}/", SOURCE, kind="header")
      for lib, mu in (("cutlass", "mutlass"), ("cute", "mute")) for q in "<\""),
    # The one header named after the library (a whole include target wins over the
    # folder's key): named alike in MUTLASS, as cutlass -> mutlass.
    *(Name(f"{o}cutlass/cutlass.h{c}", f"{o}mutlass/mutlass.h{c}", SOURCE, status="unknown",
           note="named like the library, as cutlass -> mutlass; not verified", kind="header")
      for o, c in ("<>", '""')),
    # Prefixes: the key ends with "_", so it matches the start of every such macro.
    Name("CUTLASS_", "MUTLASS_", SOURCE, kind="macro"),
    Name("CUTE_", "MUTE_", SOURCE, kind="macro"),
)


def build_mutlass() -> Table:
    """``mapping/mutlass.json``: the curated names above (no headers are read)."""
    entries = {n.cuda: Item(n.musa, n.status, f"curated: {n.source}", None, n.note, n.primary,
                            n.kind) for n in NAMES}
    return Table(FAMILY, "MUTLASS (Moore Threads' CUTLASS) and MuTe (CuTe)", "supported",
                 "MooreThreads/mutlass: MUTLASS",
                 dict(sorted(entries.items())))
