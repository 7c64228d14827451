"""MP22xx: library calls that need more than a rename (analyze/library_calls.py)."""

from __future__ import annotations

from .model import Check

_FAMILY = "library-calls"

CHECKS = (
    Check("MP2201", "blas-call", "warning", False,
          "A cuBLAS call with data, compute and algorithm enums (`cublasGemmEx`, "
          "`cublasGemmStridedBatchedEx`, `cublasSgemmEx`...) or a cuBLASLt matmul call, or "
          "one whose arguments the vendor's tables do not name (`CUDA_R_8F_E4M3`, "
          "`CUBLASLT_MATMUL_DESC_A_SCALE_POINTER`): the message names the MUSA call and what "
          "changes.",
          "cublasGemmEx(h, ta, tb, m, n, k, &a, A, CUDA_R_16F, lda, B, CUDA_R_16F, ldb, &b, C, "
          "CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);",
          family=_FAMILY,
          why="muBLAS keeps cuBLAS's names, but torch_musa calls only its typed GEMMs "
              "(`mublasSgemm`, `mublasDgemm`, `mublasCgemm`, `mublasZgemm` and their "
              "`StridedBatched` forms) and creates muBLASLt handles without calling a muBLASLt "
              "matmul; the tensor-op algorithms number NVIDIA's kernels; enums the vendor's "
              "tables leave out (FP8 types, scale attributes) came from the naming rules.",
          instead="Call the typed GEMM of the data type (`mublasSgemm` for float, or convert "
                  "half inputs to float), use `MUBLAS_GEMM_DEFAULT` for the algorithm, and keep "
                  "cuBLASLt-only features (FP8 scales, epilogues) out of the MUSA build unless "
                  "your SDK's `mublasLt.h` declares them.",
          fixed="mublasSgemm(h, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);"),
    Check("MP2202", "nccl-call", "warning", False,
          "An NCCL call, type or option whose MCCL name torch_musa's own code does not use "
          "(`ncclCommInitRankConfig`, `ncclConfig_t`, `NCCL_CONFIG_INITIALIZER`, "
          "`ncclCommSplit`, `ncclCommRegister`, `ncclMemAlloc`): the message names the MCCL "
          "calls torch_musa makes.",
          "ncclCommInitRankConfig(&comm, nranks, id, rank, &config);", family=_FAMILY,
          why="MCCL's names are NCCL's with the prefix changed, but MCCL follows an older "
              "NCCL: the newer options (non-blocking communicators, splits, buffer "
              "registration, NCCL's allocator) may be missing.",
          instead="Use the calls torch_musa's ProcessGroupMCCL makes (`mcclCommInitRank`, "
                  "`mcclCommAbort`, `mcclGroupStart`/`mcclGroupEnd`, the collectives, "
                  "`mcclSend`/`mcclRecv`), or guard the newer ones with MCCL's version "
                  "(`MCCL_MAJOR`, `MCCL_MINOR`).",
          fixed="mcclCommInitRank(&comm, nranks, id, rank);"),
    Check("MP2203", "tensor-device-check", "note", False,
          "A tensor's or device's `is_cuda()` (`x.is_cuda()`, `x.device().is_cuda()`, "
          "`x.options().device().is_cuda()`), renamed to `is_musa()`, torch_musa's own "
          "spelling, which a stock torch's `at::Tensor` and `c10::Device` do not declare. "
          "Only calls: a field named `is_cuda` is left alone.",
          'TORCH_CHECK(x.device().is_cuda(), "x must be a CUDA tensor");',
          family=_FAMILY,
          why="torch_musa's C++ sources call `is_musa()`, but a stock torch's headers "
              "(`ATen/core/TensorBase.h`, `c10/core/Device.h`) declare `is_cuda()` and "
              "`is_privateuseone()`, no `is_musa()`: torch_musa registers MUSA as the "
              "`PrivateUse1` device type. Built against a torch without the member, the "
              "renamed check does not compile, and human porters often rewrite it; hence a "
              "note at each call rather than a warning.",
          instead="Write `.is_privateuseone()`, or compare `.device().type()` with "
                  "`at::musa::kMUSA` (torch_musa's name for `c10::DeviceType::PrivateUse1`).",
          fixed='TORCH_CHECK(x.device().is_privateuseone(), "x must be a MUSA tensor");'),
    Check("MP2204", "dnn-call", "warning", False,
          "A cuDNN call, type or enum renamed to a muDNN C name (`cudnnConvolutionForward` -> "
          "`mudnnConvolutionForward`, `cudnnTensorDescriptor_t`) that torch_musa's own sources "
          "do not use: they call muDNN through its C++ API (`muHandle`, `muTensor`, `mudnn`, "
          "`torch_musa/csrc/aten/mudnn/Handle.h`). One finding per line.",
          "cudnnConvolutionForward(h, &a, xd, x, wd, w, cd, algo, ws, n, &b, yd, y);",
          family=_FAMILY,
          why="The vendor's naming table renames cuDNN's names by prefix, but the muDNN code "
              "torch_musa ships is written against muDNN's C++ classes: a C name with the "
              "prefix changed may not be declared by your SDK's `mudnn.h`, and human porters "
              "rewrite cuDNN calls with muDNN's operators (or call torch's op instead).",
          instead="Call the torch op the cuDNN code implements (`at::conv2d`, `at::batch_norm`), "
                  "which torch_musa routes to muDNN, or write the call with muDNN's C++ operator "
                  "classes as torch_musa's `aten/mudnn` code does."),
)
