"""The pieces of a C/C++ declaration, for the header scanner (``scan.py``): comments
and literals stripped, tokens, balanced brackets, and the name a declarator, a
function or a tag declares, decorations (``__host__``, ``CUDARTAPI``, export macros)
skipped. Pure functions of token lists."""

from __future__ import annotations

import re

COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*"  # line comment
    r"|/\*.*?\*/"  # block comment
    r'|"(?:\\.|[^"\\\n])*"'  # string literal
    r"|'(?:\\.|[^'\\\n])*'",  # char literal
    re.DOTALL,
)
IDENT_RE = r"[A-Za-z_]\w*"
DEFINE = re.compile(r"^#[ \t]*define[ \t]+(" + IDENT_RE + r")(?:[ \t]+(" + IDENT_RE + r")[ \t]*$)?")
TOKEN = re.compile(
    r"""
    (?P<ident>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<punct>::|->|\.\.\.|&&|\|\||<<=|>>=|<<|[-+*/%&|^!=<>]=|[{}()\[\];,<>:=*&^~!?.+\-/%|#@\\])
    """,
    re.VERBOSE,
)

KEYWORDS = frozenset(
    """
    alignas alignof asm auto bool break case catch char char16_t char32_t class const
    constexpr const_cast continue decltype default delete do double dynamic_cast else enum
    explicit export extern false float for friend goto if inline int long mutable namespace
    new noexcept nullptr operator private protected public register reinterpret_cast return
    short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual void
    volatile wchar_t while defined final override
    """.split()
)
# Tokens that may follow a function's parameter list before the end of the declaration.
AFTER_PARAMS = frozenset(
    ["const", "noexcept", "throw", "override", "final", "volatile", "&", "&&", "->", "=", ":",
     ";", "{", "try", "__THROW", "requires"]
)
DECORATION_WORD = re.compile(r"^(?:__\w+|alignas|_Alignas|[A-Z][A-Z0-9_]*)$")
# An upper-case macro that decorates a declaration (`CUDNN_DEPRECATED`, `NPP_PRIVATE_API`).
DECORATION_MACRO = re.compile(r"^[A-Z][A-Z0-9_]*(?:DEPRECATED(?:_[A-Z]+)*|API|_EXPORT)$")


def strip_comments(text: str) -> str:
    """Remove comments (keeping line breaks) and blank out string/char literals."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith('"'):
            return '""'
        if s.startswith("'"):
            return "' '"
        return " " + "\n" * s.count("\n")

    return COMMENT_OR_LITERAL.sub(repl, text)


def tokenize(code: str) -> list[str]:
    """C/C++ tokens of code without comments or preprocessor lines (strings as ``""``)."""
    return [m.group() for m in TOKEN.finditer(code)]


def is_ident(tok: str) -> bool:
    return tok[:1].isalpha() or tok[:1] == "_"


def match(toks: list[str], i: int, open_: str, close: str) -> int:
    """Index just past the bracket closing the one at ``toks[i]``."""
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def skip_balanced(toks: list[str], i: int) -> int:
    """Index past a {...}, (...) or [...] group at ``i`` (any nesting of the three)."""
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
            if depth <= 0:
                return i + 1
        i += 1
    return n


def strip_template_header(stmt: list[str]) -> list[str]:
    """Drop leading ``template <...>`` headers (and ``extern template``)."""
    while stmt and stmt[0] == "template" and len(stmt) > 1 and stmt[1] == "<":
        stmt = stmt[match(stmt, 1, "<", ">"):]
    return stmt


def top_level(stmt: list[str]) -> list[tuple[int, str]]:
    """(index, token) of tokens outside any (), [] or {} group of ``stmt``."""
    out = []
    depth = 0
    for i, t in enumerate(stmt):
        if t in "([{":
            if depth == 0:
                out.append((i, t))
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0:
            out.append((i, t))
    return out


def function_names(stmt: list[str]) -> list[str]:
    """Names of functions declared/defined by a statement (usually zero or one).

    A name is an identifier directly before a top-level ``(`` when something stands
    before it (a return type, ``*``, ``&``, ``>``, ``::``) and the matching ``)`` is
    followed by the end of the declaration or a qualifier. So a decoration macro call
    such as ``CUSPARSE_DEPRECATED(cusparseSpMV)`` in front of the return type is not
    taken for the function; ``cusparseScsrmv(...)`` after it is.
    """
    names = []
    n = len(stmt)
    for i, t in top_level(stmt):
        if t != "(" or i == 0:
            continue
        name = stmt[i - 1]
        if not is_ident(name) or name in KEYWORDS or i < 2:
            continue
        if name.startswith("__") and name.endswith("__"):
            continue  # __align__(8), __attribute__((...)), __declspec(...)
        prev = stmt[i - 2]
        if not (is_ident(prev) or prev in ("*", "&", "&&", ">", "::", "~")):
            continue
        if prev == "::":  # Class::member out of class: not a free function
            continue
        if prev in ("operator", "new", "delete", "return", "throw", "case", "goto", "else",
                    "struct", "union", "class", "enum", "typedef", "using", "namespace"):
            continue
        j = match(stmt, i, "(", ")")
        # Skip decorations after the parameter list (`NCCL_DEPRECATED`, __attribute__((...))).
        while j < n and is_ident(stmt[j]) and stmt[j] not in AFTER_PARAMS \
                and DECORATION_WORD.match(stmt[j]):
            j += 1
            if j < n and stmt[j] == "(":
                j = match(stmt, j, "(", ")")
        if j >= n or stmt[j] in AFTER_PARAMS:
            names.append(name)
    return names


def remove_decorations(part: list[str]) -> list[str]:
    """Drop ``__attribute__((...))``-style groups and ``[...]`` array bounds."""
    out: list[str] = []
    i = 0
    n = len(part)
    while i < n:
        t = part[i]
        if is_ident(t) and i + 1 < n and part[i + 1] == "(" and (
                t.startswith("__") or t in ("alignas", "_Alignas") or t.isupper()):
            i = match(part, i + 1, "(", ")")
            continue
        if t == "[":
            i = skip_balanced(part, i)
            continue
        out.append(t)
        i += 1
    return out


def declarator_name(part: list[str], macros: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The name a typedef declarator introduces.

    A trailing decoration macro of the header (``... cusparseSolvePolicy_t
    CUSPARSE_DEPRECATED_TYPE``) is not the name.
    """
    while len(part) > 1 and is_ident(part[-2]) and (
            part[-1] in macros or DECORATION_MACRO.match(part[-1])):
        part = part[:-1]
    # Function pointer / reference: ( [CALLCONV]* *NAME ) (...)
    for i, t in enumerate(part):
        if t != "(":
            continue
        j = i + 1
        while j < len(part) and is_ident(part[j]) and part[j] not in ("const",):
            j += 1
        if j < len(part) and part[j] in ("*", "&", "^"):
            k = j + 1
            while k < len(part) and part[k] in ("*", "&", "const", "volatile"):
                k += 1
            if k + 1 < len(part) and is_ident(part[k]) and part[k + 1] in (")", "["):
                return part[k]
    part = remove_decorations(part)
    top = top_level(part)
    for idx, (i, t) in enumerate(top):
        if t == "(" and idx > 0 and is_ident(part[i - 1]) and part[i - 1] not in KEYWORDS:
            return part[i - 1]  # typedef R NAME(params)
    # Last identifier outside <...>.
    depth = 0
    last = None
    for _i, t in top:
        if t == "<":
            depth += 1
        elif t == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and is_ident(t) and t not in KEYWORDS:
            last = t
    return last


