"""What a Python string expression computes, read without running it.

A build names files and modules by computing them: ``osp.join(extensions_dir, 'cuda',
f'{name}_cuda.cu')``, ``"{}/src/*.cu".format(root)``, ``f'{library}_cuda'`` in a loop over
a list of names. A port that renames files and modules must follow those pieces, and a
check of the ported tree must tell what the build will look for; both need the value of
the expression, which is literal text the code holds and holes where it comes from
outside (a glob's result, an argument, the environment).

``Values(tree, file)`` reads a module once (``bindings.py``: what each name is given),
and ``values(node)`` gives an expression's alternatives, each a tuple of ``Lit`` (text
and the literal it is written in, for a rewrite) and ``HOLE`` (``value_model.py``).
Conditional and repeated assignments give several alternatives; past ``LIMIT`` a name is
a hole. Unknown calls, subscripts and attributes are holes: a value is never guessed,
only read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from .bindings import Bindings
from .formats import format_call, percent
from .value_model import HOLE, LIMIT, UNKNOWN, Lit, Value, dirname, dotted, glob, join_path, product, text

__all__ = ["HOLE", "LIMIT", "Lit", "Value", "Values", "glob", "string_calls", "text"]

_PATH_IDENTITY = frozenset({"abspath", "realpath", "normpath", "expanduser", "str", "fspath",
                            "resolve", "absolute"})


class Values(Bindings):
    """The string values of one module's expressions (``file``: the module's path,
    POSIX, relative to the tree it is in: what ``__file__`` names)."""

    def __init__(self, tree: ast.AST, file: str = ""):
        super().__init__(tree)
        self.file = file
        self._cache: dict[str, list[Value]] = {}

    def values(self, node: ast.AST | None) -> list[Value]:
        """The alternatives of ``node``'s string value (a single hole when unknown)."""
        if node is None:
            return list(UNKNOWN)
        got = self._values(node)
        if len(got) > LIMIT:
            return list(UNKNOWN)
        # Alike only when built of the same pieces written in the same places: two lists
        # that both spell 'cuda' are two places a rewrite (or a keep) must reach.
        return list(dict.fromkeys(got))

    def _values(self, node: ast.AST) -> list[Value]:
        if isinstance(node, ast.Constant):
            return [(Lit(node.value, node),)] if isinstance(node.value, str) else list(UNKNOWN)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.IfExp):
            return self._values(node.body) + self._values(node.orelse)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                return product([self._values(node.left), self._values(node.right)])
            if isinstance(node.op, ast.Div):  # pathlib: Path(a) / "b"
                return product([self._values(node.left), self._values(node.right)], join_path)
            if isinstance(node.op, ast.Mod):
                return percent(node, self._values)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute) and node.attr == "sep" and dotted(node.value) == "os":
            return [(Lit("/"),)]
        if isinstance(node, ast.Attribute) and node.attr == "parent":  # Path(__file__).parent
            return [d for v in self._values(node.value) for d in [dirname(v)] if d is not None] \
                or list(UNKNOWN)
        return list(UNKNOWN)

    def _name(self, name: str) -> list[Value]:
        if name == "__file__":
            return [(Lit(self.file),)] if self.file else list(UNKNOWN)
        if name in self._cache:
            return self._cache[name]
        bound = self.env.get(name)
        if not bound or name in self._busy:
            return list(UNKNOWN)
        self._busy.add(name)
        try:
            out: list[Value] = []
            for b in bound:
                out += self._values(b)
                if len(out) > LIMIT:
                    out = list(UNKNOWN)
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
                options.append(list(UNKNOWN))
        return product(options)

    def _call(self, node: ast.Call) -> list[Value]:
        fn = node.func
        last = (dotted(fn) or "").rpartition(".")[2]
        if isinstance(fn, ast.Attribute) and fn.attr == "format":
            return format_call(node, self._values)
        if isinstance(fn, ast.Attribute) and fn.attr == "join" and isinstance(fn.value, ast.Constant) \
                and isinstance(fn.value.value, str) and len(node.args) == 1:
            return self._str_join(fn.value, node.args[0])
        path_fn = self._path_function(fn)
        if path_fn == "join" or last in ("Path", "PurePath", "PurePosixPath"):
            if not node.args:
                return [(Lit(""),)] if last != "join" else list(UNKNOWN)
            return product([self._values(a) for a in node.args], join_path)
        if path_fn == "dirname" and node.args:
            return [d for v in self._values(node.args[0]) for d in [dirname(v)] if d is not None] \
                or list(UNKNOWN)
        if (path_fn in _PATH_IDENTITY or last in ("str", "fspath")) and len(node.args) == 1:
            return self._values(node.args[0])
        if isinstance(fn, ast.Attribute) and fn.attr in _PATH_IDENTITY and not node.args:
            return self._values(fn.value)  # Path(x).resolve()
        return list(UNKNOWN)

    def _str_join(self, sep: ast.Constant, items_node: ast.expr) -> list[Value]:
        """``"/".join([a, b])``: the items' values with the separator between."""
        items = self.elements(items_node)
        if items is None:
            return list(UNKNOWN)
        options: list[list[Value]] = []
        for k, item in enumerate(items):
            if k:
                options.append([(Lit(sep.value, sep),)])
            options.append(self._values(item))
        return product(options)

    def _path_function(self, fn: ast.AST) -> str | None:
        """The os.path function ``fn`` names (``osp.join``, ``os.path.join``, a ``join``
        imported from os.path), or None."""
        if isinstance(fn, ast.Attribute):
            return fn.attr if dotted(fn.value) in self.path_modules else None
        if isinstance(fn, ast.Name):
            return self.path_functions.get(fn.id)
        return None




def string_calls(tree: ast.AST, names: Iterable[str]) -> Iterator[ast.Call]:
    """The calls in ``tree`` of a function whose dotted name ends with one of ``names``
    (``glob``, ``exists``, ``find_spec``, ``import_module``, ``load_library``...)."""
    wanted = set(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name is not None and name.rpartition(".")[2] in wanted:
                yield node
