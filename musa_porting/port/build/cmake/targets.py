"""CMake targets of ``.cu`` sources become FindMUSA's ``musa_add_library`` /
``musa_add_executable`` (which compile ``.mu`` files with mcc); what FindMUSA would not
compile gets a note."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..rewrite import Rewriter
from .facts import FileFacts, indent_of, newline_of
from .lexer import Arg, Command

_OTHER_LIB_TYPES = frozenset({"OBJECT", "INTERFACE", "IMPORTED", "ALIAS", "UNKNOWN"})
_WHOLE_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


class TargetCommands:
    """The target commands of one CMake file, and the MUSA targets made so far."""

    def __init__(self, text: str, rw: Rewriter, facts: FileFacts):
        self.text = text
        self.rw = rw
        self.facts = facts
        self.keyword_set = False  # set(MUSA_LINK_LIBRARIES_KEYWORD PRIVATE) inserted
        self.musa_targets: list[str] = []  # musa_add_library targets so far

    def handlers(self) -> dict[str, Callable[[Command], None]]:
        return {"add_library": self.musa_target, "add_executable": self.musa_target,
                "cuda_add_library": self.musa_target, "cuda_add_executable": self.musa_target,
                "target_sources": self.target_sources}

    def _sources(self, args: Sequence[Arg], depth: int = 0) -> Iterator[str]:
        """The values of ``args`` with ``${VAR}`` of literal lists of this file expanded."""
        for a in args:
            m = _WHOLE_REF.match(a.value)
            if m and m.group(1) in self.facts.lists and depth < 8:
                yield from self._sources(self.facts.lists[m.group(1)], depth + 1)
            else:
                yield from a.value.split(";")

    def musa_target(self, cmd: Command) -> None:
        """A target of .cu sources: FindMUSA's musa_add_library / musa_add_executable."""
        if not cmd.args:
            return
        name = cmd.args[0].value
        rest = cmd.args[1:]
        kinds = {a.value for a in rest[:2]}
        if not any(re.search(r"\.cuh?$", s) for s in self._sources(rest)):
            return
        if cmd.lname.startswith("cuda_"):
            self.musa_targets.append(name)
            return
        if kinds & _OTHER_LIB_TYPES:
            self.rw.note("MP3101", cmd.start, cmd.name_end, f"{cmd.name}({name} "
                         f"{' '.join(sorted(kinds & _OTHER_LIB_TYPES))} ...) of .cu sources: "
                         "FindMUSA compiles .mu sources only in musa_add_library "
                         "(STATIC, SHARED or MODULE)", f"make it musa_add_library({name} "
                         "STATIC ...) and link that")
            return
        new = "musa_add_library" if cmd.lname == "add_library" else "musa_add_executable"
        if name in self.facts.keyword_links and not self.keyword_set:
            nl, ind = newline_of(self.text), indent_of(self.text, cmd)
            self.rw.change(cmd.start, cmd.start, "set(MUSA_LINK_LIBRARIES_KEYWORD PRIVATE)" + nl + ind)
            self.keyword_set = True
        self.rw.change(cmd.start, cmd.name_end, new)
        self.musa_targets.append(name)
        self.rw.note("MP3107", cmd.start, cmd.name_end, f"{cmd.name}({name} ...) of .cu sources "
                     f"became {new}: FindMUSA compiles its .mu files with mcc and "
                     "MUSA_MCC_FLAGS", "set MUSA_MCC_FLAGS before this line; a "
                     "target_sources() or COMPILE_OPTIONS added later do not reach mcc")

    def target_sources(self, cmd: Command) -> None:
        vals = cmd.words()
        if vals and vals[0] in self.musa_targets:
            for a in cmd.args[1:]:
                if re.search(r"\.cu$", a.value):
                    self.rw.note("MP3101", a.start, a.end, f"target_sources adds {a.value} to "
                                 f"the MUSA target {vals[0]}", f"list it in musa_add_library("
                                 f"{vals[0]} ...) instead: FindMUSA compiles only those")
