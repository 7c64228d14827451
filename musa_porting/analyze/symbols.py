"""The symbol index of a tree: which names with a CUDA word the tree itself defines.

Only names the tree *defines* are renamed as project symbols: a macro (``#define``),
a function with a body, a class, struct, union or enum, an enumerator, a typedef or
``using`` alias, a namespace, a variable, field or parameter. A name the tree only
uses or declares (a prototype of a library function) comes from outside and is
never renamed by this feature.

This is the lexer back end, the default: it reads each file's tokens with comments
and strings blanked out and classifies each occurrence of a name that holds a
vocabulary word by the tokens around it. It looks only at names that hold a word, so
it costs little on files without one. ``analyze/clang_symbols.py`` is the libclang
back end behind the same ``FileSymbols`` result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from sys import intern  # the same few used names in every file of a large tree

from ..port.cxx import lexer
from ..port.lines import Lines
from . import exported as exported_names
from .residuals import like_matches
from .statements import Statements
from .word_finder import WordFinder

_IDENT_BYTE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+")
_ENUM_BODY = re.compile(rb"\benum\b[^;{}()]*\{")
KEYWORDS = frozenset((
    "alignas alignof and asm auto bool break case catch char class const constexpr const_cast "
    "continue decltype default delete do double dynamic_cast else enum explicit export extern "
    "false float for friend goto if inline int long mutable namespace new noexcept not nullptr "
    "operator or private protected public register reinterpret_cast return short signed sizeof "
    "static static_assert static_cast struct switch template this throw true try typedef typeid "
    "typename union unsigned using virtual void volatile while co_return co_await co_yield"
).split())
# Types and specifiers that may stand right before a declared name.
_TYPE_WORDS = frozenset("auto bool char double float int long short signed unsigned void const "
                        "volatile".split())
_AFTER_DECLARED = frozenset(("=", ";", ",", ")", "[", "{", ":"))
_DEF_NEXT = frozenset((b"(", b"=", b";", b",", b")", b"[", b"{", b"}", b":", b"f"))
_FUNCTION_TRAILERS = frozenset(("const", "noexcept", "override", "final", "volatile", "mutable",
                                "throw", "&", "&&", "->", "__attribute__", "try"))


@dataclass(frozen=True)
class Definition:
    """Where the tree defines a name: kind, 1-based line and byte column."""

    name: str
    kind: str  # macro, function, class, struct, union, enum, enumerator, typedef, alias,
    #            namespace, variable
    line: int
    column: int

    def to_list(self) -> list:
        return [self.name, self.kind, self.line, self.column]


@dataclass
class FileSymbols:
    """One file's part of the index: its definitions of names holding a vocabulary
    word, and the names it holds that a rename might collide with."""

    defs: list[Definition] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)  # identifiers holding a MUSA-side word
    note: str = ""  # how it was indexed when not the default way (clang fell back, ...)
    # Names it exports to Python: [name, line, column, how] (analyze/exported.py).
    exported: list[list] = field(default_factory=list)
    # Names holding a CUDA word it uses but does not define (tree/rename_map.py: a later
    # port must not rename what this one left).
    uses: list[str] = field(default_factory=list)
    # The extension modules a build file names: [glob, line, column, how]
    # (analyze/module_names.py).
    modules: list[list] = field(default_factory=list)
    # Its definitions of names that look like CUDA's but hold no vocabulary word
    # (``NVPF_CHECK``, ``cuSPH_Grid``): the tree's own, kept as they are, and no residual.
    like: list[Definition] = field(default_factory=list)

    def to_json(self) -> dict:
        # "exports": the key of an index that knows every form of op registration and
        # module init (issue 44); an entry under the older "exported" is read again.
        out: dict = {"defs": [d.to_list() for d in self.defs], "taken": self.taken,
                     "exports": self.exported}
        if self.modules:
            out["modules"] = self.modules
        if self.uses:
            out["uses"] = self.uses
        if self.note:
            out["note"] = self.note
        if self.like:
            out["like"] = [d.to_list() for d in self.like]
        return out

    @classmethod
    def from_json(cls, data: dict) -> FileSymbols:
        return cls([Definition(*d) for d in data.get("defs", [])], list(data.get("taken", [])),
                   data.get("note", ""), [list(x) for x in data.get("exports", [])],
                   list(data.get("uses", [])), [list(x) for x in data.get("modules", [])],
                   [Definition(*d) for d in data.get("like", [])])


def _blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with comments and strings replaced by spaces (offsets kept)."""
    if not spans:
        return data
    pieces, pos = [], 0
    for s, e in spans:
        pieces.append(data[pos:s])
        pieces.append(b" " * (e - s))
        pos = e
    pieces.append(data[pos:])
    return b"".join(pieces)


