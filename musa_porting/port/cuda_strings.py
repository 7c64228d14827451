"""String literals that name CUDA things: a shared library (``"libcudart.so"``,
``dlopen("libcuda.so.1")``) or an environment variable (``getenv("CUDA_VISIBLE_DEVICES")``).

The rules rename identifiers, and messages rename a word standing alone; neither sees
these, and a port that leaves them loads the CUDA library or reads the CUDA variable at
run time. Where the MUSA name is attested (the brief's: ``-lmusart -lmusa -lmublas
-lmudnn -lmccl`` and the other MUSA libraries the build files use, ``MUSA_HOME``,
``MUSA_PATH``, ``MUSA_VISIBLE_DEVICES``, ``TORCH_MUSA_ARCH_LIST``) the string is ported;
the rest is reported (MP1009): a library with no known MUSA name (``libnvrtc.so``), a
library's CUDA version suffix kept (``libmusa.so.1``: check MUSA's soname), an
environment variable with a CUDA word whose MUSA name nobody attests
(``CUDA_LAUNCH_BLOCKING``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence

from ..rules.model import Rule
from ..rules.vocabulary import Vocabulary
from .build import names as bn
from .cxx import lexer

FAMILY = "strings"
CHECK = "MP1009"
# Environment variables whose MUSA name the brief attests.
ATTESTED_ENV = {**bn.HOME_VARS, "TORCH_CUDA_ARCH_LIST": "TORCH_MUSA_ARCH_LIST"}
_LIB = re.compile(r"(?P<dir>(?:[^/]*/)*)lib(?P<name>[A-Za-z0-9_-]+?)(?P<ext>\.so(?P<ver>(?:\.\d+)*)|\.a)")
_ENV = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# CUDA's own libraries (cudart, cublasLt, nvrtc, nvToolsExt, nvidia-ml...), not every
# name that starts like one (Ascend's cust_opapi).
_CUDA_LIB = re.compile(r"cuda\w*|cu(?:blas|fft|rand|sparse|solver|dnn|pti|file|tensor)\w*|nccl"
                       r"|nv(?:rtc|ToolsExt|jpeg|JitLink|ml|ptxcompiler|blas|tx)\w*|nvidia-ml")
# A plain string literal that may name a library or an environment variable. The
# look-behind (no prefix such as u8, no escaped quote) stands after the literal first
# byte, so that the regex engine skips ahead to each quote instead of trying every byte.
_CANDIDATE = re.compile(rb'"(?<![A-Za-z0-9_\\]")((?:[^"\\\n/ ]*/)*lib[A-Za-z0-9_-]+\.(?:so|a)'
                        rb'(?:\.[0-9]+)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"')


def library_file(body: str) -> str | None:
    """``libcudart.so`` -> ``libmusart.so`` (``libcuda.so.1`` -> ``libmusa.so.1``): a CUDA
    library's file name, not in a CUDA install folder, with its attested MUSA name."""
    m = _LIB.fullmatch(body)
    if m is None or "cuda" in m.group("dir").lower():
        return None
    musa = bn.library(m.group("name"))
    return None if musa is None else body[:m.start("name")] + musa + body[m.end("name"):]


class CudaStrings:
    """The string literals of a C/C++ file that name a CUDA library or variable."""

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self._rules: dict[tuple[str, str], Rule] = {}

    def _rule(self, old: str, new: str) -> Rule:
        key = (old, new)
        if key not in self._rules:
            self._rules[key] = Rule(old, new, FAMILY, "supported", "attested MUSA names")
        return self._rules[key]

    def judge(self, body: str) -> tuple[str | None, str | None]:
        """(new text, None) to port ``body``; (None, message) to report it; (None,
        None) when it names nothing of CUDA's."""
        m = _LIB.fullmatch(body)
        if m is not None:
            name, ver = m.group("name"), m.group("ver") or ""
            new = library_file(body)  # a version suffix stays: the ported text's check says so
            if new is not None:
                return new, None
            musa = bn.library(name)
            if musa is not None:
                return None, (f"'{body}' is CUDA's {name} library in a CUDA install folder: "
                              f"load lib{musa}.so from the MUSA install ($MUSA_HOME/lib)")
            if name in bn.LIBRARY_ADVICE or _CUDA_LIB.fullmatch(name):
                advice = bn.LIBRARY_ADVICE.get(name, "find the MUSA library in your MUSA SDK, or "
                                               "remove the dependency")
                return None, f"'{body}' names CUDA's {name} library, which has no MUSA name here: {advice}"
            if ver and name in bn.LIBRARIES.values():
                return None, (f"'{body}' keeps the version suffix '{ver}' of the CUDA library it "
                              "was: check the soname of the MUSA library")
            return None, None
        if _ENV.fullmatch(body):
            if body in ATTESTED_ENV:
                return ATTESTED_ENV[body], None
            new = self.vocabulary.rename(body)
            if new is not None:
                return None, (f"'{body}' looks like a CUDA environment variable (or name) and no "
                              f"MUSA name is attested for it: rename it (perhaps '{new}') where "
                              "the MUSA side reads another, or --keep it")
        return None, None

    def edits(self, data: bytes, lexed: lexer.Lexed,
              blocked: Sequence[tuple[int, int]]) -> list[tuple[int, int, bytes, Rule]]:
        """Fixed edits (start, end, new bytes, rule) of the literals to port."""
        out = []
        for s, e, body in self.bodies(data, lexed):
            if any(bs < e and s < be for bs, be in blocked):
                continue
            new, _ = self.judge(body)
            if new is not None and new != body:
                out.append((s, e, new.encode(), self._rule(body, new)))
        return out

    def leftovers(self, data: bytes, lexed: lexer.Lexed,
                  keep: frozenset[str] | set[str] = frozenset()) -> list[tuple[int, str, str]]:
        """(offset, text, message) of each literal of ``data`` (the ported text) that still
        names a CUDA library or variable."""
        out = []
        for s, _e, body in self.bodies(data, lexed):
            if body in keep:
                continue
            _, message = self.judge(body)
            if message is not None:
                out.append((s, body, message))
        return out

    def bodies(self, data: bytes, lexed: lexer.Lexed) -> Iterator[tuple[int, int, str]]:
        """(start, end, text) of each string literal's body that names something: found by
        one regex over the file, and the file is lexed (to tell a string from a comment)
        only when one is."""
        hits = []
        for m in _CANDIDATE.finditer(data):
            body = m.group(1).decode("latin-1")
            if self.judge(body) != (None, None):
                hits.append((m.start(1), m.end(1), body))
        if not hits:
            return
        strings = [(s, e) for s, e, kind in lexed.typed if kind == "strings"]
        starts = [s for s, _ in strings]
        for s, e, body in hits:
            i = bisect_right(starts, s) - 1
            if i >= 0 and strings[i][0] < s and e < strings[i][1]:
                yield s, e, body
