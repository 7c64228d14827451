"""Names a C++ extension exports to Python, found where it binds them.

Python calls these by name from files a ``csrc`` port does not touch (mmcv's
``ext_loader.load_ext`` asserts each of them, vLLM's ``_custom_ops.py`` calls
``torch.ops._C.<schema name>``), so the project-symbol pass keeps them unless the
user asks for ``--rename-exported``. Found, in code (comments blanked):

- pybind11: ``m.def("name", &fn)`` (and ``def_static``, ``def_readwrite``,
  ``def_property``...), ``def_submodule("name")``, ``py::class_<T>(m, "Name")`` and
  ``py::enum_``, ``PYBIND11_MODULE(name, m)``;
- torch's op registry: ``TORCH_LIBRARY(ns, m)``, ``TORCH_LIBRARY_FRAGMENT`` and
  ``TORCH_LIBRARY_IMPL`` (the namespace), ``m.def("name(Tensor x) -> Tensor")`` and
  ``m.impl("name", [key,] &fn)`` (the schema's name);
- ``#define TORCH_EXTENSION_NAME name`` (the module's name).

Each binding also names the C++ function or class it binds (``&fn``, ``T``): kept
with it, since a rename there would change nothing Python sees and would make the
binding and the function disagree for a reader. A pure function of a file's bytes,
run by the symbol index in its workers.
"""

from __future__ import annotations

import re

from ..port.cxx import lexer

# (name, line, column, how): the binding's name, where it is bound, and how.
Export = tuple[str, int, int, str]

# What a file that binds anything holds somewhere: the regex, and its alternatives
# apart, each with the bytes it starts with. The symbol index asks every file with a
# CUDA word (most files of a large tree, and most bind nothing); one regex whose
# alternatives start with different bytes tests every byte against their set: 1.25 G
# instructions over the bench corpus's sources, against 0.26 G for these one by one.
_ANCHORS = ((b".", rb"\.\s*(?:def|impl)\w*\s*\("), (b"class_", rb"class_\s*<"),
            (b"enum_", rb"enum_\s*<"), (b"PYBIND11_MODULE", b""), (b"TORCH_LIBRARY", b""),
            (b"TORCH_EXTENSION_NAME", b""))
_ANCHOR = re.compile(b"|".join(p or re.escape(w) for w, p in _ANCHORS))
_ANCHOR_SEARCH = tuple((w, re.compile(p).search if p else None) for w, p in _ANCHORS)
_BOUND_BY = "bound by "
_NAME = rb"[A-Za-z_][A-Za-z0-9_]*"
_STRING_CALL = re.compile(rb"\.\s*(def\w*|impl)\s*\(\s*\"(" + _NAME + rb")")
_CLASS = re.compile(rb"\b(class_|enum_)\s*<\s*(?:typename\s+)?((?:::)?" + _NAME + rb"(?:::" + _NAME
                    + rb")*)[^;()]*>\s*\(\s*[\w:.]+\s*,\s*\"(" + _NAME + rb")\"")
_MODULE = re.compile(rb"\b(PYBIND11_MODULE|TORCH_LIBRARY(?:_FRAGMENT|_IMPL)?(?:_EXPAND)?)\s*\(\s*(" + _NAME
                     + rb")")
_EXT_DEFINE = re.compile(rb"#[ \t]*define[ \t]+TORCH_EXTENSION_NAME[ \t]+(" + _NAME + rb")")
_BOUND = re.compile(rb"&\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)")
_TORCH_FN = re.compile(rb"\bTORCH_FN\s*\(\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)")
_BARE = re.compile(rb"\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)\s*(?:[,)]|$)")
# Dispatch keys and such, which stand where a bound function may: never a function.
_NOT_FUNCTION = re.compile(rb"(?:^|::)(?:k[A-Z]\w*|[A-Z][A-Za-z0-9]*|DispatchKey|py|torch)$")


def _args(code: bytes, pos: int) -> bytes:
    """The text of a call's arguments from ``pos`` (just after the name's string) to the
    ``)`` that closes the call."""
    depth = 1
    for i in range(pos, min(len(code), pos + 4000)):
        c = code[i]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                return code[pos:i]
    return code[pos:pos + 4000]


def _bound(args: bytes) -> list[bytes]:
    """The functions a binding's arguments name: ``&fn``, or a bare ``fn`` as the first
    argument after the name (``m.def("f", f)``)."""
    out = [m.group(1) for m in _BOUND.finditer(args)]
    out += [m.group(1) for m in _TORCH_FN.finditer(args)]
    if not out and args.startswith(b","):
        m = _BARE.match(args, 1)
        if m is not None:
            out.append(m.group(1))
    return [n for n in out if not _NOT_FUNCTION.search(n.replace(b" ", b""))]


def _last(qualified: bytes) -> str:
    return qualified.replace(b" ", b"").rsplit(b"::", 1)[-1].decode("ascii")


def may_bind(data: bytes) -> bool:
    """Whether ``_ANCHOR`` matches somewhere in ``data`` (the same answer, cheaper)."""
    return any(w in data and (search is None or search(data) is not None)
               for w, search in reversed(_ANCHOR_SEARCH))  # the rarest words first


def scan(data: bytes) -> list[Export]:
    """The names ``data`` (a C/C++/CUDA file) exports to Python, each with where and how
    it is bound; also the C++ functions and classes those bindings name."""
    if not may_bind(data):
        return []
    comments = lexer.comment_and_string_spans(data, frozenset({"comments"}))
    code = bytearray(data)
    for s, e in comments:
        code[s:e] = b" " * (e - s)
    code = bytes(code)
    found: list[tuple[int, str, str]] = []
    for m in _STRING_CALL.finditer(code):
        how = f".{m.group(1).decode()}"
        if m.group(1) == b"def" and code[m.end():m.end() + 1] == b"(":
            how = "op schema .def"
        found.append((m.start(2), m.group(2).decode("ascii"), how))
        close = code.find(b'"', m.end())
        if close >= 0:
            for fn in _bound(_args(code, close + 1)):
                found.append((m.start(2), _last(fn), _BOUND_BY + how))
    for m in _CLASS.finditer(code):
        how = f"pybind11 py::{m.group(1).decode()}"
        found.append((m.start(3), m.group(3).decode("ascii"), how))
        found.append((m.start(3), _last(m.group(2)), _BOUND_BY + how))
    for m in _MODULE.finditer(code):
        found.append((m.start(2), m.group(2).decode("ascii"), m.group(1).decode()))
    for m in _EXT_DEFINE.finditer(code):
        found.append((m.start(1), m.group(1).decode("ascii"), "TORCH_EXTENSION_NAME"))
    out: list[Export] = []
    seen: set[str] = set()
    # A name's own binding before a binding that names it as the function it binds.
    for pos, name, how in sorted(found, key=lambda f: (f[0], f[2].startswith(_BOUND_BY))):
        if name in seen:
            continue
        seen.add(name)
        line = data.count(b"\n", 0, pos) + 1
        out.append((name, line, pos - data.rfind(b"\n", 0, pos), how))
    return out
