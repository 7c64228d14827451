"""The catalogue of findings is one table in the code: the documentation's findings
pages, ``--help-all``, ``musa-port explain``, the JSON report and the SARIF rules all say the
same; the summary groups findings by family; ``--suppress`` and inline comments drop
findings of any ID."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, make_tree, run_cli

from musa_porting.analyze.catalogue import CHECKS, FAMILIES, pages
from musa_porting.analyze.catalogue.render import explain_text, help_page, plain

KERNEL = """\
#define WARP_SIZE 32
__global__ void k(float* x) {
  int lane = threadIdx.x & 31;
  x[lane] = __ldg(x + lane);
}
void f(float* x) { k<<<1, 64>>>(x); }
"""


def test_every_check_has_its_help():
    for c in CHECKS.values():
        assert c.family in FAMILIES, c.id
        assert c.description and c.example and c.why and c.instead, c.id
        assert c.level in ("error", "warning", "note"), c.id


def test_the_findings_pages_are_the_catalogue():
    """The findings pages of the docs (a page per family, the table of every ID on the
    index, the README's table of families) are exactly what the catalogue renders
    (regenerate them with `python -m musa_porting.analyze.catalogue.pages`)."""
    for path, text in pages.generated(ROOT).items():
        assert path.read_text(encoding="utf-8") == text, f"{path.relative_to(ROOT)} is stale"
    index = (ROOT / "docs" / "findings" / "index.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^\| \[(MP\d{4})\]", index, re.M)) == set(CHECKS)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for key in FAMILIES:
        assert f"](docs/findings/{key}.md)" in readme, key


def test_every_help_link_names_a_page_and_an_anchor_that_exist():
    """explain's "More:" and the JSON report's help_uri name the family's page in the
    repository, at the ID's anchor; no link leads to a host that does not exist."""
    for c in CHECKS.values():
        path, anchor = help_page(c).split("#")
        page = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^## {c.id} {c.name} {{#{anchor}}}$", page, re.M), c.id
        assert f"More: {help_page(c)} " in explain_text(c)
    assert "site_url" not in (ROOT / "mkdocs.yml").read_text()


def test_help_all_and_sarif_rules_carry_the_same_text(tmp_path):
    help_all = re.sub(r"\s+", "", run_cli("--help-all").stdout)  # however click wraps it
    src = make_tree(tmp_path / "src", {"k.cu": KERNEL})
    sarif_path = tmp_path / "r.sarif"
    run_cli(src, "--sarif", sarif_path, "-q", check=0)
    rules = {r["id"]: r for r in json.loads(sarif_path.read_text())["runs"][0]["tool"]["driver"]["rules"]}
    assert set(rules) == set(CHECKS)
    for cid, c in CHECKS.items():
        assert f"{cid}{c.name}" in help_all
        short = rules[cid]["shortDescription"]["text"]
        assert short == plain(c.description)
        assert re.sub(r"\s+", "", short) in help_all, cid
        assert rules[cid]["help"]["text"] == explain_text(c)
        assert "helpUri" not in rules[cid]
        assert rules[cid]["defaultConfiguration"]["level"] == c.level


def test_explain_prints_the_long_help():
    out = run_cli("explain", "MP2004").stdout
    c = CHECKS["MP2004"]
    assert out == explain_text(c)
    for part in ("Why it matters", "Example", "What to do instead", c.example, "block-size"):
        assert part in out
    assert run_cli("explain", "block-size").stdout == out  # by name
    family = run_cli("explain", "warp-size").stdout
    assert "MP2002 warp-size-32" in family and "MP2004 block-size" in family
    listing = run_cli("explain").stdout
    assert all(cid in listing for cid in CHECKS)
    assert "```" in run_cli("explain", "MP2004", "--markdown").stdout


def test_explain_of_an_unknown_id_is_one_line(tmp_path):
    proc = run_cli("explain", "MP9999", check=2)
    assert proc.stderr.count("\n") == 1 and "MP9999" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_summary_groups_findings_by_family(tmp_path):
    src = make_tree(tmp_path / "src", {"k.cu": KERNEL, "other.cu": "#define WARP_SIZE 32\n"})
    out = run_cli(src, check=0).stdout
    table = out[out.index("Findings by family"):]
    # k.cu: one note for its two 32-lane places, and MP2004; other.cu: one note
    assert re.search(r"Warp size\s*\|?\s*\|?\s*3\b", table)
    # Issue 49.3: the level is the findings' own (both MP2002 here are notes), not the check's.
    assert re.search(r"MP2002 warp-size-32\s*\|?\s*note\s*\|?\s*2\b", table)
    assert not re.search(r"MP2002 warp-size-32\s*\|?\s*warning", table)
    assert re.search(r"Arch-specific device code\s*\|?\s*\|?\s*1\b", table)
    assert "Warp size: k.mu (2), other.mu (1)" in out


def test_the_json_report_has_the_catalogue_and_the_families(tmp_path):
    src = make_tree(tmp_path / "src", {"k.cu": KERNEL})
    report = tmp_path / "r.json"
    run_cli(src, "--report-json", report, "-q", check=0)
    r = json.loads(report.read_text())
    assert r["checks"]["MP2004"]["family"] == "warp-size"
    assert r["checks"]["MP2004"]["help_uri"].endswith("#mp2004")
    assert r["findings_by_family"]["warp-size"] == {
        "title": "Warp size", "count": 2, "ids": {"MP2002": 1, "MP2004": 1},
        "top_files": [{"file": "k.mu", "count": 2}]}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "musa_porting" / "report" / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(r, schema)


def _ids(tmp_path, files, *args):
    src = make_tree(tmp_path / "src", files)
    report = tmp_path / "r.json"
    proc = run_cli(src, "--report-json", report, "-q", *args, check=0)
    return [(d["id"], d["line"]) for d in json.loads(report.read_text())["diagnostics"]], proc


def test_inline_comments_suppress_findings_of_any_id(tmp_path):
    code = ("#define WARP_SIZE 32  // musa-port: ignore[MP2002]\n"
            "// musa-port: ignore[warp-size, cache-hint-load]\n"
            "__device__ float f(const float* x) { return __ldg(x + (threadIdx.x & 31)); }\n"
            "__device__ int g() { return threadIdx.x & 31; }  /* musa-port: ignore */\n"
            "int h() { return threadIdx.x & 31; }\n"
            "void u() { cudaFooBar(); }  // musa-port: ignore[MP1002]\n")
    found, _ = _ids(tmp_path, {"k.cu": code, "CMakeLists.txt":
                               'set(GPU_LANG "CUDA")  # musa-port: ignore[MP3103]\n'})
    assert found == [("MP2002", 5)]


def test_an_unknown_id_in_a_marker_is_a_warning(tmp_path):
    found, proc = _ids(tmp_path, {"k.cu": "int h() { return threadIdx.x & 31; }  "
                                          "// musa-port: ignore[MP2O02]\n"})
    assert found == [("MP2002", 1)]
    assert "k.cu:1: warning:" in proc.stderr and "'MP2O02'" in proc.stderr


def test_suppress_takes_families(tmp_path):
    found, _ = _ids(tmp_path, {"k.cu": KERNEL}, "--suppress", "warp-size")
    assert found == [("MP2012", 4)]


def test_a_check_that_reports_notes_says_so_where_its_level_is_given():
    """Issue 49.3: explain and the page said MP2002 is a warning while most of its findings
    are notes. The heading, the SARIF help and --help-all give both levels."""
    from musa_porting.analyze.catalogue.render import explain_markdown, help_all_rows

    c = CHECKS["MP2002"]
    assert explain_text(c).startswith("MP2002 warp-size-32 (warning, or note where a 32-lane idiom")
    assert "(warning, or note where" in explain_markdown(c)
    assert dict(help_all_rows())["MP2002 warp-size-32"].startswith("warning, or note where")
    assert "(warning; " in explain_text(CHECKS["MP2004"])  # one level: said once
