"""The rewrites of one parsed statement, on CPython's syntax tree of it.

The tree says what each piece of code is (an attribute of ``torch``, a call's first
argument, the module of an import); its positions (line, UTF-8 column) say where it
is, so each rewrite is an edit of the statement's bytes. A rewrite of a whole node
replaces the edits made inside it, as a tree transform would. The tree is only
read: every byte outside the edits stays as it was.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right

from ...analyze import python_findings as pf
from ...rules.model import Rule
from . import names as n
from .arch_rewrites import ArchRewrites
from .context import RewriteContext
from .extension_imports import ExtensionImports
from .imports import GAP, WORD, ImportRewrites, Misplaced, dotted
from .literals import Piece
from .literals import pieces as _pieces
from .module_imports import IMPORT_CALLS, SETUP_CALLS, ModuleImports
from .string_rewrites import StringRewrites

_ENV_CALLS = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get",
                        "os.environ.setdefault", "environ.setdefault", "os.environ.pop",
                        "environ.pop", "os.putenv", "os.unsetenv"})
_NEWLINE = re.compile(rb"\r\n?|\n")
_DEF_NAME = re.compile(rb"(?:async" + GAP + rb")?(?:def|class)" + GAP + rb"([A-Za-z_]\w*)")


__all__ = ["Misplaced", "StatementRewriter", "dotted"]


class StatementRewriter(ImportRewrites, ModuleImports, ExtensionImports, ArchRewrites,
                        StringRewrites):
    """Rewrites one statement (see the module docstring): ``edits`` holds (start, end,
    new text, rule) in offsets of ``src``, ``findings`` what it found."""

    def __init__(self, ctx: RewriteContext, src: bytes, stmt_start: int = 0, indent: str = ""):
        self.ctx = ctx
        self.src = src
        self.stmt_start = stmt_start  # where the statement starts in src (after a wrapping)
        self.indent = indent  # its line's indentation
        # Where the tree's lines start: Python ends a line at \r\n, \n and a lone \r.
        self._lines = [0] + [m.end() for m in _NEWLINE.finditer(src)]
        # The edits in order of their starts (also listed alone): those inside a span are a
        # bisect away (a filter per rewrite cost 1 s for 8,000 device strings in one list).
        self.edits: list[tuple[int, int, str, Rule]] = []
        self._starts: list[int] = []
        self.findings: list[pf.PyFinding] = []
        self._tool_calls = 0  # inside subprocess.run(...) and the like
        self._arch_list = b"TORCH_CUDA_ARCH_LIST" in src  # its arch-list strings follow --arch

    # -- positions and edits -------------------------------------------------------------

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self._lines[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
                self._lines[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]

    def _replace(self, start: int, end: int, new: str, rule: Rule) -> None:
        """Rewrite ``src[start:end]`` whole: edits inside it are dropped."""
        i, j = bisect_left(self._starts, start), bisect_right(self._starts, end)
        kept = [e for e in self.edits[i:j] if e[1] > end]
        self.edits[i:j] = kept
        self._starts[i:j] = [e[0] for e in kept]
        at = bisect_right(self._starts, start)
        self.edits.insert(at, (start, end, new, rule))
        self._starts.insert(at, start)

    def _at(self, start: int, name: str) -> int:
        """The end of ``name`` written at ``start``; Misplaced if it is not there."""
        written = name.encode("utf-8")
        end = start + len(written)
        if self.src[start:end] != written:
            raise Misplaced(name)
        return end

    def _pieces(self, node: ast.AST) -> list[Piece]:
        try:
            return _pieces(self.src, *self.span(node))
        except ValueError:
            raise Misplaced("a string literal") from None

    def _edited(self, start: int, end: int) -> bool:
        i, j = bisect_left(self._starts, start), bisect_right(self._starts, end)
        return any(e[1] <= end for e in self.edits[i:j])

    def _find(self, finding: pf.PyFinding | None) -> None:
        if finding is not None and finding not in self.findings:
            self.findings.append(finding)

    # -- the walk ------------------------------------------------------------------------

    def walk(self, node: ast.AST) -> None:
        """``visit_X`` for a node of type X (as ``ast.NodeVisitor`` names them), else
        its children. A hook walks the children it needs, in the order it needs."""
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self._children(node)

    def _children(self, node: ast.AST, skip: tuple[str, ...] = ()) -> None:
        for field in node._fields:
            if field in skip:
                continue
            value = getattr(node, field, None)
            if isinstance(value, ast.AST):
                self.walk(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.walk(item)

    # -- names ---------------------------------------------------------------------------

    def _ident(self, start: int, name: str) -> None:
        """Any name in code: ``CUDAExtension``, ``CUDA_HOME`` in a file that uses
        torch's cpp_extension."""
        rule = n.EXTENSION_NAMES.get(name) if self.ctx.cpp_extension else None
        if rule is not None:
            self._replace(start, self._at(start, name), rule.value, rule)  # type: ignore[arg-type]

    def visit_Name(self, node: ast.Name) -> None:
        self._ident(self.span(node)[0], node.id)
        if node.id in self.ctx.renamed_heads:  # bound by an import of the renamed module
            start = self.span(node)[0]
            self._replace(start, self._at(start, node.id), self.ctx.renamed_heads[node.id],
                          n.MODULE)

    def visit_arg(self, node: ast.arg) -> None:
        self._ident(self.span(node)[0], node.arg)
        self._children(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            self._ident(self.span(node)[0], node.arg)
        self.walk(node.value)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        start, end = self.span(node)
        for m in list(WORD.finditer(self.src, start, end))[1:]:  # the keyword first
            self._ident(m.start(), m.group().decode())

    visit_Nonlocal = visit_Global

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._qualified_extension_name(node):
            return
        self.walk(node.value)
        start, end = self.span(node)
        attr_start = end - len(node.attr.encode("utf-8"))
        self._at(attr_start, node.attr)
        if node.attr not in n.EXTENSION_NAMES:  # another object's, not cpp_extension's
            self._ident(attr_start, node.attr)
        self._attribute(dotted(node.value), node.attr, start, attr_start, end)

    def _attribute(self, base: str | None, attr: str, start: int, attr_start: int,
                   end: int) -> None:
        """The rules for ``base.attr`` (a node, or part of an import's dotted name)."""
        if base == "torch" and attr == "cuda":
            self._replace(attr_start, end, "musa", n.TORCH_CUDA)
            return
        if self.ctx.modules is not None and base and self._tree_attribute(base, attr, attr_start, end):
            return
        if base == "torch.cuda" and attr == "nccl":
            self._replace(attr_start, end, "mccl", n.NCCL_MODULE)
        elif base == "torch.cuda" and attr not in self.ctx.torch_musa_names:
            self.findings.append(pf.unknown_torch_name(attr))
        if attr == "is_nccl_available" and base in self.ctx.distributed:
            self._replace(attr_start, end, "is_mccl_available", n.IS_NCCL)
        elif attr == "NCCL" and n.distributed_backend(base, self.ctx.distributed):
            self._replace(attr_start, end, "MCCL", n.BACKEND_NCCL)
        elif base == "torch.backends" and attr == "cudnn":
            self._replace(attr_start, end, "mudnn", n.CUDNN)
        elif base in ("torch.version", "torch.backends") and attr == "cuda":
            self._find(pf.cuda_probe(f"{base}.cuda"))
        elif attr == "is_cuda":
            self._replace(attr_start, end, "is_musa", n.IS_CUDA)
        elif attr in self.ctx.renames:
            new = self.ctx.renames[attr]
            self._replace(attr_start, end, new, n.rename_rule(attr, new))
        elif base == "numba" and attr == "cuda":
            self._find(pf.imported("numba.cuda"))

    # -- definitions and calls -------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for d in node.decorator_list:
            name = dotted(d.func if isinstance(d, ast.Call) else d)
            if name is not None:
                self._find(pf.decorator(name))
            self.walk(d)
        m = _DEF_NAME.match(self.src, self.span(node)[0])
        if m is None:
            raise Misplaced(node.name)
        self._ident(m.start(1), node.name)
        self._children(node, skip=("decorator_list",))

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        fname = dotted(node.func)
        tool = fname in pf.TOOL_CALLS
        args = sorted([*node.args, *node.keywords], key=lambda a: (a.lineno, a.col_offset))
        if tool:
            self._tool_calls += 1
            self._find(pf.tool_call(fname, list(self._strings_in(args))))  # type: ignore[arg-type]
        self.walk(node.func)
        for a in args:
            self.walk(a)
        if tool:
            self._tool_calls -= 1
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and dotted(func.value) != "torch":
            end = self.span(func)[1]
            self._replace(end - 4, self._at(end - 4, "cuda"), "musa", n.CUDA_CALL)
        if fname in IMPORT_CALLS and self.ctx.modules is not None:
            self._import_string(node, fname)
        elif fname in SETUP_CALLS and self.ctx.modules is not None:
            self._setup_modules(node)
        if fname in _ENV_CALLS and args:
            first = args[0].value if isinstance(args[0], ast.keyword) else args[0]
            self._env_string(first)

