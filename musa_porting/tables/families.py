"""The API families: which headers each reads, and each family's honesty about what
MUSA supports (interop is unsupported, newer areas unknown, ...). ``derive`` turns a
CUDA name into its MUSA name with the family's prefix rules (``irregular``)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..rules.vocabulary import Vocabulary
from . import irregular
from .irregular import Prefix

INTEROP_NOTE = "graphics interop (OpenGL/EGL/VDPAU/Direct3D) is not available on MUSA"
RUNTIME_INTEROP_HEADERS = ("cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h")
DRIVER_INTEROP_HEADERS = ("cudaGL.h", "cudaGLTypedefs.h", "cudaEGL.h", "cudaEGLTypedefs.h",
                          "cudaVDPAU.h", "cudaVDPAUTypedefs.h")
# Interop names that show up in the core headers too.
RUNTIME_INTEROP = re.compile(
    r"^cuda(?:GL|GraphicsGL|WGL|EGL|Egl|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D|GraphicsD3D)"
)
DRIVER_INTEROP = re.compile(
    r"^(?:PFN_)?(?:cu(?:GL|GraphicsGL|WGL|EGL|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D"
    r"|GraphicsD3D)|CUegl|CUGL|CU_EGL|CU_GL_|CUDA_EGL)"
)

# Newer or niche API areas whose MUSA coverage is not verified. Matched against the
# name with its API prefix removed (`cudaGraphLaunch` -> `GraphLaunch`).
UNKNOWN_AREAS = re.compile(
    r"^(?:Graph(?!ics)|StreamBeginCapture|StreamEndCapture|StreamIsCapturing"
    r"|StreamGetCaptureInfo|StreamUpdateCaptureDependencies|ThreadExchangeStreamCaptureMode"
    r"|UserObject|DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|DeviceGraphMemTrim"
    r"|Library|Kernel|DevResource|DevSmResource|ExecutionCtx|Logs|TensorMap|Multicast"
    r"|Coredump|CheckpointProcess|GetDriverEntryPoint|GetProcAddress|Tex|Surf"
    r"|CreateTextureObject|DestroyTextureObject|GetTextureObject|CreateSurfaceObject"
    r"|DestroySurfaceObject|GetSurfaceObject|CGGet|GetParameterBuffer|LaunchDevice"
    r"|Profiler|Occ(?!upancy))"
    r"|Texture|Surface|Cluster|Green",
    re.IGNORECASE,  # CU_DEVICE_ATTRIBUTE_MAX_TEXTURE1D_WIDTH like cudaDevAttrMaxTexture1DWidth
)
# `PFN_cuMemAlloc_v3020`: the suffix is a CUDA version; MUSA's typedef names are unverified.
VERSIONED_PFN = re.compile(r"^PFN_\w+_v\d{4,}$")
VERSIONED_PFN_NOTE = "PFN typedef suffixed with a CUDA version; MUSA's suffixes are unverified"

# Extracted names deliberately left out: per-thread-stream implementation names
# (`cudaMemcpyAsync_ptsz`), include guards (`CUBLAS_API_H_`, `CUDNN_H_`).
SKIP_PATTERN = re.compile(r"^(?:PFN_)?cu[a-zA-Z]\w*_pt(?:sz|ds)$|_H_*$|_HPP_*$|_INCLUDED_*$")
SKIP_NAMES = frozenset({"CUDART_DEVICE"})
# Header decoration macros (`CUBLASWINAPI`, `CUSPARSE_DEPRECATED`): exported, but nobody
# writes them; their MUSA spelling is a guess.
DECORATION_MACRO = re.compile(r"(?:API|_DEPRECATED\w*|_EXPORT|DECLSPEC|_INLINE\w*)$")
DECORATION_NOTE = "header decoration macro; MUSA spelling not verified"
# A library constant that names a CUDA API inside (`CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020`).
EMBEDDED_API = re.compile(r"_(?:cuda|cu|nvtx)[A-Z]")
EMBEDDED_API_NOTE = "names a CUDA API inside; MUSA's spelling of the rest not verified"
# The driver API's prefix inside such a name, which the vocabulary (words of four letters
# or more) leaves alone: CUPTI_DRIVER_TRACE_CBID_cuMemAlloc -> ..._muMemAlloc, as the
# vendor's tables write it (cu64MemAlloc -> mu64MemAlloc too).
EMBEDDED_DRIVER = re.compile(r"(?<=_)cu(?=[A-Z0-9])")


@dataclass
class Context:
    """What a family's classifier may look at for one name."""

    name: str
    kind: str  # function / type / constant / macro
    where: frozenset[str]  # headers declaring it
    prefix: Prefix


