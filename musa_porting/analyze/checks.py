"""Finding kinds and findings: each has a stable ID (documented in the README) so that
CI can suppress or gate on it. A new finding ID is added to ``CHECKS`` here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import PortError


@dataclass(frozen=True)
class Check:
    """A diagnostic kind: stable ID, short name, level, and what it means."""

    id: str
    name: str
    level: str  # SARIF levels: "error", "warning", "note"
    residual: bool  # counts as a residual (--check, conversion rate)
    description: str
    example: str


CHECKS: dict[str, Check] = {c.id: c for c in (
    Check("MP1001", "unported-cuda-api", "error", True,
          "A CUDA API that the tables know has no MUSA equivalent (or whose family is "
          "disabled) is still used.", "cudaGLSetGLDevice(0);"),
    Check("MP1002", "unknown-cuda-name", "warning", True,
          "An identifier that looks like CUDA (cuda*, CUDA*, cu[A-Z]*, CU_*, CU[a-z]*, "
          "cublas*, nccl*, __nv*, NV*, ...) is not in any table: add a rule, or --keep it.",
          "cudaFooBar(x);"),
    Check("MP1003", "cuda-header", "error", True,
          "An #include still names a CUDA header that is not a file of the tree.",
          "#include <cuda_gl_interop.h>"),
    Check("MP1004", "project-symbol-renamed", "note", False,
          "A name the tree itself defines holds a CUDA word; it is renamed everywhere in "
          "the tree (at its definition site). --keep it or --no-project-symbols to stop it.",
          "#define MYLIB_CUDA_CHECK(x) ...   // -> MYLIB_MUSA_CHECK"),
    Check("MP1005", "project-symbol-collision", "warning", False,
          "A name the tree defines holds a CUDA word, but its MUSA name is taken (the tree "
          "defines or uses it, or the tables do), so neither is renamed.",
          "#define CUDA_CHECK ... / #define MUSA_CHECK ..."),
    Check("MP1007", "project-symbol-exported", "note", False,
          "A name the tree defines holds a CUDA word, but Python calls it by name (a pybind11 "
          "or TORCH_LIBRARY binding): kept, at its binding site. --rename-exported renames it "
          "and the run's Python callers.", 'm.def("get_compiling_cuda_version", ...)'),
    Check("MP1008", "exported-name-renamed", "warning", False,
          "A name Python calls by name was renamed (--rename-exported): the Python files of "
          "the run follow, callers outside SRC (other packages, other trees) do not.",
          'm.def("quant_cuda", ...)   // -> "quant_musa"'),
    Check("MP1006", "source-not-text", "warning", True,
          "A source file holds NUL bytes or is UTF-16/UTF-32 text: the rules cannot port it, "
          "so it is copied unchanged under its own name (k.cu stays k.cu). Convert it to "
          "UTF-8 to port it.", "k.cu saved as UTF-16"),
    Check("MP1009", "cuda-named-string", "warning", True,
          "A string literal names a CUDA shared library or environment variable that has no "
          "attested MUSA name (or keeps a CUDA library's version suffix): the program would "
          "load or read the CUDA one at run time.", 'dlopen("libnvrtc.so", RTLD_LAZY);'),
    Check("MP2001", "inline-ptx", "warning", False,
          "Inline assembly (PTX) does not run on MUSA.", 'asm volatile("bar.sync 0;");'),
    Check("MP2002", "warp-size-32", "warning", False,
          "Code assumes a warp of 32 lanes (full 32-bit lane masks, & 31, a 32 warp "
          "constant); MUSA warps are 128 wide on mp_21/mp_22.",
          "__shfl_down_sync(0xffffffff, v, 16);"),
    Check("MP2003", "version-comparison", "warning", False,
          "A CUDA version or architecture number is compared after renaming: MUSA's "
          "values differ (MUSA_VERSION 50200, __MUSA_ARCH__ 210/220/310).",
          "#if MUSA_VERSION >= 12080"),
    # Build files (CMake, Make, shell): see analyze/build_findings.py and docs/build-files.md.
    Check("MP3101", "cuda-build-setting", "error", True,
          "A CUDA toolchain setting in a build file with no mechanical MUSA form (a "
          "CMAKE_CUDA_* variable, CUDA as a CMake language, a CUDA_* target property, a "
          "FindCUDA helper): the message says what to write instead.",
          "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)"),
    Check("MP3102", "unported-build-name", "error", True,
          "An nvcc option, CUDA library or CUDA:: target with no MUSA equivalent is left in "
          "a build file.", "target_link_libraries(k CUDA::nvToolsExt)"),
    Check("MP3103", "cuda-named-build-name", "warning", True,
          "A name or value in a build file looks like CUDA (a project variable, a macro, a "
          "\"CUDA\" string) and no rule ports it: rename it where the MUSA side expects "
          "another name, or --keep it.", 'set(GPU_LANG "CUDA")'),
    Check("MP3104", "gpu-arch", "warning", False,
          "An NVIDIA arch (-arch=sm_XX, -gencode, CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST, "
          "in a build file or a setup.py) became the MUSA arches of --arch, or a CUDA arch "
          "number compared with __CUDA_ARCH__ became the MUSA value the brief's table gives "
          "(>= 800 is >= 220, >= 900 is >= 310): sm numbers do not map 1:1 to MUSA arches "
          "(mp_21 MTT S80/S3000, mp_22 S4000, mp_31 S5000).", "nvcc -arch=sm_80 k.cu"),
    Check("MP3105", "nvcc-flag", "warning", False,
          "An nvcc option was dropped (mcc has no use for it) or became mcc's nearest "
          "option (clang's spelling): check it.", "nvcc --expt-relaxed-constexpr -lineinfo"),
    Check("MP3106", "build-version-comparison", "warning", False,
          "A build file compares or requests a CUDA version; after porting it is the MUSA "
          "version, numbered differently (MUSA 3.x, 4.x).",
          "if(CUDA_VERSION VERSION_GREATER_EQUAL 11.8)"),
    Check("MP3107", "build-rewrite", "note", False,
          "A build construct became its FindMUSA form (CUDA in project() or "
          "enable_language(), a target of .cu files, CMAKE_CUDA_STANDARD): the message says "
          "what to check.", "project(demo LANGUAGES CXX CUDA)"),
    Check("MP3108", "build-message-text", "note", False,
          "A message, echo or doc string in a build file mentions CUDA; prose is never "
          "rewritten: reword it if it should speak of MUSA.", 'message(STATUS "nvcc found")'),
    # Python findings (port/python, analyze/python_findings.py).
    Check("MP4001", "unknown-torch-musa-name", "warning", False,
          "torch.cuda.X was renamed to torch.musa.X, but X is not among torch.musa's public "
          "names (torch_musa's list): check that it exists.", "torch.cuda.list_gpu_processes()"),
    Check("MP4002", "cupy", "error", True,
          "CuPy has no MUSA backend.", "import cupy as cp"),
    Check("MP4003", "pycuda", "error", True,
          "PyCUDA drives the CUDA driver API, which MUSA does not provide to Python.",
          "import pycuda.driver as drv"),
    Check("MP4004", "numba-cuda", "error", True,
          "numba.cuda compiles kernels for NVIDIA GPUs only.", "from numba import cuda"),
    Check("MP4005", "triton-kernel", "warning", False,
          "A Triton kernel runs on MUSA only with a Triton build that has the MUSA backend.",
          "@triton.jit"),
    Check("MP4006", "nvidia-tool-call", "warning", False,
          "A subprocess runs nvidia-smi or nvcc; MUSA's tools are mthreads-gmi and mcc, with "
          "other options.", 'subprocess.run(["nvidia-smi"])'),
    Check("MP4007", "python-parse-error", "warning", False,
          "A statement that does not parse as Python 3 (a syntax error, Python 2) was ported by "
          "text rules only; or a file that does not parse as a whole had its statements ported "
          "one by one.", 'print "cuda"'),
    Check("MP4008", "torch-musa-import", "warning", False,
          "An import names a submodule of torch.cuda (or torch.backends.cudnn) that torch_musa "
          "has only as an attribute (torch.musa, torch.backends.mudnn are set by import "
          "torch_musa, not importable): left as it is; use the attribute in code.",
          "from torch.cuda.amp import autocast"),
)}

@dataclass(frozen=True)
class Diagnostic:
    """One finding, placed in the ported file and in the CUDA original (1-based)."""

    id: str
    text: str
    line: int
    column: int
    src_line: int
    src_column: int
    message: str

    @property
    def check(self) -> Check:
        return CHECKS[self.id]

    def to_list(self) -> list:
        return [self.id, self.text, self.line, self.column, self.src_line, self.src_column,
                self.message]

    @classmethod
    def from_list(cls, row: Sequence) -> Diagnostic:
        return cls(*row)



def parse_ids(values: Iterable[str]) -> frozenset[str]:
    """``--suppress MP1002,MP2001`` (names work too: unknown-cuda-name)."""
    by_name = {c.name: c.id for c in CHECKS.values()}
    out = set()
    for v in values:
        for item in v.split(","):
            item = item.strip()
            if not item:
                continue
            cid = by_name.get(item, item.upper())
            if cid not in CHECKS:
                raise PortError(f"unknown diagnostic {item!r} for --suppress; known: "
                                + ", ".join(sorted(CHECKS)))
            out.add(cid)
    return frozenset(out)
