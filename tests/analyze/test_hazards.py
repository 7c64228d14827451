"""Porting hazards: the hand work a rename cannot do, found in patterns written after
public CUDA code (each case names the kind of project it comes from), with a near miss
per family that must not be flagged.

Files are ported in-process, one at a time, as ``musa-port k.cu`` does; the finding's
line is the source line (porting keeps line numbers).
"""

from __future__ import annotations

import pytest

from musa_porting.tree.options import PortOptions
from musa_porting.tree.single_file import FilePorter


@pytest.fixture(scope="module")
def hazards(tmp_path_factory):
    """hazards(code, name="k.cu", arch=("mp_22",)) -> [(id, text, line)] of MP2xxx,
    with each finding's message in ``hazards.messages``."""
    root = tmp_path_factory.mktemp("hz")
    porters: dict[tuple[str, ...], FilePorter] = {}

    def found(code: str, name: str = "k.cu", arch: tuple[str, ...] = ("mp_22",), ids="MP2"):
        path = root / name
        path.write_text(code)
        porter = porters.get(arch) or porters.setdefault(
            arch, FilePorter(PortOptions(src=str(root), arch=arch)))
        diags = [d for d in porter.port(str(path)).diagnostics if d.id.startswith(ids)]
        found.messages = [d.message for d in diags]
        return [(d.id, d.text, d.src_line) for d in diags]

    return found


# -- warp size (MP2002, MP2004) ---------------------------------------------------------------

@pytest.mark.parametrize("code, expected, lines", [
    # a PyTorch extension's reduction (mmcv's carafe and correlation kernels)
    ("#define WARP_SIZE 32\n#define FULL_MASK 0xffffffff\n",
     [("MP2002", "#define WARP_SIZE 32", 1)], "lines 1, 2"),
    # lane and warp ids of an attention or GEMM kernel
    ("__global__ void k(float* x) {\n  int lane = threadIdx.x & 31;\n"
     "  int warp_id = threadIdx.x / 32;\n  int row = thread_idx >> 5;  // / 32\n"
     "  int base = warp_id * 32;\n  if (threadIdx.x < 32) x[lane] = 0;\n}\n",
     [("MP2002", "& 31", 2)], "lines 2, 3, 4, 5, 6"),
    # warp-size constants of template libraries
    ("constexpr int kWarpSize = 32;\nstatic constexpr int THREADS_PER_WARP{32};\n",
     [("MP2002", "kWarpSize = 32", 1)], "lines 1, 2"),
    # a ballot kept in 32 bits (a warning), a full mask and a width of 32 (one note)
    ("__device__ int f(float v) {\n  unsigned vote = __ballot_sync(0xffffffff, v > 0);\n"
     "  return __shfl_sync(__activemask(), v, 0, 32);\n}\n",
     [("MP2002", "unsigned vote =", 2), ("MP2002", "0xffffffff", 2)], "lines 2, 3"),
    # cooperative groups in a reduction sample
    ("__device__ void f() {\n  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n}\n",
     [("MP2002", "tiled_partition<32>", 2)], "line 2"),
])
def test_warp_size_assumptions(hazards, code, expected, lines):
    """Each place is found; those that keep working on 128-lane warps are one note per
    file that lists their lines (tests/analyze/test_warp_precision.py: which warn)."""
    assert hazards(code) == expected
    assert lines in hazards.messages[-1]


def test_warp_size_near_misses_are_not_flagged(hazards):
    # a hash and a CRC in device code: 31 and 0xffffffff that are not lanes
    code = ("__device__ unsigned h(unsigned seed, int len) {\n"
            "  unsigned crc = 0xffffffff;\n  int32_t n = 32;\n  float buf[32];\n"
            "  int blocks = len / 32;\n  return seed ^ (len & 31) ^ crc;\n}\n"
            "unsigned long long all = 0xffffffffffffffffULL;\n")
    assert hazards(code) == []


def test_warp_size_follows_the_arch(hazards):
    code = "__device__ int f(bool p) { unsigned b = __ballot_sync(__activemask(), p); return b; }\n"
    assert hazards(code, arch=("mp_31",)) == []  # 32-lane warps: nothing to say
    assert hazards(code, arch=("mp_31", "mp_21")) == [("MP2002", "unsigned b =", 1)]
    assert "mp_21" in hazards.messages[0]


