"""The names build files use for the CUDA toolchain, and their MUSA names.

Data plus the small functions that look them up: the compiler (``nvcc`` -> ``mcc``),
the toolkit's environment variables (``CUDA_HOME`` -> ``MUSA_HOME``), its install path,
its libraries (``-lcudart`` -> ``-lmusart``, ``CUDA::cublas`` -> ``MUSA::mublas``), FindCUDA's
and FindCUDAToolkit's variables (``CUDA_NVCC_FLAGS`` -> ``MUSA_MCC_FLAGS``), and the names
that have no MUSA equivalent, each with what to do instead (the findings' suggestions).

The MUSA names are the ones Moore Threads' own build files use (torch_musa's FindMUSA,
a renamed FindCUDA, and MUSAToolkit); the name-part vocabulary
(``rules/vocabulary.py``) renames the FindCUDA variables part by part, with ``NVCC``
meaning the compiler (``MCC``) rather than the macro (``__MUSACC__``).
"""

from __future__ import annotations

import functools
import re

from ...rules.vocabulary import Vocabulary, build_vocabulary

COMPILER = "mcc"

# Environment (and Make/CMake) variables naming the toolkit.
HOME_VARS = {
    "CUDA_HOME": "MUSA_HOME",
    "CUDA_PATH": "MUSA_PATH",
    "CUDA_VISIBLE_DEVICES": "MUSA_VISIBLE_DEVICES",
    "TORCH_CUDA_ARCH_LIST": "TORCH_MUSA_ARCH_LIST",  # its value: see build.rewrite
}
MUSA_INSTALL_DIR = "/usr/local/musa"

# Libraries: -l names, lib*.so files, CUDAToolkit components and CUDA:: targets.
LIBRARIES = {
    "cudart": "musart",
    "cuda": "musa",
    "cuda_driver": "musa",  # FindCUDAToolkit's target for libcuda
    "cublas": "mublas",
    "cublasLt": "mublasLt",
    "cufft": "mufft",
    "curand": "murand",
    "cusparse": "musparse",
    "cusolver": "musolver",
    "cudnn": "mudnn",
    "nccl": "mccl",
    "cupti": "mupti",
    # NVML is MTML (libmtml.so, the library Moore Threads' mthreads-ml-py loads).
    "nvidia-ml": "mtml",
    "nvml": "mtml",
}

# Libraries and targets with no MUSA equivalent known here: what to do instead.
LIBRARY_ADVICE = {
    "cudart_static": "link the MUSA runtime, -lmusart (MUSA::musart)",
    "cudadevrt": "remove it: MUSA has no separate device runtime library",
    "culibos": "remove it: it is a helper of NVIDIA's static libraries",
    "nvrtc": "MUSA's runtime compilation library is not in the tables: find its name in "
             "your MUSA SDK, or compile the kernels ahead of time",
    "nvToolsExt": "remove the NVTX ranges (or guard them): MUSA has no NVTX library here",
    "nvtx3": "remove the NVTX ranges (or guard them): MUSA has no NVTX library here",
    "nvJitLink": "remove it: MUSA has no JIT linker library",
    "cufile": "remove it: GPUDirect Storage has no MUSA equivalent here",
    "nvjpeg": "remove it: nvJPEG has no MUSA equivalent here",
    "cusparseLt": "remove it: cuSPARSELt has no MUSA equivalent here",
    "cublas_static": "link MUSA::mublas (-lmublas): static MUSA libraries are not known here",
    "cufft_static": "link MUSA::mufft (-lmufft): static MUSA libraries are not known here",
}

