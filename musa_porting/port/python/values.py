"""What a Python string expression computes, read without running it.

A build names files and modules by computing them: ``osp.join(extensions_dir, 'cuda',
f'{name}_cuda.cu')``, ``"{}/src/*.cu".format(root)``, ``f'{library}_cuda'`` in a loop over
a list of names. A port that renames files and modules must follow those pieces, and a
check of the ported tree must tell what the build will look for; both need the value of
the expression, which is literal text the code holds and holes where it comes from
outside (a glob's result, an argument, the environment).

``Values(tree, file)`` reads a module once: every name's assignments (also loop targets
over literal lists, ``product``/``zip``/``enumerate`` of them, ``+=``, ``.append``), and
``values(node)`` gives an expression's alternatives, each a tuple of ``Lit`` (text and
the literal it is written in, for a rewrite) and ``HOLE``. Conditional and repeated
assignments give several alternatives; past ``LIMIT`` a name is a hole. Unknown calls,
subscripts and attributes are holes: a value is never guessed, only read.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .bindings import Bindings

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
_UNKNOWN: list[Value] = [(HOLE,)]

_PATH_IDENTITY = frozenset({"abspath", "realpath", "normpath", "expanduser", "str", "fspath",
                            "resolve", "absolute"})
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(![rsa])?(:[^{}]*)?\}")
_PERCENT_FIELD = re.compile(r"%%|%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?([sdirf])")


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


def _product(options: list[list[Value]], join=concat) -> list[Value]:
    out: list[Value] = [()]
    for alts in options:
        out = [join(a, b) for a in out for b in alts]
        if len(out) > LIMIT:
            return list(_UNKNOWN)
    return out


class Values(Bindings):
    """The string values of one module's expressions (``file``: the module's path,
    POSIX, relative to the tree it is in: what ``__file__`` names)."""

    def __init__(self, tree: ast.AST, file: str = ""):
        super().__init__(tree)
        self.file = file
        self._cache: dict[str, list[Value]] = {}

    # -- what an expression computes --------------------------------------------------

    def values(self, node: ast.AST | None) -> list[Value]:
        """The alternatives of ``node``'s string value (a single hole when unknown)."""
        if node is None:
            return list(_UNKNOWN)
        got = self._values(node)
        if len(got) > LIMIT:
            return list(_UNKNOWN)
        seen: dict[tuple, Value] = {}
        for v in got:
            seen.setdefault(tuple(None if p is HOLE else p.text for p in v), v)
        return list(seen.values())

    def _values(self, node: ast.AST) -> list[Value]:
        if isinstance(node, ast.Constant):
            return [(Lit(node.value, node),)] if isinstance(node.value, str) else list(_UNKNOWN)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.IfExp):
            return self._values(node.body) + self._values(node.orelse)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                return _product([self._values(node.left), self._values(node.right)])
            if isinstance(node.op, ast.Div):  # pathlib: Path(a) / "b"
                return _product([self._values(node.left), self._values(node.right)], join_path)
            if isinstance(node.op, ast.Mod):
                return self._percent(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute) and node.attr == "sep" and _dotted(node.value) == "os":
            return [(Lit("/"),)]
        if isinstance(node, ast.Attribute) and node.attr == "parent":  # Path(__file__).parent
            return [d for v in self._values(node.value) for d in [_dirname(v)] if d is not None] \
                or list(_UNKNOWN)
        return list(_UNKNOWN)

    def _name(self, name: str) -> list[Value]:
        if name == "__file__":
            return [(Lit(self.file),)] if self.file else list(_UNKNOWN)
        if name in self._cache:
            return self._cache[name]
        bound = self.env.get(name)
        if not bound or name in self._busy:
            return list(_UNKNOWN)
        self._busy.add(name)
        try:
            out: list[Value] = []
            for b in bound:
                out += self._values(b)
                if len(out) > LIMIT:
                    out = list(_UNKNOWN)
                    break
        finally:
            self._busy.discard(name)
        self._cache[name] = out
        return out

    def _fstring(self, node: ast.JoinedStr) -> list[Value]:
        options: list[list[Value]] = []
        for i, v in enumerate(node.values):
            if isinstance(v, ast.Constant):
                options.append([(Lit(v.value, node, i),)])
            elif isinstance(v, ast.FormattedValue) and v.format_spec is None:
                options.append(self._values(v.value))
            else:
                options.append(list(_UNKNOWN))
        return _product(options)

    def _call(self, node: ast.Call) -> list[Value]:
        fn = node.func
        name = _dotted(fn) or ""
        last = name.rpartition(".")[2]
        if isinstance(fn, ast.Attribute) and fn.attr == "format":
            return self._format(node)
        if isinstance(fn, ast.Attribute) and fn.attr == "join" and isinstance(fn.value, ast.Constant) \
                and isinstance(fn.value.value, str) and len(node.args) == 1:
            items = self.elements(node.args[0])
            if items is None:
                return list(_UNKNOWN)
            sep = [(Lit(fn.value.value, fn.value),)]
            options: list[list[Value]] = []
            for k, item in enumerate(items):
                if k:
                    options.append(sep)
                options.append(self._values(item))
            return _product(options)
        path_fn = self._path_function(fn)
        if path_fn == "join" or last in ("Path", "PurePath", "PurePosixPath"):
            if not node.args:
                return [(Lit(""),)] if last != "join" else list(_UNKNOWN)
            return _product([self._values(a) for a in node.args], join_path)
        if path_fn == "dirname" and node.args:
            return [d for v in self._values(node.args[0]) for d in [_dirname(v)] if d is not None] \
                or list(_UNKNOWN)
        if (path_fn in _PATH_IDENTITY or last in ("str", "fspath")) and len(node.args) == 1:
            return self._values(node.args[0])
        if isinstance(fn, ast.Attribute) and fn.attr in _PATH_IDENTITY and not node.args:
            return self._values(fn.value)  # Path(x).resolve()
        return list(_UNKNOWN)

    def _path_function(self, fn: ast.AST) -> str | None:
        """The os.path function ``fn`` names (``osp.join``, ``os.path.join``, a ``join``
        imported from os.path), or None."""
        if isinstance(fn, ast.Attribute):
            base = _dotted(fn.value)
            return fn.attr if base in self.path_modules else None
        if isinstance(fn, ast.Name):
            return self.path_functions.get(fn.id)
        return None

    def _format(self, node: ast.Call) -> list[Value]:
        """``"...{}...".format(args)``: positional, numbered and named fields."""
        fmt = node.func.value  # type: ignore[attr-defined]
        if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
            return list(_UNKNOWN)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return list(_UNKNOWN)
        kw = {k.arg: k.value for k in node.keywords}
        options: list[list[Value]] = []
        pos, auto = 0, 0
        for m in _FORMAT_FIELD.finditer(fmt.value):
            if m.start() > pos:
                options.append([(Lit(fmt.value[pos:m.start()], fmt, -1, pos),)])
            pos = m.end()
            if m.group(0) in ("{{", "}}"):
                options.append([(Lit(m.group(0)[0], fmt, -1, m.start()),)])
                continue
            key = m.group(1)
            arg: ast.expr | None
            if key == "":
                arg = node.args[auto] if auto < len(node.args) else None
                auto += 1
            elif key.isdigit():
                arg = node.args[int(key)] if int(key) < len(node.args) else None
            else:
                arg = kw.get(key)
            options.append(self._values(arg) if arg is not None and not m.group(3) else list(_UNKNOWN))
        if pos < len(fmt.value):
            options.append([(Lit(fmt.value[pos:], fmt, -1, pos),)])
        return _product(options)

    def _percent(self, node: ast.BinOp) -> list[Value]:
        """``"...%s..." % args``."""
        fmt = node.left
        if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
            return list(_UNKNOWN)
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        named = node.right if isinstance(node.right, ast.Dict) else None
        options: list[list[Value]] = []
        pos, k = 0, 0
        for m in _PERCENT_FIELD.finditer(fmt.value):
            if m.start() > pos:
                options.append([(Lit(fmt.value[pos:m.start()], fmt, -1, pos),)])
            pos = m.end()
            if m.group(0) == "%%":
                options.append([(Lit("%", fmt, -1, m.start()),)])
                continue
            arg: ast.expr | None = None
            if m.group(1) and named is not None:
                arg = next((v for key, v in zip(named.keys, named.values)
                            if isinstance(key, ast.Constant) and key.value == m.group(1)), None)
            elif not m.group(1) and named is None and k < len(args):
                arg = args[k]
            k += 1
            options.append(self._values(arg) if arg is not None and m.group(2) == "s"
                           else list(_UNKNOWN))
        if pos < len(fmt.value):
            options.append([(Lit(fmt.value[pos:], fmt, -1, pos),)])
        return _product(options)


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


def _dirname(v: Value) -> Value | None:
    """The folder of a value whose last component is literal."""
    t = text(v)
    if t is not None:
        return (Lit(posixpath.dirname(t)),)
    last = v[-1] if v else HOLE
    if last is HOLE or "/" not in last.text:
        return None
    head = last.text.rpartition("/")[0]
    return (*v[:-1], Lit(head, last.node, last.part, last.start)) if head else v[:-1]


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def string_calls(tree: ast.AST, names: Iterable[str]) -> Iterator[ast.Call]:
    """The calls in ``tree`` of a function whose dotted name ends with one of ``names``
    (``glob``, ``exists``, ``find_spec``, ``import_module``, ``load_library``...)."""
    wanted = set(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name is not None and name.rpartition(".")[2] in wanted:
                yield node
