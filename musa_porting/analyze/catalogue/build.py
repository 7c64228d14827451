"""MP31xx: build files (CMake, Make, shell); see analyze/build_findings.py and
docs/build-files.md."""

from __future__ import annotations

from .model import Check

_FAMILY = "build-files"

CHECKS = (
    Check("MP3101", "cuda-build-setting", "error", True,
          "A CUDA toolchain setting in a build file with no mechanical MUSA form (a "
          "`CMAKE_CUDA_*` variable, CUDA as a CMake language, a `CUDA_*` target property, a "
          "FindCUDA helper): the message says what to write instead.",
          "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)",
          family=_FAMILY,
          why="CMake has no MUSA language: the setting does nothing, or stops the configure.",
          instead="The FindMUSA form the message gives (`MUSA_MCC_FLAGS`, `musa_add_library`, "
                  "...)."),
    Check("MP3102", "unported-build-name", "error", True,
          "An nvcc option, CUDA library or `CUDA::` target with no MUSA equivalent is left in "
          "a build file.", "target_link_libraries(k CUDA::nvToolsExt)", family=_FAMILY,
          why="mcc or the linker will not find it.",
          instead="Drop it, or link the MUSA library that provides the same (see the message)."),
    Check("MP3103", "cuda-named-build-name", "warning", True,
          "A name or value in a build file looks like CUDA (a project variable, a macro, a "
          "\"CUDA\" string) and no rule ports it (`NVCCFLAGS`, `CUDA_SUPPORTED_ARCHS`).",
          'set(GPU_LANG "CUDA")', family=_FAMILY,
          why="The MUSA side may expect another name or value.",
          instead="Rename it where the MUSA side expects another name (a rule does it "
                  "everywhere), or `--keep` it."),
    Check("MP3104", "gpu-arch", "warning", False,
          "An NVIDIA arch (`-arch=sm_XX`, `-gencode`, `CMAKE_CUDA_ARCHITECTURES`, "
          "`TORCH_CUDA_ARCH_LIST`, in a build file or a setup.py) became the MUSA arches of "
          "`--arch`: sm numbers do not map 1:1 to MUSA arches. (An arch number compared with "
          "`__CUDA_ARCH__` in a source is MP2008.)", "nvcc -arch=sm_80 k.cu", family=_FAMILY,
          why="mp_21 is MTT S80/S3000, mp_22 S4000, mp_31 S5000; the sm number says nothing "
              "about which of them you build for.",
          instead="Pass the arches you target with `--arch` (mp_21, mp_22, mp_31)."),
    Check("MP3105", "nvcc-flag", "warning", False,
          "An nvcc option was dropped (mcc has no use for it) or became mcc's nearest option "
          "(clang's spelling): check it.", "nvcc --expt-relaxed-constexpr -lineinfo",
          family=_FAMILY,
          why="mcc is a clang driver: nvcc's options have other names or no counterpart.",
          instead="Check the mcc option the message names, or drop the option."),
    Check("MP3106", "build-version-comparison", "warning", False,
          "A build file compares or requests a CUDA version; after porting it is the MUSA "
          "version, numbered differently (MUSA 3.x, 4.x).",
          "if(CUDA_VERSION VERSION_GREATER_EQUAL 11.8)", family=_FAMILY,
          why="The comparison keeps CUDA's numbers and so takes the other branch on MUSA.",
          instead="Compare with the MUSA release that has what the branch needs."),
    Check("MP3107", "build-rewrite", "note", False,
          "A build construct became its FindMUSA form (CUDA in `project()` or "
          "`enable_language()`, a target of .cu files, `CMAKE_CUDA_STANDARD`): the message "
          "says what to check.", "project(demo LANGUAGES CXX CUDA)", family=_FAMILY,
          why="The rewrite is mechanical; the project's own logic around it may need care.",
          instead="Check the rewritten lines."),
    Check("MP3108", "build-message-text", "note", False,
          "A message, `echo` or doc string in a build file mentions CUDA; prose is never "
          "rewritten.", 'message(STATUS "nvcc found")', family=_FAMILY,
          why="Users read it; it may now say the wrong thing.",
          instead="Reword it if it should speak of MUSA."),
)
