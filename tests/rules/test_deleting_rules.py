"""Rules with an empty value delete their key's text, as torch_musa's str.replace does
(users delete qualifiers, attributes, ``__restrict__`` and ``#pragma unroll``), in
every way rules are given: JSON (flat and rich), YAML, inline (``mapping_rule``) and
SimplePorting; the report counts them as deletions."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

from musa_porting import SimplePorting
from musa_porting.rules import build_ruleset, load_rule_file

KERNEL = "__global__ void k(float *__restrict__ x, __nv_fp8_e4m3 * y) {\n#pragma unroll\n}\n"
RULES = {"__restrict__": "", "__nv_fp8_e4m3 *": "", "#pragma unroll": ""}


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    return src


def _deleted(text: str) -> bool:
    return text == "__global__ void k(float * x,  y) {\n\n}\n"


@pytest.mark.parametrize("name, text", [
    ("rules.json", json.dumps(RULES)),
    ("rules.yaml", "".join(f'"{k}": ""\n' for k in RULES)),
    ("rich.json", json.dumps({"family": "mine", "entries": {k: {"musa": ""} for k in RULES}})),
])
def test_an_empty_value_in_a_rule_file_deletes(tmp_path, tree, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert {r.key: r.value for r in load_rule_file(path)} == RULES
    run_cli(tree, "--rule", path, "--report-json", tmp_path / "r.json")
    assert _deleted((tmp_path / "src_musa/k.mu").read_text())
    top = {t["rule"]: t["count"] for t in json.loads((tmp_path / "r.json").read_text())["top_rules"]}
    assert top["__restrict__ (deleted)"] == 1 and top["#pragma unroll (deleted)"] == 1


def test_inline_and_simple_porting_empty_values_delete(tree, monkeypatch):
    assert build_ruleset(inline_rules=RULES, default_rules=False).rules["__restrict__"].value == ""
    monkeypatch.chdir(tree.parent)
    result = SimplePorting("src", mapping_rule=RULES, quiet=True).run()
    assert _deleted((tree.parent / "src_musa/k.mu").read_text())
    assert result.by_rule["__nv_fp8_e4m3 * (deleted)"] == 1


def test_reverse_and_verify_skip_deletions(tree):
    """A deletion has nothing to invert: --reverse and the verify shim pass it by."""
    rs = build_ruleset(inline_rules=RULES)
    assert "" not in rs.reversed()
