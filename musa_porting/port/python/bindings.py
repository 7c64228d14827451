"""What each name of a Python module is given, for ``values.py``: every assignment, and
loop targets over what can be read (literal lists, ``product``/``zip``/``enumerate`` of
them), ``+=``, ``.append`` and ``.extend``, and the names ``os.path`` goes by.

One pass over the module's tree, with no regard for order or scope: a name assigned in
two places has both values. That over-approximates (a check sees every value a name can
take, a rewrite every literal that flows into it), which is what both need; a value read
in order would need the program run.
"""

from __future__ import annotations

import ast

PATH_MODULES = ("os.path", "posixpath", "ntpath")


class Bindings:
    """A module's names and the expressions each is given."""

    def __init__(self, tree: ast.AST):
        self.env: dict[str, list[ast.expr]] = {}
        self.path_modules: set[str] = set(PATH_MODULES)
        self.path_functions: dict[str, str] = {}  # a bare name -> the os.path function it is
        self._busy: set[str] = set()
        for node in ast.walk(tree):
            self._read(node)

    def _read(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                self._bind(t, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            self._bind(node.target, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind_loop(node.target, node.iter)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend", "insert") \
                and isinstance(node.func.value, ast.Name) and node.args:
            arg = node.args[-1]  # extend(list) adds its elements; append(x) adds x
            self._bind(node.func.value, arg if node.func.attr == "extend"
                       else ast.List(elts=[arg], ctx=ast.Load()))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in PATH_MODULES and a.asname:
                    self.path_modules.add(a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", *PATH_MODULES):
            for a in node.names:
                if node.module == "os" and a.name == "path":
                    self.path_modules.add(a.asname or "path")
                elif node.module != "os":
                    self.path_functions[a.asname or a.name] = a.name

    def _bind(self, target: ast.AST, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.env.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                self._bind(t, v)

    def _bind_loop(self, target: ast.AST, iterable: ast.expr) -> None:
        """A loop target gets the elements of what it iterates: a literal list, a name
        bound to one, ``product``/``zip`` of such, ``enumerate`` of one."""
        call = iterable.func if isinstance(iterable, ast.Call) else None
        fn = call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else ""
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(iterable, ast.Call) \
                and fn in ("product", "zip") and len(iterable.args) == len(target.elts):
            for t, arg in zip(target.elts, iterable.args):
                self._bind_loop(t, arg)
            return
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(iterable, ast.Call) \
                and fn == "enumerate" and len(target.elts) == 2 and iterable.args:
            self._bind_loop(target.elts[1], iterable.args[0])
            return
        items = self.elements(iterable)
        for element in items or ():
            self._bind(target, element)
        if isinstance(target, ast.Name) and not items:
            # Iterating what cannot be read (a glob, an argument): a value of its own.
            self.env.setdefault(target.id, []).append(ast.Name(id="\0unknown", ctx=ast.Load()))

    def elements(self, node: ast.expr, depth: int = 0) -> list[ast.expr] | None:
        """The elements of a literal list, tuple or set (or a name bound only to such, or
        a sum of them); None when they cannot be read."""
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            return list(node.elts)
        if depth >= 8:
            return None
        if isinstance(node, (ast.BinOp, ast.IfExp)) and (
                isinstance(node, ast.IfExp) or isinstance(node.op, ast.Add)):
            a, b = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.body, node.orelse)
            ea, eb = self.elements(a, depth + 1), self.elements(b, depth + 1)
            return None if ea is None or eb is None else ea + eb
        if isinstance(node, ast.Name) and node.id not in self._busy:
            bound = self.env.get(node.id)
            if not bound:
                return None
            out: list[ast.expr] = []
            self._busy.add(node.id)
            try:
                for b in bound:
                    got = self.elements(b, depth + 1)
                    if got is None:
                        return None
                    out += got
            finally:
                self._busy.discard(node.id)
            return out
        return None
