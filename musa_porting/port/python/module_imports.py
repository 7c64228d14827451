"""Imports of the tree's own Python modules that the port renamed (``modules.py`` says
which, and to what): ``StatementRewriter``'s rules for them, a mixin.

Every name the importing code binds stays as it was, so the code that uses it needs no
change: ``from . import cuda`` -> ``from . import musa as cuda``, ``import cuda_utils``
-> ``import musa_utils as cuda_utils``; ``import pkg.cuda.ops`` binds ``pkg``, so it
becomes ``import pkg.musa.ops`` and the code's ``pkg.cuda.ops.f()`` follows
(``pkg.musa.ops.f()``). The strings ``importlib.import_module`` and ``__import__`` take
are module names too (relative ones from ``__package__``).
"""

from __future__ import annotations

import ast

from . import names as n
from .imports import DOTTED, WORD, Misplaced

IMPORT_CALLS = frozenset({"importlib.import_module", "import_module", "__import__"})
SETUP_CALLS = frozenset({"setup", "setuptools.setup"})
# setup()'s arguments whose strings (and dict keys) are dotted module names.
_SETUP_MODULES = frozenset({"packages", "py_modules", "package_data", "package_dir",
                            "exclude_package_data"})
_PACKAGE_NAMES = frozenset({"__package__", "__name__"})


class ModuleImports:
    """A mixin of ``transform.StatementRewriter`` (positions, edits, the context)."""

    def _rename_dotted(self, start: int, new: list[str | None]) -> list[tuple[int, int]]:
        """Rename the parts of the dotted name written at ``start`` that ``new`` names;
        returns each part's span."""
        m = DOTTED.match(self.src, start)
        if m is None:
            raise Misplaced("a module's name")
        spans = [w.span() for w in WORD.finditer(self.src, start, m.end())]
        for (s, e), name in zip(spans, new):
            if name is not None:
                self._replace(s, e, name, n.MODULE)
        return spans

    def _tree_import(self, alias: ast.alias) -> None:
        """``import a.b.c [as x]`` of the tree's modules."""
        mt, rel = self.ctx.modules, self.ctx.module_file
        parts = alias.name.split(".")
        found = mt.absolute(rel, parts)
        if not found:
            return
        new = mt.new_parts(parts, found)
        if alias.asname is None:
            self.ctx.module_bindings[parts[0]] = found[0]
        elif len(found) == len(parts):
            self.ctx.module_bindings[alias.asname] = found[-1]
        if not any(new):
            return
        spans = self._rename_dotted(self.span(alias)[0], new)
        if alias.asname is None and new[0] is not None:
            if len(parts) == 1:  # the name the code uses stays bound
                self._replace(*spans[0], f"{new[0]} as {parts[0]}", n.MODULE)
            else:  # binds the new name: the code's uses follow (visit_Name)
                self.ctx.renamed_heads[parts[0]] = new[0]

    def _tree_import_from(self, node: ast.ImportFrom, at: int | None) -> None:
        """``from X import a, b`` where X is a module of the tree (``at``: where X is
        written, None for ``from . import a``): X's renamed parts, and each imported
        name that is a renamed submodule (bound under its old name)."""
        mt, rel = self.ctx.modules, self.ctx.module_file
        parts = node.module.split(".") if node.module else []
        if node.level:
            base = mt.relative(rel, node.level, parts)
            if base is None:
                return
            folder, found = base
        else:
            found = mt.absolute(rel, parts)
            if not found:
                return
            folder = ""
        if parts:
            new = mt.new_parts(parts, found)
            if any(new) and at is not None:
                self._rename_dotted(at, new)
        if len(found) < len(parts):
            return
        package = found[-1] if parts else folder
        if package.endswith(".py"):
            return  # names of a module: its attributes
        for alias in node.names:
            if alias.name == "*":
                continue
            sub = mt.resolve(package, [alias.name])
            if not sub:
                continue
            self.ctx.module_bindings[alias.asname or alias.name] = sub[0]
            new_name = mt.renamed.get(sub[0])
            if new_name is not None:
                start = self.span(alias)[0]
                end = self._at(start, alias.name)
                bound = "" if alias.asname is not None else f" as {alias.name}"
                self._replace(start, end, new_name + bound, n.MODULE)

    def _tree_attribute(self, base: str, attr: str, attr_start: int, end: int) -> bool:
        """``pkg.cuda`` in code, where ``pkg`` is bound to a package of the tree (by an
        import, or as the tree's own top-level package) and ``pkg/cuda`` was renamed."""
        mt = self.ctx.modules
        head, _, rest = base.partition(".")
        path = self.ctx.module_bindings.get(head)
        if path is None:
            top = mt.absolute(self.ctx.module_file, [head])
            path = top[0] if top and top[0] in mt.packages else None
        if path is None or path.endswith(".py"):
            return False
        parts = [*(rest.split(".") if rest else []), attr]
        found = mt.resolve(path, parts)
        if len(found) != len(parts):
            return False
        new = mt.renamed.get(found[-1])
        if new is not None:
            self._replace(attr_start, end, new, n.MODULE)
        return True

    def _setup_modules(self, node: ast.Call) -> None:
        """``setup(packages=["pkg", "pkg._cuda"], package_data={"pkg._cuda": ...})``: the
        packages and modules setuptools looks for, under their names in OUT."""
        mt, rel = self.ctx.modules, self.ctx.module_file
        for kw in node.keywords:
            if kw.arg not in _SETUP_MODULES:
                continue
            value = kw.value
            items = value.keys if isinstance(value, ast.Dict) else \
                value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else []
            for item in items:
                if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                    continue
                parts = item.value.split(".")
                if not all(p.isidentifier() for p in parts):
                    continue
                found = mt.absolute(rel, parts)
                new = mt.new_parts(parts, found) if len(found) == len(parts) else []
                if any(new):
                    self._module_string(item, ".".join(b or a for a, b in zip(parts, new)))

    def _module_string(self, node: ast.Constant, body: str) -> None:
        """The plain string literal ``node`` (a module's name) rewritten to ``body``."""
        pieces = self._pieces(node)
        if len(pieces) != 1 or pieces[0].is_fstring or pieces[0].is_bytes \
                or self._text(pieces[0].body_start, pieces[0].body_end) != node.value:
            return
        self._piece(pieces[0], body, n.MODULE)

    def _import_string(self, node: ast.Call, fname: str) -> None:
        """``importlib.import_module("pkg.cuda.ops")``, ``import_module(".ops_cuda",
        __package__)``, ``__import__("pkg.cuda")``: the module name follows."""
        if not node.args or not isinstance(node.args[0], ast.Constant) \
                or not isinstance(node.args[0].value, str):
            return
        name = node.args[0].value
        dots = len(name) - len(name.lstrip("."))
        parts = name[dots:].split(".")
        if not all(p.isidentifier() for p in parts):
            return
        mt, rel = self.ctx.modules, self.ctx.module_file
        if dots:
            package = node.args[1] if len(node.args) > 1 and fname != "__import__" else next(
                (k.value for k in node.keywords if k.arg == "package"), None)
            if not (isinstance(package, ast.Name) and package.id in _PACKAGE_NAMES) or (
                    package.id == "__name__" and not rel.endswith("__init__.py")):
                return
            base = mt.relative(rel, dots, parts)
            found = base[1] if base is not None else []
        else:
            found = mt.absolute(rel, parts)
        new = mt.new_parts(parts, found)
        if not any(new):
            return
        self._module_string(node.args[0], "." * dots + ".".join(b or a for a, b in zip(parts, new)))
