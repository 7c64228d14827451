"""Project symbols: the tree's own CUDA-named names, file names and messages
(fixtures/project_symbols, its expected trees checked in)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from musa_porting import PortOptions, SimplePorting, port_tree
from musa_porting.rules.project import Site, plan_renames
from musa_porting.rules.vocabulary import build_vocabulary

CASE = FIXTURES / "project_symbols"
BACKENDS = ["lexer", "clang"]


def _have_clang() -> bool:
    try:
        from musa_porting.analyze.clang_symbols import _cindex, resource_dir

        _cindex()
        resource_dir()
        return True
    except Exception:
        return False


def _need(backend: str) -> None:
    if backend == "clang" and not _have_clang():
        if os.environ.get("MUSA_PORT_REQUIRE_NVCC") == "1":  # CI: the test extra installs it
            pytest.fail("libclang or clang's resource headers are missing")
        pytest.skip("needs pip install 'musa-port[clang]'")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".musa-port-manifest.json"
            and not p.relative_to(root).as_posix().startswith(".musa-port/")}


def _port(tmp_path: Path, backend: str, *extra, name: str = "out", src: Path = CASE / "src"
          ) -> subprocess.CompletedProcess:
    """The fixture, as the expected trees were made: -I for clang, CUDA not needed."""
    env = dict(os.environ, CUDA_HOME=str(tmp_path / "no-cuda"))
    args = [sys.executable, "-m", "musa_porting", str(src), "-o", str(tmp_path / name),
            "--symbols", backend, "-I", str(CASE / "src/include"), "-I", str(CASE / "stubs"), *extra]
    return subprocess.run(args, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("paths", ["plain", "rename-paths"])
def test_fixture_port_matches_the_checked_in_tree(tmp_path, backend, paths):
    _need(backend)
    # Paths are renamed by default (issue 26); "plain" is --keep-paths.
    extra = ["--rename-paths"] if paths == "rename-paths" else ["--keep-paths"]
    proc = _port(tmp_path, backend, *extra)
    assert proc.returncode == 0, proc.stderr
    assert _files(tmp_path / "out") == _files(CASE / "expected" / backend / paths)


def test_the_names_the_issue_names_are_renamed_everywhere():
    out = CASE / "expected" / "lexer" / "rename-paths"
    files = _files(out)
    text = b"".join(files.values())
    for old, new in [(b"MYLIB_CUDA_CHECK", b"MYLIB_MUSA_CHECK"), (b"launchCudaKernel", b"launchMusaKernel"),
                     (b"cuda_workspace_bytes", b"musa_workspace_bytes"), (b"CuptiTracer", b"MuptiTracer"),
                     (b"gemm_cuda", b"gemm_musa"), (b"WITH_CUDA", b"WITH_MUSA")]:
        assert old not in text and new in text, old
    # Files and folders named after them follow, and so do the includes.
    assert {"csrc/musa/gemm_musa.mu", "csrc/musa/gemm_musa.muh", "include/mylib/MuptiTracer.h",
            "include/mylib/musa_check.h"} <= set(files)
    bind = files["csrc/bindings.cpp"]
    assert b'#include "musa/gemm_musa.muh"' in bind and b'#include "mylib/MuptiTracer.h"' in bind
    # Strings that are the name, or qualify it, follow; messages change; a URL does not.
    assert b'{"mylib::gemm_musa", &mylib::gemm_musa}' in bind and b'{"gemm_musa",' in bind
    assert b'"not compiled with MUSA support\\n"' in bind
    assert b'printf("MUSA error: %s\\n"' in files["include/mylib/musa_check.h"]
    tracer = files["include/mylib/MuptiTracer.h"]
    assert b"A tracer built on MUPTI (see https://docs.nvidia.com/cupti/index.html)" in tracer


def test_clang_sees_definitions_the_lexer_cannot():
    lexer = _files(CASE / "expected/lexer/plain")["csrc/globals.cpp"]
    clang = _files(CASE / "expected/clang/plain")["csrc/globals.cpp"]
    # Defined by a macro expansion, and as a template parameter.
    assert b"DECLARE_GLOBAL(int, cuda_counter)" in lexer and b"template <int cuda_width>" in lexer
    assert b"DECLARE_GLOBAL(int, musa_counter)" in clang and b"template <int musa_width>" in clang
    assert b"cuda_" not in clang


def test_external_names_are_kept_and_reported(tmp_path):
    proc = _port(tmp_path, "lexer", "--report-json", str(tmp_path / "r.json"))
    assert proc.returncode == 0
    out = (tmp_path / "out/csrc/bindings.cpp").read_text()
    assert "CUDA_HELPER_X" in out  # defined by ../../external/helper.h, outside the tree
    r = json.loads((tmp_path / "r.json").read_text())
    assert any(d["id"] == "MP1002" and d["text"] == "CUDA_HELPER_X" for d in r["diagnostics"])
    assert "CUDA_HELPER_X" not in {x["name"] for x in r["project_symbols"]["renamed"]}


def test_a_vendored_cuda_library_keeps_the_names_musa_keeps(tmp_path):
    """A tree that vendors CCCL, CUB or Thrust defines their internals; MUSA keeps those
    names (muThrust and muAlg are drop-ins, libcu++ keeps its own), as the tables do.
    The project's own names beside them are still renamed."""
    src = tmp_path / "src"
    (src / "third_party/cccl").mkdir(parents=True)
    (src / "third_party/cccl/config.h").write_text(
        "#define _LIBCUDACXX_HIDE_FROM_ABI inline\n#define __LIBCUDACXX_CUDA_API 1\n"
        "#define _CCCL_CUDA_COMPILER 1\n#define CUB_CUDA_API 1\n#define THRUST_CUDA_BACKEND 2\n")
    (src / "ops.cu").write_text(
        '#include "third_party/cccl/config.h"\n#define MYLIB_CUDA_CHECK(x) x\n'
        "_LIBCUDACXX_HIDE_FROM_ABI int f() { return CUB_CUDA_API + THRUST_CUDA_BACKEND "
        "+ _CCCL_CUDA_COMPILER + __LIBCUDACXX_CUDA_API; }\nint g() { return MYLIB_CUDA_CHECK(1); }\n")
    port_tree(PortOptions(str(src), str(tmp_path / "out"), jobs=1))
    out = (tmp_path / "out/ops.mu").read_text()
    for kept in ("_LIBCUDACXX_HIDE_FROM_ABI", "CUB_CUDA_API", "THRUST_CUDA_BACKEND",
                 "_CCCL_CUDA_COMPILER", "__LIBCUDACXX_CUDA_API"):
        assert kept in out and kept in (tmp_path / "out/third_party/cccl/config.h").read_text()
    assert "MYLIB_MUSA_CHECK(1)" in out


