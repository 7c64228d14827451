"""The extension modules a build file names, for the plan of module names.

Python imports an extension module by the name its build gives it: setup.py's
``CUDAExtension('pkg._ext_cuda', ...)`` (also ``CppExtension``, ``Extension``,
``Pybind11Extension``... and ``torch.utils.cpp_extension.load(name=...)``), CMake's
``pybind11_add_module(ext_cuda ...)``, ``Python_add_library(ext_cuda MODULE ...)``,
``nanobind_add_module`` and ``add_library(ext_cuda MODULE ...)``. The C++ side names the
same module (``PyInit_ext_cuda``, ``PYBIND11_MODULE(ext_cuda, m)``): when such a build is
ported in the run, the module is renamed on every side; when it is not, kept on every
side (``rules/modules.py``).

A setup.py computes its names (``f'pkg._{name}_{suffix}'`` in a loop over sources and a
list of suffixes): the name is read with ``port/python/values.py``, each alternative a
glob whose ``*`` is what the code computes. Each is ``[glob, line, column, how]`` at the
name's argument. A pure function of a file's bytes, run by the symbol index's workers.
"""

from __future__ import annotations

import ast
import re
import warnings

_PYTHON_CALL = re.compile(rb"Extension\s*\(|\bload(?:_inline)?\s*\(")
_CMAKE_CALL = re.compile(r"(?i)\b(?:pybind11_add_module|nanobind_add_module|python3?_add_library|"
                         r"add_library)\s*\(")
_CMAKE_MODULE_COMMANDS = frozenset({"pybind11_add_module", "nanobind_add_module"})
_CMAKE_LIBRARY_COMMANDS = frozenset({"python_add_library", "python3_add_library"})
_CMAKE_VARIABLE = re.compile(r"\$\{[^}]*\}|\$ENV\{[^}]*\}|\$<[^>]*>")
_NOT_EXTENSIONS = frozenset({"BuildExtension"})  # a command class, not a module


def python_modules(data: bytes) -> list[list]:
    """The module names a Python build file's extension calls give."""
    if _PYTHON_CALL.search(data) is None:
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    from ..port.python.value_model import glob
    from ..port.python.values import Values

    jit = b"cpp_extension" in data
    values = None
    out: list[list] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id \
            if isinstance(func, ast.Name) else ""
        if not (name.endswith("Extension") and name not in _NOT_EXTENSIONS
                or jit and name in ("load", "load_inline")):
            continue
        arg = next((k.value for k in node.keywords if k.arg == "name"),
                   node.args[0] if node.args else None)
        if arg is None:
            continue
        values = values or Values(tree)
        for v in values.values(arg):
            g = glob(v)
            if g.strip("*"):
                out.append([g, arg.lineno, arg.col_offset + 1, name])
    return _unique(out)


def cmake_modules(text: str, commands=None) -> list[list]:
    """The module names a CMake file's module targets have (a variable's part: ``*``);
    ``commands``: the file's commands, when they are lexed already."""
    if _CMAKE_CALL.search(text) is None:
        return []
    if commands is None:
        from ..port.build.cmake.lexer import lex_cmake

        commands = lex_cmake(text).commands
    out: list[list] = []
    for cmd in commands:
        name, args = cmd.lname, cmd.args
        if not args or not (name in _CMAKE_MODULE_COMMANDS or name in _CMAKE_LIBRARY_COMMANDS
                            and not (len(args) > 1 and args[1].value in ("STATIC", "SHARED"))
                            or name == "add_library" and len(args) > 1 and args[1].value == "MODULE"):
            continue
        first = args[0]
        g = _CMAKE_VARIABLE.sub("*", re.sub(r"([*?\[])", r"[\1]", first.value))
        if g.strip("*"):
            pos = first.body_start
            line = text.count("\n", 0, pos) + 1
            out.append([g, line, pos - text.rfind("\n", 0, pos), cmd.name])
    return _unique(out)


def _unique(rows: list[list]) -> list[list]:
    seen: set[str] = set()
    return [r for r in rows if not (r[0] in seen or seen.add(r[0]))]  # type: ignore[func-returns-value]
