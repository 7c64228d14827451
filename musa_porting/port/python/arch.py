"""NVIDIA arches in a setup.py become the MUSA arches of ``--arch``, as in build files.

``extra_compile_args={"nvcc": ["-gencode", "arch=compute_80,code=sm_80", ...]}`` (or the
joined ``"-gencode=arch=compute_80,code=sm_80"``, ``"-arch=sm_80"``): the first arch
option of a list becomes one ``"--offload-arch=mp_XX"`` per ``--arch``, the others are
dropped; an arch flag standing alone becomes the first arch's. A statement that sets
``TORCH_CUDA_ARCH_LIST`` (``os.environ["TORCH_CUDA_ARCH_LIST"] = "7.0;8.0+PTX"``) gets
torch_musa's ``TORCH_MUSA_ARCH_LIST`` numbers (``"22"``). Every choice is reported
(MP3104): sm numbers do not map 1:1 to MUSA arches.
"""

from __future__ import annotations

import re

from ...analyze.python_findings import PyFinding
from ...rules.model import Rule
from ..build.context import ARCH_NOTE
from ..build.nvcc_flags import ARCH, match_flag
from .names import FAMILY

_ARCH_LIST = re.compile(r"\s*\d+\.\d+(?:\+PTX)?(?:\s*[;, ]\s*\d+\.\d+(?:\+PTX)?)*\s*")
_ARCH_VALUE = re.compile(r"(?:arch=)?(?:compute|sm|lto)_\d+[af]?(?:,code=\[?[a-z_0-9,]+\]?)?")
RULE = Rule("nvcc arch", "", FAMILY, note="an NVIDIA arch became the --arch MUSA arches")


def flags(arches: tuple[str, ...]) -> list[str]:
    return [f"--offload-arch={a}" for a in arches]


def arch_flag(body: str) -> tuple[bool, bool]:
    """(an nvcc arch option, its value joined to it) for a string's text."""
    m = match_flag(body)
    if m is None or m.option.action != ARCH:
        return False, False
    return True, m.joined


def arch_value(body: str) -> bool:
    """The value of a ``-gencode``/``-arch`` option given as its own string."""
    return _ARCH_VALUE.fullmatch(body) is not None


def arch_list(body: str, arches: tuple[str, ...]) -> str | None:
    """``"7.0;8.0+PTX"`` (a TORCH_CUDA_ARCH_LIST value) -> ``"22"`` for ``--arch mp_22``."""
    if _ARCH_LIST.fullmatch(body) is None:
        return None
    return ";".join(a.removeprefix("mp_") for a in arches)


def finding(old: str, new: str, text: str | None = None) -> PyFinding:
    return PyFinding("MP3104", text or old, f"nvcc's '{old}' became '{new}': sm numbers do not "
                     f"map 1:1 to MUSA arches; {ARCH_NOTE}")


def list_finding(old: str, new: str) -> PyFinding:
    return PyFinding("MP3104", old, f"TORCH_CUDA_ARCH_LIST '{old}' became '{new}' (TORCH_MUSA_ARCH_LIST "
                     f"numbers, from --arch): sm numbers do not map 1:1 to MUSA arches; {ARCH_NOTE}")
