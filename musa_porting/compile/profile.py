"""A compiler profile: how one compiler is called. ``musa-port build`` uses mcc's
(see ``build``), ``musa-port verify`` nvcc's through a shim (see ``verify``). A new
compiler is a new ``Profile``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

HOST_EXTS = (".cpp", ".cc", ".cxx", ".c")


def gcc_depfile_flags(obj: str, dep: str) -> list[str]:
    """The depfile flags of gcc, clang, mcc and nvcc alike."""
    return ["-MD", "-MF", dep]


@dataclass
class Profile:
    """How one compiler is called. Commands are argv prefixes; the driver appends the
    depfile flags, the input and the output."""

    name: str
    device_cmd: list[str]  # compiles device sources (.mu as MUSA, or -x cu for nvcc)
    host_cmd: list[str]  # compiles host C/C++ sources
    link_cmd: list[str] | None  # links: link_cmd + ["-o", lib, *objects] + link_libs
    link_libs: list[str] = field(default_factory=list)
    device_exts: tuple[str, ...] = (".mu",)
    host_exts: tuple[str, ...] = HOST_EXTS
    depfile_flags: Callable[[str, str], list[str]] = gcc_depfile_flags  # (obj, depfile) -> flags
    host_depfile_flags: Callable[[str, str], list[str]] = gcc_depfile_flags  # for host_cmd
    per_file: Callable[[str], list[str]] | None = None  # extra flags for one file (by rel)
    # The compiler runs its own steps through `sh -c` with file names in double quotes
    # (nvcc does): a name with a backtick or a `$(` in it would run a command.
    shell_paths: bool = False

