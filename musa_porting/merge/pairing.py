"""Which file of a fork is the port of each file of the upstream it was made from
(``--base-from OLD_SRC``), whatever the fork's naming.

By path pattern first: a file's *key* is its name with the CUDA and MUSA words of
either side left out (``cu``, ``cuda``, ``nv``, ``nvidia``, ``mu``, ``musa``, ``moore``,
``mthreads``, ``mt``) and its extension as a class (a source: ``.cu``, ``.mu``, ``.cpp``...;
a header: ``.cuh``, ``.h``...; else itself), so ``nvidia/add_nvidia.cu`` and
``moore/add_moore.mu`` share one, wherever they are. Of a file's candidates, the one in
the folder where the fork keeps its siblings (``layout``, learned from the files that
have one candidate, or one far closer than the others) is its port; a file the fork moved
is the candidate elsewhere that ports closest to it. By content where no name agrees
(a file moved and renamed): the fork's file of the same class most alike the port of
the upstream file, half its lines at least. Never a fork file at the path of another
upstream file: that file's, however alike (the NVIDIA header of another operator shares
the guard lines; each operator's shared ``cuda/kernel.cuh`` has one name). Alike:
the share of lines two files have in common, as musa-port ports the upstream file (the
fork's port is closer to that than to the CUDA file, and a copy of the CUDA file the
fork keeps beside its port is not taken for it).

The CUDA file as it was (a copy the fork keeps beside its port, or a file it did not
port, wherever it is) is never taken for a port, unless the port has nothing to change
in it: merging the new port into it would write conflict markers into a CUDA file.
Two candidates as close as each other, where nothing else tells them apart, stop the
run naming both (when they are close enough to be merged). A file with a candidate too
far to pair is *unsure* (listed as not upgraded if it changed upstream); one with none is
*left out*.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import PortError
from ..rules.vocabulary import split_parts
from .layout import Layout, learn_layout

VENDOR_WORDS = frozenset({"cuda", "cu", "nv", "nvidia", "musa", "mu", "moore", "mthreads", "mt"})
SOURCES = frozenset({".cu", ".mu", ".c", ".cc", ".cpp", ".cxx"})
HEADERS = frozenset({".cuh", ".muh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".ipp", ".tpp"})
ALIKE = 0.5  # a counterpart by content: half its lines in common at least
MAYBE = 0.25  # perhaps its counterpart: not paired, but not left out either
TIE = 0.01  # two candidates this close are as close as each other
COMMON_LINE = 8  # a line in more of the fork's files than this says nothing of a file
MAX_SIZE = 4 << 20  # larger files are compared by name only


def key(rel: str) -> tuple[str, str]:
    """(the file's name without vendor words, its extension's class)."""
    name = posixpath.basename(rel)
    stem, ext = (name.rpartition(".")[0], "." + name.rpartition(".")[2]) \
        if "." in name.lstrip(".") else (name, "")
    ext = ext.lower()
    kind = "source" if ext in SOURCES else "header" if ext in HEADERS else ext
    return "".join(p.lower() for p in split_parts(stem)
                   if p[0].isalnum() and p.lower() not in VENDOR_WORDS), kind


def lines_of(data: bytes | None) -> Counter:
    if data is None or len(data) > MAX_SIZE:
        return Counter()
    return Counter(s for s in (line.strip() for line in data.splitlines()) if s)


def alike(a: Counter, b: Counter) -> float:
    """The share of lines ``a`` and ``b`` have in common (of the longer)."""
    size = max(a.total(), b.total())
    return (a & b).total() / size if size else 1.0


@dataclass
class Pairing:
    pairs: dict[str, str] = field(default_factory=dict)  # upstream file -> the fork's
    unsure: dict[str, str] = field(default_factory=dict)  # upstream file -> a fork file, too far
    others: dict[str, list[str]] = field(default_factory=dict)  # fork files alike, not paired
    left_out: list[str] = field(default_factory=list)
    copies: set[str] = field(default_factory=set)  # paired with a file of the same lines


class _Files:
    """The two sides' lines, read once each."""

    def __init__(self, port_of: Callable[[str], bytes | None],
                 old_of: Callable[[str], bytes | None], fork_of: Callable[[str], bytes | None]):
        self._read = {"port": port_of, "old": old_of, "fork": fork_of}
        self._lines: dict[tuple[str, str], Counter] = {}

    def lines(self, side: str, rel: str) -> Counter:
        k = (side, rel)
        if k not in self._lines:
            self._lines[k] = lines_of(self._read[side](rel))
        return self._lines[k]

    def score(self, rel: str, theirs: str) -> float:
        """How alike the port of upstream ``rel`` and the fork's ``theirs`` are."""
        return alike(self.lines("port", rel), self.lines("fork", theirs))

    def same(self, rel: str, theirs: str) -> bool:
        """The fork's file has the upstream file's lines: a copy, or nothing to port."""
        return self.lines("old", rel) == self.lines("fork", theirs)

    def cuda_copy(self, rel: str, theirs: str) -> bool:
        """The fork's file is the upstream file, and not its port (the port changes it)."""
        return self.same(rel, theirs) and self.lines("port", rel) != self.lines("old", rel)

    def copy_score(self, rel: str, theirs: str) -> float:
        """As ``score``, or against the upstream file itself (a copy of it)."""
        return max(self.score(rel, theirs), alike(self.lines("old", rel), self.lines("fork", theirs)))


