"""Issue 35, point 5: the findings in a vendored Thrust, CUB or libcu++ are one summary
per library (MP2007) in the text views; the project's own files keep theirs. Issue 46:
the JSON and SARIF keep each finding of the library, as a note. A tree that *is* the
library gets its findings as its own."""

from __future__ import annotations

import shutil

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.report.counts import check_count, residual_count
from musa_porting.report.grouping import grouped_view
from musa_porting.report.json_report import report_dict

SRC = FIXTURES / "vendored_cccl" / "csrc"
# What a vendored CUB carries (its warp-level code: PTX, 32-lane masks, CUDA names)
WARP_CODE = """\
__device__ unsigned lane_id() {
  unsigned ret;
  asm("mov.u32 %0, %%laneid;" : "=r"(ret));
  return ret & 31;
}
__device__ int vote(bool p) { unsigned v = __ballot_sync(0xffffffff, p); return v; }
inline void check() { cudaFooCheck(); }
"""


def _tree(tmp_path):
    src = tmp_path / "csrc"
    shutil.copytree(SRC, src)
    (src / "third_party/cub/cub/warp").mkdir()
    (src / "third_party/cub/cub/warp/warp_utils.cuh").write_text(WARP_CODE)
    (src / "third_party/thrust/thrust/detail").mkdir()
    (src / "third_party/thrust/thrust/detail/shfl.h").write_text(WARP_CODE)
    (src / "ops/warp.cuh").write_text(WARP_CODE)  # the project's own copy of the same code
    return src


def _diags(r):
    return [(d["file"], d["id"], d["level"]) for d in report_dict(r)["diagnostics"]]


def test_each_vendored_library_is_one_summary(tmp_path):
    src = _tree(tmp_path)
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    found = _diags(r)
    lib = [f for f in found if f[0].startswith("third_party/")]
    # Each finding of a library is a note at its line (issue 46), beside one warning.
    assert [f for f in lib if f[2] != "note"] == [
        ("third_party/cub/cub/warp/warp_utils.cuh", "MP2007", "warning"),
        ("third_party/thrust/thrust/detail/shfl.h", "MP2007", "warning")]
    own = [f for f in found if f[0] == "ops/warp.muh"]
    assert {"MP2001", "MP2002", "MP1002"} <= {f[1] for f in own}  # the project's code
    for copy in ("third_party/cub/cub/warp/warp_utils.cuh", "third_party/thrust/thrust/detail/shfl.h"):
        assert [f[1] for f in lib if f[0] == copy and f[1] != "MP2007"] == [f[1] for f in own]
    # the text views show the one warning per library
    grouped = [(f.rel, d.id) for f in grouped_view(r).files for d in f.diagnostics
               if f.rel.startswith("third_party/")]
    assert grouped == [("third_party/cub/cub/warp/warp_utils.cuh", "MP2007"),
                       ("third_party/thrust/thrust/detail/shfl.h", "MP2007")]
    messages = [d["message"] for d in report_dict(r)["diagnostics"] if d["id"] == "MP2007"]
    assert "CUB" in messages[0] and "third_party/cub" in messages[0]
    assert "MP2001" in messages[0] and "muAlg" in messages[0]
    assert "Thrust" in messages[1] and "muThrust" in messages[1]
    # the residuals of a library do not fail --check; the project's do
    assert check_count(r) == 1  # ops/warp.cuh's cudaFooCheck
    assert residual_count(r) == 1
    # a re-run that ports nothing reports the same
    again = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    assert _diags(again) == found


def test_a_tree_that_is_the_library_gets_its_findings_one_by_one(tmp_path):
    src = _tree(tmp_path) / "third_party" / "cub"
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    ids = {f[1] for f in _diags(r)}
    assert "MP2007" not in ids and {"MP2001", "MP2002"} <= ids
