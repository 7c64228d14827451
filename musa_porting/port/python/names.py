"""The Python side's names: what torch.musa provides, and the renames of the PyTorch
API that porting a script or a setup.py needs (as torch_musa names them).

``torch.musa``'s public names come from Moore Threads' torch_musa (BSD-3-Clause, see
``mapping/LICENSE.torch_musa``), shipped as ``mapping/torch_musa_python_names.txt``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...rules.model import USER_FAMILY, Rule, RuleSet

NAMES_FILE = "torch_musa_python_names.txt"
# The names torch_musa's package re-exports from its submodules (core/memory, ...).
REEXPORTS_FILE = "torch_musa_reexports.txt"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FAMILY = "python"

# The one-for-one renames, each a rule so that reports count them by key.
TORCH_CUDA = Rule("torch.cuda", "torch.musa", FAMILY, note="torch.cuda -> torch.musa")
# torch_musa sets torch.musa and torch.backends.mudnn as attributes when imported
# (torch.__setattr__("musa", torch_musa)), not as modules: an import statement that needs a
# module names torch_musa, and one that takes the attribute needs torch_musa imported first.
TORCH_MUSA_MODULE = Rule("torch.cuda (in an import)", "torch_musa", FAMILY,
                         note="import torch_musa: torch.musa is not an importable module")
ATTRIBUTE_IMPORT = Rule("from torch import cuda", "from torch import musa", FAMILY,
                        note="an attribute torch_musa sets: needs import torch_musa first")
MUDNN_IMPORT = Rule("import torch.backends.cudnn", "from torch.backends import mudnn", FAMILY,
                    note="an attribute torch_musa sets: needs import torch_musa first")
NEEDS_TORCH_MUSA = frozenset({ATTRIBUTE_IMPORT, MUDNN_IMPORT})
# NVML's Python binding and Moore Threads' MTML binding (mthreads-ml-py), whose pymtml
# module keeps NVML's names (nvmlInit, nvmlDeviceGetCount) on top of MTML's functions.
PYMTML = Rule("pynvml", "pymtml", FAMILY,
              note="pymtml (pip install mthreads-ml-py) keeps pynvml's nvml* names")
CUDA_CALL = Rule(".cuda()", ".musa()", FAMILY)
IS_CUDA = Rule(".is_cuda", ".is_musa", FAMILY)
CUDNN = Rule("torch.backends.cudnn", "torch.backends.mudnn", FAMILY)
# torch_musa's module of extension builders (torch_musa/utils/musa_extension.py).
EXTENSION_MODULE = "torch_musa.utils.musa_extension"
CPP_EXTENSION = Rule("torch.utils.cpp_extension", EXTENSION_MODULE, FAMILY)
# A name of torch_musa's module written qualified: the file needs its import.
EXTENSION_QUALIFIED = Rule("torch.utils.cpp_extension.X", "torch_musa.utils.musa_extension.X",
                           FAMILY, note="import torch_musa.utils.musa_extension added")
EXTENSION_NAMES = {
    "CUDAExtension": Rule("CUDAExtension", "MUSAExtension", FAMILY),
    "CUDA_HOME": Rule("CUDA_HOME", "MUSA_HOME", FAMILY),
}
DEVICE = Rule('"cuda"', '"musa"', FAMILY, note="device string")
NCCL = Rule('"nccl"', '"mccl"', FAMILY, note="distributed backend")
NVCC = Rule('"nvcc"', '"mcc"', FAMILY, note="compiler name (extra_compile_args key)")
# NCCL's names that torch_musa provides under an MCCL name: torch.distributed's
# is_mccl_available (torch_musa adds it), the torch.musa.mccl module (torch_musa's list of
# torch.musa's names: mapping/torch_musa_python_names.txt), and Backend.MCCL, which
# torch.distributed's Backend.register_backend sets when torch_musa registers "mccl".
IS_NCCL = Rule("is_nccl_available", "is_mccl_available", FAMILY, note="torch.distributed")
NCCL_MODULE = Rule("torch.cuda.nccl", "torch.musa.mccl", FAMILY)
BACKEND_NCCL = Rule("Backend.NCCL", "Backend.MCCL", FAMILY, note="torch.distributed's backend")
VISIBLE_DEVICES = Rule("CUDA_VISIBLE_DEVICES", "MUSA_VISIBLE_DEVICES", FAMILY)
LIBRARY = Rule("shared library", "", FAMILY, note="a CUDA library's file name (libcudart.so)")
ENV_VAR = Rule("environment variable", "", FAMILY, note="a CUDA word in an env var name")
LAUNCH = Rule("import torch_musa", "import torch_musa", FAMILY, note="launch file")
MODULE = Rule("python module", "", FAMILY, note="an import of a module the port renamed")
PATH = Rule("source path", "", FAMILY, note="a path to a ported source follows the port")


def rename_rule(old: str, new: str) -> Rule:
    """A rule for an identifier rename (the user's rules, project symbols)."""
    return Rule(old, new, "python-names")


@lru_cache(maxsize=1)
def torch_musa_names() -> frozenset[str]:
    """The public names of ``torch.musa`` (torch_musa's list)."""
    from ...rules.tables import default_mapping_dir

    d = default_mapping_dir()
    text = "\n".join((d / f).read_text(encoding="utf-8") for f in (NAMES_FILE, REEXPORTS_FILE))
    return frozenset(line.strip() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def identifier_renames(ruleset: RuleSet) -> dict[str, str]:
    """The user's rules that rename one identifier into another (MMCV_WITH_CUDA ->
    MMCV_WITH_MUSA): they apply to Python names and to strings that are exactly the
    name, so a setup.py's macro list agrees with the ported C++. Rules with
    punctuation (``/cuda/``, ``.cuh``) are about C++ text and stay out of Python."""
    return {k: r.value for k, r in ruleset.rules.items()
            if r.family == USER_FAMILY and r.value and r.value != k and _IDENT.fullmatch(k)
            and _IDENT.fullmatch(r.value)}  # .family, not .is_user: 30k rules, a hot loop


_DISTRIBUTED = re.compile(  # what binds torch.distributed (or its Backend) to a name
    rb"^[ \t]*(?:import[ \t]+torch\.distributed[ \t]+as[ \t]+(?P<alias>\w+)"
    rb"|from[ \t]+torch[ \t]+import[ \t]+(?:[^\n#]*,[ \t]*)?distributed(?:[ \t]+as[ \t]+(?P<as>\w+))?"
    rb"|from[ \t]+torch\.distributed[ \t]+import[ \t]+(?:[^\n#]*,[ \t]*)?(?P<backend>Backend)\b)", re.M)


def distributed_names(data: bytes) -> frozenset[str]:
    """The dotted names that are ``torch.distributed`` in a file (``dist`` after ``import
    torch.distributed as dist``), and ``Backend`` when it is imported from there."""
    out = {"torch.distributed"}
    for m in _DISTRIBUTED.finditer(data):
        name = m["backend"] or m["alias"] or m["as"] or b"distributed"
        out.add(name.decode())
    return frozenset(out)


@lru_cache(maxsize=1)
def _extension_bindings() -> re.Pattern[bytes]:
    """What binds torch.utils.cpp_extension to a name (compiled when a file first names
    cpp_extension: most ports have none)."""
    return re.compile(
        rb"^[ \t]*(?:import[ \t]+torch[ \t]*\.[ \t]*utils[ \t]*\.[ \t]*cpp_extension[ \t]+as[ \t]+"
        rb"(?P<alias>\w+)|from[ \t]+torch[ \t]*\.[ \t]*utils[ \t]+import[ \t]+(?:[^\n#]*,[ \t]*)?"
        rb"\(?[ \t]*cpp_extension(?:[ \t]+as[ \t]+(?P<as>\w+))?)", re.M)


def extension_modules(data: bytes) -> frozenset[str]:
    """The dotted names that are ``torch.utils.cpp_extension`` in a file: itself, ``ext``
    after ``import torch.utils.cpp_extension as ext``, ``cpp_extension`` after ``from
    torch.utils import cpp_extension``."""
    out = {"torch.utils.cpp_extension"}
    for m in _extension_bindings().finditer(data):
        out.add((m["alias"] or m["as"] or b"cpp_extension").decode())
    return frozenset(out)


def distributed_backend(base: str | None, distributed: frozenset[str]) -> bool:
    """Whether ``base`` is torch.distributed's ``Backend`` (``dist.Backend``, or ``Backend``
    imported from torch.distributed), given ``distributed_names``."""
    if base == "Backend":
        return "Backend" in distributed
    return base is not None and base.endswith(".Backend") and base[:-8] in distributed
