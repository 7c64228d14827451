"""Issue 26 on real trees from PyPI: what changes in the ports of mmcv 2.2.0 and vLLM
0.4.2, point by point, and that nothing else does.

Measured against the port before issue 26 (the same commands): mmcv's ops tree with the
manual's rules changes only in its 6 __CUDA_ARCH__ thresholds (point 7) and, by default,
its paths (point 5: common/cuda and pytorch/cuda, 105 files named after CUDA, 164 more
includes that follow them); vLLM changes in 25 arch thresholds, one library string
(libnccl.so.2, point 6) and 6 renamed paths with the CMake source list that names them.
Neither defines a macro in its build that its sources test (point 2), uses CUTLASS through
the tables' keys (point 1: vLLM 0.4.2 fetches CUTLASS in CMake) or vendors Thrust/CUB (point 3).
"""

from __future__ import annotations

import json
import tarfile
from collections import Counter

import pytest
from conftest import MMCV_RULES_JSON, run_cli
from sdist import extract_subtree, fetch_sdist

pytestmark = pytest.mark.slow

IGNORES = ["common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu"]
VLLM = ("vllm", "0.4.2", "0b857f3084b507cbdd3bfcbaae19d171c55df9955eb3ac41c9c711768e852772")


def _port(src, out, *args):
    report = out.parent / (out.name + ".json")
    run_cli(src, "-o", out, "--report-json", report, "-q", *args, check=0)
    return json.loads(report.read_text())


def _build_macros(r: dict) -> list[str]:
    return [x["name"] for x in r["project_symbols"]["renamed"]
            if any(s["kind"] == "build macro" for s in x["sites"])]


def test_mmcv(tmp_path):
    src = extract_subtree(fetch_sdist("mmcv", "2.2.0"), "mmcv-2.2.0/mmcv/ops/csrc", tmp_path)
    args = ["--ignore", ",".join(IGNORES), "--rule", MMCV_RULES_JSON]
    keep = _port(src, tmp_path / "keep", *args, "--keep-paths")
    counts = Counter(d["id"] for d in keep["diagnostics"])
    # Point 7: the arch thresholds, each reported; MP2003 keeps the 3 version comparisons
    # it was not about (MUSA_VERSION < 9000 twice, < 10020 once) and, since issue 25,
    # parrots_cuda_helper.hpp's test of nvcc's own version (__CUDACC_VER_MAJOR__ >= 9).
    assert keep["families"].get("arch") == counts["MP2008"] == 6
    assert counts["MP2003"] == 4
    assert "#if __MUSA_ARCH__ >= 210" in (tmp_path / "keep/pytorch/cuda/bbox_overlaps_cuda.mu").read_text()
    # Points 1, 2, 3, 6: nothing to do in mmcv.
    assert "mutlass" not in keep["families"] and "strings" not in keep["families"]
    assert counts["MP1009"] == 0 and not _build_macros(keep) and not keep["renamed_paths"]
    assert len(keep["project_symbols"]["renamed"]) == 322  # as main (issue 27 keeps one exported)

    default = _port(src, tmp_path / "default", *args)
    renamed = {x["path"]: x["output"] for x in default["renamed_paths"]}
    assert {p: o for p, o in renamed.items() if "." not in p} == {
        "common/cuda": "common/musa", "pytorch/cuda": "pytorch/musa"}
    assert len(renamed) == 107
    assert default["families"]["includes"] - keep["families"]["includes"] == 164
    assert {k: v for k, v in default["families"].items() if k != "includes"} == \
        {k: v for k, v in keep["families"].items() if k != "includes"}


def test_vllm(tmp_path):
    name, version, sha256 = VLLM
    with tarfile.open(fetch_sdist(name, version, sha256)) as tf:
        tf.extractall(tmp_path, filter="data")
    src = tmp_path / f"{name}-{version}"
    keep = _port(src, tmp_path / "keep", "--keep-paths")
    counts = Counter(d["id"] for d in keep["diagnostics"])
    arch = Counter(d["source_file"].rsplit(".", 1)[-1] for d in keep["diagnostics"]
                   if d["id"] in ("MP2008", "MP3104"))  # sources, build files
    assert keep["families"]["arch"] == 25 and arch == {"cuh": 19, "cu": 6, "cmake": 3}
    assert counts["MP2003"] == 2  # the two comparisons with one CUDA arch (== 750)
    (lib,) = [d for d in keep["diagnostics"] if d["id"] == "MP1009"]
    assert (lib["source_file"], lib["text"]) == ("vllm/utils.py", "libmccl.so.2")
    assert 'find_library("libmccl.so.2")' in (tmp_path / "keep/vllm/utils.py").read_text()
    assert not _build_macros(keep) and "mutlass" not in keep["families"]

    default = _port(src, tmp_path / "default")
    assert {x["path"]: x["output"] for x in default["renamed_paths"]} == {
        "csrc/cuda_compat.h": "csrc/musa_compat.h",
        "csrc/cuda_utils.h": "csrc/musa_utils.h",
        "csrc/cuda_utils_kernels.cu": "csrc/musa_utils_kernels.mu",
        "csrc/quantization/fp8/fp8_cuda_kernels.cu": "csrc/quantization/fp8/fp8_musa_kernels.mu",
        "csrc/quantization/marlin/marlin_cuda_kernel.cu":
            "csrc/quantization/marlin/marlin_musa_kernel.mu",
        "csrc/quantization/squeezellm/quant_cuda_kernel.cu":
            "csrc/quantization/squeezellm/quant_musa_kernel.mu"}
    cmake = (tmp_path / "default/CMakeLists.txt").read_text()
    assert '"csrc/musa_utils_kernels.mu"' in cmake and "cuda_utils" not in cmake
    assert default["families"]["includes"] - keep["families"]["includes"] == 9