def test_taken_names_are_not_merged_and_the_collision_is_reported(tmp_path):
    proc = _port(tmp_path, "lexer", "--report-json", str(tmp_path / "r.json"))
    assert proc.returncode == 0
    check = (tmp_path / "out/include/mylib/musa_check.h").read_text()
    assert "#define CUDA_CHECK_LEVEL 1" in check and "#define MUSA_CHECK_LEVEL 2" in check
    r = json.loads((tmp_path / "r.json").read_text())
    (col,) = r["project_symbols"]["collisions"]
    assert (col["name"], col["new"]) == ("CUDA_CHECK_LEVEL", "MUSA_CHECK_LEVEL")
    assert col["sites"][0] == {"file": "include/mylib/cuda_check.h", "line": 15, "column": 9,
                               "kind": "macro"}
    assert any(d["id"] == "MP1005" and d["text"] == "CUDA_CHECK_LEVEL" for d in r["diagnostics"])


def test_every_rename_is_reported_with_its_definition_site(tmp_path):
    rep = {"json": tmp_path / "r.json", "csv": tmp_path / "r.csv", "sarif": tmp_path / "r.sarif"}
    proc = _port(tmp_path, "lexer", "--report-json", str(rep["json"]), "--report-csv", str(rep["csv"]),
                 "--sarif", str(rep["sarif"]))
    assert proc.returncode == 0
    r = json.loads(rep["json"].read_text())
    ps = r["project_symbols"]
    renamed = {x["name"]: x for x in ps["renamed"]}
    assert renamed["launchCudaKernel"]["new"] == "launchMusaKernel"
    assert renamed["launchCudaKernel"]["sites"][0] == {"file": "csrc/cuda/gemm_cuda.cu", "line": 15,
                                                       "column": 6, "kind": "function"}
    assert renamed["gemm_cuda"]["places"] == 6
    assert ps["places"] == sum(x["places"] for x in ps["renamed"]) == r["families"]["project"]
    assert f"project symbols renamed | {len(renamed)} names, {ps['places']} places" in \
        " ".join(proc.stdout.split())
    rows = list(csv.DictReader(rep["csv"].open()))
    assert {x["text"] for x in rows if x["id"] == "MP1004"} == set(renamed)
    sarif = json.loads(rep["sarif"].read_text())
    hits = [x for x in sarif["runs"][0]["results"] if x["ruleId"] == "MP1004"]
    assert len(hits) == len(renamed) and all(h["level"] == "note" for h in hits)


