"""A small C/C++ header tokenizer that lists the names a header declares.

It is not a compiler: it does not expand macros or evaluate ``#if``. It strips
comments, reads ``#define`` lines, tokenizes the rest, and walks the tokens at
file / namespace / ``extern "C"`` scope, skipping function bodies and class bodies.
What it collects, by kind:

- **macros**: every ``#define NAME`` (object- or function-like), plus the target of a
  plain alias ``#define cuCtxCreate cuCtxCreate_v4`` (a name users can write too);
- **types**: ``struct`` / ``union`` / ``class`` / ``enum`` tags (defined, forward
  declared or named in an elaborated type), ``typedef`` names (including function
  pointer typedefs such as ``PFN_cuGetErrorString_v6000``) and ``using X = ...``;
- **constants**: enumerators of every enum;
- **functions**: declared or defined free functions (``cudaMalloc``, ``curand_init``,
  the ``template`` overloads of ``cuda_runtime.h``);
- for C++ APIs (torch's), also **namespaces** (``c10::cuda::CUDACachingAllocator``)
  and namespace-scope **variables** (``constexpr int CUDA_NUM_THREADS = 1024;``). They
  are not part of ``all()``: C headers have none worth a table entry.

Everything is deterministic and pure: the same text always gives the same sets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*"  # line comment
    r"|/\*.*?\*/"  # block comment
    r'|"(?:\\.|[^"\\\n])*"'  # string literal
    r"|'(?:\\.|[^'\\\n])*'",  # char literal
    re.DOTALL,
)
_IDENT_RE = r"[A-Za-z_]\w*"
_DEFINE = re.compile(r"^#[ \t]*define[ \t]+(" + _IDENT_RE + r")(?:[ \t]+(" + _IDENT_RE + r")[ \t]*$)?")
_TOKEN = re.compile(
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
_AFTER_PARAMS = frozenset(
    ["const", "noexcept", "throw", "override", "final", "volatile", "&", "&&", "->", "=", ":",
     ";", "{", "try", "__THROW", "requires"]
)
_DECORATION_WORD = re.compile(r"^(?:__\w+|alignas|_Alignas|[A-Z][A-Z0-9_]*)$")
# An upper-case macro that decorates a declaration (`CUDNN_DEPRECATED`, `NPP_PRIVATE_API`).
_DECORATION_MACRO = re.compile(r"^[A-Z][A-Z0-9_]*(?:DEPRECATED(?:_[A-Z]+)*|API|_EXPORT)$")


@dataclass
class Declared:
    """Names declared in a header, by kind."""

    functions: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    constants: set[str] = field(default_factory=set)
    macros: set[str] = field(default_factory=set)
    namespaces: set[str] = field(default_factory=set)
    variables: set[str] = field(default_factory=set)

    def all(self) -> set[str]:
        """Every declared function, type, constant and macro."""
        return self.functions | self.types | self.constants | self.macros

    def update(self, other: Declared) -> None:
        self.functions |= other.functions
        self.types |= other.types
        self.constants |= other.constants
        self.macros |= other.macros
        self.namespaces |= other.namespaces
        self.variables |= other.variables


def strip_comments(text: str) -> str:
    """Remove comments (keeping line breaks) and blank out string/char literals."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith('"'):
            return '""'
        if s.startswith("'"):
            return "' '"
        return " " + "\n" * s.count("\n")

    return _COMMENT_OR_LITERAL.sub(repl, text)


def tokenize(code: str) -> list[str]:
    """C/C++ tokens of code without comments or preprocessor lines (strings as ``""``)."""
    return [m.group() for m in _TOKEN.finditer(code)]


def _is_ident(tok: str) -> bool:
    return tok[:1].isalpha() or tok[:1] == "_"


def _match(toks: list[str], i: int, open_: str, close: str) -> int:
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


def _skip_balanced(toks: list[str], i: int) -> int:
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


def _strip_template_header(stmt: list[str]) -> list[str]:
    """Drop leading ``template <...>`` headers (and ``extern template``)."""
    while stmt and stmt[0] == "template" and len(stmt) > 1 and stmt[1] == "<":
        stmt = stmt[_match(stmt, 1, "<", ">"):]
    return stmt


def _top_level(stmt: list[str]) -> list[tuple[int, str]]:
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