Classifier = Callable[[Context, str, str], "tuple[str, str]"]


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    headers: tuple[str, ...]  # fnmatch patterns of include-relative paths
    default_status: str = "supported"
    # (ctx, status, note) -> (status, note): family-specific honesty
    classify: Classifier | None = None
    pfn: bool = False  # derive PFN_<name> typedefs (driver)
    embeds_api: bool = False  # names embed API names (CUPTI callback ids): rename their prefix
    public_headers: tuple[str, ...] = ()  # for headers.json; default: top-level `headers`


def _only_in(ctx: Context, patterns: Iterable[str]) -> bool:
    pats = tuple(patterns)
    return bool(ctx.where) and all(any(fnmatch.fnmatchcase(h, p) for p in pats) for h in ctx.where)


def _stem(name: str, prefix: Prefix) -> str:
    return name.removeprefix("PFN_")[len(prefix.cuda):].lstrip("_")


def _classify_runtime(ctx: Context, status: str, note: str) -> tuple[str, str]:
    stem = _stem(ctx.name, ctx.prefix)
    if RUNTIME_INTEROP.match(ctx.name) or _only_in(ctx, RUNTIME_INTEROP_HEADERS):
        return "unsupported", INTEROP_NOTE
    if _only_in(ctx, ("cuda_device_runtime_api.h",)):
        return "unknown", "device runtime (dynamic parallelism) only"
    if UNKNOWN_AREAS.search(stem) and not stem.lower().startswith("error"):
        return "unknown", note
    return status, note


def _classify_driver(ctx: Context, status: str, note: str) -> tuple[str, str]:
    stem = _stem(ctx.name, ctx.prefix)
    if DRIVER_INTEROP.match(ctx.name) or _only_in(ctx, DRIVER_INTEROP_HEADERS):
        return "unsupported", INTEROP_NOTE
    if VERSIONED_PFN.match(ctx.name):
        return "unknown", VERSIONED_PFN_NOTE
    if ctx.name in ("cuuint32_t", "cuuint64_t"):
        return "unknown", note
    if UNKNOWN_AREAS.search(stem) and not stem.lower().startswith("error"):
        return "unknown", note
    return status, note


def _library(*rules: tuple[str, Callable[[Context], bool]]) -> Classifier:
    """A classifier for a library: decoration macros and the given groups are unknown."""

    def classify(ctx: Context, status: str, note: str) -> tuple[str, str]:
        if status != "supported":
            return status, note
        if ctx.kind == "macro" and DECORATION_MACRO.search(ctx.name):
            return "unknown", DECORATION_NOTE
        for group_note, test in rules:
            if test(ctx):
                return "unknown", group_note
        return status, note

    return classify


def _classify_npp(ctx: Context, status: str, note: str) -> tuple[str, str]:
    if ctx.name.startswith(irregular.NPP_SUPPORTED_PREFIX):
        return "supported", ""
    return status, note


