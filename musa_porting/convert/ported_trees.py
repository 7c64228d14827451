"""The C++ trees musa-port has ported inside a project, found by their manifests, so
that a setup.py converted in place points at them: ``"csrc/foo.cu"`` becomes
``"csrc_musa/foo.mu"`` when ``csrc_musa/.musa-port-manifest.json`` says it holds the
port of ``csrc``. The identifier rules that port used (``MMCV_WITH_CUDA ->
MMCV_WITH_MUSA``) come along, so the macros setup.py defines are the ones the
ported C++ tests.
"""

from __future__ import annotations

import os

from ..errors import PortError
from ..port.python import PortedTree
from ..port.python.names import identifier_renames
from ..port.python.paths import with_folders
from ..rules import build_ruleset
from ..rules.project import ProjectPlan
from ..write.manifest import MANIFEST_NAME, Manifest, load_manifest

_SKIP_DIRS = frozenset({"__pycache__", "node_modules"})


def find_ported_trees(root: str, max_depth: int = 6
                      ) -> tuple[list[PortedTree], dict[str, str], dict[str, str | None]]:
    """Every musa-port output under ``root`` (not following links) whose source is a
    folder under ``root`` too, in ``root``'s coordinates; the identifier renames of the
    user rules those ports used; and their extension modules' decisions (a module a
    port of ``csrc`` alone kept keeps its name in the Python it loads)."""
    trees = []
    renames: dict[str, str] = {}
    modules: dict[str, str | None] = {}
    root = os.path.abspath(root)
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if any(e.name == MANIFEST_NAME for e in entries):
            m = load_manifest(folder)
            tree = _tree(root, folder, m)
            if tree is not None:
                trees.append(tree)
                renames.update(_renames(m))
                if m.project:
                    modules.update({x.old: x.new for x in ProjectPlan.from_json(m.project).modules})
            continue  # an output tree: nothing below it is a source
        if depth < max_depth:
            stack.extend((e.path, depth + 1) for e in entries
                         if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
                         and e.name not in _SKIP_DIRS)
    return sorted(trees, key=lambda t: t.out), renames, modules


def _renames(m: Manifest) -> dict[str, str]:
    """The port's user rules that rename identifiers (none when its rule files moved), and
    the names it exported to Python and renamed all the same (--rename-exported): the
    Python that calls them follows."""
    plan = ProjectPlan.from_json(m.project) if m.project else ProjectPlan()
    exported = {k: plan.renames[k].new for k in plan.exported if k in plan.renames}
    o = m.options
    if not o.get("rule_files") and not o.get("inline_rules"):
        return exported
    try:
        rs = build_ruleset(rule_files=o.get("rule_files", ()), inline_rules=o.get("inline_rules"),
                           default_rules=False)
    except PortError:
        return exported
    return {**exported, **identifier_renames(rs)}


def _tree(root: str, out_dir: str, m: Manifest) -> PortedTree | None:
    if not m.src:
        return None
    src = m.src if os.path.isdir(m.src) else None
    if src is None and out_dir.endswith("_musa"):  # the project moved: the sibling
        src = out_dir[:-len("_musa")] if os.path.isdir(out_dir[:-len("_musa")]) else None
    if src is None:
        return None
    src_rel = _rel(root, src)
    out_rel = _rel(root, out_dir)
    if src_rel is None or out_rel is None:
        return None
    files = with_folders({rec.src: out for out, rec in m.files.items()})
    return PortedTree(src_rel, out_rel, files, frozenset(m.dirs))


def _rel(root: str, path: str) -> str | None:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    if rel == "." or rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")
