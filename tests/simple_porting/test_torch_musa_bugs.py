"""torch_musa's bugs stay fixed in SimplePorting's torch_musa-compatible mode (issue 36,
point 2; each is named on docs/simple-porting.md), and where a call's own rule changes a
name in the middle, the summary says where, once per rule."""

from __future__ import annotations

import logging

import pytest
from conftest import make_tree

import musa_porting.simple_porting as musa_sp
from musa_porting import SimplePorting

KERNEL = """\
#include "utils.cuh"
#include "cuda/helpers.h"
__device__ float Accumulate(const float* v, int cu) { return v[cu]; }
void launch(torch::Tensor x, torch::Tensor g_idx, Smem smem) {
  TORCH_CHECK(x.device().is_cuda());
  TORCH_CHECK(g_idx.device().is_cuda());
  __nv_half h;
  nv_half k;
  smem.advance_offset_by_column<4>(0);
  smem.advance_offset_by_row<2>(1);
  AT_CUDA_CHECK(cudaGetLastError());
}
"""
VLLM_RULES = {"x.device().is_cuda()": "true", "nv_half": "__half", "cu": "mu",
              ".advance_offset": ".template advance_offset", "AT_CUDA_CHECK": "C10_MUSA_CHECK",
              "/cuda/": "/musa/"}


@pytest.fixture
def ported(tmp_path, monkeypatch):
    make_tree(tmp_path, {
        "csrc/kernel.cu": KERNEL,
        "csrc/more.cu": "void f(Smem s) { s.advance_offset_by_column<8>(2); }\n",
        "csrc/utils.cuh": "#pragma once\n",
        "csrc/cuda/helpers.h": "#pragma once\n",
        "csrc/LICENSE": "BSD\n",
        "csrc/weights.bin": b"\x00\x9fcudaMalloc\xff\x00Accumulate",
    })
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_short_keys_and_rules_corrupt_no_name(ported):
    SimplePorting("csrc", mapping_rule=VLLM_RULES, quiet=True).run()
    text = (ported / "csrc_musa/kernel.mu").read_text()
    assert "TORCH_CHECK(true);" in text  # the rule, where it is the whole expression
    assert "g_idx.device().is_cuda()" in text and "g_idtrue" not in text
    assert "__nv_half h;" not in text and "____half" not in text
    assert "__mt_half h;" in text  # the vendor's name for the whole name, not the rule's piece
    assert "__half k;" in text  # the rule, on the whole name
    assert "Accumulate(const float* v, int mu)" in text and "Acmumulate" not in text


def test_the_calls_rule_wins_over_the_default(ported):
    SimplePorting("csrc", mapping_rule=VLLM_RULES, quiet=True).run()
    assert "C10_MUSA_CHECK(musaGetLastError());" in (ported / "csrc_musa/kernel.mu").read_text()


def test_binary_files_and_names_without_an_extension(ported):
    SimplePorting("csrc", mapping_rule=VLLM_RULES, quiet=True).run()
    out = ported / "csrc_musa"
    assert (out / "weights.bin").read_bytes() == (ported / "csrc/weights.bin").read_bytes()
    assert (out / "LICENSE").read_text() == "BSD\n" and not (out / ".LICENSE").exists()


def test_includes_name_files_that_exist(ported):
    """The call's /cuda/ -> /musa/ would make #include "cuda/helpers.h" name a folder the
    port does not make (folders keep their names): the include follows the file."""
    SimplePorting("csrc", mapping_rule=VLLM_RULES, quiet=True).run()
    text = (ported / "csrc_musa/kernel.mu").read_text()
    assert '#include "utils.muh"' in text and '#include "cuda/helpers.h"' in text
    assert (ported / "csrc_musa/cuda/helpers.h").is_file()


def test_a_rule_that_changes_names_in_the_middle_is_said_once(ported, caplog, capsys):
    """torch_musa's text replacement is kept for the call's rules (.advance_offset is meant
    for .advance_offset_by_column), and the summary says where, once per rule."""
    SimplePorting("csrc", mapping_rule=VLLM_RULES).run()
    err = capsys.readouterr().err.splitlines()
    text = (ported / "csrc_musa/kernel.mu").read_text()
    assert "smem.template advance_offset_by_column<4>(0);" in text
    assert "smem.template advance_offset_by_row<2>(1);" in text
    said = [line for line in err if "'.advance_offset' changed names in the middle" in line]
    assert len(said) == 1
    assert "in 3 places of 2 files" in said[0] and "kernel.cu:9:" in said[0]
    assert "'.advance_offset_by_column' -> '.template advance_offset_by_column'" in said[0]
    assert not [line for line in err if "'x.device().is_cuda()'" in line]  # never in the middle
    musa_sp.LOGGER.setLevel(logging.ERROR)  # the caller's switch silences it
    try:
        SimplePorting("csrc", mapping_rule=VLLM_RULES).run()
    finally:
        musa_sp.LOGGER.setLevel(logging.INFO)
    assert "changed names in the middle" not in capsys.readouterr().err
