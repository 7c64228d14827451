"""What porting a Python file cannot do for the user: the MP40xx findings.

Pure functions of names, called by the Python porter (``port/python``) as it walks
each statement it parsed, so that one pass over the tree both rewrites and finds.
Each finding says what to do instead: none of these has a rename that would work.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class PyFinding(NamedTuple):
    """A finding before it is placed: its ID, the text it is about (searched for in the
    statement to place it), and the message with its suggestion."""

    id: str
    text: str
    message: str


# Packages that bind CUDA directly: (dotted prefix, check, what to do instead).
_PACKAGES = (
    ("cupyx", "MP4002", "CuPy has no MUSA backend: use torch tensors on the 'musa' device, or "
                        "port the kernels to C++ and build them with MUSAExtension"),
    ("cupy", "MP4002", "CuPy has no MUSA backend: use torch tensors on the 'musa' device, or "
                       "port the kernels to C++ and build them with MUSAExtension"),
    ("pycuda", "MP4003", "PyCUDA drives the CUDA driver API, which MUSA does not provide to "
                         "Python: use torch.musa streams and events, or a MUSAExtension"),
    ("numba.cuda", "MP4004", "numba.cuda compiles for NVIDIA GPUs only: move the kernel to "
                             "torch ops or to a MUSA C++ extension"),
)
_TRITON_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
TOOL_CALLS = frozenset({
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
    "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput", "os.system",
    "os.popen", "check_output", "check_call", "Popen", "getoutput", "getstatusoutput",
})
_TOOLS = re.compile(r"(?<![\w-])(nvidia-smi|nvcc)(?![\w-])")
_TOOL_ADVICE = {
    "nvidia-smi": "MUSA's tool is mthreads-gmi, with other options and output; query "
                  "torch.musa (device_count, get_device_properties) instead of parsing it",
    "nvcc": "MUSA's compiler is mcc, with clang-style options (--offload-arch=mp_22); "
            "check the flags this call passes",
}


# An nvcc call that asks for its version: what it prints is read for CUDA's release.
_VERSION_FLAGS = frozenset({"-V", "--version"})
_PROBE_ADVICE = {
    "torch.version.cuda": "torch.version.cuda is None on a MUSA build of torch (there is no CUDA "
                          "toolkit), and torch_musa's public names have no MUSA toolkit version "
                          "in its place: a test of it takes the non-CUDA branch, a string built "
                          "from it fails; test torch.musa.is_available() for the device, and "
                          "read the MUSA toolkit's version from your installation if you need one",
    "torch.backends.cuda": "torch.backends.cuda is the CUDA backend's: on a MUSA build its "
                           "switches (matmul.allow_tf32, sdp kernels) do nothing and is_built() "
                           "is False; torch_musa's public names list no counterpart (cuDNN's "
                           "switches are torch.backends.mudnn): drop it, or set what your "
                           "torch_musa offers",
    "_find_cuda_home": "torch.utils.cpp_extension's _find_cuda_home() looks for the CUDA "
                       "toolkit: None on a MUSA machine; torch_musa.utils.musa_extension's "
                       "MUSA_HOME is the MUSA install's folder",
    "CUDNN_HOME": "torch.utils.cpp_extension's CUDNN_HOME is cuDNN's folder: None on a MUSA "
                  "machine (muDNN comes with the MUSA install, MUSA_HOME)",
    "nvcc": "it runs nvcc for its version, to read CUDA's release from what it prints: a MUSA "
            "machine has no nvcc, mcc --version prints a clang version and no CUDA release, "
            "and torch_musa's public names have no MUSA toolkit version; test "
            "torch.musa.is_available(), or read the version from the MUSA install (MUSA_HOME)",
}


# torch.utils.cpp_extension's names that find CUDA's install, with no MUSA counterpart.
EXTENSION_PROBES = frozenset({"_find_cuda_home", "CUDNN_HOME"})


def cuda_probe(name: str) -> PyFinding:
    """A finding for a probe of the CUDA build or toolkit with no MUSA value: ``name`` is
    ``torch.version.cuda``, ``torch.backends.cuda``, ``nvcc`` or a name of
    ``EXTENSION_PROBES``."""
    return PyFinding("MP4009", name, _PROBE_ADVICE[name])


def imported(name: str) -> PyFinding | None:
    """A finding for importing the dotted module ``name`` (``cupy``, ``numba.cuda``...)."""
    for prefix, check, advice in _PACKAGES:
        if name == prefix or name.startswith(prefix + "."):
            return PyFinding(check, prefix, f"{prefix}: {advice}")
    return None


def decorator(name: str) -> PyFinding | None:
    """A finding for a kernel decorator: ``@triton.jit`` or ``@numba.cuda.jit``."""
    if name in _TRITON_DECORATORS:
        return PyFinding("MP4005", "triton", f"@{name} defines a Triton kernel: it runs on MUSA "
                         "only with a Triton build that has the MUSA backend; check that the "
                         "target has one, or use torch ops")
    if name.startswith("numba.cuda."):
        return imported("numba.cuda")
    return None


def tool_call(function: str, strings: list[str]) -> PyFinding | None:
    """A finding for running ``nvidia-smi`` or ``nvcc`` (a string argument names it)."""
    if function not in TOOL_CALLS:
        return None
    for s in strings:
        m = _TOOLS.search(s)
        if m:
            tool = m.group(1)
            if tool == "nvcc" and any(w in _VERSION_FLAGS for t in strings for w in t.split()):
                return cuda_probe("nvcc")
            return PyFinding("MP4006", tool, f"{function}() runs {tool}: {_TOOL_ADVICE[tool]}")
    return None


def unknown_torch_name(attr: str) -> PyFinding:
    return PyFinding("MP4001", attr, f"torch.cuda.{attr} became torch.musa.{attr}, which is not "
                     "among torch.musa's public names (torch_musa's list): check that it exists "
                     "in your torch_musa, or replace it")


def attribute_import(module: str) -> PyFinding:
    musa = module.replace("torch.cuda", "torch.musa", 1).replace("cudnn", "mudnn", 1)
    return PyFinding("MP4008", module, f"{module} is imported by its module path, but on MUSA "
                     f"{musa} is an attribute that `import torch_musa` sets, not a module an "
                     "import statement can name: left as it is (torch's CUDA module); use "
                     f"{musa}.<name> in code, or `from torch_musa import <name>`")


def file_not_parsed(reason: str) -> PyFinding:
    return PyFinding("MP4007", "", f"this file does not parse as Python 3 ({reason}): the "
                     "statements that needed porting were parsed and ported one by one; check "
                     "the file runs under Python 3")


def not_parsed(reason: str) -> PyFinding:
    return PyFinding("MP4007", "", f"this statement does not parse as Python 3 ({reason}): it "
                     "was ported by text rules only; check the result")
