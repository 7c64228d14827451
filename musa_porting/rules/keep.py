"""The names a project keeps (``--keep``, ``keep = [...]`` in the settings): exact names
and glob patterns (``PROJ_*_CUDA``, ``*ForwardCuda``), as a project says which of its
own names stay CUDA-named, whatever shape they have."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from itertools import chain

# A glob's special characters: a run's keep set holds every name the tables keep
# (thousands), and is built three times a run, so the test runs in C.
_GLOB_CHAR = re.compile(r"[*?\[]")


def is_glob(item: str) -> bool:
    return _GLOB_CHAR.search(item) is not None


class KeepSet(frozenset):
    """A frozenset of names whose ``in`` also matches its glob patterns."""

    _globs: re.Pattern[str] | None

    def __new__(cls, items: Iterable[str] = ()):
        self = super().__new__(cls, items)
        globs = sorted(filter(_GLOB_CHAR.search, self))
        self._globs = re.compile("|".join(fnmatch.translate(g) for g in globs)) if globs else None
        return self

    def __contains__(self, name: object) -> bool:
        if frozenset.__contains__(self, name):
            return True
        return self._globs is not None and isinstance(name, str) and \
            self._globs.match(name) is not None

    def __or__(self, other: Iterable[str]) -> KeepSet:  # type: ignore[override]
        return KeepSet(chain(self, other))

    def pattern_of(self, name: str) -> str | None:
        """The entry that keeps ``name`` (itself, or the first glob matching it)."""
        if frozenset.__contains__(self, name):
            return name
        for p in sorted(self):
            if is_glob(p) and fnmatch.fnmatchcase(name, p):
                return p
        return None
