"""What the rewrites of a statement may know about the file and the run.

Kept apart from ``transform`` so that building it does not load the statement
rewriter: a port with no Python statement to rewrite never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...rules.vocabulary import Vocabulary

if TYPE_CHECKING:
    from .modules import ModuleTree


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
    # The tree's Python modules (None: no module of it was renamed) and the file's path
    # in it; what the file's imports bound to them (name -> module path), and the names
    # an ``import a.b`` binds that the port renamed (a -> its new name).
    modules: ModuleTree | None = None
    module_file: str = ""
    module_bindings: dict[str, str] = field(default_factory=dict)
    renamed_heads: dict[str, str] = field(default_factory=dict)
    # The dotted names that are torch.utils.cpp_extension in the file.
    extension_modules: frozenset[str] = frozenset({"torch.utils.cpp_extension"})
    extension_star: bool = False  # it has `from torch_musa.utils.musa_extension import *`
