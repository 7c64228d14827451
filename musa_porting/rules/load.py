"""Loading rules: the default tables, a torch_musa mapping folder, user rule files.

Every rule remembers where it came from (file and line) so that errors and reports
can point at it. User rules always win over default tables for the same key, and a
later user file wins over an earlier one: torch_musa silently did the opposite.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .errors import PortError

STATUSES = ("supported", "unsupported", "unknown")
USER_FAMILY = "user"


class Rule(NamedTuple):
    """One literal rule. ``value`` is None for a known CUDA name with no MUSA form.

    A NamedTuple, not a dataclass: the default tables hold tens of thousands of rules
    and building them is on the start-up path of every port.
    """

    key: str
    value: str | None
    family: str
    status: str = "supported"
    source: str = ""
    line: int | None = None
    note: str = ""
    primary: bool = False  # the CUDA name --reverse picks when several map to one MUSA name

    @property
    def is_user(self) -> bool:
        return self.family == USER_FAMILY


@dataclass(frozen=True)
class Reversed:
    """A rule of the inverted tables (MUSA -> CUDA), for ``--reverse``."""

    key: str
    value: str
    family: str
    forward: Rule


@dataclass
class RuleSet:
    """The active rules after merging, keyed by CUDA name."""

    rules: dict[str, Rule] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    families: dict[str, bool] = field(default_factory=dict)  # family -> enabled
    disabled: set[str] = field(default_factory=set)

    def rewriting(self) -> dict[str, Rule]:
        """Rules the engine applies: those with a replacement, in enabled families."""
        off = self.disabled
        return {k: r for k, r in self.rules.items()
                if r.value is not None and (r.family not in off or r.is_user)}

    def reversed(self) -> dict[str, Reversed]:
        """The inverted rules. Where several CUDA names map to one MUSA name, the one
        marked ``primary`` in its table wins; failing that the shortest, then the first
        in sort order (so the choice is documented and stable)."""
        best: dict[str, Rule] = {}
        for r in self.rewriting().values():
            if r.value == r.key:
                continue
            cur = best.get(r.value)  # type: ignore[arg-type]
            if cur is None or (r.primary, -len(r.key), _neg(r.key)) > \
                    (cur.primary, -len(cur.key), _neg(cur.key)):
                best[r.value] = r  # type: ignore[index]
        return {v: Reversed(v, r.key, r.family, r) for v, r in sorted(best.items())}

    def __len__(self) -> int:
        return len(self.rules)


def _neg(text: str) -> tuple[int, ...]:
    """Sorts strings in reverse order inside a max() comparison."""
    return tuple(-ord(c) for c in text)


def default_mapping_dir() -> Path:
    """The tables shipped with the package (wheel) or beside it (source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "mapping", here.parent / "mapping"):
        if candidate.is_dir():
            return candidate
    raise PortError(f"default mapping tables not found (looked in {here / 'mapping'} "
                    f"and {here.parent / 'mapping'}); reinstall musa-port")


# --- positions in JSON -------------------------------------------------------------

def _line_col(text: str, offset: int | None) -> tuple[int | None, int | None]:
    if offset is None:  # parsed without positions (trusted tables): see load_rule_file
        return None, None
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


class _PosObject(list):
    """A JSON object as a list of (key, value, offset): keeps duplicates and places."""


