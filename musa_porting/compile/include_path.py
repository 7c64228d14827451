"""Where ``musa-port verify``'s compiles look for headers, known before they run.

The shim's prelude must bring in, before it poisons the CUDA names, every header a file
reaches outside the tree (``shim.write_prelude``). It used to test each one with
``__has_include``; but a header not on the path then vanished twice over: GCC (before
14, https://gcc.gnu.org/PR80753) also skips a later ``#include`` of a header that
``__has_include`` did not find, without a word, and the user saw hundreds of errors
("identifier torch is undefined") instead of the one that mattered. Now verify looks
the headers up itself, in the folders the compilers search, and the prelude includes
only those found: a missing one is left to the file's own ``#include``, whose error
("torch/extension.h: No such file or directory", at the file's line) comes first.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

# The CMake-generated header of a CUDA build of torch: the CPU wheels do not ship it,
# yet c10/cuda/CUDAMacros.h includes it. Its content in a shared-library build.
CMAKE_MACROS = "c10/cuda/impl/cuda_cmake_macros.h"
_CMAKE_MACROS_TEXT = ("/* musa-port verify: a stand-in for torch's CMake-generated header, which\n"
                      "   torch's CPU wheels do not ship (c10/cuda/CUDAMacros.h includes it). */\n"
                      "#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n")


@lru_cache(maxsize=8)
def system_dirs(compiler: str) -> tuple[str, ...]:
    """The folders ``compiler`` (gcc, clang: the host compiler, and nvcc's) searches
    without being told: it prints them for ``-E -v``. None when it cannot say."""
    try:
        proc = subprocess.run([compiler, "-x", "c++", "-E", "-v", "-"], input="", text=True,
                              capture_output=True, timeout=60, errors="replace")
    except (OSError, subprocess.SubprocessError):
        return ()
    dirs, inside = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            dirs.append(line.strip().removesuffix(" (framework directory)"))
    return tuple(dirs)


@lru_cache(maxsize=8)
def toolkit_dirs(nvcc: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The CUDA toolkit's include folders, as nvcc gives them to its own steps (the host
    compiler needs them too: torch's ATen/cuda headers include cuda_runtime_api.h,
    cublas_v2.h, cusparse.h): its nvcc.profile's ``INCLUDES`` (``targets/*/include``,
    where cuBLAS, cuSPARSE... are) and ``SYSTEM_INCLUDES`` (CCCL's: Thrust, CUB). nvcc
    says them under ``-dryrun``, wherever it is installed and however it is started (a
    wrapper script on PATH, the nvidia-cuda-nvcc wheel)."""
    try:
        proc = subprocess.run([nvcc, "-dryrun", "-x", "cu", "-E", "-"], input="", text=True,
                              capture_output=True, timeout=60, errors="replace")
    except (OSError, subprocess.SubprocessError):
        return (), ()
    plain: list[str] = []
    system: list[str] = []
    for line in proc.stderr.splitlines():
        for var, into in (("INCLUDES=", plain), ("SYSTEM_INCLUDES=", system)):
            if line.startswith("#$ " + var):
                try:
                    words = shlex.split(line[len("#$ " + var):])
                except ValueError:
                    continue
                into += [w[2:] if w.startswith("-I") else w for w in words if w != "-isystem"]
    return (tuple(os.path.normpath(d) for d in plain if d and os.path.isdir(d)),
            tuple(os.path.normpath(d) for d in system if d and os.path.isdir(d)))


def stand_ins(dirs: Iterable[str], shim_dir: Path) -> list[str]:
    """Write into the shim the headers a CUDA build of torch has and the torch on the
    path lacks; returns their names. Only when a folder holds torch's c10/cuda and
    none holds the header (a CUDA build's own one wins)."""
    from .ninja import write_if_changed

    dirs = list(dirs)
    target = shim_dir / CMAKE_MACROS
    torch_cuda = any(os.path.isfile(os.path.join(d, "c10/cuda/CUDAMacros.h")) for d in dirs)
    if torch_cuda and not any(os.path.isfile(os.path.join(d, CMAKE_MACROS)) for d in dirs):
        target.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(target, _CMAKE_MACROS_TEXT)
        return [CMAKE_MACROS]
    if target.exists():
        target.unlink()  # torch has its own now
    return []


class HeaderFinder:
    """Whether a header is on the compile's include path (folders in search order)."""

    def __init__(self, dirs: Iterable[str]):
        self.dirs = [d for d in dict.fromkeys(dirs) if d]
        self._cache: dict[str, bool] = {}

    def __call__(self, target: str) -> bool:
        hit = self._cache.get(target)
        if hit is None:
            hit = any(os.path.isfile(os.path.join(d, target)) for d in self.dirs)
            self._cache[target] = hit
        return hit
