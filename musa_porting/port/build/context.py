"""What rewriting one build file may know about the run: its path, the tree's output
names, the ``--arch`` MUSA arches (and the note every arch rewrite carries)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

ARCH_NOTE = ("mp_21 is MTT S80/S3000, mp_22 MTT S4000, mp_31 MTT S5000: check that these are "
             "the GPUs you build for (musa-port --arch)")


@dataclass
class BuildContext:
    """What rewriting one build file may know about the run."""

    rel: str  # the build file, relative to SRC
    arches: tuple[str, ...]  # --arch, e.g. ("mp_22",)
    out_rel_of: Mapping[str, str]  # every input of the tree -> its output path
    rename_cu: bool = True  # .cu/.cuh files are renamed by this port
    macro: Callable[[str], str | None] = lambda name: None  # a -D name's new name
    names: Mapping[str, str] = field(default_factory=dict)  # toolchain variables -> MUSA
    keep: frozenset[str] = frozenset()
    # Macros the build defines that the port renames (WITH_CUDA -> WITH_MUSA): the build
    # files' variables of the same name follow (option(WITH_CUDA ...), if(WITH_CUDA)).
    variables: Mapping[str, str] = field(default_factory=dict)

    def offload_flags(self, joiner: str = " ") -> str:
        return joiner.join(f"--offload-arch={a}" for a in self.arches)
