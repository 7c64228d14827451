"""What a ported Python file names by string: the extensions, sources and globs a
``setup.py`` builds with and the modules a loader computes (read here, from the whole
file's syntax tree), and, for every file, its imports, the ops and extension names it
reads (``python_refs.py``, a scan).

A file that names no word the port renames (``words.py``) has no reference the port
could break: it is not read further (a setup.py is, for what the build makes). A file
is parsed whole only when it holds a word of a build, a loader, or a path checked next
to ``__file__``: a parse costs ten times the scan.

Values come from ``port/python/values.py``: a path is a glob pattern, ``*`` where the
value is not known. ``__file__`` is read as the file's own path, so what is computed
from its folder is relative to the top of the tree; in a ``setup.py`` a plain relative
path is relative to its folder (where ``pip`` runs it); elsewhere it depends on the
working folder at run time, and is left alone.
"""

from __future__ import annotations

import ast
import posixpath
import warnings

from ..port.python.value_model import dotted
from ..port.python.values import Values, glob
from .paths import normalize
from .python_refs import python_refs
from .words import names_port_words

ROOT = "\x00"  # __file__'s value starts with it: what follows is tree-relative
_LOADER_WORDS = (b"find_spec", b"import_module", b"load_library")
_PATH_WORDS = (b"glob", b"exists", b"isfile", b"isdir")
_EXISTS = frozenset({"exists", "isfile", "isdir"})
_SOURCES = (".cu", ".cuh", ".mu", ".muh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")


def python_facts(data: bytes, rel: str) -> dict:
    out: dict = {}
    setup = posixpath.basename(rel) == "setup.py" or b"cpp_extension" in data or (
        b"Extension(" in data and b"setuptools" in data)
    if not setup and not names_port_words(data):
        return out  # nothing here can differ from its other end by the port's renames
    python_refs(data, out)
    if setup or any(w in data for w in _LOADER_WORDS) or (
            b"__file__" in data and any(w in data for w in _PATH_WORDS)):
        tree = _parse(data)
        if tree is not None:
            _Reader(tree, rel, setup, out).read()
    return out


