"""Issue 35, point 5: MP2002 warns only where a 32-lane idiom breaks on 128-lane warps
(a ballot kept in 32 bits, a mask that must cover the warp, warpSize compared with 32,
32-lane ids mixed with warpSize, a broadcast from a lane of the whole warp, a per-warp
array of 32 indexed by a lane of 128); the idioms that keep working (masks passed to
*_sync calls, shuffles within groups of 32, lane ids of such groups) are one note per
file. MP2012 and MP2013, left as they are in MUSA ports that run, are one note per file.
Each case names the kind of project its pattern comes from."""

from __future__ import annotations

import pytest

from musa_porting.analyze.notes import grouped
from musa_porting.tree.options import PortOptions
from musa_porting.tree.single_file import FilePorter


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """found(code) -> [(id, level, text, line)] of MP20xx as the summary shows them
    (messages in found.messages; every place in found.sites)."""
    root = tmp_path_factory.mktemp("warp")
    porter = FilePorter(PortOptions(src=str(root), arch=("mp_22",)))

    def run(code: str, name: str = "k.cu"):
        (root / name).write_text(code)
        every = [d for d in porter.port(str(root / name)).diagnostics if d.id.startswith("MP20")]
        run.sites = [(d.id, d.level, d.src_line) for d in every]  # each place its own finding
        diags = grouped(every)  # as the summary shows them
        run.messages = [d.message for d in diags]
        return [(d.id, d.level, d.text, d.src_line) for d in diags]

    return run


# A PyTorch extension's warp reduction in groups of 32 (mmcv's carafe and correlation
# kernels): every step stays inside a group of 32 lanes, which a 128-lane warp holds four
# of. Nothing breaks: one note for the file.
GROUPS_OF_32 = """\
#define WARP_SIZE 32
#define FULL_MASK 0xffffffff
__device__ float reduce(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}
__global__ void k(float* out, const float* x) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  float v = reduce(x[threadIdx.x]);
  v = __shfl_xor_sync(0xffffffff, v, 16, 32);
  if (lane == 0) out[warp] = v;
}
"""


def test_idioms_that_hold_in_groups_of_32_are_one_note(found):
    got = found(GROUPS_OF_32)
    assert [g[:2] for g in got] == [("MP2002", "note")]
    assert got[0][3] == 1  # at the first place
    message = found.messages[0]
    for line in (2, 9, 10, 12):
        assert str(line) in message
        assert ("MP2002", "note", line) in found.sites  # and a note of its own at each
    assert "no change" in message


@pytest.mark.parametrize("code, expected", [
    # a stream compaction (CUB-style warp scans): the ballot kept in 32 bits
    ("__device__ int f(bool p) {\n  unsigned vote = __ballot_sync(0xffffffff, p);\n"
     "  return __popc(vote);\n}\n",
     [("MP2002", "warning", "unsigned vote =", 2)]),
    # a count of a warp's votes in a 32-bit popcount (a top-k sampler)
    ("__device__ int f(bool p) { return __popc(__ballot_sync(0xffffffff, p)); }\n",
     [("MP2002", "warning", "__popc(__ballot_sync", 1)]),
    # a fast path when the whole warp is active (a sparse kernel)
    ("__device__ void f(float* x) {\n  if (__activemask() == 0xffffffff) x[0] = 1;\n}\n",
     [("MP2002", "warning", "== 0xffffffff", 2)]),
    # a guard of a library's warp-level path (a GEMV kernel)
    ("__device__ void f(float* x) {\n  if (warpSize != 32) return;\n  x[0] = 0;\n}\n",
     [("MP2002", "warning", "warpSize != 32", 2)]),
    # 32-lane ids beside warpSize, which is 128 here (an attention kernel's softmax)
    ("__device__ float f(float v) {\n  int lane = threadIdx.x % 32;\n"
     "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
     "  return lane ? 0 : v;\n}\n",
     [("MP2002", "warning", "% 32", 2)]),
    # a warp-per-row kernel broadcasting its group's sum from lane 0 (a layer norm)
    ("__device__ float f(float v) {\n  int lane = threadIdx.x & 31;\n"
     "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
     "  v = __shfl_sync(0xffffffff, v, 0);\n  return lane ? v : 0;\n}\n",
     [("MP2002", "warning", "__shfl_sync(0xffffffff, v, 0)", 4)]),
    # a block reduction keeping one slot per warp in 32 slots, lanes from warpSize
    ("__device__ float f(float v) {\n  __shared__ float shared[32];\n"
     "  int lane = threadIdx.x % warpSize;\n  shared[lane] = v;\n  return shared[0];\n}\n",
     [("MP2002", "warning", "shared[lane]", 4)]),
])
def test_idioms_that_break_on_128_lane_warps_warn(found, code, expected):
    assert [g for g in found(code) if g[1] == "warning"] == expected


