"""Reading one rule file: flat or rich JSON, or YAML, with file:line:col errors.

Every rule remembers its file and line so that errors and reports can point at it.
JSON is parsed twice only for user files: ``json.loads`` decides validity (and gives
its own line and column on a syntax error), then a small scanner records where each
key sits, which ``json`` does not expose.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from pathlib import Path

from ..errors import PortError
from ..safe_open import read_regular
from .model import STATUSES, USER_FAMILY, Rule

VOCABULARY_KEY = "vocabulary"

# --- positions in JSON -------------------------------------------------------------

_lines: tuple[str, list[int]] = ("", [0])  # the last text's line starts (one per file)


def _line_col(text: str, offset: int | None) -> tuple[int | None, int | None]:
    """Line and column of an offset. The line starts are found once per text and
    bisected: a 100,000-entry file asks for 100,000 positions."""
    global _lines
    if offset is None:  # parsed without positions (trusted tables): see load_rule_file
        return None, None
    if _lines[0] is not text:
        _lines = (text, [0, *(m.end() for m in re.finditer("\n", text))])
    starts = _lines[1]
    i = bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i] + 1


# Rule files are at most three levels deep ({"entries": {"k": {"musa": ...}}}); a file
# nested deeper is refused before a parser recurses into it (libyaml's composer would
# crash, json raises RecursionError).
MAX_DEPTH = 100
_NESTING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')


def _too_deep(text: str) -> int | None:
    """Where brackets outside JSON strings first nest deeper than MAX_DEPTH."""
    depth = 0
    for m in _NESTING_RE.finditer(text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif c in "]}":
            depth = max(0, depth - 1)
    return None


_DEEP = f"nested deeper than {MAX_DEPTH} levels; a rule file is a mapping of names to names"


def _deep_error(path: Path, text: str, at: int | None) -> PortError:
    return PortError(_DEEP, str(path), *(_line_col(text, at) if at is not None else (1, 1)))


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
        raw = read_regular(str(path), follow=True)  # never a FIFO's or a device's bytes
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
        return _parse_json_positions(text) if positions else top
    except json.JSONDecodeError as exc:
        raise PortError(exc.msg, str(path), exc.lineno, exc.colno) from None
    except RecursionError:
        raise _deep_error(path, text, _too_deep(text)) from None


_YAML_STR = "tag:yaml.org,2002:str"


def _yaml_positions(path: Path, text: str):
    """YAML mapping -> the same (key, value, line, col) shape as JSON."""
    import yaml

    try:
        node = yaml.compose(text, Loader=_yaml_loader(path, text))
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
        if _is_vocabulary(knode.value if isinstance(knode, yaml.ScalarNode) else None,
                          isinstance(vnode, yaml.MappingNode)):
            continue  # name parts, not a rule: see vocabulary_section()
        if not isinstance(knode, yaml.ScalarNode) or knode.tag != _YAML_STR:
            raise PortError("a rule key must be a string", str(path), km.line + 1, km.column + 1)
        if not isinstance(vnode, yaml.ScalarNode) or vnode.tag != _YAML_STR:
            # 1, true, null: YAML's numbers, booleans and nulls are not names (quote them)
            vm = vnode.start_mark
            raise PortError(f"the value for {knode.value!r} must be a string",
                            str(path), vm.line + 1, vm.column + 1)
        out.append((knode.value, vnode.value, km.line + 1, km.column + 1))
    return out


def _yaml_loader(path: Path, text: str):
    """libyaml's loader (ten times faster: a 100,000-entry file in 1 s), once the file is
    known to nest no deeper than MAX_DEPTH. Its composer recurses in C and would crash
    on a file nested thousands deep, however that is written (brackets, ``- - -``,
    indentation); its parser does not, so the depth is read off the parser's events,
    which also give the line and column of the error."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    m = event.start_mark
                    raise PortError(_DEEP, str(path), m.line + 1, m.column + 1)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # Newer libyaml (PyYAML 6.0.4) has a nesting limit of its own (1,000 levels),
        # met in its scanner before any event reaches the count above: same refusal,
        # said in musa-port's words, at libyaml's position.
        m = exc.problem_mark
        if m is not None and "depth" in (exc.problem or ""):
            raise PortError(_DEEP, str(path), m.line + 1, m.column + 1) from None
        raise
    return loader


