"""The Python side of one ``musa-port`` run: the rules its ``.py`` files are ported
with, and which of them are launch files. Built once per run (and once in each forked
worker), not per file: it walks the rule set and the tree's output names.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import PortError
from .options import PortOptions
from .paths import inside

if TYPE_CHECKING:
    from ..port.python import PythonRules
    from .active_rules import ActiveRules

_last: tuple[object, object, object, PythonRules, frozenset[str]] | None = None


def python_setup(rules: ActiveRules, out_rel_of: Mapping[str, str],
                 opts: PortOptions) -> tuple[PythonRules, frozenset[str]]:
    """The run's Python rules and its launch files (paths relative to SRC).

    The identifier renames are the user's identifier rules and the project-symbol
    renames of the C++ side, so that ``torch.ops.mylib.gemm_cuda`` and
    ``ext_module.get_compiling_cuda_version`` follow the C++ they bind."""
    from ..port.python import PathMap, python_rules, tree_of_port
    from ..port.python.modules import module_tree
    from ..port.python.names import identifier_renames

    global _last
    if _last is not None and _last[0] is rules and _last[1] is out_rel_of and _last[2] is opts:
        return _last[3], _last[4]
    renames = identifier_renames(rules.ruleset)
    if rules.project is not None:
        renames = {**{r.old: r.new for r in rules.project.renames.values()}, **renames}
    built = python_rules(renames, PathMap([tree_of_port(out_rel_of)]), tuple(opts.arch),
                         module_tree(out_rel_of))
    launch = launch_files(opts.src, opts.launch)
    _last = (rules, out_rel_of, opts, built, launch)
    return built, launch


def check_launch_files(src: str, paths: Sequence[str], kind_of, tree_files: Sequence[str]) -> None:
    """Every ``--launch`` file is a Python file this port ports, or the run stops."""
    files = set(tree_files)
    bad = sorted(r for r in launch_files(src, paths) if kind_of(r) != "python" or r not in files)
    if bad:
        raise PortError("--launch: not a Python file this port ports (outside SRC, ignored, "
                        "or --no-python)", os.path.join(src, bad[0]))


def launch_files(src: str, paths: Sequence[str]) -> frozenset[str]:
    """``--launch`` files as paths relative to SRC (given relative to it or to cwd)."""
    src_real = os.path.realpath(src)
    out = set()
    for p in paths:
        real = os.path.realpath(p)
        if os.path.isfile(real) and inside(real, src_real):
            rel = os.path.relpath(real, src_real)
        else:
            rel = p
        out.add(posixpath.normpath(rel.replace(os.sep, "/")))
    return frozenset(out)
