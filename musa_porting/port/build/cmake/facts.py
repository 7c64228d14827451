"""What a whole CMake file says, gathered before any command is rewritten (a command
may depend on one further down: the libraries a ``find_package(CUDAToolkit)`` must
list), and the file's layout for the lines the port inserts."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .. import names as bn
from .lexer import Arg, Command, Lexed

_TLL_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE",
                           "LINK_INTERFACE_LIBRARIES"})


@dataclass
class FileFacts:
    """What the whole file says, gathered before rewriting."""

    keyword_links: set[str] = field(default_factory=set)  # targets linked with PUBLIC/...
    lists: dict[str, list[Arg]] = field(default_factory=dict)  # set(VAR literal...)
    toolkit_libs: list[str] = field(default_factory=list)  # MUSA names of CUDA::x used


def gather_facts(lexed: Lexed) -> FileFacts:
    facts = FileFacts()
    for cmd in lexed.commands:
        vals = cmd.words()
        if cmd.lname == "target_link_libraries" and len(vals) > 1 and vals[1] in _TLL_KEYWORDS:
            facts.keyword_links.add(vals[0])
        elif cmd.lname == "set" and vals and not any(a.kind == "bracket" for a in cmd.args):
            facts.lists[vals[0]] = list(cmd.args[1:])
        elif cmd.lname == "list" and len(vals) > 2 and vals[0] == "APPEND":
            facts.lists.setdefault(vals[1], []).extend(cmd.args[2:])
        for v in vals:
            for m in re.finditer(r"CUDA::([A-Za-z0-9_]+)", v):
                lib = bn.library(m.group(1))
                if lib and lib not in ("musart", "musa") and lib not in facts.toolkit_libs:
                    facts.toolkit_libs.append(lib)
    return facts


def indent_of(text: str, cmd: Command) -> str:
    """The indentation of ``cmd``'s line, for a line inserted next to it (read back
    from the command: not from the line's start, which costs the line per command)."""
    k = cmd.start
    while k > 0 and text[k - 1] != "\n" and text[k - 1].isspace():
        k -= 1
    return text[k:cmd.start] if k == 0 or text[k - 1] == "\n" else ""


@functools.lru_cache(maxsize=1)
def newline_of(text: str) -> str:
    """The file's line end, for inserted lines; looked for once per file (a file that
    inserts thousands of lines asked thousands of times)."""
    return "\r\n" if "\r\n" in text else "\n"