def _flat_entries(path: Path, text: str, top) -> list[tuple[str, object, int, int]]:
    if not isinstance(top, _PosObject):
        raise PortError("a rule file must be a JSON object of CUDA names to MUSA names",
                        str(path), 1, 1)
    return [(k, v, *_line_col(text, at)) for k, v, at in top
            if not _is_vocabulary(k, isinstance(v, _PosObject))]


def _is_vocabulary(key: object, is_mapping: bool) -> bool:
    """A rule file's ``vocabulary:`` section (a mapping), which is not a rule."""
    return key == VOCABULARY_KEY and is_mapping


def vocabulary_section(path: str | os.PathLike) -> dict | None:
    """The ``vocabulary:`` section of a rule file (CUDA word -> MUSA word, or false to
    switch a word off), or None. The file's rules are checked by load_rule_file."""
    p = Path(path)
    text = _read_text(p)
    if VOCABULARY_KEY not in text:
        return None  # no need to parse a 100,000-entry file twice
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.load(text, Loader=_yaml_loader(p, text))  # a safe loader
        else:
            data = json.loads(text)
    except Exception:  # a malformed file: load_rule_file reports it with its line
        return None
    section = data.get(VOCABULARY_KEY) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else None


def not_unicode(text: str) -> bool:
    """Whether ``text`` holds half a UTF-16 pair (JSON's ``"\\ud800"``): no character,
    which no file can hold and no rule can write."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_entries(path: Path, entries, allow_rich_values: bool):
    seen: dict[str, int] = {}
    for key, val, line, col in entries:
        if key == "":
            raise PortError("empty rule key", str(path), line, col)
        for what, text in (("key", key), ("value", val)):
            if isinstance(text, str) and not_unicode(text):
                raise PortError(f"the {what} {text!r} is not Unicode text: it holds half of a "
                                "UTF-16 surrogate pair", str(path), line, col)
        if key in seen:
            raise PortError(f"duplicate key {key!r} (first at line {seen[key]})",
                            str(path), line, col)
        seen[key] = line
        if isinstance(val, str):
            continue  # "" deletes the key's text (qualifiers, attributes, #pragma unroll)
        if not (allow_rich_values and isinstance(val, _PosObject)):
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
    origin = _optional_text(p, text, fields, "default_source")
    version = _optional_text(p, text, fields, "version")
    entries = [(k, v, *_line_col(text, at)) for k, v, at in fields["entries"][0]]
    _check_entries(p, entries, allow_rich_values=True)
    rules = []
    for key, val, line, col in entries:
        if isinstance(val, str):
            rules.append(Rule(key, val, fam, default_status, str(p), line, "", False, origin or "",
                              version))
            continue
        attrs = {k: v for k, v, _ in val}
        unknown = set(attrs) - {"musa", "status", "note", "primary", "source", "version"}
        if unknown:
            raise PortError(f"unknown field {sorted(unknown)[0]!r} in entry {key!r}", str(p), line, col)
        status = attrs.get("status", default_status)
        if status not in STATUSES:
            raise PortError(f"status of {key!r} must be one of {', '.join(STATUSES)}", str(p), line, col)
        musa = attrs.get("musa")
        if musa is not None and not isinstance(musa, str):
            raise PortError(f"'musa' of {key!r} must be a string", str(p), line, col)
        if musa is not None and not_unicode(musa):
            raise PortError(f"'musa' of {key!r} is not Unicode text: it holds half of a UTF-16 "
                            "surrogate pair", str(p), line, col)
        if musa is None and status != "unsupported":
            raise PortError(f"entry {key!r} has no 'musa' name; only unsupported entries may omit it",
                            str(p), line, col)
        note = attrs.get("note", "")
        entry_origin = attrs.get("source", origin or "")
        entry_version = attrs.get("version", version)
        if not isinstance(entry_origin, str) or not (entry_version is None or isinstance(entry_version, str)):
            raise PortError(f"'source' and 'version' of {key!r} must be strings", str(p), line, col)
        rules.append(Rule(key, musa, fam, status, str(p), line,
                          note if isinstance(note, str) else "", attrs.get("primary") is True,
                          entry_origin, entry_version))
    return rules


def _optional_text(p: Path, text: str, fields, name: str) -> str | None:
    """A table-level string field (``default_source``, ``version``), or None."""
    if name not in fields:
        return None
    value, at = fields[name]
    if value is not None and not isinstance(value, str):
        raise PortError(f"{name!r} must be a string", str(p), *_line_col(text, at))
    return value

