"""SimplePorting writes the tree torch_musa's SimplePorting writes, but for the bugs it
fixes (docs/simple-porting.md, "Compatible with torch_musa").

torch_musa's SimplePorting cannot be installed here, so the tree it writes for each call
is worked out by ``torch_musa_model.py`` from its documented behaviour and its own tables
(``../shared/data/torch_musa/mapping/*.json``): plain ``str.replace`` of every rule,
longest key first, on every file. Each case below is a small tree and a call that uses
every argument of ``SimplePorting`` between them (positional and keyword, a list and a
JSON string, a path with a trailing slash, the default tables and none, a mapping
folder); musa-port's tree must be the model's with the fixes the page lists, and each of
those fixes must change the model's tree on some case (or torch_musa stops), so every
listed difference is one a user sees.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import make_tree, skip_or_fail_in_ci
from torch_musa_model import FIXES, Call, Crash, port, vendor_ready

from musa_porting import SimplePorting

MANUAL_RULES = {  # the torch_musa manual's mmcv rules
    "_CU_H_": "_MU_H_", "_CUH": "_MUH", "__NVCC__": "__MUSACC__", "MMCV_WITH_CUDA": "MMCV_WITH_MUSA",
    "AT_DISPATCH_FLOATING_TYPES_AND_HALF": "AT_DISPATCH_FLOATING_TYPES",
    "#include <ATen/cuda/CUDAContext.h>": '#include "torch_musa/csrc/aten/musa/MUSAContext.h"',
    "#include <c10/cuda/CUDAGuard.h>": '#include "torch_musa/csrc/core/MUSAGuard.h"',
    "::cuda::": "::musa::", "/cuda/": "/musa/", ", CUDA,": ", PrivateUse1,", ".cuh": ".muh",
    ".is_cuda()": ".is_privateuseone()",
}
MANUAL_TREE = {
    "csrc/common/cuda/box_iou_cuda.cuh": """\
#ifndef BOX_IOU_CUDA_CUH
#define BOX_IOU_CUDA_CUH
#include <cuda_runtime.h>  // cuda_runtime.h declares the launch API
#include "common_cuda_helper.cuh"

template <typename T>
__global__ void box_iou_cuda_kernel(const T* boxes, T* ious, int n) {
  // Accumulate the IoU of each box, then execute the reduction
  CUDA_1D_KERNEL_LOOP(i, n) { ious[i] = accumulate(boxes, i); }
}
#endif  // BOX_IOU_CUDA_CUH
""",
    "csrc/common/cuda/common_cuda_helper.cuh": """\
#ifndef COMMON_CUDA_HELPER_CU_H_
#define COMMON_CUDA_HELPER_CU_H_
#include <cuda.h>
#define CUDA_1D_KERNEL_LOOP(i, n) \\
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define THREADS_PER_BLOCK 512
// torch_musa's general table renames nv_half (-> mt_half) as it does __nv_half: here too
#define HALF_CAST(nv_half, x) static_cast<nv_half>(x)
#define TO_HALF(x) HALF_CAST(nv_half, x)
#ifdef __NVCC__
#define HOST_DEVICE __host__ __device__
#endif
template <typename T>
__device__ T accumulate(const T* v, int i) { return v[i] + v[i + 1]; }
#endif
""",
    "csrc/pytorch/cuda/box_iou_cuda.cu": """\
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include "../../common/cuda/box_iou_cuda.cuh"
#include "pytorch_cuda_helper.hpp"

void BoxIouCUDAKernelLauncher(const Tensor boxes, Tensor ious) {
  at::cuda::CUDAGuard device_guard(boxes.device());
  const c10::cuda::OptionalCUDAGuard other_guard(ious.device());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  TORCH_CHECK(boxes.is_cuda(), "boxes must be a CUDA tensor");
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(boxes.scalar_type(), "box_iou_cuda", [&] {
    box_iou_cuda_kernel<scalar_t><<<4, THREADS_PER_BLOCK, 0, stream>>>(
        boxes.data_ptr<scalar_t>(), ious.data_ptr<scalar_t>(), boxes.size(0));
  });
  AT_CUDA_CHECK(cudaGetLastError());
  __nv_bfloat16 one = __float2bfloat16(1.f);
  if (CUDA_VERSION >= 12000) cudaDeviceSynchronize();
}
""",
    "csrc/pytorch/cuda/pytorch_cuda_helper.hpp": """\
