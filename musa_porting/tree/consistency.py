"""The check after every port (``musa_porting/check``), on what the run writes (or, in
a dry run, would write): its findings join the findings of the files they stand in,
so that every report, ``--suppress`` and ``--check`` take them as any other."""

from __future__ import annotations

from dataclasses import replace

from . import timings
from .plan import Planned
from .result import PortResult


def check_port(result: PortResult, planned: list[Planned], out: str, reverse: bool) -> None:
    from ..check.run import check_tree, tree_of

    records = {p.out_rel: p.record for p in planned if p.record.kind != "symlink"}
    found = check_tree(tree_of(records, out, reverse))
    if found:
        by_out = {f.out_rel: f for f in result.files}
        rows: dict[str, list[list]] = {}
        for rel, d in found:
            rows.setdefault(rel, []).append(d.to_list())
        for rel, new in rows.items():
            f = by_out[rel]
            # A copy: the run's record is the manifest's, which keeps no finding of the
            # check (they depend on other files, and are found again by every run).
            f.record = replace(f.record, diagnostics=[*f.record.diagnostics, *new])
    timings.mark("consistency check")