def _parse_json_positions(text: str):
    """Parse JSON that ``json.loads`` already accepted, keeping key offsets."""
    decoder = json.JSONDecoder()
    ws = " \t\n\r"
    n = len(text)

    def skip(i: int) -> int:
        while i < n and text[i] in ws:
            i += 1
        return i

    def value(i: int):
        i = skip(i)
        ch = text[i]
        if ch == "{":
            obj = _PosObject()
            i = skip(i + 1)
            if text[i] == "}":
                return obj, i + 1
            while True:
                i = skip(i)
                key_at = i
                key, i = json.decoder.scanstring(text, i + 1)
                i = skip(i)
                i += 1  # ':'
                val, i = value(i)
                obj.append((key, val, key_at))
                i = skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return obj, i + 1
        if ch == "[":
            arr = []
            i = skip(i + 1)
            if text[i] == "]":
                return arr, i + 1
            while True:
                val, i = value(i)
                arr.append(val)
                i = skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return arr, i + 1
        val, end = decoder.raw_decode(text, i)
        return val, end

    return value(0)[0]


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PortError(f"cannot read rule file: {exc.strerror or exc}", str(path)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = raw[: exc.start].decode("utf-8", "replace")
        line, col = _line_col(text, len(text))
        raise PortError("rule file is not valid UTF-8", str(path), line, col) from None


def _load_json(path: Path, text: str, positions: bool):
    try:
        top = json.loads(text, object_pairs_hook=lambda pairs: _PosObject(
            (k, v, None) for k, v in pairs))
    except json.JSONDecodeError as exc:
        raise PortError(exc.msg, str(path), exc.lineno, exc.colno) from None
    return _parse_json_positions(text) if positions else top


def _yaml_positions(path: Path, text: str):
    """YAML mapping -> the same (key, value, line, col) shape as JSON."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = exc.problem or str(exc)
        if mark is not None:
            raise PortError(msg, str(path), mark.line + 1, mark.column + 1) from None
        raise PortError(msg, str(path)) from None
    except yaml.YAMLError as exc:
        raise PortError(str(exc), str(path)) from None
    if node is None:
        return []
    if not isinstance(node, yaml.MappingNode):
        m = node.start_mark
        raise PortError("a rule file must be a mapping of CUDA names to MUSA names",
                        str(path), m.line + 1, m.column + 1)
    out = []
    for knode, vnode in node.value:
        km = knode.start_mark
        if not isinstance(knode, yaml.ScalarNode):
            raise PortError("a rule key must be a string", str(path), km.line + 1, km.column + 1)
        if not isinstance(vnode, yaml.ScalarNode) or vnode.tag.endswith(":null"):
            vm = vnode.start_mark
            raise PortError(f"the value for {knode.value!r} must be a string",
                            str(path), vm.line + 1, vm.column + 1)
        out.append((knode.value, vnode.value, km.line + 1, km.column + 1))
    return out


def _flat_entries(path: Path, text: str, top) -> list[tuple[str, object, int, int]]:
    if not isinstance(top, _PosObject):
        raise PortError("a rule file must be a JSON object of CUDA names to MUSA names",
                        str(path), 1, 1)
    return [(k, v, *_line_col(text, at)) for k, v, at in top]


def _check_entries(path: Path, entries, allow_rich_values: bool):
    seen: dict[str, int] = {}
    for key, val, line, col in entries:
        if key == "":
            raise PortError("empty rule key", str(path), line, col)
        if key in seen:
            raise PortError(f"duplicate key {key!r} (first at line {seen[key]})",
                            str(path), line, col)
        seen[key] = line
        if isinstance(val, str):
            if val == "":
                raise PortError(f"empty replacement for {key!r}", str(path), line, col)
        elif allow_rich_values and isinstance(val, _PosObject):
            continue
        else:
            raise PortError(f"the value for {key!r} must be a string", str(path), line, col)


def load_rule_file(path: str | os.PathLike, family: str = USER_FAMILY,
                   positions: bool = True, meta: dict | None = None) -> list[Rule]:
    """Load one JSON (flat or rich) or YAML rule file.

    Errors name the file, line and column: ``extra.json:3:14: duplicate key 'x'``.
    ``positions=False`` skips recording each rule's line (the default tables are
    large and trusted); an error found that way is re-found with positions.
    """
    p = Path(path)
    text = _read_text(p)
    if not positions:
        try:
            return _load_rules(p, text, family, False, meta)
        except PortError:
            pass  # re-parse with positions so the error names its line
    return _load_rules(p, text, family, True, meta)


def _load_rules(p: Path, text: str, family: str, positions: bool, meta: dict | None) -> list[Rule]:
    if p.suffix.lower() in (".yaml", ".yml"):
        entries = _yaml_positions(p, text)
        _check_entries(p, entries, allow_rich_values=False)
        return [Rule(k, v, family, source=str(p), line=ln) for k, v, ln, _ in entries]

    top = _load_json(p, text, positions)
    if isinstance(top, _PosObject):
        fields = {k: (v, at) for k, v, at in top}
        if "entries" in fields and isinstance(fields["entries"][0], _PosObject):
            return _rich_rules(p, text, fields, family, meta)
    entries = _flat_entries(p, text, top)
    _check_entries(p, entries, allow_rich_values=False)
    return [Rule(k, v, family, source=str(p), line=ln) for k, v, ln, _ in entries]


def _rich_rules(p: Path, text: str, fields, family: str, meta: dict | None) -> list[Rule]:
    fam = fields.get("family", (family, 0))[0]
    if not isinstance(fam, str) or not fam:
        raise PortError("'family' must be a non-empty string", str(p),
                        *_line_col(text, fields["family"][1]))
    enabled = fields.get("enabled", (True, 0))[0]
    if not isinstance(enabled, bool):
        raise PortError("'enabled' must be true or false", str(p), *_line_col(text, fields["enabled"][1]))
    if meta is not None:
        meta[fam] = enabled
    default_status = fields.get("default_status", ("supported", 0))[0]
    if default_status not in STATUSES:
        raise PortError(f"'default_status' must be one of {', '.join(STATUSES)}", str(p),
                        *_line_col(text, fields["default_status"][1]))
    entries = [(k, v, *_line_col(text, at)) for k, v, at in fields["entries"][0]]
    _check_entries(p, entries, allow_rich_values=True)
    rules = []
    for key, val, line, col in entries:
        if isinstance(val, str):
            rules.append(Rule(key, val, fam, default_status, str(p), line))
            continue
        attrs = {k: v for k, v, _ in val}
        unknown = set(attrs) - {"musa", "status", "note", "primary"}
        if unknown:
            raise PortError(f"unknown field {sorted(unknown)[0]!r} in entry {key!r}", str(p), line, col)
        status = attrs.get("status", default_status)
        if status not in STATUSES:
            raise PortError(f"status of {key!r} must be one of {', '.join(STATUSES)}", str(p), line, col)
        musa = attrs.get("musa")
        if musa is not None and (not isinstance(musa, str) or not musa):
            raise PortError(f"'musa' of {key!r} must be a non-empty string", str(p), line, col)
        if musa is None and status != "unsupported":
            raise PortError(f"entry {key!r} has no 'musa' name; only unsupported entries may omit it",
                            str(p), line, col)
        note = attrs.get("note", "")
        rules.append(Rule(key, musa, fam, status, str(p), line,
                          note if isinstance(note, str) else "", attrs.get("primary") is True))
    return rules


def _load_shipped_table(path: Path) -> tuple[list[Rule], str, bool]:
    """A table shipped with musa-port: parsed without the per-key checks, which the
    test suite runs over every shipped table instead (tests/test_tables.py)."""
    data = json.loads(path.read_bytes())
    source = str(path)
    if not isinstance(data.get("entries"), dict):
        return [Rule(k, v, path.stem, "supported", source) for k, v in data.items()], \
            path.stem, True
    fam = data.get("family", path.stem)
    status = data.get("default_status", "supported")
    rules = []
    for key, val in data["entries"].items():
        if isinstance(val, str):
            rules.append(Rule(key, val, fam, status, source))
        else:
            rules.append(Rule(key, val.get("musa"), fam, val.get("status", status), source, None,
                              val.get("note", ""), val.get("primary") is True))
    return rules, fam, data.get("enabled", True)


def load_tables(directory: str | os.PathLike) -> tuple[list[Rule], dict[str, bool]]:
    """Every ``*.json`` table in a folder, in name order (ours or torch_musa's), and
    each family with whether it is on by default (a table may say ``"enabled": false``)."""
    d = Path(directory)
    if not d.is_dir():
        raise PortError("mapping folder not found", str(d))
    shipped = d.resolve() == default_mapping_dir().resolve()
    rules: list[Rule] = []
    families: dict[str, bool] = {}
    for path in sorted(d.glob("*.json")):
        if shipped:
            loaded, fam, enabled = _load_shipped_table(path)
            rules.extend(loaded)
            families[fam] = enabled
            continue
        meta: dict[str, bool] = {}
        loaded = load_rule_file(path, family=path.stem, positions=False, meta=meta)
        rules.extend(loaded)
        families.update(meta or {path.stem: True})
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
        for rule in rules:
            rs.rules[rule.key] = rule
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
            if not isinstance(value, str) or not value:
                raise PortError(f"mapping_rule value for {key!r} must be a non-empty string")
            rs.rules[key] = Rule(key, value, USER_FAMILY, source="mapping_rule")
        rs.sources.append("mapping_rule")
    return rs
