"""MP5003 and MP5004: the ops and bindings the Python reads are the ones the C++
defines.

An op (``torch.ops.ns.name``) is checked when the C++ of OUT registers its namespace
(or the namespace's counterpart): an op of a namespace the tree does not register is
another library's. A name read off an extension module (``_C.name``, an mmcv
``load_ext`` list) is checked against every name the C++ binds with pybind11.
Either is an error only when the C++ defines the name's counterpart (the port
renamed one side): a name defined nowhere may be defined at run time, by Python
(``torch.library``, a placeholder), which the check cannot see.
"""

from __future__ import annotations

from .built import Modules, last
from .facts import WILDCARD
from .found import Found, finding, where
from .tree import OutTree


def op_reads(tree: OutTree) -> list[Found]:
    registered: dict[tuple[str, str], tuple[str, int]] = {}
    for rel, (ns, name, line, _) in tree.rows("ops"):
        registered.setdefault((ns, name), (rel, line))
    if not registered:
        return []
    spaces = {ns for ns, _ in registered}
    out: list[Found] = []
    for rel, (ns, name, line, col) in tree.rows("reads"):
        if (ns, name) in registered or (WILDCARD, name) in registered:
            continue
        ns_options = [ns, *tree.counterparts(ns)]
        if WILDCARD not in spaces and not any(n in spaces for n in ns_options):
            continue  # another library's ops
        for other_ns in ns_options:
            hit = next(((n, registered[(s, n)]) for s in (other_ns, WILDCARD)
                        for n in [name, *tree.counterparts(name)] if (s, n) in registered), None)
            if hit is not None and (other_ns, hit[0]) != (ns, name):
                n, (at, at_line) = hit
                out.append(finding("MP5003", rel, line, col, f"torch.ops.{ns}.{name}",
                                   f"torch.ops.{ns}.{name} is not registered by the ported C++, "
                                   f"which registers {other_ns}::{n} at {where(at, at_line)}: the "
                                   "port renamed one side; the call fails with \"No such "
                                   "operator\""))
                break
    return out


def binding_reads(tree: OutTree, mods: Modules) -> list[Found]:
    binds: dict[str, tuple[str, int]] = {}
    for rel, (name, line, _) in tree.rows("binds"):
        binds.setdefault(name, (rel, line))
    if not binds:
        return []
    out: list[Found] = []
    seen: set[tuple] = set()
    for rel, (module, attr, line, col) in tree.rows("attrs"):
        if attr in binds or (rel, module, attr) in seen:
            continue
        seen.add((rel, module, attr))
        sure = module.startswith("!")
        name = last(module.lstrip("!."))
        if not (sure or mods.makers(name) or name in mods.inits):
            continue  # not an extension module (a Python module, another library)
        for other in tree.counterparts(attr):
            if other in binds:
                at, at_line = binds[other]
                shown = module.lstrip("!")
                out.append(finding("MP5004", rel, line, col, attr,
                                   f"{attr} is read off the extension module {shown}, but the "
                                   f"ported C++ binds {other} (at {where(at, at_line)}) and no "
                                   f"{attr}: the port renamed one side; the lookup raises "
                                   "AttributeError"))
                break
    return out
