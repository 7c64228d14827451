"""``musa-port x.cu``: one file's port to stdout, or to ``-o FILE`` (``-o DIR``: under its
ported name there), as hipify-perl and hipify-clang do; the findings go to stderr, so
stdout is the code alone."""

from __future__ import annotations

import os
import sys
from collections.abc import Set

import click

from ..errors import PortError
from ..report.counts import fails_check
from ..tree.options import PortOptions
from .common import EXIT_CHECK, write_output
from .findings_out import echo_check_failure, echo_findings, finding_line

# Options that only make sense for a tree.
TREE_ONLY = {"report_json": "--report-json", "report_csv": "--report-csv", "sarif": "--sarif",
             "report_files": "--report-files", "then_build": "--build",
             "rename_paths": "--rename-paths", "base_from": "--base-from"}


def port_one_file(opts: PortOptions, output: str | None, diff: str | None, write: bool,
                  suppressed: Set[str], check: str | None, quiet: bool, fmt: str = "text",
                  data: bytes | None = None) -> None:
    """Port ``opts.src`` (a file; with ``data``, those bytes as that file: standard
    input). Exit 1 when ``check`` is a level and findings fail it. ``fmt``: how the
    findings are printed on stderr (text, github or grouped)."""
    from ..report.diff import tree_diff
    from ..tree.result import DiffItem
    from ..tree.single_file import FilePorter

    path = opts.src
    if output not in (None, "-"):
        from ..write.through import check_named

        why = check_named(output)  # a socket: refused before the port, as the reports are
        if why:
            raise PortError(f"-o: {why}", output)
    ported = FilePorter(opts).port(path, data)
    mode = 0o644 if data is not None else os.stat(path).st_mode & 0o7777
    if ported.kind is None and b"\0" not in ported.data:
        exts = " ".join(e if e.startswith(".") else "." + e for e in opts.extensions)
        raise PortError(f"not a file musa-port ports (sources: {exts}; Python files; CMake "
                        "files, Makefiles and scripts that call nvcc): nothing to port", path)
    if output not in (None, "-") and os.path.isdir(output):
        output = os.path.join(output, ported.out_name)  # -o DIR: the file's ported name in it
    if output not in (None, "-") and os.path.exists(output) and os.path.exists(path) \
            and os.path.samefile(output, path):
        raise PortError("-o names the input file; musa-port never writes its input", path)
    for w in ported.warnings:
        click.echo(w, err=True)
    shown = [d for d in ported.diagnostics if d.id not in suppressed]
    if not quiet and fmt == "text":
        echo_findings(finding_line(path, d) for d in shown)
    elif not quiet and shown:
        echo_findings(_formatted(path, shown, fmt))
    if diff is not None:
        if data is None:
            with open(path, "rb") as fh:
                data = fh.read()
        name = os.path.basename(path)
        item = DiffItem(name, ported.out_name, data, ported.data, mode)
        original = data
        write_output(tree_diff([item]) if original != ported.data or name != ported.out_name
                     else b"", diff)
    if output not in (None, "-") and (diff is None or write) and not opts.dry_run:
        _write_if_changed(output, ported.data, mode)
    elif diff is None and output in (None, "-"):
        sys.stdout.flush()
        sys.stdout.buffer.write(ported.data)
        sys.stdout.flush()
    if check is not None:
        failures = [(path, d) for d in shown if fails_check(d, check)]
        if failures:
            echo_check_failure(failures, check)
            sys.exit(EXIT_CHECK)


def _write_if_changed(target: str, data: bytes, mode: int) -> None:
    from ..write.files import write_if_changed

    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise PortError("folder not found", folder)
    write_if_changed(target, data, mode, named=True)


def _formatted(path: str, shown: list, fmt: str) -> list[str]:
    """One file's findings as ``--output-format github`` or ``grouped`` prints them."""
    from ..report.annotations import finding_text, github_line

    if fmt == "grouped":
        return [f"{path}:", *(f"  {finding_text(d)}" for d in shown)]
    return [github_line(path, d) for d in shown]
