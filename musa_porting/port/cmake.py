"""Porting a CMake file (``CMakeLists.txt``, ``*.cmake``) to FindMUSA and MUSAToolkit.

Command by command, on the tokens of ``cmake_lexer``: what is mechanical is rewritten
(FindCUDA's names to FindMUSA's, CUDAToolkit to MUSAToolkit with its components and
``MUSA::`` targets, the CUDA language to ``find_package(MUSA)``, a target of ``.cu``
sources to ``musa_add_library``, ``CMAKE_CUDA_ARCHITECTURES`` and ``CMAKE_CUDA_STANDARD``
to ``MUSA_MCC_FLAGS``), then every argument's words go through ``build_rewrite`` (nvcc
options, libraries, paths, file names). What cannot be rewritten exactly gets a note,
and ``analyze/build_findings`` reports every CUDA name left.

Comments are never touched, ``message()`` text and doc strings only in variable
references, regular expressions only in references and file names, bracket arguments
never. Inserted lines (the FindMUSA preamble) take the indentation of the command they
follow.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from . import build_names as bn
from .build_rewrite import ARCH_NOTE, BuildContext, Rewriter
from .build_words import CODE, PATTERN, RAW, TEXT, Word, split_words, string_words
from .cmake_lexer import Arg, Command, Lexed, lex_cmake

PREAMBLE = ('list(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")', "find_package(MUSA REQUIRED)")
MUSA_PATH_NOTE = ("configure with -DMUSA_PATH=<the MUSA install> (FindMUSA.cmake is in "
                  "$MUSA_PATH/cmake)")
_MESSAGE_MODES = frozenset({"STATUS", "WARNING", "AUTHOR_WARNING", "SEND_ERROR", "FATAL_ERROR",
                            "DEPRECATION", "NOTICE", "VERBOSE", "DEBUG", "TRACE",
                            "CHECK_START", "CHECK_PASS", "CHECK_FAIL", "CONFIGURE_LOG"})
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
_DEF_COMMANDS = frozenset({"target_compile_definitions", "add_compile_definitions"})
_TLL_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE",
                           "LINK_INTERFACE_LIBRARIES"})
_OTHER_LIB_TYPES = frozenset({"OBJECT", "INTERFACE", "IMPORTED", "ALIAS", "UNKNOWN"})
_COMPARE = frozenset({"VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL", "VERSION_LESS_EQUAL",
                      "VERSION_GREATER_EQUAL", "LESS", "GREATER", "EQUAL", "LESS_EQUAL",
                      "GREATER_EQUAL", "STREQUAL"})
_VERSION_VAR = re.compile(r"^(?:\$\{)?(?:CUDA_VERSION\w*|CUDAToolkit_VERSION\w*|"
                          r"CMAKE_CUDA_COMPILER_VERSION)\}?$")
_VERSION_ARG = re.compile(r"^\d+(?:\.\d+)*$")
_CUDA_GENEX = re.compile(r"\$<(?:COMPILE_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANGUAGE|"
                         r"LINK_LANG_AND_ID):CUDA\b")
_GENEX_VALUE = re.compile(r"\$<\$<(?:COMPILE_LANGUAGE|COMPILE_LANG_AND_ID):CUDA[^>]*>:(.*)>$")
_WHOLE_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_FLAG_VARS = frozenset({"CMAKE_CUDA_FLAGS", "CUDA_NVCC_FLAGS", "MUSA_MCC_FLAGS"})


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


def _arg_words(text: str, arg: Arg, where: str) -> list[Word]:
    """The words of one argument: a list (``a;b``) splits at ``;``, a quoted string at
    blanks too; a bracket argument is one raw word."""
    start, end = arg.body_start, arg.body_start + len(arg.body)
    if arg.kind == "bracket":
        return [Word(start, end, arg.body, RAW)] if arg.body else []
    if where in (TEXT, PATTERN):
        return split_words(text, start, end, where, ";" if arg.kind == "unquoted" else "")
    if arg.kind == "quoted":
        return string_words(text, start, end, ";")
    return split_words(text, start, end, CODE, ";")


def _contexts(cmd: Command) -> list[str]:
    """Where each argument of ``cmd`` stands: code, prose, a pattern."""
    n = len(cmd.args)
    where = [CODE] * n
    vals = cmd.words()
    name = cmd.lname
    if name == "message":
        for i in range(n):
            if not (i == 0 and vals[0] in _MESSAGE_MODES):
                where[i] = TEXT
    elif name == "string" and n >= 2:
        patterns: tuple[int, ...] = ()
        if vals[0] == "REGEX" and vals[1] in ("MATCH", "MATCHALL"):
            patterns = (2,)  # string(REGEX MATCH <regex> <out> <input>...)
        elif vals[0] == "REGEX" and vals[1] == "REPLACE":
            patterns = (2, 3)  # the regex and its replacement
        elif vals[0] == "REPLACE":
            patterns = (1, 2)
        elif vals[0] == "FIND":
            patterns = (2,)
        for i in patterns:
            if i < n:
                where[i] = PATTERN
    elif name == "list" and n >= 5 and vals[0] == "FILTER" and vals[3] == "REGEX":
        where[4] = PATTERN
    elif name == "option" and n >= 2:
        where[1] = TEXT
    for i, v in enumerate(vals):
        if v == "MATCHES" and name in ("if", "elseif", "while") and i + 1 < n:
            where[i + 1] = PATTERN
        elif v == "COMMENT" and i + 1 < n:
            where[i + 1] = TEXT
        elif v == "CACHE" and name == "set" and i + 2 < n:
            where[i + 2] = TEXT
    for i, a in enumerate(cmd.args):
        if a.kind == "bracket":
            where[i] = RAW
    return where


def command_words(text: str, cmd: Command) -> list[Word]:
    """The command's name (code) and its arguments' words, in order."""
    words = [Word(cmd.start, cmd.name_end, cmd.name, CODE)]
    for arg, where in zip(cmd.args, _contexts(cmd)):
        words += _arg_words(text, arg, where)
    return words


def cmake_words(text: str) -> Iterator[Word]:
    """Every word of a CMake file (for the findings scan)."""
    for cmd in lex_cmake(text).commands:
        yield from command_words(text, cmd)


@dataclass
class _State:
    """What the whole file says, gathered before rewriting."""

    keyword_links: set[str] = field(default_factory=set)  # targets linked with PUBLIC/...
    lists: dict[str, list[Arg]] = field(default_factory=dict)  # set(VAR literal...)
    toolkit_libs: list[str] = field(default_factory=list)  # MUSA names of CUDA::x used
    preamble_done: bool = False
    keyword_set: bool = False
    musa_targets: list[str] = field(default_factory=list)  # musa_add_library targets so far


class CMakePorter:
    """Ports one CMake file into a ``Rewriter``'s changes and notes."""

    def __init__(self, text: str, ctx: BuildContext, protected: Sequence[tuple[int, int]] = ()):
        self.text = text
        self.lexed: Lexed = lex_cmake(text)
        self.rw = Rewriter(text, dataclasses.replace(ctx, names=cmake_names()))
        self.protected = protected
        self.state = _State()

    def run(self) -> Rewriter:
        self._gather()
        for cmd in self.lexed.commands:
            if any(s <= cmd.start < e for s, e in self.protected):
                continue
            handler = getattr(self, "_cmd_" + cmd.lname, None)
            if handler is not None:
                handler(cmd)
            self._genex_and_language(cmd)
            name = cmd.lname
            if name in bn.FINDCUDA_COMMANDS:
                self.rw.change(cmd.start, cmd.name_end, bn.findmusa_name(name))
            words = command_words(self.text, cmd)[1:]
            if name == "find_package" and cmd.args and cmd.args[0].value in ("CUDAToolkit", "MUSA"):
                self._components(words)
            self.rw.statement(words, link=name in _LINK_COMMANDS, defs=name in _DEF_COMMANDS)
        self._findmusa_variables_without_findmusa()
        return self.rw

    def _findmusa_variables_without_findmusa(self) -> None:
        """FindCUDA's variables renamed in a file that never loads FindMUSA: whatever set
        the CUDA ones (a parent, torch's CMake config) may not set the MUSA ones."""
        if self.state.preamble_done or any(
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

    # -- the whole file ----------------------------------------------------------------

    def _gather(self) -> None:
        st = self.state
        for cmd in self.lexed.commands:
            vals = cmd.words()
            if cmd.lname == "target_link_libraries" and len(vals) > 1 and vals[1] in _TLL_KEYWORDS:
                st.keyword_links.add(vals[0])
            elif cmd.lname == "set" and vals and not any(a.kind == "bracket" for a in cmd.args):
                st.lists[vals[0]] = list(cmd.args[1:])
            elif cmd.lname == "list" and len(vals) > 2 and vals[0] == "APPEND":
                st.lists.setdefault(vals[1], []).extend(cmd.args[2:])
            for v in vals:
                for m in re.finditer(r"CUDA::([A-Za-z0-9_]+)", v):
                    lib = bn.library(m.group(1))
                    if lib and lib not in ("musart", "musa") and lib not in st.toolkit_libs:
                        st.toolkit_libs.append(lib)

    def _indent(self, cmd: Command) -> str:
        line_start = self.text.rfind("\n", 0, cmd.start) + 1
        lead = self.text[line_start:cmd.start]
        return lead if lead.strip() == "" else ""

    def _newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"

    def _preamble_after(self, cmd: Command) -> None:
        if self.state.preamble_done:
            return
        nl, ind = self._newline(), self._indent(cmd)
        self.rw.change(cmd.end, cmd.end, "".join(nl + ind + line for line in PREAMBLE))
        self.state.preamble_done = True

    # -- commands ----------------------------------------------------------------------

    def _language_args(self, cmd: Command, first: int) -> list[Arg]:
        return [a for a in cmd.args[first:] if a.kind == "unquoted" and a.value == "CUDA"]

    def _cmd_project(self, cmd: Command) -> None:
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

    def _cmd_enable_language(self, cmd: Command) -> None:
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
        nl, ind = self._newline(), self._indent(cmd)
        new = (nl + ind).join(PREAMBLE) if not self.state.preamble_done else PREAMBLE[1]
        self.rw.change(cmd.start, cmd.end, new)
        self.state.preamble_done = True
        self.rw.note("MP3107", cmd.start, cmd.end, note, MUSA_PATH_NOTE)

    def _cmd_check_language(self, cmd: Command) -> None:
        if self._language_args(cmd, 0):
            self.rw.note("MP3101", cmd.start, cmd.end, "check_language(CUDA) looks for nvcc",
                         bn.NO_EQUIVALENT["check_language"])

    def _cmd_find_package(self, cmd: Command) -> None:
        if not cmd.args:
            return
        first = cmd.args[0]
        if first.value == "CUDA":
            self.rw.change(first.start, first.end, "MUSA")
            if not self.state.preamble_done and "${MUSA_PATH}/cmake" not in self.text:
                nl, ind = self._newline(), self._indent(cmd)
                self.rw.change(cmd.start, cmd.start, PREAMBLE[0] + nl + ind)
                self.state.preamble_done = True
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
                and self.state.toolkit_libs:
            last = cmd.args[-1]
            self.rw.change(last.end, last.end, " COMPONENTS " + " ".join(self.state.toolkit_libs))
            self.rw.note("MP3107", first.start, first.end, "MUSAToolkit lists the libraries "
                         "it provides: added COMPONENTS " + " ".join(self.state.toolkit_libs)
                         + " for the MUSA:: targets this file links",
                         "keep it in step with the MUSA:: targets you link")

    def _components(self, words: list[Word]) -> None:
        """CUDAToolkit's COMPONENTS are library names."""
        in_components = False
        for w in words:
            if w.text in ("COMPONENTS", "OPTIONAL_COMPONENTS"):
                in_components = True
            elif in_components and w.where == CODE:
                new = bn.library(w.text)
                if new is not None:
                    self.rw.change(w.start, w.end, new)

    def _cmd_set(self, cmd: Command) -> None:
        if not cmd.args:
            return
        var = cmd.args[0].value
        values = [a.value for a in cmd.args[1:] if a.value not in ("CACHE", "STRING", "FORCE")
                  and a.kind != "bracket"]
        if var == "CMAKE_CUDA_ARCHITECTURES":
            flags = self.rw.ctx.offload_flags()
            self.rw.change(cmd.start, cmd.end, f'string(APPEND MUSA_MCC_FLAGS " {flags}")')
            self.rw.note("MP3104", cmd.start, cmd.end, f"CMAKE_CUDA_ARCHITECTURES "
                         f"{';'.join(values[:1]) or '(empty)'} became {flags} in MUSA_MCC_FLAGS: "
                         "sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE)
        elif var == "CMAKE_CUDA_STANDARD" and values and values[0].isdigit():
            std = f"-std=c++{values[0]}"
            self.rw.change(cmd.start, cmd.end, f'string(APPEND MUSA_MCC_FLAGS " {std}")')
            self.rw.note("MP3107", cmd.start, cmd.end, f"CMAKE_CUDA_STANDARD {values[0]} "
                         f"became {std} in MUSA_MCC_FLAGS", "keep it before musa_add_library, "
                         "which reads MUSA_MCC_FLAGS when it is called")
        self._flags_after_target(cmd, var)

    def _cmd_string(self, cmd: Command) -> None:
        vals = cmd.words()
        if len(vals) > 1 and vals[0] in ("APPEND", "PREPEND"):
            self._flags_after_target(cmd, vals[1])

    def _cmd_list(self, cmd: Command) -> None:
        vals = cmd.words()
        if len(vals) > 1 and vals[0] in ("APPEND", "PREPEND", "INSERT"):
            self._flags_after_target(cmd, vals[1])

    def _flags_after_target(self, cmd: Command, var: str) -> None:
        if var in _FLAG_VARS and self.state.musa_targets:
            target = self.state.musa_targets[-1]
            self.rw.note("MP3107", cmd.start, cmd.name_end, f"{var} changes after "
                         f"musa_add_library({target}), which has already read MUSA_MCC_FLAGS",
                         "move this before the musa_add_library calls it should reach")

    def _sources(self, args: Sequence[Arg], depth: int = 0) -> Iterator[str]:
        """The values of ``args`` with ``${VAR}`` of literal lists of this file expanded."""
        for a in args:
            m = _WHOLE_REF.match(a.value)
            if m and m.group(1) in self.state.lists and depth < 8:
                yield from self._sources(self.state.lists[m.group(1)], depth + 1)
            else:
                yield from a.value.split(";")

    def _musa_target(self, cmd: Command) -> None:
        """A target of .cu sources: FindMUSA's musa_add_library / musa_add_executable."""
        if not cmd.args:
            return
        name = cmd.args[0].value
        rest = cmd.args[1:]
        kinds = {a.value for a in rest[:2]}
        if not any(re.search(r"\.cuh?$", s) for s in self._sources(rest)):
            return
        if cmd.lname.startswith("cuda_"):
            self.state.musa_targets.append(name)
            return
        if kinds & _OTHER_LIB_TYPES:
            self.rw.note("MP3101", cmd.start, cmd.name_end, f"{cmd.name}({name} "
                         f"{' '.join(sorted(kinds & _OTHER_LIB_TYPES))} ...) of .cu sources: "
                         "FindMUSA compiles .mu sources only in musa_add_library "
                         "(STATIC, SHARED or MODULE)", f"make it musa_add_library({name} "
                         "STATIC ...) and link that")
            return
        new = "musa_add_library" if cmd.lname == "add_library" else "musa_add_executable"
        if name in self.state.keyword_links and not self.state.keyword_set:
            nl, ind = self._newline(), self._indent(cmd)
            self.rw.change(cmd.start, cmd.start, "set(MUSA_LINK_LIBRARIES_KEYWORD PRIVATE)" + nl + ind)
            self.state.keyword_set = True
        self.rw.change(cmd.start, cmd.name_end, new)
        self.state.musa_targets.append(name)
        self.rw.note("MP3107", cmd.start, cmd.name_end, f"{cmd.name}({name} ...) of .cu sources "
                     f"became {new}: FindMUSA compiles its .mu files with mcc and "
                     "MUSA_MCC_FLAGS", "set MUSA_MCC_FLAGS before this line; a "
                     "target_sources() or COMPILE_OPTIONS added later do not reach mcc")

    _cmd_add_library = _musa_target
    _cmd_add_executable = _musa_target
    _cmd_cuda_add_library = _musa_target
    _cmd_cuda_add_executable = _musa_target

    def _cmd_target_sources(self, cmd: Command) -> None:
        vals = cmd.words()
        if vals and vals[0] in self.state.musa_targets:
            for a in cmd.args[1:]:
                if re.search(r"\.cu$", a.value):
                    self.rw.note("MP3101", a.start, a.end, f"target_sources adds {a.value} to "
                                 f"the MUSA target {vals[0]}", f"list it in musa_add_library("
                                 f"{vals[0]} ...) instead: FindMUSA compiles only those")

    def _cmd_cuda_select_nvcc_arch_flags(self, cmd: Command) -> None:
        if not cmd.args:
            return
        var = cmd.args[0].value
        flags = self.rw.ctx.offload_flags()
        self.rw.change(cmd.start, cmd.end, f"set({var} {flags})")
        self.rw.note("MP3104", cmd.start, cmd.end, f"cuda_select_nvcc_arch_flags became "
                     f"set({var} {flags}): sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE)

    def _cmd_if(self, cmd: Command) -> None:
        vals = cmd.words()
        for i, v in enumerate(vals):
            if v in _COMPARE and 0 < i < len(vals) - 1 and (
                    _VERSION_VAR.match(vals[i - 1]) or _VERSION_VAR.match(vals[i + 1])):
                a, b = cmd.args[i - 1], cmd.args[i + 1]
                self.rw.note("MP3106", a.start, b.end, f"'{self.text[a.start:b.end]}' compares "
                             "the CUDA version; after porting it is the MUSA version, "
                             "numbered differently (MUSA 3.x, 4.x)", "rewrite the comparison "
                             "for MUSA versions, or drop it")

    _cmd_elseif = _cmd_if

    # -- CUDA as a language ------------------------------------------------------------

    def _genex_and_language(self, cmd: Command) -> None:
        vals = cmd.words()
        for i, a in enumerate(cmd.args):
            if _CUDA_GENEX.search(a.value):
                m = _GENEX_VALUE.match(a.value)
                inner = m.group(1) if m else ""
                mapped = _mapped_flags(inner.replace(";", " "), self.rw.ctx) if inner else ""
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


def _mapped_flags(flags: str, ctx: BuildContext) -> str:
    """nvcc flags as mcc takes them (for a suggestion), by the rewriter itself."""
    rw = Rewriter(flags, ctx)
    rw.statement(split_words(flags, 0, len(flags), CODE))
    out, pos = [], 0
    for c in sorted(rw.changes, key=lambda c: c.start):
        out += [flags[pos:c.start], c.new]
        pos = c.end
    return " ".join("".join(out + [flags[pos:]]).split())


def port_cmake_text(text: str, ctx: BuildContext,
                    protected: Sequence[tuple[int, int]] = ()) -> tuple[Rewriter, list[tuple[int, str]]]:
    """The changes and notes for one CMake file, and what could not be parsed."""
    porter = CMakePorter(text, ctx, protected)
    return porter.run(), porter.lexed.problems
