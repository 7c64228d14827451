"""The import statements of one parsed statement: ``StatementRewriter``'s import rules.

An import's dotted names go through the same rules as attribute chains, part by part,
with one difference: on MUSA ``torch.musa`` and ``torch.backends.mudnn`` are attributes
that ``import torch_musa`` sets (``torch.musa`` is the torch_musa package), not modules
an import statement can name. So an import of ``torch.cuda`` names torch_musa's module,
and one of ``torch.backends.cudnn`` takes the attribute from its parent (after ``import
torch_musa``, which the file gets where it lacks it: ``source.py``).
"""

from __future__ import annotations

import ast
import re

from ...analyze import python_findings as pf
from . import names as n
from .value_model import dotted  # noqa: F401 - the transform imports it from here

GAP = rb"(?:[ \t\f]|\\(?:\r\n?|\n))*"  # what may stand between tokens of one line
DOTTED = re.compile(rb"[A-Za-z_]\w*(?:" + GAP + rb"\." + GAP + rb"[A-Za-z_]\w*)*")
WORD = re.compile(rb"[A-Za-z_]\w*")
_FROM = re.compile(rb"from" + GAP + rb"(?:\." + GAP + rb")*")  # up to the module's name
_AS_NAME = re.compile(GAP + rb"as" + GAP + rb"([A-Za-z_]\w*)")


class Misplaced(Exception):
    """A node's text is not where the tree's positions say (a non-ASCII name that
    Python normalizes, an odd f-string): the statement cannot be edited safely."""


def _attribute_module(name: str) -> str | None:
    """``torch.cuda`` or ``torch.backends.cudnn`` when the dotted ``name`` is it or lies
    under it: on MUSA these are attributes torch_musa sets, not importable modules."""
    for head in ("torch.cuda", "torch.backends.cudnn"):
        if name == head or name.startswith(head + "."):
            return head
    return None