def test_off_switches_and_keep(tmp_path):
    proc = _port(tmp_path, "lexer", "--no-project-symbols", name="off")
    assert proc.returncode == 0
    off = (tmp_path / "off/csrc/musa/gemm_musa.mu").read_text()
    assert "launchCudaKernel" in off and "gemm_cuda_kernel" in off
    assert "launch the MUSA kernel" in off  # messages are not project symbols
    proc = _port(tmp_path, "lexer", "--keep", "launchCudaKernel", name="keep")
    kept = (tmp_path / "keep/csrc/musa/gemm_musa.mu").read_text()
    assert "launchCudaKernel" in kept and "gemm_musa_kernel" in kept
    proc = _port(tmp_path, "lexer", "--skip", "strings,comments", name="skip")
    skipped = (tmp_path / "skip/csrc/musa/gemm_musa.mu").read_text()
    assert "launch the CUDA kernel" in skipped and "gemm_musa_kernel" in skipped


def test_vocabulary_from_a_rule_file_and_vocab_file(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("vocabulary:\n  CUPTI: false\nMY_RULE: MY_RULE\n")
    vocab = tmp_path / "v.json"
    vocab.write_text('{"GEMM": "MMUL"}')
    proc = _port(tmp_path, "lexer", "--rule", str(rules), "--vocab", str(vocab))
    assert proc.returncode == 0, proc.stderr
    tracer = (tmp_path / "out/include/mylib/CuptiTracer.h").read_text()  # not MuptiTracer.h
    assert "class CuptiTracer" in tracer  # CUPTI switched off
    assert "launchMusaKernel" in (tmp_path / "out/csrc/musa/mmul_musa.mu").read_text()
    assert "void mmul_musa(" in (tmp_path / "out/csrc/musa/mmul_musa.muh").read_text()


def test_one_file_edit_reindexes_one_file_and_a_new_definition_reaches_every_file(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(CASE / "src", src)
    opts = PortOptions(str(src), str(tmp_path / "out"), jobs=1)
    first = port_tree(opts)
    assert first.symbols_indexed == 6
    again = port_tree(opts)
    assert again.symbols_indexed == 0 and again.written == 0
    f = src / "csrc/globals.cpp"
    f.write_text(f.read_text() + "\nint helper() { return 1; }\n")  # no new CUDA name
    edit = port_tree(opts)
    assert edit.symbols_indexed == 1 and edit.written == 1
    f.write_text(f.read_text() + "\nint cuda_fresh_total = 0;\n")
    b = src / "csrc/bindings.cpp"
    b.write_text(b.read_text() + "\nint use_fresh() { return cuda_fresh_total; }\n")
    port_tree(opts)
    assert "return musa_fresh_total;" in (tmp_path / "out/csrc/bindings.cpp").read_text()
    assert "int musa_fresh_total = 0;" in (tmp_path / "out/csrc/globals.cpp").read_text()


def test_simple_porting_takes_rename_paths(tmp_path):
    src = tmp_path / "csrc"
    shutil.copytree(CASE / "src", src)
    SimplePorting(str(src), rename_paths=True, quiet=True).run()
    assert (tmp_path / "csrc_musa/csrc/musa/gemm_musa.mu").is_file()


def test_rename_paths_links_and_diff(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(CASE / "src", src)
    os.symlink("cuda/gemm_cuda.cuh", src / "csrc/gemm_link.cuh")
    os.symlink("cuda", src / "csrc/kernels")
    out = tmp_path / "out"
    run_cli(src, "-o", out, "--rename-paths", "-q", check=0)
    assert os.readlink(out / "csrc/gemm_link.muh") == "musa/gemm_musa.muh"
    assert (out / "csrc/gemm_link.muh").read_text().startswith("#ifndef MYLIB_GEMM_MUSA_CUH")
    assert os.readlink(out / "csrc/kernels") == "musa"
    # The dry-run diff, applied to a copy of SRC, gives the same tree.
    patch = tmp_path / "p.diff"
    run_cli(src, "-o", tmp_path / "dry", "--rename-paths", "--dry-run", f"--diff={patch}", check=0)
    assert b"rename from csrc/cuda/gemm_cuda.cu\nrename to csrc/musa/gemm_musa.mu" in patch.read_bytes()
    copy = tmp_path / "applied"
    shutil.copytree(src, copy, symlinks=True)
    subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True, capture_output=True)
    assert _files(copy) == _files(out)


def test_clang_falls_back_per_file_and_says_so(tmp_path):
    _need("clang")
    src = tmp_path / "src"
    shutil.copytree(CASE / "src", src)
    (src / "csrc/broken.cpp").write_text('#include "no_such_header.h"\nint cuda_broken_total = 0;\n')
    proc = _port(tmp_path, "clang", "--report-json", str(tmp_path / "r.json"), src=src)
    assert proc.returncode == 0, proc.stderr
    r = json.loads((tmp_path / "r.json").read_text())
    assert "no_such_header.h" in r["project_symbols"]["notes"]["csrc/broken.cpp"]
    assert "lexer" in r["project_symbols"]["notes"]["csrc/broken.cpp"]
    assert "cuda_broken_total" in {x["name"] for x in r["project_symbols"]["renamed"]}


def test_clang_without_resource_headers_is_one_line(tmp_path, monkeypatch):
    from musa_porting.analyze import clang_symbols
    from musa_porting.errors import PortError

    monkeypatch.setenv("MUSA_PORT_CLANG_RESOURCE_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(sys.modules, "clang_tidy", None)
    with pytest.raises(PortError, match=r"resource headers \(stddef.h\) not found; pip install"):
        clang_symbols.resource_dir()


def test_clang_tidy_wheel_headers_are_found_without_importing_it(tmp_path, monkeypatch):
    """clang-tidy 16.0.4's wheel (the lowest the test extra allows) imports pkg_resources,
    which a venv without setuptools lacks (uv's): its resource headers are on disk all
    the same, and --symbols clang must find them without running its __init__."""
    from musa_porting.analyze import clang_symbols

    pkg = tmp_path / "site" / "clang_tidy"
    (pkg / "data/lib/clang/16/include").mkdir(parents=True)
    (pkg / "data/lib/clang/16/include/stddef.h").write_text("")
    (pkg / "__init__.py").write_text("import pkg_resources_that_is_missing\n")
    monkeypatch.delenv("MUSA_PORT_CLANG_RESOURCE_DIR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delitem(sys.modules, "clang_tidy", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert clang_symbols.resource_dir() == str(pkg / "data/lib/clang/16")
    assert "clang_tidy" not in sys.modules


# -- properties ------------------------------------------------------------------------

_WORDS = st.sampled_from(["CUDA", "cuda", "Cuda", "CUPTI", "cupti", "NVTX", "NCCL", "GEMM", "gemm",
                          "Kernel", "launch", "MUSA", "musa", "x", "2d"])
_NAMES = st.lists(_WORDS, min_size=1, max_size=4).map(lambda ws: "_".join(ws)).filter(
    lambda n: not n[0].isdigit())


@settings(max_examples=300, deadline=None)
@given(st.sets(_NAMES, min_size=1, max_size=30), st.sets(_NAMES, max_size=10))
def test_renaming_never_maps_two_names_to_one(defined, taken):
    vocab = build_vocabulary()
    defs = {n: [Site("f.cu", 1, 1, "function")] for n in defined}
    plan = plan_renames(defs, taken, vocab)
    news = [r.new for r in plan.renames.values()]
    assert len(news) == len(set(news))
    assert not set(news) & (set(defined) | set(taken))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(["int", "float"])), min_size=1, max_size=8,
                unique_by=lambda t: t[0]))
def test_reverse_port_restores_the_names(tmp_path_factory, decls):
    base = tmp_path_factory.mktemp("rt")
    src = base / "src"
    src.mkdir()
    body = "".join(f"{t} {n} = 0;\n" for n, t in decls if "musa" not in n.lower())
    body += "int use() { return " + " + ".join(
        n for n, _ in decls if "musa" not in n.lower()) + " + 0; }\n" if body else ""
    (src / "a.cpp").write_text("// CUDA side\n" + body)
    (src / "b.cpp").write_text("".join(f"extern int {n};\n" for n, _ in decls if "musa" not in n.lower()))
    port_tree(PortOptions(str(src), str(base / "musa"), jobs=1))
    port_tree(PortOptions(str(base / "musa"), str(base / "back"), reverse=True, jobs=1))
    assert _files(base / "back") == _files(src)


def test_project_renames_reach_the_python_that_binds_them(tmp_path):
    src = tmp_path / "proj"
    (src / "csrc").mkdir(parents=True)
    (src / "csrc/ops.cu").write_text(
        '#include <torch/extension.h>\n'
        'at::Tensor gemm_cuda(at::Tensor x) { return x; }\n'
        'int get_compiling_cuda_version() { return 1; }\n'
        'PYBIND11_MODULE(ext, m) {\n'
        '  m.def("gemm_cuda", &gemm_cuda);\n'
        '  m.def("get_compiling_cuda_version", &get_compiling_cuda_version);\n'
        '}\n')
    (src / "model.py").write_text(
        "import torch\nfrom . import ext\n\n"
        "def run(x):\n    print(ext.get_compiling_cuda_version())\n"
        "    return torch.ops.mylib.gemm_cuda(x)\n")
    run_cli(src, "-q", "--rename-exported", check=0)  # kept by default: test_exported_names.py
    out = tmp_path / "proj_musa"
    cu = (out / "csrc/ops.mu").read_text()
    assert 'm.def("gemm_musa", &gemm_musa);' in cu
    assert 'm.def("get_compiling_musa_version", &get_compiling_musa_version);' in cu
    py = (out / "model.py").read_text()
    assert "ext.get_compiling_musa_version()" in py and "torch.ops.mylib.gemm_musa(x)" in py
