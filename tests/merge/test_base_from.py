"""Adopting a port musa-port did not make (issue 39 deliverable 4): ``musa-port NEW_SRC
--output OUT --base-from OLD_SRC`` learns the fork's conventions from OLD_SRC and OUT
(paths kept, the tree's own names kept, the vendor word), ports OLD_SRC with them as
the base, and merges the fork's hand edits into the port of NEW_SRC."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_tree

from musa_porting import PortOptions, port_tree
from musa_porting.cli.app import cli

GEMM_V1 = """#include <cuda_runtime.h>
#include "gemm_cuda.cuh"
#define GEMM_CUDA_CHECK(x) do { if ((x) != cudaSuccess) return -1; } while (0)
__global__ void gemm_kernel(float* c, const float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * 2.0f;
}
int gemm_launch(float* c, const float* a, int n) {
  float* tmp;
  GEMM_CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
  gemm_kernel<<<(n + 255) / 256, 256>>>(c, a, n);
  GEMM_CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
"""
HEADER = "#pragma once\nint gemm_launch(float* c, const float* a, int n);\n"
GEMM_V2 = GEMM_V1 + """int gemm_release(float* p) {
  GEMM_CUDA_CHECK(cudaFree(p));
  return 0;
}
"""
EXTRA_V2 = """#include <cuda_runtime.h>
#define EXTRA_CUDA_CHECK(x) do { if ((x) != cudaSuccess) return -1; } while (0)
int extra_sync() { EXTRA_CUDA_CHECK(cudaDeviceSynchronize()); return 0; }
"""


def fork_of(old: Path, fork: Path) -> None:
    """The port as torch_musa's SimplePorting leaves it, plus a porter's hand fix:
    folders and names kept (.cu -> .mu), the tree's own GEMM_CUDA_CHECK kept, the
    runtime's names ported."""
    text = GEMM_V1.replace("cuda_runtime.h", "musa_runtime.h").replace("cudaMalloc", "musaMalloc")
    text = text.replace("cudaDeviceSynchronize", "musaDeviceSynchronize").replace(
        "cudaSuccess", "musaSuccess").replace('"gemm_cuda.cuh"', '"gemm_cuda.muh"')
    text = text.replace("c[i] = a[i] * 2.0f;", "c[i] = a[i] * 2.0f;  // MUSA: fixed by hand")
    make_tree(fork, {"csrc/cuda/gemm_cuda.mu": text, "csrc/cuda/gemm_cuda.muh": HEADER,
                     "NOTES.md": "the fork's own file\n"})


@pytest.fixture
def trees(tmp_path):
    old = make_tree(tmp_path / "v1", {"csrc/cuda/gemm_cuda.cu": GEMM_V1, "csrc/cuda/gemm_cuda.cuh": HEADER})
    new = make_tree(tmp_path / "v2", {"csrc/cuda/gemm_cuda.cu": GEMM_V2, "csrc/cuda/gemm_cuda.cuh": HEADER,
                                      "csrc/cuda/extra_cuda.cu": EXTRA_V2})
    fork = tmp_path / "fork"
    fork_of(old, fork)
    return old, new, fork


def check_upgraded(fork: Path, result) -> None:
    gemm = (fork / "csrc/cuda/gemm_cuda.mu").read_text()
    assert "MUSA: fixed by hand" in gemm  # the fork's hand edit
    assert "GEMM_CUDA_CHECK(musaFree(p));" in gemm  # upstream's new code, in the fork's naming
    assert "GEMM_MUSA_CHECK" not in gemm and "<<<<<<<" not in gemm
    extra = (fork / "csrc/cuda/extra_cuda.mu").read_text()  # added upstream: the fork's paths
    assert "EXTRA_CUDA_CHECK(musaDeviceSynchronize())" in extra
    assert not (fork / "csrc/musa").exists()
    assert (fork / "NOTES.md").read_text() == "the fork's own file\n"
    assert not result.conflicted
    assert result.merged == ["csrc/cuda/gemm_cuda.mu"]


def test_a_fork_made_with_torch_musa_s_conventions_is_adopted_and_upgraded(trees):
    old, new, fork = trees
    r = port_tree(PortOptions(src=str(new), output=str(fork), base_from=str(old), jobs=1))
    check_upgraded(fork, r)
    assert any("--base-from" in w and "names kept" in w and "GEMM_CUDA_CHECK" in w for w in r.warnings)
    # The conventions stay: the next run, without --base-from, changes nothing.
    again = port_tree(PortOptions(src=str(new), output=str(fork), jobs=1))
    assert again.written == 0 and not again.conflicted
    assert "GEMM_CUDA_CHECK" in (fork / "csrc/cuda/gemm_cuda.mu").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_base_from_a_git_ref_of_the_new_upstream(trees, tmp_path):
    old, new, fork = trees
    repo = tmp_path / "repo"
    shutil.copytree(old, repo / "project")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "v1")
    git("tag", "v1")
    shutil.rmtree(repo / "project")
    shutil.copytree(new, repo / "project")
    res = CliRunner().invoke(cli, [str(repo / "project"), "-o", str(fork), "--base-from", "v1",
                                   "--check", "-q"])
    assert res.exit_code == 0, res.output
    gemm = (fork / "csrc/cuda/gemm_cuda.mu").read_text()
    assert "MUSA: fixed by hand" in gemm and "GEMM_CUDA_CHECK(musaFree(p));" in gemm


def test_a_bad_base_from_is_one_line_and_writes_nothing(trees, tmp_path, capsys):
    from musa_porting.cli import main

    _, new, fork = trees
    before = sorted(p.relative_to(fork).as_posix() for p in fork.rglob("*"))
    with pytest.raises(SystemExit) as exit_:
        main([str(new), "-o", str(fork), "--base-from", str(tmp_path / "nope")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1 and "--base-from" in err[0], err
    assert sorted(p.relative_to(fork).as_posix() for p in fork.rglob("*")) == before
