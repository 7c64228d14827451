"""MP20xx: device code that ports by name but not in meaning (porting hazards)."""

from __future__ import annotations

from .model import Check

CHECKS = (
    Check("MP2001", "inline-ptx", "warning", False,
          "Inline assembly (PTX) does not run on MUSA; the message says what the PTX does "
          "(a barrier, a shuffle, a tensor-core `mma`, an async copy, ...).",
          'asm volatile("bar.sync 0;");', family="arch-specific", device=True,
          why="mcc does not assemble PTX, NVIDIA's virtual ISA: the file stops compiling, or "
              "behind an `#if` another path is compiled silently.",
          instead="Write the operation in MUSA C++ (`bar.sync` -> `__syncthreads()`, "
                  "`shfl.sync` -> `__shfl_sync`, `ld.global.nc` -> a plain load; `mma`, "
                  "`ldmatrix`, `cp.async` -> MUTLASS atoms or plain shared-memory code), and "
                  "keep the PTX under `#ifndef __MUSACC__` for the CUDA build.",
          fixed="__syncthreads();"),
    Check("MP2002", "warp-size-32", "warning", False,
          "Code assumes a warp of 32 lanes where a 128-lane warp breaks it (a warning): a "
          "ballot or `__match_any_sync` kept in 32 bits or counted by `__popc`, a mask compared "
          "with the full 32-bit one, `warpSize` compared with 32, lane or warp ids of 32 "
          "(`& 31`, `>> 5`, `% 32`, `WARP_SIZE 32`) in a file that also counts with "
          "`warpSize`, a shuffle from a lane of the whole warp in a file of 32-lane groups, a "
          "per-warp array of 32 slots indexed by a lane of `warpSize`. The 32-lane idioms that "
          "keep working (a full mask passed to a `*_sync` call, lane ids, shuffles of width 32 "
          "and `tiled_partition<32>` within groups of 32 lanes) are one note per file.",
          "unsigned vote = __ballot_sync(0xffffffff, p);", family="warp-size", device=True,
          lower="a 32-lane idiom keeps working in a 128-lane warp (one note per file)",
          why="MUSA warps are 128 lanes wide on mp_21 and mp_22 (32 on mp_31). A 128-lane warp "
              "holds four groups of 32 lanes, so a warp-level step that stays in its group "
              "computes the same; but a ballot of 128 lanes does not fit in 32 bits, a full "
              "warp never equals a 32-bit mask, `warpSize` is 128 where the code counts 32, "
              "and lane 0 of the whole warp is not lane 0 of each group.",
          instead="Keep warp masks in 64 bits or more (or count each group of 32 apart), "
                  "compare with `__activemask()`, count with one warp size throughout (32-lane "
                  "groups, or `warpSize` with a constant chosen per arch: `__MUSA_ARCH__ < 310` "
                  "-> 128), and pass a width of 32 to a shuffle that reads one lane of its "
                  "group. With `--arch mp_31` (32-lane warps) none is reported.",
          fixed="unsigned long long vote = __ballot_sync(__activemask(), p);"),
    Check("MP2003", "version-comparison", "warning", False,
          "A CUDA version or arch number is compared (`CUDA_VERSION`, `CUDART_VERSION`, "
          "`__CUDA_ARCH__`, `__CUDA_ARCH_LIST__`, `__CUDACC_VER_MAJOR__`, `CUB_PTX_ARCH`, an "
          "`SMxx` macro in `#if`); the message gives the MUSA value that corresponds, where "
          "one is known.",
          "#if __CUDA_ARCH__ >= 800", family="version-checks",
          why="A rename keeps the number: `__MUSA_ARCH__` is 210, 220 or 310 and `MUSA_VERSION` "
              "is numbered like 50200, so `__MUSA_ARCH__ >= 800` is never true and "
              "`MUSA_VERSION >= 11000` always is. The other branch is compiled, silently.",
          instead="Compare with MUSA's numbers: a CUDA arch `>= 800` corresponds to "
                  "`__MUSA_ARCH__ >= 220`, `>= 900` to `>= 310`; test `__MUSACC__` or MUSA "
                  "releases instead of nvcc versions.",
          fixed="#if __MUSA_ARCH__ >= 220"),
    Check("MP2008", "arch-number", "warning", False,
          "A CUDA arch number ordered against `__CUDA_ARCH__` in a source became the MUSA value "
          "of musa-port's table (`>= 800` is `>= 220`, `>= 900` is `>= 310`, below 800 every "
          "MUSA arch), as Moore Threads' own code (MUTLASS, torch_musa) compares "
          "`__MUSA_ARCH__`.", "#if __CUDA_ARCH__ >= 800", family="version-checks",
          why="`__MUSA_ARCH__` is 210, 220 or 310 (mp_21, mp_22, mp_31): a CUDA number kept "
              "beside it selects the other branch on every MUSA GPU, and the table's choice of "
              "MUSA arch for a CUDA threshold is a judgement, not a fact of either platform.",
          instead="Read the branch the MUSA value selects and check that its code suits the "
                  "MUSA GPUs you build for (mp_21 is MTT S80/S3000, mp_22 MTT S4000, mp_31 "
                  "MTT S5000); write the threshold your code needs if it is another one.",
          fixed="#if __MUSA_ARCH__ >= 220"),
    Check("MP2004", "block-size", "warning", False,
          "A thread block of a constant size that is not a multiple of 128 (`<<<g, 32>>>`, "
          "`dim3 block(64)`, `__launch_bounds__(32)`).",
          "kernel<<<blocks, 32>>>(x);", family="warp-size", device=True,
          why="A MUSA warp has 128 lanes on mp_21 and mp_22: a block of 32 or 64 threads leaves "
              "the rest of its warp idle, and code that counts a block's warps as "
              "`blockDim.x / 32` counts wrong.",
          instead="Launch blocks of a multiple of 128 threads where the kernel allows it (a "
                  "parameter, or a size per arch), and check its warp-level code (MP2002).",
          fixed="kernel<<<blocks, 128>>>(x);"),
    Check("MP2005", "shared-memory-limit", "warning", False,
          "Static `__shared__` arrays whose constant size (through `#define`, `constexpr` and "
          "the kernel's template arguments) exceeds the per-kernel limit of the `--arch`, or "
          "dynamic shared memory raised above it (`cudaFuncSetAttribute(k, "
          "cudaFuncAttributeMaxDynamicSharedMemorySize, N)`).",
          "__shared__ double tile[64][64];", family="shared-memory", device=True,
          why="mcc refuses the kernel: `shared memory (42984) exceeds limit (28672)` for "
              "mmcv's upfirdn2d on mp_21 (MTT S80/S3000), as the torch_musa manual shows; "
              "dynamic shared memory above the limit fails at launch.",
          instead="Shrink the tile (fewer rows or columns per block), keep it in `float` "
                  "rather than `double`, or move the buffer to global memory; raise dynamic "
                  "shared memory only within the limit.",
          fixed="__shared__ float tile[64][64];  // 16,384 bytes"),
    Check("MP2006", "double-precision", "warning", False,
          "`double` arithmetic in device code (one finding per file, where its first device "
          "function uses it; the message counts the others).",
          "__global__ void scale(double* x) { x[0] *= 0.5; }", family="double-precision",
          device=True,
          why="On mp_21 (MTT S80/S3000) fp64 must be enabled for the build (the torch_musa "
              "manual's mmcv port needed it) and runs at a small fraction of fp32 speed; the "
              "other MUSA arches may be slow in fp64 too.",
          instead="Use `float` where the precision allows (accumulate in `float`, or compensate "
                  "with a second float), or keep `double` and enable fp64 for mp_21 builds.",
          fixed="__global__ void scale(float* x) { x[0] *= 0.5f; }"),
    Check("MP2007", "vendored-library", "warning", False,
          "A copy of Thrust, CUB or libcu++ in the tree (a folder holding `thrust/version.h`, "
          "`cub/cub.cuh`, `cuda/std/...`): its findings are one finding per library, which "
          "counts them by ID, not one per line.",
          "third_party/cub/cub/warp/specializations/warp_reduce_shfl.cuh",
          family="vendored-libraries",
          why="MUSA's SDK has drop-ins for Thrust and CUB under the same names (muThrust, "
              "muAlg): a project's copy is rather replaced than ported line by line, and its "
              "thousands of inline-PTX and warp findings would bury the project's own.",
          instead="Build against the MUSA SDK's Thrust and CUB (drop the copy from the include "
                  "path), or port the copy's folder on its own to see its findings one by "
                  "one."),
    Check("MP2010", "tensor-core", "warning", False,
          "Tensor-core code written for NVIDIA's shapes: `nvcuda::wmma` fragments, "
          "CUTLASS/CuTe SM75-SM90 MMA and copy atoms (`SM80_16x8x16_F32F16F16F32_TN`, "
          "`SM90_*`), `warpgroup_*` and GMMA.",
          "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;",
          family="arch-specific", device=True,
          why="MUSA's matrix units have other shapes and another interface: there is no 1:1 "
              "counterpart, and renaming `cute::` to `mute::` keeps NVIDIA's atoms.",
          instead="Use MUTLASS (`mute::`) with its MUSA atoms, muBLAS or muDNN for the whole "
                  "operation, or a SIMT path for MUSA."),
    Check("MP2011", "async-copy", "warning", False,
          "Asynchronous copies and their barriers: `cuda::pipeline`, `cuda::memcpy_async`, "
          "`__pipeline_memcpy_async`, `cooperative_groups::memcpy_async`, `cuda::barrier`, TMA "
          "(`CUtensorMap`, `SM90_TMA_*`).",
          "cuda::memcpy_async(block, smem, gmem, bytes, pipe);", family="arch-specific",
          device=True,
          why="They drive sm_80 and sm_90 copy engines (cp.async, TMA) that MUSA does not "
              "expose through these APIs: no equivalent.",
          instead="Copy into shared memory with plain loads and stores, then `__syncthreads()`; "
                  "or MUTLASS's MUSA copy atoms.",
          fixed="smem[threadIdx.x] = gmem[threadIdx.x]; __syncthreads();"),
    Check("MP2012", "cache-hint-load", "note", False,
          "Loads and stores with NVIDIA cache hints: `__ldg`, `__ldcg`, `__ldca`, `__ldcs`, "
          "`__ldlu`, `__ldcv`, `__stcg`, `__stcs`, `__stwb`, `__stwt` (one note per file).",
          "float v = __ldg(ptr + i);", family="arch-specific", device=True,
          why="They name NVIDIA's cache operators (the read-only data cache for `__ldg`). MUSA "
              "ports of real projects that run leave them as they are: a hint changes speed, "
              "not results, and mcc reports one it lacks.",
          instead="Nothing, as a rule; where mcc reports one missing, a plain load through a "
                  "`const T* __restrict__` pointer, which lets the compiler take the read-only "
                  "path.",
          fixed="float v = ptr[i];"),
    Check("MP2013", "newer-warp-intrinsic", "note", False,
          "Intrinsics of newer NVIDIA arches: `__match_any_sync` and `__match_all_sync` "
          "(sm_70), `__reduce_*_sync` (sm_80), `__nanosleep` (sm_70), `__dp4a` and "
          "`__dp2a_*` (sm_61) (one note per file; a match result kept in 32 bits is MP2002).",
          "int sum = __reduce_add_sync(0xffffffff, v);", family="arch-specific", device=True,
          why="MUSA ports of real projects that run leave them as they are (or behind an arch "
              "check that picks another path); where mcc lacks one, the compile error names "
              "it.",
          instead="Nothing, as a rule; where mcc reports one missing, write it out: "
                  "`__reduce_add_sync` as a `__shfl_xor_sync` butterfly, "
                  "`__match_any_sync` as a loop of `__shfl_sync` and `__ballot_sync`, `__dp4a` "
                  "as four byte products, `__nanosleep` as a bounded spin."),
    Check("MP2015", "arch-tuning", "warning", False,
          "Code keyed on NVIDIA arches: tuning policies and tables selected by an sm number "
          "(`Policy<sm80>`, `typelist<sm60, sm80>`, `struct sm70 {}`), and the Hopper helpers "
          "of CUTLASS 3 kernels (`elect_one_sync`, `canonical_warp_idx_sync`, "
          "`canonical_warp_group_idx`).",
          "template <> struct Policy<sm80> { static constexpr int kThreads = 512; };",
          family="arch-specific",
          why="No MUSA arch is an sm number: the policy a MUSA build picks is a fallback tuned "
              "for another GPU (32-lane warps, other shared memory), and the Hopper helpers "
              "drive warp-specialized code MUSA does not run.",
          instead="Add a policy for the MUSA arches you target (mp_21/mp_22: 128-lane warps, "
                  "blocks in multiples of 128) and select it under `__MUSACC__`; write the "
                  "warp-specialized path as a plain one, or use MUTLASS's MUSA kernels."),
    Check("MP2016", "low-precision-type", "warning", False,
          "An fp16/bf16/fp8/fp6/fp4 type or conversion the port renamed to a MUSA name the "
          "vendor's tables do not give (`__nv_cvt_float2_to_fp8x2` -> "
          "`__mt_cvt_float2_to_fp8x2`, `__nv_fp8x2_storage_t`, `__nv_bfloat16_raw`), at its "
          "first use in a file.",
          "out[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);",
          family="arch-specific",
          why="The vendor's tables name only some of these (`__mt_bfloat16`, `__mt_fp8_e4m3`, "
              "`__mt_fp8_e5m2`): the rest came from the naming rules, and MUSA's "
              "`musa_fp8.h`/`musa_bf16.h` may not declare them.",
          instead="Convert through the types the vendor names (`__mt_fp8_e4m3(x)`, "
                  "`float(__mt_bfloat16)`), or write the conversion out; check your MUSA SDK's "
                  "headers for the name."),
    Check("MP2014", "thread-block-cluster", "warning", False,
          "Thread block clusters and distributed shared memory (sm_90): `__cluster_dims__`, "
          "`cooperative_groups::this_cluster()`, `cluster_group`, `map_shared_rank`, cluster "
          "launch attributes.",
          "__global__ void __cluster_dims__(2, 1, 1) k(float* x);", family="arch-specific",
          device=True,
          why="MUSA has no thread block clusters: no equivalent.",
          instead="Give each block its own part of the work and exchange data between blocks "
                  "through global memory (a second kernel, or atomics)."),
)
