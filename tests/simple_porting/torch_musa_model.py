"""What torch_musa's SimplePorting writes for a call: a model of it, for the compatibility
tests (test_torch_musa_compat.py), with each of its bugs a switch that fixes it.

torch_musa's SimplePorting is not installable here (not on PyPI), so its tree is worked
out from its documented behaviour (torch_musa's manual, its ``simple_porting.py`` as the
docs' SimplePorting page describes it) and its own tables,
``../shared/data/torch_musa/mapping/*.json`` (BSD-3-Clause):

- the rules: the call's ``mapping_rule``, updated with torch_musa's ``general.json``, then
  with every other ``*.json`` of ``mapping_dir_path`` (by default its own mapping folder):
  the defaults win over the call's rule for the same key. ``drop_default_mapping``: the
  call's rules and ``mapping_dir_path``'s tables only. Sorted by key length, longest
  first (a stable sort: the call's rules first among keys of one length);
- every file under ``cuda_dir_path`` (``os.walk``), except the direct children of an
  ignored folder, read as UTF-8 text (a binary file stops the run), every rule applied
  with ``str.replace`` in that order, written to ``<cuda_dir_path>_musa`` (``./_musa``
  beside a path with a trailing slash) under ``change_filename(name)``: the last dotted
  part through ``{"cu": "mu", "cuh": "muh"}``, so ``Makefile`` becomes ``.Makefile``.

``FIXES`` names each bug fixed (docs/simple-porting.md lists them); ``port(call, FIXES)``
is the tree musa-port's SimplePorting must write. The fixes of the text are written as
plainly as possible (one key after the other, over the text left to each), not as
musa-port's engine does them.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from conftest import ROOT

VENDOR = ROOT.parent / "shared" / "data" / "torch_musa" / "mapping"
SHIPPED = ROOT / "mapping"
EXT = {"cu": "mu", "cuh": "muh"}
IDENT = re.compile(r"[A-Za-z0-9_]")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)

FIXES = frozenset({
    # A key changes text where it is a whole name only: torch_musa's keys changed names
    # they are a piece of (cu: Accumulate -> Acmumulate); a name the tables list is renamed
    # whole where torch_musa's keys inside it gave that name (OptionalCUDAGuard). A call's
    # rule does not start inside a name (x.device().is_cuda() made g_idtrue).
    "short keys",
    # The vendor's entries musa-port does not follow (mapping/NOTICE, tables/irregular.py):
    # the bare words cuda, cu, cupti, CUPTI, cubin, curand (but at::cuda, c10::cuda), the
    # "#ifdef CUDART_VERSION" -> "#if 0" hack, CUDA_VERSION -> MUSA_VERSION, libcu++'s names.
    "vendor exceptions",
    # The include table's header names change where they are #included only.
    "header names",
    # A table's replacement is not rewritten by a later rule.
    "no cascades",
    "user rules win",  # the call's rule, not the default, for the same key
    "binary files",  # copied (torch_musa stopped with UnicodeDecodeError)
    "file names",  # Makefile, LICENSE keep their names (torch_musa: .Makefile)
    "includes",  # an include of a renamed file of the tree names the new file
    "ignores",  # an ignored folder is ignored at every depth
    "trailing slash",  # csrc/ writes csrc_musa (torch_musa: ./_musa)
    "general.json",  # mapping_dir_path's general.json is read (torch_musa: its own)
    # A MUSA file beside its CUDA one (x.muh beside x.cuh) is the tree's MUSA version:
    # copied as it is, the CUDA one not ported over it (torch_musa writes both to x.muh,
    # and the one walked last wins).
    "twins",
})
_EXCEPTED = {"cu", "cuda", "cupti", "CUPTI", "cubin", "curand", "#ifdef CUDART_VERSION"}
_QUALIFIED = {"at::cuda": "at::musa", "c10::cuda": "c10::musa"}
_HEADER_TABLES = ("include", "dnn-header")


class Crash(Exception):
    """torch_musa's run stops (a binary file)."""


