"""The ``nvml`` family: NVIDIA's management library (NVML) and Moore Threads' MTML.

Moore Threads' Python binding of MTML, ``mthreads-ml-py`` on PyPI (MIT, ``pymtml.py``),
implements NVML's API on top of MTML's C functions for tools written against pynvml:
``nvmlDeviceGetCount()`` returns ``mtmlLibraryCountDevice()``, ``NVML_SUCCESS =
MTML_SUCCESS``. Those wrappers are this table's source, read from the wheel:

- a constant NVML gives MTML's value to (``NVML_SUCCESS = MTML_SUCCESS``) maps to it;
- an NVML function whose wrapper calls one MTML function maps to it, with a note: the C
  call takes MTML's handles (the library handle from ``mtmlLibraryInit``, or a device's
  GPU, memory or VPU handle), so its arguments change by hand;
- an NVML function the wrapper builds from several MTML calls, or answers without one
  ("not support"), has no MUSA name here: the note says which MTML calls stand for it.
"""

from __future__ import annotations

import ast

from .model import Item, Table

FAMILY = "nvml"
DIST = "mthreads-ml-py"
SOURCE_FILE = "pymtml.py"
HEADER_NOTE = ("MTML's C header as Moore Threads' driver installs it (mtml.h, beside libmtml.so "
               "that pymtml loads); not verified")


# pymtml's Python helpers named like NVML functions, which NVML's C API does not have.
PYTHON_ONLY = frozenset(("nvmlStructToFriendlyObject", "nvmlExceptionClass"))


def _calls(fn: ast.FunctionDef, funcs: dict[str, ast.FunctionDef], seen: frozenset = frozenset()
           ) -> list[str]:
    """The MTML functions ``fn`` calls, in order, through the NVML wrappers it calls
    (``nvmlInit`` is ``nvmlInitWithFlags(0)``)."""
    out: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name.startswith("mtml") and name in funcs:
                found = [name]
            elif name.startswith("nvml") and name in funcs and name not in seen:
                found = _calls(funcs[name], funcs, seen | {fn.name})
            else:
                continue
            out += [f for f in found if f not in out]
    return out


def _contexts(tree: ast.Module) -> set[str]:
    """The ``@contextmanager`` helpers (mtmlGpuContext: a device's GPU handle, opened and
    freed around a call), which are Python plumbing, not MTML functions."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "contextmanager" for d in node.decorator_list):
            out.add(node.name)
    return out


def build_nvml(text: str, version: str) -> Table:
    """``mapping/nvml.json`` from ``pymtml.py`` of mthreads-ml-py ``version``."""
    tree = ast.parse(text)
    source = f"{DIST} {version} {SOURCE_FILE}"
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    contexts = _contexts(tree)
    entries: dict[str, Item] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (isinstance(target, ast.Name) and target.id.startswith("NVML_")
                    and isinstance(value, ast.Name) and value.id.startswith("MTML_")):
                entries[target.id] = Item(value.id, "supported", source, kind="constant")
        elif (isinstance(node, ast.FunctionDef) and node.name.startswith("nvml")
              and node.name not in PYTHON_ONLY):
            called = _calls(node, funcs)
            calls = [c for c in called if c not in contexts]
            opened = [c for c in called if c in contexts]
            if len(calls) == 1 and not opened:
                entries[node.name] = Item(
                    calls[0], "supported", source,
                    note="MTML's C function takes MTML's handles (the library from "
                         "mtmlLibraryInit, or the device): check its arguments", kind="function")
            elif calls:
                entries[node.name] = Item(
                    None, "unsupported", source,
                    note="no single MTML call: " + ", then ".join(calls)
                    + (" (on the device's " + ", ".join(
                        c.removeprefix("mtml").removesuffix("Context") for c in opened)
                       + " handle)" if opened else ""), kind="function")
            else:
                entries[node.name] = Item(None, "unsupported", source,
                                          note="MTML has no counterpart (pymtml answers it "
                                               "without the library)", kind="function")
    for node in tree.body:  # _mtmlReturn_t = c_uint: the C return type's name
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "_mtmlReturn_t"):
            entries["nvmlReturn_t"] = Item("mtmlReturn_t", "supported", source, kind="type")
    for left, right in ("<>", '""'):
        entries[f"{left}nvml.h{right}"] = Item(f"{left}mtml.h{right}", "unknown", source,
                                               note=HEADER_NOTE, kind="header")
    return Table(FAMILY, "NVML (NVIDIA's management library) and MTML", "supported",
                 f"Moore Threads' MTML binding ({DIST} {version} on PyPI: {SOURCE_FILE})",
                 dict(sorted(entries.items())))