@pytest.mark.parametrize("code, expected", [
    # launches of a small-kernel extension (block sizes of 32 and 64)
    ("__global__ void k(float* x) {}\nvoid f(float* x) { k<<<10, 32>>>(x); }\n",
     [("MP2004", "32", 2)]),
    ("#define THREADS 96\n__global__ void k(float* x) {}\nvoid f(float* x) {\n"
     "  dim3 block(64);\n  k<<<10, block>>>(x);\n  k<<<10, THREADS, 0>>>(x);\n}\n",
     [("MP2004", "dim3 block(64)", 4), ("MP2004", "THREADS", 6)]),
    ("__global__ void __launch_bounds__(32) k(float* x) {}\n",
     [("MP2004", "__launch_bounds__(32)", 1)]),
    # near misses: multiples of 128, a serial kernel, a size not known here
    ("__global__ void k(float* x) {}\nvoid f(float* x, int n) {\n"
     "  k<<<1, 1>>>(x);\n  k<<<10, 256>>>(x);\n  k<<<10, dim3(32, 4)>>>(x);\n  k<<<10, n>>>(x);\n}\n",
     []),
])
def test_block_sizes(hazards, code, expected):
    assert hazards(code) == expected


# -- arch-specific device code (MP2001, MP2010-MP2014) ---------------------------------------

def test_inline_ptx_says_what_it_does(hazards):
    code = ('__device__ void f(unsigned* s, const void* g) {\n'
            '  asm volatile("bar.sync 0;");\n'  # a reduction kernel's barrier
            '  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};"'
            ' : "=f"(s[0]) : "r"(s[1]), "r"(s[2]), "f"(s[3]));\n'  # a tensor-core GEMM
            '  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: "r"(s[0]), "l"(g));\n'
            '  asm("mov.u32 %0, %%laneid;" : "=r"(s[0]));\n}\n')
    assert [h[:2] for h in hazards(code)] == [("MP2001", "asm volatile(")] * 3 + [("MP2001", "asm(")]
    barrier, mma, copy, lane = hazards.messages
    assert "barrier" in barrier and "__syncthreads()" in barrier
    assert "tensor-core" in mma and "cp.async" in copy and "special register" in lane


def test_inline_assembly_of_a_host_file_is_not_ptx(hazards):
    # a .cpp launcher's spin loop: x86 assembly, compiled by the host compiler only
    assert hazards('void spin() { asm volatile("pause"); }\n', name="spin.cpp") == []


@pytest.mark.parametrize("code, expected", [
    # FlashAttention-style kernels: WMMA fragments, CuTe atoms, Hopper warpgroups
    ("__device__ void f() {\n  nvcuda::wmma::fragment<wmma::matrix_a, 16, 16, 16, half> a;\n"
     "  using Atom = cute::SM80_16x8x16_F32F16F16F32_TN;\n  cute::warpgroup_arrive();\n}\n",
     [("MP2010", "wmma::", 2), ("MP2010", "SM80_16x8x16_F32F16F16F32_TN", 3),
      ("MP2010", "warpgroup_arrive", 4)]),
    # Ampere pipelines
    ("__device__ void f(float* s, const float* g) {\n"
     "  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();\n"
     "  __pipeline_memcpy_async(s, g, 16);\n  using Copy = SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>;\n}\n",
     [("MP2011", "cuda::pipeline", 2), ("MP2011", "__pipeline_memcpy_async", 3),
      ("MP2011", "SM80_CP_ASYNC_CACHEGLOBAL", 4)]),
    # GEMV and reduction libraries
    ("__device__ float f(const float* p, int i, int v) {\n  float x = __ldg(p + i);\n"
     "  int s = __reduce_add_sync(__activemask(), v);\n  __nanosleep(100);\n"
     "  return x + __dp4a(v, v, s);\n}\n",
     [("MP2012", "__ldg", 2), ("MP2013", "__reduce_add_sync", 3)]),  # notes: one per file
    # Hopper thread block clusters
    ("__global__ void __cluster_dims__(2, 1, 1) k(float* x) {\n"
     "  auto cluster = cg::this_cluster();\n  float* peer = cluster.map_shared_rank(x, 1);\n}\n",
     [("MP2014", "__cluster_dims__", 1), ("MP2014", "this_cluster", 2),
      ("MP2014", "map_shared_rank", 3)]),
])
def test_arch_specific_device_code(hazards, code, expected):
    assert hazards(code) == expected


def test_arch_specific_near_misses(hazards):
    # the project's own names that contain the words, and an unqualified pipeline
    code = ("struct my_wmma {};\nint __ldg_count = 0;\nint pipeline = 1;\n"
            "float __dp4a_emulated(int a);\nint my_cluster_group;\n#define BARRIER barrier\n")
    assert hazards(code) == []


