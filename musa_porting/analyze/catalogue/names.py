"""MP1xxx: residuals (CUDA names and headers left) and the tree's own CUDA-named names."""

from __future__ import annotations

from .model import Check

CHECKS = (
    Check("MP1001", "unported-cuda-api", "error", True,
          "A CUDA API that the tables know has no MUSA equivalent (or whose family is "
          "disabled) is still used: also THC's and NVML's names the legacy_torch and nvml "
          "tables mark unsupported (`THCState`, `nvmlDeviceGetClockInfo`). The message ends "
          "with the table's note of what to write instead, where it has one.",
          "cudaGLSetGLDevice(0);", family="residuals",
          why="The name does not exist on MUSA: the ported file does not compile, or calls "
              "what is not there.",
          instead="Rewrite the code without the API (the message names its feature family "
                  "and what MUSA offers instead), or switch its family on with "
                  "`--enable-family` if your MUSA SDK has it."),
    Check("MP1002", "unknown-cuda-name", "warning", True,
          "An identifier that looks like CUDA (`cuda*`, `CUDA*`, `cu[A-Z]*`, `CU_*`, "
          "`CU[a-z]*`, `cublas*`, `curand*`, `cusparse*`, `cufft*`, `cusolver*`, `cudnn*`, "
          "`nccl*`, `cupti*`, `nvtx*`, `nvrtc*`, `__nv*`, `nv_*`, `NV*`, THC's `THC*` and "
          "NVML's `nvml*`) is in no table: add "
          "a rule, or `--keep` it. A name the tree defines itself (`#define NVXX_CHECK`, "
          "`struct NVXXTensor`) is the project's: one note where it is defined, and its "
          "uses are not reported.", "cudaFooBar(x);", family="residuals",
          why="No table knows the name, so it was left as it is: a CUDA API the tables miss, "
              "or a name of your own that only looks like CUDA.",
          instead="Add a rule (`cudaFooBar: musaFooBar`) for an API, or `--keep cudaFooBar` "
                  "for a name that is meant to stay."),
    Check("MP1003", "cuda-header", "error", True,
          "An `#include` still names a CUDA header that is not a file of the tree.",
          "#include <cuda_gl_interop.h>", family="residuals",
          why="The header does not exist in the MUSA SDK: the file does not compile.",
          instead="Include the MUSA header that declares what the file uses, or add a rule "
                  "for the header (`cuda_gl_interop.h: ...`)."),
    Check("MP1004", "project-symbol-renamed", "note", False,
          "A name the tree itself defines holds a CUDA word; it is renamed everywhere in the "
          "tree (one note per name, at its definition site). `--keep` it or "
          "`--no-project-symbols` to stop it.",
          "#define MYLIB_CUDA_CHECK(x) ...", family="project-symbols",
          why="Human porters rename the project's own CUDA-named names; callers outside the "
              "ported tree (Python bindings, another tree) must agree.",
          instead="Nothing, if the rename is wanted; `--keep MYLIB_CUDA_CHECK` otherwise.",
          fixed="#define MYLIB_MUSA_CHECK(x) ..."),
    Check("MP1005", "project-symbol-collision", "warning", False,
          "A name the tree defines holds a CUDA word, but its MUSA name is taken (the tree "
          "defines or uses it, or the tables do), so neither is renamed.",
          "#define CUDA_CHECK ... / #define MUSA_CHECK ...", family="project-symbols",
          why="Renaming would merge two different names into one.",
          instead="Rename one of them by hand, or add a rule that gives the CUDA one another "
                  "MUSA name."),
    Check("MP1007", "project-symbol-exported", "note", False,
          "A name the tree defines holds a CUDA word, but Python calls it by name (a pybind11 "
          "or TORCH_LIBRARY binding): kept, at its binding site. `--rename-exported` renames "
          "it and the run's Python callers.", 'm.def("get_compiling_cuda_version", ...)',
          family="project-symbols",
          why="Python code outside the ported folder (mmcv's `ext_loader.load_ext`, a "
              "package's `_custom_ops.py`) calls the binding by its name; renaming it breaks "
              "the import.",
          instead="Nothing: the name is kept. Pass `--rename-exported` (or "
                  "`rename_exported=True`) only when the Python callers are ported too."),
    Check("MP1008", "exported-name-renamed", "warning", False,
          "A name Python calls by name was renamed (`--rename-exported`): the Python files of "
          "the run follow, callers outside SRC (other packages, other trees) do not.",
          'm.def("quant_cuda", ...)', family="project-symbols",
          why="A caller the run cannot see still asks for the old name and fails at import "
              "or call time.",
          instead="Rename the callers outside SRC by hand, or drop `--rename-exported` to keep "
                  "the name.",
          fixed='m.def("quant_musa", ...)'),
    Check("MP1009", "cuda-named-string", "warning", True,
          "A string literal names a CUDA shared library or environment variable that has no "
          "attested MUSA name (or keeps a CUDA library's version suffix): the program would "
          "load or read the CUDA one at run time.", 'dlopen("libnvrtc.so", RTLD_LAZY);',
          family="residuals",
          why="A library or variable named in a string is looked up at run time: on a MUSA "
              "machine it is missing, or it is the CUDA one.",
          instead="Name the MUSA library or variable your SDK provides (`libmusart.so`, "
                  "`MUSA_VISIBLE_DEVICES`), or drop the code path on MUSA."),
    Check("MP1010", "unattested-musa-name", "note", False,
          "The port renamed CUDA names to MUSA names of unknown status: the naming pattern "
          "made them, and no vendor table or source shows that MUSA has them. A note at each "
          "(the summary lists a file's in one), so that they are checked first.",
          "__half2 h = __nv_cvt_fp8x2_to_halfraw2(v, __NV_E4M3);", family="residuals",
          why="Most such names exist (the pattern is the vendor's), but not all do, and a port "
              "checked with `musa-port verify` compiles through the shim whether MUSA has the "
              "name or not: only the MUSA SDK's headers, or mcc, tell.",
          instead="Look each name up in your MUSA SDK's headers (`grep -rw __mt_cvt_fp8x2_to_"
                  "halfraw2 $MUSA_HOME/include`). Where MUSA names it differently, or keeps "
                  "the CUDA name, add a rule (`__nv_cvt_fp8x2_to_halfraw2: "
                  "__nv_cvt_fp8x2_to_halfraw2` keeps it); `musa-port rules NAME` shows what "
                  "the tables know."),
    Check("MP1011", "enable-macro-gate", "warning", False,
          "Code gated on a CUDA enable macro of the project (`WITH_CUDA`, `USE_CUDA`, "
          "`*_ENABLE_CUDA`, one the build defines or the rules rename): a warning at a file's "
          "first gate, with the MUSA macro the ported build defines, and a note at each other "
          "gate (the summary shows the warning, with the lines of all).",
          "#ifdef WITH_CUDA", family="project-symbols", lower="another gate of the file",
          why="The port renames the macro where the build defines it, so the CUDA branch is "
              "now the MUSA branch: it compiles for MUSA as it is. Human porters add a MUSA "
              "branch or guard beside such gates where the CUDA code cannot serve.",
          instead="Check the code each gate of the file keeps for MUSA; where it cannot run "
                  "there, add a `#elif defined(WITH_MUSA)` branch (or keep the CUDA macro with "
                  "`--keep WITH_CUDA` and add a MUSA gate beside it).",
          fixed="#if defined(WITH_MUSA)"),
    Check("MP1012", "unattested-torch-name", "warning", False,
          "A PyTorch C++ name was renamed by the naming rules to a MUSA name torch_musa's own "
          "sources do not use (`ScalarTypeToCudaDataType` -> `ScalarTypeToMusaDataType`, "
          "`getCurrentCUDASparseHandle`).",
          "auto t = at::cuda::ScalarTypeToCudaDataType(x.scalar_type());", family="residuals",
          why="torch_musa ports only part of PyTorch's CUDA API: a name it does not use may not "
              "exist, and the call stops compiling.",
          instead="Write it out with what torch_musa has (a `switch` from `at::ScalarType` to "
                  "`musaDataType_t`: `MUSA_R_16F`, `MUSA_R_32F`, ...), or call torch_musa's "
                  "counterpart where its headers have one."),
    Check("MP1013", "unattested-header", "warning", False,
          "An `#include` of a CUDA header that has no MUSA twin the vendor confirms: one the "
          "port renamed by a rule whose status is `unknown` (`<cuda_pipeline.h>` -> "
          "`<musa_pipeline.h>`, `<ATen/cuda/ThrustAllocator.h>`), or one no table renames "
          "because MUSA has no counterpart known (`<mma.h>`, `<cuda/barrier>`, "
          "`<cuda/pipeline>`, `<cooperative_groups/reduce.h>`, `<sm_60_atomic_functions.h>`).",
          "#include <cuda_pipeline.h>", family="residuals",
          why="Only some MUSA toolkits ship such a header, or none does: the file stops "
              "compiling there, and human porters replace the include by the header that "
              "declares what the file uses, or drop it.",
          instead="Include the MUSA header that declares what the file uses (`musa_runtime.h`, "
                  "`musa_fp16.h`, torch_musa's `MUSAContext.h`), drop the include where nothing "
                  "of it is used, or guard it with `#ifndef __MUSACC__`."),
    Check("MP1014", "merged-include", "note", False,
          "An `#include` the port made the same as an earlier one of the file: two CUDA "
          "headers that are one header on MUSA (`<cublas.h>` and `<cublas_v2.h>` are both "
          "`<mublas.h>`; `<THC/THC.h>` and `<ATen/cuda/CUDAContext.h>` are both torch_musa's "
          "`MUSAContext.h`). A note at the second include; a header included twice in the "
          "source is left alone.",
          "#include <ATen/cuda/CUDAContext.h>\n#include <THC/THC.h>", family="residuals",
          why="The second include does nothing on MUSA: human porters delete it (and the "
              "`#if` that chose between the two, where there is one).",
          instead="Drop the second include.",
          fixed="#include <torch_musa/csrc/aten/musa/MUSAContext.h>"),
    Check("MP1015", "nvcc-pragma", "note", False,
          "An nvcc pragma in a ported file: `#pragma nv_diag_suppress` (and `nv_diag_default`, "
          "`nv_diag_warning`, `nv_diag_error`, `nv_diag_once`, `nv_diagnostic`), its older "
          "spelling `diag_suppress`, `hd_warning_disable`, `nv_exec_check_disable`. A note at "
          "each pragma.", "#pragma nv_diag_suppress 177", family="residuals",
          why="These pragmas are nvcc's own and name nvcc's diagnostic numbers (CUDA Compiler "
              "Driver NVCC documentation); MUSA's compiler is not nvcc and ignores them, so "
              "the warnings they silenced come back. An `#if defined(__NVCC__)` around them "
              "became `__MUSACC__`, which turns them on for MUSA.",
          instead="Drop the pragma (or its guard) from the MUSA build, or write the compiler's "
                  "own (`#pragma clang diagnostic ignored \"-W...\"`)."),
    Check("MP1006", "source-not-text", "warning", True,
          "A source file holds NUL bytes or is UTF-16/UTF-32 text: the rules cannot port it, "
          "so it is copied unchanged under its own name (k.cu stays k.cu).",
          "k.cu saved as UTF-16", family="residuals",
          why="Nothing in the file was ported.",
          instead="Convert the file to UTF-8 and port again."),
)
