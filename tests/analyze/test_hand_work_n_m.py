"""Issue 46, the class table: n:m rewrites a rename does not settle, found at the line
porters rewrite and nowhere else, on ``fixtures/hand_work_n_m`` (three unrelated
projects: a point-cloud extension, an attention-kernel library, an old detection
extension), each with near misses that must stay silent:

- a tensor's or device's ``is_cuda()`` call (MP2203), not a field named ``is_cuda``;
- a device's compute capability compared with a number (MP2009), not the same fields
  printed, nor another struct's ``major``;
- an include the port made the same as an earlier one (MP1014), not a header the source
  includes twice, nor two headers that stay two on MUSA;
- a cuDNN name renamed to a muDNN C name torch_musa's code does not use (MP2204), not
  the handle type torch_musa's code has (``mudnnHandle_t``);
- nvcc's own pragmas (MP1015), the guard above them within a line, not ``#pragma once``,
  ``unroll``, ``pack`` nor a pragma in a comment."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.report.json_report import report_dict
from musa_porting.report.sarif import sarif_dict

SRC = FIXTURES / "hand_work_n_m"
IDS = ("MP1014", "MP1015", "MP2009", "MP2203", "MP2204")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("nm") / "out"
    return port_tree(PortOptions(src=str(SRC), output=str(out), jobs=1, dry_run=True))


def _found(result, check_id):
    return sorted((d["source_file"], d["source_line"]) for d in report_dict(result)["diagnostics"]
                  if d["id"] == check_id)


def test_is_cuda_calls_are_found_where_they_are_called(result):
    assert _found(result, "MP2203") == [
        ("pointnet_ext/csrc/ball_query.cpp", 6),  # centers.is_cuda()
        ("pointnet_ext/csrc/ball_query.cpp", 8),  # other->is_cuda()
        ("pointnet_ext/csrc/utils.h", 5),  # x.device().is_cuda() in a CHECK_ macro
    ]  # not the field (utils.h 9) nor its assignment (ball_query.cpp 9)
    found = [d for d in report_dict(result)["diagnostics"] if d["id"] == "MP2203"]
    msg = found[0]["message"]
    assert "is_privateuseone()" in msg and "kMUSA" in msg
    # A note, not a warning: the table's rename is torch_musa's own spelling (its sources
    # call is_musa()), so the check points at the site without failing --check=warning.
    assert {d["level"] for d in found} == {"note"}
    assert "torch_musa" in msg


def test_compute_capability_comparisons_but_not_prints_or_other_versions(result):
    assert _found(result, "MP2009") == [
        ("attn_kernels/src/dispatch.cu", 11),  # prop.major >= 8
        ("attn_kernels/src/dispatch.cu", 18),  # cc_major * 10 + cc_minor (attribute-filled)
        ("attn_kernels/src/driver_probe.cpp", 8),  # the driver's attribute, major == 9
        ("attn_kernels/src/driver_probe.cpp", 9),  # minor >= 0 (not where they are queried)
        ("attn_kernels/src/torch_side.cpp", 6),  # props->major == 9 (torch's query)
    ]  # not the printf of prop.major (10), nor LibVersion's v.major >= 2 (21)


def test_headers_merged_on_musa_leave_one_note_at_the_second_include(result):
    assert _found(result, "MP1014") == [
        ("legacy_roi/src/roi_align.cu", 3),  # THC/THC.h after ATen/cuda/CUDAContext.h
        ("legacy_roi/src/roi_align.cu", 5),  # cublas_v2.h after cublas.h
    ]  # not nms.cu's own double include, nor cuda_runtime.h beside cuda_runtime_api.h
    d = next(d for d in report_dict(result)["diagnostics"] if d["id"] == "MP1014")
    assert d["level"] == "note" and "line 2" in d["message"] and "ATen/cuda/CUDAContext.h" in d["message"]


def test_cudnn_calls_but_not_the_handle_torch_musa_has(result):
    assert _found(result, "MP2204") == [("legacy_roi/src/conv_dnn.cpp", n) for n in (5, 6, 7, 10)]
    msg = next(d["message"] for d in report_dict(result)["diagnostics"] if d["id"] == "MP2204")
    assert "mudnnTensorDescriptor_t" in msg and "muHandle" in msg


def test_nvcc_pragmas_but_not_the_pragmas_every_compiler_has(result):
    assert _found(result, "MP1015") == [
        ("tensor_math/include/host_device.h", 4),  # nv_diag_suppress under #if defined(__NVCC__)
        ("tensor_math/include/host_device.h", 18),  # hd_warning_disable (not the comment, 17)
        ("tensor_math/src/reduce.cu", 4),  # diag_suppress, the older spelling
        ("tensor_math/src/reduce.cu", 11),  # nv_exec_check_disable
    ]
    diags = report_dict(result)["diagnostics"]
    # one finding per pragma: the pragma's word is no unknown CUDA name besides
    assert not [d for d in diags if d["id"] == "MP1002" and "tensor_math" in d["source_file"]]
    assert {d["level"] for d in diags if d["id"] == "MP1015"} == {"note"}


def test_each_site_is_its_own_sarif_result(result):
    results = sarif_dict(result)["runs"][0]["results"]
    per_site = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
                      for r in results if r["ruleId"] in IDS)
    assert per_site == sorted([("MP2203", 6), ("MP2203", 8), ("MP2203", 5), ("MP2009", 11),
                               ("MP2009", 18), ("MP2009", 6), ("MP2009", 8), ("MP2009", 9),
                               ("MP1014", 3), ("MP1014", 5),
                               *(("MP2204", n) for n in (5, 6, 7, 10)),
                               ("MP1015", 4), ("MP1015", 18), ("MP1015", 4), ("MP1015", 11)])


def test_arch_specific_intrinsics_at_each_call_and_nowhere_else(result):
    """The class table's arch-specific intrinsics, on three more unrelated projects (an int8
    GEMV, a header-only warp-reduction library, a stencil app with cooperative groups): the
    existing families (MP2011 async copies, MP2012 cache hints, MP2013 newer warp
    intrinsics) fire at every call, one finding per site; a host helper, a project type and
    a string that spell the same words stay silent."""
    arch = {"MP2011", "MP2012", "MP2013"}
    diags = report_dict(result)["diagnostics"]
    found = sorted((d["source_file"], d["source_line"], d["id"]) for d in diags
                   if d["id"] in arch and d["source_file"].split("/")[0]
                   in ("quant_ops", "reduce_lib", "stencil_app"))
    assert found == [
        ("quant_ops/csrc/int8_gemv.cu", 8, "MP2012"),  # __ldg
        ("quant_ops/csrc/int8_gemv.cu", 8, "MP2013"),  # __dp4a
        ("reduce_lib/include/warp_reduce.cuh", 6, "MP2013"),  # __reduce_add_sync
        ("reduce_lib/include/warp_reduce.cuh", 14, "MP2013"),  # __match_any_sync
        ("stencil_app/src/stencil.cu", 9, "MP2011"),  # cg::memcpy_async
        ("stencil_app/src/stencil.cu", 12, "MP2013"),  # __nanosleep
    ]
    near_misses = {("quant_ops/csrc/int8_gemv.cu", 14), ("reduce_lib/include/warp_reduce.cuh", 17),
                   ("reduce_lib/include/warp_reduce.cuh", 18), ("stencil_app/src/stencil.cu", 17)}
    assert not [d for d in diags if (d["source_file"], d["source_line"]) in near_misses]