def split_commas(toks: list[str], angles: bool = True) -> list[list[str]]:
    """Split at top-level commas (outside brackets, and outside <...> if ``angles``)."""
    parts: list[list[str]] = [[]]
    depth = 0
    angle = 0
    for t in toks:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0 and t == "<" and angles:
            angle += 1
        elif depth == 0 and t == ">" and angle:
            angle -= 1
        if t == "," and depth == 0 and angle == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def tag_after(stmt: list[str], k: int) -> str | None:
    """The tag named after ``struct``/``enum``... at ``stmt[k]`` in an elaborated type."""
    i = k + 1
    n = len(stmt)
    while i < n:
        t = stmt[i]
        if t in ("class", "struct") and stmt[k] == "enum":
            i += 1
        elif t == "[" and i + 1 < n and stmt[i + 1] == "[":
            i = skip_balanced(stmt, i)
        elif is_ident(t) and i + 1 < n and stmt[i + 1] == "(" and DECORATION_WORD.match(t):
            i = match(stmt, i + 1, "(", ")")
        elif is_ident(t) and t.startswith("__") and t.endswith("__"):
            i += 1  # __device_builtin__, __align__ without arguments...
        elif is_ident(t) and t not in KEYWORDS:
            return t
        else:
            return None
    return None


def defined_tag(head: list[str], macros: frozenset[str] = frozenset()) -> str | None:
    """The tag a ``struct X ... {`` head defines: last identifier before any base clause
    that is not a macro of the header (``struct PACKED_ALIGNMENT {`` is anonymous)."""
    head = [t for t in remove_decorations(head) if t not in macros]
    last = None
    depth = 0
    for t in head:
        if t == "<":
            depth += 1
        elif t == ">":
            depth = max(0, depth - 1)
        elif depth:
            continue
        elif t == ":":
            break
        elif is_ident(t) and t not in KEYWORDS and not (t.startswith("__") and t.endswith("__")):
            last = t
    return last


def opens_scope(head: list[str]) -> bool:
    """True for ``namespace a::b`` / ``inline namespace`` / ``extern "C"`` heads.

    Only the end of the head is looked at: a stray decoration left before it (a
    ``#define`` missing its line continuation, as in one branch of cusparse.h) is
    ignored.
    """
    if len(head) >= 2 and head[-2] == "extern" and head[-1].startswith('"'):
        return True
    if "namespace" in head:
        rest = head[len(head) - head[::-1].index("namespace"):]
        return all(is_ident(t) or t == "::" for t in rest)
    return False
