"""NVIDIA arch numbers in sources become MUSA's: ``__CUDA_ARCH__ >= 800`` ->
``__MUSA_ARCH__ >= 220``.

The tables rename ``__CUDA_ARCH__`` to ``__MUSA_ARCH__``, whose values are MUSA's (210,
220, 310 for mp_21, mp_22, mp_31): a CUDA threshold kept beside it silently changes
meaning (``>= 800`` is false on every MUSA GPU). musa-port's own table says what a CUDA
threshold stands for (Moore Threads' own code, MooreThreads/mutlass and torch_musa,
compares ``__MUSA_ARCH__`` with 220 and 310): ``>= 800`` in CUDA terms is ``>= 220``,
``>= 900`` is ``>= 310``; below 800 every MUSA arch qualifies (210, mp_21, the first).
Each number compared with the macro in code is rewritten so, and each choice is reported
(MP2008), as nvcc's ``-arch`` is in build files (MP3104): sm numbers do not map 1:1.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ...rules.model import Rule
from . import lexer

FAMILY = "arch"
# __MUSA_ARCH__'s values (mp_21 -> 210, mp_22 -> 220, mp_31 -> 310), by the
# CUDA threshold they stand for.
MUSA_VALUES = (210, 220, 310)
# Orderings only: an equality names one CUDA arch, which no MUSA arch is (MP2003 says so).
_OP = rb"\s*(?:>=|<=|>(?!>)|<(?!<))\s*"
_COMPARE = re.compile(rb"__CUDA_ARCH__(" + _OP + rb")(\d+)\b|\b(\d+)(" + _OP + rb")__CUDA_ARCH__")
ARCH_NOTE = ("mp_21 is MTT S80/S3000 (210), mp_22 MTT S4000 (220), mp_31 MTT S5000 (310): check "
             "that the branch suits the MUSA GPUs you build for")


def musa_value(cuda: int) -> int:
    """The MUSA arch value a CUDA arch threshold stands for (musa-port's own table)."""
    if cuda >= 900:
        return 310
    if cuda >= 800:
        return 220
    return 210


def threshold_edits(data: bytes, lexed: lexer.Lexed) -> list[tuple[int, int, bytes, Rule]]:
    """Fixed edits of the CUDA arch numbers compared with ``__CUDA_ARCH__`` in code."""
    if b"__CUDA_ARCH__" not in data:
        return []
    spans = lexed.typed  # in order and disjoint: the one that may hold a match is a bisect away
    starts = [s for s, _, _ in spans]
    out = []
    for m in _COMPARE.finditer(data):
        g = 2 if m.group(2) else 3
        s, e = m.start(g), m.end(g)
        value = int(m.group(g))
        i = bisect_right(starts, m.start()) - 1
        if value < 100 or (i >= 0 and m.start() < spans[i][1]):
            continue  # not an arch number (__CUDA_ARCH__ > 0), or not code
        new = str(musa_value(value))
        rule = Rule(m.group(g).decode(), new, FAMILY, "supported",
                    "musa-port's own table: __CUDA_ARCH__ thresholds as __MUSA_ARCH__ values",
                    note=f"CUDA arch {value} is MUSA arch {new} here")
        out.append((s, e, new.encode(), rule))
    return out
