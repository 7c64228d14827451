"""The CMake language, tokenised: command invocations with their arguments, and
comments, each with its byte span.

Follows the grammar of cmake-language(7): line comments and bracket comments
(``#[[...]]``, ``#[==[...]==]``), bracket arguments (``[[...]]``), quoted arguments
(escapes and ``\\``-newline continuations inside), unquoted arguments (with the legacy
forms that carry quotes or ``$(VAR)`` inside), and the parentheses that nest inside
an argument list (``if((A) AND (B))``). Porting needs the spans exact, so nothing is
normalised: the text of a token is the file's own bytes.

The lexer never fails: an unterminated quote, bracket or argument list runs to the
end of the file and is reported in ``Lexed.problems`` (line, message), so a broken
file is still copied with whatever could be ported.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"[ \t\r\n]+")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
# An unquoted argument: anything but whitespace and ()#"\ , or an escape; the legacy
# forms may embed "quoted" pieces and $(MAKE_STYLE) references.
_UNQUOTED = re.compile(r'(?:[^\s()#"\\]|\\.|"(?:[^"\\]|\\.)*"|\$\([A-Za-z0-9_]*\))+', re.S)
_QUOTED_BODY = re.compile(r'(?:[^"\\]|\\.)*', re.S)


@dataclass(frozen=True)
class Arg:
    """One argument: ``kind`` is "unquoted", "quoted" or "bracket"; ``start``/``end``
    span the whole token (quotes and brackets included), ``body`` is what is inside."""

    kind: str
    start: int
    end: int
    text: str  # the whole token
    body_start: int  # where the content starts (after the quote or the opening bracket)
    body: str

    @property
    def value(self) -> str:
        """The argument as CMake sees it, before variable references are expanded."""
        return self.body


@dataclass(frozen=True)
class Command:
    """``name(args)``: the name's span, the parentheses and the arguments in order."""

    name: str
    start: int  # the name's first byte
    name_end: int
    open: int  # the "("
    end: int  # just past the ")"
    args: tuple[Arg, ...]

    @property
    def lname(self) -> str:
        """Command names are case-insensitive."""
        return self.name.lower()

    def words(self) -> list[str]:
        return [a.value for a in self.args]


@dataclass
class Lexed:
    """A CMake file: its commands and comments in order, and what could not be read."""

    commands: list[Command] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


class _Lines:
    """The line of an offset, by bisect on the line starts (found on first need):
    counting from the file's start for each problem cost problems x size, and a file
    that is not CMake has a problem per word."""

    def __init__(self, text: str):
        self.text = text
        self.starts: list[int] | None = None

    def __call__(self, pos: int) -> int:
        if self.starts is None:
            self.starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        return bisect_right(self.starts, pos)


def _bracket_end(text: str, pos: int, eqs: str) -> int:
    """Index just past the ``]==]`` that closes a bracket opened before ``pos``, or -1."""
    close = text.find("]" + eqs + "]", pos)
    return -1 if close < 0 else close + len(eqs) + 2


class _Lexer:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.out = Lexed()
        self._line = _Lines(text)

    def comment(self) -> None:
        """At a ``#``: a bracket comment or a line comment."""
        t, p = self.text, self.pos
        m = _BRACKET_OPEN.match(t, p + 1)
        if m:
            end = _bracket_end(t, m.end(), m.group(1))
            if end < 0:
                self.out.problems.append((self._line(p), "unterminated bracket comment"))
                end = len(t)
        else:
            nl = t.find("\n", p)
            end = len(t) if nl < 0 else nl
        self.out.comments.append((p, end))
        self.pos = end

    def skip_space_and_comments(self) -> None:
        t = self.text
        while self.pos < len(t):
            m = _SPACE.match(t, self.pos)
            if m:
                self.pos = m.end()
            elif t[self.pos] == "#":
                self.comment()
            else:
                return

    def argument(self) -> Arg | None:
        """One argument at ``pos`` (None at a parenthesis)."""
        t, p = self.text, self.pos
        c = t[p]
        if c == "[":
            m = _BRACKET_OPEN.match(t, p)
            if m:
                end = _bracket_end(t, m.end(), m.group(1))
                if end < 0:
                    self.out.problems.append((self._line(p), "unterminated bracket argument"))
                    end = len(t)
                body_end = max(m.end(), end - len(m.group(1)) - 2)
                self.pos = end
                return Arg("bracket", p, end, t[p:end], m.end(), t[m.end():body_end])
        if c == '"':
            m = _QUOTED_BODY.match(t, p + 1)
            end = m.end()
            if end >= len(t):
                self.out.problems.append((self._line(p), "unterminated quoted argument"))
                self.pos = len(t)
                return Arg("quoted", p, len(t), t[p:], p + 1, t[p + 1:])
            self.pos = end + 1
            return Arg("quoted", p, end + 1, t[p:end + 1], p + 1, t[p + 1:end])
        m = _UNQUOTED.match(t, p)
        if not m:  # a lone backslash at the end of the file
            self.pos = p + 1
            return Arg("unquoted", p, p + 1, c, p, c)
        self.pos = m.end()
        return Arg("unquoted", p, m.end(), m.group(), p, m.group())

    def command(self, m: re.Match) -> None:
        t = self.text
        name, start, name_end = m.group(), m.start(), m.end()
        p = name_end
        while p < len(t) and t[p] in " \t":
            p += 1
        if p >= len(t) or t[p] != "(":
            self.out.problems.append((self._line(start), f"expected '(' after {name}"))
            self.pos = max(p, name_end)
            return
        open_at = p
        self.pos = p + 1
        args: list[Arg] = []
        depth = 0
        while True:
            self.skip_space_and_comments()
            if self.pos >= len(t):
                self.out.problems.append((self._line(start), f"{name}( is not closed"))
                end = len(t)
                break
            c = t[self.pos]
            if c == "(":
                depth += 1
                self.pos += 1
            elif c == ")":
                self.pos += 1
                if depth == 0:
                    end = self.pos
                    break
                depth -= 1
            else:
                arg = self.argument()
                if arg is not None:
                    args.append(arg)
        self.out.commands.append(Command(name, start, name_end, open_at, end, tuple(args)))

    def run(self) -> Lexed:
        t = self.text
        while True:
            self.skip_space_and_comments()
            if self.pos >= len(t):
                return self.out
            m = _IDENT.match(t, self.pos)
            if m:
                self.command(m)
            else:
                self.out.problems.append((self._line(self.pos), f"unexpected {t[self.pos]!r}"))
                nl = t.find("\n", self.pos)
                self.pos = len(t) if nl < 0 else nl + 1


def lex_cmake(text: str) -> Lexed:
    """Tokenise a CMake file (decoded as Latin-1, so offsets are byte offsets)."""
    return _Lexer(text).run()
