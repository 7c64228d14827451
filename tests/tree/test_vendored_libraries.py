"""Vendored libraries that MUSA keeps keep their public names and file names (issue 26,
point 3). Input: ``fixtures/vendored_cccl`` (a user's sort op beside vendored copies of
CUB and Thrust)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, run_cli

from musa_porting import PortOptions, port_tree
from musa_porting.report.json_report import report_dict
from musa_porting.tree.vendored import library_roots, vendored_roots

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


# -- issue 46, point 2: a copy inside another project, or the tree's own library ----------------

@pytest.mark.parametrize("src,files,vendored", [
    # a release of the library checked out under its own name, with its tests and examples
    ("cub-2.2.0", ["cub/cub.cuh", "cub/util_arch.cuh", "test/test_scan.cu",
                   "examples/device/example_sort.cu", "CMakeLists.txt"], set()),
    # ... or under any name: the library is the main thing in the tree
    ("src", ["cub/cub.cuh", "cub/util_arch.cuh", "test/test_scan.cu", "benchmarks/b.cu"], set()),
    ("thrust_main", ["thrust/version.h", "thrust/sort.h", "testing/sort.cu", "examples/sum.cu",
                     "dependencies/cub/cub/cub.cuh"], {"dependencies/cub"}),
    ("libcudacxx-2.1.0", ["include/cuda/std/atomic", "include/nv/target",
                          "libcxx/test/std/atomics/types.pass.cpp"], set()),
    # a tree of device templates: the headers alone
    ("include", ["cuda/std/atomic", "cuda/std/cstddef", "nv/target"], set()),
    # copies inside an application: under a vendoring folder, whatever else the tree holds
    ("histo_app", ["src/histogram.cu", "third_party/cub/cub/cub.cuh", "third_party/cub/test/t.cu"],
     {"third_party/cub"}),
    ("lib", ["external/thrust/thrust/version.h"], {"external/thrust"}),
    ("lib", ["3rdparty/cccl/cub/cub/cub.cuh", "deps/cub/cub/cub.cuh"], {"3rdparty/cccl", "deps/cub"}),
    # ... or beside the project's own code, with the library's name and content
    ("stencil", ["halo.cu", "cub/cub.cuh", "cub/util_arch.cuh"], {"cub"}),
    ("corpus", ["mmcv_csrc/pytorch/nms.cpp", "cccl/thrust/thrust/version.h",
                "cccl/cub/cub/cub.cuh"], {"cccl"}),
    ("app", ["setup.py", "pkg/ops.py", "include/thrust/version.h"], {"include/thrust"}),
])
def test_which_libraries_are_vendored_copies(tmp_path, src, files, vendored):
    tree = tmp_path / src
    roots = library_roots(str(tree), files)
    assert vendored_roots(str(tree), files, roots) == vendored


def test_a_submodule_is_a_vendored_copy(tmp_path):
    """A library checked out as a git submodule of the tree is another project's, even
    where nothing else in the tree would say so."""
    files = ["cub/cub/cub.cuh", "cub/test/test_scan.cu"]
    tree = tmp_path / "app"
    (tree / "cub").mkdir(parents=True)
    roots = library_roots(str(tree), files)
    assert vendored_roots(str(tree), files, roots) == set()  # nothing else: the library
    (tree / ".gitmodules").write_text('[submodule "cub"]\n\tpath = cub\n\turl = https://x/cub\n')
    assert vendored_roots(str(tree), files, roots) == {"cub"}
    (tree / ".gitmodules").unlink()
    (tree / "cub" / ".git").write_text("gitdir: ../.git/modules/cub\n")  # a submodule's checkout
    assert vendored_roots(str(tree), files, roots) == {"cub"}


AS_ITSELF = FIXTURES / "library_as_itself"


def _port(src, tmp_path):
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1, dry_run=True))
    return report_dict(r)["diagnostics"]


@pytest.mark.parametrize("name", ["cub-2.2.0", "checkout"])
def test_a_library_ported_as_itself_has_its_findings_as_its_own(tmp_path, name):
    src = tmp_path / name
    shutil.copytree(AS_ITSELF / "cub-2.2.0", src)
    found = _port(src, tmp_path)
    assert "MP2007" not in {d["id"] for d in found}
    own = {(d["source_file"], d["id"], d["level"]) for d in found}
    assert {("cub/warp/warp_scan_shfl.cuh", "MP2001", "warning"),
            ("cub/warp/warp_scan_shfl.cuh", "MP2002", "warning"),
            ("cub/block/block_histogram.cuh", "MP2001", "warning")} <= own
    # its names and file names are kept all the same (MUSA keeps CUB's)
    assert all(d["file"] == d["source_file"] for d in found if d["source_file"].startswith("cub/"))


def test_the_same_library_under_third_party_is_a_vendored_copy(tmp_path):
    src = tmp_path / "histo_app"
    shutil.copytree(AS_ITSELF / "histo_app", src)
    shutil.copytree(AS_ITSELF / "cub-2.2.0", src / "third_party" / "cub")
    found = _port(src, tmp_path)
    lib = [d for d in found if d["source_file"].startswith("third_party/cub/")]
    assert [d["id"] for d in lib if d["level"] != "note"] == ["MP2007"]
    assert {"MP2001", "MP2002"} <= {d["id"] for d in lib}
    own = {(d["source_file"], d["id"]) for d in found if d["source_file"].startswith("src/")}
    assert ("src/equalize.cu", "MP2012") in own
