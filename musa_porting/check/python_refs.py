"""What any Python file names of the project by string, found without parsing it whole:
its imports, the names it reads off the modules they bind (``_C.forward``), the ops it
calls (``torch.ops.ns.name``) and mmcv's ``load_ext('_ext', [...])`` lists.

A scan of the file's code (strings and comments blanked by the porter's lexer, at
regular-expression speed) finds each place; only the statements that hold an import
or a ``load_ext`` call are parsed, one at a time. A whole parse costs ten times the
scan, and most files of a large Python tree need none.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from bisect import bisect_right

_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import\b|import[ \t]+\w)", re.M)
_LOAD_EXT = re.compile(rb"\bload_ext[ \t]*\(")
_OPS = re.compile(rb"(?<![\w.])torch[ \t]*\.[ \t]*ops[ \t]*\.[ \t]*([A-Za-z_]\w*)[ \t]*\.[ \t]*"
                  rb"([A-Za-z_]\w*)")
_STORE = re.compile(rb"[ \t]*=(?!=)")
# Modules no project defines: their imports are not the check's business.
_OUTSIDE = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(
    {"torch", "torch_musa", "numpy", "setuptools", "pkg_resources", "distutils", "pytest",
     "typing_extensions", "triton", "scipy", "pybind11"})
_MAX_ATTRS = 200  # names read off imports, per file: the first of each, enough to check


class _Lines:
    """Line and column of an offset (line starts found once)."""

    def __init__(self, data: bytes):
        self.data = data
        self.starts = [0, *(m.end() for m in re.finditer(rb"\n", data))]

    def __call__(self, pos: int) -> tuple[int, int]:
        k = bisect_right(self.starts, pos)
        return k, pos - self.starts[k - 1] + 1


def import_rows(node: ast.Import | ast.ImportFrom, line: int, col: int
                ) -> list[tuple[str, str, int, int, str]]:
    """(module spec, the name it binds, line, col, the spec of what that name is) of
    each module an import names: a relative one with its leading dots; ``from m import
    a`` names ``m.a`` (a module, or an attribute of ``m``: the check tells which)."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            top = a.name.partition(".")[0]
            if top not in _OUTSIDE:  # `import a.b` binds `a`: what is read off it is a's
                out.append((a.name, a.asname or top, line, col, a.name if a.asname else top))
        return out
    base = "." * node.level + (node.module or "")
    if node.level == 0 and (node.module or "").partition(".")[0] in _OUTSIDE or base == "__future__":
        return []
    for a in node.names:
        if a.name != "*":
            spec = base + ("" if base.endswith(".") or not base else ".") + a.name
            out.append((spec, a.asname or a.name, line, col, spec))
    return out


def _statement(lx, data: bytes, pos: int) -> tuple[ast.Module, int] | None:
    """The logical line holding ``pos``, parsed alone, and where it starts."""
    start, end = lx.statement(pos)
    text = data[start:end]
    indent = len(text) - len(text.lstrip(b" \t"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text.strip()), start + indent
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def python_refs(data: bytes, out: dict) -> None:
    """The file's imports, names read off them, op calls and load_ext lists, into ``out``."""
    words = b"import" in data, b"load_ext" in data, b"ops" in data
    if not any(words):
        return
    from ..port.python.lexer import lex

    lx = lex(data)
    where = _Lines(data)
    bound: dict[str, str] = {}  # a name the file binds to a module -> the module
    if words[0]:
        for m in _IMPORT.finditer(data):
            if not lx.in_code(m.end() - 1):
                continue  # an import in a docstring
            got = _statement(lx, data, m.end() - 1)
            if got is None:
                continue
            line, col = where(got[1])
            for node in got[0].body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for spec, name, _, _, what in import_rows(node, line, col):
                        out.setdefault("imports", []).append([spec, line, col])
                        bound[name] = what
    if words[1]:
        for m in _LOAD_EXT.finditer(lx.code):
            _load_ext(lx, data, m.start(), where, bound, out)
    if words[2]:
        for m in _OPS.finditer(lx.code):
            if _STORE.match(lx.code, m.end()) is None:  # a placeholder stored is no read
                out.setdefault("reads", []).append([m.group(1).decode(), m.group(2).decode(),
                                                    *where(m.start())])
    if bound:
        _attrs(lx.code, bound, where, out)


def _load_ext(lx, data: bytes, pos: int, where: _Lines, bound: dict[str, str], out: dict) -> None:
    """mmcv's ``ext_module = ext_loader.load_ext('_ext', ['nms', ...])``: the names it
    asserts the extension has, and the name it binds to the extension."""
    got = _statement(lx, data, pos)
    if got is None:
        return
    tree, start = got
    base_line, base_col = where(start)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and (
                getattr(node.func, "attr", None) == "load_ext"
                or getattr(node.func, "id", None) == "load_ext")):
            continue
        module = _literal(node.args[0]) or "*"
        if len(node.args) > 1 and isinstance(node.args[1], (ast.List, ast.Tuple)):
            for item in node.args[1].elts:
                name = _literal(item)
                if name:
                    out.setdefault("attrs", []).append([
                        f"!{module}", name, base_line + item.lineno - 1,
                        item.col_offset + 1 + (base_col - 1 if item.lineno == 1 else 0)])
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) \
                and "load_ext" in (getattr(node.value.func, "attr", None),
                                   getattr(node.value.func, "id", None)) \
                and node.value.args and _literal(node.value.args[0]):
            bound[node.targets[0].id] = "!" + _literal(node.value.args[0])  # type: ignore[operator]


def _attrs(code: bytes, bound: dict[str, str], where: _Lines, out: dict) -> None:
    reads = re.compile(rb"(?<![\w.])(" + b"|".join(re.escape(n.encode()) for n in bound)
                       + rb")[ \t]*\.[ \t]*([A-Za-z_]\w*)")
    seen: set[tuple[bytes, bytes]] = set()
    rows = out.setdefault("attrs", [])
    for m in reads.finditer(code):
        key = (m.group(1), m.group(2))
        if key in seen:
            continue
        seen.add(key)
        rows.append([bound[m.group(1).decode()], m.group(2).decode(), *where(m.start(2))])
        if len(seen) >= _MAX_ATTRS:
            break
    if not rows:
        del out["attrs"]