class ImportRewrites:
    """The import visitors of ``transform.StatementRewriter`` (a mixin: it uses the
    rewriter's positions, edits and name rules)."""

    def _chain(self, start: int, name: str) -> int:
        """An import's dotted ``name`` written at ``start``, through the rules for names
        and attributes, part by part; returns its end."""
        m = DOTTED.match(self.src, start)
        if m is None or re.sub(rb"\s|\\", b"", m.group()) != name.encode("utf-8"):
            raise Misplaced(name)
        parts = list(WORD.finditer(self.src, start, m.end()))
        for i, part in enumerate(parts):
            word = part.group().decode()
            self._ident(part.start(), word)
            if i:
                base = ".".join(p.group().decode() for p in parts[:i])
                self._attribute(base, word, start, part.start(), part.end())
        return m.end()

    # -- imports -------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._find(pf.imported(alias.name))
        for alias in node.names:
            if alias.name == "pynvml":  # MTML's binding, under NVML's module name
                start = self.span(alias)[0]
                bound = "" if alias.asname is not None else " as pynvml"
                self._replace(start, start + len("pynvml"), "pymtml" + bound, n.PYMTML)
            elif _attribute_module(alias.name) is None:
                self._alias_names(alias)
                if self.ctx.modules is not None:
                    self._tree_import(alias)
            else:
                self._attribute_import(node, alias)

    def _attribute_import(self, node: ast.Import, alias: ast.alias) -> None:
        """``import torch.cuda[.x] [as y]``, ``import torch.backends.cudnn [as y]``: what
        torch_musa sets are attributes (``torch.musa`` is the torch_musa package), so the
        import names torch_musa's module, or takes the attribute from its parent."""
        head = _attribute_module(alias.name)
        rest = alias.name[len(head) + 1:] if head is not None else ""  # type: ignore[arg-type]
        start, end = self.span(alias)
        m = DOTTED.match(self.src, start)
        if m is None:
            raise Misplaced(alias.name)
        alone = len(node.names) == 1
        if alias.asname is None:
            # binds torch; the code's torch.cuda.x becomes the attribute torch.musa.x
            self._replace(start, m.end(), "torch, torch_musa", n.TORCH_MUSA_MODULE)
        elif head == "torch.cuda" and not rest:
            self._replace(start, m.end(), "torch_musa", n.TORCH_MUSA_MODULE)
        elif head == "torch.cuda" and alone and "." not in rest:
            bound = rest if alias.asname == rest else f"{rest} as {alias.asname}"
            self._replace(*self.span(node), f"from torch_musa import {bound}", n.TORCH_MUSA_MODULE)
        elif head == "torch.backends.cudnn" and alone and not rest:
            self._replace(*self.span(node), f"from torch.backends import mudnn as {alias.asname}",
                          n.MUDNN_IMPORT)
        else:
            self.findings.append(pf.attribute_import(alias.name))

    def _alias_names(self, alias: ast.alias) -> int:
        """The names of ``a.b as c``; returns the end of ``a.b``."""
        start, end = self.span(alias)
        name_end = self._chain(start, alias.name)
        if alias.asname is not None:
            m = _AS_NAME.match(self.src, name_end, end)
            if m is None:
                raise Misplaced(alias.asname)
            self._ident(m.start(1), alias.asname)
        return name_end

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module if not node.level else None
        star = len(node.names) == 1 and node.names[0].name == "*"
        count = 0 if star else len(node.names)
        if module is not None:
            self._find(pf.imported(module))
            if not star:
                for alias in node.names:
                    self._find(pf.imported(f"{module}.{alias.name}"))
        module_span = None
        attr_module = _attribute_module(module) if module is not None else None
        if node.module is not None:
            at = _FROM.match(self.src, self.span(node)[0]).end()  # type: ignore[union-attr]
            if module == "pynvml" and self.src[at:at + 6] == b"pynvml":
                self._replace(at, at + 6, "pymtml", n.PYMTML)
            elif attr_module is None:
                module_span = (at, self._chain(at, node.module))
            elif module == "torch.cuda":  # torch.musa is the torch_musa package
                m = DOTTED.match(self.src, at)
                if m is None:
                    raise Misplaced(node.module)
                self._replace(at, m.end(), "torch_musa", n.TORCH_MUSA_MODULE)
            else:  # a submodule torch_musa has only as an attribute: left, and said
                self.findings.append(pf.attribute_import(module))  # type: ignore[arg-type]
        if not star:
            for alias in node.names:
                self._from_alias(alias, module, count)
        if module == "torch.utils.cpp_extension" and module_span is not None:
            self._extension_import(node, module_span)
        if self.ctx.modules is not None:
            self._tree_import_from(node, module_span[0] if module_span else (
                _FROM.match(self.src, self.span(node)[0]).end() if node.module else None))  # type: ignore[union-attr]

    def _from_alias(self, alias: ast.alias, module: str | None, count: int) -> None:
        start = self.span(alias)[0]
        end = self._alias_names(alias)
        name = alias.name
        if module is None:  # from . import _ext_cuda: an extension module renamed with its build
            new = self.ctx.extension_renames.get(name)
            if new is not None:
                keep = "" if alias.asname is not None else f" as {name}"
                self._replace(start, end, new + keep, n.rename_rule(name, new))
            return
        keep = "" if alias.asname is not None else f" as {name}"
        new = None
        if module == "torch" and name == "cuda":
            new, rule = "musa", n.ATTRIBUTE_IMPORT
        elif module == "torch.backends" and name == "cudnn":
            new, rule = "mudnn", n.MUDNN_IMPORT
        elif module == "torch.distributed" and name == "is_nccl_available":
            new, rule = "is_mccl_available", n.IS_NCCL
        elif module == "torch.cuda" and name == "nccl":
            new, rule = "mccl", n.NCCL_MODULE
        elif module in ("torch.version", "torch.backends") and name == "cuda":
            self._find(pf.cuda_probe(f"{module}.cuda"))
        elif module == "torch.utils.cpp_extension" and name in pf.EXTENSION_PROBES:
            self._find(pf.cuda_probe(name))
        else:
            if module == "torch.cuda" and name not in self.ctx.torch_musa_names:
                self.findings.append(pf.unknown_torch_name(name))
            if name in self.ctx.renames:
                new = self.ctx.renames[name]
                rule = n.rename_rule(name, new)
        if new is not None:
            self._replace(start, end, new + keep, rule)
