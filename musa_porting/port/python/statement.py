"""One logical line through libcst: parse it, rewrite its tree, and turn what changed
into edits of the original text.

A logical line alone is not always a module libcst can parse: a compound statement's
header (``with torch.cuda.amp.autocast():``) has its body on other lines, ``elif`` and
``except`` need what comes before them, a decorator needs its function. The line is
wrapped in the least code that makes it parse, and the wrapping is cut off again
after rendering (libcst renders every untouched byte as it was).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from ...analyze import python_findings as pf
from ...rules.model import Rule
from .context import RewriteContext
from .transform import MARK, MARK_RE, StatementRewriter

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
    """libcst cannot parse the statement (a syntax error, Python 2); carries why."""


def _wrapping(text: str, header: bool) -> tuple[str, str]:
    """Code to put before and after ``text`` so that it parses as a module."""
    if text.startswith("@"):
        return "", "def _():\n    pass\n"
    m = _FIRST_WORD.match(text)
    word = m.group() if m else ""
    if word == "case" and header:
        return "match 0:\n    ", "    " + _BODY
    return _BEFORE.get(word, ""), _BODY if header else ""


def port_statement(text: str, ctx: RewriteContext, *, header: bool) -> StatementPort:
    """Rewrite one logical line. ``text`` starts at its first non-blank character and
    ends with its newline; ``header`` says its code ends with a colon (a compound
    statement whose body is on the next lines). Raises NotParsed."""
    if MARK in text:
        raise NotParsed("it holds musa-port's marker text")
    before, after = _wrapping(text, header)
    source = before + text + ("" if text.endswith("\n") else "\n") + after
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        raise NotParsed("libcst cannot parse it") from None
    except Exception as exc:  # the native parser raises others on odd input
        raise NotParsed(f"libcst: {type(exc).__name__}") from None
    if _is_bare_string(module):
        return StatementPort()  # a docstring: prose, never ported
    rewriter = StatementRewriter(ctx)
    rendered = module.visit(rewriter).code
    result = StatementPort()
    for f in rewriter.findings:
        result.findings.append((_anchor(text, f.text), f))
    if not rewriter.changes:
        return result
    if not (rendered.startswith(before) and rendered.endswith(after)):
        raise NotParsed("the wrapping did not survive rendering")
    body = rendered[len(before):len(rendered) - len(after)]
    growth = 0  # how much longer the markers before this point are than what they replaced
    for m in MARK_RE.finditer(body):
        change = rewriter.changes[int(m.group(1))]
        start = m.start() - (1 if change.marker.startswith("'") else 0)
        orig = start - growth
        if text[orig:orig + len(change.old)] != change.old:
            raise NotParsed("a rewritten node was not where it was expected")
        if change.new != change.old:
            result.edits.append((orig, orig + len(change.old), change.new, change.rule))
        growth += len(change.marker) - len(change.old)
    return result


def _is_bare_string(module: cst.Module) -> bool:
    """A statement that is only a string: a docstring, or a string used as a comment."""
    if len(module.body) != 1 or not isinstance(module.body[0], cst.SimpleStatementLine):
        return False
    small = module.body[0].body
    return len(small) == 1 and isinstance(small[0], cst.Expr) and isinstance(
        small[0].value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _anchor(text: str, word: str) -> int:
    """Where a finding about ``word`` goes: its first occurrence as a whole word."""
    if word:
        m = re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text)
        if m:
            return m.start()
    return 0
