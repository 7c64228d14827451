"""Issue 46, point 1: every place a porter must look at is its own finding, with its own
line, in the JSON and SARIF reports (at note level where it is not a warning), for
every family that a text view sums up; the summing up (one note per file and check,
one finding per file for a file-wide decision, one summary per vendored library) is
done only where a person reads a list: the summary, "Hand work, by file",
``--output-format grouped`` and a single file's findings.

Input: ``fixtures/per_site``, two small projects of several sites each: a heat-diffusion
stencil (32-lane idioms, cache-hint loads, newer intrinsics, double precision in two
device functions, three gates on its build's enable macro, a vendored CUB) and a
KV-cache quantizer (FP8 conversions the vendor's tables do not give, used on several
lines)."""

from __future__ import annotations

import io
import shutil
from collections import defaultdict

import pytest
from conftest import FIXTURES, musa_port_here
from rich.console import Console

from musa_porting import PortOptions, port_tree
from musa_porting.report.annotations import grouped_text
from musa_porting.report.json_report import report_dict
from musa_porting.report.sarif import sarif_dict
from musa_porting.report.summary import print_summary

SRC = FIXTURES / "per_site"
HALO = "stencil/csrc/halo.cu"
KV = "quant/kernels/kv_fp8.cu"
LANES = "stencil/third_party/cub/cub/warp/lane_ops.cuh"
# (file, ID, level) -> the CUDA lines with a finding, one SARIF result each.
SITES = {
    (HALO, "MP2002", "note"): [5, 6, 17],
    (HALO, "MP2012", "note"): [19, 20, 21],
    (HALO, "MP2006", "warning"): [28],  # the file's decision: at its first device function
    (HALO, "MP2006", "note"): [35],  # the other one that computes in double
    (HALO, "MP2013", "note"): [41, 44, 45],
    (HALO, "MP1011", "warning"): [48],
    (HALO, "MP1011", "note"): [54, 60],
    (KV, "MP2016", "warning"): [5, 8, 19],  # each name's first use
    (KV, "MP2016", "note"): [11, 13, 16, 23, 26, 28],
    (KV, "MP1010", "note"): [5, 8, 11, 13, 16, 19, 23, 26, 28],
    # a vendored library: its own findings are notes, and one warning says what it is
    (LANES, "MP2007", "warning"): [6],
    (LANES, "MP2001", "note"): [6, 11, 16],
    (LANES, "MP1002", "note"): [19],
}


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    root = tmp_path_factory.mktemp("per_site")
    shutil.copytree(SRC, root / "src")  # outside the repository: SARIF paths from SRC
    return port_tree(PortOptions(src=str(root / "src"), output=str(root / "out"), jobs=1,
                                 dry_run=True))


def _sarif_sites(r) -> dict[tuple[str, str, str], list[int]]:
    sites = defaultdict(list)
    for res in sarif_dict(r)["runs"][0]["results"]:
        where = res["locations"][0]["physicalLocation"]  # a dry run: the CUDA line
        sites[(where["artifactLocation"]["uri"], res["ruleId"], res["level"])].append(
            where["region"]["startLine"])
    return {k: sorted(v) for k, v in sites.items()}


def test_sarif_has_a_result_at_every_site(port):
    found = {k: v for k, v in _sarif_sites(port).items() if k[1] not in ("MP1002", "MP1004")
             or k[0] == LANES}
    assert found == SITES


def test_the_json_report_has_every_site_with_its_own_message(port):
    diags = report_dict(port)["diagnostics"]
    gates = [d for d in diags if d["id"] == "MP1011"]
    assert [d["source_line"] for d in gates] == [48, 54, 60]
    assert "WITH_MUSA" in gates[1]["message"] and "line 48" in gates[1]["message"]
    doubles = [d for d in diags if d["id"] == "MP2006"]
    assert "'total_heat'" in doubles[1]["message"] and "line 28" in doubles[1]["message"]
    hints = [d["message"] for d in diags if d["id"] == "MP2012"]
    assert len(hints) == 3 and all("in this file" not in m for m in hints)
    lib = [d for d in diags if d["source_file"] == LANES and d["id"] != "MP2007"]
    assert all("vendored copy of CUB" in d["message"] for d in lib)
    # the library's residuals are notes: not residuals of the project, nor --check failures
    assert report_dict(port)["totals"]["residuals"] == sum(
        1 for d in diags if d["residual"] and d["level"] != "note")


def test_text_views_sum_the_sites_up(port):
    text = grouped_text(port, notes=True)
    halo = text[text.index("csrc/halo.cu:"):].split("\n\n")[0].splitlines()[1:]
    assert [line.split()[1] for line in halo] == ["MP2002", "MP2012", "MP2006", "MP2013",
                                                  "MP1011"]
    assert "lines 5, 6, 17" in halo[0] and "lines 19, 20, 21" in halo[1]
    assert "lines 28, 35" in halo[2] and "lines 48, 54, 60" in halo[4]
    kv = text[text.index("kernels/kv_fp8.cu:"):].split("\n\n")[0]
    assert kv.count("MP2016") == 3 and kv.count("MP1010") == 1
    lanes = text[text.index("warp/lane_ops.cuh:"):].split("\n\n")[0].splitlines()[1:]
    assert len(lanes) == 1 and "MP2007" in lanes[0] and "4 findings" in lanes[0]
    buf = io.StringIO()
    print_summary(port, Console(file=buf, width=250, force_terminal=False), notes=True)
    summary = buf.getvalue()
    assert summary.count("MP1011 enable-macro-gate") == 2  # the table's row, and the finding
    row = summary.split("MP1011 enable-macro-gate")[1].splitlines()[0]
    assert row.split("|")[1:3] == [" warning ", "     1 "]  # one per file
    assert "lane_ops.cuh:6:" in summary and "lane_ops.cuh:11:" not in summary
    triage = summary[summary.index("Hand work, by file"):]
    assert "halo.mu: 2 warnings" in triage and "lane_ops.cuh: 1 warning" in triage


def test_one_files_findings_are_summed_up_on_stderr(tmp_path):
    src = tmp_path / "halo.cu"
    shutil.copy(SRC / HALO, src)
    code, _, err = musa_port_here(src, "-o", tmp_path / "halo.mu")
    assert code == 0, err
    assert err.count("MP1011") == 1 and err.count("MP2012") == 1 and "lines 48, 54, 60" in err
