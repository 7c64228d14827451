"""The rules in force: one ``Rule`` per CUDA key, merged into a ``RuleSet``.

Plain data with no I/O, so the engine, the reports and the shim can share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

STATUSES = ("supported", "unsupported", "unknown")
USER_FAMILY = "user"


class Rule(NamedTuple):
    """One literal rule. ``value`` is None for a known CUDA name with no MUSA form.

    A NamedTuple, not a dataclass: the default tables hold tens of thousands of rules
    and building them is on the start-up path of every port.
    """

    key: str
    value: str | None
    family: str
    status: str = "supported"
    source: str = ""
    line: int | None = None
    note: str = ""
    primary: bool = False  # the CUDA name --reverse picks when several map to one MUSA name
    # Where the mapping comes from (a table entry's "source": vendor, cuda-13.5 header X,
    # torch header X, curated: ...; ``source`` above is the file the rule was read from)
    # and the newest release whose headers declare the CUDA name ("CUDA 11.8"; None:
    # none read, or not said).
    origin: str = ""
    version: str | None = None

    @property
    def is_user(self) -> bool:
        return self.family == USER_FAMILY


@dataclass(frozen=True)
class Reversed:
    """A rule of the inverted tables (MUSA -> CUDA), for ``--reverse``."""

    key: str
    value: str
    family: str
    forward: Rule


@dataclass
class RuleSet:
    """The active rules after merging, keyed by CUDA name."""

    rules: dict[str, Rule] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    families: dict[str, bool] = field(default_factory=dict)  # family -> enabled
    disabled: set[str] = field(default_factory=set)
    # Headers the tables name that are not rewritten to (SimplePorting's torch_musa tree:
    # rules/torch_musa.py): a user's rule that writes one names a header that exists.
    other_headers: frozenset[str] = frozenset()

    def rewriting(self) -> dict[str, Rule]:
        """Rules the engine applies: those with a replacement, in enabled families."""
        off = self.disabled
        return {k: r for k, r in self.rules.items()
                if r.value is not None and (r.family not in off or r.is_user)}

    def reversed(self) -> dict[str, Reversed]:
        """The inverted rules. Where several CUDA names map to one MUSA name, the one
        marked ``primary`` in its table wins; failing that the shortest, then the first
        in sort order (so the choice is documented and stable)."""
        best: dict[str, Rule] = {}
        for r in self.rewriting().values():
            if r.value == r.key or not r.value:
                continue  # a rule that keeps or deletes its text has nothing to invert
            cur = best.get(r.value)  # type: ignore[arg-type]
            if cur is None or (r.primary, -len(r.key), _neg(r.key)) > \
                    (cur.primary, -len(cur.key), _neg(cur.key)):
                best[r.value] = r  # type: ignore[index]
        return {v: Reversed(v, r.key, r.family, r) for v, r in sorted(best.items())}

    def __len__(self) -> int:
        return len(self.rules)


def _neg(text: str) -> tuple[int, ...]:
    """Sorts strings in reverse order inside a max() comparison."""
    return tuple(-ord(c) for c in text)