@pytest.mark.parametrize("code, expected", [
    # PyTorch's WARP_BALLOT, copied into extensions: a ballot returned in 32 bits
    ("__device__ __forceinline__ unsigned int WARP_BALLOT(int p, unsigned int mask = 0xffffffff) {\n"
     "  return __ballot_sync(mask, p);\n}\n",
     [("MP2002", "warning", "unsigned int WARP_BALLOT", 1)]),
    # a project's ballot macro, its result kept in 32 bits by the caller (a top-k kernel)
    ("#define BALLOT(p) __ballot_sync(uint32_t(-1), p)\n"
     "__device__ int f(bool p) {\n  unsigned int hits = BALLOT(p);\n  return __popc(hits);\n}\n",
     [("MP2002", "warning", "unsigned int hits =", 3)]),
])
def test_ballots_behind_a_project_wrapper(found, code, expected):
    assert [g for g in found(code) if g[1] == "warning"] == expected


def test_a_wrapper_that_keeps_the_ballot_in_64_bits_is_no_warning(found):
    code = ("__device__ unsigned long long WARP_BALLOT(int p) { return __ballot_sync(~0u, p); }\n"
            "#define BALLOT(p) __ballot_sync(__activemask(), p)\n"
            "__device__ unsigned long long g(bool p) { unsigned long long v = BALLOT(p); return v; }\n")
    assert [g for g in found(code) if g[1] == "warning"] == []


def test_near_misses_of_the_breaking_idioms(found):
    # a 64-bit ballot, a width-limited broadcast, a hash compared with a full mask, an
    # array of 32 indexed by a lane of 32
    code = ("__device__ unsigned long long f(bool p, float v, unsigned h) {\n"
            "  unsigned long long vote = __ballot_sync(__activemask(), p);\n"
            "  v = __shfl_sync(__activemask(), v, 0, 32);\n"
            "  if (h == 0xffffffffu) return 0;\n"
            "  __shared__ float s[32];\n  s[threadIdx.x & 31] = v;\n  return vote;\n}\n")
    assert [g for g in found(code) if g[1] == "warning"] == []
    # the warp size read and used alone, with nothing counted in 32s: no finding at all
    code = ("__device__ float g(float v) {\n  int n = blockDim.x / warpSize;\n"
            "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(__activemask(), v, o);\n"
            "  return v * n;\n}\n")
    assert found(code) == []


def test_cache_hints_and_newer_intrinsics_are_one_note_each(found):
    # a GEMV kernel's read-only loads and a quantized dot product
    code = ("__device__ int f(const float* p, const int* q, int i) {\n"
            "  float a = __ldg(p + i);\n  float b = __ldg(p + i + 1);\n"
            "  int c = __dp4a(q[0], q[1], 0);\n  __nanosleep(10);\n"
            "  return a + b + c + __ldcs(q + 2);\n}\n")
    got = found(code)
    assert [g[:2] + (g[3],) for g in got] == [("MP2012", "note", 2), ("MP2013", "note", 4)]
    hints, newer = found.messages
    assert "in this file: 3 (lines 2, 3, 6" in hints
    assert "in this file: 2" in newer and "__nanosleep" in newer
    assert found.sites == [("MP2012", "note", 2), ("MP2012", "note", 3), ("MP2013", "note", 4),
                           ("MP2013", "note", 5), ("MP2012", "note", 6)]