FAMILIES: tuple[Family, ...] = (
    Family(
        "runtime", "CUDA runtime API",
        ("cuda_runtime_api.h", "driver_types.h", "cuda_runtime.h", "surface_types.h", "texture_types.h",
         "cuda_device_runtime_api.h", "library_types.h", "driver_functions.h", "cuda_profiler_api.h",
         "cuda_occupancy.h", *RUNTIME_INTEROP_HEADERS),
        classify=_classify_runtime,
        public_headers=("cuda_runtime.h", "cuda_runtime_api.h", "cuda_profiler_api.h", "cuda_occupancy.h",
                        "cuda_device_runtime_api.h", "cuda_awbarrier*.h", "cuda_pipeline*.h",
                        "cuda_stdint.h", *RUNTIME_INTEROP_HEADERS),
    ),
    Family(
        "driver", "CUDA driver API",
        ("cuda.h", "cudaTypedefs.h", "cudaProfiler.h", "cudaProfilerTypedefs.h", *DRIVER_INTEROP_HEADERS),
        classify=_classify_driver, pfn=True,
    ),
    Family(
        "device", "Math and device functions whose names change (cuComplex)",
        ("cuComplex.h",),
    ),
    Family(
        "fp16_bf16", "Reduced-precision types (bf16, fp8, fp6, fp4)",
        ("cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp",
         "cuda_fp4.h", "cuda_fp4.hpp"),
        public_headers=("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h",
                        "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp", "cuda_fp4.h", "cuda_fp4.hpp"),
    ),
    Family(
        "cublas", "cuBLAS and cuBLASLt",
        ("cublas.h", "cublas_api.h", "cublas_v2.h", "cublasLt.h", "cublasXt.h"),
        classify=_library(
            ("cuBLASXt multi-GPU API; MUSA support not verified",
             lambda c: c.name.startswith(("cublasXt", "CUBLASXT")) or _only_in(c, ("cublasXt.h",))),
            ("legacy cuBLAS API (cublas.h); MUSA support not verified",
             lambda c: _only_in(c, ("cublas.h",))),
        ),
    ),
    Family("curand", "cuRAND (host API and device functions)", ("curand*.h",), classify=_library()),
    Family("cusparse", "cuSPARSE", ("cusparse.h", "cusparse_v2.h"), classify=_library()),
    Family(
        "cufft", "cuFFT and cuFFTXt",
        ("cufft.h", "cufftXt.h", "cufft_device.h", "cudalibxt.h"),
        classify=_library(
            ("cuFFTXt API (multi-GPU, callbacks); MUSA support not verified",
             lambda c: _only_in(c, ("cufftXt.h", "cufft_device.h", "cudalibxt.h"))),
        ),
    ),
    Family(
        "cusolver", "cuSOLVER",
        ("cusolver*.h",),
        classify=_library(
            ("cuSOLVER multi-GPU / refactorization / low-level API; MUSA support not verified",
             lambda c: _only_in(c, ("cusolverMg.h", "cusolverRf.h", "cusolverSp_LOWLEVEL_PREVIEW.h"))),
        ),
    ),
    Family(
        "cudnn", "cuDNN",
        ("cudnn*.h",),
        classify=_library(
            ("cuDNN backend (graph) API; muDNN support not verified",
             lambda c: c.name.startswith(("cudnnBackend", "CUDNN_BACKEND_", "CUDNN_ATTR_"))),
        ),
    ),
    Family(
        "nccl", "NCCL (MCCL on MUSA)",
        ("nccl.h", "nccl_device*.h", "nccl_device/*"),
        classify=_library(
            ("NCCL device API (nccl_device.h); MCCL support not verified",
             lambda c: _only_in(c, ("nccl_device*",))),
        ),
        public_headers=("nccl.h", "nccl_device.h"),
    ),
    Family(
        "cupti", "CUPTI (MUPTI on MUSA)",
        ("cupti*.h", "generated_cuda_meta.h", "generated_cuda_runtime_api_meta.h",
         "Openacc/cupti_openacc.h", "Openmp/cupti_openmp.h"),
        classify=_library(
            (EMBEDDED_API_NOTE, lambda c: bool(EMBEDDED_API.search(c.name[len(c.prefix.cuda):]))),
        ),
        embeds_api=True,
        public_headers=("cupti*.h",),
    ),
    Family(
        "nvtx", "NVTX (MTTX on MUSA, unverified)",
        ("nvtx3/nvToolsExt*.h", "nvtx3/nvtx3.hpp"),
        default_status="unknown",
        public_headers=("nvtx3/nvToolsExt*.h", "nvtx3/nvtx3.hpp"),
    ),
    Family("nvrtc", "NVRTC (no MUSA equivalent documented)", ("nvrtc.h",), default_status="unsupported"),
    Family(
        "npp", "NPP (MTPP on MUSA)", ("npp*.h",), default_status="unknown", classify=_classify_npp,
    ),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)
CURATED_FAMILIES = ("headers", "macros", "pytorch")


def derive(name: str, prefixes: Iterable[Prefix], pfn: bool = False,
           vocab: Vocabulary | None = None) -> tuple[str | None, Prefix] | None:
    """(MUSA name or None, the prefix rule) for ``name``, or None if no rule applies.

    The longest prefix the name starts with decides: ``cudart_x`` starts with
    ``cuda`` but fails its ``follow`` check, and does not fall back to ``cu``. With a
    vocabulary, CUDA words in the rest of the name change too, as the vendor's tables
    do: ``CUPTI_ACTIVITY_KIND_CUDA_EVENT -> MUPTI_ACTIVITY_KIND_MUSA_EVENT``,
    ``CUDA_ERROR_NVLINK_UNCORRECTABLE -> MUSA_ERROR_MTLINK_UNCORRECTABLE``.
    """
    if pfn and name.startswith(irregular.PFN):
        inner = derive(name[len(irregular.PFN):], prefixes, vocab=vocab)
        if inner is None or inner[0] is None:
            return inner
        return irregular.PFN + inner[0], inner[1]
    best: Prefix | None = None
    for p in prefixes:
        if name.startswith(p.cuda) and (best is None or len(p.cuda) > len(best.cuda)):
            best = p
    if best is None:
        return None
    rest = name[len(best.cuda):]
    if rest and not re.match(f"[{best.follow}]", rest[0]):
        return None
    if not rest and not best.bare:
        return None
    if best.musa is None:
        return None, best
    return best.musa + ((vocab.rename(rest) if vocab else None) or rest), best


