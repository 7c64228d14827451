"""One ported file as the hazard checks see it: its bytes, the run's arches, and what
several checks share (the code with comments blanked, its constants, the edits),
each computed once and only when a check asks for it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from .arches import Target
from .code_view import blank, split_args
from .consts import Constants, Unknown, evaluate
from .host_code import platform_spans
from .literals import occurrences
from .offsets import EditMap


@dataclass(frozen=True)
class Hazard:
    """One hazard: its check, its span in the ported text, where its statement ends
    when that is further (an inline-assembly statement of ten lines), and what to tell
    the user."""

    id: str
    start: int
    end: int
    message: str
    device: bool | None = None  # a device-code hazard (None: as its check says)
    level: str = ""  # a level below its check's ("note"); "": the check's
    stop: int = 0  # the end of the statement it is in, when after ``end``


_STATEMENT_END = frozenset(b";{}")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NAME = re.compile(rb"[A-Za-z_]\w*")
_NOT_CONSTANTS = frozenset((b"sizeof", b"int", b"unsigned", b"long", b"short", b"char", b"float",
                            b"double", b"size_t", b"const", b"signed", b"int64_t", b"uint32_t",
                            b"uint64_t", b"int32_t"))
# Words without which a file has no platform branch (host_code.platform_spans).
PLATFORM_KEYS = (b"ARCH__", b"CC__", b"HIP", b"ROCM")


class Scan:
    """The ported text of one file and what the checks know about the run."""

    def __init__(self, out: bytes, target: Target, edits: EditMap | None = None, rel: str = "",
                 noncode: Callable[[], Iterable[tuple[int, int]]] | None = None,
                 keys: Sequence[bytes] = ()):
        self.out = out
        self.target = target
        self.edits = edits if edits is not None else EditMap(())
        self.rel = rel
        self._noncode = noncode
        self._keys = keys
        self._names: dict[bytes, bool] = {}
        self.defined: frozenset[str] = frozenset()  # the names the tree defines

    @cached_property
    def hits(self) -> dict[bytes, list[int]]:
        """Where each word the checks look for occurs (one pass for all of them)."""
        return occurrences(self._keys, self.out)

    def has(self, *keys: bytes) -> bool:
        hits = self.hits
        return any(k in hits for k in keys)

    def at(self, *keys: bytes) -> list[int]:
        """The starts of these words, in file order."""
        hits = self.hits
        found = [hits[k] for k in keys if k in hits]
        if len(found) == 1:
            return found[0]
        return sorted(p for ps in found for p in ps)

    @cached_property
    def code(self) -> bytes:
        """The text with comments and string literals blanked (same offsets). The spans
        come from the source's lexing when the caller has it (one lexer pass saved)."""
        return blank(self.out, None if self._noncode is None else self._noncode())

    @cached_property
    def constants(self) -> Constants:
        return Constants(self.code)

    @cached_property
    def platform_spans(self) -> list[tuple[int, int, str]]:
        """Branches the MUSA device compile never sees (``host_code``)."""
        if not self.has(*PLATFORM_KEYS):
            return []
        return platform_spans(self.out)

    @cached_property
    def launches(self) -> list[tuple[int, list[bytes]]]:
        """Each ``<<<...>>>`` launch: where its arguments start, and the arguments (one in
        a comment too: the hazard is dropped there later)."""
        out: list[tuple[int, list[bytes]]] = []
        if not self.has(b"<<<"):
            return out
        code = self.out  # a launch's arguments hold no comment, as a rule: no code view
        last = -3
        for pos in self.at(b"<<<"):
            if pos < last + 3:
                continue  # <<<<
            last = pos
            close = code.find(b">>>", pos + 3, pos + 2000)
            if close >= 0:
                out.append((pos + 3, split_args(code[pos + 3:close])))
        return out

    def value(self, expr: bytes) -> int | None:
        """The value of a constant expression: a number, or names this file defines
        (not ``Policy::BLOCK_THREADS`` nor ``p.size``, which a lexer cannot know: the
        file's constants are not even gathered for them)."""
        try:
            return evaluate(expr, {})
        except Unknown:
            pass
        if b"::" in expr or b"." in expr or b"->" in expr or b"(" in expr and b"sizeof" not in expr:
            return None
        if not all(self._defined(n) for n in _NAME.findall(expr) if n not in _NOT_CONSTANTS):
            return None  # a name from another file (THREADS_PER_BLOCK of a header)
        try:
            return self.constants.evaluate(expr)
        except Unknown:
            return None

    def _defined(self, name: bytes) -> bool:
        """Whether the file may define ``name`` (``#define NAME``, ``NAME =``, ``NAME{``):
        asked before the file's constants are gathered, which costs a lexer pass."""
        known = self._names.get(name)
        if known is None:
            known = self._names[name] = _defines(self.out, name)
        return known

    def statement(self, pos: int, reach: int = 400) -> tuple[int, int]:
        """The statement around ``pos``: from after the ``;``, ``{`` or ``}`` before it
        (or a preprocessor line's start) to the next one, at most ``reach`` bytes away."""
        data = self.out
        lo = max(0, pos - reach)
        s = pos
        while s > lo and data[s - 1] not in _STATEMENT_END:
            if data[s - 1] == 0x0A and data[s:s + 1] == b"#":
                break
            s -= 1
        hi = min(len(data), pos + reach)
        e = pos
        while e < hi and data[e] not in _STATEMENT_END:
            e += 1
            if data[e - 1] == 0x0A and _directive_line(data, s):
                break
        return s, e

    def line(self, pos: int) -> tuple[int, int]:
        s = self.out.rfind(b"\n", 0, pos) + 1
        e = self.out.find(b"\n", pos)
        return s, (len(self.out) if e < 0 else e)


def _defines(data: bytes, name: bytes) -> bool:
    """Whether ``name`` stands somewhere in ``data`` as ``#define name``, ``name =`` or
    ``name{``: read at each of its occurrences (a regex for it tries every offset)."""
    at, n = data.find(name), len(name)
    while at >= 0:
        end = at + n
        if (at == 0 or data[at - 1] not in IDENT) and (end == len(data) or data[end] not in IDENT):
            after = data[end:end + 20].lstrip(b" \t")
            if after[:1] == b"{" or after[:1] == b"=" and after[1:2] != b"=" or \
                    data[max(0, at - 30):at].rstrip(b" \t").endswith(b"define"):
                return True
        at = data.find(name, end)
    return False


def _directive_line(data: bytes, start: int) -> bool:
    return re.match(rb"[ \t]*#", data[start:start + 40]) is not None
