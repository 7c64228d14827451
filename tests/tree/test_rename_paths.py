"""Paths are renamed by default in the CLI (issue 26, point 5): folders and files whose
names hold a CUDA word are renamed, and every reference follows (includes, symlinks,
CMake source lists and add_subdirectory, Makefile rules, setup.py lists and globs, the
diff, the reports); ``--keep-paths`` and the ``rename-paths`` setting keep them, and
SimplePorting keeps torch_musa's layout unless ``rename_paths=True``. Input:
``fixtures/rename_paths/src``."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import FIXTURES, run_cli

from musa_porting import SimplePorting

SRC = FIXTURES / "rename_paths" / "src"
RENAMED = {
    "CMakeLists.txt", "Makefile", "setup.py", "include/musa_utils/check.h",
    "musa/CMakeLists.txt", "musa/gemm_musa.mu", "musa/musa_stream.cpp", "musa/musa_stream.hpp",
    "musa/stream.hpp",
}
KEPT = {
    "CMakeLists.txt", "Makefile", "setup.py", "include/cuda_utils/check.h",
    "cuda/CMakeLists.txt", "cuda/gemm_cuda.mu", "cuda/cuda_stream.cpp", "cuda/cuda_stream.hpp",
    "cuda/stream.hpp",
}


def _tree(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if (p.is_file() or p.is_symlink())
            and not p.relative_to(root).as_posix().startswith(".musa-port")}  # musa-port's own


def _copy(tmp_path, name="src"):
    dst = tmp_path / name
    shutil.copytree(SRC, dst, symlinks=True)
    return dst


def test_paths_are_renamed_by_default_and_every_reference_follows(tmp_path):
    src = _copy(tmp_path)
    report = tmp_path / "r.json"
    proc = run_cli(src, "--report-json", report, check=0)
    out = tmp_path / "src_musa"
    assert _tree(out) == RENAMED
    assert os.readlink(out / "musa" / "stream.hpp") == "musa_stream.hpp"
    top = (out / "CMakeLists.txt").read_text()
    assert "add_subdirectory(musa)" in top
    assert "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/include/musa_utils)" in top
    sub = (out / "musa" / "CMakeLists.txt").read_text()
    assert "musa_add_library(streams SHARED musa_stream.cpp gemm_musa.mu)" in sub
    assert "install(FILES musa_stream.hpp DESTINATION include/streams)" in sub
    make = (out / "Makefile").read_text()
    assert "SRCS = musa/gemm_musa.mu musa/musa_stream.cpp" in make
    assert "$(patsubst musa/%.mu,build/%.o,$(wildcard musa/*.mu))" in make
    assert "build/%.o: musa/%.mu" in make and "-Iinclude/musa_utils" in make
    setup = (out / "setup.py").read_text()
    assert 'glob.glob("musa/*.mu") + ["musa/musa_stream.cpp"]' in setup
    assert 'include_dirs=["include/musa_utils"]' in setup
    gemm = (out / "musa" / "gemm_musa.mu").read_text()
    assert '#include "stream.hpp"\n#include "../include/musa_utils/check.h"' in gemm
    assert '#include "musa_utils/check.h"' in (out / "musa" / "musa_stream.hpp").read_text()
    # The summary says what was renamed, for build files outside SRC.
    assert "paths renamed: 2 folders (cuda -> musa, include/cuda_utils -> include/musa_utils)" \
        in proc.stdout
    r = json.loads(report.read_text())
    assert {"path": "cuda/gemm_cuda.cu", "output": "musa/gemm_musa.mu"} in r["renamed_paths"]
    assert {"path": "cuda", "output": "musa"} in r["renamed_paths"]
    assert len(r["renamed_paths"]) == 5  # 2 folders, 3 files (the link's name has no word)


def test_the_diff_shows_the_renames(tmp_path):
    src = _copy(tmp_path)
    proc = run_cli(src, "--diff", check=0)
    assert "rename from cuda/gemm_cuda.cu\nrename to musa/gemm_musa.mu" in proc.stdout
    assert "+add_subdirectory(musa)" in proc.stdout
    assert not (tmp_path / "src_musa").exists()


def test_keep_paths_keeps_the_layout(tmp_path):
    src = _copy(tmp_path)
    proc = run_cli(src, "--keep-paths", "-q", check=0)
    out = tmp_path / "src_musa"
    assert _tree(out) == KEPT
    assert "add_subdirectory(cuda)" in (out / "CMakeLists.txt").read_text()
    assert 'glob.glob("cuda/*.mu")' in (out / "setup.py").read_text()
    assert "paths renamed" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("setting,flag,renamed", [
    ("false", None, False), ("false", "--rename-paths", True), ("true", "--keep-paths", False),
    ("true", None, True)])
def test_the_setting_and_the_flags(tmp_path, setting, flag, renamed):
    src = _copy(tmp_path)
    (tmp_path / ".musa-port.toml").write_text(f"rename-paths = {setting}\n")
    run_cli(src, "-q", *([flag] if flag else []), check=0)
    assert _tree(tmp_path / "src_musa") == (RENAMED if renamed else KEPT)


def test_a_bad_setting_is_one_error(tmp_path):
    src = _copy(tmp_path)
    (tmp_path / ".musa-port.toml").write_text('\n\nrename-paths = "no"\n')
    proc = run_cli(src, check=2)
    assert proc.stderr.count("\n") == 1
    assert ".musa-port.toml:3" in proc.stderr and "rename-paths must be true or false" in proc.stderr


def test_simple_porting_keeps_torch_musas_layout_unless_asked(tmp_path):
    src = _copy(tmp_path)
    SimplePorting(cuda_dir_path=str(src)).run()
    assert _tree(tmp_path / "src_musa") == KEPT
    src2 = _copy(tmp_path, "two")
    SimplePorting(cuda_dir_path=str(src2), rename_paths=True).run()
    assert _tree(tmp_path / "two_musa") == RENAMED


def test_one_file_is_never_renamed(tmp_path):
    src = _copy(tmp_path)
    out = tmp_path / "outdir"
    out.mkdir()
    run_cli(src / "cuda" / "gemm_cuda.cu", "-o", out, check=0)
    assert [p.name for p in out.iterdir()] == ["gemm_cuda.mu"]
