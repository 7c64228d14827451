"""Macros a build file defines: the project's own names too, for the symbol index.

A project whose build defines ``WITH_CUDA`` (``define_macros=[("WITH_CUDA", None)]`` in a
setup.py, ``add_definitions(-DHAS_CUPTI)`` or ``target_compile_definitions(k PRIVATE
HAS_CUPTI)`` in CMake, ``-DUSE_CUDA`` in a Makefile's flags or a script's nvcc line) and
whose sources only test it owns the name. The C/C++ index sees it used, never defined,
and would keep it; human porters rename it everywhere (``WITH_MUSA``, ``HAS_MUPTI``).
So each such definition is a ``Definition`` of kind ``build macro`` at its line and
column in the build file, and goes through the same plan as the sources' names
(vocabulary, collisions, ``--keep``).

Not definitions: a ``-D`` given to cmake (it sets a cache variable: ``cmake -DX`` in a
script, CMake's ``execute_process`` and ``ExternalProject_Add`` arguments, a setup.py's
``cmake_args``), ``CMAKE_*`` names, comments, prose (``message()``, ``echo``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..port.build.words import CODE, STRING
from .symbols import Definition, FileSymbols
from .word_finder import WordFinder

if TYPE_CHECKING:
    import tokenize

KIND = "build macro"
_FLAG = re.compile(r"(?:^|(?<=[\s\"'=]))-D([A-Za-z_][A-Za-z0-9_]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINITION = re.compile(r"(?:-D)?([A-Za-z_][A-Za-z0-9_]*)(?:=.*)?$", re.S)
_DEF_COMMANDS = frozenset({"add_compile_definitions", "target_compile_definitions"})
_SCOPES = frozenset({"PRIVATE", "PUBLIC", "INTERFACE"})
# Commands whose -D arguments are for another cmake run, and prose.
_NOT_COMPILER = ("execute_process", "externalproject", "fetchcontent", "message", "option")


def _cmake(text: str, commands) -> Iterator[tuple[str, int]]:
    from ..port.build.cmake.words import command_words

    for cmd in commands:
        name = cmd.lname
        if name.startswith(_NOT_COMPILER):
            continue
        if name in _DEF_COMMANDS:
            args = cmd.args[1:] if name == "target_compile_definitions" else cmd.args
            for a in args:
                m = _DEFINITION.match(a.value)
                if a.value not in _SCOPES and m is not None and a.kind != "bracket":
                    yield m.group(1), a.body_start + m.start(1)
            continue
        for w in command_words(text, cmd)[1:]:
            if w.where in (CODE, STRING):
                for m in _FLAG.finditer(w.text):
                    yield m.group(1), w.start + m.start(1)


def _scripts(text: str, make: bool) -> Iterator[tuple[str, int]]:
    from ..port.build.shell.lexer import lex_make, lex_shell

    for stmt in (lex_make(text) if make else lex_shell(text)).statements:
        code = [w for w in stmt if w.where in (CODE, STRING)]
        if any(w.text.rsplit("/", 1)[-1] == "cmake" for w in code[:2]):
            continue  # cmake -DX: a cache variable
        for w in code:
            for m in _FLAG.finditer(w.text):
                yield m.group(1), w.start + m.start(1)


def _logical_lines(data: bytes) -> Iterator[list[tokenize.TokenInfo]]:
    import io
    import tokenize

    toks: list[tokenize.TokenInfo] = []
    try:
        for t in tokenize.tokenize(io.BytesIO(data).readline):
            if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                yield toks
                toks = []
            elif t.type not in (tokenize.COMMENT, tokenize.NL):
                toks.append(t)
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        pass  # a file that does not tokenise: what came before it counts
    if toks:
        yield toks


def _string(tok: tokenize.TokenInfo) -> str | None:
    import ast
    import tokenize

    if tok.type != tokenize.STRING or tok.string[:1] not in "'\"":
        return None  # f-strings, bytes, raw or prefixed: not a plain name
    try:
        value = ast.literal_eval(tok.string)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _python(data: bytes, lines: list[bytes]) -> Iterator[tuple[str, int]]:
    """``-DNAME`` strings (not in a statement about cmake) and ``("NAME", None)`` pairs
    in a statement about macros (``define_macros``, ``macros += [...]``)."""
    import tokenize

    for toks in _logical_lines(data):
        names = [t.string.lower() for t in toks if t.type == tokenize.NAME]
        cmake = any("cmake" in n for n in names)
        macros = any("macro" in n for n in names)
        for i, t in enumerate(toks):
            value = _string(t)
            if value is None:
                continue
            offset = _offset(lines, t.start) + 1  # past the quote
            if not cmake and (m := _DEFINITION.match(value)) and value.startswith("-D"):
                yield m.group(1), offset + m.start(1)
            elif macros and _NAME.fullmatch(value) and i > 0 and toks[i - 1].string == "(" \
                    and _pair_tail(toks[i + 1:i + 4]):
                yield value, offset


def _pair_tail(toks: list[tokenize.TokenInfo]) -> bool:
    """``, None)``, ``, "1")``, ``, 1)``: the rest of a (name, value) pair."""
    import tokenize

    if len(toks) < 3 or toks[0].string != "," or toks[2].string != ")":
        return False
    v = toks[1]
    return v.string == "None" or v.type in (tokenize.STRING, tokenize.NUMBER)


def _offset(lines: list[bytes], pos: tuple[int, int]) -> int:
    """The byte offset of tokenize's (row, column in characters)."""
    row, col = pos
    start = sum(len(x) for x in lines[:row - 1])
    line = lines[row - 1] if row - 1 < len(lines) else b""
    return start + len(line.decode("utf-8", "replace")[:col].encode("utf-8"))


def scan_build(data: bytes, kind: str, words: WordFinder, target: WordFinder) -> FileSymbols:
    """The macros a build file of ``kind`` defines whose names hold a vocabulary word
    (``words``); names of the other side (``target``: a MUSA word) are ``taken``."""
    result = FileSymbols()
    low = data.lower()
    if not (words.present(low, data) or target.present(low)):
        return result
    text = data.decode("latin-1")
    commands = None
    if kind == "python" and b"xtension" in data or kind == "cmake":
        from .module_names import cmake_modules, python_modules  # a build's extension modules

        if kind == "python":
            result.modules = python_modules(data)
        else:
            from ..port.build.cmake.lexer import lex_cmake

            commands = lex_cmake(text).commands
            result.modules = cmake_modules(text, commands)
    if kind != "cmake" and b"-d" not in low and (kind != "python" or b"macro" not in low):
        return result  # a -D flag, or a setup.py's define_macros
    if commands is not None:
        found = _cmake(text, commands)
    elif kind == "python":
        found = _python(data, data.splitlines(keepends=True))
    else:
        found = _scripts(text, kind == "make")
    seen: set[str] = set()
    taken: set[str] = set()
    rename, back = words.vocabulary.rename, target.vocabulary.rename
    for name, pos in found:
        if name in seen or name.startswith("CMAKE_"):
            continue
        seen.add(name)
        if rename(name) is not None:
            line = data.count(b"\n", 0, pos) + 1
            result.defs.append(Definition(name, KIND, line, pos - data.rfind(b"\n", 0, pos)))
        elif back(name) is not None:
            taken.add(name)
    result.taken = sorted(taken)
    return result
