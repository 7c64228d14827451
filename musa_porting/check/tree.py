"""The ported tree as the check sees it: every output with its input path and its
facts, the outputs' paths and, for the references that name nothing, the inputs'.

A reference that names nothing in OUT is the port's doing when it (or it with the
port's renames undone: ``musa`` back to ``cuda``, ``.mu`` back to ``.cu``) names an
input the port wrote somewhere else: the reference did not follow. One that names
nothing in either tree is not the port's doing (dead code, a file the build
generates, a folder of another backend): the check stays quiet about it. Only the
manifest tells which input each output comes from, so the check reads nothing but OUT.
"""

from __future__ import annotations

import glob as globmod
import os
from collections.abc import Collection, Iterator, Mapping
from functools import cached_property

from .paths import PathIndex, is_pattern, normalize


class OutTree:
    """``records``: each output (tree-relative) -> (its input's path, its facts).
    ``out_dir``: OUT itself, asked only about paths no record names (the user's own
    files there), and not about ``owned``, musa-port's outputs of the last run (the
    records say which it keeps; the others are stale, removed by the run's commit).
    ``reverse``: the port went from MUSA to CUDA."""

    def __init__(self, records: Mapping[str, tuple[str, dict | None]], out_dir: str | None = None,
                 reverse: bool = False, owned: Collection[str] = ()):
        self.records = records
        self.out_dir = out_dir
        self.reverse = reverse
        self.owned = owned
        self.out = PathIndex(records)

    def rows(self, key: str) -> Iterator[tuple[str, list]]:
        """Every output's facts of ``key``, with the output's path."""
        for rel, (_, facts) in self.records.items():
            if facts:
                for row in facts.get(key, ()):
                    yield rel, row

    def has(self, key: str) -> bool:
        return any(facts and key in facts for _, facts in self.records.values())

    # -- what a path names -------------------------------------------------------------

    def in_out(self, pattern: str) -> list[str]:
        """The paths of OUT ``pattern`` names: the outputs, then the user's own files."""
        found = self.out.match(pattern)
        if found or self.out_dir is None:
            return found
        norm = normalize(pattern)
        if norm is None:
            return []
        if not is_pattern(norm):
            found = [norm] if os.path.lexists(os.path.join(self.out_dir, norm)) else []
        else:
            found = sorted(globmod.glob(norm, root_dir=self.out_dir, recursive=True))[:64]
        return [f for f in found if f not in self.owned]

    @cached_property
    def _inputs(self) -> PathIndex:
        return PathIndex({src for src, _ in self.records.values()})

    @cached_property
    def _output_of(self) -> dict[str, str]:
        """Each input file and folder -> its output (folders by their files' outputs)."""
        out: dict[str, str] = {}
        for rel, (src, _) in self.records.items():
            out[src] = rel
            s, o = src.split("/"), rel.split("/")
            for k in range(1, min(len(s), len(o))):
                out.setdefault("/".join(s[:k]), "/".join(o[:k]))
        return out

    def in_input(self, path: str) -> bool:
        return self._inputs.exists(path)

    def output_of(self, src: str) -> str | None:
        """Where the port wrote an input file or folder."""
        return self._output_of.get(src)

    def src_of(self, rel: str) -> str:
        return self.records[rel][0]

    def moved(self, pattern: str) -> list[tuple[str, str]]:
        """(input, output) of the inputs ``pattern`` names, as written or with the
        port's renames undone, that the port wrote under another path."""
        found: dict[str, str] = {}
        for p in dict.fromkeys((pattern, self.undo(pattern))):
            for src in self._inputs.match(p):
                out = self._output_of.get(src)
                if out is not None and out != src:
                    found[src] = out
        return sorted(found.items())

    # -- names -------------------------------------------------------------------------

    @cached_property
    def _vocabularies(self):
        """Both ways of the shipped vocabulary: loaded only when a reference misses."""
        from ..rules.vocabulary import build_vocabulary

        forward = build_vocabulary(default=True)
        back = forward.reversed()
        return (forward, back) if self.reverse else (back, forward)

    def undo(self, path: str) -> str:
        """A path (or a glob) with the port's renames undone, component by component
        (``csrc/musa/*_musa.mu`` -> ``csrc/cuda/*_cuda.cu``)."""
        from ..port.filenames import RENAMES, REVERSE_RENAMES

        back, _ = self._vocabularies
        exts = RENAMES if self.reverse else REVERSE_RENAMES
        parts = []
        for comp in path.split("/"):
            stem, dot, ext = comp.rpartition(".") if "." in comp.lstrip(".") else (comp, "", "")
            if dot and "." + ext in exts:
                ext = exts["." + ext][1:]
            parts.append((back.rename(stem) or stem) + dot + ext)
        return "/".join(parts)

    def counterparts(self, name: str) -> list[str]:
        """The other spellings of a name (an op, a module, a binding) that the port
        may have changed on one side only: its words undone, and made."""
        back, ahead = self._vocabularies
        return [n for n in dict.fromkeys((back.rename(name), ahead.rename(name)))
                if n is not None and n != name]
