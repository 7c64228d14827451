"""Findings about one input as a whole: a path collision, a MUSA twin kept, a name the
file system cannot hold, a file that could not be read or ported (the MP00xx family).

A problem with one input never ends the run: the input is resolved on its own (it
keeps its name, its twin stands for it, it is copied unchanged or not written) and the
run says so here, as a finding, so that the reports show it beside the others and
``--check`` decides whether it fails CI. Such a finding is the run's, never a manifest
record's: it is made again at every run from what the run sees (a re-run after the
user fixes the input finds nothing to say).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..analyze.checks import Diagnostic
from .result import FOLDER, NOT_PORTED, FileOutcome

__all__ = ["FOLDER", "NOT_PORTED", "InputFinding", "attach", "input_messages"]


@dataclass(frozen=True, slots=True)
class InputFinding:
    """One input's finding. ``at``: the output path it is about ("" for the input's own
    output); ``severity``: its level where it is not its check's."""

    rel: str
    id: str
    message: str
    at: str = ""
    severity: str = ""
    kind: str = NOT_PORTED  # its outcome's kind when the run has none for it (a folder's)

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(self.id, self.rel, 1, 1, 1, 1, self.message, 0, self.severity)


def attach(files: list[FileOutcome], found: Iterable[InputFinding],
           out_rel_of: dict[str, str]) -> None:
    """Put each finding on its input's outcome in ``files`` (a copy of the record for
    this run: the manifest's record is left as the port made it), or on a new
    outcome for an input that has none (``not-ported``; a folder's: ``folder``)."""
    by_rel: dict[str, list[InputFinding]] = {}
    for f in found:
        by_rel.setdefault(f.rel, []).append(f)
    if not by_rel:
        return
    for i, outcome in enumerate(files):
        mine = by_rel.pop(outcome.rel, None)
        if mine is None:
            continue
        rows = [f.diagnostic().to_list() for f in mine]
        files[i] = replace(outcome, record=replace(outcome.record,
                                                   diagnostics=rows + outcome.record.diagnostics))
    for rel, mine in by_rel.items():
        at = mine[0].at or out_rel_of.get(rel, rel)
        outcome = FileOutcome(rel, at, mine[0].kind)
        outcome.record.src = rel
        outcome.record.diagnostics = [f.diagnostic().to_list() for f in mine]
        files.append(outcome)


def input_messages(files: Iterable[FileOutcome]) -> list[str]:
    """The messages of the findings about single inputs, as lines for a caller that
    shows no findings (SimplePorting prints them with its warnings)."""
    from ..analyze.catalogue import CHECKS

    return [d.message for f in files for d in f.diagnostics if CHECKS[d.id].family == "inputs"]
