"""What the rewrites of a statement may know about the file and the run.

Kept apart from ``transform`` so that building it does not load the statement
rewriter: a port with no Python statement to rewrite never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...rules.vocabulary import Vocabulary


@dataclass
class RewriteContext:
    torch_musa_names: frozenset[str]
    renames: Mapping[str, str]  # whole identifiers (user rules, project symbols)
    vocabulary: Vocabulary
    cpp_extension: bool  # the file imports from torch.utils.cpp_extension
    map_path: Callable[[str], str | None] | None = None
    arches: tuple[str, ...] = ("mp_22",)  # --arch: what nvcc's arch flags become
    # The names that are torch.distributed in the file (dist), and Backend if imported.
    distributed: frozenset[str] = frozenset({"torch.distributed"})
    # The ops and op namespaces the run renames: torch.ops.ns.name follows these only.
    ops: Mapping[str, str] = field(default_factory=dict)
    # The extension modules the run renames (rules/modules.py): relative imports follow.
    modules: Mapping[str, str] = field(default_factory=dict)
