"""Finding the compilers: MUSA's mcc, and nvcc (for ``musa-port verify``).

Each finder returns the compiler and the places it looked, so that "not found" can
say exactly where a user should put it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .errors import PortError


@dataclass(frozen=True)
class Toolchain:
    compiler: str  # absolute path
    home: str | None  # MUSA_HOME / CUDA_HOME when known (for -L<home>/lib)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_mcc(explicit: str | None = None, env: dict[str, str] | None = None) -> Toolchain:
    """``--mcc``, then $MUSA_HOME, $MUSA_PATH, the folder above ``which mcc``, then
    /usr/local/musa (the brief's order)."""
    env = dict(os.environ if env is None else env)
    searched: list[str] = []
    if explicit:
        p = Path(explicit)
        if not p.is_absolute() and os.sep not in explicit:
            found = shutil.which(explicit, path=env.get("PATH"))
            p = Path(found) if found else p
        if _executable(p):
            p = p.absolute()
            home = p.parent.parent if p.parent.name == "bin" else None
            return Toolchain(str(p), str(home) if home else None)
        raise PortError(f"--mcc {explicit}: not an executable file")
    candidates: list[tuple[str, Path]] = []
    for var in ("MUSA_HOME", "MUSA_PATH"):
        if env.get(var):
            candidates.append((f"${var}/bin/mcc", Path(env[var]) / "bin" / "mcc"))
    which = shutil.which("mcc", path=env.get("PATH"))
    if which:
        candidates.append(("the folder above `which mcc`", Path(which)))
    else:
        searched.append("PATH (no mcc)")
    candidates.append(("/usr/local/musa/bin/mcc", Path("/usr/local/musa/bin/mcc")))
    for label, p in candidates:
        if _executable(p):
            p = p.absolute()  # not resolve(): a linked bin/mcc still belongs to its MUSA_HOME
            home = p.parent.parent if p.parent.name == "bin" else p.parent
            return Toolchain(str(p), str(home))
        searched.append(f"{label} ({p})")
    raise PortError("mcc not found; looked in: " + "; ".join(searched)
                    + ". Install the MUSA toolkit, set MUSA_HOME, or pass --mcc PATH")


def find_nvcc(explicit: str | None = None, env: dict[str, str] | None = None) -> Toolchain:
    """``--nvcc``, then $CUDA_HOME/$CUDA_PATH, PATH, /usr/local/cuda/bin/nvcc, then the
    ``nvidia-cuda-nvcc`` wheel (nvidia/cu13/bin/nvcc)."""
    env = dict(os.environ if env is None else env)
    if explicit:
        p = Path(explicit)
        if not p.is_absolute() and os.sep not in explicit:
            found = shutil.which(explicit, path=env.get("PATH"))
            p = Path(found) if found else p
        if _executable(p):
            p = p.resolve()
            return Toolchain(str(p), str(p.parent.parent))
        raise PortError(f"--nvcc {explicit}: not an executable file")
    searched: list[str] = []
    candidates: list[tuple[str, Path]] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            candidates.append((f"${var}/bin/nvcc", Path(env[var]) / "bin" / "nvcc"))
    which = shutil.which("nvcc", path=env.get("PATH"))
    if which:
        candidates.append(("PATH", Path(which)))
    else:
        searched.append("PATH (no nvcc)")
    candidates.append(("/usr/local/cuda/bin/nvcc", Path("/usr/local/cuda/bin/nvcc")))
    try:
        import nvidia  # type: ignore[import-not-found]

        for base in getattr(nvidia, "__path__", []):
            candidates.append(("the nvidia-cuda-nvcc wheel", Path(base) / "cu13" / "bin" / "nvcc"))
    except ImportError:
        searched.append("the nvidia-cuda-nvcc wheel (not installed)")
    for label, p in candidates:
        if _executable(p):
            p = p.resolve()
            return Toolchain(str(p), str(p.parent.parent))
        searched.append(f"{label} ({p})")
    raise PortError("nvcc not found; looked in: " + "; ".join(searched)
                    + ". Install the CUDA toolkit or `pip install nvidia-cuda-nvcc "
                      "nvidia-cuda-cccl`, or pass --nvcc PATH")
