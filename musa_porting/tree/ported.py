"""What a kind's port function gets and gives back: ``FileContext`` (what porting one
file may know about the run) and ``Ported`` (the file, ported). Their own module, so
the kinds (``kinds.py``) and the build kinds (``build_kind.py``) both import them and
not each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..analyze.checks import Diagnostic
from ..port.cxx.includes import IncludeResolver
from .options import PortOptions

if TYPE_CHECKING:  # a run that ports nothing loads neither
    from ..port.engine import Edit
    from .active_rules import ActiveRules


@dataclass
class FileContext:
    """What porting one file may know about the run."""

    rel: str  # the file, relative to SRC
    rules: ActiveRules
    resolver: IncludeResolver  # files of the tree, for includes and paths
    out_rel_of: dict[str, str]  # every input of the tree -> its output path
    opts: PortOptions  # the run's options (a kind may have its own)
    # The names with a CUDA word the tree's sources define (the symbol index): a name of
    # the tables the tree defines itself is the tree's, whatever torch_musa has.
    defined: frozenset[str] = frozenset()

    @property
    def skip(self) -> frozenset[str]:
        return frozenset(self.opts.skip)

    @property
    def reverse(self) -> bool:
        return self.opts.reverse


@dataclass
class Ported:
    """One ported file: new bytes, the edits, warnings (line, message) and findings."""

    data: bytes
    edits: list[Edit]
    warnings: list[tuple[int, str]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    by_family: dict[str, int] = field(default_factory=dict)
    by_rule: dict[str, int] = field(default_factory=dict)
    # Findings past analyze.findings.MAX_PER_FILE, counted per ID but not built.
    findings_dropped: dict[str, int] = field(default_factory=dict)