def _function_names(stmt: list[str]) -> list[str]:
    """Names of functions declared/defined by a statement (usually zero or one).

    A name is an identifier directly before a top-level ``(`` when something stands
    before it (a return type, ``*``, ``&``, ``>``, ``::``) and the matching ``)`` is
    followed by the end of the declaration or a qualifier. So a decoration macro call
    such as ``CUSPARSE_DEPRECATED(cusparseSpMV)`` in front of the return type is not
    taken for the function; ``cusparseScsrmv(...)`` after it is.
    """
    names = []
    n = len(stmt)
    for i, t in _top_level(stmt):
        if t != "(" or i == 0:
            continue
        name = stmt[i - 1]
        if not _is_ident(name) or name in KEYWORDS or i < 2:
            continue
        if name.startswith("__") and name.endswith("__"):
            continue  # __align__(8), __attribute__((...)), __declspec(...)
        prev = stmt[i - 2]
        if not (_is_ident(prev) or prev in ("*", "&", "&&", ">", "::", "~")):
            continue
        if prev == "::":  # Class::member out of class: not a free function
            continue
        if prev in ("operator", "new", "delete", "return", "throw", "case", "goto", "else",
                    "struct", "union", "class", "enum", "typedef", "using", "namespace"):
            continue
        j = _match(stmt, i, "(", ")")
        # Skip decorations after the parameter list (`NCCL_DEPRECATED`, __attribute__((...))).
        while j < n and _is_ident(stmt[j]) and stmt[j] not in _AFTER_PARAMS \
                and _DECORATION_WORD.match(stmt[j]):
            j += 1
            if j < n and stmt[j] == "(":
                j = _match(stmt, j, "(", ")")
        if j >= n or stmt[j] in _AFTER_PARAMS:
            names.append(name)
    return names


def _remove_decorations(part: list[str]) -> list[str]:
    """Drop ``__attribute__((...))``-style groups and ``[...]`` array bounds."""
    out: list[str] = []
    i = 0
    n = len(part)
    while i < n:
        t = part[i]
        if _is_ident(t) and i + 1 < n and part[i + 1] == "(" and (
                t.startswith("__") or t in ("alignas", "_Alignas") or t.isupper()):
            i = _match(part, i + 1, "(", ")")
            continue
        if t == "[":
            i = _skip_balanced(part, i)
            continue
        out.append(t)
        i += 1
    return out


