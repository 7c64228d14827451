"""SARIF 2.1.0 for code scanning: one result per finding, located in the ported
file, with the CUDA source line as a related location (the other way round for a dry
run, which writes no ported file).

Where SRC is in a git work tree, every path inside it is relative to the repository's
root (uriBaseId ``%SRCROOT%``): GitHub resolves relative URIs from there and ignores
``uriBaseId``, so ``musa-port ./csrc --sarif`` files its alerts under ``csrc/...``.
What lies outside it (or everything, outside any repository) is relative to SRC
(``SRCROOT``) or OUT (``OUTROOT``); ``originalUriBaseIds`` says where each base is.
Paths are URI references (``uri_path``: percent-encoded as RFC 3986 requires). A
result's fingerprint is its rule, its CUDA file, the text of its CUDA line and how
many such findings came before it there, not the line's number: an alert stays the
same alert when lines are inserted above it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Set
from urllib.parse import quote

from .. import __version__
from ..analyze.catalogue.render import plain, sarif_help
from ..analyze.checks import CHECKS, Check
from ..tree.result import PortResult
from .counts import findings
from .locations import relative_to, repository_root
from .output import write_text

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri_base(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri() + "/"


def rule_dict(c: Check) -> dict:
    """A SARIF rule from the catalogue: the description ``--help-all`` shows and the long
    help ``musa-port explain`` prints (no helpUri: the documentation is not published on
    a site, and a link to a host that does not exist helps nobody)."""
    return {
        "id": c.id,
        "name": c.name,
        "shortDescription": {"text": plain(c.description)},
        "fullDescription": {"text": plain(f"{c.description} {c.why}".strip())},
        "defaultConfiguration": {"level": c.level},
        "help": sarif_help(c),
        "properties": {"family": c.family, "tags": [c.family]},
    }


REPO_BASE = "%SRCROOT%"  # GitHub's name for the root of the checkout


class _Locations:
    """Artifact locations: relative to the repository's root where it holds the file,
    else to SRC or OUT; ``bases`` are the base IDs used, for ``originalUriBaseIds``."""

    def __init__(self, r: PortResult):
        self.root = repository_root(r.src)
        self.r = r
        self.bases: dict[str, str] = {"SRCROOT": r.src, "OUTROOT": r.output}

    def artifact(self, folder: str, rel: str, base: str) -> dict:
        inner = relative_to(self.root, folder, rel) if self.root else None
        if inner is not None:
            self.bases[REPO_BASE] = self.root
            return {"uri": uri_path(inner), "uriBaseId": REPO_BASE}
        self.bases[base] = folder
        return {"uri": uri_path(rel), "uriBaseId": base}


def uri_path(rel: str) -> str:
    """A relative path as a URI reference (RFC 3986): the path's own bytes (a name
    that is not UTF-8 included), every byte but the unreserved ones and ``/``
    percent-encoded, so ``a b#1%41.cu`` is neither a fragment nor ``a b#1A.cu``."""
    return quote(os.fsencode(rel), safe="/")


def _line_texts(src: str, rel: str) -> list[bytes]:
    """The lines of a CUDA file, for fingerprints (none when it cannot be read now)."""
    from ..safe_open import read_regular

    try:
        return read_regular(os.path.join(src, *rel.split("/"))).splitlines()
    except OSError:
        return []


def _fingerprint(rule: str, path: str, text: bytes, seen: dict[tuple, int]) -> str:
    """``MP1002:csrc/a.cu:<hash of the line's text>:<occurrence>``."""
    digest = hashlib.sha256(text.strip()).hexdigest()[:16]
    key = (rule, path, digest)
    seen[key] = seen.get(key, 0) + 1
    return f"{rule}:{path}:{digest}:{seen[key]}"


def sarif_dict(r: PortResult, suppress: Set[str] = frozenset()) -> dict:
    """SARIF 2.1.0: one result per finding, located in the ported file, with the CUDA
    source line as a related location (swapped for a dry run)."""
    ids = sorted(CHECKS)
    rules = [rule_dict(CHECKS[cid]) for cid in ids]
    results = []
    where = _Locations(r)
    seen: dict[tuple, int] = {}
    lines: dict[str, list[bytes]] = {}
    found = sorted(findings(r, suppress), key=lambda fd: (fd[0].rel, fd[1].src_line, fd[1].src_column))
    for f, d in found:
        # A statement over several lines ends on its last line (the region then runs to
        # the end of that line: endColumn is left out); else it spans its text.
        ends = {"endLine": d.last_line} if d.last_line > d.line else \
            {"endLine": d.line, "endColumn": d.column + len(d.text.encode("utf-8"))}
        ported = {"artifactLocation": where.artifact(r.output, f.out_rel, "OUTROOT"),
                  "region": {"startLine": d.line, "startColumn": d.column, **ends}}
        src_end = d.src_line + d.last_line - d.line  # porting keeps the lines
        cuda = {"artifactLocation": where.artifact(r.src, f.rel, "SRCROOT"),
                "region": {"startLine": d.src_line, "startColumn": d.src_column,
                           "endLine": src_end}}
        if f.rel not in lines:
            lines[f.rel] = _line_texts(r.src, f.rel)
        text = lines[f.rel][d.src_line - 1] if 0 < d.src_line <= len(lines[f.rel]) else d.text.encode()
        # A dry run (CI) writes no ported file: the result goes where code scanning can
        # show it, on the CUDA line, with the line it would be ported to as related.
        primary, related, what = (cuda, ported, "the ported line (a dry run: not written)") \
            if r.dry_run else (ported, cuda, "the CUDA source line")
        results.append({
            "ruleId": d.id,
            "ruleIndex": ids.index(d.id),
            "level": d.level,
            "message": {"text": d.message},
            "locations": [{"physicalLocation": primary}],
            "relatedLocations": [{"id": 1, "message": {"text": what}, "physicalLocation": related}],
            "partialFingerprints": {"musaPort/v2": _fingerprint(
                d.id, cuda["artifactLocation"]["uri"], text, seen)},
            "properties": {"lang": f.record.lang},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "musa-port",
                "version": __version__,
                "rules": rules,
            }},
            "originalUriBaseIds": {base: {"uri": _uri_base(folder)}
                                   for base, folder in sorted(where.bases.items())},
            # The run's warnings (a name not taken, an ignore pattern that matched nothing):
            # with --output-format sarif the log is the whole output.
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note" if ": note:" in w else "warning", "message": {"text": w}}
                for w in r.warnings]}],
            "results": results,
        }],
    }


def write_sarif(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    write_text(path, json.dumps(sarif_dict(r, suppress), indent=1) + "\n")