# FindCUDA (cmake --help-module FindCUDA): its commands and variables. Each becomes the
# FindMUSA name (the vocabulary's rename: cuda_add_library -> musa_add_library,
# CUDA_NVCC_FLAGS -> MUSA_MCC_FLAGS, CUDA_CUBLAS_LIBRARIES -> MUSA_MUBLAS_LIBRARIES).
FINDCUDA_COMMANDS = frozenset({
    "cuda_add_library", "cuda_add_executable", "cuda_include_directories", "cuda_compile",
    "cuda_wrap_srcs", "cuda_build_clean_target", "cuda_compute_separable_compilation_object_file_name",
    "cuda_link_separable_compilation_objects",
})
FINDCUDA_VARIABLES = frozenset({
    "CUDA_FOUND", "CUDA_VERSION", "CUDA_VERSION_MAJOR", "CUDA_VERSION_MINOR",
    "CUDA_VERSION_STRING", "CUDA_TOOLKIT_ROOT_DIR", "CUDA_TOOLKIT_INCLUDE", "CUDA_INCLUDE_DIRS",
    "CUDA_LIBRARIES", "CUDA_CUDART_LIBRARY", "CUDA_CUDA_LIBRARY", "CUDA_NVCC_EXECUTABLE",
    "CUDA_NVCC_FLAGS", "CUDA_NVCC_FLAGS_DEBUG", "CUDA_NVCC_FLAGS_RELEASE",
    "CUDA_NVCC_FLAGS_RELWITHDEBINFO", "CUDA_NVCC_FLAGS_MINSIZEREL", "CUDA_CUBLAS_LIBRARIES",
    "CUDA_CUFFT_LIBRARIES", "CUDA_cublas_LIBRARY", "CUDA_cufft_LIBRARY", "CUDA_curand_LIBRARY",
    "CUDA_cusparse_LIBRARY", "CUDA_cusolver_LIBRARY", "CUDA_cupti_LIBRARY",
    "CUDA_PROPAGATE_HOST_FLAGS", "CUDA_VERBOSE_BUILD",
    "CUDA_LINK_LIBRARIES_KEYWORD", "CUDA_HOST_COMPILATION_CPP", "CUDA_64_BIT_DEVICE_CODE",
    "CUDA_GENERATED_OUTPUT_DIR", "CUDA_SOURCE_PROPERTY_FORMAT", "CUDA_BUILD_EMULATION",
})
# FindCUDAToolkit's result variables: CUDAToolkit_X -> MUSAToolkit_X.
TOOLKIT_PREFIX = "CUDAToolkit_"
# CMake's own CUDA flags variables: FindMUSA's MUSA_MCC_FLAGS play their part.
CMAKE_FLAGS = {"CMAKE_CUDA_FLAGS": "MUSA_MCC_FLAGS"}
for _cfg in ("DEBUG", "RELEASE", "RELWITHDEBINFO", "MINSIZEREL"):
    CMAKE_FLAGS[f"CMAKE_CUDA_FLAGS_{_cfg}"] = f"MUSA_MCC_FLAGS_{_cfg}"

