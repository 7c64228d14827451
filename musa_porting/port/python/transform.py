"""The rewrites of one parsed statement, on its libcst tree.

Each rewrite replaces one node (a name, an attribute's name, a string, a dotted
module) by a *marker*: a unique name like ``__musaport3__``, recorded with the node's
old text and its new text. The statement is then rendered (libcst gives back every
byte it did not change) and the markers are found in the render: their positions,
less the growth of the markers before them, are the positions of the old nodes in
the source. So each rewrite becomes an edit of the original bytes, with a line and
a column, without libcst's position metadata (which costs more than the parse).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from ...analyze import python_findings as pf
from ...rules.model import Rule
from . import names as n
from .context import RewriteContext
from .strings import device_fstring_head, env_name, rewrite_body, split_string, visible_devices

MARK = "__musaport"
MARK_RE = re.compile(MARK + r"(\d+)__")
_ENV_CALLS = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get",
                        "os.environ.setdefault", "environ.setdefault", "os.environ.pop",
                        "environ.pop", "os.putenv", "os.unsetenv"})
_ENVIRON = frozenset({"os.environ", "environ"})


@dataclass(frozen=True)
class Change:
    old: str  # the node's source text
    new: str
    rule: Rule
    marker: str  # what stands for the node in the render


def dotted(node: cst.CSTNode) -> str | None:
    """``torch.cuda.amp`` for that chain of attributes, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


_EMPTY = cst.Module([])