def _declarator_name(part: list[str], macros: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The name a typedef declarator introduces.

    A trailing decoration macro of the header (``... cusparseSolvePolicy_t
    CUSPARSE_DEPRECATED_TYPE``) is not the name.
    """
    while len(part) > 1 and _is_ident(part[-2]) and (
            part[-1] in macros or _DECORATION_MACRO.match(part[-1])):
        part = part[:-1]
    # Function pointer / reference: ( [CALLCONV]* *NAME ) (...)
    for i, t in enumerate(part):
        if t != "(":
            continue
        j = i + 1
        while j < len(part) and _is_ident(part[j]) and part[j] not in ("const",):
            j += 1
        if j < len(part) and part[j] in ("*", "&", "^"):
            k = j + 1
            while k < len(part) and part[k] in ("*", "&", "const", "volatile"):
                k += 1
            if k + 1 < len(part) and _is_ident(part[k]) and part[k + 1] in (")", "["):
                return part[k]
    part = _remove_decorations(part)
    top = _top_level(part)
    for idx, (i, t) in enumerate(top):
        if t == "(" and idx > 0 and _is_ident(part[i - 1]) and part[i - 1] not in KEYWORDS:
            return part[i - 1]  # typedef R NAME(params)
    # Last identifier outside <...>.
    depth = 0
    last = None
    for _i, t in top:
        if t == "<":
            depth += 1
        elif t == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and _is_ident(t) and t not in KEYWORDS:
            last = t
    return last


def _split_commas(toks: list[str], angles: bool = True) -> list[list[str]]:
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


def _tag_after(stmt: list[str], k: int) -> str | None:
    """The tag named after ``struct``/``enum``... at ``stmt[k]`` in an elaborated type."""
    i = k + 1
    n = len(stmt)
    while i < n:
        t = stmt[i]
        if t in ("class", "struct") and stmt[k] == "enum":
            i += 1
        elif t == "[" and i + 1 < n and stmt[i + 1] == "[":
            i = _skip_balanced(stmt, i)
        elif _is_ident(t) and i + 1 < n and stmt[i + 1] == "(" and _DECORATION_WORD.match(t):
            i = _match(stmt, i + 1, "(", ")")
        elif _is_ident(t) and t.startswith("__") and t.endswith("__"):
            i += 1  # __device_builtin__, __align__ without arguments...
        elif _is_ident(t) and t not in KEYWORDS:
            return t
        else:
            return None
    return None


def _defined_tag(head: list[str], macros: frozenset[str] = frozenset()) -> str | None:
    """The tag a ``struct X ... {`` head defines: last identifier before any base clause
    that is not a macro of the header (``struct PACKED_ALIGNMENT {`` is anonymous)."""
    head = [t for t in _remove_decorations(head) if t not in macros]
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
        elif _is_ident(t) and t not in KEYWORDS and not (t.startswith("__") and t.endswith("__")):
            last = t
    return last


def _opens_scope(head: list[str]) -> bool:
    """True for ``namespace a::b`` / ``inline namespace`` / ``extern "C"`` heads.

    Only the end of the head is looked at: a stray decoration left before it (a
    ``#define`` missing its line continuation, as in one branch of cusparse.h) is
    ignored.
    """
    if len(head) >= 2 and head[-2] == "extern" and head[-1].startswith('"'):
        return True
    if "namespace" in head:
        rest = head[len(head) - head[::-1].index("namespace"):]
        return all(_is_ident(t) or t == "::" for t in rest)
    return False


class _Scanner:
    """Walks tokens at one scope. In a class body (``members=True``) only nested tags
    and enumerators are recorded: C puts them at file scope, and C headers such as
    cuda.h define structs inside unions."""

    def __init__(self, toks: list[str], decl: Declared, members: bool = False):
        self.toks = toks
        self.decl = decl
        self.members = members
        self.macros = frozenset(decl.macros)

    def _record_tags(self, stmt: list[str]) -> None:
        for k, t in enumerate(stmt):
            if t in ("struct", "union", "class", "enum") and not (
                    k > 0 and stmt[k - 1] == "enum"):
                name = _tag_after(stmt, k)
                if name:
                    self.decl.types.add(name)

    def _statement(self, stmt: list[str]) -> None:
        """A statement ended by ``;`` at scope level (bodies already reduced to ``{}``)."""
        stmt = _strip_template_header(stmt)
        if not stmt:
            return
        if self.members:
            self._record_tags(stmt)
            return
        if "typedef" in stmt:  # also after a stray macro (`START_PACKED_ALIGNMENT typedef ...`)
            body = stmt[stmt.index("typedef") + 1:]
            self._record_tags(body)
            if "}" in body:  # `typedef struct {...} a, *b;`: the names follow the body
                body = body[len(body) - body[::-1].index("}"):]
            # else the first declarator also holds the type (`typedef unsigned int a, *b;`);
            # _declarator_name takes its last identifier.
            for part in _split_commas(body):
                name = _declarator_name(part, self.macros)
                if name:
                    self.decl.types.add(name)
            return
        if stmt[0] == "using":
            if len(stmt) > 2 and _is_ident(stmt[1]) and stmt[2] == "=":
                self.decl.types.add(stmt[1])
            return
        if stmt[0] in ("static_assert", "namespace", "friend"):
            return
        self._record_tags(stmt)
        functions = _function_names(stmt)
        self.decl.functions.update(functions)
        if not functions:
            self._variable(stmt)

    def _variable(self, stmt: list[str]) -> None:
        """``[static] constexpr int NAME = ...;`` / ``extern T NAME;`` at namespace scope."""
        top = [t for _, t in _top_level(stmt)]
        if "=" in top:
            head = top[:top.index("=")]
        elif top and top[0] == "extern":
            head = top
        else:
            return
        if "(" in head or "operator" in head or len(head) < 2:
            return
        name = head[-1]
        if _is_ident(name) and name not in KEYWORDS and (_is_ident(head[-2]) or head[-2] in "*&>"):
            self.decl.variables.add(name)

    def run(self) -> None:
        toks = self.toks
        n = len(toks)
        i = 0
        stmt: list[str] = []
        while i < n:
            t = toks[i]
            if t == ";":
                self._statement(stmt)
                stmt = []
                i += 1
            elif t == "}":
                stmt = []  # end of a namespace / extern "C" block
                i += 1
            elif t == "{":
                i, stmt = self._open_brace(stmt, i)
            else:
                stmt.append(t)
                i += 1
        if stmt:
            self._statement(stmt)

    def _open_brace(self, stmt: list[str], i: int) -> tuple[int, list[str]]:
        """Handle a ``{`` at scope level: returns the next index and the statement to
        continue (empty when the brace opened a scope or ended a function body)."""
        toks = self.toks
        head = _strip_template_header(stmt)
        if not head or _opens_scope(head):
            if "namespace" in head:
                rest = head[len(head) - head[::-1].index("namespace"):]
                self.decl.namespaces.update(t for t in rest if _is_ident(t))
            return i + 1, []  # a transparent scope (or a stray block): walk inside
        end = _skip_balanced(toks, i)
        functions = [] if self.members else _function_names(head + ["{"])
        if functions:
            self._record_tags(head)
            self.decl.functions.update(functions)
            return end, []
        top = [t for _, t in _top_level(head)]
        if "enum" in top:
            k = head.index("enum")
            self._record_tags(head[:k])
            name = _defined_tag(head[k + 1:], self.macros)
            if name:
                self.decl.types.add(name)
            self._enum_body(toks[i + 1:end - 1])
        elif any(t in ("struct", "union", "class") for t in top):
            k = next(j for j, t in enumerate(head) if t in ("struct", "union", "class"))
            self._record_tags(head[:k])
            name = _defined_tag(head[k + 1:], self.macros)
            if name:
                self.decl.types.add(name)
            _Scanner(toks[i + 1:end - 1], self.decl, members=True).run()
        elif "=" not in top:
            return end, []  # a body of something else (out-of-class member, ctor...)
        # an initializer (`= {...}`) or a type body: the statement goes on after it
        return end, stmt + ["{", "}"]

    def _enum_body(self, body: list[str]) -> None:
        for part in _split_commas(body, angles=False):
            for t in part:
                if _is_ident(t):
                    if t not in KEYWORDS:
                        self.decl.constants.add(t)
                    break


_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def _balance_conditionals(lines: list[str]) -> list[str]:
    """Keep only the first branch of an ``#if``/``#else`` group whose branches open or
    close braces, so that ``#if A / x = { / #else / y = { / #endif`` opens one brace,
    as a compiler would see it. Other groups keep every branch (both may declare)."""
    out = list(lines)
    stack: list[list[list[int]]] = []  # per open group: branches as [start, end)

    def delta(start: int, end: int) -> int:
        return sum(out[k].count("{") - out[k].count("}") for k in range(start, end)
                   if not out[k].lstrip().startswith("#"))

    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        d = m.group(1)
        if d in ("if", "ifdef", "ifndef"):
            stack.append([[i + 1, i + 1]])
        elif not stack:
            continue
        elif d in ("elif", "else"):
            stack[-1][-1][1] = i
            stack[-1].append([i + 1, i + 1])
        else:  # endif
            group = stack.pop()
            group[-1][1] = i
            if len(group) > 1 and any(delta(s, e) for s, e in group):
                for s, e in group[1:]:
                    for k in range(s, e):
                        out[k] = ""
    return out


def scan_text(text: str) -> Declared:
    """Extract declared functions, types, enum constants and macros from header text."""
    text = strip_comments(text)
    text = re.sub(r"\\\r?\n", " ", text)  # join continuation lines
    decl = Declared()
    code_lines = []
    for line in _balance_conditionals(text.splitlines()):
        s = line.lstrip()
        if s.startswith("#"):
            m = _DEFINE.match(s.replace("# ", "#", 1) if s.startswith("# ") else s)
            if m:
                decl.macros.add(m.group(1))
                if m.group(2) and m.group(2) not in KEYWORDS:
                    decl.macros.add(m.group(2))
            code_lines.append("")
        else:
            code_lines.append(line)
    _Scanner(tokenize("\n".join(code_lines)), decl).run()
    decl.functions -= decl.types
    return decl
