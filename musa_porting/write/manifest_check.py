"""Does a manifest hold what a run writes? Its records, folders and project plan, by
type, down to each finding and definition.

The manifest is read back from the output, which a tree that ships its own
``SRC_musa/`` controls: a record whose ``warnings`` is a number, or a finding with an
unknown ID, would crash a later step of the run (exit 3) when the record is reused.
Such a record is dropped (``load_manifest`` names it in a warning), so that the file
is ported again, as it would be without a manifest. The checks are plain ``type``
tests: a no-change re-run of 100,000 files checks every record.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import Any

from ..check.facts import facts_ok

_INTS = ("src_size", "src_mtime_ns", "src_mode", "out_size", "out_mtime_ns", "edits",
         "lines_changed", "src_ctime_ns", "conflicts")
_STRS = ("src", "kind", "lang", "src_sha256", "base")
_COUNTS = ("by_family", "by_rule", "findings_dropped")
_KINDS = ("ported", "copied", "symlink")
_DIAG = [str, str, int, int, int, int, str, int, str]  # analyze.checks.Diagnostic.to_list
_DIAG_OLD = _DIAG[:7]  # a manifest of a musa-port before end lines and levels
_LEVELS = frozenset(("", "error", "warning", "note"))
_DEF = [str, str, int, int]  # analyze.symbols.Definition.to_list
_SITE = [str, int, int, str]  # rules.project.Site
_OWN = [str, str, int, int, str]  # a name and its Site (rules.project.ProjectPlan.own)
# What each field's type must be (a field that is absent reads as its default), as
# lists compared in one C loop each: a no-change re-run checks every record.
_INT_TYPES, _INT_DEFAULTS = [int] * len(_INTS), [0] * len(_INTS)
_STR_TYPES, _STR_DEFAULTS = [str] * len(_STRS), [""] * len(_STRS)
_DICT_TYPES, _DICT_DEFAULTS = [dict] * len(_COUNTS), [{}] * len(_COUNTS)
_STR_SET, _INT_SET, _LIST_SET = frozenset({str}), frozenset({int}), frozenset({list})


def _row(value: Any, types: list) -> bool:
    return type(value) is list and list(map(type, value)) == types  # one C loop


def _rows(rows: list, types: list) -> bool:
    """Every row is a list of values of ``types``: all the rows in a few C loops."""
    return (not rows or (set(map(type, rows)) == _LIST_SET and set(map(len, rows)) == {len(types)}
                         and list(map(type, chain.from_iterable(rows))) == types * len(rows)))


def _strs(value: Any) -> bool:
    return type(value) is list and set(map(type, value)) <= _STR_SET


def record_ok(rec: Any) -> bool:
    """A manifest record (its JSON object) as a run writes it."""
    if type(rec) is not dict:
        return False
    get = rec.get
    if (list(map(type, map(get, _INTS, _INT_DEFAULTS))) != _INT_TYPES
            or get("kind") not in _KINDS
            or list(map(type, map(get, _STRS, _STR_DEFAULTS))) != _STR_TYPES
            or not _strs(get("warnings", [])) or type(get("hand", False)) is not bool):
        return False
    counts = list(map(get, _COUNTS, _DICT_DEFAULTS))
    if list(map(type, counts)) != _DICT_TYPES or not (
            set(map(type, chain(*map(dict.values, counts)))) <= _INT_SET):
        return False
    diags = get("diagnostics", [])
    if type(diags) is not list or (diags and not _diagnostics_ok(diags)):
        return False
    symbols = get("symbols")
    return (symbols is None or _symbols_ok(symbols)) and facts_ok(get("facts"))


def _diagnostics_ok(rows: list) -> bool:
    from ..analyze.checks import CHECKS

    if _rows(rows, _DIAG):
        return set(map(itemgetter(0), rows)) <= CHECKS.keys() and \
            set(map(itemgetter(8), rows)) <= _LEVELS
    return _rows(rows, _DIAG_OLD) and set(map(itemgetter(0), rows)) <= CHECKS.keys()


def _symbols_ok(sym: Any) -> bool:
    return (type(sym) is dict and type(sym.get("defs", [])) is list
            and _rows(sym.get("defs", []), _DEF) and type(sym.get("like", [])) is list
            and _rows(sym.get("like", []), _DEF) and _strs(sym.get("taken", []))
            and type(sym.get("note", "")) is str)


def indexed(symbols: dict | None) -> bool:
    """A manifest's index entry is complete: written by a musa-port that also looked
    for the names a file exports to Python, in every form it knows (``exports``)."""
    return symbols is not None and "exports" in symbols


def project_ok(plan: Any) -> bool:
    """A project-symbol plan (rules.project.ProjectPlan.to_json)."""
    if type(plan) is not dict:
        return False
    renames, collisions = plan.get("renames", []), plan.get("collisions", [])
    if type(renames) is not list or type(collisions) is not list:
        return False
    for r in renames:
        if not (type(r) is list and (len(r) == 3 or (len(r) == 4 and type(r[3]) is int))
                and type(r[0]) is str and type(r[1]) is str
                and type(r[2]) is list and r[2] and all(_row(s, _SITE) for s in r[2])):
            return False
    for c in collisions:
        if not (type(c) is list and len(c) == 4 and all(type(x) is str for x in c[:3])
                and type(c[3]) is list and all(_row(s, _SITE) for s in c[3])):
            return False
    modules = plan.get("modules", [])  # rules.project.ModuleLink
    own = plan.get("own", [])  # [name, file, line, column, kind]
    return type(modules) is list and all(
        type(m) is list and len(m) == 4 and type(m[0]) is str and type(m[1]) in (str, type(None))
        and _row(m[2], _SITE) and type(m[3]) is str for m in modules) and (
        type(own) is list and all(_row(x, _OWN) for x in own))


def _counts_ok(counts: object) -> bool:
    return type(counts) is dict and all(type(n) is int for n in counts.values())


def head_ok(data: dict) -> bool:
    """The manifest's own fields (not its records)."""
    return (type(data.get("src", "")) is str and type(data.get("fingerprint", "")) is str
            and type(data.get("dirs", [])) is list and type(data.get("rules", 0)) is int
            and type(data.get("options", {})) is dict and project_ok(data.get("project", {}))
            and _counts_ok(data.get("rule_status", {}))
            and _consistency_ok(data.get("consistency", []))
            and type(data.get("files", {})) is dict)


def _consistency_ok(rows: Any) -> bool:
    """The check's findings a manifest keeps: [output, *finding]."""
    if not rows:
        return rows is None or type(rows) is list
    return type(rows) is list and all(type(r) is list and r and type(r[0]) is str
                                      for r in rows) and _diagnostics_ok([r[1:] for r in rows])
