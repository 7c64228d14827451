"""CUTLASS and CuTe code ports to MUTLASS and MuTe (issue 26, point 1): the ``mutlass``
family of the tables, and the vocabulary's CUTLASS and CUTE words for the project's own
names and files. Input: ``fixtures/mutlass_ext`` (a GEMM through
``cutlass::gemm::device::Gemm`` and a CuTe copy kernel)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, run_cli

from musa_porting import PortOptions, port_tree

SRC = FIXTURES / "mutlass_ext" / "csrc"


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    root = tmp_path_factory.mktemp("mutlass")
    src = root / "csrc"
    shutil.copytree(SRC, src)
    result = port_tree(PortOptions(str(src), jobs=1, rename_paths=True))
    out = root / "csrc_musa"
    return result, {p.relative_to(out).as_posix(): p.read_text()
                    for p in out.rglob("*") if p.is_file()
                    and not p.relative_to(out).as_posix().startswith(".")}  # musa-port's own


def test_cutlass_names_become_mutlass_names(ported):
    _, files = ported
    gemm = files["gemm_mutlass.mu"]
    assert "#include <mutlass/gemm/device/gemm.h>" in gemm
    assert "#include <mutlass/layout/matrix.h>" in gemm
    assert '#include "mutlass_utils.muh"' in gemm  # the renamed header, followed
    assert "using MutlassGemm = mutlass::gemm::device::Gemm<float, ColumnMajor," in gemm
    assert "using ColumnMajor = mutlass::layout::ColumnMajor;" in gemm
    assert "musaError_t mutlass_sgemm_nn(" in gemm and "MUTLASS_CHECK(gemm_operator(" in gemm
    assert "cutlass" not in gemm.lower().replace("mutlass", "")

    utils = files["mutlass_utils.muh"]
    # The library's top header is named like the library (unverified: status unknown).
    assert '#include "mutlass/mutlass.h"' in utils
    assert '#include "mutlass/util/device_memory.h"' in utils
    assert "#define MUTLASS_CHECK(status)" in utils
    assert "mutlass::Status error = status;" in utils and "mutlass::Status::kSuccess" in utils
    assert "MUTLASS_HOST_DEVICE inline int round_up_to_tile" in utils
    assert "struct MutlassGemmConfig {" in utils
    # A URL and a word that only holds the letters stay.
    assert "https://github.com/NVIDIA/cutlass (see cutlass/include/cutlass/cutlass.h)" in utils
    assert "void execute(const MutlassGemmConfig& config);" in utils


def test_cute_names_become_mute_names(ported):
    _, files = ported
    copy = files["mute_copy.mu"]
    assert "#include <mute/tensor.hpp>" in copy and "using namespace mute;" in copy
    assert "__global__ void mute_copy_kernel(TensorS S, TensorD D)" in copy
    assert "MUTE_UNROLL" in copy and "MUTE_STATIC_ASSERT_V(size<0>(tile) == Int<8>{});" in copy
    assert "mute_copy_kernel<<<tiles, 1, 0, stream>>>(S, D);" in copy
    assert "void mute_copy(const float* src" in copy

    epilogue = files["epilogue.h"]
    assert "#include <mutlass/epilogue/thread/linear_combination.h>" in epilogue
    assert "namespace mutlass {" in epilogue and "}  // namespace mutlass" in epilogue
    assert "public mutlass::epilogue::thread::LinearCombination<Element, Count>" in epilogue
    assert "namespace mute {" in epilogue and "MUTE_HOST_DEVICE constexpr auto ext_tile()" in epilogue


def test_project_names_are_reported_at_their_definitions(ported):
    result, _ = ported
    renamed = {r.old: r.new for r in result.project.renames.values()}
    assert {"CutlassGemm": "MutlassGemm", "CutlassGemmConfig": "MutlassGemmConfig",
            "cutlass_sgemm_nn": "mutlass_sgemm_nn", "cute_copy_kernel": "mute_copy_kernel",
            "cute_copy": "mute_copy", "CUTLASS_CHECK": "MUTLASS_CHECK"}.items() <= renamed.items()
    assert "execute" not in renamed and "ext_tile" not in renamed


def test_the_family_is_listed_and_can_be_switched_off(tmp_path):
    proc = run_cli("rules", "--families", "--format", "json", check=0)
    fams = {f["family"]: f for f in json.loads(proc.stdout)}
    assert fams["mutlass"]["enabled"] and fams["mutlass"]["entries"] >= 10
    proc = run_cli("rules", "cutlass::", "CUTE_", "<cutlass/", check=0)
    assert "cutlass:: -> mutlass::  [mutlass, supported]" in proc.stdout
    assert "CUTE_ -> MUTE_  [mutlass, supported]" in proc.stdout
    # A name with no rule of its own: what ports it inside a match, or in context.
    proc = run_cli("rules", "CUTLASS_HOST_DEVICE", check=0)
    assert proc.stdout.strip() == "CUTLASS_HOST_DEVICE -> MUTLASS_HOST_DEVICE  [mutlass] by the rule CUTLASS_"
    proc = run_cli("rules", "cutlass", check=1)
    assert proc.stderr.startswith("cutlass: no rule; in context: ")
    assert "cutlass:: -> mutlass::" in proc.stderr and "<cutlass/ -> <mutlass/" in proc.stderr

    src = tmp_path / "csrc"
    shutil.copytree(SRC, src)
    run_cli(src, "--disable-family", "mutlass", "-q", check=0)
    out = (tmp_path / "csrc_musa").rglob("gemm_*.mu")
    gemm = next(out).read_text()
    assert "#include <cutlass/gemm/device/gemm.h>" in gemm
    assert "cutlass::gemm::device::Gemm" in gemm
