"""Finding the compilers: MUSA's mcc, and nvcc (for ``musa-port verify``).

Each finder returns the compiler and the places it looked, so that "not found" can
say exactly where a user should put it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import PortError


@dataclass(frozen=True)
class Toolchain:
    compiler: str  # absolute path
    home: str | None  # MUSA_HOME / CUDA_HOME when known (for -L<home>/lib)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _home(p: Path) -> str | None:
    """``<home>/bin/tool`` -> ``<home>``. Not resolved: a linked bin/mcc still belongs to
    the MUSA_HOME it was found in."""
    return str(p.parent.parent) if p.parent.name == "bin" else None


def _find(tool: str, explicit: str | None, env: dict[str, str] | None, env_vars: tuple[str, ...],
          fixed: list[tuple[str, Path]], advice: str) -> Toolchain:
    """The explicit path, else $VAR/bin/tool for each var, PATH, then ``fixed``."""
    env = dict(os.environ if env is None else env)
    if explicit:
        p = Path(explicit)
        if not p.is_absolute() and os.sep not in explicit:
            found = shutil.which(explicit, path=env.get("PATH"))
            p = Path(found) if found else p
        if _executable(p):
            p = p.absolute()
            return Toolchain(str(p), _home(p))
        raise PortError(f"--{tool} {explicit}: not an executable file")
    searched: list[str] = []
    candidates = [(f"${v}/bin/{tool}", Path(env[v]) / "bin" / tool) for v in env_vars if env.get(v)]
    which = shutil.which(tool, path=env.get("PATH"))
    if which:
        candidates.append(("PATH", Path(which)))
    else:
        searched.append(f"PATH (no {tool})")
    for label, p in [*candidates, *fixed]:
        if _executable(p):
            p = p.absolute()
            return Toolchain(str(p), _home(p) or str(p.parent))
        searched.append(f"{label} ({p})")
    raise PortError(f"{tool} not found; looked in: " + "; ".join(searched) + ". " + advice)


def find_mcc(explicit: str | None = None, env: dict[str, str] | None = None) -> Toolchain:
    """``--mcc``, then $MUSA_HOME, $MUSA_PATH, the folder above ``which mcc``, then
    /usr/local/musa (where a MUSA toolkit is installed by default)."""
    return _find("mcc", explicit, env, ("MUSA_HOME", "MUSA_PATH"),
                 [("/usr/local/musa/bin/mcc", Path("/usr/local/musa/bin/mcc"))],
                 "Install the MUSA toolkit, set MUSA_HOME, or pass --mcc PATH")


def find_nvcc(explicit: str | None = None, env: dict[str, str] | None = None) -> Toolchain:
    """``--nvcc``, then $CUDA_HOME/$CUDA_PATH, PATH, /usr/local/cuda/bin/nvcc, then the
    ``nvidia-cuda-nvcc`` wheel (nvidia/cu13/bin/nvcc)."""
    wheel: list[tuple[str, Path]] = []
    try:
        import nvidia  # type: ignore[import-not-found]

        wheel = [("the nvidia-cuda-nvcc wheel", Path(base) / "cu13" / "bin" / "nvcc")
                 for base in getattr(nvidia, "__path__", [])]
    except ImportError:
        pass  # no nvcc wheel installed
    return _find("nvcc", explicit, env, ("CUDA_HOME", "CUDA_PATH"),
                 [("/usr/local/cuda/bin/nvcc", Path("/usr/local/cuda/bin/nvcc")), *wheel],
                 "Install the CUDA toolkit or `pip install nvidia-cuda-nvcc nvidia-cuda-cccl`, "
                 "or pass --nvcc PATH")
