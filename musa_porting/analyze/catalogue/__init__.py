"""The catalogue of findings: every ID musa-port reports, in ONE table.

Each ``Check`` says what it finds, why that matters, an example and what to use
instead, in the manner of ruff's rules. Everything that describes a finding reads it
from here: the documentation's findings pages (``pages``, checked by a test),
``musa-port --help-all``, ``musa-port explain ID``, the JSON report's ``checks`` and
the SARIF rules (``help`` text, ``helpUri``). A new ID is a ``Check`` in the part
module of its family; the scan that emits it lives in ``analyze/``.
"""

from __future__ import annotations

from .model import Check, Family

FAMILIES: dict[str, Family] = {f.key: f for f in (
    Family("inputs", "Inputs set aside",
           "One input the run could not port as the rest: two inputs that want one output "
           "path, a MUSA version the tree already has, a name the file system cannot hold, "
           "a file that cannot be read or that musa-port failed on. The rest of the tree is "
           "ported; each finding names the paths involved."),
    Family("residuals", "Residuals",
           "CUDA names and headers the port left in the code, and the MUSA names of unknown "
           "status it wrote."),
    Family("project-symbols", "Project symbols", "The tree's own names that hold a CUDA word."),
    Family("arch-specific", "Arch-specific device code",
           "Device code written for NVIDIA's hardware: inline PTX, tensor cores, async copies, "
           "newer intrinsics, clusters. A rename cannot port it; a person rewrites it."),
    Family("warp-size", "Warp size",
           "Code that assumes 32 lanes per warp. MUSA warps are 128 lanes wide on mp_21 and "
           "mp_22 (32 on mp_31)."),
    Family("missing-features", "Features MUSA lacks or treats differently",
           "CUDA APIs MUSA has no counterpart for (NVSHMEM, IBGDA, GPUDirect Storage), treats "
           "differently (managed memory, the virtual-memory and context APIs, CUPTI's "
           "activity attributes and callbacks, cooperative-groups partitions), or whose MUSA "
           "counterpart the vendor does not name (graphs, texture objects, cooperative launch, "
           "IPC, peer access, PTX versions, run-time compilation)."),
    Family("version-checks", "Version and arch checks",
           "Comparisons of CUDA versions and arch numbers, which mean something else on MUSA."),
    Family("shared-memory", "Shared memory",
           "Shared memory beyond what a MUSA arch gives one kernel."),
    Family("double-precision", "Double precision", "fp64 arithmetic in device code."),
    Family("library-calls", "Library calls",
           "cuBLAS, cuBLASLt and NCCL calls that need more than a rename on muBLAS and MCCL."),
    Family("vendored-libraries", "Vendored libraries",
           "Copies of Thrust, CUB and libcu++ inside the tree: their findings summed up, one "
           "finding per library."),
    Family("build-files", "Build files", "CMake files, Makefiles and shell scripts."),
    Family("python", "Python", "Python scripts and setup.py."),
)}


def _all() -> dict[str, Check]:
    from . import build, device, features, inputs, library, names, python

    checks = [*inputs.CHECKS, *names.CHECKS, *device.CHECKS, *features.CHECKS, *library.CHECKS, *build.CHECKS,
              *python.CHECKS]
    return {c.id: c for c in sorted(checks, key=lambda c: c.id)}


CHECKS: dict[str, Check] = _all()


def family_checks(family: str) -> list[Check]:
    """The checks of one family, by ID."""
    return [c for c in CHECKS.values() if c.family == family]


DEVICE_IDS = frozenset(c.id for c in CHECKS.values() if c.device)
