"""Issue 44, acceptance: a real PyTorch CUDA extension from the package index, ported
whole as a user would, passes `musa-port verify` with no flag of its own.

torch-cluster 1.6.3: a setup.py of CppExtension/CUDAExtension pairs that defines
WITH_CUDA for the CUDA build, csrc/*.cpp with the op registrations and WITH_CUDA gates
(torch/script.h), csrc/cpu/*.cpp (CPU kernels, OpenMP-parallel ATen code) and
csrc/cuda/*.cu (ATen/cuda/CUDAContext.h). The only -I given are this machine's: its CUDA
toolkit lacks the cuBLAS, cuSPARSE and cuSOLVER headers that ATen/cuda includes, and
cuRAND's, which csrc/cuda/rw_cuda.cu includes (tests/cuda_headers.py).

Every one of its 23 files verifies (docs/build-and-verify.md has the commands and
figures: the 16 host files and two kernels in the default --mode compile, the other five
kernels in --mode ptx; a file costs minutes of CPU, nearly all of it parsing torch's
headers). CI verifies a fixed sample of one file of each kind in --mode ptx (the host
file goes to the host compiler either way); MUSA_PORT_TORCH_CLUSTER_ALL=1 verifies all
of them in the default mode. When a file fails, its original is compiled the same way:
the bar is that every file whose original compiles passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need_nvcc, need_torch, run_cli
from cuda_headers import library_include_dirs
from sdist import extract_subtree, fetch_sdist

pytestmark = pytest.mark.slow

NAME, VERSION = "torch_cluster", "1.6.3"
SHA256 = "78d5a930a5bbd0d8788df8c6d66addd68d6dd292fe3edb401e3dacba26308152"
LIBRARIES = ("nvidia-cublas", "nvidia-cusparse", "nvidia-cusolver", "nvidia-curand")
# One of each kind: a host file (an op's binding, with its WITH_MUSA gate), a GPU kernel.
SAMPLE = ("csrc/fps.cpp", "csrc/musa/grid_musa.mu")


def _original_compiles(source: str, src: Path, nvcc: Path, lib_dirs: list[str],
                       scratch: Path) -> bool:
    """The unported file, compiled as its CUDAExtension build would (torch's flags, the
    CUDA build's WITH_CUDA), with plain nvcc or the host compiler."""
    import sysconfig

    import torch.utils.cpp_extension as ce  # only on a failure: torch takes seconds

    from musa_porting.compile.include_path import toolkit_dirs

    compat = scratch / "compat"  # the header a CUDA build of torch generates
    (compat / "c10/cuda/impl").mkdir(parents=True, exist_ok=True)
    (compat / "c10/cuda/impl/cuda_cmake_macros.h").write_text("#define C10_CUDA_BUILD_SHARED_LIBS\n")
    dirs = [*ce.include_paths(), sysconfig.get_paths()["include"], *lib_dirs, str(src / "csrc"),
            str(compat), *toolkit_dirs(str(nvcc))[0]]
    common = ["-std=c++20", "-DWITH_CUDA", "-DTORCH_API_INCLUDE_EXTENSION_H",
              "-DTORCH_EXTENSION_NAME=x", *[f"-I{d}" for d in dirs]]
    if source.endswith(".cu"):
        cmd = [str(nvcc), "-x", "cu", "--ptx", "-arch=sm_80", *ce.COMMON_NVCC_FLAGS, *common]
    else:
        cmd = ["c++", "-fsyntax-only", *common]
    return subprocess.run([*cmd, source, "-o", os.devnull], capture_output=True).returncode == 0


def test_torch_cluster_verifies_with_no_flag_of_its_own(tmp_path):
    nvcc = need_nvcc()
    need_torch()
    archive = fetch_sdist(NAME, VERSION, SHA256)
    src = extract_subtree(archive, f"{NAME}-{VERSION}", tmp_path)
    run_cli(src, "-q", check=0)
    out = tmp_path / f"{NAME}-{VERSION}_musa"
    every = os.environ.get("MUSA_PORT_TORCH_CLUSTER_ALL") == "1"
    lib_dirs = [str(d) for d in library_include_dirs(LIBRARIES)]
    report = tmp_path / "verify.json"
    args = ["verify", out, "--nvcc", nvcc, "--report-json", report,
            *[a for d in lib_dirs for a in ("-I", d)],
            *([] if every else ["--mode", "ptx", *[a for f in SAMPLE for a in ("--only", f)]])]
    proc = subprocess.run([sys.executable, "-m", "musa_porting", *map(str, args)],
                          capture_output=True, text=True)
    data = json.loads(report.read_text())
    files = data["files"]
    assert len(files) == (23 if every else len(SAMPLE)), proc.stdout + proc.stderr
    failed = [f for f in files if f["status"] != "ok"]
    # A ported file may fail only where its original does not compile either.
    compiles = [f["file"] for f in failed
                if _original_compiles(f["source"], src, nvcc, lib_dirs, tmp_path)]
    assert not compiles, proc.stdout[-6000:]
    notes = " ".join(data["notes"])
    assert "torch 2.13.0" in notes and "cuda_cmake_macros.h" in notes
    for f in files:  # the CUDA build's macro, from the ported setup.py
        assert "-DWITH_MUSA" in f["command"].split()
    print(f"torch-cluster {VERSION}: {len(files)} files verified, {len(failed)} failed "
          f"({[f['file'] for f in failed]}); {data['run']['elapsed_s']} s")
