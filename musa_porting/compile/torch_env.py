"""torch's part of ``musa-port verify``: what torch's ``CUDAExtension`` would pass to the
compilers, taken from the torch a Python has.

A ported PyTorch extension includes ``torch/extension.h``, ``ATen/cuda/...`` and
``c10/cuda/...``; its build (``torch.utils.cpp_extension``) adds torch's include folders
and Python's, and flags: ``-D__CUDA_NO_HALF_OPERATORS__`` and its three siblings with
``--expt-relaxed-constexpr`` for nvcc (``COMMON_NVCC_FLAGS``; without them ``__half``
arithmetic is ambiguous in torch's headers), ``-DTORCH_API_INCLUDE_EXTENSION_H``,
``-DTORCH_EXTENSION_NAME=<name>`` and the C++ standard torch is built with (C++17 up to
torch 2.9, C++20 from 2.10). Asking torch itself keeps verify right for the torch the
user has, instead of a copy of today's list.

torch is asked in a separate Python (the one running musa-port by default): importing
torch takes seconds and memory that the rest of musa-port never needs, prints warnings
of its own (a missing NumPy), and the torch to check against may live in another
Python than musa-port's (an isolated ``pipx`` install has none).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from ..errors import PortError

# Run in the chosen Python; prints one JSON object. find_spec first: without torch the
# answer costs a Python start-up, not an import attempt of a large package.
_PROBE = r"""
import importlib.util, json, sys, sysconfig
if importlib.util.find_spec("torch") is None:
    print(json.dumps({"missing": "no module named torch"})); sys.exit(0)
try:
    import inspect, re
    import torch
    import torch.utils.cpp_extension as ce
except Exception as exc:
    print(json.dumps({"missing": f"import torch failed: {type(exc).__name__}: {exc}"})); sys.exit(0)
try:
    src = inspect.getsource(ce)
except (OSError, TypeError):
    src = ""
stds = [int(n) for n in re.findall(r"['\"]-std=c\+\+(\d+)['\"]", src)]
libs = []
spec = importlib.util.find_spec("nvidia")
if spec is not None and spec.submodule_search_locations:
    import glob, os
    for root in spec.submodule_search_locations:
        libs += sorted(d for d in glob.glob(os.path.join(root, "*", "include")) if os.path.isdir(d))
print(json.dumps({
    "version": torch.__version__,
    "include_dirs": list(ce.include_paths()),
    "python_include": sysconfig.get_paths()["include"],
    "nvcc_flags": list(getattr(ce, "COMMON_NVCC_FLAGS", [])),
    "std": f"c++{max(stds)}" if stds else "c++17",
    "library_include_dirs": libs,
}))
"""
TORCH_INCLUDE_PREFIXES = ("torch/", "ATen/", "c10/", "caffe2/", "torch_musa/")
MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class TorchEnv:
    """What torch's extension build passes, from one Python's torch."""

    python: str
    version: str
    include_dirs: list[str]  # torch's, then Python's
    nvcc_flags: list[str]  # COMMON_NVCC_FLAGS: -D__CUDA_NO_HALF_OPERATORS__ ..., nvcc only
    std: str  # c++17, c++20
    # The include folders of the NVIDIA wheels in that Python (a CUDA torch depends on
    # nvidia-cublas, -cusparse, ...): after the toolkit's, for a toolkit without them.
    library_include_dirs: list[str] = field(default_factory=list)
    defines: tuple[str, ...] = ("TORCH_API_INCLUDE_EXTENSION_H",)

    def note(self) -> str:
        return f"torch {self.version} of {self.python}"


def _probe(python: str) -> tuple[TorchEnv | None, str]:
    """torch's flags from ``python``, or None and why not."""
    try:
        proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True,
                              errors="replace", timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{python} did not run: {exc}"
    line = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    try:
        data = json.loads(line[0]) if line else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        said = (proc.stderr.strip().splitlines() or ["nothing"])[-1]
        return None, f"{python} failed (exit code {proc.returncode}): {said}"
    if "missing" in data:
        return None, f"{python}: {data['missing']}"
    return TorchEnv(python, data["version"],
                    [*data["include_dirs"], data["python_include"]],
                    data["nvcc_flags"], data["std"], data.get("library_include_dirs", [])), ""


def candidates(python: str | None) -> list[str]:
    """The Pythons to ask: the one named, else the one running musa-port, then the
    ``python3`` on PATH (the user's active environment, where musa-port runs from an
    isolated one)."""
    if python:
        found = shutil.which(python) if os.sep not in python else python
        if found is None or not os.path.isfile(found):
            raise PortError(f"--torch-python {python}: no such Python")
        return [found]
    out = [sys.executable]
    on_path = shutil.which("python3")
    if on_path and os.path.abspath(on_path) != os.path.abspath(sys.executable):
        out.append(on_path)
    return out


def find_torch(mode: str, python: str | None = None) -> tuple[TorchEnv | None, list[str]]:
    """The torch to compile against, and, when there is none, where it was looked for.
    ``mode``: "off" never looks; "on" must find one (one error line otherwise); "auto"
    takes the first it finds."""
    if mode not in MODES:
        raise PortError(f"torch mode {mode!r}: use one of {', '.join(MODES)}")
    if mode == "off":
        return None, []
    looked: list[str] = []
    for candidate in candidates(python):
        env, why = _probe(candidate)
        if env is not None:
            return env, looked
        looked.append(why)
    if mode == "on":
        raise PortError("--torch: no torch to compile against (" + "; ".join(looked)
                        + "): install torch in that Python, or name another with --torch-python")
    return None, looked


def uses_torch(includes) -> bool:
    """Whether a tree's files include torch's headers (or torch_musa's, which the shim
    maps back to torch's): ``includes`` are include targets."""
    return any(t.startswith(TORCH_INCLUDE_PREFIXES) for t in includes)


def extension_name(rel: str) -> str:
    """A ``TORCH_EXTENSION_NAME`` for one file: the build gives each extension its own,
    which verify does not know; any identifier compiles ``PYBIND11_MODULE`` and
    ``TORCH_LIBRARY``, and the file's stem says where it came from."""
    stem = os.path.splitext(os.path.basename(rel))[0]
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in stem) or "ext"
    return name if not name[0].isdigit() else "_" + name