# CUDA build names with no mechanical MUSA form, and what to do (findings MP3101).
NO_EQUIVALENT = {
    "CMAKE_CUDA_ARCHITECTURES": 'set the arches in MUSA_MCC_FLAGS: string(APPEND MUSA_MCC_FLAGS '
                                '" --offload-arch=mp_22")',
    "CUDA_ARCHITECTURES": 'delete this property; the arch is --offload-arch=mp_XX in '
                          'MUSA_MCC_FLAGS',
    "CMAKE_CUDA_COMPILER": "use ${MUSA_MCC_EXECUTABLE} (set by find_package(MUSA))",
    "CMAKE_CUDA_COMPILER_ID": "delete the check: MUSA is not a CMake language; test MUSA_FOUND",
    "CMAKE_CUDA_COMPILER_VERSION": "use MUSA_VERSION, and compare it with MUSA versions",
    "CMAKE_CUDA_HOST_COMPILER": "delete it: mcc is its own host compiler",
    "CMAKE_CUDA_STANDARD": 'put the standard in MUSA_MCC_FLAGS: string(APPEND MUSA_MCC_FLAGS '
                           '" -std=c++17")',
    "CMAKE_CUDA_STANDARD_REQUIRED": "delete it: the standard is -std=c++NN in MUSA_MCC_FLAGS",
    "CMAKE_CUDA_EXTENSIONS": "delete it: the standard is -std=c++NN in MUSA_MCC_FLAGS",
    "CMAKE_CUDA_SEPARABLE_COMPILATION": "add -fgpu-rdc to MUSA_MCC_FLAGS",
    "CMAKE_CUDA_RESOLVE_DEVICE_SYMBOLS": "delete it: mcc has no separate device link",
    "CMAKE_CUDA_RUNTIME_LIBRARY": "link ${MUSA_LIBRARIES} (the MUSA runtime)",
    "CMAKE_CUDA_COMPILER_LAUNCHER": "delete it: FindMUSA runs mcc in custom commands",
    "CMAKE_CUDA_IMPLICIT_INCLUDE_DIRECTORIES": "use ${MUSA_INCLUDE_DIRS}",
    "CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES": "use ${MUSAToolkit_LIBRARY_DIR}",
    "CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES": "use ${MUSA_INCLUDE_DIRS}",
    "CUDA_SEPARABLE_COMPILATION": "add -fgpu-rdc to MUSA_MCC_FLAGS",
    "CUDA_RESOLVE_DEVICE_SYMBOLS": "delete this property: mcc has no separate device link",
    "CUDA_STANDARD": 'delete this property; put -std=c++NN in MUSA_MCC_FLAGS',
    "CUDA_STANDARD_REQUIRED": "delete this property",
    "CUDA_EXTENSIONS": "delete this property",
    "CUDA_RUNTIME_LIBRARY": "delete this property and link ${MUSA_LIBRARIES}",
    "CUDA_PTX_COMPILATION": "MUSA does not use PTX: build objects with musa_add_library",
    "CUDA_CUDA_LIB": "link MUSA::musa (-lmusa), the MUSA driver library",
    "CUDA_HOST_COMPILER": "delete it: mcc is its own host compiler",
    "CUDACXX": "set nothing: FindMUSA finds mcc from MUSA_PATH / MUSA_HOME",
    "CUDAHOSTCXX": "delete it: mcc is its own host compiler",
    "CUDAFLAGS": "pass device flags in MUSA_MCC_FLAGS",
    "NVCC_PREPEND_FLAGS": "pass the flags to mcc on its command line (MUSA_MCC_FLAGS)",
    "NVCC_APPEND_FLAGS": "pass the flags to mcc on its command line (MUSA_MCC_FLAGS)",
    "CUDA_SDK_ROOT_DIR": "the CUDA samples' helpers have no MUSA equivalent: copy what you "
                         "use into the tree",
    "CUDA_USE_STATIC_CUDA_RUNTIME": "delete it: link ${MUSA_LIBRARIES}",
    "cuda_select_nvcc_arch_flags": "replace it with the arch flags: "
                                   'set(<var> --offload-arch=mp_22)',
    "cuda_add_cublas_to_target": "target_link_libraries(<target> MUSA::mublas)",
    "cuda_add_cufft_to_target": "target_link_libraries(<target> MUSA::mufft)",
    "cuda_compile_ptx": "MUSA does not use PTX: compile objects with musa_add_library",
    "cuda_compile_fatbin": "MUSA has no fatbin output: compile objects with musa_add_library",
    "cuda_compile_cubin": "MUSA has no cubin output: compile objects with musa_add_library",
    "check_language": "use find_package(MUSA) and test MUSA_FOUND",
}


@functools.lru_cache(maxsize=1)
def build_vocabulary_for_names() -> Vocabulary:
    """The name-part vocabulary, with NVCC meaning the compiler (MCC)."""
    return build_vocabulary(sections=[("build files: nvcc is mcc", {"NVCC": "MCC"})])


def findmusa_name(name: str) -> str:
    """A FindCUDA / FindCUDAToolkit name's FindMUSA / MUSAToolkit name."""
    if name in CMAKE_FLAGS:
        return CMAKE_FLAGS[name]
    if name.startswith(TOOLKIT_PREFIX):
        rest = build_vocabulary_for_names().rename(name[len(TOOLKIT_PREFIX):])
        return "MUSAToolkit_" + (rest or name[len(TOOLKIT_PREFIX):])
    return build_vocabulary_for_names().rename(name) or name


def library(name: str) -> str | None:
    """The MUSA library for a CUDA one (``cublas`` -> ``mublas``), or None."""
    return LIBRARIES.get(name)


def suggest_rename(name: str) -> str | None:
    """What the vocabulary would call ``name`` on MUSA (a suggestion, never applied)."""
    return build_vocabulary_for_names().rename(name)


ARCH_WORD = re.compile(r"(?<![A-Za-z0-9])(?:sm|compute|lto)_\d+[a-z]?(?![A-Za-z0-9])")
