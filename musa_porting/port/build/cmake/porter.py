"""Porting a CMake file (``CMakeLists.txt``, ``*.cmake``) to FindMUSA and MUSAToolkit.

Command by command, on the tokens of ``cmake.lexer``: what is mechanical is rewritten
(FindCUDA's names to FindMUSA's, CUDAToolkit to MUSAToolkit with its components and
``MUSA::`` targets, the CUDA language to ``find_package(MUSA)``, a target of ``.cu``
sources to ``musa_add_library``, ``CMAKE_CUDA_ARCHITECTURES`` and ``CMAKE_CUDA_STANDARD``
to ``MUSA_MCC_FLAGS``), then every argument's words go through ``build.rewrite`` (nvcc
options, libraries, paths, file names). What cannot be rewritten exactly gets a note,
and ``analyze/build_findings`` reports every CUDA name left.

The commands are handled by family: ``cmake_toolkit`` (the CUDA language and packages),
``cmake_flags`` (the device compiler's flags), ``cmake_targets`` (targets of ``.cu``
sources); ``cmake_words`` says where each argument stands (comments are never touched,
``message()`` text and doc strings only in variable references, regular expressions
only in references and file names, bracket arguments never). Inserted lines (the
FindMUSA preamble) take the indentation of the command they follow.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

from .. import names as bn
from ..rewrite import BuildContext, Rewriter
from .facts import gather_facts
from .flags import FlagCommands
from .lexer import Command, Lexed, lex_cmake
from .targets import TargetCommands
from .toolkit import MUSA_PATH_NOTE, PREAMBLE, ToolkitCommands
from .words import cmake_words, command_words

__all__ = ["MUSA_PATH_NOTE", "PREAMBLE", "CMakePorter", "cmake_names", "cmake_words",
           "command_words", "port_cmake_text"]

_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
_DEF_COMMANDS = frozenset({"target_compile_definitions", "add_compile_definitions"})
# Commands whose arguments are folders: a bare name of a renamed folder follows the port.
_DIR_COMMANDS = frozenset({"add_subdirectory", "include_directories", "target_include_directories"})


@functools.lru_cache(maxsize=1)
def cmake_names() -> dict[str, str]:
    """The toolchain variables a CMake file may name, with their MUSA names."""
    names = dict(bn.HOME_VARS)
    for name in sorted(bn.FINDCUDA_VARIABLES) + sorted(bn.CMAKE_FLAGS):
        names[name] = bn.findmusa_name(name)
    for suffix in ("FOUND", "VERSION", "VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH",
                   "BIN_DIR", "INCLUDE_DIRS", "LIBRARY_DIR", "LIBRARY_ROOT", "TARGET_DIR",
                   "NVCC_EXECUTABLE", "ROOT", "ROOT_DIR", "DIR"):
        names[bn.TOOLKIT_PREFIX + suffix] = bn.findmusa_name(bn.TOOLKIT_PREFIX + suffix)
    return names


class CMakePorter:
    """Ports one CMake file into a ``Rewriter``'s changes and notes: each command goes
    to its family's handler, then its words to the ``Rewriter``."""

    def __init__(self, text: str, ctx: BuildContext, protected: Sequence[tuple[int, int]] = ()):
        self.text = text
        self.lexed: Lexed = lex_cmake(text)
        self.rw = Rewriter(text, dataclasses.replace(ctx, names=cmake_names()))
        self.protected = protected
        facts = gather_facts(self.lexed)
        self.toolkit = ToolkitCommands(text, self.rw, facts)
        self.targets = TargetCommands(text, self.rw, facts)
        self.flags = FlagCommands(self.rw, self.targets)
        self.handlers: dict[str, Callable[[Command], None]] = {
            **self.toolkit.handlers(), **self.flags.handlers(), **self.targets.handlers()}

    def run(self) -> Rewriter:
        for cmd in self.lexed.commands:
            if any(s <= cmd.start < e for s, e in self.protected):
                continue
            handler = self.handlers.get(cmd.lname)
            if handler is not None:
                handler(cmd)
            self.toolkit.genex_and_language(cmd)
            name = cmd.lname
            if name in bn.FINDCUDA_COMMANDS:
                self.rw.change(cmd.start, cmd.name_end, bn.findmusa_name(name))
            words = command_words(self.text, cmd)[1:]
            if name == "find_package" and cmd.args and cmd.args[0].value in ("CUDAToolkit", "MUSA"):
                self.toolkit.components(words)
            self.rw.statement(words, link=name in _LINK_COMMANDS, defs=name in _DEF_COMMANDS,
                              dirs=name in _DIR_COMMANDS)
        self._findmusa_variables_without_findmusa()
        return self.rw

    def _findmusa_variables_without_findmusa(self) -> None:
        """FindCUDA's variables renamed in a file that never loads FindMUSA: whatever set
        the CUDA ones (a parent, torch's CMake config) may not set the MUSA ones."""
        if self.toolkit.preamble_done or any(
                c.lname == "find_package" and c.args and c.args[0].value in ("CUDA", "MUSA")
                for c in self.lexed.commands):
            return
        for c in sorted(self.rw.changes, key=lambda c: c.start):
            old = self.text[c.start:c.end]
            if old in bn.FINDCUDA_VARIABLES:
                self.rw.note("MP3107", c.start, c.end, f"'{old}' became '{c.new}', which "
                             "find_package(MUSA) sets, and this file does not call it",
                             "make sure find_package(MUSA) runs before this file (another "
                             "package's CMake config, such as torch_musa's, may not set it)")
                return


def port_cmake_text(text: str, ctx: BuildContext,
                    protected: Sequence[tuple[int, int]] = ()) -> tuple[Rewriter, list[tuple[int, str]]]:
    """The changes and notes for one CMake file, and what could not be parsed."""
    porter = CMakePorter(text, ctx, protected)
    return porter.run(), porter.lexed.problems
