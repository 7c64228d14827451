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
from bisect import bisect_right
from collections.abc import Sequence, Set

from ...rules.model import Rule
from ...rules.vocabulary import Vocabulary
from ..engine import Matcher

MESSAGES_FAMILY = "messages"
_FILE_EXTENSION = re.compile(
    rb"\.(?:h|hh|hpp|hxx|cuh|cu|c|cc|cpp|cxx|mu|muh|inl|inc|py|so|a|o|dll|lib|txt|md|json|ya?ml|"
    rb"cmake|ptx|cubin|fatbin|sh|log|bin)\b", re.IGNORECASE)
# A path separator: "/", or a backslash that is not an escape (C:\cuda\bin, not \n).
_PLACE = re.compile(rb"/|\\(?![abfnrtv0-7x\"'\\?])")


def looks_like_file(token: bytes) -> bool:
    return _PLACE.search(token) is not None or _FILE_EXTENSION.search(token) is not None


# The message of a build without the CUDA backend ("Not compiled with GPU support", the
# #else branch of a WITH_CUDA gate in torch extensions): porters name their backend there.
_GPU_SUPPORT = re.compile(rb"\bwith(?:out)? (GPU) support\b")
_GPU = b"GPU"


class MessageWords:
    """The vocabulary's words as standalone words, with one rule per spelling (so the
    report counts them under the ``messages`` family)."""

    def __init__(self, vocabulary: Vocabulary):
        forms = vocabulary.forms(prose=True)  # not the whole-part words (cute, nvl)
        # The vendor word (NVIDIA) changes in strings, never in comments: a comment that
        # names NVIDIA is a copyright or a licence more often than prose about the GPU.
        self._not_in_comments = frozenset(
            f.encode() for w in vocabulary.words.values() if w.alias and w.enabled for f in w.forms())
        self.rules = {k.encode(): Rule(k, v, MESSAGES_FAMILY, "supported", "vocabulary")
                      for k, v in forms.items()}
        backend = forms.get("CUDA")
        if backend:
            self.rules[_GPU] = Rule("GPU", backend, MESSAGES_FAMILY, "supported",
                                    "messages of a build without the backend")
        # Every spelling is a whole word (letters and digits at both edges), so the
        # engine's word finder gives exactly the standalone occurrences.
        self._finder = Matcher({k: v for k, v in forms.items()}) if forms else None

    def __bool__(self) -> bool:
        return self._finder is not None

    def hits(self, data: bytes) -> list[tuple[int, int, bytes]]:
        """(start, end, word) of each standalone word, in code or not."""
        if self._finder is None:
            return []
        out = [(s, e, k.encode()) for s, e, k, _v, _r in self._finder.finditer(data)]
        if self._not_in_comments and out:
            # The vendor word counts in strings only: a hit with no quote before it on its
            # line (a copyright comment, most of them) is dropped before any lexing.
            out = [h for h in out if h[2] not in self._not_in_comments
                   or data.rfind(b'"', data.rfind(b"\n", 0, h[0]) + 1, h[0]) >= 0]
        if _GPU in self.rules and b" GPU support" in data:
            out += [(m.start(1), m.end(1), _GPU) for m in _GPU_SUPPORT.finditer(data)]
            out.sort()
        return out

    def edits(self, data: bytes, hits: Sequence[tuple[int, int, bytes]],
              typed: Sequence[tuple[int, int, str]], skip: Set[str],
              blocked: Sequence[tuple[int, int]]) -> list[tuple[int, int, bytes, Rule]]:
        """Edits (start, end, new bytes, rule) for the ``hits`` that stand in a comment or
        a string (``typed``, sorted) of a kind not skipped and outside ``blocked``. A
        string that names a file is left whole. In comments only the ``CUDA`` and
        ``Cuda`` spellings change: prose writes the word so, while a lower-case
        ``cuda`` in a comment is usually code (``// namespace cuda``); in strings every
        spelling does (``"cuda:0"``)."""
        starts = [s for s, _, _ in typed]
        bstarts = [s for s, _ in blocked]
        file_like: dict[int, bool] = {}
        out = []
        for hs, he, word in hits:
            i = bisect_right(starts, hs) - 1
            if i < 0 or hs >= typed[i][1]:
                continue  # code: the rules and project symbols decide it
            s, e, kind = typed[i]
            if kind in skip:
                continue
            b = bisect_right(bstarts, hs) - 1
            if b >= 0 and hs < blocked[b][1]:
                continue
            if kind == "comments":
                if word.islower() or word == _GPU or word in self._not_in_comments:
                    continue
            else:
                if s not in file_like:
                    file_like[s] = looks_like_file(data[s:e])
                if file_like[s]:
                    continue
            ts = max(data.rfind(b" ", s, hs), data.rfind(b"\t", s, hs), data.rfind(b"\n", s, hs)) + 1
            te = e
            for sep in (b" ", b"\t", b"\n"):
                j = data.find(sep, he, e)
                if 0 <= j < te:
                    te = j
            if looks_like_file(data[max(ts, s):te]):
                continue
            rule = self.rules[word]
            out.append((hs, he, rule.value.encode(), rule))  # type: ignore[union-attr]
        return out
