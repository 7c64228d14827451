"""The words of a CMake command, each with where it stands (code, prose, a pattern,
raw), so that ``build.rewrite`` changes in each only what may change there.

Comments are never words; ``message()`` text and doc strings are prose, regular
expressions are patterns, bracket arguments are raw.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..words import CODE, PATTERN, RAW, TEXT, Word, split_words, string_words
from .lexer import Arg, Command, lex_cmake

_MESSAGE_MODES = frozenset({"STATUS", "WARNING", "AUTHOR_WARNING", "SEND_ERROR", "FATAL_ERROR",
                            "DEPRECATION", "NOTICE", "VERBOSE", "DEBUG", "TRACE",
                            "CHECK_START", "CHECK_PASS", "CHECK_FAIL", "CONFIGURE_LOG"})


def _arg_words(text: str, arg: Arg, where: str) -> list[Word]:
    """The words of one argument: a list (``a;b``) splits at ``;``, a quoted string at
    blanks too; a bracket argument is one raw word."""
    start, end = arg.body_start, arg.body_start + len(arg.body)
    if arg.kind == "bracket":
        return [Word(start, end, arg.body, RAW)] if arg.body else []
    if where in (TEXT, PATTERN):
        return split_words(text, start, end, where, ";" if arg.kind == "unquoted" else "")
    if arg.kind == "quoted":
        return string_words(text, start, end, ";")
    return split_words(text, start, end, CODE, ";")


def _contexts(cmd: Command) -> list[str]:
    """Where each argument of ``cmd`` stands: code, prose, a pattern."""
    n = len(cmd.args)
    where = [CODE] * n
    vals = cmd.words()
    name = cmd.lname
    if name == "message":
        for i in range(n):
            if not (i == 0 and vals[0] in _MESSAGE_MODES):
                where[i] = TEXT
    elif name == "string" and n >= 2:
        patterns: tuple[int, ...] = ()
        if vals[0] == "REGEX" and vals[1] in ("MATCH", "MATCHALL"):
            patterns = (2,)  # string(REGEX MATCH <regex> <out> <input>...)
        elif vals[0] == "REGEX" and vals[1] == "REPLACE":
            patterns = (2, 3)  # the regex and its replacement
        elif vals[0] == "REPLACE":
            patterns = (1, 2)
        elif vals[0] == "FIND":
            patterns = (2,)
        for i in patterns:
            if i < n:
                where[i] = PATTERN
    elif name == "list" and n >= 5 and vals[0] == "FILTER" and vals[3] == "REGEX":
        where[4] = PATTERN
    elif name == "option" and n >= 2:
        where[1] = TEXT
    for i, v in enumerate(vals):
        if v == "MATCHES" and name in ("if", "elseif", "while") and i + 1 < n:
            where[i + 1] = PATTERN
        elif v == "COMMENT" and i + 1 < n:
            where[i + 1] = TEXT
        elif v == "CACHE" and name == "set" and i + 2 < n:
            where[i + 2] = TEXT
    for i, a in enumerate(cmd.args):
        if a.kind == "bracket":
            where[i] = RAW
    return where


def command_words(text: str, cmd: Command) -> list[Word]:
    """The command's name (code) and its arguments' words, in order."""
    words = [Word(cmd.start, cmd.name_end, cmd.name, CODE)]
    for arg, where in zip(cmd.args, _contexts(cmd)):
        words += _arg_words(text, arg, where)
    return words


def cmake_words(text: str) -> Iterator[Word]:
    """Every word of a CMake file (for the findings scan)."""
    for cmd in lex_cmake(text).commands:
        yield from command_words(text, cmd)
