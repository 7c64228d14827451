"""MP40xx: Python files (port/python, analyze/python_findings.py)."""

from __future__ import annotations

from .model import Check

_FAMILY = "python"

CHECKS = (
    Check("MP4001", "unknown-torch-musa-name", "warning", False,
          "`torch.cuda.X` was renamed to `torch.musa.X`, but X is not among torch.musa's "
          "public names (torch_musa's list): check that it exists.",
          "torch.cuda.list_gpu_processes()", family=_FAMILY,
          why="A missing name fails at run time, on the MUSA machine.",
          instead="Use the torch.musa name that exists, or guard the call."),
    Check("MP4002", "cupy", "error", True,
          "CuPy has no MUSA backend.", "import cupy as cp", family=_FAMILY,
          why="The code cannot run on MUSA as it is.",
          instead="Use torch tensors on the `musa` device, or a MUSAExtension."),
    Check("MP4003", "pycuda", "error", True,
          "PyCUDA drives the CUDA driver API, which MUSA does not provide to Python.",
          "import pycuda.driver as drv", family=_FAMILY,
          why="The code cannot run on MUSA as it is.",
          instead="Use torch.musa streams and events, or a MUSAExtension."),
    Check("MP4004", "numba-cuda", "error", True,
          "numba.cuda compiles kernels for NVIDIA GPUs only.", "from numba import cuda",
          family=_FAMILY,
          why="The code cannot run on MUSA as it is.",
          instead="Move the kernel to torch operations or to MUSA C++."),
    Check("MP4005", "triton-kernel", "warning", False,
          "A Triton kernel runs on MUSA only with a Triton build that has the MUSA backend.",
          "@triton.jit", family=_FAMILY,
          why="Stock Triton has no MUSA backend.",
          instead="Install a Triton with the MUSA backend, or provide a torch fallback."),
    Check("MP4006", "nvidia-tool-call", "warning", False,
          "A subprocess runs `nvidia-smi` or `nvcc`; MUSA's tools are `mthreads-gmi` and "
          "`mcc`, with other options.", 'subprocess.run(["nvidia-smi"])', family=_FAMILY,
          why="The tool is not installed on a MUSA machine, and its output differs.",
          instead="Call `mthreads-gmi` or `mcc` with their options, or use torch.musa's API."),
    Check("MP4007", "python-parse-error", "warning", False,
          "A statement that does not parse as Python 3 (a syntax error, Python 2) was ported "
          "by text rules only; or a file that does not parse as a whole had its statements "
          "ported one by one.", 'print "cuda"', family=_FAMILY,
          why="Text rules cannot tell code from strings as a parser does.",
          instead="Check the statement's port, or make it Python 3."),
    Check("MP4008", "torch-musa-import", "warning", False,
          "An import names a submodule of `torch.cuda` (or `torch.backends.cudnn`) that "
          "torch_musa has only as an attribute (`torch.musa` and `torch.backends.mudnn` are "
          "set by `import torch_musa`, not importable): left as it is; use the attribute in "
          "code.", "from torch.cuda.amp import autocast", family=_FAMILY,
          why="`import torch.musa.amp` and `from torch.musa.amp import ...` raise "
              "ModuleNotFoundError even with torch_musa installed.",
          instead="Import the package and use the attribute: `import torch_musa` then "
                  "`torch.musa.amp.autocast(...)`.",
          fixed="import torch_musa  # then torch.musa.amp.autocast(...)"),
    Check("MP4009", "cuda-probe", "warning", False,
          "A probe of the CUDA build or toolkit that has no MUSA value: `torch.version.cuda` "
          "(None on a MUSA build of torch), `torch.backends.cuda` (CUDA's backend switches), "
          "`nvcc --version` run to read CUDA's release, torch.utils.cpp_extension's "
          "`_find_cuda_home()` and `CUDNN_HOME`. Probes with a MUSA counterpart are "
          "ported instead: `torch.cuda.is_available()` -> `torch.musa.is_available()`, "
          "`CUDA_HOME` -> torch_musa's `MUSA_HOME`.",
          "cuda_version = torch.version.cuda.replace('.', '')", family=_FAMILY,
          why="torch_musa's public names (torch.musa's list, torch_musa.utils.musa_extension) "
              "have no MUSA toolkit version and no torch.backends.cuda counterpart: the probe "
              "quietly answers 'no CUDA' on a MUSA machine (a build that skips its GPU code), "
              "or fails where its value is used as a string.",
          instead="Test `torch.musa.is_available()` for the device; take a toolkit version "
                  "from the MUSA install (`MUSA_HOME`) if the code needs one; drop CUDA "
                  "backend switches or set the torch_musa ones.",
          fixed="with_musa = torch.musa.is_available()"),
)