def _parse(data: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _dotted(node: ast.AST) -> str:
    return dotted(node) or ""


class _Reader:
    """One pass over a parsed module's nodes, gathering its facts into ``out``."""

    def __init__(self, tree: ast.Module, rel: str, setup: bool, out: dict):
        self.tree = tree
        self.here = posixpath.dirname(rel)
        self.setup = setup
        self.values = Values(tree, f"{ROOT}/{rel}")
        self.out = out

    def add(self, key: str, row: list) -> None:
        rows = self.out.setdefault(key, [])
        if row not in rows:  # a value read twice (a check, then the sources) is one fact
            rows.append(row)

    def read(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                self.call(node)

    def call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        last = name.rpartition(".")[2] if name else (
            node.func.attr if isinstance(node.func, ast.Attribute) else "")
        if self.is_extension(last, node.func) or (
                last == "load" and any(k.arg == "sources" for k in node.keywords)):  # a JIT build
            self.extension(node)
        elif last in ("glob", "iglob", "rglob"):
            self.glob(node, last, name)
        elif last in _EXISTS:
            self.exists(node)
        elif last == "remove" and self.setup and len(node.args) == 1 \
                and isinstance(node.func, ast.Attribute):  # op_files.remove('.../x_musa.mu')
            for v in self.values.values(node.args[0]):
                if glob(v).endswith(_SOURCES):
                    self.path_rows(node.args[0], "remove", node)
                    break
        elif last == "find_spec" and node.args:
            folder = ""
            if len(node.args) > 1:
                items = self.values.elements(node.args[1])
                if items:
                    folder = self.folder(items[0])
            self.loads(node.args[0], folder, node, "find_spec")
        elif last == "import_module" and node.args:
            self.loads(node.args[0], "", node, "import_module")
        elif last == "load_library" and node.args:
            self.load_library(node)

    def is_extension(self, last: str, func: ast.expr) -> bool:
        """``CUDAExtension(...)``, or a name bound only to such classes (mmcv's
        ``extension = CUDAExtension``)."""
        if last.endswith("Extension"):
            return last != "BuildExtension"
        bound = self.values.env.get(func.id, ()) if isinstance(func, ast.Name) else ()
        classes: list[ast.expr] = []
        for b in bound:  # `Extension = CppExtension if cpu else CUDAExtension` too
            classes += [b.body, b.orelse] if isinstance(b, ast.IfExp) else [b]
        return bool(classes) and all(_dotted(c).endswith("Extension") for c in classes)

    def path(self, value, pattern: bool = False) -> str | None:
        """The tree path (a glob) of a computed value, or None (outside the tree, or
        relative to a working folder the file does not fix)."""
        g = glob(value, pattern)
        if g.startswith(ROOT):
            return normalize(g[len(ROOT):].lstrip("/")) if g != ROOT else None
        if g.startswith("/") or not self.setup:
            return None
        if g.startswith("*/"):
            g = g[2:]  # an unknown base folder: the setup.py's (the likeliest)
        if not g.strip("*/."):
            return None
        return normalize(posixpath.join(self.here, g))

    def folder(self, node: ast.expr) -> str:
        for v in self.values.values(node):
            found = self.path(v)
            if found is not None and "*" not in found:
                return found
        return ""

    def where(self, value, node: ast.AST) -> tuple[int, int]:
        """Where a value's fix goes: its last literal piece (the file name, mostly), else
        the call that uses it."""
        for piece in reversed(value):
            if piece is not None and piece.node is not None and hasattr(piece.node, "lineno"):
                return piece.node.lineno, piece.node.col_offset + 1
        return node.lineno, node.col_offset + 1  # type: ignore[attr-defined]

    def path_rows(self, node: ast.expr, how: str, call: ast.AST, pattern: bool = False) -> list[str]:
        found = []
        for v in self.values.values(node):
            p = self.path(v, pattern)
            if p is not None:
                self.add("paths", [p, *self.where(v, call), how])
                found.append(p)
        return found

    def extension(self, node: ast.Call) -> None:
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        name = node.args[0] if node.args else kw.get("name")
        sources = node.args[1] if len(node.args) > 1 else kw.get("sources")
        names = sorted({glob(v) for v in self.values.values(name)}) if name is not None else []
        found: list[str] = []
        for item in self.source_items(sources) if sources is not None else ():
            if isinstance(item, ast.Call) and _dotted(item.func).rpartition(".")[2] in ("glob", "iglob"):
                continue  # a glob of sources: the glob itself is a path (see call)
            found += self.path_rows(item, "source", item)
        if kw.get("include_dirs") is not None:
            for item in self.source_items(kw["include_dirs"]):
                self.path_rows(item, "include folder", item)
        if names and names != ["*"]:
            self.add("builds", [names, node.lineno, node.col_offset + 1, sorted(set(found))])

    def source_items(self, node: ast.expr, depth: int = 0) -> list[ast.expr]:
        """A source list's items: literal lists, a name bound to them (``+=``,
        ``append``), sums, ``sorted``/``list`` of them."""
        if depth > 8:
            return []
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out: list[ast.expr] = []
            for e in node.elts:
                out += self.source_items(e.value, depth + 1) if isinstance(e, ast.Starred) else [e]
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.source_items(node.left, depth + 1) + self.source_items(node.right, depth + 1)
        if isinstance(node, ast.Call) and _dotted(node.func) in ("sorted", "list") and node.args:
            return self.source_items(node.args[0], depth + 1)
        if isinstance(node, ast.Name) and node.id in self.values.env:
            out = []
            for bound in self.values.env[node.id]:
                out += self.source_items(bound, depth + 1)
            return out
        return [node]

    def glob(self, node: ast.Call, last: str, name: str) -> None:
        if last == "rglob" or (isinstance(node.func, ast.Attribute) and name not in (
                "glob.glob", "glob.iglob") and not name.startswith("glob.")):
            if not node.args or not isinstance(node.func, ast.Attribute):
                return  # a glob of an unknown object
            base = node.func.value
            sep = "/**/" if last == "rglob" else "/"
            for b in self.values.values(base):
                for p in self.values.values(node.args[0]):
                    found = self.path(b)
                    if found is not None and glob(p, True):
                        self.add("paths", [f"{found}{sep}{glob(p, True)}",
                                           *self.where(p, node), "glob"])
            return
        if node.args:
            self.path_rows(node.args[0], "glob", node, pattern=True)

    def exists(self, node: ast.Call) -> None:
        if node.args:
            self.path_rows(node.args[0], "exists", node)
        elif isinstance(node.func, ast.Attribute):  # Path(x).exists()
            self.path_rows(node.func.value, "exists", node)

    # -- modules ---------------------------------------------------------------------

    def loads(self, arg: ast.expr, folder: str, call: ast.AST, how: str) -> None:
        for v in self.values.values(arg):
            name = glob(v)
            if name.strip("*."):
                self.add("loads", [name, folder, *self.where(v, call), how])

    def load_library(self, node: ast.Call) -> None:
        for v in self.values.values(node.args[0]):
            g = glob(v)
            base = g.rpartition("/")[2]
            if not base.strip("*") or not base.endswith((".so", ".pyd", ".dll", ".dylib")):
                continue
            found = self.path(v) if g.startswith(ROOT) else None
            folder = found.rpartition("/")[0] if found and "*" not in found.rpartition("/")[0] else ""
            stem = base.partition(".")[0]
            if stem.strip("*"):
                self.add("loads", [stem, folder, *self.where(v, node), "load_library"])
