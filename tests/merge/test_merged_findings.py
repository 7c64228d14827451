"""Findings point at the file on disk (issue 48 point 4): after a merge that kept the
porter's added lines, or a re-run that left an edited output as it is, the summary,
JSON and SARIF give each finding's line in the output as it is now, not in the fresh
port; a finding on a line the porter rewrote is theirs, and is not reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_tree

from musa_porting import PortOptions, port_tree
from musa_porting.cli.app import cli

A_CU = """#include <cuda_runtime.h>
void release(float* p) {
  cudaFree(p);
}
int left() { return cudaFooBarNotAName(); }
int other() { return cudaBazQuxNotAName(); }
"""


@pytest.fixture
def edited(tmp_path) -> tuple[Path, Path]:
    """A port whose a.mu the porter edited: two lines added at the top, and the line of
    cudaBazQuxNotAName rewritten."""
    src = make_tree(tmp_path / "csrc", {"a.cu": A_CU})
    port_tree(PortOptions(src=str(src), jobs=1))
    mu = tmp_path / "csrc_musa/a.mu"
    text = mu.read_text()
    mu.write_text("// checked on MUSA by hand\n#include <stdio.h>\n"
                  + text.replace("return cudaBazQuxNotAName();", "return 0;  // mine"))
    return src, mu


def places(result, rel: str = "a.mu") -> dict[str, int]:
    [f] = [f for f in result.files if f.out_rel == rel]
    return {d.text: d.line for d in f.diagnostics}


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_merged_file_s_findings_are_on_its_own_lines(edited, tmp_path):
    src, mu = edited
    (src / "a.cu").write_text(A_CU.replace("cudaFree(p);", "cudaFree(p);\n  p = 0;"))
    r = port_tree(PortOptions(src=str(src), jobs=1))
    assert r.merged == ["a.mu"] and not r.conflicted
    assert "p = 0;" in mu.read_text() and "checked on MUSA" in mu.read_text()
    found = places(r)
    assert found == {"cudaFooBarNotAName": line_of(mu, "cudaFooBarNotAName")}
    # The reports say the same: JSON and SARIF, from the command line.
    report, sarif = tmp_path / "r.json", tmp_path / "r.sarif"
    res = CliRunner().invoke(cli, [str(src), "-q", "--report-json", str(report), "--sarif", str(sarif)])
    assert res.exit_code == 0, res.output
    rows = [d for d in json.loads(report.read_text())["diagnostics"] if d["file"] == "a.mu"]
    assert [(d["text"], d["line"]) for d in rows] == [("cudaFooBarNotAName", found["cudaFooBarNotAName"])]
    [result] = json.loads(sarif.read_text())["runs"][0]["results"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("a.mu")
    assert loc["region"]["startLine"] == found["cudaFooBarNotAName"]


def test_an_edited_output_left_as_it_is_has_its_findings_on_its_lines(edited):
    """The port did not change: the porter's file stays, and its findings follow it."""
    src, mu = edited
    r = port_tree(PortOptions(src=str(src), jobs=1))
    assert not r.merged and "checked on MUSA" in mu.read_text()
    assert places(r) == {"cudaFooBarNotAName": line_of(mu, "cudaFooBarNotAName")}
    again = port_tree(PortOptions(src=str(src), jobs=1))  # from the manifest, the same
    assert places(again) == places(r)
