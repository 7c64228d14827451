"""User rules always win (issue 27): a rule keyed on a whole #include line wins over the
tables' header rule; a rule that matched nothing at identifier boundaries but occurs
inside longer names is warned about, and ``substr:KEY`` matches there as torch_musa's
str.replace does."""

from __future__ import annotations

import json

from conftest import make_tree, run_cli

from musa_porting import SimplePorting
from musa_porting.port.engine import Matcher, rewrite


def test_a_whole_include_line_rule_wins_over_the_tables(tmp_path):
    src = make_tree(tmp_path / "src", {
        "k.cu": "#include <ATen/cuda/CUDAContext.h>\n#include <c10/cuda/CUDAGuard.h>\n"})
    rules = tmp_path / "r.json"
    rules.write_text(json.dumps({
        "#include <ATen/cuda/CUDAContext.h>": '#include "my_musa/Context.h"'}))
    run_cli(src, "--rule", rules, check=0)
    out = (tmp_path / "src_musa/k.mu").read_text().splitlines()
    assert out[0] == '#include "my_musa/Context.h"'
    assert out[1] == '#include <torch_musa/csrc/core/MUSAGuard.h>'  # the tables, where no rule


def test_an_include_line_rule_wins_over_following_a_tree_file(tmp_path, monkeypatch):
    make_tree(tmp_path / "src", {"k.cu": '#include "helper.cuh"\n', "helper.cuh": "\n"})
    monkeypatch.chdir(tmp_path)
    SimplePorting("src", mapping_rule={'#include "helper.cuh"': '#include "musa_helper.h"'},
                  quiet=True).run()
    assert (tmp_path / "src_musa/k.mu").read_text() == '#include "musa_helper.h"\n'


SAGE = """\
template <int N> void step(Smem smem) {
  smem.advance_offset_by_column<2>(0);
  smem.advance_offset_by_row<4>(1);
  smem.advance_offset_by_column<2>(3);
}
"""


def test_a_rule_that_only_matches_inside_longer_names_is_warned_about(tmp_path):
    src = make_tree(tmp_path / "src", {"attn.cuh": SAGE})
    rules = tmp_path / "r.json"
    rules.write_text(json.dumps({".advance_offset": ".template advance_offset"}))
    proc = run_cli(src, "--rule", rules, check=0)
    assert (tmp_path / "src_musa/attn.muh").read_text() == SAGE  # boundaries: nothing matched
    warning = [ln for ln in proc.stderr.splitlines() if "'.advance_offset'" in ln]
    assert len(warning) == 1
    assert "3 times" in warning[0] and "attn.cuh:2" in warning[0]
    assert "'.advance_offset_by_column'" in warning[0] and "substr:.advance_offset" in warning[0]


def test_the_substr_form_matches_inside_names_as_torch_musa_does(tmp_path, monkeypatch):
    make_tree(tmp_path / "src", {"attn.cuh": SAGE})
    monkeypatch.chdir(tmp_path)
    result = SimplePorting("src", mapping_rule={"substr:.advance_offset": ".template advance_offset"},
                           quiet=True).run()
    out = (tmp_path / "src_musa/attn.muh").read_text()
    assert out.count(".template advance_offset_by_") == 3 and not result.warnings


def test_substr_keys_in_both_matchers():
    for pure in ("0", "1"):
        import os

        os.environ["MUSA_PORT_PURE_PYTHON"] = pure
        try:
            m = Matcher({"substr:cu": "mu", "_CUH": "_MUH"})
            assert rewrite(b"Accumulate X_CUH", m).data == b"Acmumulate X_MUH"
        finally:
            os.environ.pop("MUSA_PORT_PURE_PYTHON")
