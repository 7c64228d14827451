"""CUDA as a CMake language and toolkit, to FindMUSA and MUSAToolkit.

``project(... CUDA)`` and ``enable_language(CUDA)`` become ``find_package(MUSA)`` with
FindMUSA's preamble, ``find_package(CUDA)`` / ``find_package(CUDAToolkit)`` their MUSA
packages (with the COMPONENTS MUSAToolkit needs); what stays CUDA-only (generator
expressions of the CUDA language, the ``LANGUAGE CUDA`` and ``CUDA_ARCHITECTURES``
properties, comparisons of the CUDA version) gets a note.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import names as bn
from ..rewrite import ARCH_NOTE, Rewriter
from ..words import CODE, Word
from .facts import FileFacts, indent_of, newline_of
from .flags import mapped_flags
from .lexer import Arg, Command

PREAMBLE = ('list(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")', "find_package(MUSA REQUIRED)")
MUSA_PATH_NOTE = ("configure with -DMUSA_PATH=<the MUSA install> (FindMUSA.cmake is in "
                  "$MUSA_PATH/cmake)")
_COMPARE = frozenset({"VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL", "VERSION_LESS_EQUAL",
                      "VERSION_GREATER_EQUAL", "LESS", "GREATER", "EQUAL", "LESS_EQUAL",
                      "GREATER_EQUAL", "STREQUAL"})
_VERSION_VAR = re.compile(r"^(?:\$\{)?(?:CUDA_VERSION\w*|CUDAToolkit_VERSION\w*|"
                          r"CMAKE_CUDA_COMPILER_VERSION)\}?$")
_VERSION_ARG = re.compile(r"^\d+(?:\.\d+)*$")
_CUDA_GENEX = re.compile(r"\$<(?:COMPILE_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANGUAGE|"
                         r"LINK_LANG_AND_ID):CUDA\b")
_GENEX_VALUE = re.compile(r"\$<\$<(?:COMPILE_LANGUAGE|COMPILE_LANG_AND_ID):CUDA[^>]*>:(.*)>$")


class ToolkitCommands:
    """The language and package commands of one CMake file, and whether FindMUSA's
    preamble has been written."""

    def __init__(self, text: str, rw: Rewriter, facts: FileFacts):
        self.text = text
        self.rw = rw
        self.facts = facts
        self.preamble_done = False

    def handlers(self) -> dict[str, Callable[[Command], None]]:
        return {"project": self.project, "enable_language": self.enable_language,
                "check_language": self.check_language, "find_package": self.find_package,
                "if": self.version_compare, "elseif": self.version_compare}

    def _preamble_after(self, cmd: Command) -> None:
        if self.preamble_done:
            return
        nl, ind = newline_of(self.text), indent_of(self.text, cmd)
        self.rw.change(cmd.end, cmd.end, "".join(nl + ind + line for line in PREAMBLE))
        self.preamble_done = True

    def _language_args(self, cmd: Command, first: int) -> list[Arg]:
        return [a for a in cmd.args[first:] if a.kind == "unquoted" and a.value == "CUDA"]

    def project(self, cmd: Command) -> None:
        cuda = self._language_args(cmd, 1)
        if not cuda:
            return
        vals = cmd.words()
        langs_at = vals.index("LANGUAGES") + 1 if "LANGUAGES" in vals else 1
        keywords = {"VERSION", "DESCRIPTION", "HOMEPAGE_URL", "LANGUAGES"}
        langs = []
        for v in vals[langs_at:]:
            if v in keywords:
                break
            langs.append(v)
        for arg in cuda:
            if [x for x in langs if x != "CUDA"]:
                self.rw.drop(arg.start, arg.end)
            else:
                self.rw.change(arg.start, arg.end, "CXX")
            self.rw.note("MP3107", arg.start, arg.end, "CUDA is not a CMake language on MUSA: "
                         "removed from project(), and FindMUSA loaded after it "
                         "(find_package(MUSA))", MUSA_PATH_NOTE)
        self._preamble_after(cmd)

    def enable_language(self, cmd: Command) -> None:
        cuda = self._language_args(cmd, 0)
        if not cuda:
            return
        others = [a for a in cmd.args if a.value not in ("CUDA", "OPTIONAL")]
        note = ("CUDA is not a CMake language on MUSA: enable_language(CUDA) became "
                "find_package(MUSA) (FindMUSA)")
        if others:
            for arg in cuda:
                self.rw.drop(arg.start, arg.end)
            self.rw.note("MP3107", cuda[0].start, cuda[0].end, note, MUSA_PATH_NOTE)
            self._preamble_after(cmd)
            return
        nl, ind = newline_of(self.text), indent_of(self.text, cmd)
        new = (nl + ind).join(PREAMBLE) if not self.preamble_done else PREAMBLE[1]
        self.rw.change(cmd.start, cmd.end, new)
        self.preamble_done = True
        self.rw.note("MP3107", cmd.start, cmd.end, note, MUSA_PATH_NOTE)

    def check_language(self, cmd: Command) -> None:
        if self._language_args(cmd, 0):
            self.rw.note("MP3101", cmd.start, cmd.end, "check_language(CUDA) looks for nvcc",
                         bn.NO_EQUIVALENT["check_language"])

    def find_package(self, cmd: Command) -> None:
        if not cmd.args:
            return
        first = cmd.args[0]
        if first.value == "CUDA":
            self.rw.change(first.start, first.end, "MUSA")
            if not self.preamble_done and "${MUSA_PATH}/cmake" not in self.text:
                nl, ind = newline_of(self.text), indent_of(self.text, cmd)
                self.rw.change(cmd.start, cmd.start, PREAMBLE[0] + nl + ind)
                self.preamble_done = True
        elif first.value == "CUDAToolkit":
            self.rw.change(first.start, first.end, "MUSAToolkit")
        else:
            return
        if len(cmd.args) > 1 and _VERSION_ARG.match(cmd.args[1].value):
            v = cmd.args[1]
            self.rw.note("MP3106", v.start, v.end, f"find_package asks for CUDA version "
                         f"{v.value}; MUSA versions are numbered differently (MUSA 3.x, 4.x)",
                         "remove the version, or give the MUSA version you need")
        if first.value == "CUDAToolkit" and "COMPONENTS" not in cmd.words() \
                and self.facts.toolkit_libs:
            last = cmd.args[-1]
            self.rw.change(last.end, last.end, " COMPONENTS " + " ".join(self.facts.toolkit_libs))
            self.rw.note("MP3107", first.start, first.end, "MUSAToolkit lists the libraries "
                         "it provides: added COMPONENTS " + " ".join(self.facts.toolkit_libs)
                         + " for the MUSA:: targets this file links",
                         "keep it in step with the MUSA:: targets you link")

    def components(self, words: list[Word]) -> None:
        """CUDAToolkit's COMPONENTS are library names."""
        in_components = False
        for w in words:
            if w.text in ("COMPONENTS", "OPTIONAL_COMPONENTS"):
                in_components = True
            elif in_components and w.where == CODE:
                new = bn.library(w.text)
                if new is not None:
                    self.rw.change(w.start, w.end, new)

    def version_compare(self, cmd: Command) -> None:
        """``if(CUDA_VERSION VERSION_LESS 11)``: after porting it compares MUSA's."""
        vals = cmd.words()
        for i, v in enumerate(vals):
            if v in _COMPARE and 0 < i < len(vals) - 1 and (
                    _VERSION_VAR.match(vals[i - 1]) or _VERSION_VAR.match(vals[i + 1])):
                a, b = cmd.args[i - 1], cmd.args[i + 1]
                self.rw.note("MP3106", a.start, b.end, f"'{self.text[a.start:b.end]}' compares "
                             "the CUDA version; after porting it is the MUSA version, "
                             "numbered differently (MUSA 3.x, 4.x)", "rewrite the comparison "
                             "for MUSA versions, or drop it")

    def genex_and_language(self, cmd: Command) -> None:
        """CUDA as a language in any command's arguments (generator expressions,
        properties): never true on MUSA, so each gets a note."""
        vals = cmd.words()
        for i, a in enumerate(cmd.args):
            if _CUDA_GENEX.search(a.value):
                m = _GENEX_VALUE.match(a.value)
                inner = m.group(1) if m else ""
                mapped = mapped_flags(inner.replace(";", " "), self.rw.ctx) if inner else ""
                how = (f'string(APPEND MUSA_MCC_FLAGS " {mapped}") before musa_add_library'
                       if mapped else "move device-only settings to MUSA_MCC_FLAGS before "
                       "musa_add_library")
                self.rw.note("MP3101", a.start, a.end, "CUDA is not a CMake language on MUSA: "
                             "this generator expression is never true", how)
            elif a.value == "CUDA" and i > 0 and vals[i - 1] == "LANGUAGE":
                self.rw.note("MP3101", a.start, a.end, "the LANGUAGE CUDA property makes CMake "
                             "compile the file with nvcc", "rename the file to .mu and list it "
                             "in musa_add_library (FindMUSA compiles .mu files with mcc)")
            elif a.value == "CUDA_ARCHITECTURES" and cmd.lname in ("set_target_properties",
                                                                     "set_property"):
                self.rw.note("MP3104", a.start, a.end, "the CUDA_ARCHITECTURES property names "
                             "NVIDIA arches", bn.NO_EQUIVALENT["CUDA_ARCHITECTURES"] + "; "
                             + ARCH_NOTE)