# -- features MUSA lacks (MP21xx), from the tables -------------------------------------------

def test_features_the_vendor_does_not_name(hazards):
    # a serving runtime's graph capture, an old texture sample, a grid sync, a JIT loader
    code = ("void f(cudaGraphExec_t* e, cudaGraph_t g, cudaGraphInstantiateParams* p) {\n"
            "  cudaGraphInstantiateWithParams(e, g, p);\n  cudaGraphLaunch(*e, 0);\n}\n"
            "texture<float, 1, cudaReadModeElementType> tex;\n"
            "__global__ void k() { cg::grid_group grid = cg::this_grid(); grid.sync(); }\n"
            "void j(CUmodule* m, const char* ptx) { cuModuleLoadDataEx(m, ptx, 0, 0, 0); }\n"
            "int v(cudaFuncAttributes a) { return a.ptxVersion * 10; }\n")
    assert hazards(code) == [
        ("MP2101", "musaGraphInstantiateParams", 1),
        ("MP2101", "musaGraphInstantiateWithParams", 2),  # cudaGraphLaunch: the vendor's
        ("MP2102", "texture", 5),
        ("MP2103", "grid_group", 6),
        ("MP2108", "muModuleLoadDataEx", 7),
        ("MP2107", "ptxVersion", 8),
    ]
    assert "may not have it" in hazards.messages[1] and "was cudaGraphInstantiateWithParams" in \
        hazards.messages[1]


def test_features_near_misses(hazards):
    # what the vendor names (torch_musa's own graph and IPC calls), a texture object
    code = ("void f(cudaGraph_t g, cudaGraphExec_t e, cudaIpcMemHandle_t* h, void* p) {\n"
            "  cudaGraphInstantiate(&e, g, 0);\n  cudaIpcGetMemHandle(h, p);\n"
            "  cudaTextureObject_t t = 0; int texture = 3;\n}\n")
    assert hazards(code) == []


def test_an_unsupported_api_names_its_family(hazards):
    # nvrtc has no MUSA form: a residual, whose message says what to do
    found = hazards('void f(nvrtcProgram* p) { nvrtcCreateProgram(p, "", 0, 0, 0, 0); }\n',
                    ids="MP1001")
    assert [h[1] for h in found] == ["nvrtcProgram", "nvrtcCreateProgram"]
    assert "run-time compilation" in hazards.messages[1] and "mcc" in hazards.messages[1]


# -- version and arch checks (MP2003) --------------------------------------------------------

def test_arch_comparisons_give_the_musa_value(hazards):
    """An ordering against a CUDA arch number is ported to the MUSA value the brief's
    table gives (issue 26: >= 800 is >= 220, >= 900 is >= 310, below that every MUSA
    arch) and reported as that choice (MP2008), not as a CUDA number carried over; an
    equality names one NVIDIA arch, which no MUSA arch is, and stays MP2003."""
    code = ("#if __CUDA_ARCH__ >= 800\n#endif\n#if __CUDA_ARCH__ >= 900\n#endif\n"
            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600\n#endif\n"
            "#if __CUDA_ARCH__ == 750\n#endif\n")
    assert [h for h in hazards(code, ids="MP") if h[0] in ("MP2003", "MP2008")] == [
        ("MP2008", "800", 1), ("MP2008", "900", 3), ("MP2008", "600", 5),
        ("MP2003", "__MUSA_ARCH__ == 750", 7)]
    ampere, hopper, old, turing = hazards.messages
    assert "became __MUSA_ARCH__ 220" in ampere and "became __MUSA_ARCH__ 310" in hopper
    assert "became __MUSA_ARCH__ 210" in old
    assert "never true" in turing and "sm_75" in turing


@pytest.mark.parametrize("code, text", [
    ("#if CUDA_VERSION >= 11000\n#endif\n", "MUSA_VERSION >= 11000"),  # PyTorch extensions
    ("#if __CUDACC_VER_MAJOR__ >= 12\n#endif\n", "__CUDACC_VER_MAJOR__ >= 12"),  # vLLM-style
    ("#if CUB_PTX_ARCH >= 700\n#endif\n", "CUB_PTX_ARCH >= 700"),  # CUB
    # CUTLASS (the mutlass family renames the prefix; MUSA still has no SM80 MMA)
    ("#if defined(CUTLASS_ARCH_MMA_SM80_ENABLED)\n#endif\n", "MUTLASS_ARCH_MMA_SM80_ENABLED"),
    ("#ifdef __CUDA_ARCH_FEAT_SM90_ALL\n#endif\n", "__CUDA_ARCH_FEAT_SM90_ALL"),  # Hopper
    ("#if 800 == __CUDA_ARCH__\n#endif\n", "800 == __MUSA_ARCH__"),
])
def test_version_checks(hazards, code, text):
    assert [h[:2] for h in hazards(code)] == [("MP2003", text)]