_SPACE = frozenset(b" \t\r\n\f\v")
_PAIRS = (b"::", b"->", b"&&")


def _prev(code: bytes, pos: int) -> tuple[str, int]:
    """The token that ends before ``pos``, and where it starts ("" at the start)."""
    i = pos - 1
    while i >= 0 and code[i] in _SPACE:
        i -= 1
    if i < 0:
        return "", 0
    if code[i] in _IDENT_BYTE:
        j = i
        while j > 0 and code[j - 1] in _IDENT_BYTE:
            j -= 1
        return code[j:i + 1].decode("ascii", "replace"), j
    if i > 0 and code[i - 1:i + 1] in _PAIRS:
        return code[i - 1:i + 1].decode(), i - 1
    return chr(code[i]), i


def _next(code: bytes, pos: int) -> tuple[str, int]:
    """The token that starts at or after ``pos``, and where it ends ("" at the end)."""
    n = len(code)
    i = pos
    while i < n and code[i] in _SPACE:
        i += 1
    if i >= n:
        return "", n
    if code[i] in _IDENT_BYTE:
        j = i
        while j < n and code[j] in _IDENT_BYTE:
            j += 1
        return code[i:j].decode("ascii", "replace"), j
    if code[i:i + 2] in _PAIRS:
        return code[i:i + 2].decode(), i + 2
    return chr(code[i]), i + 1


_TYPEDEF = re.compile(rb"\btypedef\b")
_EXTERN = re.compile(rb"\bextern\b(?![ \t]*\")")


def _in_typedef(ix: Statements, pos: int) -> bool:
    return ix.has(_TYPEDEF, ix.start(pos), pos)


def _enum_bodies(code: bytes) -> list[tuple[int, int]]:
    out = []
    for m in _ENUM_BODY.finditer(code):
        end = code.find(b"}", m.end())
        out.append((m.end(), len(code) if end < 0 else end))
    return out


def _is_type_token(t: str) -> bool:
    """A token that can end a type: an identifier that is not a keyword (or is a type
    keyword), or the end of a pointer, reference, template or array declarator."""
    if t in _TYPE_WORDS:
        return True
    if t[:1].isalpha() or t[:1] == "_":
        return t not in KEYWORDS
    return t in ("*", "&", "&&", ">", "]")


def _declarator_ok(ix: Statements, prev: str, prev_at: int) -> bool:
    """After ``*``/``&``: the token before names a type (``T* b``, ``at::Tensor& b``,
    not the product ``a * b``). After ``>``: it closes a template argument list (not
    ``a > b``)."""
    code = ix.code
    if prev in ("*", "&", "&&"):
        t, at = _prev(code, prev_at)
        before, _ = _prev(code, at)
        return (t in _TYPE_WORDS or t in (">", "const") or t[:1].isupper() or t.endswith("_t")
                or before == "::")
    if prev == ">":
        return ix.template_opens(prev_at, ix.start(prev_at))
    return True


def _classify(ix: Statements, s: int, e: int, enums: list[tuple[int, int]]) -> str | None:
    """The kind of definition the name at ``code[s:e]`` is, or None for a use."""
    code = ix.code
    prev, prev_at = _prev(code, s)
    nxt, nxt_end = _next(code, e)
    if prev == "define" and _DEFINE.search(code, code.rfind(b"\n", 0, s) + 1, s):
        return "macro"
    if prev in ("class", "struct", "union", "enum"):
        t, end = nxt, nxt_end
        while t == "final":
            t, end = _next(code, end)
        return prev if t in ("{", ":") else None
    if prev == "namespace":
        return "namespace" if nxt in ("{", "=") else None
    if prev == "using" and nxt == "=":
        return "alias"
    if prev in (".", "->") or (prev == "::" and nxt != "("):
        return None
    if prev in ("{", ",") and any(a <= s < b for a, b in enums):
        return "enumerator"
    if prev == "}" and nxt in (";", ","):
        return "typedef" if _in_typedef(ix, ix.opening(prev_at)) else "variable"
    if nxt == "(":
        return _function(ix, nxt_end - 1, prev, prev_at)
    if prev == "*" and nxt == ")" and _prev(code, prev_at)[0] == "(":
        return "typedef" if _in_typedef(ix, s) else None  # typedef void (*name)(...)
    if nxt not in _AFTER_DECLARED or not _is_type_token(prev) or not _declarator_ok(ix, prev, prev_at):
        return None
    if ix.has(_EXTERN, ix.start(s), s):
        return None  # extern int x;: declared here, defined elsewhere (maybe not in the tree)
    return "typedef" if _in_typedef(ix, s) else "variable"


