"""Where a fork keeps the port of each upstream file, learned from the files it has
(``pairing``), so that the new release lands where the fork is: never beside it.

Forks are named every way porters name things: torch_musa's SimplePorting writes
``csrc/`` into a ``csrc_musa/`` sibling; an operator library adds ``moore/x_moore.mu``
beside ``nvidia/x_nvidia.cu``; a porter moves a file. A layout holds what musa-port's
own naming (the *scheme*: paths kept or renamed, ``.cu`` -> ``.mu`` or kept) does not
give:

- ``words``: a CUDA word of path names the fork writes another way (``nvidia`` ->
  ``moore``, in folders and file names: ``sub_nvidia.cu`` -> ``sub_moore.mu``), when
  two places at least agree and most do;
- ``dirs``: an upstream folder the fork keeps elsewhere (``csrc`` -> ``csrc_musa``), by
  the vote of the files in and below it; a file the vote does not place (a file the
  fork moved) is in ``paths``;
- ``undecided``: a folder whose files the fork split between folders, none ahead: a
  new file there has no place, and the run stops naming the candidates.

A folder's place is its parent's place and its own name with the words, unless
``dirs`` says otherwise; a file's likewise. ``tree/names`` applies it to every input.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Mapping, Set
from dataclasses import asdict, dataclass, field

from ..errors import PortError
from ..rules.vocabulary import split_parts

# The words of path names that say CUDA or NVIDIA: the ones a fork's naming replaces.
CUDA_WORDS = frozenset({"cuda", "cu", "nv", "nvidia"})
AGREE = 0.6  # share of a word's places that must agree
MIN_WORD = 2  # places a word must be seen replaced in


@dataclass
class Layout:
    dirs: dict[str, str] = field(default_factory=dict)  # upstream folder -> the fork's
    words: dict[str, str] = field(default_factory=dict)  # cuda word (lower) -> the fork's
    paths: dict[str, str] = field(default_factory=dict)  # upstream file -> the fork's
    undecided: dict[str, list[str]] = field(default_factory=dict)  # folder -> candidates

    def __bool__(self) -> bool:
        return bool(self.dirs or self.words or self.paths or self.undecided)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> Layout | None:
        if not isinstance(data, dict) or set(data) - {"dirs", "words", "paths", "undecided"}:
            return None
        out = cls(**data)
        maps = (out.dirs, out.words, out.paths)
        if not all(isinstance(m, dict) and all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in m.items()) for m in maps):
            return None
        if not isinstance(out.undecided, dict) or not all(
                isinstance(v, list) and v and all(isinstance(x, str) for x in v)
                for v in out.undecided.values()):
            return None
        return out

    def word(self, name: str, is_dir: bool = True) -> str:
        """``name`` with the fork's words (a file's extension is not a word)."""
        if not self.words:
            return name
        stem, dot, ext = (name, "", "")
        if not is_dir and "." in name.lstrip("."):
            stem, dot, ext = name.rpartition(".")
        parts = [_as(self.words[p.lower()], p) if p.lower() in self.words else p
                 for p in split_parts(stem)]
        return "".join(parts) + dot + ext

    def place(self, rel: str, is_dir: bool, name: str, parent_out: str) -> str:
        """Where input ``rel`` goes: ``name`` is its name by the scheme, ``parent_out``
        where its folder went. A file below a folder the fork split stops the run."""
        if is_dir:
            if rel in self.dirs:
                return self.dirs[rel]
            if rel in self.undecided:
                return self.undecided[rel][0]  # its files each have their place
        elif rel in self.paths:
            return self.paths[rel]
        else:
            self._check_decided(rel)
        new = self.word(name, is_dir)
        return f"{parent_out}/{new}" if parent_out else new

    def _check_decided(self, rel: str) -> None:
        folder = posixpath.dirname(rel)
        while folder and folder not in self.dirs:
            if folder in self.undecided:
                where = " and ".join(f"{d}/" for d in self.undecided[folder])
                raise PortError(f"cannot tell where its port goes: the fork keeps the port of "
                                f"{folder}/ in {where}, as many files in each; move the files "
                                "of one into the other (or out of the output), and run again", rel)
            folder = posixpath.dirname(folder)


def _as(word: str, like: str) -> str:
    """``word`` in the case style of ``like`` (NVIDIA -> MOORE, Nvidia -> Moore)."""
    if like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word.capitalize()
    return word


def _stem(name: str) -> str:
    return name.rpartition(".")[0] if "." in name.lstrip(".") else name


def _parent(rel: str) -> str:
    return posixpath.dirname(rel)


def learn_layout(pairs: Mapping[str, str], scheme: Mapping[str, str],
                 copies: Set[str] = frozenset()) -> Layout:
    """The layout that puts each upstream file of ``pairs`` (upstream -> the fork's) at
    the fork's path; ``scheme``: the output path of every upstream file and folder by
    musa-port's naming. A folder goes where most of its files went; ``copies``, the
    files whose fork file is the upstream file as it is (nothing to port in it), count
    only where no other does: a header the fork left beside the CUDA files says little
    of where it keeps its port."""
    lay = Layout(words=_learn_words(pairs, scheme))
    votes: dict[str, Counter] = {}
    weak: dict[str, Counter] = {}
    for rel, theirs in pairs.items():
        d, f = _parent(rel), _parent(theirs)
        while d:
            (weak if rel in copies else votes).setdefault(d, Counter())[f] += 1
            if not f or lay.word(posixpath.basename(scheme.get(d, d))) != posixpath.basename(f):
                break
            d, f = _parent(d), _parent(f)
    for d in sorted(votes.keys() | weak.keys(), key=lambda x: x.count("/")):
        default = _placed(lay, d, scheme)
        count = votes.get(d) or weak[d]
        most = max(count.values())
        top = sorted(f for f, n in count.items() if n == most)
        if default in top:
            continue
        if len(top) > 1:
            lay.undecided[d] = top
        else:
            lay.dirs[d] = top[0]
    for rel, theirs in pairs.items():
        try:
            placed = _placed(lay, rel, scheme, is_dir=False)
        except PortError:
            placed = None
        if placed != theirs:
            lay.paths[rel] = theirs
    return lay


def _placed(lay: Layout, rel: str, scheme: Mapping[str, str], is_dir: bool = True) -> str:
    parent = _parent(rel)
    parent_out = _placed(lay, parent, scheme) if parent else ""
    return lay.place(rel, is_dir, posixpath.basename(scheme.get(rel, rel)), parent_out)


def _learn_words(pairs: Mapping[str, str], scheme: Mapping[str, str]) -> dict[str, str]:
    """The CUDA words of path names the fork writes otherwise: each pair's names
    compared from the file up, part by part where they split alike."""
    seen: dict[str, Counter] = {}
    for rel, theirs in pairs.items():
        mine = rel
        names = theirs.split("/")[::-1]
        for k, other in enumerate(names):
            if not mine:
                break
            ours = posixpath.basename(scheme.get(mine, mine))
            a, b = (_stem(ours), _stem(other)) if k == 0 else (ours, other)
            pa, pb = split_parts(a), split_parts(b)
            if len(pa) == len(pb):
                for x, y in zip(pa, pb):
                    if x.lower() in CUDA_WORDS:
                        seen.setdefault(x.lower(), Counter())[y.lower()] += 1
            mine = _parent(mine)
    words = {}
    for word, count in seen.items():
        best, n = count.most_common(1)[0]
        if best != word and n >= MIN_WORD and n >= AGREE * sum(count.values()) and best.isalnum():
            words[word] = best
    return words
