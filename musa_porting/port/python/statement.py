"""One logical line through CPython's parser: parse it, rewrite it by its tree, and
give back what changed as edits of the original text.

A logical line alone is not always a module Python can parse: a compound statement's
header (``with torch.cuda.amp.autocast():``) has its body on other lines, ``elif`` and
``except`` need what comes before them, a decorator needs its function. The line is
wrapped in the least code that makes it parse; the tree's positions are then taken
back to the line.

CPython's own parser (``ast``), not libcst: it is in C and needs no import, where
libcst's import alone (0.15-0.2 s, mostly its node classes) costs more than porting
every Python file of a project like YOLOv5. The tree is only read, for what each node
is and where it is, so every byte the rewrites leave is the original byte.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

from ...analyze import python_findings as pf
from ...rules.model import Rule
from .context import RewriteContext
from .transform import Misplaced, StatementRewriter

_FIRST_WORD = re.compile(r"[A-Za-z_]+")
_BODY = "    pass\n"
_BEFORE = {"elif": "if 0:\n    pass\n", "else": "if 0:\n    pass\n",
           "except": "try:\n    pass\n", "finally": "try:\n    pass\n"}


@dataclass
class StatementPort:
    """What changed in one statement: edits (start, end, new text, rule) and findings
    (offset, finding), offsets into the statement's text."""

    edits: list[tuple[int, int, str, Rule]] = field(default_factory=list)
    findings: list[tuple[int, pf.PyFinding]] = field(default_factory=list)


class NotParsed(Exception):
    """The statement does not parse (a syntax error, Python 2); carries why."""


def _wrapping(text: str, header: bool) -> tuple[str, str]:
    """Code to put before and after ``text`` so that it parses as a module."""
    if text.startswith("@"):
        return "", "def _():\n    pass\n"
    m = _FIRST_WORD.match(text)
    word = m.group() if m else ""
    if word == "case" and header:
        return "match 0:\n    ", "    " + _BODY
    return _BEFORE.get(word, ""), _BODY if header else ""


def port_statement(text: str, ctx: RewriteContext, *, header: bool, indent: str = "") -> StatementPort:
    """Rewrite one logical line. ``text`` starts at its first non-blank character and
    ends with its newline; ``header`` says its code ends with a colon (a compound
    statement whose body is on the next lines); ``indent`` is its line's indentation
    (for a statement the rewrites add after it). Raises NotParsed."""
    before, after = _wrapping(text, header)
    wrapped = before + text + ("" if text.endswith("\n") else "\n") + after
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" and such: not ours
            module = ast.parse(wrapped)  # a str: no coding cookie applies
    except SyntaxError as exc:
        raise NotParsed(exc.msg) from None
    except ValueError as exc:  # NUL bytes
        raise NotParsed(f"{type(exc).__name__}: {exc}") from None
    except (RecursionError, MemoryError):  # CPython's parser stack: ~200 open brackets
        raise NotParsed("it is nested too deeply for CPython to parse") from None
    if _is_bare_string(module):
        return StatementPort()  # a docstring: prose, never ported
    source = wrapped.encode("utf-8")  # the tree's columns count UTF-8 bytes
    rewriter = StatementRewriter(ctx, source, len(before.encode("utf-8")), indent)
    try:
        rewriter.walk(module)
    except Misplaced:
        raise NotParsed("a rewritten node was not where it was expected") from None
    except RecursionError:  # a tree deeper than the walk may recurse
        raise NotParsed("it is nested too deeply") from None
    result = StatementPort()
    for f in rewriter.findings:
        result.findings.append((_anchor(text, f.text), f))
    base = len(before.encode("utf-8"))
    raw = text.encode("utf-8")
    ascii_text = text.isascii()
    for start, end, new, rule in sorted(rewriter.edits):
        s, e = _offsets(raw, start - base, end - base, ascii_text)
        if text[s:e] != new:
            result.edits.append((s, e, new, rule))
    return result


def _offsets(raw: bytes, start: int, end: int, ascii_text: bool) -> tuple[int, int]:
    """UTF-8 offsets into the statement -> offsets of its characters."""
    try:
        if start < 0 or end > len(raw):
            raise ValueError
        if ascii_text:
            return start, end
        return len(raw[:start].decode("utf-8")), len(raw[:end].decode("utf-8"))
    except ValueError:  # UnicodeDecodeError too: not at a character's start
        raise NotParsed("a rewritten node was not where it was expected") from None


def _is_bare_string(module: ast.Module) -> bool:
    """A statement that is only a string: a docstring, or a string used as a comment."""
    if len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):
        return False
    value = module.body[0].value
    return isinstance(value, ast.JoinedStr) or (
        isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)))


def _anchor(text: str, word: str) -> int:
    """Where a finding about ``word`` goes: its first occurrence as a whole word."""
    if word:
        m = re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text)
        if m:
            return m.start()
    return 0
