"""Curated names the header-driven rules cannot derive, each with its source.

The generator (``generate.py``) derives most entries mechanically: the API prefix at
the start of an identifier changes and the rest stays (``cublasSgemm_v2 ->
mublasSgemm_v2``). What is here is the knowledge that does not follow from the CUDA
headers alone:

- ``PREFIXES``: the prefix pairs themselves, per family (``nccl -> mccl`` and
  ``npp -> mtpp`` are not a ``cu -> mu`` swap);
- ``FP16_BF16``, ``PREFIX_NAMES``, ``HEADERS``, ``MACROS``, ``NVCC_MACROS``,
  ``PYTORCH``: whole names;
- ``VENDOR_EXCEPTIONS``: the few entries of Moore Threads' tables musa-port does not
  follow, each with its reason (everything else the vendor maps wins over the rules).

Every item carries ``source``, one line saying where the fact comes from, for users
to check: Moore Threads' own CUDA -> MUSA tables in the torch_musa repository
(``GENERAL``, ``INCLUDE``, ``DNN``, ``DNN_HEADER``: mapping/*.json there), the names
torch_musa's own C++ sources use (``TORCH_MUSA_CODE``), its Python package
(``TORCH_MUSA_PY``), or, where no public source states the name, musa-port's own table
(``OWN``, saying what the name follows). Items whose ``status`` is not ``supported`` are
plausible but unverified (``unknown``) or known to have no MUSA form (``unsupported``,
usually without a ``musa`` name: reported, never rewritten).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.project import KEPT_LIBRARY_PREFIX


@dataclass(frozen=True)
class Name:
    """One curated CUDA -> MUSA name."""

    cuda: str
    musa: str | None
    source: str  # where the fact comes from, one line (the entry's source: "curated: ...")
    status: str = "supported"
    note: str = ""  # shown to users: written to the table entry
    # When several CUDA names map to one MUSA name, the one `musa-port --reverse` restores.
    primary: bool = False
    kind: str = "type"  # function, type, constant or macro: for coverage.md's counts


@dataclass(frozen=True)
class Prefix:
    """An API prefix rule: ``cuda`` at the start of a name becomes ``musa``.

    ``follow`` is the set of characters that may come right after the prefix (so the
    ``cu`` rule does not take ``curand``'s names, and ``cuda`` does not take
    ``cudart_...``); ``bare`` allows the prefix as the whole name (``curand``).
    ``status``/``note`` override the family's default for names this rule derives.
    """

    cuda: str
    musa: str | None
    source: str
    follow: str = "A-Za-z0-9_"
    bare: bool = False
    status: str | None = None
    note: str = ""


# Public sources of the curated facts (the repository MooreThreads/torch_musa, whose
# data the generator reads from --vendor; BSD-3-Clause, see mapping/NOTICE).
GENERAL = "torch_musa mapping/general.json"
INCLUDE = "torch_musa mapping/include.json"
DNN = "torch_musa mapping/dnn-naming.json"
DNN_HEADER = "torch_musa mapping/dnn-header.json"
TORCH_MUSA_CODE = "torch_musa's C++ sources"
TORCH_MUSA_PY = "torch_musa's Python package"
OWN = "musa-port's own table"

# --------------------------------------------------------------------------------------
# Prefix rules, per family. Longer prefixes are tried first.
# --------------------------------------------------------------------------------------

CUDA_RUNTIME = (
    # Any character may follow (cudalibraryHostUniversalFunctionAndDataTable, CUDAlogLevel_enum);
    # a name starting with cuda/CUDA never falls back to the shorter cu/CU rule.
    Prefix("cuda", "musa", f"{GENERAL}: cudaMalloc -> musaMalloc, cudaStream_t -> musaStream_t"),
    Prefix("CUDA", "MUSA", f"{GENERAL}: CUDA_R_16F -> MUSA_R_16F"),
)
MAKE_CUDA = Prefix(
    "make_cuda", "make_musa", "runtime helper (driver_functions.h): make_cudaExtent; prefix inside the name",
    follow="A-Z", status="unknown",
)
CU_DRIVER = (
    Prefix("cu", "mu", f"{GENERAL}: cuLaunchKernel -> muLaunchKernel, cuCtxGetCurrent -> "
           "muCtxGetCurrent", follow="A-Za-z"),
    Prefix("CU", "MU", f"{GENERAL}: CUresult -> MUresult, CU_CUBEMAP_FACE_POSITIVE_X -> "
           "MU_CUBEMAP_FACE_POSITIVE_X", follow="A-Za-z_"),
)
PFN = "PFN_"  # PFN_cuCtxGetCurrent -> PFN_muCtxGetCurrent (general.json): prefix after PFN_

# The vendor's CUPTI tables trace NVTX calls as MTTX ones
# (CUPTI_CBID_NVTX_nvtxRangePushA -> MUPTI_CBID_MTTX_mttxRangePushA), and its vocabulary
# says NVTX -> MTTX: the library itself is named alike, unverified.
MTTX_SOURCE = ("vendor general.json: CUPTI_CBID_NVTX_nvtxRangePushA -> "
               "MUPTI_CBID_MTTX_mttxRangePushA (NVTX -> MTTX)")
MTTX_NOTE = "MTTX, as the vendor's MUPTI callback ids name it; MUSA's NVTX library not verified"

PREFIXES: dict[str, tuple[Prefix, ...]] = {
    "runtime": (*CUDA_RUNTIME, MAKE_CUDA),
    "driver": (*CUDA_RUNTIME, *CU_DRIVER),
    "device": (
        Prefix("make_cu", "make_mu", f"{GENERAL}: make_cuComplex -> make_muComplex",
               follow="A-Z"),
        Prefix("cu", "mu", f"{GENERAL}: cuComplex -> muComplex (cuCadd, cuCabsf, ...)",
               follow="A-Z"),
    ),
    "fp16_bf16": (
        Prefix("__nv_", "__mt_", f"{GENERAL}: __nv_bfloat16 -> __mt_bfloat16, "
               "__nv_bfloat162 -> __mt_bfloat162", follow="a-z", status="unknown",
               note="derived from __nv_bfloat16 -> __mt_bfloat16; not verified"),
        Prefix("nv_", "mt_", f"{GENERAL}: nv_bfloat16 -> mt_bfloat16", follow="a-z",
               status="unknown", note="derived from nv_bfloat16 -> mt_bfloat16; not verified"),
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown") for p in CUDA_RUNTIME),
    ),
    "cublas": (
        Prefix("cublas", "mublas", f"{GENERAL}: cublasSgemm -> mublasSgemm (also "
               "cublasLt3mMode_t -> mublasLt3mMode_t)"),
        Prefix("CUBLAS", "MUBLAS", f"{GENERAL}: CUBLAS_STATUS_SUCCESS -> MUBLAS_STATUS_SUCCESS"),
    ),
    "curand": (
        Prefix("curand", "murand", f"{GENERAL}: curand -> murand, curandCreateGenerator -> "
               "murandCreateGenerator", bare=True),
        Prefix("CURAND", "MURAND", f"{GENERAL}: CURAND_STATUS_SUCCESS -> MURAND_STATUS_SUCCESS"),
    ),
    "cusparse": (
        Prefix("cusparse", "musparse", f"{GENERAL}: cusparseCreate -> musparseCreate"),
        Prefix("CUSPARSE", "MUSPARSE", f"{GENERAL}: CUSPARSE_STATUS_SUCCESS -> MUSPARSE_STATUS_SUCCESS"),
    ),
    "cufft": (
        Prefix("cufft", "mufft", f"{GENERAL}: cufftPlan1d -> mufftPlan1d"),
        Prefix("CUFFT", "MUFFT", f"{GENERAL}: CUFFT_SUCCESS -> MUFFT_SUCCESS"),
        # cudalibxt.h (shipped with cuFFT) names its multi-GPU descriptors cudaXt*/cudaLibXt*.
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown",
                 note="cuFFT multi-GPU descriptor (cudalibxt.h); MUSA name not verified")
          for p in CUDA_RUNTIME),
    ),
    "cusolver": (
        Prefix("cusolver", "musolver", f"{GENERAL}: cusolverDnCreate -> musolverDnCreate"),
        Prefix("CUSOLVER", "MUSOLVER", f"{GENERAL}: CUSOLVER_STATUS_SUCCESS -> MUSOLVER_STATUS_SUCCESS"),
        # cusolverDn.h declares CUBLAS_STOREV_* / CUBLAS_DIRECT_*; cusolverMg.h cudaLibMg*.
        Prefix("CUBLAS", "MUBLAS", f"{GENERAL}: CUBLAS_STATUS_SUCCESS -> MUBLAS_STATUS_SUCCESS",
               status="unknown",
               note="cuBLAS-style name declared by cuSOLVER; MUSA name not verified"),
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown",
                 note="cuSOLVER multi-GPU grid/descriptor (cudaLibMg*); MUSA name not verified")
          for p in CUDA_RUNTIME),
    ),
    "cudnn": (
        Prefix("cudnn", "mudnn", f"{DNN}: cudnnCreate -> mudnnCreate"),
        Prefix("CUDNN", "MUDNN", f"{DNN}: CUDNN_STATUS_SUCCESS -> MUDNN_STATUS_SUCCESS"),
    ),
    "nccl": (
        Prefix("nccl", "mccl", f"{TORCH_MUSA_CODE}: MCCL for NCCL (ProcessGroupMCCL, MCCLComm)"),
        Prefix("NCCL", "MCCL", f"{TORCH_MUSA_CODE}: MCCL for NCCL (ProcessGroupMCCL, MCCLComm)"),
    ),
    "cupti": (
        Prefix("cupti", "mupti", f"{GENERAL}: cupti -> mupti, CUPTI -> MUPTI"),
        Prefix("CUPTI", "MUPTI", f"{GENERAL}: cupti -> mupti, CUPTI -> MUPTI"),
        Prefix("CUpti", "MUpti", "derived from cupti/CUPTI -> mupti/MUPTI and CU -> MU (CUresult)",
               status="unknown", note="CUpti_* spelling derived from CUPTI -> MUPTI; not verified"),
        # generated_cuda_runtime_api_meta.h / generated_cuda_meta.h: callback parameter
        # structs named after the API (cudaMalloc_v3020_params, cuMemAlloc_v2_params).
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown",
                 note="CUPTI callback parameter struct; MUPTI name not verified")
          for p in (*CUDA_RUNTIME, *CU_DRIVER)),
    ),
    "nvtx": (
        Prefix("nvtx", "mttx", MTTX_SOURCE, note=MTTX_NOTE),
        Prefix("NVTX", "MTTX", MTTX_SOURCE, note=MTTX_NOTE),
    ),
    "nvrtc": (
        Prefix("nvrtc", None, "no runtime-compilation API is documented for MUSA: reported, not rewritten"),
        Prefix("NVRTC", None, "no runtime-compilation API is documented for MUSA: reported, not rewritten"),
    ),
    "npp": (
        Prefix("npp", "mtpp", f"{GENERAL}: nppAlphaOp -> mtppAlphaOp", follow="A-Za-z"),
        Prefix("Npp", "Mtpp", "derived from npp -> mtpp for the Npp* types (NppiSize)", follow="A-Za-z0-9"),
        Prefix("NPP", "MTPP", "derived from npp -> mtpp for the NPP_* constants", follow="A-Z_0-9"),
    ),
}

# The NPP functions the vendor's tables map (general.json:
# nppiResizeAdvancedGetBufferHostSize_8u_C1R -> mtppiResize...); the rest of NPP is
# derived and stays "unknown".
NPP_SUPPORTED_PREFIX = "nppiResize"
# NPP 13 declares most functions only with the stream-context suffix (nppiResize_8u_C1R_Ctx);
# NPP <= 12 also had the plain form (nppiResize_8u_C1R), which most existing code calls.
NPP_LEGACY_NOTE = "form without _Ctx (NPP <= 12), derived from the _Ctx declaration of NPP 13"

UNSUPPORTED_NOTES = {
    "nvrtc": "no runtime-compilation (NVRTC) API is documented for MUSA",
}
# Families whose names port but whose header paths are not known on MUSA.
NO_HEADER_NOTES = {"nvtx": "no MTTX header path is known"}

# --------------------------------------------------------------------------------------
# Whole names
# --------------------------------------------------------------------------------------

FP16_BF16 = (
    Name("__nv_bfloat16", "__mt_bfloat16", GENERAL),
    Name("nv_bfloat16", "mt_bfloat16", GENERAL),
    Name("__nv_bfloat162", "__mt_bfloat162", GENERAL),
    Name("nv_bfloat162", "mt_bfloat162", GENERAL),
    Name("__nv_fp8_e4m3", "__mt_fp8_e4m3", f"{OWN}: MUSA's fp8 types, named as its bf16 types "
         f"({GENERAL}: __nv_bfloat16 -> __mt_bfloat16)"),
    Name("__nv_fp8_e5m2", "__mt_fp8_e5m2", f"{OWN}: MUSA's fp8 types, named as its bf16 types "
         f"({GENERAL}: __nv_bfloat16 -> __mt_bfloat16)"),
)
# Names with the nv_ prefix that must keep their names: the fp16 types (__half and half2
# keep their names on MUSA: the vendor's tables map none of them; nv_half is
# cuda_fp16.h's alias of __half).
FP16_KEEP_PATTERN = r"^(?:__)?nv_half"

# Prefixes that no header declares as names: whole identifiers code may use (a wrapper
# named like the API, a macro), named as the vendor's tables name their kin.
PREFIX_NAMES = {
    "cublas": (Name("cublasLt", "mublasLt", f"{GENERAL}: cublasLt3mMode_t -> mublasLt3mMode_t"),),
    "npp": (Name("nppiResize", "mtppiResize", f"{GENERAL}: nppiResizeAdvancedGetBufferHostSize_8u_C1R "
                 "-> mtppiResizeAdvancedGetBufferHostSize_8u_C1R", kind="function",
                 note="the prefix of NPP's resize functions (nppiResize_<type>_<channels>)"),),
}

# Whole names added to a family after its headers are read, by family.
FAMILY_NAMES = {"fp16_bf16": FP16_BF16, **PREFIX_NAMES}

HEADERS = (
    Name("cuda_runtime.h", "musa_runtime.h", INCLUDE),
    Name("cuda_runtime_api.h", "musa_runtime_api.h", INCLUDE),
    Name("cuda.h", "musa.h", INCLUDE),
    Name("cuda_fp16.h", "musa_fp16.h", INCLUDE),
    Name("cuda_bf16.h", "musa_bf16.h", INCLUDE),
    Name("cuda_fp8.h", "musa_fp8.h", f"{OWN}: named as cuda_fp16.h -> musa_fp16.h ({INCLUDE})"),
    Name("cublas_v2.h", "mublas.h", INCLUDE, primary=True),  # cublas.h is the legacy API
    Name("cublas.h", "mublas.h", INCLUDE),
    Name("cublasLt.h", "mublasLt.h", INCLUDE),
    Name("curand.h", "murand.h", INCLUDE),
    Name("curand_kernel.h", "murand_kernel.h", INCLUDE),
    Name("cusparse.h", "musparse.h", INCLUDE),
    Name("cufft.h", "mufft.h", INCLUDE),
    Name("cudnn.h", "mudnn.h", DNN_HEADER),
    Name("nccl.h", "mccl.h", f"{OWN}: named as the library ({TORCH_MUSA_CODE}: MCCL for NCCL)"),
    Name("cuComplex.h", "muComplex.h", INCLUDE),
    Name("cupti.h", "mupti.h", INCLUDE, status="unknown"),
    Name("npp.h", "mtpp.h", INCLUDE, status="unknown"),
    # NVTX before CUDA 12 lived at the top of the include folder.
    Name("nvToolsExt.h", None, "NVTX v2 header path (CUDA <= 11)", status="unsupported",
         note="no MTTX header path is known"),
    Name("nvToolsExtCuda.h", None, "NVTX v2 header path (CUDA <= 11)", status="unsupported",
         note="no MTTX header path is known"),
    Name("nvToolsExtCudaRt.h", None, "NVTX v2 header path (CUDA <= 11)", status="unsupported",
         note="no MTTX header path is known"),
)
VERSION_NOTE = "version values differ: CUDA 12080 vs MUSA 50200; comparisons change meaning"
MACROS = (
    Name("__CUDACC__", "__MUSACC__", GENERAL, primary=True),  # over the nvcc-only __NVCC__
    Name("__NVCC__", "__MUSACC__", f"{OWN}: nvcc's own macro; MUSA's compiler defines "
         f"__MUSACC__ ({GENERAL}: __CUDACC__ -> __MUSACC__)"),
    Name("__CUDA_ARCH__", "__MUSA_ARCH__", GENERAL,
         note="values 210/220/310 (mp_21/mp_22/mp_31): CUDA `>= 800` ~ `>= 220`, "
         "`>= 900` ~ `>= 310`; comparisons change meaning"),
    Name("CUDART_VERSION", "MUSART_VERSION", GENERAL, note=VERSION_NOTE),
    Name("CUDA_VERSION", "MUSA_VERSION", f"{TORCH_MUSA_CODE}: MUSA_VERSION (torch_musa/csrc/core/Module.cpp)",
         note=VERSION_NOTE),
)

NVCC_DOC = "nvcc documentation (CUDA Compiler Driver NVCC), NVCC predefined macros"
NVRTC_DOC = "NVRTC documentation, predefined macros"
FP16_DOC = "CUDA Math API documentation (cuda_fp16.h / cuda_bf16.h / cuda_fp8.h), user macros"
RUNTIME_DOC = "CUDA Runtime API documentation, per-thread default stream"
DRIVER_DOC = "CUDA Driver API documentation (cuda.h), API version selection"
# nvcc's predefined macros and the macros users define to configure the CUDA headers.
# The MUSA name is the vendor's where its tables have one, else the vocabulary's
# (CUDA -> MUSA inside the name), unverified. The __CUDACC_VER_*__ macros keep their
# names (FORBIDDEN_KEYS); the per-architecture __CUDA_ARCH_FEAT_SM90_ALL family names
# NVIDIA hardware and has no MUSA counterpart.
NVCC_MACROS = (
    *(Name(m, None, NVCC_DOC, kind="macro") for m in (
        "__CUDACC_RDC__", "__CUDACC_EWP__", "__CUDACC_DEBUG__", "__CUDACC_RELAXED_CONSTEXPR__",
        "__CUDACC_EXTENDED_LAMBDA__", "__NVCC_DIAG_PRAGMA_SUPPORT__", "__CUDA_ARCH_LIST__",
        "__CUDA_ARCH_SPECIFIC__", "__CUDA_ARCH_FAMILY_SPECIFIC__")),
    Name("__CUDACC_RTC__", None, NVRTC_DOC, kind="macro"),
    *(Name(m, None, FP16_DOC, kind="macro") for m in (
        "__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF_CONVERSIONS__", "__CUDA_NO_HALF2_OPERATORS__",
        "__CUDA_NO_BFLOAT16_OPERATORS__", "__CUDA_NO_BFLOAT16_CONVERSIONS__",
        "__CUDA_NO_BFLOAT162_OPERATORS__", "__CUDA_NO_FP8_CONVERSIONS__",
        "__CUDA_NO_FP8_CONVERSION_OPERATORS__", "__CUDA_NO_FP6_CONVERSIONS__",
        "__CUDA_NO_FP6_CONVERSION_OPERATORS__", "__CUDA_NO_FP4_CONVERSIONS__",
        "__CUDA_NO_FP4_CONVERSION_OPERATORS__")),
    Name("CUDA_API_PER_THREAD_DEFAULT_STREAM", None, RUNTIME_DOC, kind="macro"),
    Name("CUDA_FORCE_API_VERSION", None, DRIVER_DOC, kind="macro"),
)

# PyTorch names the torch headers' scan does not give: qualified namespaces, the device
# type (declared in c10/core), Tensor/Device methods, the Python extension class.
TORCH_MUSA_KMUSA = (f"{TORCH_MUSA_CODE}: at::musa::kMUSA, exported as at::kMUSA; "
                    "DeviceType::PrivateUse1 is what it stands for")
TYPE_IS_MUSA = (f"{TORCH_MUSA_CODE}: Tensor::is_musa(); x.type() is a DeprecatedTypeProperties, "
                "which torch_musa does not extend, so the test asks the tensor")
# PyTorch's dispatch keys and backends of the CUDA backend: torch_musa registers its
# kernels under PyTorch's PrivateUse1 (torch_musa's C++ sources: kMUSAKey in
# torch_musa/csrc/aten/musa/MUSAGeneratorImpl.cpp, kMUSABackend in
# torch_musa/csrc/aten/utils/Utils.h; there is no DispatchKey::MUSA). Each per-backend key
# of c10/core/DispatchKey.h and Backend.h has its PrivateUse1 twin. Backend:: is qualified:
# a tree's own ``enum class Backend { CPU, CUDA }`` is common.
PRIVATEUSE1 = (f"{TORCH_MUSA_CODE}: kernels registered under PrivateUse1 (kMUSAKey, "
               "torch_musa/csrc/aten/musa/MUSAGeneratorImpl.cpp; kMUSABackend, "
               "torch_musa/csrc/aten/utils/Utils.h); c10/core/DispatchKey.h")
DISPATCH_KEYS = (
    *(Name(f"DispatchKey::{k}CUDA", f"DispatchKey::{k}PrivateUse1", PRIVATEUSE1, kind="constant")
      for k in ("", "Autograd", "Autocast", "Sparse", "SparseCsr", "Quantized", "NestedTensor")),
    *(Name(f"{ns}::Backend::{k}CUDA", f"{ns}::Backend::{k}PrivateUse1", PRIVATEUSE1, kind="constant")
      for ns in ("at", "c10") for k in ("", "Sparse", "SparseCsr", "Quantized")),
    Name("BackendComponent::CUDABit", "BackendComponent::PrivateUse1Bit", PRIVATEUSE1,
         kind="constant"),
)
PYTORCH = (
    Name("at::cuda", "at::musa", f"{TORCH_MUSA_CODE}: namespace musa in at and c10 "
         "(torch_musa/csrc/aten/musa, torch_musa/csrc/core)"),
    Name("c10::cuda", "c10::musa", f"{TORCH_MUSA_CODE}: namespace musa in at and c10 "
         "(torch_musa/csrc/aten/musa, torch_musa/csrc/core)"),
    Name(".is_cuda()", ".is_musa()", f"{TORCH_MUSA_CODE}: Tensor::is_musa() / Device::is_musa()",
         kind="name", primary=True),
    Name("->is_cuda()", "->is_musa()", f"{TORCH_MUSA_CODE}: the same method through a pointer",
         kind="name", primary=True),
    Name(".type().is_cuda()", ".is_musa()", f"curated: {TYPE_IS_MUSA}", kind="name"),
    Name("->type().is_cuda()", "->is_musa()", f"curated: {TYPE_IS_MUSA} (through a pointer)",
         kind="name"),
    Name("at::kCUDA", "at::kMUSA", TORCH_MUSA_KMUSA, primary=True),
    Name("c10::kCUDA", "at::kMUSA", TORCH_MUSA_KMUSA, note="kMUSA is exported into at, not c10"),
    Name("kCUDA", "kMUSA", TORCH_MUSA_KMUSA, kind="constant"),
    Name("DeviceType::CUDA", "DeviceType::PrivateUse1", f"{TORCH_MUSA_CODE}: kMUSA stands for "
         "DeviceType::PrivateUse1; there is no DeviceType::MUSA"),
    *DISPATCH_KEYS,
    Name("CUDAExtension", "MUSAExtension", f"{TORCH_MUSA_PY}: torch_musa.utils.musa_extension",
         note="from torch_musa.utils.musa_extension"),
)

# --------------------------------------------------------------------------------------
# The vendor's entries musa-port deliberately does not follow (listed in coverage.md).
# --------------------------------------------------------------------------------------

VENDOR_EXCEPTIONS = {
    "#ifdef CUDART_VERSION": "torch_musa's build hack to drop CUDA-only blocks of PyTorch: in "
                             "user code it would delete code silently; the vendor's own "
                             "CUDART_VERSION -> MUSART_VERSION applies instead",
    "CUDA_VERSION": "torch_musa's own C++ sources use MUSA_VERSION (attested_names.tsv), so "
                    "CUDA_VERSION -> MUSA_VERSION; MUSA_COMP_VERSION is not attested",
    "cuda": "the bare word: libcu++'s namespace (cuda::std) keeps its name and folder names "
            "must not change; the qualified at::cuda / c10::cuda are ported",
    "cu": "a two-letter word, not an API name (a variable named cu, cu_seqlens); the "
          "vocabulary leaves short words alone for the same reason",
    **{w: "a bare vocabulary word, not an API name: a name built from it is a project "
          "symbol, prose that says it is a message (both leave URLs and paths alone); as a "
          "table key it would rewrite every URL and path holding it "
          "(docs.nvidia.com/cupti/...)" for w in ("cupti", "CUPTI", "cubin", "curand")},
}
# libcu++ (CCCL) internals keep their names, as cub and thrust do.
VENDOR_EXCEPTION_PATTERNS = (
    (r"^_LIBCUDACXX", "libcu++ (CCCL) internals keep their names on MUSA, like cub and "
                      "thrust (musa-port's own table: the vendor's tables map no cub::, "
                      "thrust:: or CUB_ name)"),
)

# --------------------------------------------------------------------------------------
# Names that must never be keys (they keep their names on MUSA, or are not CUDA APIs).
# The generator refuses to write a table containing one; tests/tables/test_tables.py checks
# the shipped tables too.
# --------------------------------------------------------------------------------------

FORBIDDEN_KEYS = frozenset(
    """
    cub cuda cuda_cub half half2 __half __half2 __float2half __syncwarp __ldg
    __launch_bounds__ __CUDACC_VER_MAJOR__ __CUDACC_VER_MINOR__ __CUDACC_VER_BUILD__
    """.split()
)
# THRUST_*/CUB_*/_CCCL*/_LIBCUDACXX* (the libraries' names, which project symbols keep
# too), __shfl_*_sync, vector types. (nvcc's __cuda* internals are no longer here: the
# vendor renames them, __cudaRegisterFunction -> __musaRegisterFunction.)
FORBIDDEN_KEY_PATTERN = (
    rf"^(?:{KEPT_LIBRARY_PREFIX}|__shfl_\w*_sync$"
    r"|(?:make_)?(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]$"
    r"|(?:make_)?(?:u?long|u?longlong|double)[1-4]_(?:16|32)a$)"
)
