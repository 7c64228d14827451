"""File names after porting: which files are C/C++/CUDA sources, and ``.cu`` -> ``.mu``.

Kept apart from the tree walk because include resolution needs the same renames:
``#include "k.cuh"`` must name the file the tree port writes.
"""

from __future__ import annotations

import os

DEFAULT_SOURCE_EXTENSIONS = (
    ".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx",
    ".inl", ".inc", ".ipp", ".tpp", ".mu", ".muh",
)
RENAMES = {".cu": ".mu", ".cuh": ".muh"}
REVERSE_RENAMES = {".mu": ".cu", ".muh": ".cuh"}


def ported_name(rel: str, renames: dict[str, str] = RENAMES) -> str:
    """``a/b.cu`` -> ``a/b.mu``; other names are kept."""
    root, ext = os.path.splitext(rel)
    new = renames.get(ext)
    return root + new if new else rel
