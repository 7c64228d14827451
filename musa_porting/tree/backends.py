"""Names a tree's other backends share with its CUDA code: kept as they are.

A multi-backend project (a ``hip/`` or ``cpu/`` backend beside ``cuda/``) has names
that hold a CUDA word but are the backends' common interface: a check macro in a shared
header that the HIP code calls too, a limit both backends size their buffers by. Its
porters keep those names: they are not the CUDA backend's own. A name is kept so when
every file that defines it is outside the CUDA side (no CUDA word in its path, not a
``.cu``/``.cuh`` file) and a file of another backend (a folder or file named for it:
``hip/``, ``kernels_cpu.cpp``) uses or defines it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..analyze.symbols import FileSymbols
from ..rules.project import Site
from ..rules.vocabulary import Vocabulary

# The other backends' words, as folder and file names spell them.
OTHER_BACKENDS = ("cpu", "hip", "rocm", "sycl", "xpu", "mlu", "npu", "mps", "metal", "vulkan",
                  "opencl", "cann", "ascend", "tpu", "hpu", "dcu", "gcu", "neuron", "habana")
_WORDS = re.compile(r"[A-Za-z]+")
# A backend's word standing alone somewhere in a lowered path: what backend_of looks for
# part by part, asked of the whole path first (it is asked of every indexed file).
_ANY_BACKEND = re.compile(r"(?<![a-z])(?:" + "|".join(OTHER_BACKENDS) + r")(?![a-z])")
_CUDA_EXTENSIONS = (".cu", ".cuh")


def backend_of(rel: str) -> str | None:
    """The other backend a path is named for (``hip/k.cpp``, ``ops_cpu.cc``), or None."""
    low = rel.lower()
    if _ANY_BACKEND.search(low) is None:
        return None
    for part in low.split("/"):
        for w in _WORDS.findall(part.rsplit(".", 1)[0] if "." in part else part):
            if w in OTHER_BACKENDS:
                return w
    return None


def cuda_side(rel: str, vocabulary: Vocabulary) -> bool:
    """A ``.cu``/``.cuh`` file, or one whose path holds a CUDA word (``cuda/``, ``*_cuda.h``)."""
    if rel.endswith(_CUDA_EXTENSIONS):
        return True
    return any(vocabulary.contains_word(part.split(".", 1)[0]) for part in rel.split("/") if part)


def shared_names(index: Mapping[str, FileSymbols], defs: Mapping[str, list[Site]],
                 vocabulary: Vocabulary) -> dict[str, str]:
    """name -> why it is kept, for the names another backend shares (see above)."""
    users: dict[str, tuple[str, str]] = {}  # name -> (backend, file)
    for rel, fs in sorted(index.items()):
        backend = backend_of(rel)
        if backend is None:
            continue
        for name in [*fs.uses, *(d.name for d in fs.defs)]:
            users.setdefault(name, (backend, rel))
    out = {}
    for name, (backend, rel) in users.items():
        sites = defs.get(name)
        if sites and not any(cuda_side(s.file, vocabulary) or backend_of(s.file) for s in sites):
            out[name] = f"shared with the {backend} backend (used in {rel})"
    return out
