"""Messages: a vocabulary word standing alone in a comment or a string literal becomes
its MUSA word (``"CUDA error: %s"`` -> ``"MUSA error: %s"``, ``// launch the CUDA
kernel`` -> ``// launch the MUSA kernel``).

Only whole words change, never part of a name (``CUDA_HOME`` is a name: the rules and
project symbols decide it). A word inside something that names a file or a place is
left alone: ``#include`` targets, a string that is a path or a file name, and in any
comment or string a token with ``/``, ``\\``, ``://`` or a file extension
(``https://docs.nvidia.com/cuda/...``, ``see kernels/cuda/gemm.cu``, ``cuda.h``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..rules.model import Rule
from ..rules.vocabulary import Vocabulary

MESSAGES_FAMILY = "messages"
_FILE_EXTENSION = re.compile(
    rb"\.(?:h|hh|hpp|hxx|cuh|cu|c|cc|cpp|cxx|mu|muh|inl|inc|py|so|a|o|dll|lib|txt|md|json|ya?ml|"
    rb"cmake|ptx|cubin|fatbin|sh|log|bin)\b", re.IGNORECASE)
# A path separator: "/", or a backslash that is not an escape (C:\cuda\bin, not \n).
_PLACE = re.compile(rb"/|\\(?![abfnrtv0-7x\"'\\?])")


def _looks_like_file(token: bytes) -> bool:
    return _PLACE.search(token) is not None or _FILE_EXTENSION.search(token) is not None


class MessageWords:
    """The vocabulary's words as standalone words, with one rule per spelling (so the
    report counts them under the ``messages`` family)."""

    def __init__(self, vocabulary: Vocabulary):
        forms = vocabulary.forms()
        self.rules = {k: Rule(k, v, MESSAGES_FAMILY, "supported", "vocabulary")
                      for k, v in forms.items()}
        alts = b"|".join(re.escape(k.encode()) for k in sorted(forms, key=len, reverse=True))
        self._re = re.compile(rb"(?<![A-Za-z0-9_])(?:" + alts + rb")(?![A-Za-z0-9_])") if forms else None

    def __bool__(self) -> bool:
        return self._re is not None

    def present(self, data: bytes) -> bool:
        return self._re is not None and self._re.search(data) is not None

    def edits(self, data: bytes, spans: Sequence[tuple[int, int]], strings: Sequence[tuple[int, int]]
              ) -> list[tuple[int, int, bytes, Rule]]:
        """Edits (start, end, new bytes, rule) for the words in ``spans`` (comments and
        strings that may change). ``strings`` are the string literals among them: one
        that names a file is left whole. In comments only ``CUDA`` and ``Cuda`` spellings
        change: prose writes the word so, while a lower-case ``cuda`` in a comment is
        usually code (``// namespace cuda``); in strings every spelling does (``"cuda:0"``)."""
        if self._re is None:
            return []
        string_starts = {s for s, _ in strings}
        out = []
        for s, e in spans:
            in_string = s in string_starts
            if in_string and _looks_like_file(data[s:e]):
                continue
            for m in self._re.finditer(data, s, e):
                if not in_string and m.group().islower():
                    continue
                ts = max(data.rfind(b" ", s, m.start()), data.rfind(b"\t", s, m.start()),
                         data.rfind(b"\n", s, m.start())) + 1
                te = len(data)
                for sep in (b" ", b"\t", b"\n"):
                    i = data.find(sep, m.end(), e)
                    if 0 <= i < te:
                        te = i
                te = min(te, e)
                if _looks_like_file(data[max(ts, s):te]):
                    continue
                rule = self.rules[m.group().decode("ascii")]
                out.append((m.start(), m.end(), rule.value.encode(), rule))  # type: ignore[union-attr]
        return out
