"""A setup.py's names from ``torch.utils.cpp_extension``, each from where the MUSA build
has it: ``StatementRewriter``'s rules for them, a mixin.

torch_musa's ``torch_musa/utils/musa_extension.py`` (MooreThreads/torch_musa) provides
``MUSAExtension``, its own ``BuildExtension`` (which compiles ``.mu`` files with mcc) and
``MUSA_HOME``: CUDA's ``CUDAExtension``, ``BuildExtension`` and ``CUDA_HOME`` come from
there. Every other name (``CppExtension``, ``include_paths``, ``library_paths``, ``load``,
``load_inline``, ``ROCM_HOME``...) is torch's and stays imported from torch's module:
pointing the whole import at torch_musa's module fails at ``import`` time.

So ``from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension``
becomes two statements, the original one (its formatting and comments kept) naming
torch_musa's module with torch_musa's names, and a new one after it with the rest.
A qualified use (``ext.CUDAExtension`` after ``import torch.utils.cpp_extension as ext``,
``cpp_extension.CUDA_HOME``) becomes ``torch_musa.utils.musa_extension.MUSAExtension``,
and the file gets ``import torch_musa.utils.musa_extension`` (``source.py``).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from ...analyze import python_findings as pf
from . import names as n
from .imports import dotted

MODULE = n.EXTENSION_MODULE
TORCH_MODULE = "torch.utils.cpp_extension"
# What torch_musa's module provides, under its MUSA name.
MUSA_NAMES = {"CUDAExtension": "MUSAExtension", "BuildExtension": "BuildExtension",
              "CUDA_HOME": "MUSA_HOME"}
# Compiled when first needed (few statements need it).


@lru_cache(maxsize=1)
def _tail() -> re.Pattern[bytes]:
    """The rest of a line, when it is only blanks and a comment."""
    return re.compile(rb"[ \t]*(?:#[^\r\n]*)?(?:\r\n?|\n|$)")


class ExtensionImports:
    """A mixin of ``transform.StatementRewriter`` (positions, edits, the context)."""

    def _extension_import(self, node: ast.ImportFrom, module_span: tuple[int, int]) -> None:
        """``from torch.utils.cpp_extension import ...``, split by where each name is."""
        if len(node.names) == 1 and node.names[0].name == "*":
            if not self.ctx.extension_star:
                self._after(node, f"from {MODULE} import *")
            return
        musa = [a for a in node.names if a.name in MUSA_NAMES]
        if not musa:
            return
        self._replace(*module_span, MODULE, n.CPP_EXTENSION)
        spans = [self.span(a) for a in node.names]
        gone = [a.name not in MUSA_NAMES for a in node.names]
        if not any(gone):
            return
        kept = [i for i, g in enumerate(gone) if not g]
        cut_from = spans[0][0]
        for i, g in enumerate(gone):
            if not g:
                continue
            if i < kept[0]:  # before the first name that stays: up to that name
                start, end = (cut_from, spans[kept[0]][0]) if i == 0 else (0, 0)
            else:  # from the end of the name before it
                start, end = spans[i - 1][1], spans[i][1]
                if b"#" in self.src[start:spans[i][0]]:  # a comment of the line before
                    start = spans[i][0]
            if end > start:
                self._replace(start, end, "", n.CPP_EXTENSION)
        moved = ", ".join(self.src[s:e].decode("utf-8") for (s, e), g in zip(spans, gone) if g)
        self._after(node, f"from {TORCH_MODULE} import {moved}")

    def _after(self, node: ast.stmt, text: str) -> None:
        """``text``, a statement, after ``node``: on a line of its own with its
        indentation when the statement is alone on its line, else after a ``;``."""
        start, end = self.span(node)
        tail = _tail().match(self.src, end)
        alone = start == self.stmt_start and tail is not None
        if alone:
            nl = "\r\n" if tail.group().endswith(b"\r\n") else "\n"
            self._replace(end, end, nl + self.indent + text, n.CPP_EXTENSION)
        else:
            self._replace(end, end, "; " + text, n.CPP_EXTENSION)

    def _qualified_extension_name(self, node: ast.Attribute) -> bool:
        """``ext.CUDAExtension`` where ``ext`` is torch's cpp_extension: the name of
        torch_musa's module, qualified."""
        new = MUSA_NAMES.get(node.attr)
        if new is None or dotted(node.value) not in self.ctx.extension_modules:
            if node.attr in pf.EXTENSION_PROBES and dotted(node.value) in self.ctx.extension_modules:
                self._find(pf.cuda_probe(node.attr))
            return False
        self._replace(*self.span(node), f"{MODULE}.{new}", n.EXTENSION_QUALIFIED)
        return True