def _function(ix: Statements, paren: int, prev: str, prev_at: int) -> str | None:
    """``type name(...) [qualifiers] {`` (or a constructor initializer) is a definition;
    a prototype or a call is not. A name after ``;``, ``{`` or ``}`` with no type before
    it is a macro call or a statement, not a definition."""
    if prev != "::" and (not _is_type_token(prev) or not _declarator_ok(ix, prev, prev_at)):
        return None  # Class::method(...) { defines the method; anything else needs a type
    code = ix.code
    pos = ix.close(paren)
    while True:
        t, end = _next(code, pos)
        if t == "{":
            return "function"
        if t == ":":
            return "function" if _next(code, end)[0] != ":" else None  # ctor initializers
        if t == "(":  # throw(...), __attribute__((...)), noexcept(...)
            pos = ix.close(end - 1)
            continue
        if t and (t in _FUNCTION_TRAILERS or t[:1].isalpha() or t[:1] == "_"
                  or t in ("*", "<", ">", "::", ",")):
            pos = end
            continue
        return None


def scan_lexer(data: bytes, words: WordFinder, target: WordFinder) -> FileSymbols:
    """Index one C/C++/CUDA file with the lexer back end. ``words`` finds names with
    a CUDA word (candidates to rename), ``target`` names with a MUSA word (what a
    rename could collide with); names that look like CUDA's without a word are found
    by the residuals' heads (``like_matches``)."""
    result = FileSymbols()
    low = data.lower()
    has_target, has_words = target.present(low), words.present(low, data)
    like = like_matches(data)
    if not (has_target or has_words or like):
        return result
    defs = _Definer(data)
    # Names in comments, strings and include targets are neither defined nor taken.
    if has_target:
        result.taken = sorted({name for _, _, name in target.identifiers(defs.code(), low)})
    rename = words.vocabulary.rename
    if like:
        seen: set[str] = set()  # one definition per name and file; a name with a word: below
        worded: dict[bytes, bool] = {}  # most of these names hold a word: asked once each
        for m in like:
            raw = m.group(0)
            has_word = worded.get(raw)
            if has_word is None:
                has_word = worded[raw] = rename(raw.decode("ascii", "replace")) is not None
            if has_word:
                continue  # the loop over the words' spans below looks at it
            d = defs.definition(m.start(), m.end(), lambda name: name not in seen)
            if d is not None:
                seen.add(d.name)
                result.like.append(d)
    if not has_words:
        return result
    result.exported = [list(x) for x in exported_names.scan(data)]
    defined: set[str] = set()  # one definition per name and file is enough
    named: set[bytes] = set()
    for s, e in words.spans(data, low):
        named.add(data[s:e])
        if 0x30 <= data[s] <= 0x39:
            continue
        d = defs.definition(s, e, lambda name: name not in defined and rename(name) is not None)
        if d is not None:
            defined.add(d.name)
            result.defs.append(d)
    result.uses = sorted(u for u in (intern(b.decode("ascii", "replace")) for b in named
                                     if b[:1].isalpha()
                                     or b[:1] == b"_") if u not in defined and rename(u) is not None)
    return result


class _Definer:
    """Whether a name at a place of one file is defined there, with what the test needs
    (the code with comments and strings blanked, its statements, its enum bodies) worked
    out on first need."""

    def __init__(self, data: bytes):
        self.data = data
        self._code: bytes | None = None
        self._ix: Statements | None = None
        self._enums: list[tuple[int, int]] | None = None
        self._lines: Lines | None = None

    def code(self) -> bytes:
        if self._code is None:
            self._code = _blank(self.data, lexer.comment_and_string_spans(
                self.data, frozenset({"comments", "strings"})))
        return self._code

    def definition(self, s: int, e: int, wanted: Callable[[str], bool]) -> Definition | None:
        """The definition of the name at ``data[s:e]``, or None for a use or a name not
        ``wanted`` (asked only of a name that may be defined here)."""
        data = self.data
        # Most hits are uses: a definition is followed by one of ( = ; , ) [ { : or
        # "final", or is a macro's name. A few byte checks settle most hits, before
        # the file is lexed at all.
        if data[e:e + 2] == b"::":
            return None  # cuda::x is a use
        q, n = e, len(data)
        while q < n and data[q] in _SPACE:
            q += 1
        if data[q:q + 1] not in _DEF_NEXT and not data[max(0, s - 12):s].rstrip().endswith(b"define"):
            return None
        name = data[s:e].decode("ascii", "replace")
        if not wanted(name):
            return None
        c = self.code()
        if c[s:s + 1] == b" ":
            return None  # in a comment or a string
        if self._enums is None:
            self._enums = _enum_bodies(c) if b"enum" in c else []
        if self._ix is None:
            self._ix = Statements(c)
        kind = _classify(self._ix, s, e, self._enums)
        if kind is None:
            return None
        if self._lines is None:
            self._lines = Lines(data)
        return Definition(name, kind, *self._lines.position(s))
