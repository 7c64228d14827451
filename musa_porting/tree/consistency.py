"""The check after every port (``musa_porting/check``), on what the run writes (or, in
a dry run, would write): its findings join the findings of the files they stand in,
so that every report, ``--suppress`` and ``--check`` take them as any other.

A run whose every record is the last run's (a no-change re-run) has the facts the last
check joined, and so its findings: they are taken from the manifest, and nothing of
the check is loaded."""

from __future__ import annotations

import os
from dataclasses import replace

from ..write.manifest import Manifest
from . import timings
from .plan import Planned, one_line
from .result import PortResult


def check_port(result: PortResult, planned: list[Planned], out: str, reverse: bool,
               old: Manifest) -> None:
    if old.consistency is not None and len(planned) == len(old.files) and all(
            p.record is old.files.get(p.out_rel) for p in planned):
        result.consistency = old.consistency
    else:
        from ..check import run

        records = {p.out_rel: p.record for p in planned if p.record.kind != "symlink"}
        try:
            view = run.tree_of(records, out, reverse, owned=old.files)
            result.consistency = [[rel, *d.to_list()] for rel, d in run.check_tree(view)]
        except Exception as exc:  # noqa: BLE001 - a bug of the check never ends the port
            if os.environ.get("MUSA_PORT_DEBUG"):
                raise
            result.consistency = None  # not kept as passed: the next run checks again
            result.warnings.append(
                f"could not check that the ported tree hangs together ({one_line(exc)}): "
                "its findings are missing from this run; please report it "
                "(MUSA_PORT_DEBUG=1 shows the traceback)")
    if result.consistency:
        by_out = {f.out_rel: f for f in result.files}
        rows: dict[str, list[list]] = {}
        for rel, *row in result.consistency:
            rows.setdefault(rel, []).append(row)
        for rel, new in rows.items():
            f = by_out.get(rel)
            if f is not None:
                # A copy: the run's record is the manifest's, whose findings are the
                # file's own (the check's depend on other files: kept apart).
                f.record = replace(f.record, diagnostics=[*f.record.diagnostics, *new])
    timings.mark("consistency check")
