"""Names a C++ extension exports to Python, found where it binds them.

Python calls these by name from files a ``csrc`` port does not touch (mmcv's
``ext_loader.load_ext`` asserts each of them, vLLM's ``_custom_ops.py`` calls
``torch.ops._C.<schema name>``), so the project-symbol pass keeps them unless the
user asks for ``--rename-exported``. Found, in code (comments blanked):

- pybind11: ``m.def("name", &fn)`` (and ``def_static``, ``def_readwrite``,
  ``def_property``...), ``def_submodule("name")``, ``py::class_<T>(m, "Name")`` and
  ``py::enum_``, ``PYBIND11_MODULE(name, m)``;
- torch's op registry, in every form: ``TORCH_LIBRARY(ns, m)``, ``TORCH_LIBRARY_FRAGMENT``
  and ``TORCH_LIBRARY_IMPL`` (the namespace), ``m.def("name(Tensor x) -> Tensor")``,
  ``m.def("ns::name(...)")``, ``TORCH_SELECTIVE_SCHEMA("...")`` and ``m.impl("name", [key,]
  &fn)`` (the schema's name); the older ``torch::RegisterOperators().op("ns::name", ...)``
  chains, their constructor form ``RegisterOperators("ns::name", &fn)``, ``c10::``'s, and
  ``RegisterOperators::options().schema("ns::name(...)")`` (the op's name and its
  namespace, which Python reads as ``torch.ops.ns.name``);
- the extension module's name: ``PYBIND11_MODULE(name, m)``, ``#define
  TORCH_EXTENSION_NAME name`` and a module init function ``PyInit_<name>`` (the name
  ``import`` and ``find_spec`` look for).

Each binding also names the C++ function or class it binds (``&fn``, ``T``): kept
with it, since a rename there would change nothing Python sees and would make the
binding and the function disagree for a reader. A pure function of a file's bytes,
run by the symbol index in its workers.
"""

from __future__ import annotations

import re
from bisect import bisect_right

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
            (b"TORCH_EXTENSION_NAME", b""), (b"RegisterOperators", b""), (b"PyInit_", b""))
_ANCHOR = re.compile(b"|".join(p or re.escape(w) for w, p in _ANCHORS))
_ANCHOR_SEARCH = tuple((w, re.compile(p).search if p else None) for w, p in _ANCHORS)
_BOUND_BY = "bound by "
_NAME = rb"[A-Za-z_][A-Za-z0-9_]*"
_STRING_CALL = re.compile(rb"\.\s*(def\w*|impl)\s*\(\s*\"(?:(" + _NAME + rb")::)?(" + _NAME + rb")")
_CLASS = re.compile(rb"\b(class_|enum_)\s*<\s*(?:typename\s+)?((?:::)?" + _NAME + rb"(?:::" + _NAME
                    + rb")*)[^;()]*>\s*\(\s*[\w:.]+\s*,\s*\"(" + _NAME + rb")\"")
_MODULE = re.compile(rb"\b(PYBIND11_MODULE|TORCH_LIBRARY(?:_FRAGMENT|_IMPL)?(?:_EXPAND)?)\s*\(\s*(" + _NAME
                     + rb")")
_EXT_DEFINE = re.compile(rb"#[ \t]*define[ \t]+TORCH_EXTENSION_NAME[ \t]+(" + _NAME + rb")")
_BOUND = re.compile(rb"&\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)")
_TORCH_FN = re.compile(rb"\bTORCH_FN\s*\(\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)")
_BARE = re.compile(rb"\s*((?:::)?" + _NAME + rb"(?:\s*::\s*" + _NAME + rb")*)\s*(?:[,)]|$)")
# An op's name in a registration's string: "ns::name", "ns::name.overload(...) -> ...".
_OP_STRING = re.compile(rb"\s*\"(?:(" + _NAME + rb")::)?(" + _NAME + rb")(?:\.\w+)?\s*[(\"]")
_REGISTER = re.compile(rb"\bRegisterOperators\s*(?:(::\s*options\s*\(\s*\)\s*\.\s*schema\s*\()|\()")
_SCHEMA = re.compile(rb"\.\s*schema\s*\(")
_CHAINED_OP = re.compile(rb"\s*\.\s*op\s*\(")
_SELECTIVE = re.compile(rb"\bTORCH_SELECTIVE_(?:SCHEMA|NAME)\s*\(")
_PYINIT = re.compile(rb"\bPyInit_(" + _NAME.replace(b"[A-Za-z_]", b"[A-Za-z0-9_]", 1) + rb")\s*\(")
_REGISTERED = "RegisterOperators .op"
OP_NAMESPACE = "op namespace"
MODULE_INIT = "PyInit (module init)"
# How a binding names an extension module.
_MODULE_HOWS = frozenset({"PYBIND11_MODULE", "TORCH_EXTENSION_NAME", MODULE_INIT})
# Dispatch keys and such, which stand where a bound function may: never a function.
_NOT_FUNCTION = re.compile(rb"(?:^|::)(?:k[A-Z]\w*|[A-Z][A-Za-z0-9]*|DispatchKey|py|torch)$")