def test_version_check_near_misses(hazards):
    # no comparison; MUSA's own numbers written by hand; an include guard; a project macro
    code = ("#ifdef __CUDA_ARCH__\n#endif\n#if __MUSA_ARCH__ >= 220\n#endif\n"
            "#ifndef __SM_30_INTRINSICS_H__\n#endif\n#if MY_CUDA_VERSION >= 3\n#endif\n")
    assert hazards(code) == []


# -- shared memory (MP2005) ------------------------------------------------------------------

UPFIRDN = """\
// StyleGAN2's upfirdn2d as mmcv ships it: tile sizes are template arguments
template <class T> struct InternalType;
template <> struct InternalType<double> { typedef double scalar_t; };
template <class T, int up, int down, int filterW, int filterH, int tileOutW, int tileOutH>
static __global__ void small_kernel(const T* x) {
  typedef typename InternalType<T>::scalar_t scalar_t;
  const int tileInW = ((tileOutW - 1) * down + filterW - 1) / up + 1;
  const int tileInH = ((tileOutH - 1) * down + filterH - 1) / up + 1;
  __shared__ volatile scalar_t sf[filterH][filterW];
  __shared__ volatile scalar_t sx[tileInH][tileInW];
}
template <class T> void* choose(int fx) {
  if (fx <= 8) return (void*)small_kernel<T, 1, 1, 8, 8, 32, 32>;
  return (void*)small_kernel<T, 1, 1, 24, 24, 64, 32>;
}
"""


def test_shared_memory_of_template_instantiations(hazards):
    assert hazards(UPFIRDN, arch=("mp_21",), ids="MP2005") == [
        ("MP2005", "__shared__ volatile scalar_t sx[tileInH][tileInW]", 10)]
    message = hazards.messages[0]
    # the larger instantiation: (31+23+1) x (63+23+1) doubles + 24 x 24 doubles
    assert "42,888 bytes" in message and "28,672 bytes" in message
    assert "small_kernel<T, 1, 1, 24, 24, 64, 32> (line 14)" in message
    assert "mp_21" in message and "double" in message


@pytest.mark.parametrize("code, expected", [
    # a transpose tile in double through #define and constexpr
    ("#define TILE 64\n__global__ void k() {\n  __shared__ double tile[TILE][TILE];\n}\n",
     [("MP2005", "__shared__ double tile[TILE][TILE]", 3)]),
    # FlashAttention-style kernels raise dynamic shared memory above 48 KB
    ("__global__ void k() {}\nvoid f() {\n"
     "  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304);\n}\n",
     [("MP2005", "98304", 3)]),
    # near misses: a tile that fits, dynamic shared memory, a HIP-only branch
    ("constexpr int TILE = 32;\n__global__ void k() {\n  __shared__ float t[TILE][TILE + 1];\n"
     "  extern __shared__ double dyn[];\n#ifdef USE_ROCM\n  __shared__ double big[8192];\n#endif\n}\n",
     []),
])
def test_shared_memory(hazards, code, expected):
    assert hazards(code, ids="MP2005") == expected


def test_shared_memory_limit_is_said_per_arch(hazards):
    code = "__global__ void k() {\n  __shared__ float t[8192];\n}\n"
    hazards(code, arch=("mp_21",))
    assert "32,768 bytes" in hazards.messages[0] and "the limit of mp_21 (MTT S80/S3000)" in \
        hazards.messages[0]
    hazards(code, arch=("mp_22",))
    assert "assumed for mp_22" in hazards.messages[0]


# -- double precision (MP2006) ----------------------------------------------------------------

def test_double_precision_once_per_file(hazards):
    # mmcv's convex IoU: several device functions compute in double
    code = ("__device__ double cross(double a, double b) { return a * b; }\n"
            "__device__ float area(const float* p) { double s = 0; return (float)s; }\n"
            "void host_only() { double x = 1.0; }\n"
            "template <typename scalar_t> __global__ void k(scalar_t* x) { x[0] *= 2; }\n")
    assert hazards(code, arch=("mp_21",)) == [("MP2006", "double", 1)]
    assert "and 1 more device functions" in hazards.messages[0]
    assert "mp_21" in hazards.messages[0]


def test_double_in_host_code_only_is_not_flagged(hazards):
    assert hazards("void stats(const float* x, int n) { double s = 0; }\n") == []


