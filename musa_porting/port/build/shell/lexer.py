"""Shell scripts and Makefiles, split into statements of words, and comments.

Shell: ``#`` starts a comment at the start of a word, outside quotes; ``\\``-newline
continues a line; ``;``, ``&``, ``|`` and newlines end a command; single quotes are
literal, double quotes hold ``$(...)`` and escapes; heredoc bodies are prose. A
command's words after ``echo`` or ``printf`` are prose too: what a script prints is
not a build token.

Make: a logical line (``\\``-newline joined) that starts with a tab is a recipe, lexed
as shell; any other line ends at its first unescaped ``#`` (a comment), and the words
of ``$(info ...)``, ``$(warning ...)`` and ``$(error ...)`` are prose.

Quoted text follows ``build_words.string_words``: a one-word string is code, a longer
one a string. Offsets are byte offsets (the text is decoded as Latin-1).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from ..words import CODE, TEXT, Word, split_words, string_words

_PROSE_COMMANDS = frozenset({"echo", "printf", "@echo", "@printf"})
_LEADING_KEYWORDS = frozenset({"then", "do", "else", "{", "(", "!", "time", "-"})
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_MAKE_PROSE = re.compile(r"\$[({](?:info|warning|error)\s")


@dataclass
class Lexed:
    """Statements (each a list of words, in order) and comment spans."""

    statements: list[list[Word]] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)


def _skip_subst(text: str, pos: int, end: int) -> int:
    """At ``$(`` (or ``${``): the index just past the matching close, quotes respected."""
    return _skip_nested(text, pos, end, False)


def _skip_quote(text: str, pos: int, end: int, make: bool = False) -> int:
    """At a quote: the index just past its closing quote (or ``end``). In shell, a
    ``$(...)`` inside double quotes is skipped whole (it may hold quotes of its own)."""
    return _skip_nested(text, pos, end, make)


def _skip_nested(text: str, pos: int, end: int, make: bool) -> int:
    """At a quote, ``$(`` or ``${``: the index just past its close (or ``end``). The
    open quotes and substitutions are kept on a list, not on Python's stack: a script
    with 1,000 nested ``$(`` exceeded the recursion limit. A substitution counts its
    own kind of bracket; a quote inside it is skipped whole; a double quote holds
    ``$(...)`` (in shell, not in make's recipes, ``make``)."""
    frames: list = []  # a quote character, or [opening bracket, closing bracket, depth]
    i = pos
    while True:
        if i >= end:
            return end
        c = text[i]
        top = frames[-1] if frames else None
        if top is None or isinstance(top, str):
            if top is None and c in "'\"":
                frames.append(c)
            elif top is None:  # at the "$" of "$(" or "${"
                opening = text[i + 1]
                frames.append([opening, ")" if opening == "(" else "}", 1])
                i += 1
            elif top == '"' and c == "\\":
                i += 1
            elif top == '"' and not (make and len(frames) == 1) and c == "$" and \
                    i + 1 < end and text[i + 1] == "(":
                frames.append(["(", ")", 1])
                i += 1
            elif c == top:
                frames.pop()
                if not frames:
                    return i + 1
        elif c == "\\":
            i += 1
        elif c == top[0]:
            top[2] += 1
        elif c == top[1]:
            top[2] -= 1
            if top[2] == 0:
                frames.pop()
                if not frames:
                    return i + 1
        elif c in "'\"":
            frames.append(c)
        i += 1


# Command substitutions lexed one inside another; deeper ones are split into plain
# words (a generated or hostile script nests 1,000: each level is a Python call, and
# each rescans what it holds).
_MAX_DEPTH = 32
_FLAT_SEPARATORS = "$()`'\";&|"


class _ShellLine:
    """Lexes one stretch of shell text into commands."""

    def __init__(self, text: str, out: Lexed, make: bool, depth: int = 0):
        self.text = text
        self.out = out
        self.make = make  # a recipe: make's $(...) references are words, not subshells
        self.depth = depth  # of command substitution
        self.words: list[Word] = []
        self.prose = False

    def flush(self) -> None:
        if self.words:
            self.out.statements.append(self.words)
        self.words = []
        self.prose = False

    def add_word(self, start: int, end: int) -> None:
        """One shell word: its unquoted parts are code, its quoted parts strings, and a
        shell ``$(...)`` inside either is code again (lexed on its own)."""
        t = self.text
        where_code = TEXT if self.prose else CODE
        pieces: list[Word] = []
        i = start
        run = start
        while i < end:
            c = t[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"":
                if i > run:
                    pieces.append(Word(run, i, t[run:i], where_code))
                close = _skip_quote(t, i, end, self.make)
                body_end = close - 1 if t[close - 1] == c and close - 1 > i else close
                pieces += self.quoted(i + 1, body_end, c)
                i = run = close
                continue
            if not self.make and c == "$" and i + 1 < end and t[i + 1] == "(":
                if i > run:
                    pieces.append(Word(run, i, t[run:i], where_code))
                close = _skip_subst(t, i, end)
                pieces += self.subshell(i + 2, close - 1)
                i = run = close
                continue
            i += 1
        if run < end:
            pieces.append(Word(run, end, t[run:end], where_code))
        if not self.prose and t[start:end] in _PROSE_COMMANDS and all(
                w.text in _LEADING_KEYWORDS for w in self.words):
            self.prose = True
        self.words += pieces

    def quoted(self, start: int, end: int, quote: str) -> list[Word]:
        """The words of a quoted body; in shell, its ``$(...)`` are code."""
        t = self.text
        if self.prose:
            return split_words(t, start, end, TEXT)
        subs = []
        if quote == '"' and not self.make:
            i = t.find("$(", start, end)
            while 0 <= i < end:
                close = _skip_subst(t, i, end)
                subs.append((i, close))
                i = t.find("$(", close, end)
        if not subs:
            return string_words(t, start, end)
        words: list[Word] = []
        pos = start
        for s, e in subs:
            words += string_words(t, pos, s) if pos < s else []
            words += self.subshell(s + 2, e - 1)
            pos = e
        if pos < end:
            words += string_words(t, pos, end)
        return words

    def subshell(self, start: int, end: int) -> list[Word]:
        """The words of a command substitution, as code."""
        if self.depth >= _MAX_DEPTH:
            return split_words(self.text, start, end, CODE, _FLAT_SEPARATORS)
        inner = _ShellLine(self.text, Lexed(), self.make, self.depth + 1)
        inner.run(start, end)
        self.out.comments += inner.out.comments
        return [w for stmt in inner.out.statements for w in stmt]

    def run(self, start: int, end: int) -> None:
        t = self.text
        i = start
        word_start = -1
        heredocs: list[str] = []
        while i < end:
            c = t[i]
            if c == "\\" and i + 1 < end and t[i + 1] == "\n":
                if word_start >= 0:
                    self.add_word(word_start, i)
                    word_start = -1
                i += 2
                continue
            if c in " \t\r":
                if word_start >= 0:
                    self.add_word(word_start, i)
                    word_start = -1
                i += 1
                continue
            if c == "\n":
                if word_start >= 0:
                    self.add_word(word_start, i)
                    word_start = -1
                self.flush()
                i += 1
                if heredocs:
                    i = self.heredoc_bodies(i, end, heredocs)
                    heredocs = []
                continue
            if word_start < 0 and c == "#":
                nl = t.find("\n", i, end)
                stop = end if nl < 0 else nl
                self.out.comments.append((i, stop))
                i = stop
                continue
            if c in ";&|" and not (c == "&" and i > 0 and t[i - 1] in "<>"):
                if word_start >= 0:
                    self.add_word(word_start, i)
                    word_start = -1
                self.flush()
                i += 1
                continue
            if c == "<" and t.startswith("<<", i) and not t.startswith("<<<", i):
                m = _HEREDOC.match(t, i)
                if m:
                    heredocs.append(m.group(2))
            if word_start < 0:
                word_start = i
            if c == "\\":
                i += 2
            elif c in "'\"":
                i = _skip_quote(t, i, end, self.make)
            elif not self.make and c == "$" and i + 1 < end and t[i + 1] in "({":
                i = _skip_subst(t, i, end)
            else:
                i += 1
        if word_start >= 0:
            self.add_word(word_start, min(i, end))
        self.flush()

    def heredoc_bodies(self, pos: int, end: int, delimiters: list[str]) -> int:
        """Heredoc bodies after the line that opened them: prose, up to each delimiter."""
        t = self.text
        for delim in delimiters:
            body_start = pos
            while pos < end:
                nl = t.find("\n", pos, end)
                line_end = end if nl < 0 else nl
                if t[pos:line_end].strip() == delim:
                    words = split_words(t, body_start, pos, TEXT)
                    if words:
                        self.out.statements.append(words)
                    pos = line_end + 1 if nl >= 0 else end
                    break
                pos = line_end + 1 if nl >= 0 else end
            else:
                words = split_words(t, body_start, end, TEXT)
                if words:
                    self.out.statements.append(words)
        return pos


def lex_shell(text: str) -> Lexed:
    """A shell script's commands (words) and comments."""
    out = Lexed()
    start = 0
    if text.startswith("#!"):  # the shebang is a comment, but never a build token
        nl = text.find("\n")
        start = len(text) if nl < 0 else nl + 1
        out.comments.append((0, start if nl < 0 else nl))
    _ShellLine(text, out, make=False).run(start, len(text))
    return out


def _logical_lines(text: str):
    """(start, end) of each logical line of a Makefile (``\\``-newline joins lines)."""
    pos = 0
    n = len(text)
    while pos < n:
        i = pos
        while True:
            nl = text.find("\n", i)
            if nl < 0:
                yield pos, n
                return
            backslashes = 0
            j = nl - 1
            if j >= pos and text[j] == "\r":
                j -= 1
            while j >= pos and text[j] == "\\":
                backslashes += 1
                j -= 1
            if backslashes % 2 == 1:
                i = nl + 1
                continue
            yield pos, nl
            pos = nl + 1
            break


def _make_comment_start(text: str, start: int, end: int) -> int:
    """The first unescaped ``#`` of a make line (not a recipe), or -1."""
    i = text.find("#", start, end)
    while i >= 0:
        backslashes = 0
        j = i - 1
        while j >= start and text[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return i
        i = text.find("#", i + 1, end)
    return -1


def _make_words(text: str, start: int, end: int, out: Lexed) -> None:
    """A make line's words: shell-like quoting, prose inside $(info ...) and friends."""
    prose_spans: list[tuple[int, int]] = []  # in order, none inside another
    for m in _MAKE_PROSE.finditer(text, start, end):
        if prose_spans and m.start() < prose_spans[-1][1]:
            continue  # $(info $(info ...)): inside the one before, prose already
        stop = _skip_subst(text, m.start(), end)
        prose_spans.append((m.end(), stop - 1))
    starts = [s for s, _ in prose_spans]
    line = _ShellLine(text, Lexed(), make=True)
    line.run(start, end)
    words: list[Word] = []
    for stmt in line.out.statements:
        for w in stmt:
            i = bisect_right(starts, w.start) - 1
            if i >= 0 and w.start < prose_spans[i][1]:
                words.append(Word(w.start, w.end, w.text, TEXT))
            else:
                words.append(w)
    if words:
        out.statements.append(words)


def lex_make(text: str) -> Lexed:
    """A Makefile's statements (one per logical line; recipe lines lexed as shell) and
    comments."""
    out = Lexed()
    for start, end in _logical_lines(text):
        if text.startswith("\t", start):
            _ShellLine(text, out, make=True).run(start + 1, end)
            continue
        hash_at = _make_comment_start(text, start, end)
        if hash_at >= 0:
            out.comments.append((hash_at, end))
            end = hash_at
        _make_words(text, start, end, out)
    return out

