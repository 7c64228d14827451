"""Macros defined by the build are the project's own names (issue 26, point 2): a
setup.py's ``define_macros`` and ``-D`` flags, CMake's ``add_definitions`` and
``target_compile_definitions``, a Makefile's ``-D`` flags. They are renamed in the build
files and in every source that tests them, like the names the sources define, and kept
with ``--keep``. Input: ``fixtures/build_macros``."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from conftest import FIXTURES, make_tree, run_cli

from musa_porting.analyze.build_symbols import scan_build
from musa_porting.analyze.word_finder import WordFinder
from musa_porting.rules.vocabulary import build_vocabulary

FIXTURE = FIXTURES / "build_macros"


def _port(tmp_path, *args):
    src = tmp_path / "ops"
    shutil.copytree(FIXTURE, src)
    report = tmp_path / "report.json"
    run_cli(src, "--report-json", report, "--report-csv", tmp_path / "report.csv", "-q", *args,
            check=0)
    out = tmp_path / "ops_musa"
    return out, json.loads(report.read_text())


def test_build_macros_are_renamed_in_build_files_and_sources(tmp_path):
    out, report = _port(tmp_path)
    setup = (out / "setup.py").read_text()
    assert 'define_macros = [("WITH_MUSA", None)]' in setup
    assert '"-DUSE_MUSA_GRAPHS"' in setup and '[("HAS_MUPTI", "1")]' in setup
    # -D given to cmake sets a cache variable: not a macro, kept.
    assert '"-DCUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda"' in setup
    cmake = (out / "CMakeLists.txt").read_text()
    assert "add_definitions(-DWITH_MUSA)" in cmake
    assert "target_compile_definitions(ops PRIVATE HAS_MUPTI=1)" in cmake
    # The CMake switch of the same name follows; prose does not.
    assert 'option(WITH_MUSA "Build the CUDA kernels" ON)' in cmake and "if(WITH_MUSA)" in cmake
    assert 'message(STATUS "WITH_CUDA=${WITH_MUSA}")' in cmake
    assert "NVCCFLAGS = -O3 -DWITH_MUSA -DUSE_MUSA_GRAPHS -fPIC" in (out / "Makefile").read_text()
    ops = (out / "csrc" / "ops.cpp").read_text()
    assert "#ifdef WITH_MUSA" in ops and "defined(WITH_MUSA) && defined(USE_MUSA_GRAPHS)" in ops
    assert "CUDA" not in ops
    prof = (out / "csrc" / "profiler.cpp").read_text()
    assert "#ifdef HAS_MUPTI" in prof and "#if HAS_MUPTI" in prof
    assert "#ifdef WITH_MUSA" in next((out / "csrc").rglob("add.mu")).read_text()

    renamed = {r["name"]: r for r in report["project_symbols"]["renamed"]}
    sites = {(s["file"], s["line"], s["kind"]) for s in renamed["WITH_CUDA"]["sites"]}
    assert sites == {("setup.py", 7, "build macro"), ("CMakeLists.txt", 11, "build macro"),
                     ("Makefile", 3, "build macro")}
    assert renamed["WITH_CUDA"]["new"] == "WITH_MUSA"
    assert {"HAS_CUPTI", "USE_CUDA_GRAPHS"} <= renamed.keys()
    assert not {"CUDA_TOOLKIT_ROOT_DIR", "CMAKE_CUDA_ARCHITECTURES"} & renamed.keys()
    # One MP1004 per name at its first definition site (a build file here).
    with open(tmp_path / "report.csv", newline="") as f:
        notes = {(r["text"], r["file"]) for r in csv.DictReader(f) if r["id"] == "MP1004"}
    assert ("WITH_CUDA", "CMakeLists.txt") in notes and ("HAS_CUPTI", "CMakeLists.txt") in notes
    assert ("USE_CUDA_GRAPHS", "Makefile") in notes


def test_a_kept_build_macro_stays_everywhere(tmp_path):
    out, report = _port(tmp_path, "--keep", "WITH_CUDA")
    assert 'define_macros = [("WITH_CUDA", None)]' in (out / "setup.py").read_text()
    cmake = (out / "CMakeLists.txt").read_text()
    assert "add_definitions(-DWITH_CUDA)" in cmake and "if(WITH_CUDA)" in cmake
    assert "#ifdef WITH_CUDA" in (out / "csrc" / "ops.cpp").read_text()
    assert "-DWITH_CUDA -DUSE_MUSA_GRAPHS" in (out / "Makefile").read_text()
    renamed = {r["name"] for r in report["project_symbols"]["renamed"]}
    assert "WITH_CUDA" not in renamed and "HAS_CUPTI" in renamed


def test_a_build_macro_whose_musa_name_is_taken_is_a_collision(tmp_path):
    src = make_tree(tmp_path / "p", {
        "CMakeLists.txt": "add_definitions(-DWITH_CUDA -DWITH_MUSA)\n",
        "k.cpp": "#ifdef WITH_CUDA\nint a;\n#endif\n#ifdef WITH_MUSA\nint b;\n#endif\n",
    })
    report = tmp_path / "r.json"
    run_cli(src, "--report-json", report, "-q", check=0)
    r = json.loads(report.read_text())["project_symbols"]
    assert [c["name"] for c in r["collisions"]] == ["WITH_CUDA"]
    assert "#ifdef WITH_CUDA" in (tmp_path / "p_musa" / "k.cpp").read_text()


@pytest.fixture(scope="module")
def finders():
    v = build_vocabulary()
    return WordFinder(v), WordFinder(v.reversed())


def _defs(data: str, kind: str, finders) -> list[tuple[str, int, int]]:
    fs = scan_build(data.encode(), kind, *finders)
    return [(d.name, d.line, d.column) for d in fs.defs]


def test_cmake_definitions_and_what_is_not_one(finders):
    text = ("# add_definitions(-DIN_COMMENT_CUDA)\n"
            "add_compile_definitions(CUDA_ENABLED)\n"
            "target_compile_definitions(k PUBLIC WITH_CUDA_GRAPH \"-DNVTX_RANGES\")\n"
            "set(CMAKE_CXX_FLAGS \"${CMAKE_CXX_FLAGS} -DCUDA_FAST_PATH\")\n"
            "message(STATUS \"pass -DIN_MESSAGE_CUDA\")\n"
            "execute_process(COMMAND cmake -DSUB_CUDA=ON ..)\n"
            "ExternalProject_Add(dep CMAKE_ARGS -DDEP_CUDA=ON)\n")
    assert _defs(text, "cmake", finders) == [
        ("CUDA_ENABLED", 2, 25), ("WITH_CUDA_GRAPH", 3, 37), ("NVTX_RANGES", 3, 56),
        ("CUDA_FAST_PATH", 4, 43)]


def test_script_and_python_definitions(finders):
    make = ("NVCCFLAGS += -DUSE_CUDA -O3\nall:\n\tnvcc -DWITH_CUPTI=1 -c k.cu\n"
            "\tcmake -DSUB_CUDA=1 ..\n\t@echo -DECHO_CUDA\n")
    assert _defs(make, "make", finders) == [("USE_CUDA", 1, 16), ("WITH_CUPTI", 3, 9)]
    shell = "#!/bin/sh\ncmake -DSUB_CUDA=ON .\nnvcc -DUSE_NCCL k.cu\n"
    assert _defs(shell, "shell", finders) == [("USE_NCCL", 3, 8)]
    py = ('# define_macros=[("IN_COMMENT_CUDA", None)]\n'
          'macros = [("WITH_CUDA", None), ("NDEBUG", "1")]\n'
          'args = ["-DUSE_CUDA=1", "-O3"]\n'
          'cmake_args = ["-DCMAKE_CUDA_X=1",\n    "-DNVCC_THREADS=8"]\n'
          'pair = ("CUDA_ISH", None)\n'
          'msg = "use -DNOT_ALONE_CUDA"\n')
    assert _defs(py, "python", finders) == [("WITH_CUDA", 2, 13), ("USE_CUDA", 3, 12)]
