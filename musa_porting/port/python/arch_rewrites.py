"""The arch rewrites of one parsed statement: ``StatementRewriter``'s nvcc arch flags and
TORCH_CUDA_ARCH_LIST values (``arch.py`` says what each string is and becomes)."""

from __future__ import annotations

import ast

from ...rules.model import Rule
from . import arch


class ArchRewrites:
    """A mixin of ``transform.StatementRewriter``: it provides the positions, the edits
    and the findings these methods use."""

    def _arch_string(self, body: str) -> tuple[str, Rule] | None:
        """A TORCH_CUDA_ARCH_LIST value, or an arch flag standing alone (arch.py)."""
        if self._arch_list:
            new = arch.arch_list(body, self.ctx.arches)
            if new is not None:
                self._find(arch.list_finding(body, new))
                return new, arch.RULE
        is_flag, joined = arch.arch_flag(body)
        if is_flag and joined:
            new = arch.flags(self.ctx.arches)[0]
            self._find(arch.finding(body, new))
            return new, arch.RULE
        return None

    def visit_List(self, node: ast.List) -> None:
        """An nvcc argument list: its first arch option (one string, or a flag and its
        value) becomes the --arch flags, the others go."""
        items = []  # (first element, last element) of each arch option
        elts = node.elts
        i = 0
        while i < len(elts):
            body = self._plain(elts[i])
            is_flag, joined = arch.arch_flag(body) if body is not None else (False, False)
            if is_flag and not joined and i + 1 < len(elts) and arch.arch_value(
                    self._plain(elts[i + 1]) or ""):
                items.append((i, i + 1))
                i += 2
                continue
            if is_flag and joined:
                items.append((i, i))
            i += 1
        consumed = {k for a, b in items for k in range(a, b + 1)}
        for k, e in enumerate(elts):
            if k not in consumed:
                self.walk(e)
        for n_item, (a, b) in enumerate(items):
            start, end = self.span(elts[a])[0], self.span(elts[b])[1]
            old = ", ".join(self._plain(elts[k]) or "" for k in range(a, b + 1))
            if n_item == 0:
                q = self._text(start, start + 1)
                new_flags = arch.flags(self.ctx.arches)
                self._replace(start, end, ", ".join(q + f + q for f in new_flags), arch.RULE)
                self._find(arch.finding(old, " ".join(new_flags), self._plain(elts[a])))
            else:  # with the comma before it
                self._replace(self.span(elts[a - 1])[1], end, "", arch.RULE)

    def _plain(self, node: ast.AST) -> str | None:
        """The text of a plain one-piece string literal, else None."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return None
        found = self._pieces(node)
        if len(found) != 1 or found[0].is_fstring or found[0].prefix:
            return None
        return self._text(found[0].body_start, found[0].body_end)
