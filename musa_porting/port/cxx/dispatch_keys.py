"""The dispatch key a ``TORCH_LIBRARY_IMPL`` registration names, ported by the tables.

``TORCH_LIBRARY_IMPL(ns, CUDA, m)`` names the key as a bare macro argument: the macro
pastes it into ``c10::DispatchKey::CUDA``. torch_musa registers its kernels under
PrivateUse1 (there is no ``DispatchKey::MUSA``), so the argument changes as the tables
port the qualified key (``DispatchKey::AutogradCUDA`` -> ``DispatchKey::AutogradPrivateUse1``),
not by the name pattern (``CUDA`` -> ``MUSA`` would name no key). The tables decide: a
run whose rules have no entry for the key (torch_musa's own tables, a user rule deleting
it) leaves the argument alone, and the edit carries the table's rule for the report.
Only the macro's second argument in code changes; a tree's own macro of the same shape
(``REGISTER_KERNEL(ns, CUDA, fn)``) is the tree's to decide.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping

from . import lexer

# torch/library.h: TORCH_LIBRARY_IMPL(ns, k, m) and _TORCH_LIBRARY_IMPL(ns, k, m, uid).
_IMPL = re.compile(rb"\b_?TORCH_LIBRARY_IMPL\s*\(\s*\w+\s*,\s*(\w*CUDA\w*)\s*,")
_QUALIFIER = "DispatchKey::"


def registration_edits(data: bytes, lexed: lexer.Lexed,
                       rules: Mapping[str, object]) -> list[tuple[int, int, bytes, object]]:
    """Fixed edits of the CUDA dispatch keys ``TORCH_LIBRARY_IMPL`` registers under."""
    if b"TORCH_LIBRARY_IMPL" not in data:
        return []
    spans = lexed.typed
    starts = [s for s, _, _ in spans]
    out = []
    for m in _IMPL.finditer(data):
        rule = rules.get(_QUALIFIER + m.group(1).decode())
        value = getattr(rule, "value", None)
        if not value or not value.startswith(_QUALIFIER):
            continue
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < spans[i][1]:
            continue  # in a comment or a string: prose, not a registration
        out.append((m.start(1), m.end(1), value[len(_QUALIFIER):].encode(), rule))
    return out
