"""fixtures/cuda_app: the unported CUDA program of the verify acceptance tests compiles with nvcc.

Skipped only when no nvcc is found (and never in CI: see conftest.need_nvcc). The
cuBLAS / cuRAND headers come from ``cuda_headers.library_include_dirs()``; when they
are not available locally yet (first run on a machine: a ~530 MB download), the tests
that need them are marked ``slow``.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import FIXTURES
from cuda_headers import library_include_dirs

APP = FIXTURES / "cuda_app"
SOURCES = ["src/gemm.cu", "src/main.cpp", "src/rng.cu", "src/saxpy.cu"]
NVCC_FLAGS = ["-std=c++17", "-arch=sm_80", "-x", "cu", "-c"]

needs_nvcc = pytest.mark.usefixtures("nvcc")


def _headers_local() -> bool:
    try:
        library_include_dirs(download=False)
    except LookupError:
        return False
    return True


HEADERS_LOCAL = _headers_local()


def needs_headers(test):
    """Slow when the headers must first be downloaded (the nvidia-cublas and -curand wheels)."""
    return test if HEADERS_LOCAL else pytest.mark.slow(test)


@pytest.fixture(scope="module")
def lib_includes() -> list[Path]:
    return library_include_dirs()


def test_fixture_sources_and_shapes():
    on_disk = sorted(p.relative_to(APP).as_posix() for p in APP.glob("src/*") if p.is_file())
    assert on_disk == SOURCES
    include_common = re.compile(r'^#include "\.\./include/common\.cuh"$', re.M)
    includers = [s for s in SOURCES if include_common.search((APP / s).read_text())]
    assert includers == ["src/gemm.cu", "src/saxpy.cu"]  # one .cuh, two .cu files

    sources = [p for p in sorted(APP.rglob("*")) if p.suffix in (".cu", ".cuh", ".cpp", ".h")]
    text = "\n".join(p.read_text() for p in sources)
    for name in ["__global__", "<<<", "cudaMalloc", "cudaMemcpy", "cudaMemcpyAsync", "cudaFree",
                 "cudaStream_t", "cudaStreamCreate", "cudaStreamSynchronize", "cudaStreamDestroy",
                 "cudaEvent_t", "cudaEventCreate", "cudaEventRecord", "cudaEventSynchronize",
                 "cudaEventElapsedTime", "cudaEventDestroy", "cudaError_t", "cudaGetErrorString",
                 "cudaSuccess", "__half", "__nv_bfloat16", "__float2half", "__half2float", "__hadd",
                 "__float2bfloat16", "__bfloat162float", "cublasHandle_t", "cublasCreate",
                 "cublasSetStream", "cublasSgemm", "CUBLAS_OP_N", "cublasDestroy", "cublasStatus_t",
                 "CUBLAS_STATUS_SUCCESS", "curandGenerator_t", "curandCreateGenerator",
                 "CURAND_RNG_PSEUDO_DEFAULT", "curandSetPseudoRandomGeneratorSeed",
                 "curandGenerateUniform", "curandDestroyGenerator", "curandState", "curand_init",
                 "curand_uniform", "<cublas_v2.h>", "<curand_kernel.h>", "<cuda_runtime.h>",
                 "CUDA_APP_COMMON_CUH", "Accumulate"]:
        assert name in text, name
    # Nothing MUSA certainly lacks.
    for banned in ["asm(", "asm volatile", "cooperative_groups", "cudaGraph", "0xffffffff"]:
        assert banned not in text, banned


@needs_headers
def test_library_include_dirs_find_headers(lib_includes):
    assert lib_includes and all(d.is_absolute() and d.is_dir() for d in lib_includes)
    for header in ["cublas_v2.h", "cublas_api.h", "curand.h", "curand_kernel.h"]:
        assert any((d / header).is_file() for d in lib_includes), header


@needs_headers
def test_library_include_dirs_env_first(lib_includes, tmp_path, monkeypatch):
    blas = next(d for d in lib_includes if (d / "cublas_v2.h").is_file())
    mine = tmp_path / "inc"
    mine.mkdir()
    for name in ["cublas_v2.h", "cublas_api.h"]:
        (mine / name).write_bytes((blas / name).read_bytes())
    monkeypatch.setenv("MUSA_PORT_CUDA_LIB_INCLUDE", os.pathsep.join([str(tmp_path / "none"), str(mine)]))
    dirs = library_include_dirs()
    assert dirs[0] == mine.resolve() and (dirs[1] / "curand_kernel.h").is_file()


def _compile(nvcc: Path, src: str, out_dir: Path, includes: list[Path]
             ) -> tuple[str, list[str], int, str]:
    obj = out_dir / (Path(src).name + ".o")
    cmd = [str(nvcc), *NVCC_FLAGS, *[f"-I{d}" for d in includes], str(APP / src), "-o", str(obj)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=out_dir)
    ok = proc.returncode == 0 and obj.is_file()
    return src, cmd, 0 if ok else (proc.returncode or 1), proc.stdout + proc.stderr


@needs_nvcc
@needs_headers
def test_cuda_app_compiles_with_nvcc(nvcc, lib_includes, tmp_path):
    jobs = min(len(SOURCES), os.cpu_count() or 1)
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda s: _compile(nvcc, s, tmp_path, lib_includes), SOURCES))
    failed = [f"{' '.join(cmd)}\n{out}" for _, cmd, rc, out in results if rc]
    assert not failed, "\n\n".join(failed)
    # Warning-free (nvcc's own driver notes, e.g. on deprecated architectures, aside).
    warned = [f"{src}:\n{out}" for src, _, _, out in results
              if any("warning" in line.lower() and not line.startswith("nvcc warning")
                     for line in out.splitlines())]
    assert not warned, "\n\n".join(warned)
