"""``build``, ``verify`` and ``--symbols clang`` on a hostile tree: compile flags that
write files, file names that a shell would run, links the port copied into the output
where the build writes or reads. Issue 24 items 3, 4 and 5; issue 28 items 2 and 8."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT, make_tree
from conftest import run_cli as cli
from relhelp import memory_capped, one_error, state

FAKE_MCC = ROOT / "fixtures/fake-mcc/mcc"
PRECIOUS = "precious\n"


def _build(out: Path, *extra) -> list:
    return ["build", out, "--mcc", FAKE_MCC, "--cxx", FAKE_MCC, *extra]


def _fake_nvcc(tmp_path: Path) -> Path:
    """An nvcc that writes its object and depfile and nothing else."""
    nvcc = tmp_path / "bin/nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text('#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in -o) out=$2;; -MF) dep=$2;; '
                    'esac; shift; done\n: > "$out"\n[ -n "$dep" ] && echo "$out:" > "$dep"\n'
                    "exit 0\n")
    nvcc.chmod(0o755)
    return nvcc


# -- 24.3: compile_commands.json flags reach libclang through an allow-list --------------------

def test_compile_commands_flags_that_write_files_are_dropped(tmp_path):
    pytest.importorskip("clang.cindex")
    src = make_tree(tmp_path / "src", {"a.cu": "#define MYLIB_CUDA_ON 1\ncudaStream_t s;\n"})
    victim = make_tree(tmp_path / "home", {".bashrc": PRECIOUS}) / ".bashrc"
    commands = [{"directory": str(src), "file": "a.cu",
                 "arguments": ["clang++", "-DX=1", "-MD", "-MF", str(victim), "-MT", "touch PWNED;",
                               "-Xclang", "-dependency-file", "-Xclang", str(victim),
                               "-c", "a.cu", "-o", "a.o"]}]
    (tmp_path / "cc.json").write_text(json.dumps(commands))
    proc = cli(src, "-q", "--symbols", "clang", "--compile-commands", tmp_path / "cc.json")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == PRECIOUS
    assert "-MF" in proc.stderr and "cc.json" in proc.stderr  # the user is told what was dropped
    assert (tmp_path / "src_musa/a.mu").read_text() == "#define MYLIB_MUSA_ON 1\nmusaStream_t s;\n"


def test_compile_commands_keep_what_libclang_needs_and_drop_the_rest(tmp_path):
    from musa_porting.analyze.clang_symbols import _load_commands

    cmd = ("nvcc -Iinc -I /abs -DX=1 -U Y -std=c++17 -isystem sys -include pre.h -x cu -Wall "
           "-fno-exceptions -fplugin=evil.so -ftime-trace -MD -MF dep -Wp,-MD,x "
           "-Xclang -load -Xclang evil.so -c a.cu -o a.o")
    (tmp_path / "cc.json").write_text(json.dumps([{"directory": str(tmp_path), "file": "a.cu",
                                                  "command": cmd}]))
    commands, dropped = _load_commands(str(tmp_path / "cc.json"))
    assert commands[str(tmp_path / "a.cu")] == [
        f"-I{tmp_path}/inc", "-I", "/abs", "-DX=1", "-U", "Y", "-std=c++17", "-isystem",
        f"{tmp_path}/sys", "-include", f"{tmp_path}/pre.h", "-x", "cu", "-Wall", "-fno-exceptions"]
    assert dropped == ["-fplugin=evil.so", "-ftime-trace", "-MD", "-MF", "-Wp,-MD,x", "-Xclang"]


# -- 24.4 and 28.8: file names that a shell or ninja would take apart --------------------------

def test_verify_never_hands_a_shell_a_file_name_it_would_run(tmp_path):
    from cuda_headers import find_nvcc

    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc")
    src = make_tree(tmp_path / "src", {"`touch PWNED`.cu": "__global__ void k() {}\n",
                                       "ok.cu": "__global__ void j() {}\n"})
    assert cli(src, "-q").returncode == 0
    proc = cli("verify", tmp_path / "src_musa", "--nvcc", nvcc, "--mode", "ptx")
    assert "`touch PWNED`.mu" in one_error(proc)
    assert not list(tmp_path.rglob("PWNED"))


def test_build_compiles_names_with_dollar_parens_and_spaces(tmp_path):
    names = ["k$(touch PWNED).cu", "a b.cu", "c$d.cu", "q'uote.cu"]
    src = make_tree(tmp_path / "src", {n: "__global__ void k() {}\n" for n in names})
    assert cli(src, "-q").returncode == 0
    proc = cli(*_build(tmp_path / "src_musa", "-q"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 ok" in proc.stdout
    assert not list(tmp_path.rglob("PWNED"))


def test_build_compiles_a_name_that_is_not_utf8(tmp_path):
    """Found by the file-name fuzz target: build.ninja could not be written (exit 3)."""
    src = make_tree(tmp_path / "src", {os.fsdecode(b"caf\xe9.cu"): "__global__ void k() {}\n"})
    assert cli(src, "-q").returncode == 0
    proc = cli(*_build(tmp_path / "src_musa", "-q"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 ok" in proc.stdout


def test_build_says_which_name_ninja_cannot_hold(tmp_path):
    src = make_tree(tmp_path / "src", {"new\nline.cu": "__global__ void k() {}\n",
                                       "ok.cu": "__global__ void j() {}\n"})
    assert cli(src, "-q").returncode == 0
    proc = cli(*_build(tmp_path / "src_musa"))
    line = one_error(proc)
    assert "new" in line and "--exclude" in line
    proc = cli(*_build(tmp_path / "src_musa", "--exclude", "new*"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- 24.5 and 28.2: links in the output ----------------------------------------------------

def test_build_compile_commands_does_not_write_through_a_link_in_the_output(tmp_path):
    src = make_tree(tmp_path / "src", {"k.cu": "__global__ void k() {}\n"})
    precious = make_tree(tmp_path, {"precious.cu": PRECIOUS}) / "precious.cu"
    os.symlink("../precious.cu", src / "compile_commands.json")
    assert cli(src, "-q").returncode == 0
    out = tmp_path / "src_musa"
    assert (out / "compile_commands.json").is_symlink()
    proc = cli(*_build(out, "--compile-commands", "-q"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert precious.read_text() == PRECIOUS
    assert json.loads((out / "compile_commands.json").read_text())[0]["file"].endswith("k.mu")


@pytest.mark.parametrize("how", ["ported", "planted"])
def test_build_and_verify_never_write_through_a_linked_build_folder(tmp_path, how):
    src = make_tree(tmp_path / "src", {"k.cu": "__global__ void k() {}\n"})
    elsewhere = make_tree(tmp_path / "elsewhere", {"keep.txt": PRECIOUS})
    out = tmp_path / "src_musa"
    if how == "ported":  # the tree ships the link, and the port copies links
        os.symlink("../elsewhere", src / ".musa-port-build")
        assert cli(src, "-q").returncode in (0, 2)
    else:
        assert cli(src, "-q").returncode == 0
        os.symlink("../elsewhere", out / ".musa-port-build")
    before = state(elsewhere)
    for args in (_build(out, "-q"), ["verify", out, "--nvcc", _fake_nvcc(tmp_path), "-q"]):
        proc = cli(*args)
        assert proc.returncode in (0, 2), proc.stdout + proc.stderr
        if proc.returncode == 2:
            assert ".musa-port-build" in one_error(proc)
        assert state(elsewhere) == before


def test_verify_does_not_read_through_links_in_the_output(tmp_path):
    src = make_tree(tmp_path / "src", {"a.cu": '#include "k.cuh"\n__global__ void k() {}\n'})
    os.symlink("/dev/zero", src / "k.cuh")
    assert cli(src, "-q").returncode == 0
    out = tmp_path / "src_musa"
    manifest = json.loads((out / ".musa-port-manifest.json").read_text())
    manifest["files"]["a.mu"]["src"] = "../../../../../../../../../../../../dev/zero"
    manifest["files"]["zero.mu"] = {**manifest["files"]["a.mu"], "src": "/dev/zero"}
    (out / ".musa-port-manifest.json").write_text(json.dumps(manifest))
    proc = cli("verify", out, "--nvcc", _fake_nvcc(tmp_path), "-q", timeout=120, **memory_capped())
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
