"""SimplePorting's two modes (issue 36, point 1): by default the tree torch_musa's
SimplePorting writes (its tables, the call's rules as text), with one argument
(``extended=True``, or ``simple-porting = "extended"`` in ``[tool.musa-port]``) the whole
port the command line makes, which keeps today's behaviour."""

from __future__ import annotations

import pytest
from conftest import make_tree

from musa_porting import PortError, PortOptions, SimplePorting, port_tree

GEMM = """\
#include <cutlass/gemm/device/gemm.h>
#include "gemm_cuda.cuh"
#define MYLIB_CUDA_CHECK(x) x
#define NVIDIA_SMI_CHECK(x) x

CUTLASS_DEVICE void helper() {}

void gemm(cudaStream_t stream, const at::Tensor& t) {
#if __CUDA_ARCH__ >= 800
  cutlass::gemm::device::Gemm<float> op;
#endif
  MYLIB_CUDA_CHECK(cudaGetLastError());
  if (t.is_cuda()) {
    __nv_fp8_e4m3 x;
  }
  THCudaCheck(cudaGetLastError());
  NVIDIA_SMI_CHECK(nvmlInit());
}
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    make_tree(tmp_path, {"csrc/gemm/gemm_cuda.cu": GEMM,
                         "csrc/gemm/gemm_cuda.cuh": "#pragma once\nvoid gemm();\n"})
    monkeypatch.chdir(tmp_path)
    return tmp_path


BEYOND_TORCH_MUSA = ("cutlass::gemm", "CUTLASS_DEVICE", "MYLIB_CUDA_CHECK", ">= 800", ".is_cuda()",
                     "__nv_fp8_e4m3", "<cutlass/gemm",
                     # the legacy_torch and nvml families, the vendor word in the tree's names
                     "THCudaCheck(", "nvmlInit()", "NVIDIA_SMI_CHECK")


def test_by_default_only_what_torch_musas_tables_rename(tree):
    SimplePorting("csrc", quiet=True).run()
    text = (tree / "csrc_musa/gemm/gemm_cuda.mu").read_text()
    assert "musaStream_t stream" in text and "musaGetLastError()" in text  # torch_musa's tables
    assert "#if __MUSA_ARCH__ >= 800" in text  # the macro is the vendor's; the number stays
    for kept in BEYOND_TORCH_MUSA:  # MUTLASS, fp8, arch values, the tree's own names
        assert kept in text, kept
    assert '#include "gemm_cuda.muh"' in text  # the rename of .cuh is torch_musa's too


def test_extended_ports_as_the_command_line_does(tree):
    SimplePorting("csrc", quiet=True, extended=True).run()
    out = tree / "csrc_musa/gemm/gemm_musa.mu"  # path renames
    text = out.read_text()
    for old, new in [("cutlass::gemm", "mutlass::gemm"), ("CUTLASS_DEVICE", "MUTLASS_DEVICE"),
                     ("MYLIB_CUDA_CHECK", "MYLIB_MUSA_CHECK"), (".is_cuda()", ".is_musa()"),
                     ("__nv_fp8_e4m3", "__mt_fp8_e4m3"), ("<cutlass/gemm", "<mutlass/gemm")]:
        assert old not in text and new in text, new
    assert ">= 800" not in text
    assert "THCudaCheck" not in text and "nvmlInit" not in text and "NVIDIA_SMI_CHECK" not in text
    # The command line writes the same tree (its behaviour is unchanged).
    port_tree(PortOptions(src="csrc", output="cli_out"))
    assert (tree / "cli_out/gemm/gemm_musa.mu").read_text() == text


def test_the_project_settings_choose_the_mode(tree):
    (tree / "pyproject.toml").write_text('[tool.musa-port]\nsimple-porting = "extended"\n')
    SimplePorting("csrc", quiet=True).run()
    assert "mutlass::gemm" in (tree / "csrc_musa/gemm/gemm_musa.mu").read_text()
    SimplePorting("csrc", output_dir_path="plain", quiet=True, extended=False).run()  # the call wins
    assert "cutlass::gemm" in (tree / "plain/gemm/gemm_cuda.mu").read_text()
    (tree / "pyproject.toml").write_text('[tool.musa-port]\nsimple-porting = "all"\n')
    with pytest.raises(PortError, match="simple-porting: must be one of compatible, extended") as e:
        SimplePorting("csrc", quiet=True).run()
    assert e.value.path.endswith("pyproject.toml") and e.value.line == 2


def test_a_family_switched_on_by_name_comes_whole(tree):
    SimplePorting("csrc", quiet=True, enable_families=["mutlass"]).run()
    text = (tree / "csrc_musa/gemm/gemm_cuda.mu").read_text()
    assert "mutlass::gemm" in text and "MYLIB_CUDA_CHECK" in text and "__nv_fp8_e4m3" in text


def test_the_calls_rules_are_text_in_torch_musas_order(tree):
    """Longest key first, and a rule rewrites what a longer one wrote (torch_musa's
    str.replace); a table's replacement is not rewritten by a rule."""
    rules = {"MYLIB_CUDA_CHECK(cudaGetLastError())": "MYLIB_CUDA_CHECK(peek())",
             "MYLIB_CUDA": "MYLIB_MUSA", "musaStream": "mtStream"}
    SimplePorting("csrc", mapping_rule=rules, quiet=True).run()
    text = (tree / "csrc_musa/gemm/gemm_cuda.mu").read_text()
    assert "MYLIB_MUSA_CHECK(peek());" in text and "#define MYLIB_MUSA_CHECK(x)" in text
    assert "musaStream_t stream" in text  # the table wrote it: not the rule's to rewrite
