"""Curated names the header-driven rules cannot derive, each with its source.

The generator (``generate.py``) derives most entries mechanically: the API prefix at
the start of an identifier changes and the rest stays (``cublasSgemm_v2 ->
mublasSgemm_v2``). What is here is the knowledge that does not follow from the CUDA
headers alone:

- ``PREFIXES``: the prefix pairs themselves, per family (``nccl -> mccl`` and
  ``npp -> mtpp`` are not a ``cu -> mu`` swap);
- ``FP16_BF16``, ``BRIEF_PREFIX_EXAMPLES``, ``HEADERS``, ``MACROS``, ``NVCC_MACROS``,
  ``PYTORCH``: whole names;
- ``VENDOR_EXCEPTIONS``: the few entries of Moore Threads' tables musa-port does not
  follow, each with its reason (everything else the vendor maps wins over the rules).

Every item carries ``source``, one line saying where the fact comes from. "BRIEF"
is the product brief (``shared/docs/BRIEF.md``, "MUSA facts"), which records names
as used in Moore Threads' own ports and tables. Items whose ``status`` is not
``supported`` are plausible but unverified (``unknown``) or known to have no MUSA
form (``unsupported``, usually without a ``musa`` name: reported, never rewritten).
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


BRIEF = "BRIEF: MUSA facts"
BRIEF_NAMING = f"{BRIEF}, Naming"
BRIEF_HEADERS = f"{BRIEF}, Headers"
BRIEF_MACROS = f"{BRIEF}, Macros"
BRIEF_TORCH = f"{BRIEF}, PyTorch / torch_musa"

# --------------------------------------------------------------------------------------
# Prefix rules, per family. Longer prefixes are tried first.
# --------------------------------------------------------------------------------------

CUDA_RUNTIME = (
    # Any character may follow (cudalibraryHostUniversalFunctionAndDataTable, CUDAlogLevel_enum);
    # a name starting with cuda/CUDA never falls back to the shorter cu/CU rule.
    Prefix("cuda", "musa", f"{BRIEF_NAMING}: cudaMalloc -> musaMalloc, cudaStream_t -> musaStream_t"),
    Prefix("CUDA", "MUSA", f"{BRIEF_NAMING}: CUDA_R_16F -> MUSA_R_16F"),
)
MAKE_CUDA = Prefix(
    "make_cuda", "make_musa", "runtime helper (driver_functions.h): make_cudaExtent; prefix inside the name",
    follow="A-Z", status="unknown",
)
CU_DRIVER = (
    Prefix("cu", "mu", f"{BRIEF_NAMING}: cuLaunchKernel -> muLaunchKernel, cuCtxGetCurrent -> "
           "muCtxGetCurrent", follow="A-Za-z"),
    Prefix("CU", "MU", f"{BRIEF_NAMING}: CUresult -> MUresult, CU_CUBEMAP_FACE_POSITIVE_X -> "
           "MU_CUBEMAP_FACE_POSITIVE_X", follow="A-Za-z_"),
)
PFN = "PFN_"  # PFN_cuCtxGetCurrent -> PFN_muCtxGetCurrent (BRIEF, Naming): prefix after PFN_

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
        Prefix("make_cu", "make_mu", f"{BRIEF_NAMING}: cuComplex -> muComplex (make_cuComplex)",
               follow="A-Z"),
        Prefix("cu", "mu", f"{BRIEF_NAMING}: cuComplex -> muComplex (cuCadd, cuCabsf, ...)",
               follow="A-Z"),
    ),
    "fp16_bf16": (
        Prefix("__nv_", "__mt_", f"{BRIEF_NAMING}: __nv_bfloat16 -> __mt_bfloat16, "
               "__nv_fp8_e4m3 -> __mt_fp8_e4m3", follow="a-z", status="unknown",
               note="derived from __nv_bfloat16 -> __mt_bfloat16; not verified"),
        Prefix("nv_", "mt_", f"{BRIEF_NAMING}: nv_bfloat16 -> mt_bfloat16", follow="a-z",
               status="unknown", note="derived from nv_bfloat16 -> mt_bfloat16; not verified"),
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown") for p in CUDA_RUNTIME),
    ),
    "cublas": (
        Prefix("cublas", "mublas", f"{BRIEF_NAMING}: cublas -> mublas (also cublasLt -> mublasLt)"),
        Prefix("CUBLAS", "MUBLAS", f"{BRIEF_NAMING}: CUBLAS -> MUBLAS"),
    ),
    "curand": (
        Prefix("curand", "murand", f"{BRIEF_NAMING}: curand -> murand", bare=True),
        Prefix("CURAND", "MURAND", f"{BRIEF_NAMING}: curand -> murand (upper case likewise)"),
    ),
    "cusparse": (
        Prefix("cusparse", "musparse", f"{BRIEF_NAMING}: cusparse -> musparse"),
        Prefix("CUSPARSE", "MUSPARSE", f"{BRIEF_NAMING}: cusparse -> musparse (upper case likewise)"),
    ),
    "cufft": (
        Prefix("cufft", "mufft", f"{BRIEF_NAMING}: cufft -> mufft"),
        Prefix("CUFFT", "MUFFT", f"{BRIEF_NAMING}: cufft -> mufft (upper case likewise)"),
        # cudalibxt.h (shipped with cuFFT) names its multi-GPU descriptors cudaXt*/cudaLibXt*.
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown",
                 note="cuFFT multi-GPU descriptor (cudalibxt.h); MUSA name not verified")
          for p in CUDA_RUNTIME),
    ),
    "cusolver": (
        Prefix("cusolver", "musolver", f"{BRIEF_NAMING}: cusolver -> musolver"),
        Prefix("CUSOLVER", "MUSOLVER", f"{BRIEF_NAMING}: cusolver -> musolver (upper case likewise)"),
        # cusolverDn.h declares CUBLAS_STOREV_* / CUBLAS_DIRECT_*; cusolverMg.h cudaLibMg*.
        Prefix("CUBLAS", "MUBLAS", f"{BRIEF_NAMING}: CUBLAS -> MUBLAS", status="unknown",
               note="cuBLAS-style name declared by cuSOLVER; MUSA name not verified"),
        *(Prefix(p.cuda, p.musa, p.source, follow=p.follow, status="unknown",
                 note="cuSOLVER multi-GPU grid/descriptor (cudaLibMg*); MUSA name not verified")
          for p in CUDA_RUNTIME),
    ),
    "cudnn": (
        Prefix("cudnn", "mudnn", f"{BRIEF_NAMING}: cudnn/CUDNN -> mudnn/MUDNN"),
        Prefix("CUDNN", "MUDNN", f"{BRIEF_NAMING}: cudnn/CUDNN -> mudnn/MUDNN"),
    ),
    "nccl": (
        Prefix("nccl", "mccl", f"{BRIEF_NAMING}: nccl/NCCL -> mccl/MCCL"),
        Prefix("NCCL", "MCCL", f"{BRIEF_NAMING}: nccl/NCCL -> mccl/MCCL"),
    ),
    "cupti": (
        Prefix("cupti", "mupti", f"{BRIEF_NAMING}: cupti/CUPTI -> mupti/MUPTI"),
        Prefix("CUPTI", "MUPTI", f"{BRIEF_NAMING}: cupti/CUPTI -> mupti/MUPTI"),
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
        Prefix("npp", "mtpp", f"{BRIEF_NAMING}: npp -> mtpp (nppiResize -> mtppiResize)", follow="A-Za-z"),
        Prefix("Npp", "Mtpp", "derived from npp -> mtpp for the Npp* types (NppiSize)", follow="A-Za-z0-9"),
        Prefix("NPP", "MTPP", "derived from npp -> mtpp for the NPP_* constants", follow="A-Z_0-9"),
    ),
}

# The brief's one NPP example; the rest of NPP is derived and stays "unknown".
NPP_SUPPORTED_PREFIX = "nppiResize"  # BRIEF: nppiResize -> mtppiResize
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
    Name("__nv_bfloat16", "__mt_bfloat16", f"{BRIEF_NAMING}: Types"),
    Name("nv_bfloat16", "mt_bfloat16", f"{BRIEF_NAMING}: Types"),
    Name("__nv_bfloat162", "__mt_bfloat162", f"{BRIEF_NAMING}: Types"),
    Name("nv_bfloat162", "mt_bfloat162", f"{BRIEF_NAMING}: Types (nv_bfloat16 -> mt_bfloat16, pair type)"),
    Name("__nv_fp8_e4m3", "__mt_fp8_e4m3", f"{BRIEF_NAMING}: Types"),
    Name("__nv_fp8_e5m2", "__mt_fp8_e5m2", f"{BRIEF_NAMING}: Types (__nv_fp8_e4m3 -> __mt_fp8_e4m3, "
         "sibling type)"),
)
# Names with the nv_ prefix that must keep their names: the fp16 types (BRIEF: __half,
# half2 keep their names; nv_half is cuda_fp16.h's alias of __half).
FP16_KEEP_PATTERN = r"^(?:__)?nv_half"

# Names the brief writes out that no header declares as such: the prefix examples
# themselves. They are whole identifiers code may use (a wrapper named like the API,
# a macro), and a user trying the brief's example expects them to port.
BRIEF_PREFIX_EXAMPLES = {
    "cublas": (Name("cublasLt", "mublasLt", f"{BRIEF_NAMING}: also cublasLt -> mublasLt"),),
    "npp": (Name("nppiResize", "mtppiResize", f"{BRIEF_NAMING}: npp -> mtpp (nppiResize -> mtppiResize)",
                 kind="function",
                 note="the brief's example; NPP's own functions are nppiResize_<type>_<channels>"),),
}

# Whole names added to a family after its headers are read, by family.
FAMILY_NAMES = {"fp16_bf16": FP16_BF16, **BRIEF_PREFIX_EXAMPLES}

HEADERS = (
    Name("cuda_runtime.h", "musa_runtime.h", BRIEF_HEADERS),
    Name("cuda_runtime_api.h", "musa_runtime_api.h", BRIEF_HEADERS),
    Name("cuda.h", "musa.h", BRIEF_HEADERS),
    Name("cuda_fp16.h", "musa_fp16.h", BRIEF_HEADERS),
    Name("cuda_bf16.h", "musa_bf16.h", BRIEF_HEADERS),
    Name("cuda_fp8.h", "musa_fp8.h", BRIEF_HEADERS),
    Name("cublas_v2.h", "mublas.h", BRIEF_HEADERS, primary=True),  # cublas.h is the legacy API
    Name("cublas.h", "mublas.h", BRIEF_HEADERS),
    Name("cublasLt.h", "mublasLt.h", f"{BRIEF_NAMING}: cublasLt -> mublasLt; header named alike"),
    Name("curand.h", "murand.h", f"{BRIEF_NAMING}: curand -> murand; header named alike"),
    Name("curand_kernel.h", "murand_kernel.h", BRIEF_HEADERS),
    Name("cusparse.h", "musparse.h", BRIEF_HEADERS),
    Name("cufft.h", "mufft.h", BRIEF_HEADERS),
    Name("cudnn.h", "mudnn.h", BRIEF_HEADERS),
    Name("nccl.h", "mccl.h", BRIEF_HEADERS),
    Name("cuComplex.h", "muComplex.h", f"{BRIEF_NAMING}: cuComplex -> muComplex; header named alike"),
    Name("cupti.h", "mupti.h", f"{BRIEF_NAMING}: cupti -> mupti; header named alike",
         status="unknown"),
    Name("npp.h", "mtpp.h", f"{BRIEF_NAMING}: npp -> mtpp; header named alike", status="unknown"),
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
    Name("__CUDACC__", "__MUSACC__", BRIEF_MACROS, primary=True),  # over the nvcc-only __NVCC__
    Name("__NVCC__", "__MUSACC__", BRIEF_MACROS),
    Name("__CUDA_ARCH__", "__MUSA_ARCH__", BRIEF_MACROS,
         note="values 210/220/310 (mp_21/mp_22/mp_31): CUDA `>= 800` ~ `>= 220`, "
         "`>= 900` ~ `>= 310`; comparisons change meaning"),
    Name("CUDART_VERSION", "MUSART_VERSION", BRIEF_MACROS, note=VERSION_NOTE),
    Name("CUDA_VERSION", "MUSA_VERSION", BRIEF_MACROS, note=VERSION_NOTE),
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
TORCH_MUSA_KMUSA = ("current torch_musa: at::musa::kMUSA, exported as at::kMUSA "
                    "(attested_names.tsv); DeviceType::PrivateUse1 is what it stands for")
TYPE_IS_MUSA = ("torch_musa's Tensor::is_musa() (is_musa in attested_names.tsv); x.type() is a "
                "DeprecatedTypeProperties, which torch_musa does not extend, so the test asks "
                "the tensor")
PYTORCH = (
    Name("at::cuda", "at::musa", BRIEF_TORCH),
    Name("c10::cuda", "c10::musa", BRIEF_TORCH),
    Name(".is_cuda()", ".is_musa()", f"{BRIEF_TORCH}: Tensor::is_musa() / Device::is_musa() "
         "(is_musa in attested_names.tsv)", kind="name", primary=True),
    Name("->is_cuda()", "->is_musa()", f"{BRIEF_TORCH}: the same method through a pointer",
         kind="name", primary=True),
    Name(".type().is_cuda()", ".is_musa()", f"curated: {TYPE_IS_MUSA}", kind="name"),
    Name("->type().is_cuda()", "->is_musa()", f"curated: {TYPE_IS_MUSA} (through a pointer)",
         kind="name"),
    Name("at::kCUDA", "at::kMUSA", f"{BRIEF_TORCH}; {TORCH_MUSA_KMUSA}", primary=True),
    Name("c10::kCUDA", "at::kMUSA", f"{BRIEF_TORCH}; {TORCH_MUSA_KMUSA}",
         note="kMUSA is exported into at, not c10"),
    Name("kCUDA", "kMUSA", f"{BRIEF_TORCH}; {TORCH_MUSA_KMUSA}", kind="constant"),
    Name("DeviceType::CUDA", "DeviceType::PrivateUse1", f"{BRIEF_TORCH}: kMUSA stands for "
         "DeviceType::PrivateUse1; there is no DeviceType::MUSA"),
    Name("CUDAExtension", "MUSAExtension", BRIEF_TORCH, note="from torch_musa.utils.musa_extension"),
)

# --------------------------------------------------------------------------------------
# The vendor's entries musa-port deliberately does not follow (listed in coverage.md).
# --------------------------------------------------------------------------------------

VENDOR_EXCEPTIONS = {
    "#ifdef CUDART_VERSION": "torch_musa's build hack to drop CUDA-only blocks of PyTorch: in "
                             "user code it would delete code silently; the vendor's own "
                             "CUDART_VERSION -> MUSART_VERSION applies instead",
    "CUDA_VERSION": "torch_musa's own code uses MUSA_VERSION (attested_names.tsv), the brief "
                    "maps CUDA_VERSION -> MUSA_VERSION; MUSA_COMP_VERSION is not attested",
    "cuda": "the bare word: libcu++'s namespace (cuda::std) keeps its name and folder names "
            "must not change; the qualified at::cuda / c10::cuda are ported",
    "cu": "a two-letter word, not an API name (a variable named cu, cu_seqlens); the "
          "vocabulary leaves short words alone for the same reason",
    **{w: "a bare vocabulary word, not an API name: a name built from it is a project "
          "symbol, prose that says it is a message (both leave URLs and paths alone); as a "
          "table key it would rewrite every URL and path holding it "
          "(docs.nvidia.com/cupti/...)" for w in ("cupti", "CUPTI", "cubin", "curand")},
}
# libcu++ (CCCL) internals keep their names: the brief's cub/thrust rule.
VENDOR_EXCEPTION_PATTERNS = (
    (r"^_LIBCUDACXX", "libcu++ (CCCL) internals keep their names on MUSA, like cub and "
                      "thrust (brief: Libraries beside the runtime)"),
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
