"""The default tables and mapping folders, and merging everything into a ``RuleSet``.

User rules always win over default tables for the same key, and a later user file
wins over an earlier one: torch_musa silently did the opposite.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterable, Mapping
from operator import itemgetter
from pathlib import Path

from ..errors import PortError
from ..safe_open import read_regular
from .files import load_rule_file, not_unicode
from .mapping_dir import default_mapping_dir
from .model import USER_FAMILY, Rule, RuleSet
from .table_cache import cached_tables
from .vocabulary import VOCABULARY_FILE


def _load_shipped_table(path: Path) -> tuple[list[Rule], str, bool]:
    """A table shipped with musa-port: parsed without the per-key checks, which the
    test suite runs over every shipped table instead (tests/tables/test_tables.py).

    This is on the start-up path of every port (33,000 entries), so it is written
    for speed: rules are built as plain tuples, and the cyclic garbage collector is
    paused while the acyclic JSON objects are made (it would otherwise walk them again
    and again for nothing).
    """
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        data = json.loads(read_regular(str(path), follow=True))
        source = str(path)
        if not isinstance(data.get("entries"), dict):
            return [Rule(k, v, path.stem, "supported", source) for k, v in data.items()], \
                path.stem, True
        fam = data.get("family", path.stem)
        status = data.get("default_status", "supported")
        origin = data.get("default_source", "")
        version = data.get("version")
        new = tuple.__new__
        rules = []
        append = rules.append
        for key, val in data["entries"].items():
            if val.__class__ is str:
                append(new(Rule, (key, val, fam, status, source, None, "", False, origin, version)))
            else:
                get = val.get
                append(new(Rule, (key, get("musa"), fam, get("status", status), source, None,
                                  get("note", ""), get("primary") is True, get("source", origin),
                                  get("version", version))))
        return rules, fam, data.get("enabled", True)
    finally:
        if gc_was_on:
            gc.enable()


def load_tables(directory: str | os.PathLike) -> tuple[list[Rule], dict[str, bool]]:
    """Every ``*.json`` table in a folder, in name order (ours or torch_musa's), and
    each family with whether it is on by default (a table may say ``"enabled": false``)."""
    d = Path(directory)
    if not d.is_dir():
        raise PortError("mapping folder not found", str(d))
    paths = [p for p in sorted(d.glob("*.json")) if p.name != VOCABULARY_FILE]  # not rules
    if d.resolve() == default_mapping_dir().resolve():
        return cached_tables(paths, lambda: _load_shipped_tables(paths))
    rules: list[Rule] = []
    families: dict[str, bool] = {}
    for path in paths:
        meta: dict[str, bool] = {}
        loaded = load_rule_file(path, family=path.stem, positions=False, meta=meta)
        rules.extend(loaded)
        families.update(meta or {path.stem: True})
    return rules, families


def _load_shipped_tables(paths: list[Path]) -> tuple[list[Rule], dict[str, bool]]:
    rules: list[Rule] = []
    families: dict[str, bool] = {}
    for path in paths:
        loaded, fam, enabled = _load_shipped_table(path)
        rules.extend(loaded)
        families[fam] = enabled
    return rules, families


def load_mapping_dir(directory: str | os.PathLike) -> list[Rule]:
    """Every rule of the tables in a folder."""
    return load_tables(directory)[0]


def build_ruleset(
    *,
    rule_files: Iterable[str | os.PathLike] = (),
    inline_rules: Mapping[str, str] | None = None,
    default_rules: bool = True,
    mapping_dir: str | os.PathLike | None = None,
    disable_families: Iterable[str] = (),
    enable_families: Iterable[str] = (),
) -> RuleSet:
    """Merge default tables and user rules: user over default, later over earlier.

    ``disable_families`` switches table families off by name (their names are then
    reported as unported CUDA APIs, not rewritten); ``enable_families`` switches on
    families that are off by default. User rules are never switched off.
    """
    rs = RuleSet()
    # A mapping folder of the user's replaces the default tables; without one,
    # default_rules=False means user rules only (torch_musa's drop_default_mapping).
    d = Path(mapping_dir) if mapping_dir is not None else (
        default_mapping_dir() if default_rules else None)
    if d is not None:
        rules, families = load_tables(d)
        rs.rules = dict(zip(map(itemgetter(0), rules), rules))  # later keys win, as in a loop
        rs.families = families
        rs.sources.append(str(d))
    for name in [*disable_families, *enable_families]:
        if name not in rs.families:
            known = ", ".join(sorted(rs.families)) or "none (no tables loaded)"
            raise PortError(f"unknown rule family {name!r}; families: {known}")
    rs.disabled = {f for f, on in rs.families.items() if not on}
    rs.disabled -= set(enable_families)
    rs.disabled |= set(disable_families)
    for path in rule_files:
        for rule in load_rule_file(path):
            rs.rules[rule.key] = rule
        rs.sources.append(str(path))
    if inline_rules:
        for key, value in inline_rules.items():
            if not isinstance(key, str) or not key:
                raise PortError("mapping_rule keys must be non-empty strings")
            if not isinstance(value, str):  # "" deletes the key's text
                raise PortError(f"mapping_rule value for {key!r} must be a string")
            if not_unicode(key) or not_unicode(value):
                raise PortError(f"mapping_rule {key!r}: {value!r} is not Unicode text: it holds "
                                "half of a UTF-16 surrogate pair")
            rs.rules[key] = Rule(key, value, USER_FAMILY, source="mapping_rule")
        rs.sources.append("mapping_rule")
    return rs
