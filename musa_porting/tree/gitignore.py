"""gitignore patterns, matched in time linear in the path for any pattern.

A regular expression with several wildcards backtracks: ``*a*a*a*a*b`` against a
file name of 250 ``a`` took 10 s per name (pathspec's translation), and three ``**``
against a deep path took 38 s. Here each wildcard is matched once, at its leftmost
place, and never retried: a chunk of fixed characters between two ``*`` is searched
for in a look-ahead (atomic in Python's ``re``) and then consumed; so is a run of
path names between two ``**``. Leftmost is always right for a glob: the rest of the
pattern can only do better with more of the string left to it. The last ``**`` keeps
searching from the right as pathspec does, so a path matched through one of its
folders says so (the folder mark) exactly when pathspec says so.

The syntax and what it matches are gitignore's as pathspec's ``GitIgnoreSpec``
reads them (the tests compare the two), with two differences where git agrees with
us: a bracket expression never matches ``/``, and a newline in a name is a byte like
any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import count

from ..errors import PortError

_DIR_MARK = "(?P<ps_d>/)"  # the path was matched as a folder (its name, then a '/')
_END = f"(?:{_DIR_MARK}|\\Z)"
_STAR = object()  # a '*' in a name's glob


@dataclass(frozen=True)
class Pattern:
    text: str  # as written
    include: bool  # False for a '!' pattern: it takes paths back
    regex: re.Pattern[str]

    def match(self, path: str) -> re.Match[str] | None:
        return self.regex.search(path)


def compile_pattern(text: str) -> Pattern | None:
    """The pattern for one gitignore line, or None for a line that matches nothing (a
    blank line, a comment, ``/``, a bracket never closed). Raises PortError for a line
    that is not a pattern (``!`` alone, a trailing backslash)."""
    line = text if text.endswith("\\ ") else text.rstrip()
    if not line or line.startswith("#") or line == "/":
        return None
    include = not line.startswith("!")
    body = line if include else line[1:]
    segs = body.split("/")
    is_dir = not segs[-1]
    if not segs[0]:
        del segs[0]
    elif (len(segs) == 1 or (len(segs) == 2 and not segs[1])) and segs[0] != "**":
        segs.insert(0, "**")  # a bare name matches at any depth
    if not segs:
        raise PortError(f"ignore pattern {text!r} is not valid: it names nothing")
    if not segs[-1]:
        segs[-1] = "**"  # "name/": everything under it
    segs = [s for i, s in enumerate(segs) if not (s == "**" and i and segs[i - 1] == "**")]
    try:
        regex = _translate(segs, is_dir)
    except _Unclosed:
        return None  # git drops a pattern with a bracket it never closes
    except _Invalid as exc:
        raise PortError(f"ignore pattern {text!r} is not valid: {exc}") from None
    try:
        compiled = re.compile(regex, re.DOTALL)
    except re.error as exc:  # a bracket expression the regex engine refuses
        raise PortError(f"ignore pattern {text!r} is not valid: {_bracket_error(exc)}") from None
    return Pattern(text, include, compiled)


def _bracket_error(exc: re.error) -> str:
    """What is wrong, in the glob's terms: a bracket's backslashes are doubled in its
    regex (``_atoms``), so a range is shown as the pattern wrote it."""
    msg = str(exc.msg)
    if msg.startswith("bad character range "):
        span = msg[len("bad character range "):].replace("\\\\", "\\")
        first, last = span[0], span[2:]
        return (f"the range {first}-{last} in a [...] is reversed ({first!r} sorts after "
                f"{last!r}; write {last}-{first})")
    return f"{msg} in a [...]"


class _Unclosed(Exception):
    pass


class _Invalid(Exception):
    pass


def _translate(segs: list[str], is_dir: bool) -> str:
    if segs == ["**"]:
        return _DIR_MARK if is_dir else "."
    if segs == ["**", "*"]:
        return "."
    if segs == ["**", "*", "**"]:
        return _DIR_MARK if is_dir else "/"
    names = count()
    lead = segs[0] == "**"
    trail = segs[-1] == "**" and len(segs) > 1
    inner = segs[1 if lead else 0:len(segs) - 1 if trail else len(segs)]
    groups: list[list[str]] = [[]]  # runs of names between the '**'
    for seg in inner:
        if seg == "**":
            groups.append([])
        else:
            groups[-1].append(_name(seg, names))
    runs = ["/".join(g) for g in groups]
    out = "^"
    for i, run in enumerate(runs):
        last = i == len(runs) - 1
        if i == 0 and not lead:
            out += run
        elif last:  # searched from the right, as pathspec does
            out += ("(?:.+/)?" if i == 0 else "(?:/.+)?/") + run
        else:  # the leftmost place, never retried
            out += _atomic(("(?:.+?/)??" if i == 0 else "(?:/.+?)??/") + run + "(?=/)", names)
    if trail:
        return out + (_DIR_MARK if is_dir else "/")
    return out + _END


def _atomic(regex: str, names) -> str:
    """``regex`` matched once, at its first match, never retried (Python's ``re`` has
    atomic groups only from 3.11; a look-ahead is atomic in every version)."""
    g = f"a{next(names)}"
    return f"(?=(?P<{g}>{regex}))(?P={g})"


def _name(glob: str, names) -> str:
    """The regex of one path name's glob: ``*`` any run of non-``/``, ``?`` one,
    ``[...]`` a bracket expression; each fixed chunk between two stars is matched
    at its leftmost place."""
    if glob == "*":
        return "[^/]+"
    chunks: list[str] = [""]
    for atom in _atoms(glob):
        if atom is _STAR:
            chunks.append("")
        else:
            chunks[-1] += atom  # type: ignore[operator]
    if len(chunks) == 1:
        return chunks[0]
    middle = "".join(_atomic("[^/]*?" + c, names) for c in chunks[1:-1] if c)
    return chunks[0] + middle + "[^/]*" + chunks[-1]


def _atoms(glob: str) -> Iterable[object]:
    """The glob's atoms: _STAR, or the regex of one character."""
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        i += 1
        if c == "\\":
            if i == n:
                raise _Invalid("it ends with a backslash (write two for one)")
            yield re.escape(glob[i])
            i += 1
        elif c == "*":
            yield _STAR
        elif c == "?":
            yield "[^/]"
        elif c == "[":
            j = i + (i < n and glob[i] in "!^")
            j += j < n and glob[j] == "]"
            j = glob.find("]", j)
            if j < 0:
                raise _Unclosed
            negate = glob[i] in "!^"
            body = glob[i + negate:j + 1].replace("\\", "\\\\")
            yield "(?!/)[" + ("^" if negate else "") + body
            i = j + 1
        else:
            yield re.escape(c)


class GitIgnore:
    """A list of patterns, later ones over earlier ones, as ``GitIgnoreSpec`` decides:
    the last pattern that matches the path itself wins over any that matched it
    through a folder of it (and among those, the last)."""

    def __init__(self, lines: Iterable[str]):
        self.patterns = [p for p in map(compile_pattern, lines) if p is not None]

    def decide(self, path: str) -> tuple[bool | None, int | None]:
        """(ignored or taken back, the deciding pattern's index), or (None, None)."""
        found: tuple[bool | None, int | None] = (None, None)
        for i in range(len(self.patterns) - 1, -1, -1):
            p = self.patterns[i]
            m = p.match(path)
            if m is None:
                continue
            if not (p.regex.groupindex.get("ps_d") and m.group("ps_d")):
                return p.include, i
            if found[1] is None:
                found = (p.include, i)
        return found

    def match_file(self, path: str) -> bool:
        return bool(self.decide(path)[0])
