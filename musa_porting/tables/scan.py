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

from .declarations import (
    DEFINE,
    KEYWORDS,
    declarator_name,
    defined_tag,
    function_names,
    is_ident,
    opens_scope,
    skip_balanced,
    split_commas,
    strip_comments,
    strip_template_header,
    tag_after,
    tokenize,
    top_level,
)


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
                name = tag_after(stmt, k)
                if name:
                    self.decl.types.add(name)

    def _statement(self, stmt: list[str]) -> None:
        """A statement ended by ``;`` at scope level (bodies already reduced to ``{}``)."""
        stmt = strip_template_header(stmt)
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
            # declarator_name takes its last identifier.
            for part in split_commas(body):
                name = declarator_name(part, self.macros)
                if name:
                    self.decl.types.add(name)
            return
        if stmt[0] == "using":
            if len(stmt) > 2 and is_ident(stmt[1]) and stmt[2] == "=":
                self.decl.types.add(stmt[1])
            return
        if stmt[0] in ("static_assert", "namespace", "friend"):
            return
        self._record_tags(stmt)
        functions = function_names(stmt)
        self.decl.functions.update(functions)
        if not functions:
            self._variable(stmt)

    def _variable(self, stmt: list[str]) -> None:
        """``[static] constexpr int NAME = ...;`` / ``extern T NAME;`` at namespace scope."""
        top = [t for _, t in top_level(stmt)]
        if "=" in top:
            head = top[:top.index("=")]
        elif top and top[0] == "extern":
            head = top
        else:
            return
        if "(" in head or "operator" in head or len(head) < 2:
            return
        name = head[-1]
        if is_ident(name) and name not in KEYWORDS and (is_ident(head[-2]) or head[-2] in "*&>"):
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
        head = strip_template_header(stmt)
        if not head or opens_scope(head):
            if "namespace" in head:
                rest = head[len(head) - head[::-1].index("namespace"):]
                self.decl.namespaces.update(t for t in rest if is_ident(t))
            return i + 1, []  # a transparent scope (or a stray block): walk inside
        end = skip_balanced(toks, i)
        functions = [] if self.members else function_names(head + ["{"])
        if functions:
            self._record_tags(head)
            self.decl.functions.update(functions)
            return end, []
        top = [t for _, t in top_level(head)]
        if "enum" in top:
            k = head.index("enum")
            self._record_tags(head[:k])
            name = defined_tag(head[k + 1:], self.macros)
            if name:
                self.decl.types.add(name)
            self._enum_body(toks[i + 1:end - 1])
        elif any(t in ("struct", "union", "class") for t in top):
            k = next(j for j, t in enumerate(head) if t in ("struct", "union", "class"))
            self._record_tags(head[:k])
            name = defined_tag(head[k + 1:], self.macros)
            if name:
                self.decl.types.add(name)
            _Scanner(toks[i + 1:end - 1], self.decl, members=True).run()
        elif "=" not in top:
            return end, []  # a body of something else (out-of-class member, ctor...)
        # an initializer (`= {...}`) or a type body: the statement goes on after it
        return end, stmt + ["{", "}"]

    def _enum_body(self, body: list[str]) -> None:
        for part in split_commas(body, angles=False):
            for t in part:
                if is_ident(t):
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
            m = DEFINE.match(s.replace("# ", "#", 1) if s.startswith("# ") else s)
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
