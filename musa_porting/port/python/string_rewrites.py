"""The string rewrites of one parsed statement: ``StatementRewriter``'s string
literals and f-strings (paths, device strings, ``CUDA_VISIBLE_DEVICES``, environment
variable names; ``strings.py`` says what each becomes)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...rules.model import Rule
from . import names as n
from .literals import Piece, fstring_parts
from .strings import device_fstring_head, env_name, rewrite_body, visible_devices
from .values import dotted as _dotted

_ENVIRON = frozenset({"os.environ", "environ"})  # os.environ["CUDA_HOME"], "X" in os.environ


class StringRewrites:
    """A mixin of ``transform.StatementRewriter``: it provides the positions, the edits,
    the walk and the arch rewrites these methods use."""

    def _env_string(self, node: ast.AST) -> None:
        """The one-piece string ``node`` as an environment variable's name, renamed."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return
        start, end = self.span(node)
        found = self._pieces(node)
        if len(found) != 1 or found[0].is_fstring or self._edited(start, end):
            return
        p = found[0]
        hit = env_name(self._text(p.body_start, p.body_end), self.ctx.vocabulary)
        if hit is not None:
            self._piece(p, hit[0], hit[1])

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._children(node)
        if _dotted(node.value) in _ENVIRON and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            self._env_string(node.slice)

    def visit_Compare(self, node: ast.Compare) -> None:
        self._children(node)
        if any(isinstance(op, (ast.In, ast.NotIn)) and _dotted(c) in _ENVIRON
               for op, c in zip(node.ops, node.comparators)):
            self._env_string(node.left)

    def _text(self, start: int, end: int) -> str:
        return self.src[start:end].decode("utf-8")

    def _piece(self, p: Piece, body: str, rule: Rule) -> None:
        quote = self._text(p.start + len(p.prefix), p.body_start)
        self._replace(p.start, p.end, p.prefix.decode() + quote + body + quote, rule)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self._literal(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        # The fields' code is walked on its own nodes; the text parts (whose positions
        # before 3.12 are the whole literal's) are read off the source in _literal.
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                self._field(v)
        self._literal(node)

    def _field(self, v: ast.FormattedValue) -> None:
        self.walk(v.value)
        if isinstance(v.format_spec, ast.JoinedStr):
            for w in v.format_spec.values:
                if isinstance(w, ast.FormattedValue):
                    self._field(w)

    def _literal(self, node: ast.AST) -> None:
        for p in self._pieces(node):
            if p.is_bytes:
                continue
            if p.is_fstring:
                self._fstring(p)
                continue
            body = self._text(p.body_start, p.body_end)
            hit = rewrite_body(body, self.ctx.renames, self.ctx.map_path, self._tool_calls > 0)
            if hit is None:
                hit = self._arch_string(body)
            if hit is not None:
                self._piece(p, hit[0], hit[1])

    def _fstring(self, p: Piece) -> None:
        parts = fstring_parts(self.src, p.body_start, p.body_end)
        for is_field, s, e in parts:
            if not is_field:
                new = visible_devices(self._text(s, e))
                if new is not None:
                    self._replace(s, e, new, n.VISIBLE_DEVICES)
        if len(parts) > 1 and not parts[0][0] and parts[1][0] \
                and device_fstring_head(self._text(parts[0][1], parts[0][2])):
            self._replace(parts[0][1], parts[0][2], "musa:", n.DEVICE)

    def _strings_in(self, nodes: list) -> Iterator[str]:
        """The text of every string literal under ``nodes`` (a call's arguments)."""
        stack = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Constant):
                if isinstance(node.value, str):
                    yield from self._texts(node)
            elif isinstance(node, ast.JoinedStr):
                yield from self._texts(node)
                stack.extend(reversed([v.value for v in node.values
                                       if isinstance(v, ast.FormattedValue)]))
            else:
                stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def _texts(self, node: ast.AST) -> Iterator[str]:
        for p in self._pieces(node):
            if p.is_bytes:
                continue
            if p.is_fstring:
                for is_field, s, e in fstring_parts(self.src, p.body_start, p.body_end):
                    if not is_field:
                        yield self._text(s, e)
            else:
                yield self._text(p.body_start, p.body_end)