class StatementRewriter(cst.CSTTransformer):
    """Rewrites one statement's tree (see the module docstring); ``changes`` and
    ``findings`` hold what it did and found."""

    def __init__(self, ctx: RewriteContext):
        super().__init__()
        self.ctx = ctx
        self.changes: list[Change] = []
        self.findings: list[pf.PyFinding] = []
        self._from_module: list[tuple[str | None, int]] = []  # (module, names) of each `from`
        self._tool_calls = 0  # inside subprocess.run(...) and the like

    # -- markers ---------------------------------------------------------------------

    def _record(self, old: str, new: str, rule: Rule, quoted: bool) -> str:
        k = len(self.changes)
        marker = f"'{MARK}{k}__'" if quoted else f"{MARK}{k}__"
        self.changes.append(Change(old, new, rule, marker))
        return marker

    def _name(self, node: cst.CSTNode, new: str, rule: Rule) -> cst.Name:
        old = node.value if isinstance(node, cst.Name) else _EMPTY.code_for_node(node)
        return cst.Name(self._record(old, new, rule, False))

    def _string(self, node: cst.SimpleString, new: str, rule: Rule) -> cst.SimpleString:
        return cst.SimpleString(self._record(node.value, new, rule, True))

    # -- names -------------------------------------------------------------------------

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        rule = n.EXTENSION_NAMES.get(original.value) if self.ctx.cpp_extension else None
        if rule is not None:
            return self._name(original, rule.value, rule)  # type: ignore[arg-type]
        return updated

    def leave_Attribute(self, original: cst.Attribute,
                        updated: cst.Attribute) -> cst.BaseExpression:
        attr = original.attr.value
        base = dotted(original.value)
        if base == "torch" and attr == "cuda":
            return updated.with_changes(attr=self._name(original.attr, "musa", n.TORCH_CUDA))
        if base == "torch.cuda" and attr not in self.ctx.torch_musa_names:
            self.findings.append(pf.unknown_torch_name(attr))
        if base == "torch.backends" and attr == "cudnn":
            return updated.with_changes(attr=self._name(original.attr, "mudnn", n.CUDNN))
        if base == "torch.utils" and attr == "cpp_extension":
            return self._name(original, n.CPP_EXTENSION.value, n.CPP_EXTENSION)  # type: ignore[arg-type]
        if attr == "is_cuda":
            return updated.with_changes(attr=self._name(original.attr, "is_musa", n.IS_CUDA))
        new = self.ctx.renames.get(attr)
        if new is not None:
            return updated.with_changes(attr=self._name(original.attr, new,
                                                        n.rename_rule(attr, new)))
        if base == "numba" and attr == "cuda":
            self._find(pf.imported("numba.cuda"))
        return updated

    # -- imports -----------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name)
            if name is not None:
                self._find(pf.imported(name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted(node.module) if node.module is not None and not node.relative else None
        count = len(node.names) if isinstance(node.names, (list, tuple)) else 0
        self._from_module.append((module, count))
        if module is not None:
            self._find(pf.imported(module))
            if isinstance(node.names, (list, tuple)):
                for alias in node.names:
                    name = dotted(alias.name)
                    if name is not None:
                        self._find(pf.imported(f"{module}.{name}"))

    def leave_ImportFrom(self, original: cst.ImportFrom,
                         updated: cst.ImportFrom) -> cst.ImportFrom:
        module, count = self._from_module.pop()
        if module == "torch.utils" and count == 1 and _alias_names(original) == ["cpp_extension"]:
            return updated.with_changes(module=self._name(original.module, "torch_musa.utils",
                                                          n.CPP_EXTENSION))  # type: ignore[arg-type]
        return updated

    def leave_ImportAlias(self, original: cst.ImportAlias,
                          updated: cst.ImportAlias) -> cst.ImportAlias:
        if not self._from_module:
            return updated
        module, count = self._from_module[-1]
        name = dotted(original.name)
        if name is None or module is None:
            return updated
        keep = "" if original.asname is not None else f" as {name}"
        if module == "torch" and name == "cuda":
            return updated.with_changes(name=self._name(original.name, "musa" + keep, n.TORCH_CUDA))
        if module == "torch.backends" and name == "cudnn":
            return updated.with_changes(name=self._name(original.name, "mudnn" + keep, n.CUDNN))
        if module == "torch.utils" and name == "cpp_extension" and count == 1:
            return updated.with_changes(name=self._name(original.name, "musa_extension" + keep,
                                                        n.CPP_EXTENSION))
        if module == "torch.cuda" and name not in self.ctx.torch_musa_names:
            self.findings.append(pf.unknown_torch_name(name))
        new = self.ctx.renames.get(name)
        if new is not None:
            return updated.with_changes(name=self._name(original.name, new + keep,
                                                        n.rename_rule(name, new)))
        return updated

    # -- calls -------------------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        fname = dotted(node.func)
        if fname in pf.TOOL_CALLS:
            self._tool_calls += 1
            self._find(pf.tool_call(fname, _strings_in(node.args)))  # type: ignore[arg-type]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        fname = dotted(original.func)
        if fname in pf.TOOL_CALLS:
            self._tool_calls -= 1
        func = original.func
        if isinstance(func, cst.Attribute) and func.attr.value == "cuda" \
                and dotted(func.value) != "torch" and isinstance(updated.func, cst.Attribute):
            updated = updated.with_changes(func=updated.func.with_changes(
                attr=self._name(func.attr, "musa", n.CUDA_CALL)))
        if fname in _ENV_CALLS and updated.args:
            first = updated.args[0]
            new = self._env_string(first.value)
            if new is not None:
                updated = updated.with_changes(args=[first.with_changes(value=new),
                                                     *updated.args[1:]])
        return updated

    def visit_Decorator(self, node: cst.Decorator) -> None:
        expr = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
        name = dotted(expr)
        if name is not None:
            self._find(pf.decorator(name))

    # -- environment variables -----------------------------------------------------------

    def leave_Subscript(self, original: cst.Subscript,
                        updated: cst.Subscript) -> cst.BaseExpression:
        if dotted(original.value) in _ENVIRON and len(updated.slice) == 1 \
                and isinstance(updated.slice[0].slice, cst.Index):
            index = updated.slice[0].slice
            new = self._env_string(index.value)
            if new is not None:
                return updated.with_changes(slice=[updated.slice[0].with_changes(
                    slice=index.with_changes(value=new))])
        return updated

    def leave_Comparison(self, original: cst.Comparison,
                         updated: cst.Comparison) -> cst.BaseExpression:
        if any(isinstance(c.operator, (cst.In, cst.NotIn)) and dotted(c.comparator) in _ENVIRON
               for c in original.comparisons):
            new = self._env_string(updated.left)
            if new is not None:
                return updated.with_changes(left=new)
        return updated

    def _env_string(self, node: cst.CSTNode) -> cst.SimpleString | None:
        """The string ``node`` as an environment variable's name, renamed; or None."""
        if not isinstance(node, cst.SimpleString) or MARK in node.value:
            return None
        parts = split_string(node.value)
        hit = env_name(parts[2], self.ctx.vocabulary) if parts is not None else None
        if hit is None:
            return None
        return self._string(node, parts[0] + parts[1] + hit[0] + parts[1], hit[1])  # type: ignore[index]

    # -- strings -----------------------------------------------------------------------

    def leave_SimpleString(self, original: cst.SimpleString,
                           updated: cst.SimpleString) -> cst.BaseExpression:
        parts = split_string(original.value)
        if parts is None:
            return updated
        prefix, quote, body = parts
        hit = rewrite_body(body, self.ctx.renames, self.ctx.map_path, self._tool_calls > 0)
        if hit is None:
            return updated
        return self._string(original, prefix + quote + hit[0] + quote, hit[1])

    def leave_FormattedString(self, original: cst.FormattedString,
                              updated: cst.FormattedString) -> cst.BaseExpression:
        # f"cuda:{rank}": a device string built at run time.
        parts = list(updated.parts)
        first = original.parts[0] if original.parts else None
        if isinstance(first, cst.FormattedStringText) and device_fstring_head(first.value) \
                and len(parts) > 1 and isinstance(parts[1], cst.FormattedStringExpression):
            parts[0] = cst.FormattedStringText(self._record(first.value, "musa:", n.DEVICE, False))
            return updated.with_changes(parts=parts)
        return updated

    def leave_FormattedStringText(self, original: cst.FormattedStringText,
                                  updated: cst.FormattedStringText) -> cst.FormattedStringText:
        new = visible_devices(original.value)
        if new is not None:
            return cst.FormattedStringText(self._record(original.value, new,
                                                        n.VISIBLE_DEVICES, False))
        return updated

    def _find(self, finding: pf.PyFinding | None) -> None:
        if finding is not None and finding not in self.findings:
            self.findings.append(finding)


def _alias_names(node: cst.ImportFrom) -> list[str | None]:
    if not isinstance(node.names, (list, tuple)):
        return []
    return [dotted(a.name) for a in node.names]


def _strings_in(node) -> list[str]:
    """The text of every string literal under ``node`` (a call's arguments)."""
    out: list[str] = []
    stack = list(node) if isinstance(node, (list, tuple)) else [node]
    while stack:
        x = stack.pop()
        if isinstance(x, cst.SimpleString):
            parts = split_string(x.value)
            if parts is not None:
                out.append(parts[2])
        elif isinstance(x, cst.FormattedStringText):
            out.append(x.value)
        else:
            stack.extend(x.children)
    return out
