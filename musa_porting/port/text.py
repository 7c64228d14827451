"""``port_text``: the engine as one library call, for text in memory.

    >>> from musa_porting import port_text
    >>> port_text("cudaMalloc(&p, n); // Accumulate", {"cudaMalloc": "musaMalloc", "cu": "mu"})[0]
    'musaMalloc(&p, n); // Accumulate'
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from functools import lru_cache
from typing import overload

from ..rules import build_ruleset
from .cxx.porter import port_bytes
from .engine import Edit, Matcher


@lru_cache(maxsize=1)
def _default_matcher() -> Matcher:
    return Matcher(build_ruleset().rewriting())


@overload
def port_text(text: str, rules: Mapping[str, str] | Matcher | None = ..., *,
              skip: Set[str] = ...) -> tuple[str, list[Edit]]: ...
@overload
def port_text(text: bytes, rules: Mapping[str, str] | Matcher | None = ..., *,
              skip: Set[str] = ...) -> tuple[bytes, list[Edit]]: ...


def port_text(text, rules=None, *, skip=frozenset()):
    """Port one text with ``rules`` (default: the default tables).

    Returns the new text (str for str, bytes for bytes) and the edits, each with its
    line, column, old and new text and the rule. Markers and ``skip`` work as in a
    tree port; includes are left to the rules, since there is no tree to resolve them.
    """
    if rules is None:
        matcher = _default_matcher()
    elif isinstance(rules, Matcher):
        matcher = rules
    else:
        matcher = Matcher(rules)
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
    result = port_bytes(data, matcher, skip=frozenset(skip))
    if isinstance(text, str):
        return result.data.decode("utf-8", "surrogateescape"), result.edits
    return result.data, result.edits