#ifndef PYTORCH_CUDA_HELPER
#define PYTORCH_CUDA_HELPER
#include <ATen/ATen.h>
#include <THC/THCAtomics.cuh>
using at::Tensor;
#endif  // PYTORCH_CUDA_HELPER
""",
    "csrc/pytorch/box_iou.cpp": """\
#include "pytorch_cpp_helper.hpp"

void box_iou_impl(Tensor boxes, Tensor ious) { DISPATCH_DEVICE_IMPL(box_iou_impl, boxes, ious); }
#ifdef MMCV_WITH_CUDA
void box_iou_cuda(Tensor boxes, Tensor ious);
REGISTER_DEVICE_IMPL(box_iou_impl, CUDA, box_iou_cuda);
#endif
""",
    "csrc/pytorch/pytorch_cpp_helper.hpp": """\
#pragma once
#include <torch/extension.h>
#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
using at::Tensor;
""",
    "csrc/common/mlu/box_iou_mlu.cpp": "// MLU only: cudaMalloc is not here\n",
    "csrc/common/mlu/kernels/box_iou_mlu_kernel.mlu": "__mlu_global__ void k() {}  // cu\n",
    "csrc/Makefile": "all:\n\tnvcc -c pytorch/cuda/box_iou_cuda.cu -o box_iou.o  # accumulate\n",
    "csrc/LICENSE": "Copyright (c) OpenMMLab. Documented, accurate, secure code.\n",
    "csrc/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR cudaMalloc \x00\xff",
}
VLLM_RULES = {  # text rules of the vLLM forks' shape
    ".advance_offset": ".template advance_offset",
    "x.device().is_cuda()": "true",
    "nv_half": "__half",
    "at::cuda::getCurrentCUDAStream()": "at::cuda::getCurrentMUSAStream()",
    "at::cuda": "at::musa",  # rewrites what the longer rule wrote, as torch_musa does
    "cudaStream_t": "musaStream_t",
}
VLLM_TREE = {
    "csrc/attention/attention_kernels.cu": """\
#include <cuda_fp16.h>
#include "attention_utils.cuh"
#include "../cuda_compat.h"

__device__ void load(Smem smem) {
  smem.advance_offset_by_column<4>(0);
  smem.advance_offset_by_row<2>(1);
  smem.advance_offset(8);
}

void paged_attention(torch::Tensor& x, torch::Tensor& g_idx) {
  TORCH_CHECK(x.device().is_cuda());
  TORCH_CHECK(g_idx.device().is_cuda(), "g_idx");
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  __nv_half h = __float2half(0.f);
  nv_half k = h;
  CUDA_CHECK(cudaMemcpyAsync(x.data_ptr(), g_idx.data_ptr(), 4, cudaMemcpyDeviceToDevice, stream));
}
""",
    "csrc/attention/attention_utils.cuh": "#pragma once\n#define WARP_SIZE 32\n",
    # No rule's key is here: the include still follows the renamed header.
    "csrc/attention/attention_dtypes.h": '#pragma once\n#include "attention_utils.cuh"\n',
    "csrc/cuda_compat.h": "#pragma once\n#define SHFL(var, lane) __shfl_sync(uint32_t(-1), var, lane)\n",
    "csrc/quantization/lut.bin": b"\x00\x01\x02cudaStream_t\x00",
    "musa_rules/vllm.json": json.dumps({"#include <cuda_fp16.h>": "#include <musa_fp16.h>",
                                        "CUDA_CHECK": "MUSA_CHECK"}),
    # torch_musa does not read a general.json of mapping_dir_path; musa-port does.
    "musa_rules/general.json": json.dumps({"cudaMemcpyAsync": "musaMemcpyAsync"}),
}

README_TREE = {
    "csrc/ops.cu": """\
#include <cub/cub.cuh>
#include "ops.cuh"

