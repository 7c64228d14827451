"""A header not on the include path, said plainly (MP3005), with what ``musa-port
verify`` knows of where it should have come from: torch (found or not, and where it
looked), Python, a CUDA library that the toolkit of the nvcc it ran lacks, or a
header the port's shim stands for."""

from __future__ import annotations

from pathlib import Path

from .diagnostics import missing_header
from .result import BuildResult
from .torch_env import TORCH_INCLUDE_PREFIXES
from .verify_setup import Setup

# Headers of the CUDA math and communication libraries: the toolkit's targets/*/include,
# or the nvidia-* wheels (nvidia-cublas, -cusparse, ...), which a CUDA torch depends on.
_CUDA_LIBRARIES = ("cublas", "cusparse", "cusolver", "curand", "cufft", "cudnn", "nccl", "nvtx",
                   "nvToolsExt", "cutensor", "cudss", "nvjpeg", "npp", "cupti")


def explain(result: BuildResult, setup: Setup, torch_mode: str, nvcc: str, shim_dir: Path) -> None:
    """Give every missing-header error of ``result`` its cause and what to do."""
    for f in result.files:
        for d in f.diagnostics:
            header = missing_header(d)
            if header is not None:
                via = _shim_header(d.file, shim_dir)
                d.hint = _advice(header, setup, torch_mode, nvcc, via)


def _shim_header(file: str | None, shim_dir: Path) -> str | None:
    """The MUSA header of the shim the error is in (it includes the CUDA one), if so."""
    if not file:
        return None
    path = Path(file) if Path(file).is_absolute() else shim_dir.parent / file
    try:
        return path.resolve().relative_to(shim_dir.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def _advice(header: str, setup: Setup, torch_mode: str, nvcc: str, via: str | None) -> str:
    said = f"{header} is not on the include path"
    if via is not None and not via.startswith("pre/"):
        said += f" (the port's {via} stands for it)"
    torch = setup.torch
    if header.startswith(TORCH_INCLUDE_PREFIXES):
        if torch is not None:
            return (f"{said}: it is not among the headers of {torch.note()} (a header of "
                    "another torch version, or of a CUDA build only); pass a folder that holds "
                    "it with -I DIR, or name another Python with --torch-python")
        if torch_mode == "off":
            return (f"{said}: it is torch's, and --no-torch leaves torch out: pass torch's "
                    "include folders with -I DIR, or drop --no-torch")
        where = f" (no torch found: {'; '.join(setup.torch_looked)})" if setup.torch_looked else ""
        return (f"{said}: it is torch's{where}; install torch in the Python that runs "
                "musa-port, name a Python that has it with --torch-python PYTHON, or pass "
                "torch's include folders with -I DIR")
    if header in ("Python.h", "pyconfig.h"):
        return (f"{said}: it is Python's; install Python's development headers (python3-dev) "
                "for the Python whose torch verify uses, or pass their folder with -I DIR")
    name = header.rsplit("/", 1)[-1]
    if name.startswith(_CUDA_LIBRARIES):
        return (f"{said}: it is a CUDA library's, and the toolkit of {nvcc} does not have it: "
                "install the library's headers (its CUDA toolkit package, or the nvidia-* "
                "wheel in torch's Python), or pass their folder with -I DIR")
    return f"{said}: pass the folder that holds it with -I DIR"
