"""Where the deprecated spellings of the PyTorch C++ API change (the ``legacy_torch``
table family): in files of the THC era only.

THC's names (``THCudaCheck``, ``THCCeilDiv``, ``THCState``) are gone from PyTorch and
change everywhere. ``AT_ASSERTM`` and ``Tensor::data<T>()`` still compile, deprecated:
porters modernise them in the files they rework for THC, and leave them in code that
needed no change (a CPU op, a kernel written for PyTorch 1.x's later API). So those
two change only in a file that also calls THC, outside its ``#include`` lines.
"""

from __future__ import annotations

import re

LEGACY_FAMILY = "legacy_torch"
# A THC name in code: a line that is not a preprocessor directive and names one.
_THC_ERA = re.compile(rb"^(?![ \t]*#).*?\bTH(?:C[A-Z]|Cuda|ArgCheck|AssertMsg)\w*", re.M)


def deprecated_only(key: str) -> bool:
    """A spelling that still compiles (deprecated), changed in THC-era files only."""
    return key == "AT_ASSERTM" or key.startswith((".data<", "->data<"))


def may_be_deprecated(data: bytes) -> bool:
    """Whether a file holds a deprecated spelling at all (most do not: no gate then)."""
    return b"AT_ASSERTM" in data or b"data<" in data


class LegacyGate:
    """``accept(start, end, rule)`` for the engine: the THC-era test, made once a file."""

    def __init__(self, data: bytes):
        self.data = data
        self._era: bool | None = None

    def accept(self, start: int, end: int, rule: object) -> bool:
        if getattr(rule, "family", None) != LEGACY_FAMILY or not deprecated_only(rule.key):  # type: ignore[attr-defined]
            return True
        if self._era is None:
            self._era = _THC_ERA.search(self.data) is not None
        return self._era
