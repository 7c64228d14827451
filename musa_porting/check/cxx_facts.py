"""What a ported C/C++/CUDA file says that other files rely on by name: the project
headers it includes, the Python modules it initialises, the ops it registers and the
names it binds for Python.

Only an include a rename can break is kept: one whose target holds a word the port
renames or a renamed extension (``cuda/x.h``, ``k.cuh``). Any other target names the
same file after the port as before (from the same folder, or by its unchanged name
anywhere); the manifest need not hold the 60% of includes that are such.

Read from the bytes the output holds, in the worker that ports the file, and kept in
its manifest record: the check joins them across files without reading any file again.
Most kernel files hold none of the binding words, so a file costs one scan for
``#include "`` and six substring tests; comments are blanked only in a file that
binds something (a commented-out registration registers nothing).
"""

from __future__ import annotations

import re

from ..port.cxx import lexer
from .facts import WILDCARD
from .words import names_port_words

# `#include "x"` (the quoted form names the project's files; <x> the system's).
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*"([^"\r\n]+)"')
_RENAMED = (b".cu", b".cuh", b".mu", b".muh")
# A file that binds or registers anything names one of these (pybind11 helpers that
# take a module, `void init(py::module &m)`, name py:: or pybind11): six substring
# scans cost less than one regex of them, or of the binding calls themselves.
_ANCHORS = (b"PyInit_", b"PYBIND11_MODULE", b"TORCH_LIBRARY", b"RegisterOperators", b"py::",
            b"pybind11")
_NAME = rb"[A-Za-z_][A-Za-z0-9_]*"
_PYINIT = re.compile(rb"\bPyInit_(" + _NAME + rb")\s*\(")
_PYBIND = re.compile(rb"\bPYBIND11_MODULE\s*\(\s*(" + _NAME + rb")\s*,\s*(" + _NAME + rb")")
_LIBRARY = re.compile(rb"\bTORCH_LIBRARY(_FRAGMENT|_IMPL)?\s*\(\s*(" + _NAME + rb")\s*,\s*(?:"
                      + _NAME + rb"\s*,\s*)?(" + _NAME + rb")\s*\)")
_DEF = re.compile(rb"\.\s*def\s*\(\s*(?:TORCH_SELECTIVE_SCHEMA\s*\(\s*)?\"([^\"\\]*)\"")
_BIND = re.compile(rb"\.\s*def(?:_static|_readonly|_readwrite|_property|_submodule)?\s*\(\s*\"("
                   + _NAME + rb")\"|\bclass_\s*<[^;()]*>\s*\(\s*[\w:.]+\s*,\s*\"(" + _NAME
                   + rb")\"|\.\s*attr\s*\(\s*\"(" + _NAME + rb")\"\s*\)\s*=")
_REGISTER = re.compile(rb"\.\s*(?:op|schema)\s*\(\s*\"(" + _NAME + rb")::(" + _NAME + rb")")
_SCHEMA_NAME = re.compile(r"\s*(?:(" + _NAME.decode() + r")::)?(" + _NAME.decode() + r")")


def _line_col(data: bytes, pos: int) -> tuple[int, int]:
    return data.count(b"\n", 0, pos) + 1, pos - data.rfind(b"\n", 0, pos)


def cxx_facts(data: bytes) -> dict:
    """The facts of one C/C++/CUDA file (see ``facts.py`` for their shape)."""
    out: dict = {}
    includes = []
    for m in _INCLUDE.finditer(data):
        bol = data.rfind(b"\n", 0, m.start()) + 1
        if data[bol:m.start()].strip(b" \t"):
            continue  # not at a line's start: a comment or a string mentions it
        if not (m.group(1).endswith(_RENAMED) or names_port_words(m.group(1))):
            continue  # names the same file before and after any rename the port makes
        includes.append([m.group(1).decode("utf-8", "surrogateescape"), *_line_col(data, m.start(1))])
    if includes:
        out["include"] = includes
    if any(a in data for a in _ANCHORS):
        _bindings(data, out)
    return out


def _bindings(data: bytes, out: dict) -> None:
    """Module inits, op registrations and pybind11 names, read with comments blanked."""
    code = bytearray(data)
    for s, e in lexer.comment_and_string_spans(data, frozenset({"comments"})):
        code[s:e] = b" " * (e - s)
    code = bytes(code)
    inits = []
    for m in _PYINIT.finditer(code):
        inits.append([m.group(1).decode(), *_line_col(data, m.start(1)), "PyInit"])
    for m in _PYBIND.finditer(code):
        name = m.group(1).decode()
        if name != "TORCH_EXTENSION_NAME":
            inits.append([name, *_line_col(data, m.start(1)), "PYBIND11_MODULE"])
    ops = []
    libraries = [(m.end(), m.group(2).decode(), m.group(1) == b"_IMPL")
                 for m in _LIBRARY.finditer(code)]
    in_library = []  # spans of the TORCH_LIBRARY blocks: their .def are ops, not bindings
    for start, ns, impl in libraries:
        end = _block_end(code, start)
        in_library.append((start, end))
        if impl:
            continue
        for m in _DEF.finditer(code, start, end):
            sm = _SCHEMA_NAME.match(m.group(1).decode("utf-8", "replace"))
            if sm:
                space = sm.group(1) or (WILDCARD if ns == "TORCH_EXTENSION_NAME" else ns)
                ops.append([space, sm.group(2), *_line_col(data, m.start(1))])
    if b"RegisterOperators" in code:
        for m in _REGISTER.finditer(code):
            ops.append([m.group(1).decode(), m.group(2).decode(), *_line_col(data, m.start(1))])
    binds = []
    for m in _BIND.finditer(code):
        if any(s <= m.start() < e for s, e in in_library):
            continue
        k = next(i for i in (1, 2, 3) if m.group(i) is not None)
        binds.append([m.group(k).decode(), *_line_col(data, m.start(k))])
    for key, rows in (("init", inits), ("ops", ops), ("binds", binds)):
        if rows:
            out[key] = rows


def _block_end(code: bytes, start: int) -> int:
    """The end of the ``{...}`` block that follows ``start`` (the file's end if none)."""
    brace = code.find(b"{", start)
    if brace < 0:
        return len(code)
    depth = 0
    for i in range(brace, len(code)):
        c = code[i]
        if c == 0x7B:
            depth += 1
        elif c == 0x7D:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(code)
