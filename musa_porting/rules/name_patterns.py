"""Names a program computes, as patterns: literal runs and holes.

A build names its extension modules ``f'pkg._{name}_{suffix}'`` and a loader looks them
up as ``f'{library}_cuda'``: read statically (``port/python/values.py``), each is a glob
whose ``*`` stands for a part the code computes (a hole) and whose literal ``*``, ``?``
and ``[`` are escaped (``[*]``). The port decides whether such a name follows a rename:
the hole must cover the same text in the old name and the new one, so that only the
literal runs, which the port can rewrite where they are written, change. Pure functions
on patterns, shared by the plan (``rules/modules.py``) and the Python porter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

Parts = tuple[str | None, ...]  # literal runs and holes (None), never two runs in a row


def parse(glob: str) -> Parts:
    """A glob as ``values.glob`` writes it: ``*`` a hole, ``[c]`` the literal ``c``."""
    out: list[str | None] = []
    run: list[str] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "[" and i + 2 < len(glob) and glob[i + 2] == "]":
            run.append(glob[i + 1])
            i += 3
            continue
        if c == "*":
            if run:
                out.append("".join(run))
                run = []
            if not out or out[-1] is not None:
                out.append(None)
        else:
            run.append(c)
        i += 1
    if run:
        out.append("".join(run))
    return tuple(out)


def to_glob(parts: Parts) -> str:
    return "".join("*" if p is None else re.sub(r"([*?\[])", r"[\1]", p) for p in parts)


def tail(parts: Parts, sep: str = ".") -> Parts:
    """What comes after the last ``sep`` written in a literal run (a module's own name in
    a dotted path); the whole pattern when no run holds one."""
    for i in range(len(parts) - 1, -1, -1):
        p = parts[i]
        if p is not None and sep in p:
            rest = p.rpartition(sep)[2]
            return ((rest,) if rest else ()) + tuple(parts[i + 1:])
    return tuple(parts)


def literal(parts: Parts) -> str | None:
    """The pattern's text when it has no hole."""
    return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]


def _regex(parts: Parts) -> re.Pattern[str]:
    return re.compile("".join("(.*?)" if p is None else re.escape(p) for p in parts), re.S)


def captures(parts: Parts, name: str) -> tuple[str, ...] | None:
    """What each hole covers when the pattern names ``name`` (None: it does not)."""
    m = _regex(parts).fullmatch(name)
    return None if m is None else m.groups()


def renamed(parts: Parts, rename: Callable[[str], str | None]) -> Parts:
    """Each literal run through ``rename`` (None: kept)."""
    return tuple(p if p is None else (rename(p) or p) for p in parts)


def follows(parts: Parts, name: str, new_parts: Parts, new_name: str) -> bool:
    """The pattern names ``name``, its rewrite ``new_parts`` names ``new_name``, and each
    hole covers the same text in both: rewriting the literal runs is enough."""
    old = captures(parts, name)
    return old is not None and captures(new_parts, new_name) == old


def intersect(a: Sequence[str | None], b: Sequence[str | None]) -> bool:
    """Some name matches both patterns (holes match any text)."""
    x, y = _chars(a), _chars(b)
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(x) and j == len(y):
            return True
        if i < len(x) and x[i] is None:
            stack.append((i + 1, j))  # the hole ends here
            if j < len(y):
                stack.append((i, j + 1))  # it covers y's next character (or hole)
        if j < len(y) and y[j] is None:
            stack.append((i, j + 1))
            if i < len(x):
                stack.append((i + 1, j))
        if i < len(x) and j < len(y) and x[i] is not None and x[i] == y[j]:
            stack.append((i + 1, j + 1))
    return False


def _chars(parts: Sequence[str | None]) -> list[str | None]:
    out: list[str | None] = []
    for p in parts:
        out.extend([None] if p is None else list(p))
    return out