def pair_files(old: list[str], fork: list[str], port_of: Callable[[str], bytes | None],
               old_of: Callable[[str], bytes | None], fork_of: Callable[[str], bytes | None]
               ) -> Pairing:
    """Pair each of ``old`` (OLD_SRC's files) with one of ``fork`` (OUT's); ``port_of``:
    musa-port's port of an upstream file, ``old_of`` its bytes, ``fork_of`` a fork file's."""
    files = _Files(port_of, old_of, fork_of)
    upstream = set(old)
    by_key: dict[tuple[str, str], list[str]] = {}
    for rel in fork:
        by_key.setdefault(key(rel), []).append(rel)
    named = {rel: by_key.get(key(rel), []) for rel in old}
    # The CUDA file as it was is never its port (unless the port has nothing to change
    # in it): a copy the fork keeps beside its port, or of a file it did not port. A
    # fork file at another upstream file's path is that file's, never this one's port.
    cands = {rel: [c for c in cs if (c == rel or c not in upstream) and not files.cuda_copy(rel, c)]
             for rel, cs in named.items()}
    seeds = {}
    for rel, cs in cands.items():
        if len(cs) == 1:
            seeds[rel] = cs[0]
        elif cs:
            ranked = sorted(((files.score(rel, c), c) for c in cs), reverse=True)
            if ranked[0][0] - ranked[1][0] > TIE:
                seeds[rel] = ranked[0][1]
    lay = learn_layout(seeds, {}, {rel for rel, c in seeds.items() if files.same(rel, c)})
    out = Pairing()
    taken: set[str] = set()
    later = []
    # Candidates where the fork keeps the file's siblings first (the path agrees), the
    # closest first; then the files it moved, and those no name pairs.
    near = []
    for rel, cs in cands.items():
        homes = _homes(lay, rel)
        here = [c for c in cs if posixpath.dirname(c) in homes]
        if here:
            best = _best(files, rel, here)
            near.append((best[0], rel, best[1]))
        else:
            later.append(rel)
    for _, rel, theirs in sorted(near, key=lambda x: -x[0]):
        if theirs in taken:
            later.append(rel)
            continue
        out.pairs[rel] = theirs
        taken.add(theirs)
    index = None
    for rel in sorted(later):
        free = [c for c in cands[rel] if c not in taken]
        if not free:
            if index is None:
                wanted = {key(r)[1] for r in later}
                index = _LineIndex(files, [c for c in fork if c not in taken and key(c)[1] in wanted
                                           and c not in upstream])
            free = [c for c in index.near(rel, taken) if not files.cuda_copy(rel, c)]
        if not free:
            out.left_out.append(rel)
            continue
        sim, theirs = _best(files, rel, free)
        if sim >= ALIKE:
            out.pairs[rel] = theirs
            taken.add(theirs)
        elif sim >= MAYBE:
            out.unsure[rel] = theirs
        else:
            out.left_out.append(rel)
    paired = set(out.pairs.values())
    for rel, cs in named.items():
        alike_ones = [c for c in cs if c not in paired and (c == rel or c not in upstream)
                      and files.copy_score(rel, c) >= ALIKE]
        if alike_ones:
            out.others[rel] = alike_ones
    out.copies = {rel for rel, c in out.pairs.items() if files.same(rel, c)}
    return out


def _homes(lay: Layout, rel: str) -> set[str]:
    """The fork's folders for the folder of upstream ``rel`` (two or more when the
    fork split it)."""
    folder = posixpath.dirname(rel)
    if folder in lay.undecided:
        return set(lay.undecided[folder])
    try:
        return {_folder(lay, folder)}
    except PortError:
        return set()


def _folder(lay: Layout, folder: str) -> str:
    if not folder:
        return ""
    parent = posixpath.dirname(folder)
    return lay.place(folder, True, posixpath.basename(folder), _folder(lay, parent) if parent else "")


def _best(files: _Files, rel: str, cands: list[str]) -> tuple[float, str]:
    """The candidate closest to ``rel``'s port; two as close stop the run, when they are
    close enough to be merged (below, neither would be: the first by name is unsure)."""
    ranked = sorted(((files.score(rel, c), c) for c in cands), key=lambda x: (-x[0], x[1]))
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] <= TIE and ranked[0][0] >= ALIKE:
        raise PortError(f"--base-from: {ranked[0][1]} and {ranked[1][1]} in the output are "
                        f"each as close to the port of {rel}: cannot tell which is the "
                        "fork's; move the other out of the output, and run again")
    return ranked[0]


class _LineIndex:
    """The fork's files by their lines, for the files no name pairs: only files that
    share a line that is in few files are compared."""

    def __init__(self, files: _Files, fork: list[str]):
        self.files = files
        self.by_line: dict[bytes, list[str]] = {}
        for rel in fork:
            for line in files.lines("fork", rel):
                self.by_line.setdefault(line, []).append(rel)

    def near(self, rel: str, taken: set[str]) -> list[str]:
        k = key(rel)[1]
        hits: Counter = Counter()
        for line in self.files.lines("port", rel):
            where = self.by_line.get(line, ())
            if len(where) <= COMMON_LINE:
                hits.update(c for c in where if c not in taken and key(c)[1] == k)
        return [c for c, _ in hits.most_common(4)]