def _args(code: bytes, pos: int) -> bytes:
    """The text of a call's arguments from ``pos`` (inside its parentheses) to the ``)``
    that closes the call; a string's or character's brackets do not count."""
    depth = 1
    i, end = pos, min(len(code), pos + 4000)
    while i < end:
        c = code[i]
        if c in b"\"'":
            i = _past_quoted(code, i, end)
            continue
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                return code[pos:i]
        i += 1
    return code[pos:end]


def _past_quoted(code: bytes, i: int, end: int) -> int:
    """Past the string or character literal that opens at ``i``."""
    quote = code[i]
    i += 1
    while i < end and code[i] != quote and code[i] != 0x0A:
        i += 2 if code[i] == 0x5C else 1  # a backslash escapes the next byte
    return i + 1


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    """``pos`` lies in one of ``spans`` (sorted, apart)."""
    i = bisect_right(spans, (pos, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def _registrations(code: bytes, strings: list[tuple[int, int]]) -> list[tuple[int, str, str]]:
    """The ops ``RegisterOperators`` registers (torch's and c10's): its constructor's
    ``("ns::name", &fn)``, each ``.op("ns::name(...)", ...)`` chained on it, and
    ``options().schema("ns::name(...)")``; each op's name, its namespace (``op
    namespace``) and the functions it binds, at the op string."""
    found: list[tuple[int, str, str]] = []
    for m in _REGISTER.finditer(code):
        if _inside(strings, m.start()):
            continue  # a message that spells a registration
        pos = m.end()
        if m.group(1):  # options().schema("...")
            found += _op_string(code, pos, _REGISTERED)
            continue
        args = _args(code, pos)
        found += _op_string(code, pos, _REGISTERED, args)
        pos += len(args) + 1
        while (op := _CHAINED_OP.match(code, pos)) is not None:
            args = _args(code, op.end())
            got = _op_string(code, op.end(), _REGISTERED, args)
            schema = _SCHEMA.search(args) if not got else None
            if schema is not None:  # .op(options().schema("...").kernel<..., &fn>(...))
                got = _op_string(code, op.end() + schema.end(), _REGISTERED)
                got += [(got[0][0], _last(fn), _BOUND_BY + _REGISTERED) for fn in _bound(args)
                        if got]
            found += got
            pos = op.end() + len(args) + 1
    return found


def _op_string(code: bytes, pos: int, how: str, args: bytes | None = None) -> list[tuple[int, str, str]]:
    """The op named by the string literal at ``pos`` (blanks before it skipped), with its
    namespace, and the functions ``args`` (the call's arguments from ``pos``) bind."""
    m = _OP_STRING.match(code, pos)
    if m is None:
        return []
    out = [(m.start(2), m.group(2).decode("ascii"), how)]
    if m.group(1):
        out.append((m.start(1), m.group(1).decode("ascii"), OP_NAMESPACE))
    if args is not None:
        rest = args[m.end() - pos:]
        rest = rest[rest.find(b'"') + 1:]
        out += [(m.start(2), _last(fn), _BOUND_BY + how) for fn in _bound(rest)]
    return out


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
    spans = lexer.typed_spans(data)
    code = bytearray(data)
    for s, e, kind in spans:
        if kind == "comments":
            code[s:e] = b" " * (e - s)
    code = bytes(code)
    strings = [(s, e) for s, e, kind in spans if kind == "strings"]
    found: list[tuple[int, str, str]] = []
    for m in _STRING_CALL.finditer(code):
        how = f".{m.group(1).decode()}"
        if m.group(1) == b"def" and code[m.end():m.end() + 1] in (b"(", b"."):
            how = "op schema .def"
        found.append((m.start(3), m.group(3).decode("ascii"), how))
        if m.group(2):
            found.append((m.start(2), m.group(2).decode("ascii"), OP_NAMESPACE))
        close = code.find(b'"', m.end())
        if close >= 0:
            for fn in _bound(_args(code, close + 1)):
                found.append((m.start(3), _last(fn), _BOUND_BY + how))
    for m in _SELECTIVE.finditer(code):
        found += _op_string(code, m.end(), "TORCH_SELECTIVE_SCHEMA")
    if b"RegisterOperators" in code:
        found += _registrations(code, strings)
    for m in _PYINIT.finditer(code):
        if not _inside(strings, m.start()):
            found.append((m.start(), "PyInit_" + m.group(1).decode("ascii"), MODULE_INIT))
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


def module_name(name: str, how: str) -> str | None:
    """The extension module a binding names (``PyInit__ext_cuda`` names ``_ext_cuda``),
    or None when the binding is not a module's."""
    if how not in _MODULE_HOWS:
        return None
    return name[len("PyInit_"):] if how == MODULE_INIT else name


def exported_renames(plan) -> dict[str, str]:
    """The names exported to Python that a project plan renames all the same
    (``--rename-exported``; a module whose build is ported with it), old -> new: what
    Python's ``torch.ops.ns.name`` follows. A C++ function the project-symbol pass
    renames is not an op of that name, which may be another library's."""
    if plan is None:
        return {}
    return {name: plan.renames[name].new for name in plan.exported if name in plan.renames}
