"""The report of ``musa-port build`` and ``verify``: per file ok / failed, the first
error at its CUDA line, every error with its hint; and the same as JSON."""

from __future__ import annotations

import json

from .output import write_text


def print_build_summary(b, console, title: str = "Build") -> None:
    """Per file: ok / failed, error and warning counts, first error at its CUDA line;
    then every error with its hint."""
    from rich import box
    from rich.table import Table as RichTable

    style = box.SIMPLE_HEAVY if console.is_terminal else box.ASCII
    data = b.to_dict()
    t = data["totals"]
    state = "up to date" if b.up_to_date else ("ok" if b.ok else "FAILED")
    console.print(f"[bold]{title}[/bold] {b.out} ({b.profile}): {state}; {t['ok']} ok, "
                  f"{t['failed']} failed, {t['not_built']} not built; {t['errors']} errors, "
                  f"{t['warnings']} warnings; {b.elapsed:.2f}s", highlight=False)
    for note in getattr(b, "notes", ()):
        console.print(f"  {note}", markup=False, highlight=False, soft_wrap=True)
    # Every file for a small build; the ones with something to say for a large one.
    rows = b.files if len(b.files) <= 40 else [f for f in b.files if f.status != "ok" or f.diagnostics]
    if rows:
        table = RichTable(box=style)
        for col in ("file", "status", "errors", "warnings", "first error"):
            table.add_column(col, overflow="fold")
        for f in rows:
            first = f.first_error()
            table.add_row(f.path, f.status, str(f.errors), str(f.warnings),
                          f"{first.where()}: {first.message}" if first else "")
        console.print(table)
    for f in [*b.files, *([b.link] if b.link else [])]:
        if f.cut_lines:
            from ..compile.ninja_output import KEEP

            console.print(f"{f.path}: {f.cut_lines:,} lines ({f.cut_bytes:,} bytes) of its compiler "
                          f"output cut (the first and last {KEEP // 1024} KB kept; the "
                          f"{f.cut_errors:,} errors and {f.cut_warnings:,} warnings cut are "
                          "counted above)", markup=False, highlight=False, soft_wrap=True)
    for f in [*b.files, *([b.link] if b.link else [])]:
        if f.status == "failed" and not any(d.is_error for d in f.diagnostics):
            _print_tail(console, f"{f.path}: failed; the compiler said:", f.output)
        _print_errors(console, f)
    if b.link is not None and b.link.status == "ok":
        console.print(f"shared library: {b.link.obj}", highlight=False)
    if not b.ok and not b.failed:
        _print_tail(console, "no compile failed, but ninja did not finish; it said:", b.ninja_output)


MAX_ERRORS = 20  # per file: an error in a header can bring hundreds after it


def _print_errors(console, f) -> None:
    """A file's errors in the compiler's order, its first one first: the one that
    caused the rest, when a missing header or a bad macro brings hundreds after it."""
    errors = [d for d in f.diagnostics if d.is_error]
    for i, d in enumerate(errors[:MAX_ERRORS]):
        lead = f"{f.path}: first error: " if i == 0 and len(errors) > 1 else ""
        console.print(f"{lead}{d.where() or f.path}: {d.severity}: {d.message}",
                      markup=False, highlight=False, soft_wrap=True)
        if d.hint:
            console.print(f"  hint [{d.hint_id}]: {d.hint}", markup=False, highlight=False,
                          soft_wrap=True)
    more = f.errors - min(len(errors), MAX_ERRORS)
    if more > 0:
        console.print(f"{f.path}: {more} more errors after these (--report-json FILE lists "
                      "them)", markup=False, highlight=False, soft_wrap=True)


def _print_tail(console, title: str, text: str, lines: int = 20) -> None:
    """Raw tool output, for a failure no diagnostic explains (never fail silently)."""
    console.print(title, markup=False, highlight=False)
    for line in text.strip().splitlines()[-lines:]:
        console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)


def write_build_json(b, path: str) -> None:
    write_text(path, json.dumps(b.to_dict(), indent=1) + "\n")
