"""SARIF 2.1.0 for code scanning: one result per finding, located in the ported
file, with the CUDA source line as a related location (the other way round for a dry
run, which writes no ported file)."""

from __future__ import annotations

import json
from collections.abc import Set

from .. import __version__
from ..analyze.catalogue.render import help_uri, plain, sarif_help
from ..analyze.checks import CHECKS, Check
from ..tree.result import PortResult
from .counts import findings
from .output import write_text

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri_base(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri() + "/"


def rule_dict(c: Check) -> dict:
    """A SARIF rule from the catalogue: the description ``--help-all`` shows, the long
    help ``musa-port explain`` prints, and the docs page of the finding."""
    return {
        "id": c.id,
        "name": c.name,
        "shortDescription": {"text": plain(c.description)},
        "fullDescription": {"text": plain(f"{c.description} {c.why}".strip())},
        "defaultConfiguration": {"level": c.level},
        "help": sarif_help(c),
        "helpUri": help_uri(c),
        "properties": {"family": c.family, "tags": [c.family]},
    }


def sarif_dict(r: PortResult, suppress: Set[str] = frozenset()) -> dict:
    """SARIF 2.1.0: one result per finding, located in the ported file, with the CUDA
    source line as a related location (swapped for a dry run)."""
    ids = sorted(CHECKS)
    rules = [rule_dict(CHECKS[cid]) for cid in ids]
    results = []
    for f, d in findings(r, suppress):
        # A statement over several lines ends on its last line (the region then runs to
        # the end of that line: endColumn is left out); else it spans its text.
        ends = {"endLine": d.last_line} if d.last_line > d.line else \
            {"endLine": d.line, "endColumn": d.column + len(d.text.encode("utf-8"))}
        ported = {"artifactLocation": {"uri": f.out_rel, "uriBaseId": "OUTROOT"},
                  "region": {"startLine": d.line, "startColumn": d.column, **ends}}
        src_end = d.src_line + d.last_line - d.line  # porting keeps the lines
        cuda = {"artifactLocation": {"uri": f.rel, "uriBaseId": "SRCROOT"},
                "region": {"startLine": d.src_line, "startColumn": d.src_column,
                           "endLine": src_end}}
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
            "partialFingerprints": {"musaPort/v1": f"{f.rel}:{d.id}:{d.text}:{d.src_line}"},
            "properties": {"lang": f.record.lang},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "musa-port",
                "version": __version__,
                "informationUri": "https://pypi.org/project/musa-port/",
                "rules": rules,
            }},
            "originalUriBaseIds": {
                "SRCROOT": {"uri": _uri_base(r.src)},
                "OUTROOT": {"uri": _uri_base(r.output)},
            },
            "results": results,
        }],
    }


def write_sarif(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    write_text(path, json.dumps(sarif_dict(r, suppress), indent=1) + "\n")

