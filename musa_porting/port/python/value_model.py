"""A computed string as ``values.py`` reads it: literal pieces (``Lit``, with the literal
each is written in) and holes, and the operations that build one from others (end to end,
joined as paths, the folder of one)."""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

LIMIT = 32  # alternatives of one value; more is a hole (a name set in a loop of anything)


@dataclass(frozen=True)
class Lit:
    """Literal text of a value and where it is written: ``node`` the ``ast.Constant`` or
    ``ast.JoinedStr`` it comes from (None when the code implies it: a join's ``/``),
    ``part`` the index of an f-string's text run among the JoinedStr's values, ``start``
    where the text begins in that literal's value (a format string's piece)."""

    text: str
    node: ast.AST | None = None
    part: int = -1
    start: int = 0


HOLE = None
Part = Lit | None
Value = tuple[Part, ...]
UNKNOWN: list[Value] = [(HOLE,)]


def text(value: Value) -> str | None:
    """The value's whole text, when it has no hole."""
    if any(p is HOLE for p in value):
        return None
    return "".join(p.text for p in value)  # type: ignore[union-attr]


def glob(value: Value, pattern: bool = False) -> str:
    """The value as a glob pattern: a hole matches anything within one path component
    (``**`` would be a guess about how deep a variable's folder is). ``pattern``: the
    value is a pattern itself (given to ``glob.glob``), so its ``*`` are wildcards too."""
    return "".join("*" if p is HOLE else p.text if pattern else _glob_escape(p.text)
                   for p in value)


def _glob_escape(s: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", s) if any(c in s for c in "*?[") else s


def concat(*values: Value) -> Value:
    """Values joined end to end, adjacent holes merged."""
    out: list[Part] = []
    for v in values:
        for p in v:
            if p is HOLE and out and out[-1] is HOLE:
                continue
            out.append(p)
    return tuple(out)


def product(options: list[list[Value]], join=concat) -> list[Value]:
    """Every combination of one alternative per piece, joined (a hole past LIMIT)."""
    out: list[Value] = [()]
    for alts in options:
        out = [join(a, b) for a in out for b in alts]
        if len(out) > LIMIT:
            return list(UNKNOWN)
    return out


def join_path(a: Value, b: Value) -> Value:
    """``os.path.join(a, b)``: an absolute ``b`` starts over, an empty ``a`` adds nothing."""
    first = b[0] if b else HOLE
    if first is not HOLE and first.text.startswith("/"):
        return b
    if text(a) == "":
        return b
    last = a[-1] if a else HOLE
    if last is not HOLE and last.text.endswith("/"):
        return concat(a, b)
    return concat(a, (Lit("/"),), b)


def dirname(v: Value) -> Value | None:
    """The folder of a value whose last component is literal."""
    t = text(v)
    if t is not None:
        return (Lit(posixpath.dirname(t)),)
    last = v[-1] if v else HOLE
    if last is HOLE or "/" not in last.text:
        return None
    head = last.text.rpartition("/")[0]
    return (*v[:-1], Lit(head, last.node, last.part, last.start)) if head else v[:-1]


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
