"""``"...{}...".format(args)`` and ``"...%s..." % args`` as values (``values.py``): the
format's literal text between fields, and each field's argument's values (a hole for a
field with a format spec or a conversion other than ``%s``, whose text cannot be read)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .value_model import UNKNOWN, Lit, Value, product

_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(![rsa])?(:[^{}]*)?\}")
_PERCENT_FIELD = re.compile(r"%%|%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?([sdirf])")

Evaluate = Callable[[ast.AST], list[Value]]


def format_call(node: ast.Call, values: Evaluate) -> list[Value]:
    """``"...{}...".format(args)``: positional, numbered and named fields."""
    fmt = node.func.value  # type: ignore[attr-defined]
    if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
        return list(UNKNOWN)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return list(UNKNOWN)
    kw = {k.arg: k.value for k in node.keywords}
    options: list[list[Value]] = []
    pos, auto = 0, 0
    for m in _FORMAT_FIELD.finditer(fmt.value):
        if m.start() > pos:
            options.append([(Lit(fmt.value[pos:m.start()], fmt),)])
        pos = m.end()
        if m.group(0) in ("{{", "}}"):
            options.append([(Lit(m.group(0)[0], fmt),)])
            continue
        key = m.group(1)
        arg: ast.expr | None
        if key == "":
            arg = node.args[auto] if auto < len(node.args) else None
            auto += 1
        elif key.isdigit():
            arg = node.args[int(key)] if int(key) < len(node.args) else None
        else:
            arg = kw.get(key)
        options.append(values(arg) if arg is not None and not m.group(3) else list(UNKNOWN))
    if pos < len(fmt.value):
        options.append([(Lit(fmt.value[pos:], fmt),)])
    return product(options)


def percent(node: ast.BinOp, values: Evaluate) -> list[Value]:
    """``"...%s..." % args`` (a tuple, one value, or a dict for ``%(name)s``)."""
    fmt = node.left
    if not isinstance(fmt, ast.Constant) or not isinstance(fmt.value, str):
        return list(UNKNOWN)
    args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    named = node.right if isinstance(node.right, ast.Dict) else None
    options: list[list[Value]] = []
    pos, k = 0, 0
    for m in _PERCENT_FIELD.finditer(fmt.value):
        if m.start() > pos:
            options.append([(Lit(fmt.value[pos:m.start()], fmt),)])
        pos = m.end()
        if m.group(0) == "%%":
            options.append([(Lit("%", fmt),)])
            continue
        arg: ast.expr | None = None
        if m.group(1) and named is not None:
            arg = next((v for key, v in zip(named.keys, named.values)
                        if isinstance(key, ast.Constant) and key.value == m.group(1)), None)
        elif not m.group(1) and named is None and k < len(args):
            arg = args[k]
        k += 1
        options.append(values(arg) if arg is not None and m.group(2) == "s" else list(UNKNOWN))
    if pos < len(fmt.value):
        options.append([(Lit(fmt.value[pos:], fmt),)])
    return product(options)
