"""Where the tree's own renamed names change in a file: code, strings and comments.

In code, every use changes (a name that is exactly a vendor word only where it is the
tree's: ``vendor_words.py``). In a string literal the name changes where it stands as a
whole word: the string is the name (``"roi_pool_cuda"`` passed to a dispatcher, an op
schema ``"gemm_cuda(Tensor x) -> Tensor"``, ``"mylib::gemm_cuda"``) or spells it in a
message (``"cuda_stream_pool: could not create stream"``), as porters keep messages in
step with the names they print. A name inside something that names a file or a place
(``"kernels/gemm_cuda.cu"``, a URL) stays: the file's name is the path renames' to
decide. In comments the tree's names change too, but a name that is just a word
(``cuda``) only as ``// namespace cuda``, since a lower-case ``cuda`` in prose is
rarely the tree's namespace.
"""

from __future__ import annotations

from bisect import bisect_right

from ...rules.project import PROJECT_FAMILY, WORD_ORIGIN
from . import lexer
from .messages import looks_like_file
from .vendor_words import names_the_tree, token_before

_TOKEN_EDGES = b" \t\r\n\"'"


class ProjectNames:
    """``accept(start, end, rule)`` for the engine: may this project-symbol match change?"""

    def __init__(self, lexed: lexer.Lexed):
        self.data = lexed.data
        self._lexed = lexed
        self._spans: list[tuple[int, int, str]] | None = None
        self._starts: list[int] = []

    def accept(self, start: int, end: int, rule: object) -> bool:
        if getattr(rule, "family", None) != PROJECT_FAMILY:
            return True
        word = getattr(rule, "origin", "") == WORD_ORIGIN
        if self._spans is None:
            self._spans = self._lexed.typed
            self._starts = [s for s, _, _ in self._spans]
        i = bisect_right(self._starts, start) - 1
        if i < 0 or start >= self._spans[i][1]:
            return not word or names_the_tree(self.data, start, end)
        s, e, kind = self._spans[i]
        if kind == "comments":
            return not word or token_before(self.data, start)[0] == b"namespace"
        q = self.data.find(b'"', s, e)
        if q < 0:
            return False  # a char literal
        if word:
            # "cuda" itself: the string is the name (the messages' words do the rest).
            inner_end = self.data.rfind(b'"', q + 1, e)
            return self.data[q + 1:start] == b"" and end == inner_end
        return not looks_like_file(self._token(start, end, q + 1, e))

    def _token(self, start: int, end: int, lo: int, hi: int) -> bytes:
        """The whitespace-delimited token of the string around the match."""
        ts = max(self.data.rfind(bytes((c,)), lo, start) for c in _TOKEN_EDGES) + 1
        ts = max(ts, lo)
        te = hi
        for c in _TOKEN_EDGES:
            j = self.data.find(bytes((c,)), end, hi)
            if 0 <= j < te:
                te = j
        return self.data[ts:te]