@dataclass
class Call:
    """A SimplePorting call: its arguments, with the paths relative to the working folder."""

    cuda_dir_path: str
    ignore_dir_paths: list[str] = field(default_factory=list)
    mapping_rule: dict[str, str] = field(default_factory=dict)
    drop_default_mapping: bool = False
    mapping_dir_path: str | None = None


def vendor_ready() -> bool:
    return (VENDOR / "general.json").is_file()


@cache
def _vendor(name: str) -> dict[str, str]:
    return json.loads((VENDOR / f"{name}.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _headers() -> frozenset[str]:
    return frozenset(k for t in _HEADER_TABLES for k in _vendor(t) if "." in k or "/" in k)


@lru_cache(maxsize=1)
def _shipped() -> dict[str, str]:
    """musa-port's tables: each name with its MUSA name."""
    out = {}
    for path in sorted(SHIPPED.glob("*.json")):
        for k, v in json.loads(path.read_text(encoding="utf-8")).get("entries", {}).items():
            v = v if isinstance(v, str) else v.get("musa")
            if v is not None and TOKEN.fullmatch(k):
                out[k] = v
    return out


@lru_cache(maxsize=1)
def _vendor_names() -> dict[str, str]:
    return {k: v for t in ("general", "extra", "dnn-naming") for k, v in _vendor(t).items()
            if k not in _EXCEPTED and TOKEN.fullmatch(k)}


def _inside_names(text: str) -> dict[str, str]:
    """The names of ``text`` that musa-port's tables list and torch_musa's keys (its
    bare words left out) rename from inside to the tables' name: renamed whole."""
    keys, shipped = _vendor_names(), _shipped()
    out = {}
    for k in set(TOKEN.findall(text)):
        if k in keys or k not in shipped:
            continue
        inside = {k[i:j] for i in range(len(k)) for j in range(i + 1, len(k) + 1)} & keys.keys()
        new = k
        for key in sorted(inside, key=len, reverse=True):
            new = new.replace(key, keys[key])
        if new == shipped[k] != k:
            out[k] = new
    return out


@lru_cache(maxsize=8)
def _defaults(drop: bool, own: bool, exceptions: bool) -> dict[str, str]:
    """torch_musa's tables in force: general.json unless dropped, and the other tables of
    its own mapping folder when that is mapping_dir_path (and defaults are not dropped)."""
    tables: dict[str, str] = {}
    if not drop:
        tables.update(_vendor("general"))
        if own:
            for name in sorted(os.listdir(VENDOR)):
                if name.endswith(".json") and name != "general.json":
                    tables.update(_vendor(name[:-5]))
    if exceptions and tables:
        tables = {k: v for k, v in tables.items()
                  if k not in _EXCEPTED and not k.startswith("_LIBCUDACXX")}
        if "CUDA_VERSION" in tables:
            tables["CUDA_VERSION"] = "MUSA_VERSION"
        tables.update(_QUALIFIED)
    return tables


def _rules(call: Call, cwd: Path, fixes: frozenset[str]) -> list[tuple[str, str, bool]]:
    """(key, value, the call's rule?) in torch_musa's order."""
    rules = {k: (v, True) for k, v in call.mapping_rule.items()}
    own = call.mapping_dir_path is None
    tables = _defaults(call.drop_default_mapping, own, "vendor exceptions" in fixes)
    if not own:  # the user's folder: its tables are rules of the call's, as text
        folder = cwd / call.mapping_dir_path
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json") and (name != "general.json" or "general.json" in fixes):
                extra = json.loads((folder / name).read_text(encoding="utf-8"))
                rules.update({k: (v, True) for k, v in extra.items()})
    win = "user rules win" in fixes
    merged = [(k, v, u) for k, (v, u) in rules.items() if not (k in tables and not win)]
    merged += [(k, v, False) for k, v in tables.items() if k not in rules or not win]
    return sorted(merged, key=lambda r: -len(r[0]))


def _bounded(text: str, s: int, e: int, key: str, left_only: bool) -> bool:
    if key[0].isalnum() and s > 0 and IDENT.match(text[s - 1]):
        return False
    return left_only or not (key[-1].isalnum() and e < len(text) and IDENT.match(text[e]))


def _replace(pieces: list[list], key: str, value: str, user: bool, fixes: frozenset[str]):
    """One rule over the pieces ([text, kind]: "orig", "user", "table"). With the fixes, a
    table's key over the original text only, a call's rule over that and what the call's
    rules wrote; at identifier boundaries (a call's rule: where it starts)."""
    ok = {"orig", "user", "table"}
    if "no cascades" in fixes:
        ok = {"orig", "user"} if user else {"orig"}
    text = "".join(p[0] for p in pieces)
    kinds = [k for p in pieces for k in [p[1]] * len(p[0])]
    found, i = [], text.find(key)
    while i >= 0:
        e = i + len(key)
        if all(k in ok for k in kinds[i:e]) and (
                "short keys" not in fixes or _bounded(text, i, e, key, user)):
            found.append((i, e))
            i = text.find(key, e)
        else:
            i = text.find(key, i + 1)
    if not found:
        return pieces
    new: list[list] = []
    pos = 0
    for s, e in found:
        new += _split(text, kinds, pos, s)
        new.append([value, "user" if user else "table"])
        pos = e
    return new + _split(text, kinds, pos, len(text))


def _split(text: str, kinds: list[str], s: int, e: int) -> list[list]:
    out: list[list] = []
    for j in range(s, e):
        if out and out[-1][1] == kinds[j]:
            out[-1][0] += text[j]
        else:
            out.append([text[j], kinds[j]])
    return out


@lru_cache(maxsize=8)
def _automaton(drop: bool, own: bool, exceptions: bool):
    """The tables' keys, to find which a text holds; and the keys a replacement may bring
    in (a key inside a value)."""
    import ahocorasick_rs

    tables = _defaults(drop, own, exceptions)
    keys = list(tables)
    ac = ahocorasick_rs.AhoCorasick(keys, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)
    values = "\n".join(tables.values())
    return ac, keys, {keys[i] for i, _, _ in ac.find_matches_as_indexes(values, overlapping=True)}


class _Present:
    """Which rules a text holds the key of, or a replacement may bring in: only those can
    change it (the others are skipped, for speed)."""

    def __init__(self, rules, call: Call, fixes: frozenset[str]):
        self.rules = rules
        self.order = {r[0]: i for i, r in enumerate(rules)}
        self.users = [k for k, _, user in rules if user]
        self.made = "\n".join(v for _, v, user in rules if user)  # what the call's rules write
        args = (call.drop_default_mapping, call.mapping_dir_path is None, "vendor exceptions" in fixes)
        self.tables = _automaton(*args) if _defaults(*args) else None

    def __call__(self, text: str) -> list:
        found = {k for k in self.users if k in text or k in self.made}
        if self.tables is not None:
            ac, keys, cascading = self.tables
            found |= {keys[i] for i, _, _ in ac.find_matches_as_indexes(text, overlapping=True)}
            found |= cascading
        return [self.rules[i] for i in sorted(self.order[k] for k in found if k in self.order)]


def port_text(text: str, rel: str, rules, fixes: frozenset[str], renamed: dict[str, str]) -> str:
    """One file's text, as torch_musa ports it with ``fixes`` (``rules``: those it may hold)."""
    if not ({"short keys", "no cascades", "header names", "includes"} & fixes):
        for k, v, _ in rules:
            text = text.replace(k, v)
        return text
    tables = {k: v for k, v, user in rules if not user}
    if "short keys" in fixes and tables:
        inside = [(k, v, False) for k, v in _inside_names(text).items() if k not in tables]
        rules = sorted([*rules, *inside], key=lambda r: -len(r[0]))
    pieces = _includes(text, rel, rules, tables, fixes, renamed)
    joined = "".join(p[0] for p in pieces)  # no rule may be in the text: the includes still
    for k, v, user in rules:
        if k not in joined or not user and "header names" in fixes and k in _headers():
            continue  # a header of the include table: #include targets only (_includes)
        pieces = _replace(pieces, k, v, user, fixes)
        joined = "".join(p[0] for p in pieces)
    return joined


def _includes(text: str, rel: str, rules, tables: dict[str, str], fixes, renamed) -> list[list]:
    """The include targets that follow a renamed file of the tree, or are a header of the
    include table, replaced first and out of every rule's reach (a call's rule that
    covers the whole include line wins)."""
    users = [k for k, _, user in rules if user]
    pieces: list[list] = []
    pos = 0
    for m in INCLUDE.finditer(text):
        target = m.group(2)
        line_end = text.find("\n", m.end())
        line = text[m.start():len(text) if line_end < 0 else line_end]
        if any(k in line and line.find(k) <= m.start(2) - 1 - m.start() and
               line.find(k) + len(k) >= m.end(2) + 1 - m.start() for k in users):
            continue
        new = None
        here = os.path.normpath(os.path.join(os.path.dirname(rel), target)).replace(os.sep, "/")
        if "includes" in fixes and here in renamed:
            new = os.path.relpath(renamed[here], os.path.dirname(rel) or ".").replace(os.sep, "/")
        elif "header names" in fixes and target in tables and target in _headers():
            new = tables[target]
        if new is None:
            continue
        pieces += [[text[pos:m.start(2)], "orig"], [new, "table"]]
        pos = m.end(2)
    return pieces + [[text[pos:], "orig"]]


def _name(name: str, fixes: frozenset[str]) -> str:
    parts = name.split(".")
    if "file names" in fixes and len(parts) == 1:
        return name
    parts[-1] = EXT.get(parts[-1], parts[-1])
    return ".".join(parts[:-1]) + "." + parts[-1]


def port(call: Call, cwd: Path, fixes: frozenset[str] = frozenset()) -> tuple[str, dict[str, bytes]]:
    """The output folder (relative to ``cwd``) and every file torch_musa writes there."""
    src = call.cuda_dir_path
    if src.endswith("/") and "trailing slash" not in fixes:
        out = os.path.join(os.path.dirname(os.path.dirname(src)), "_musa")
    else:
        out = src.rstrip("/") + "_musa"
    root = cwd / src
    ignored = {os.path.normpath(cwd / p) for p in call.ignore_dir_paths}
    rules = _rules(call, cwd, fixes)
    present = _Present(rules, call, fixes)
    files: dict[str, str] = {}  # rel -> output rel
    for dirpath, dirnames, names in os.walk(root):
        dirnames.sort()
        if os.path.normpath(dirpath) in ignored:
            if "ignores" in fixes:
                dirnames.clear()
            continue
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for n in sorted(names):
            rel = n if rel_dir == "." else f"{rel_dir}/{n}"
            files[rel] = os.path.join(os.path.dirname(rel), _name(n, fixes)).replace(os.sep, "/")
    twins = {rel for rel, out_rel in files.items() if rel == out_rel
             and sum(o == out_rel for o in files.values()) > 1} if "twins" in fixes else set()
    tree = {}
    for rel, out_rel in files.items():
        if twins and out_rel in twins and rel not in twins:
            continue  # left for the MUSA twin
        data = (root / rel).read_bytes()
        try:
            text = data.decode("utf-8")
            if "\0" in text:
                raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL")
        except UnicodeDecodeError:
            if "binary files" not in fixes:
                raise Crash(rel) from None
            tree[rel] = data  # copied under its own name
            continue
        if rel in twins:
            tree[rel] = data
            continue
        tree[out_rel] = port_text(text, rel, present(text), fixes, files).encode("utf-8")
    return out, tree
