"""Issue 35, point 1-3: the hand work porters do on projects we have not seen, by class,
on ``fixtures/hand_work`` (one folder per class, each file naming the kind of project
it comes from, each with a near miss that must not fire). The tree is ported once."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.analyze.include_findings import include_findings
from musa_porting.analyze.offsets import EditMap
from musa_porting.port.cxx import lexer
from musa_porting.report.json_report import report_dict

SRC = FIXTURES / "hand_work"
# The IDs of the classes (and the hazards they sit beside).
IDS = ("MP1013", "MP1011", "MP1012", "MP2015", "MP2016", "MP2106", "MP2109", "MP2110", "MP2111",
       "MP2113", "MP2114", "MP2201", "MP2202")


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    out = tmp_path_factory.mktemp("hw") / "out"
    r = port_tree(PortOptions(src=str(SRC), output=str(out), jobs=1))
    diags = report_dict(r)["diagnostics"]
    outputs = {f.rel: f.out_rel for f in r.files}

    class Port:
        def found(self, rel: str) -> set[tuple[str, int]]:
            return {(d["id"], d["line"]) for d in diags if d["source_file"] == rel and d["id"] in IDS}

        def messages(self, rel: str, cid: str) -> list[str]:
            return [d["message"] for d in diags if d["source_file"] == rel and d["id"] == cid]

        def diags(self, rel: str) -> list[dict]:
            return [d for d in diags if d["source_file"] == rel]

        def level(self, cid: str) -> set[str]:
            return {d["level"] for d in diags if d["id"] == cid}

        def text(self, rel: str) -> str:
            return (out / outputs[rel]).read_text()

    return Port()


def test_device_tests_on_tensors_are_ported(port):
    text = port.text("device_tests/dispatch.cpp")
    assert "if (a.is_musa())" in text and "out.device().is_musa()" in text
    assert "} else if (a.is_musa()) {" in text  # a.type().is_cuda(): no is_musa on a type
    assert port.found("device_tests/dispatch.cpp") == {("MP1013", 4), ("MP1012", 16)}
    assert "torch_musa" in port.messages("device_tests/dispatch.cpp", "MP1012")[0]
    assert port.found("device_tests/near_miss.cpp") == set()
    # PyTorch's names the tree defines itself are the tree's: no MP1012
    assert port.found("device_tests/own_loop.cuh") == set()
    assert port.found("device_tests/own_loop_user.cu") == set()
    assert "MUSA_KERNEL_LOOP(i, n)" in port.text("device_tests/own_loop_user.cu")


def test_library_calls_name_the_musa_call_and_what_changes(port):
    assert port.found("library_calls/blas.cu") == {("MP2201", 9), ("MP2201", 14), ("MP2201", 17)}
    gemm, scale, layout = port.messages("library_calls/blas.cu", "MP2201")
    assert "mublasGemmEx" in gemm and "mublasSgemm" in gemm and "MUBLAS_GEMM_DEFAULT_TENSOR_OP" in gemm
    assert "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER" in scale and "vendor" in scale
    assert "CUDA_R_8F_E4M3" in layout
    assert port.found("library_calls/comm.cpp") == {("MP2202", 7), ("MP2202", 9), ("MP2202", 11)}
    assert "mcclCommInitRank" in port.messages("library_calls/comm.cpp", "MP2202")[1]


def test_features_musa_lacks_are_found_where_they_are_called(port):
    assert port.found("missing_features/ep.cu") == {
        ("MP2109", n) for n in (3, 4, 7, 8, 12, 13, 14, 15)}
    assert port.level("MP2109") == {"error"}
    assert port.found("missing_features/allocator.cpp") == {
        ("MP2111", 7), ("MP2111", 8), *(("MP2110", n) for n in (9, 10, 11, 13, 14, 16, 17)),
        ("MP2106", 23)}
    assert "muMemCreate" in port.messages("missing_features/allocator.cpp", "MP2110")[4]
    # the MUPTI header, which the vendor's tables name but no MUSA source includes
    assert port.found("missing_features/profiler.cpp") == {
        ("MP1013", 3), *(("MP2114", n) for n in (5, 9, 10, 11, 12, 13))}
    assert port.found("missing_features/groups.cu") == {
        ("MP1013", 4), ("MP2113", 10), ("MP2113", 11), ("MP2113", 12)}


def test_enable_macros_are_a_warning_once_per_file_and_a_note_at_each_other_gate(port):
    assert port.found("enable_macros/csrc/vision.cpp") == {("MP1011", 4), ("MP1011", 9)}
    assert [d["level"] for d in port.diags("enable_macros/csrc/vision.cpp")
            if d["id"] == "MP1011"] == ["warning", "note"]
    assert port.found("enable_macros/csrc/nms.cpp") == {("MP1011", 8)}
    assert port.found("enable_macros/csrc/nms_kernel.cu") == set()
    message = port.messages("enable_macros/csrc/vision.cpp", "MP1011")[0]
    assert "WITH_MUSA" in message and "setup.py" in message and "WITH_CUDA" in message


def test_a_gate_no_build_defines_is_found_where_it_stands(port):
    """An indented gate further down, on a macro no build file defines: found at its
    line (not at a #define or a comment that spell the same words), and the message
    says the MUSA build must define it."""
    assert port.found("enable_macros/csrc/backend.cpp") == {("MP1011", 10)}
    message = port.messages("enable_macros/csrc/backend.cpp", "MP1011")[0]
    assert "MYLIB_ENABLE_CUDA" in message and "no build file" in message


def test_include_reshuffles(port):
    assert port.found("includes/kernels.cu") == {("MP1013", n) for n in (3, 4, 5, 6, 7)}
    pipeline = port.messages("includes/kernels.cu", "MP1013")[0]
    assert "musa_pipeline.h" in pipeline


def test_arch_tuning_tables_and_low_precision_types(port):
    assert port.found("arch_tuning/policy.cuh") == {("MP2015", n) for n in (6, 7, 9, 10, 12, 15, 16)}
    assert port.found("arch_tuning/fp8.cu") == {("MP2016", 5), ("MP2016", 6), ("MP2016", 8)}
    # the type's first use is the warning, its use again a note
    assert [d["level"] for d in port.diags("arch_tuning/fp8.cu") if d["id"] == "MP2016"] == \
        ["warning", "warning", "note"]


def test_legacy_torch_and_nvml_calls_without_a_musa_form_are_errors(port):
    """THC (gone from PyTorch 1.11) and NVML calls MTML has no counterpart for, as the
    legacy_torch and nvml tables mark them: each call an MP1001 error with the table's
    note of what to write; a project's THCOUNT or nvml_handle is not one."""
    found = {(d["id"], d["line"], d["level"], d["text"]) for d in port.diags("legacy_apis/roi_pool.cu")
             if d["id"] in ("MP1001", "MP1002")}
    assert found == {("MP1001", 7, "error", "THCState"), ("MP1001", 10, "error", "THCState_getCurrentStream"),
                     ("MP1001", 11, "error", "THCudaMalloc"), ("MP1001", 12, "error", "THCudaFree"),
                     ("MP1002", 16, "warning", "nvmlDevice_t"),
                     ("MP1001", 18, "error", "nvmlDeviceGetClockInfo"),
                     ("MP1002", 18, "warning", "NVML_CLOCK_SM")}
    messages = port.messages("legacy_apis/roi_pool.cu", "MP1001")
    assert any("getCurrentMUSAStream" in m for m in messages)
    assert any("mtmlGpuGetClock" in m for m in messages)
    assert not [d for d in port.diags("legacy_apis/near_miss.cpp") if d["id"] in ("MP1001", "MP1002")]


def test_only_includes_a_finding_is_about_are_looked_up_in_the_tree():
    """Whether an include is a file of the tree (a path resolution each) is asked only of
    the includes a finding would be about: most of a file's includes are fine, and asking
    of each cost a cold port of 2,000 files a share of its time."""
    src = b'#include <vector>\n#include "kernels/common.h"\n#include <mma.h>\n#include <nvshmem.h>\n'
    asked: list[str] = []

    def ours(inc) -> bool:
        asked.append(inc.target)
        return inc.target == "mma.h"  # a file of the tree that happens to be called so

    found = list(include_findings(lexer.includes(src), EditMap([]), ours))
    assert [(f[1], f[2]) for f in found] == [("MP2109", "nvshmem.h")]
    assert asked == ["mma.h", "nvshmem.h"]
