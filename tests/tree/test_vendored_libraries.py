"""Vendored libraries that MUSA keeps keep their public names and file names (issue 26,
point 3). Input: ``fixtures/vendored_cccl`` (a user's sort op beside vendored copies of
CUB and Thrust)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, run_cli

from musa_porting.tree.vendored import library_roots

SRC = FIXTURES / "vendored_cccl" / "csrc"
LIBRARY_FILES = sorted(p.relative_to(SRC).as_posix() for p in (SRC / "third_party").rglob("*")
                       if p.is_file())


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    root = tmp_path_factory.mktemp("vendored")
    shutil.copytree(SRC, root / "csrc")
    report = root / "r.json"
    run_cli(root / "csrc", "--rename-paths", "--report-json", report, "-q", check=0)
    return root / "csrc_musa", json.loads(report.read_text())


def test_the_vendored_copies_keep_their_file_names(ported):
    out, _ = ported
    assert LIBRARY_FILES and all((out / rel).is_file() for rel in LIBRARY_FILES)
    assert not [p for p in (out / "third_party").rglob("*.muh")]
    # The including files keep naming them.
    assert '#include "device/device_radix_sort.cuh"' in (out / "third_party/cub/cub/cub.cuh").read_text()
    assert '#include "../util_arch.cuh"' in (
        out / "third_party/cub/cub/device/device_radix_sort.cuh").read_text()


def test_their_code_is_ported_and_their_names_stay(ported):
    out, report = ported
    util = (out / "third_party/thrust/thrust/system/cuda/detail/util.h").read_text()
    assert "inline musaError_t synchronize_stream(musaStream_t stream) {" in util
    assert "#define CUDA_CUB_RET_IF_FAIL(e)" in util and "namespace cuda_cub {" in util
    assert "inline const char* cuda_category()" in util
    arch = (out / "third_party/cub/cub/util_arch.cuh").read_text()
    assert "#define CUB_PTX_ARCH __MUSA_ARCH__" in arch
    assert "inline musaError_t cuda_debug_sync(musaError_t error)" in arch
    renamed = {r["name"] for r in report["project_symbols"]["renamed"]}
    assert renamed == {"sort_cuda"}
    # Kept library names are not left-overs to report.
    assert not [d for d in report["diagnostics"] if d["id"] in ("MP1001", "MP1002")]


def test_the_users_code_around_them_is_ported(ported):
    out, _ = ported
    sort = (out / "ops" / "sort_musa.mu").read_text()
    assert "#include <cub/cub.cuh>\n#include <thrust/sort.h>\n" in sort
    assert '#include "sort_musa.muh"' in sort
    assert '#include "../third_party/cub/cub/util_arch.cuh"' in sort
    assert "musaError_t sort_musa(const int* in, int* out, int n, musaStream_t stream) {" in sort
    assert "CUDA_CUB_RET_IF_FAIL(thrust::cuda_cub::synchronize_stream(stream));" in sort
    assert "CUDA_CUB_RET_IF_FAIL(cub::DeviceRadixSort::SortKeys(" in sort


@pytest.mark.parametrize("lib", ["cub", "thrust"])
def test_a_tree_that_is_the_library_keeps_its_names(tmp_path, lib):
    src = tmp_path / lib
    shutil.copytree(SRC / "third_party" / lib, src)
    run_cli(src, "--rename-paths", "-q", check=0)
    before = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    out = tmp_path / f"{lib}_musa"
    after = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                   if p.is_file() and not p.relative_to(out).as_posix().startswith("."))
    assert before == after


@pytest.mark.parametrize("src,files,roots", [
    ("csrc", ["a.cu", "third_party/cub/cub/cub.cuh", "third_party/cub/test/t.cu"],
     {"third_party/cub"}),
    ("csrc", ["third_party/cccl/thrust/thrust/version.h",
              "third_party/cccl/libcudacxx/include/cuda/std/atomic"], {"third_party/cccl"}),
    ("csrc", ["include/thrust/version.h", "include/cub/version.cuh", "include/nv/target"],
     {"include/thrust", "include/cub", "include/nv"}),
    ("csrc", ["ext/include/cuda/std/atomic", "ext/include/cuda/std/cstddef"], {"ext/include/cuda"}),
    ("thrust", ["version.h", "detail/config.h"], {""}),
    ("cub", ["cub.cuh", "util_arch.cuh"], {""}),
    ("cccl", ["thrust/thrust/version.h", "README.md"], {""}),
    # The project's own CUDA folders are not libraries.
    ("csrc", ["cuda/gemm.cu", "cuda/std_utils.h", "cub_ext/cub_sort.cuh"], set()),
])
def test_which_folders_are_vendored_libraries(src, files, roots):
    assert library_roots(f"/x/{src}", files) == roots