# -- where hazards are not reported ------------------------------------------------------------

def test_host_only_code_gets_no_device_hazards(hazards):
    # a header used by host and device code (the pattern of PyTorch's and CCCL's headers)
    code = ("#ifndef __CUDA_ARCH__\n__device__ int f() { return threadIdx.x & 31; }\n"
            "#else\n__device__ int g() { return threadIdx.x & 31; }\n#endif\n"
            "#ifdef __CUDA_ARCH__\n#else\nint h(int lane) { return lane & 31; }\n#endif\n")
    assert hazards(code, name="k.cuh") == [("MP2002", "& 31", 4)]
    # a host .cpp file: device hazards no, a version check yes
    host = ("int lane(int tid) { return tid & 31; }\n#if CUDA_VERSION >= 11000\n#endif\n")
    assert [h[0] for h in hazards(host, name="ops.cpp")] == ["MP2003"]


def test_a_macro_body_is_reported_once_at_its_definition(hazards):
    # a warp reduction written as a macro (older CUDA samples)
    code = ("#define WARP_REDUCE(v) \\\n  v += __shfl_down_sync(0xffffffff, v, 16); \\\n"
            "  v += __shfl_down_sync(0xffffffff, v, 8)\n"
            "__device__ float f(float v) { WARP_REDUCE(v); WARP_REDUCE(v); return v; }\n")
    assert hazards(code) == [("MP2002", "0xffffffff", 2)]


def test_version_checks_say_when_musa_takes_the_current_branch(hazards):
    # mmcv's scatter_points and parrots helpers: branches for CUDA < 9 and sm < 2.0
    found = hazards("#if CUDA_VERSION < 9000\n#endif\n#if __CUDA_ARCH__ < 200\n#endif\n"
                    "#if CUDA_VERSION >= 12080\n#endif\n")
    # __CUDA_ARCH__ < 200 is ported, and reported as that choice (MP2008)
    assert [h[0] for h in found] == ["MP2003", "MP2008", "MP2003"]
    old_toolkit, _arch, new_toolkit = hazards.messages
    assert "current CUDA toolkit" in old_toolkit and "likely meant" in old_toolkit
    assert "likely meant" not in new_toolkit  # true with CUDA 12.8+, never with MUSA's 5.x


def test_a_finding_in_a_macro_lands_on_its_argument(hazards):
    # Marlin-style launch macros (vLLM's quantized GEMMs): the argument on its own line
    code = ("#define LAUNCH(K, SMEM) \\\n"
            "  cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, \\\n"
            "                       SMEM)\n")
    assert hazards(code) == [("MP2005", "SMEM", 3)]


def test_a_template_argument_of_32_is_not_a_lane_count(hazards):
    # CUB's tuning policies: a 32 given to a template, with a comment after it
    code = ("using P = AgentSubWarpMergeSortPolicy<32 /* threads per segment */, 4>;\n"
            "__device__ bool first_warp() { return threadIdx.x < 32; }\n")
    assert hazards(code) == [("MP2002", "< 32", 2)]


def test_a_name_two_checks_know_is_reported_once(hazards):
    # a JIT loader asking for a kernel's PTX version (driver API code)
    code = "int v(CUfunction k, int* v) { return cuFuncGetAttribute(v, CU_FUNC_ATTRIBUTE_PTX_VERSION, k); }\n"
    assert hazards(code, name="jit.cpp") == [("MP2107", "MU_FUNC_ATTRIBUTE_PTX_VERSION", 1)]
    assert "MUSA kernels are not PTX" in hazards.messages[0]


def test_shared_memory_of_repeated_kernels_costs_their_number(hazards, monkeypatch):
    """A file that spells one template kernel n times (a generated or amalgamated source)
    is sized in work linear in n: every copy's instantiations were sized for every copy,
    n^2 (a 50 MB file of repeated kernels took minutes). Counted, not timed."""
    from musa_porting.analyze import shared_memory as sm

    calls = {"n": 0}
    for name in ("_bind", "size"):
        original = getattr(sm._Kernel, name)

        def counted(self, *args, _original=original):
            calls["n"] += 1
            return _original(self, *args)
        monkeypatch.setattr(sm._Kernel, name, counted)

    def cost(copies: int) -> int:
        calls["n"] = 0
        found = hazards(UPFIRDN * copies, arch=("mp_21",), ids="MP2005")
        assert len(found) == copies  # each copy is still reported, at its own line
        assert len({line for _, _, line in found}) == copies
        return calls["n"]

    assert cost(40) <= 12 * cost(4)
