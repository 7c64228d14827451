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


# The includes of one target kept per file: each resolves as the first does (the
# including file and the target decide), so a file that includes a header thousands of
# times (generated or concatenated code) keeps its first few sites, not thousands.
MAX_SAME_INCLUDE = 8


class _Lines:
    """Line and column of offsets asked in increasing order: each newline is counted
    once (counting from the file's start for each row read a large header over again)."""

    def __init__(self, data: bytes):
        self.data, self.pos, self.line = data, 0, 1

    def __call__(self, pos: int) -> tuple[int, int]:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.data.count(b"\n", self.pos, pos)
        self.pos = pos
        return self.line, pos - self.data.rfind(b"\n", 0, pos)


def cxx_facts(data: bytes) -> dict:
    """The facts of one C/C++/CUDA file (see ``facts.py`` for their shape)."""
    out: dict = {}
    includes = []
    seen: dict[bytes, int] = {}  # target -> its includes kept
    where = _Lines(data)
    for m in _INCLUDE.finditer(data):
        bol = data.rfind(b"\n", 0, m.start()) + 1
        if data[bol:m.start()].strip(b" \t"):
            continue  # not at a line's start: a comment or a string mentions it
        target = m.group(1)
        if seen.get(target, 0) >= MAX_SAME_INCLUDE:
            continue  # resolves as its first ones do: the manifest does not grow with the file
        if not (target.endswith(_RENAMED) or names_port_words(target)):
            continue  # names the same file before and after any rename the port makes
        seen[target] = seen.get(target, 0) + 1
        includes.append([target.decode("utf-8", "surrogateescape"), *where(m.start(1))])
    if includes:
        out["include"] = includes
    if any(a in data for a in _ANCHORS):
        _bindings(data, out)
    return out


def _bindings(data: bytes, out: dict) -> None:
    """Module inits, op registrations and pybind11 names, read with comments blanked."""
    where = _Lines(data)  # each pass below asks in increasing order (it restarts between)
    code = bytearray(data)
    for s, e in lexer.comment_and_string_spans(data, frozenset({"comments"})):
        code[s:e] = b" " * (e - s)
    code = bytes(code)
    inits = []
    for m in _PYINIT.finditer(code):
        inits.append([m.group(1).decode(), *where(m.start(1)), "PyInit"])
    for m in _PYBIND.finditer(code):
        name = m.group(1).decode()
        if name != "TORCH_EXTENSION_NAME":
            inits.append([name, *where(m.start(1)), "PYBIND11_MODULE"])
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
                ops.append([space, sm.group(2), *where(m.start(1))])
    if b"RegisterOperators" in code:
        for m in _REGISTER.finditer(code):
            ops.append([m.group(1).decode(), m.group(2).decode(), *where(m.start(1))])
    binds = []
    for m in _BIND.finditer(code):
        if any(s <= m.start() < e for s, e in in_library):
            continue
        k = next(i for i in (1, 2, 3) if m.group(i) is not None)
        binds.append([m.group(k).decode(), *where(m.start(k))])
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
