"""SARIF as GitHub code scanning reads it: paths relative to the repository's root when
SRC is below it (GitHub resolves relative URIs from there and ignores ``uriBaseId``),
base IDs for what lies outside, and fingerprints that survive lines moving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_tree, musa_port_here

KERNEL = "// a kernel\n__shfl_down_sync(0xffffffff, v, 16);\ncudaFooBar(1);\n"


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_tree(tmp_path / "repo", {".git/HEAD": "ref: refs/heads/main\n",
                                         "csrc/pytorch/a.cu": KERNEL})


def sarif_of(*args, cwd: Path) -> dict:
    # No default tables: the findings here (a hazard, a name left) need none, and a
    # port of a few lines is mostly their loading.
    code, _, err = musa_port_here(*args, "--sarif", cwd / "out.sarif", "-q", "--no-default-rules",
                                  cwd=cwd)
    assert code == 0, err
    return json.loads((cwd / "out.sarif").read_text())["runs"][0]


def _where(loc: dict) -> tuple[str, str]:
    art = loc["physicalLocation"]["artifactLocation"]
    return art["uri"], art.get("uriBaseId")


def test_uris_are_relative_to_the_repository_root(repo):
    run = sarif_of("csrc", "-n", cwd=repo)  # the README's CI line: a dry run of ./csrc
    [res] = [r for r in run["results"] if r["ruleId"] == "MP1002"]
    assert _where(res["locations"][0]) == ("csrc/pytorch/a.cu", "%SRCROOT%")
    assert _where(res["relatedLocations"][0]) == ("csrc_musa/pytorch/a.mu", "%SRCROOT%")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    assert "informationUri" not in run["tool"]["driver"]  # no page to point at yet
    # From another folder, the same URIs: they do not depend on where musa-port ran.
    again = sarif_of(repo / "csrc", "-n", cwd=repo.parent)
    assert [_where(r["locations"][0]) for r in again["results"]] == \
        [_where(r["locations"][0]) for r in run["results"]]


def test_an_output_outside_the_repository_gets_a_base_id(repo, tmp_path):
    run = sarif_of("csrc", "-o", tmp_path / "elsewhere", cwd=repo)  # written: ported file first
    [res] = [r for r in run["results"] if r["ruleId"] == "MP1002"]
    assert _where(res["locations"][0]) == ("pytorch/a.mu", "OUTROOT")
    assert _where(res["relatedLocations"][0]) == ("csrc/pytorch/a.cu", "%SRCROOT%")
    assert run["originalUriBaseIds"]["OUTROOT"]["uri"] == (tmp_path / "elsewhere").resolve().as_uri() + "/"


def test_outside_any_repository_paths_are_relative_to_src(tmp_path):
    src = make_tree(tmp_path / "plain" / "csrc", {"a.cu": KERNEL})
    run = sarif_of(src, "-n", cwd=tmp_path)
    [res] = [r for r in run["results"] if r["ruleId"] == "MP1002"]
    assert _where(res["locations"][0]) == ("a.cu", "SRCROOT")
    assert "%SRCROOT%" not in run["originalUriBaseIds"]


def _fingerprints(run: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in run["results"]:
        out.setdefault(r["ruleId"], []).append(r["partialFingerprints"]["musaPort/v2"])
    return out


def test_fingerprints_survive_lines_moving_and_count_occurrences(repo):
    before = _fingerprints(sarif_of("csrc", "-n", cwd=repo))
    kernel = repo / "csrc/pytorch/a.cu"
    kernel.write_text("#include <cstdio>\n\n" + KERNEL)  # two lines inserted above
    after = _fingerprints(sarif_of("csrc", "-n", cwd=repo))
    assert after == before
    # The same line twice: one fingerprint each. Another text on the line: another one.
    kernel.write_text(KERNEL + "cudaFooBar(1);\ncudaFooBar(2);\n")
    twice = _fingerprints(sarif_of("csrc", "-n", cwd=repo))["MP1002"]
    assert len(set(twice)) == 3 and twice[0] == before["MP1002"][0]
    assert not any(":3:" in f or f.endswith(":3") for f in twice)  # no line number in it
