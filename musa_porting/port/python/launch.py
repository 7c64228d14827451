"""``import torch_musa`` in a launch file: right after its first ``import torch``, once.

torch_musa registers the ``musa`` device and ``torch.musa`` when it is imported, so
the script that starts a run must import it before it touches either. A file that
imports it already is left as it is, which makes a second run a no-op.
"""

from __future__ import annotations

import ast
import re

from .lexer import Lexed

_IMPORT_TORCH = re.compile(rb"\bimport\b[^\n#;]*?(?<![\w.])torch(?![\w])")
_HAS_TORCH_MUSA = re.compile(rb"\bimport[ \t]+torch_musa\b|\bfrom[ \t]+torch_musa\b")
LINE = "import torch_musa"


def imports_torch_musa(lx: Lexed) -> bool:
    return any(lx.in_code(m.start()) for m in _HAS_TORCH_MUSA.finditer(lx.data))


def imports_module(lx: Lexed, module: str, star: bool = False) -> bool:
    """The file has ``import <module>`` (a dotted name) in its code, or with ``star``
    ``from <module> import *``."""
    dotted = r"[ \t]*\.[ \t]*".join(map(re.escape, module.split("."))).encode()
    pattern = (rb"\bfrom[ \t]+" + dotted + rb"[ \t]+import[ \t]+\*" if star
               else rb"\bimport[ \t]+" + dotted + rb"(?![\w.])")
    return any(lx.in_code(m.start()) for m in re.finditer(pattern, lx.data))


def insertion(lx: Lexed, line: str = LINE) -> tuple[int, bytes] | None:
    """Where ``line`` (``import torch_musa``) goes (offset, bytes to insert): on the
    line after the first ``import torch`` statement, with its indentation. None when
    there is none."""
    data = lx.data
    for m in _IMPORT_TORCH.finditer(data):
        if not lx.in_code(m.start()):
            continue
        start, end = lx.statement(m.start())
        indent = data[start:m.start()]
        if indent.strip(b" \t\f") or not _is_torch_import(data[m.start():end]):
            continue  # not a statement of its own (an inline body), or not torch
        nl = b"\r\n" if data[:end].endswith(b"\r\n") else b"\n"
        if not data[:end].endswith(b"\n"):
            return end, nl + indent + line.encode()
        return end, indent + line.encode() + nl
    return None


def before(lx: Lexed, pos: int, line: str = LINE) -> tuple[int, bytes]:
    """``import torch_musa`` on a line of its own before the statement at ``pos`` (with
    its indentation): an import that takes an attribute torch_musa sets needs it first."""
    data = lx.data
    ls = data.rfind(b"\n", 0, pos) + 1
    nl = b"\r\n" if data[pos:].split(b"\n", 1)[0].endswith(b"\r") else b"\n"
    return ls, data[ls:pos] + line.encode() + nl


def _is_torch_import(text: bytes) -> bool:
    """The statement imports ``torch`` or ``torch.x`` (``import torch as T`` too)."""
    try:
        module = ast.parse(text.decode("utf-8", "replace").rstrip("\r\n") + "\n")
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(stmt, ast.Import) and any(a.name.split(".")[0] == "torch"
                                                    for a in stmt.names)
               for stmt in module.body)