void run(const float* cu_seqlens, int n) {
  float* p;
  cudaMalloc(&p, n);  // Accumulate with cub
  AT_CUDA_CHECK(cudaGetLastError());
}
""",
    "csrc/ops.cuh": "#pragma once\nvoid run(const float* cu_seqlens, int n);\n",
    # The tree's own MUSA version of ops.cuh (a twin): kept as it is.
    "csrc/ops.muh": "#pragma once\n// for MUSA: musaStream_t where ops.cuh has cudaStream_t\n"
                    "void run(const float* cu_seqlens, int n);\n",
    "csrc/mlu/ops_mlu.cpp": "void run_mlu();\n",
    "csrc/mlu/cnnl/ops_cnnl.cpp": "void run_cnnl();  // accumulate\n",
}

CASES = {
    # The manual's call, positionally: SimplePorting(cuda_dir_path, ignore_dir_paths, mapping_rule)
    "manual": (MANUAL_TREE, Call("csrc", ["./csrc/common/mlu"], MANUAL_RULES), False),
    # vLLM's shape: a trailing slash, its rules as a JSON string, no default tables, a
    # mapping folder, as keywords.
    "vllm": (VLLM_TREE, Call("csrc/", [], VLLM_RULES, True, "musa_rules"), True),
    # The README's shape, both given as JSON strings: a rule for a default's key (torch_musa
    # let the default win) and a short one.
    "readme": (README_TREE, Call("csrc", ["csrc/mlu"], {"AT_CUDA_CHECK": "C10_MUSA_CHECK",
                                                         "cu": "mu"}), None),
}


@pytest.fixture(autouse=True)
def _vendor_data():
    if not vendor_ready():
        skip_or_fail_in_ci("torch_musa's tables are not at ../shared/data/torch_musa")


def files_under(folder) -> dict[str, bytes]:
    out = {}
    for dirpath, _, names in os.walk(folder):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), folder).replace(os.sep, "/")
            if not n.startswith(".musa-port") and not rel.startswith(".musa-port/"):
                with open(os.path.join(dirpath, n), "rb") as fh:
                    out[rel] = fh.read()
    return out


def run_simple_porting(call: Call, keywords: bool | None) -> None:
    if keywords is None:  # positional, as JSON strings
        SimplePorting(call.cuda_dir_path, json.dumps(call.ignore_dir_paths),
                      json.dumps(call.mapping_rule), quiet=True).run()
    elif keywords:
        SimplePorting(cuda_dir_path=call.cuda_dir_path, ignore_dir_paths=call.ignore_dir_paths,
                      mapping_rule=json.dumps(call.mapping_rule),
                      drop_default_mapping=call.drop_default_mapping,
                      mapping_dir_path=call.mapping_dir_path, quiet=True).run()
    else:
        SimplePorting(call.cuda_dir_path, call.ignore_dir_paths, call.mapping_rule,
                      quiet=True).run()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_tree_is_torch_musas_but_for_the_fixes(case, tmp_path, monkeypatch):
    tree, call, keywords = CASES[case]
    make_tree(tmp_path, tree)
    monkeypatch.chdir(tmp_path)
    run_simple_porting(call, keywords)
    out, expected = port(call, tmp_path, FIXES)
    got = files_under(tmp_path / out)
    assert sorted(got) == sorted(expected)
    for rel in expected:
        assert got[rel].decode("utf-8", "replace") == expected[rel].decode("utf-8", "replace"), rel


def test_every_fix_changes_what_torch_musa_writes(tmp_path):
    """Each difference the page lists shows on one of the cases: without that fix, the
    model's tree is another (or torch_musa stops, on a binary file)."""
    trees = {}
    for case, (tree, call, _) in CASES.items():
        make_tree(tmp_path / case, tree)
        trees[case] = port(call, tmp_path / case, FIXES)
    unseen = set()
    for fix in sorted(FIXES):
        for case, (_, call, _) in CASES.items():
            try:
                if port(call, tmp_path / case, FIXES - {fix}) != trees[case]:
                    break
            except Crash:
                break
        else:
            unseen.add(fix)
    assert not unseen
