"""MP5002 and MP5005: module names agree across the C++, the build and the Python.

MP5002: a module init (``PyInit_X``, ``PYBIND11_MODULE(X, m)``) names a module the
build makes (of the extensions that list the file among their sources, else of any),
unless neither X nor X with the port's renames is one: then the module is not the
build's (a Windows-only stub, another build), not the port's doing.

MP5005: what the Python imports or loads by name (an import, ``find_spec``,
``import_module``, ``torch.ops.load_library``) is a module of OUT or one the build
makes; when it is neither, it is the port's doing if it named an input module the
port moved, or if the build makes its counterpart (``_cuda`` where the build's suffix
became ``musa``).
"""

from __future__ import annotations

import posixpath

from .built import Modules, last
from .found import Found, finding, listed
from .tree import OutTree


def module_inits(tree: OutTree, mods: Modules) -> list[Found]:
    if not mods.built:
        return []  # no build in the tree: nothing to match the names with
    out: list[Found] = []
    for rel, (name, line, col, how) in tree.rows("init"):
        own = [b for b in mods.built if b.has_source(rel)] or mods.built
        if any(b.makes(name) for b in own):
            continue
        for other in tree.counterparts(name):
            makers = [b for b in own if b.makes(other)]
            if makers:
                spelled = f"PyInit_{name}" if how == "PyInit" else f"PYBIND11_MODULE({name}, ...)"
                out.append(finding("MP5002", rel, line, col, name,
                                   f"{spelled} initialises module {name}, but the build makes "
                                   f"{listed([b.shown() for b in makers])}: the names differ "
                                   f"by the port's rename ({name} against {other}), and the "
                                   "built module will not import"))
                break
    return out


def _lookup(mods: Modules, bases: list[str], dotted: str, exists) -> str | None:
    for b in bases:
        found = mods.python_module(b, dotted, exists)
        if found is not None:
            return found
    return None


def _why_missing(tree: OutTree, mods: Modules, bases_in: list[str], dotted: str) -> str | None:
    """Why a module the file names and OUT lacks is the port's doing (None: it is not):
    found from the input's folders ``bases_in``, an input module the port moved; or the
    build makes the name's counterpart."""
    name = last(dotted)
    if mods.makers(name) or name in mods.inits:
        return None  # an extension module the build makes
    before = _lookup(mods, bases_in, dotted, tree.in_input)
    if before is not None:
        now = tree.output_of(before)
        if now is not None and now != before:
            return f"it named {before} before the port, which is now {now}"
        return None
    for other in tree.counterparts(name):
        makers = mods.makers(other)
        if makers:
            return f"the build makes {listed([b.shown() for b in makers])} instead"
    return None


def python_modules(tree: OutTree, mods: Modules) -> list[Found]:
    out: list[Found] = []

    def exists(path: str) -> bool:
        return bool(tree.in_out(path))

    for rel, (spec, line, col) in tree.rows("imports"):
        bases, dotted = mods.bases(rel, spec, exists)
        if _lookup(mods, bases, dotted, exists) is not None:
            continue
        bases_in, _ = mods.bases(tree.src_of(rel), spec, tree.in_input)
        parent = dotted.rpartition(".")[0]
        if parent and _lookup(mods, bases, parent, exists) is None:
            # `from pkg.cuda import x`: pkg.cuda itself is missing
            why = _why_missing(tree, mods, bases_in, parent) or \
                _why_missing(tree, mods, bases_in, dotted)
        else:
            why = _why_missing(tree, mods, bases_in, dotted)
        if why is not None:
            out.append(finding("MP5005", rel, line, col, spec,
                               f"the import of {spec} names no module of the ported tree "
                               f"and none the build makes: {why}"))
    groups: dict[tuple, list] = {}
    for rel, (name, folder, line, col, how) in tree.rows("loads"):
        groups.setdefault((rel, line, col, how), []).append((name, folder))
    for (rel, line, col, how), names in groups.items():
        missing = []
        for name, folder in names:
            if how == "import_module":
                bases, dotted = mods.bases(rel, name, exists)
                bases_in, _ = mods.bases(tree.src_of(rel), name, tree.in_input)
            else:
                here = posixpath.dirname(rel)
                bases, dotted = [folder or here], name
                bases_in = [posixpath.dirname(tree.src_of(rel)) if folder in ("", here)
                            else tree.undo(folder)]
            if _lookup(mods, bases, dotted, exists) is not None:
                continue
            why = _why_missing(tree, mods, bases_in, dotted)
            if why is not None:
                missing.append((name, why))
        if missing:
            out.append(finding("MP5005", rel, line, col, missing[0][0],
                               f"{how} looks for module {listed([n for n, _ in missing])}, "
                               "which is no module of the ported tree and none the build "
                               f"makes: {missing[0][1]}"))
    return out
