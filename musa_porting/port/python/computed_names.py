"""Which expressions of a module compute a path or a module's name, and how each is
matched: a path as a regex over the tree's files, a module's own name as a pattern of
literal runs and holes (``rules/name_patterns.py``). The reading half of
``computed.py``, pure functions of the tree and of ``values.py``'s values."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from ...rules import name_patterns as np
from .values import HOLE, Lit, Value

_FORMERS = frozenset({"format", "join", "Path", "PurePath", "PurePosixPath", "abspath",
                      "realpath", "normpath", "expanduser", "dirname"})
_MODULE_CALLS = {"find_spec": ".", "import_module": ".", "__import__": ".", "load_library": "/"}
_GLOB_CALLS = frozenset({"glob", "iglob", "rglob"})


def uses(tree: ast.AST) -> tuple[list[tuple[ast.AST, str]], list[ast.Compare]]:
    """Expressions that compute a name, each with how it is used: ``path`` (a maximal
    string expression), ``pattern`` (a glob's argument), ``.`` (a module name) or ``/``
    (a module's file); and the comparisons (what a decided piece may be compared with).
    One walk of the tree; only a string expression's own children are looked at twice."""
    out: list[tuple[ast.AST, str]] = []
    formers: list[ast.AST] = []
    inner: set[int] = set()  # an expression inside another, or a glob's argument
    compares: list[ast.Compare] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            compares.append(node)
        elif _former(node):
            formers.append(node)
            inner.update(map(id, ast.iter_child_nodes(node)))
        if isinstance(node, ast.Call):
            name = _last_name(node.func)
            arg = next((k.value for k in node.keywords if k.arg == "name"),
                       node.args[0] if node.args else None)
            if arg is not None and name in _MODULE_CALLS:
                out.append((arg, _MODULE_CALLS[name]))
            elif arg is not None and name.endswith("Extension") and name != "BuildExtension":
                out.append((arg, "."))
            elif name in _GLOB_CALLS and node.args:
                out.append((node.args[0], "pattern"))
                inner.add(id(node.args[0]))
    out += [(f, "path") for f in formers if id(f) not in inner]
    return out, compares


def _former(node: ast.AST) -> bool:
    """An expression that builds a string from pieces."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Mod, ast.Div))
    return isinstance(node, ast.Call) and _last_name(node.func) in _FORMERS


def _last_name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id \
        if isinstance(func, ast.Name) else ""


def path_regex(v: Value, pattern: bool, base: str, new: dict | None = None,
                holes: tuple | None = None, spans: bool = False) -> re.Pattern[str] | None:
    """The value as a regex over paths from ``base``: a hole one component (a leading one
    any folders, or none); ``new`` gives a piece's text, ``holes`` what each hole covers;
    with ``spans``, part ``i`` is the group ``p<i>``. The empty folder of a top-level
    file's ``__file__`` before a ``/`` is the root."""
    out = [re.escape(base + "/")] if base else []
    first = 0
    while first < len(v) - 1 and v[first] is not HOLE and v[first].text == "":  # type: ignore[union-attr]
        first += 1
    relative = first > 0  # '{}/csrc'.format(here), here the root: csrc
    k = sum(1 for p in v[:first] if p is HOLE)
    for i in range(first, len(v)):
        p = v[i]
        if spans:
            out.append(f"(?P<p{i}>")
        if p is HOLE:
            if holes is not None:
                out.append(re.escape(holes[k] or ""))
            elif i == first and i + 1 < len(v) and v[i + 1] is not HOLE \
                    and v[i + 1].text.startswith("/"):  # type: ignore[union-attr]
                out.append("(?:(.*)/)?")  # the folder it is under: any, or the root
                relative = True
            else:
                out.append("([^/]*)")
            k += 1
            out.append(")" if spans else "")
            continue
        text = new[p] if new is not None else p.text
        if relative and text.startswith("/") and (i == first or v[i - 1] is HOLE and i == first + 1):
            lead = v[first] is HOLE and holes is not None and holes[0]
            text = text if lead else text[1:]
        if i == first and text.startswith("./"):
            text = text[2:]
        out.append(_glob_piece(text) if pattern else re.escape(text))
        out.append(")" if spans else "")
    try:
        return re.compile("".join(out), re.S)
    except re.error:
        return None


def aligned(v: Value, pattern: bool, base: str, path: str, out: str) -> dict[Lit, str] | None:
    """Each piece of ``v`` that is whole components of ``path`` (``csrc``, ``/cuda/``), as
    the same components of ``out`` (``path``'s output, as many components: ``csrc_musa``,
    ``/musa/``); None when they do not line up."""
    rx = path_regex(v, pattern, base, spans=True)
    m = rx.fullmatch(path) if rx is not None else None
    comps, new = path.split("/"), out.split("/")
    if m is None or len(comps) != len(new):
        return None
    starts = [0]
    for c in comps:
        starts.append(starts[-1] + len(c) + 1)  # where each component starts
    result: dict[Lit, str] = {}
    for i, p in enumerate(v):
        if p is HOLE or f"p{i}" not in rx.groupindex or m.group(f"p{i}") is None:  # type: ignore[union-attr]
            continue
        a, b = m.span(f"p{i}")
        text = path[a:b]
        lead, trail = text.startswith("/"), text.endswith("/") and len(text) > 1
        a, b = a + lead, b - trail
        if a in starts and b + 1 in starts and a < b and text.strip("/") == p.text.strip("/"):
            first, last = starts.index(a), starts.index(b + 1)
            result[p] = "/" * lead + "/".join(new[first:last]) + "/" * trail
    return result


def tail(v: Value, sep: str) -> list[tuple[Lit | None, int, int]]:
    """The part of a module name (or its file's name) that names the module itself:
    after the last ``sep`` written in a piece (a file's extension cut off), as slices of
    the pieces (piece, start, end) and holes."""
    out: list[tuple[Lit | None, int, int]] = []
    for p in reversed(v):
        if p is HOLE:
            out.append((HOLE, 0, 0))
            continue
        cut = p.text.rfind(sep)
        out.append((p, cut + 1, len(p.text)))
        if cut >= 0:
            break
    out.reverse()
    if sep == "/":  # _C_cuda.so, _C_cuda.cpython-311-x86_64-linux-gnu.so
        for k, (p, s, e) in enumerate(out):
            dot = p.text.find(".", s, e) if p is not HOLE else -1
            if dot >= 0:
                out = out[:k] + [(p, s, dot)]
                break
    return [(p, s, e) for p, s, e in out if p is HOLE or e > s or len(out) == 1]


def joined(pieces: Sequence[str | None]) -> np.Parts:
    """Pieces and holes as a pattern: adjacent pieces one run, adjacent holes one hole."""
    out: list[str | None] = []
    for piece in pieces:
        if piece is not None and out and out[-1] is not None:
            out[-1] += piece
        elif not (piece is None and out and out[-1] is None):
            out.append(piece)
    return tuple(out)


def _glob_piece(text: str) -> str:
    """A glob pattern's piece as a regex (``**`` spans folders, as with recursive=True)."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if text.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
            continue
        if text.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        j = text.find("]", i + 2) if c == "[" else -1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif j > 0:
            inner = text[i + 1:j]
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else re.escape(inner)) + "]")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def names(parts: np.Parts, old: str) -> bool:
    """The computed name ``parts`` may be the module ``old`` (a name or a pattern)."""
    if "*" in old:
        return np.intersect(parts, np.parse(old))
    return np.captures(parts, old) is not None


def follows(parts: np.Parts, old: str, new_parts: np.Parts, new: str) -> bool:
    if "*" in old:
        return np.intersect(new_parts, np.parse(new))
    return np.follows(parts, old, new_parts, new)
