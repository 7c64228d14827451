"""nvcc's own pragmas left in a ported file (MP1015): ``#pragma nv_diag_suppress 177``,
its older ``diag_suppress`` spelling, ``hd_warning_disable``, ``nv_exec_check_disable``.

They name nvcc's diagnostics by nvcc's numbers; another compiler ignores them (with an
unknown-pragma warning at most), so the warnings they silenced come back and the
host/device checks they switched off are on. Human porters drop them, or the
``#if defined(__NVCC__)`` around them (which the port made ``__MUSACC__``): one finding
at each pragma, within a line of that guard.

Patterns from public CUDA code: Eigen's and Thrust's ``hd_warning_disable`` /
``nv_exec_check_disable`` before host-device templates, PyTorch's and CUTLASS's
``nv_diag_suppress`` around code nvcc warns about.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .scan import Hazard, Scan

# nvcc's pragmas (CUDA Compiler Driver NVCC documentation, "#pragma nv_diag_*"; the
# undocumented two that Thrust and Eigen use).
_PRAGMA = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+((?:nv_)?diag_(?:suppress|default|warning|error|once)"
                     rb"|nv_diagnostic|hd_warning_disable|nv_exec_check_disable)\b", re.M)
# The words of those pragmas, which are no CUDA API for MP1002 to report.
WORDS = frozenset(("nv_diag_suppress", "nv_diag_default", "nv_diag_warning", "nv_diag_error",
                   "nv_diag_once", "nv_diagnostic", "nv_exec_check_disable"))


def pragma_hazards(scan: Scan) -> Iterator[Hazard]:
    # Most files have a pragma (``#pragma once``); few have nvcc's. The code with comments
    # blanked (``scan.code``, 40% of this check's cost when asked of every file) is built
    # only for a file whose text holds one of them.
    if _PRAGMA.search(scan.out) is None:
        return
    for m in _PRAGMA.finditer(scan.code):
        name = m.group(1).decode()
        yield Hazard("MP1015", m.start(1), m.end(1), f"'#pragma {name}' is nvcc's own: MUSA's "
                     "compiler is not nvcc and ignores it (what it silenced or switched off "
                     "is back); drop it from the MUSA build, or write the compiler's own "
                     "(#pragma clang diagnostic)", device=False)
