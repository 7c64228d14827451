"""The files a ported CMake file or Makefile names: its sources and its globs.

A word is a file reference when it is a path to a C, C++ or CUDA source (by its
extension; a glob of ``file(GLOB)`` or ``$(wildcard)`` whatever it matches). Paths are
relative to the build file's folder (``${CMAKE_CURRENT_SOURCE_DIR}/``,
``${CMAKE_CURRENT_LIST_DIR}/`` and ``./`` say so too) or to the top of the tree
(``${CMAKE_SOURCE_DIR}/``, ``${PROJECT_SOURCE_DIR}/``); a path through any other
variable is left alone (the variable may point anywhere), as is a Make pattern rule's
``%``. CMake's ``pybind11_add_module(name ...)`` and ``Python_add_library`` build a
Python module, which the check matches with the module's init name.
"""

from __future__ import annotations

import posixpath
import re

from .paths import normalize

_SOURCE = re.compile(r"[^\s;\"'()=:,]*[^\s;\"'()=:,*/]\.(?:cu|cuh|mu|muh|cpp|cc|cxx|c|h|hh|hpp|hxx|"
                     r"inl|ipp|tpp)\Z")
_HERE = re.compile(r"^(?:\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/|\./)+")
_TOP = re.compile(r"^\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/")
_GLOB_WORDS = frozenset({"GLOB", "GLOB_RECURSE"})
_GLOB_OPTIONS = frozenset({"CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"})
_MODULE_COMMANDS = frozenset({"pybind11_add_module", "python_add_library", "nanobind_add_module"})
_FOLDER_COMMANDS = frozenset({"include_directories", "target_include_directories", "add_subdirectory"})
_FOLDER_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER",
                              "EXCLUDE_FROM_ALL"})
_WILDCARD = re.compile(r"\$[({]wildcard\s+([^)}]*)[)}]")
_MAKE_TOKEN = re.compile(r"[^\s:=;,()'\"|&<>]+")


def _resolve(word: str, here: str) -> str | None:
    """The tree path a build file's word names, or None (another variable's folder)."""
    top = _TOP.match(word)
    if top is not None:
        rest = word[top.end():]
        base = ""
    else:
        rest = _HERE.sub("", word)
        base = here
    if "$" in rest or "%" in rest:
        return None
    return normalize(posixpath.join(base, rest))


def _line(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def cmake_facts(data: bytes, rel: str) -> dict:
    from ..port.build.cmake.lexer import lex_cmake

    text = data.decode("latin-1")
    here = posixpath.dirname(rel)
    paths, builds = [], []
    for cmd in lex_cmake(text).commands:
        name = cmd.lname
        if name in ("message", "string", "list") and not (name == "list" and cmd.args
                                                          and cmd.args[0].value == "APPEND"):
            continue
        args = cmd.args
        if name == "file" and args and args[0].value in _GLOB_WORDS:
            for a in args[2:]:
                if a.value in _GLOB_OPTIONS or a.value in ("RELATIVE", "LIST_DIRECTORIES"):
                    continue
                found = _resolve(a.value, here)
                if found is not None and ("*" in a.value or "?" in a.value):
                    paths.append([found, *_line(text, a.body_start), "cmake glob"])
            continue
        if name in _FOLDER_COMMANDS:
            for a in args[1 if name == "target_include_directories" else 0:]:
                if a.value not in _FOLDER_KEYWORDS and "$<" not in a.value:
                    found = _resolve(a.value, here)
                    if found is not None:
                        paths.append([found, *_line(text, a.body_start), "cmake folder"])
            continue
        sources = []
        for a in args:
            for piece in a.value.split(";"):
                if _SOURCE.match(piece):
                    found = _resolve(piece, here)
                    if found is not None:
                        paths.append([found, *_line(text, a.body_start), "cmake"])
                        sources.append(found)
        if name in _MODULE_COMMANDS and args and "$" not in args[0].value:
            builds.append([[args[0].value], *_line(text, args[0].body_start), sources])
    out: dict = {}
    if paths:
        out["paths"] = paths
    if builds:
        out["builds"] = builds
    return out


def make_facts(data: bytes, rel: str) -> dict:
    from ..port.build.shell.lexer import lex_make

    text = data.decode("latin-1")
    here = posixpath.dirname(rel)
    paths = []
    for m in _WILDCARD.finditer(text):
        for w in re.finditer(r"\S+", m.group(1)):
            found = _resolve(w.group(), here)
            if found is not None:
                paths.append([found, *_line(text, m.start(1) + w.start()), "make glob"])
    for stmt in lex_make(text).statements:
        for word in stmt:
            if word.where != "code" or "wildcard" in word.text:
                continue
            for t in _MAKE_TOKEN.finditer(word.text):
                token = t.group()
                if _SOURCE.match(token) and "*" not in token:
                    found = _resolve(token, here)
                    if found is not None:
                        paths.append([found, *_line(text, word.start + t.start()), "make"])
    return {"paths": paths} if paths else {}
