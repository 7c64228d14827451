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

import glob
import os
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


def toolkit_dirs(nvcc: str, env: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
    """The CUDA toolkit's include folders, as its nvcc.profile gives them to nvcc (the
    host compiler needs them too: torch's ATen/cuda headers include cuda_runtime_api.h,
    cublas_v2.h, cusparse.h): ``targets/*/include`` (where cuBLAS, cuSPARSE... are, and
    what ``include`` links to) and CCCL's (Thrust, CUB) as system folders.

    The toolkit is the one around the nvcc (its real path: a link on PATH), else, for an
    nvcc that is a wrapper script, the first of $CUDA_HOME, $CUDA_PATH and
    /usr/local/cuda that has the CUDA runtime's header, as torch's cpp_extension finds
    its CUDA_HOME. Found by looking, not by running nvcc: nothing runs outside ninja,
    whose compiles die with musa-port (a tool that hangs is ninja's to stop)."""
    env = dict(os.environ if env is None else env)
    homes = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
             os.path.dirname(os.path.dirname(os.path.abspath(nvcc))),
             *[env[v] for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)], "/usr/local/cuda"]
    for home in homes:
        dirs = [*sorted(glob.glob(os.path.join(home, "targets", "*", "include"))),
                os.path.join(home, "include")]
        plain, seen = [], set()
        for d in dirs:
            real = os.path.realpath(d)
            if os.path.isfile(os.path.join(d, "cuda_runtime.h")) and real not in seen:
                seen.add(real)
                plain.append(d)
        if plain:
            system = [os.path.join(d, "cccl") for d in plain if os.path.isdir(os.path.join(d, "cccl"))]
            return plain, system
    return [], []


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
