"""One rename map across ports (issue 27): three trees that include each other,
shaped like sgl-kernel's setup.py, which ports its csrc, then flashinfer's include,
then flashinfer's csrc with three SimplePorting calls. Every name the trees share is
spelled the same in all three outputs, in that order, on a re-run, and from the
command line with -I (the ports made earlier are read from their manifests)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tree, run_cli

FI = "3rdparty/flashinfer"
TREES = {
    "csrc/gemm/bmm_fp8.cu": """\
#include <flashinfer/gemm/bmm_fp8.cuh>
#include "sgl_kernel_ops.h"
void bmm_fp8(void* a) {
  FLASHINFER_CUDA_CALL(bmm_fp8_internal_cublaslt(a));
  SGL_CUDA_CHECK(sglCudaHelper());
}
""",
    "csrc/sgl_kernel_ops.h": """\
#define SGL_CUDA_CHECK(x) (x)
inline int sglCudaHelper() { return 0; }
""",
    f"{FI}/include/flashinfer/utils.cuh": """\
#define FLASHINFER_CUDA_CALL(func) { cudaError_t e = (func); (void)e; }
#define FLASHINFER_ONLY_CUDA_FLAG 1
""",
    f"{FI}/include/flashinfer/gemm/bmm_fp8.cuh": """\
#include "../utils.cuh"
inline cudaError_t bmm_fp8_internal_cublaslt(void* a) { return cudaSuccess; }
""",
    f"{FI}/csrc/norm.cu": """\
#include <flashinfer/utils.cuh>
void norm_launch(void* x) {
  FLASHINFER_CUDA_CALL(cudaMemset(x, 0, FLASHINFER_ONLY_CUDA_FLAG));
}
""",
}
# extended=True: the trees' own names are renamed (SimplePorting's default is the tree
# torch_musa's SimplePorting writes, which renames none of them).
SETUP = """\
from musa_port import SimplePorting

SimplePorting(cuda_dir_path="csrc", extended=True).run()
SimplePorting(cuda_dir_path="3rdparty/flashinfer/include", extended=True).run()
SimplePorting(cuda_dir_path="3rdparty/flashinfer/csrc", extended=True).run()
"""
OUTPUTS = ("csrc_musa", f"{FI}/include_musa", f"{FI}/csrc_musa")
SHARED = ("FLASHINFER_CUDA_CALL", "bmm_fp8_internal_cublaslt", "FLASHINFER_ONLY_CUDA_FLAG",
          "SGL_CUDA_CHECK", "sglCudaHelper")
MUSA = {"FLASHINFER_CUDA_CALL": "FLASHINFER_MUSA_CALL",
        "bmm_fp8_internal_cublaslt": "bmm_fp8_internal_mublaslt",
        "FLASHINFER_ONLY_CUDA_FLAG": "FLASHINFER_ONLY_MUSA_FLAG",
        "SGL_CUDA_CHECK": "SGL_MUSA_CHECK", "sglCudaHelper": "sglMusaHelper"}


def spellings(root: Path) -> dict[str, set[str]]:
    """For each shared name, the spellings (CUDA or MUSA) the outputs use."""
    text = "\n".join(p.read_text() for out in OUTPUTS for p in (root / out).rglob("*")
                     if p.is_file() and p.suffix in (".mu", ".muh", ".h", ".cuh", ".cu"))
    idents = set(re.findall(r"[A-Za-z_]\w*", text))
    return {name: {n for n in (name, MUSA[name]) if n in idents} for name in SHARED}


def run_setup(root: Path) -> None:
    proc = subprocess.run([sys.executable, "setup.py"], cwd=root, capture_output=True, text=True,
                          env=os.environ.copy())
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def project(tmp_path) -> Path:
    root = make_tree(tmp_path / "sgl-kernel", TREES)
    (root / "setup.py").write_text(SETUP)
    return root


def test_three_simple_porting_calls_agree_on_every_shared_name(project):
    run_setup(project)
    seen = spellings(project)
    assert all(len(s) == 1 for s in seen.values()), seen  # never both spellings
    # flashinfer's names that sgl-kernel's sources (ported first) use as they are stay;
    # sgl-kernel's own names, and flashinfer's that only flashinfer uses, are renamed.
    assert seen["FLASHINFER_CUDA_CALL"] == {"FLASHINFER_CUDA_CALL"}
    assert seen["bmm_fp8_internal_cublaslt"] == {"bmm_fp8_internal_cublaslt"}
    assert seen["FLASHINFER_ONLY_CUDA_FLAG"] == {"FLASHINFER_ONLY_MUSA_FLAG"}
    assert seen["SGL_CUDA_CHECK"] == {"SGL_MUSA_CHECK"}
    before = {p: p.read_bytes() for out in OUTPUTS for p in (project / out).rglob("*") if p.is_file()}
    run_setup(project)  # every build runs setup.py: the same outputs again
    after = {p: p.read_bytes() for out in OUTPUTS for p in (project / out).rglob("*") if p.is_file()}
    assert after == before


def test_the_command_line_reads_earlier_ports_through_their_manifests(project):
    """Dependencies first, one process each: a port whose -I folder belongs to an
    earlier output applies that output's renames."""
    fi = project / FI
    run_cli(fi / "include", "-q", check=0)
    run_cli(fi / "csrc", "-q", "-I", fi / "include", check=0)
    run_cli(project / "csrc", "-q", "-I", fi / "include", check=0)
    seen = spellings(project)
    assert all(len(s) == 1 for s in seen.values()), seen
    assert seen["FLASHINFER_CUDA_CALL"] == {"FLASHINFER_MUSA_CALL"}
    assert seen["bmm_fp8_internal_cublaslt"] == {"bmm_fp8_internal_mublaslt"}
    bmm = (project / "csrc_musa/gemm/bmm_fp8.mu").read_text()
    assert "FLASHINFER_MUSA_CALL(bmm_fp8_internal_mublaslt(a))" in bmm
