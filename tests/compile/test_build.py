"""Issue 6: `musa-port build` on ninja through the fake mcc (fixtures/fake-mcc)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

FAKE_MCC = FIXTURES / "fake-mcc" / "mcc"
BUILD_CASE = FIXTURES / "build_case"


@pytest.fixture
def ported(tmp_path) -> Path:
    shutil.copytree(BUILD_CASE, tmp_path / "bc")
    run_cli(tmp_path / "bc", "-q", check=0)
    return tmp_path / "bc_musa"


def build(out: Path, *args, report: Path | None = None, env=None):
    extra = ["--report-json", report] if report else []
    cmd = ["build", out, "--mcc", FAKE_MCC, "--cxx", FAKE_MCC, *args, *extra]
    if env is None:
        return run_cli(*cmd)
    import subprocess

    return subprocess.run([sys.executable, "-m", "musa_porting", *map(str, cmd)],
                          capture_output=True, text=True, env={**os.environ, **env})


def log_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


# 1. a shared library; no work the second time; a touched header rebuilds its dependents

def test_builds_shared_library_then_nothing_then_only_dependents(ported, tmp_path):
    log = tmp_path / "mcc.log"
    env = {"FAKE_MCC_LOG": str(log)}
    proc = build(ported, "--shared", "libops.so", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lib = ported / ".musa-port-build" / "libops.so"
    assert lib.read_text().startswith("FAKE-MUSA-SHARED-LIBRARY")
    first = log_lines(log)
    compiled = sorted(Path(e["inputs"][0]).name for e in first if "-c" in e["argv"])
    assert compiled == ["host.cpp", "saxpy.mu", "scale.mu", "transpose.mu"]
    link = [e for e in first if "-shared" in e["argv"]]
    assert link and "-lmusart" in link[0]["argv"]

    log.unlink()
    again = build(ported, "--shared", "libops.so", env=env)
    assert again.returncode == 0 and "up to date" in again.stdout
    assert log_lines(log) == []  # ninja: no work to do

    time.sleep(0.01)
    (ported / "include" / "common.muh").touch()
    third = build(ported, "--shared", "libops.so", env=env)
    assert third.returncode == 0, third.stdout
    rebuilt = sorted(Path(e["inputs"][0]).name for e in log_lines(log) if "-c" in e["argv"])
    assert rebuilt == ["saxpy.mu", "scale.mu"]


# 2. shared memory over the arch's limit

def test_shared_memory_limit_fails_on_mp21_with_hint_and_passes_on_mp31(ported, tmp_path):
    report = tmp_path / "b.json"
    proc = build(ported, "--arch", "mp_21", report=report)
    assert proc.returncode == 1
    data = json.loads(report.read_text())
    [failed] = [f for f in data["files"] if f["status"] == "failed"]
    assert failed["file"] == "src/transpose.mu"
    src = tmp_path / "bc" / "src" / "transpose.cu"
    kernel_line = next(i for i, ln in enumerate(src.read_text().splitlines(), 1)
                       if "__global__ void transpose_kernel" in ln)
    err = failed["first_error"]
    assert (err["src_file"], err["src_line"]) == (str(src), kernel_line)
    assert err["hint_id"] == "MP3001"
    assert "transpose_kernel(" in err["hint"] and f"{src}:{kernel_line}" in err["hint"]
    assert "--exclude" in err["hint"] and "mp_21" in err["hint"]
    assert "hint [MP3001]: kernel transpose_kernel(" in proc.stdout

    ok = build(ported, "--arch", "mp_31")
    assert ok.returncode == 0, ok.stdout
    fat = build(ported, "--arch", "mp_22,mp_31", "--report-json", tmp_path / "fat.json")
    assert fat.returncode == 0
    cmd = next(f["command"] for f in json.loads((tmp_path / "fat.json").read_text())["files"]
               if f["file"].endswith(".mu"))
    assert "--offload-arch=mp_22" in cmd and "--offload-arch=mp_31" in cmd


def test_a_failure_under_a_folder_with_a_space_is_attributed_to_its_file(tmp_path):
    shutil.copytree(BUILD_CASE, tmp_path / "my work" / "bc")
    run_cli(tmp_path / "my work" / "bc", "-q", check=0)
    report = tmp_path / "b.json"
    proc = build(tmp_path / "my work" / "bc_musa", "--arch", "mp_21", "--keep-going",
                 report=report)
    assert proc.returncode == 1
    status = {f["file"]: f["status"] for f in json.loads(report.read_text())["files"]}
    assert status.pop("src/transpose.mu") == "failed"
    assert set(status.values()) == {"ok"}
    assert "src/transpose.mu" in proc.stdout and "hint [MP3001]" in proc.stdout


def test_a_failure_without_a_diagnostic_shows_what_the_compiler_said(ported):
    # A compiler that dies without a file:line message (a crash, a bad flag).
    proc = build(ported, "--launcher", "sh -c 'echo internal compiler crash >&2; exit 3' --",
                 "--only", "src/saxpy.mu")
    assert proc.returncode == 1
    assert "src/saxpy.mu: failed; the compiler said:" in proc.stdout
    assert "internal compiler crash" in proc.stdout


# 3. --keep-going, stopping at the first failure, exit codes

def _break(ported: Path) -> None:
    """Two more failures: a leftover cuda* name in saxpy, inline PTX in scale."""
    p = ported / "src" / "saxpy.mu"
    p.write_text(p.read_text().replace("musaGetLastError()", "cudaGetLastErrorX()"))
    p = ported / "src" / "scale.mu"
    p.write_text(p.read_text().replace("if (i < n)", 'asm volatile("bar.sync 0;");\n  if (i < n)', 1))


def test_keep_going_reports_every_failure(ported, tmp_path):
    _break(ported)
    report = tmp_path / "b.json"
    proc = build(ported, "--arch", "mp_21", "--keep-going", "-j", "1", report=report)
    assert proc.returncode == 1
    data = json.loads(report.read_text())
    status = {f["file"]: f["status"] for f in data["files"]}
    assert status == {"src/host.cpp": "ok", "src/saxpy.mu": "failed", "src/scale.mu": "failed",
                      "src/transpose.mu": "failed"}
    hints = {f["file"]: f["first_error"]["hint_id"] for f in data["files"] if f["first_error"]}
    assert hints == {"src/saxpy.mu": "MP3002", "src/scale.mu": "MP3004",
                     "src/transpose.mu": "MP3001"}
    assert "cudaGetLastErrorX" in proc.stdout and '{"cudaGetLastErrorX": "musaGetLastErrorX"}' in proc.stdout


def test_without_keep_going_the_build_stops_at_the_first_failure(ported, tmp_path):
    _break(ported)
    report = tmp_path / "b.json"
    proc = build(ported, "--arch", "mp_21", "-j", "1", report=report)
    assert proc.returncode == 1
    data = json.loads(report.read_text())
    assert data["totals"]["failed"] == 1
    assert data["totals"]["not_built"] >= 1


def test_only_and_exclude(ported, tmp_path):
    report = tmp_path / "b.json"
    proc = build(ported, "--arch", "mp_21", "--exclude", "transpose.mu", report=report)
    assert proc.returncode == 0, proc.stdout
    assert {f["file"] for f in json.loads(report.read_text())["files"]} == {
        "src/host.cpp", "src/saxpy.mu", "src/scale.mu"}
    build(ported, "--only", "src/s*.mu", report=report)
    assert {f["file"] for f in json.loads(report.read_text())["files"]} == {
        "src/saxpy.mu", "src/scale.mu"}


# 4. compile_commands.json

def test_compile_commands_lists_every_compile_exactly(ported, tmp_path):
    log = tmp_path / "mcc.log"
    proc = build(ported, "--compile-commands", "-I", "/opt/extra", "-D", "FOO=1",
                 env={"FAKE_MCC_LOG": str(log)})
    assert proc.returncode == 0
    import shlex

    entries = json.loads((ported / "compile_commands.json").read_text())
    assert entries == json.loads((ported / ".musa-port-build/compile_commands.json").read_text())
    by_file = {Path(e["file"]).name: e for e in entries}
    assert set(by_file) == {"host.cpp", "saxpy.mu", "scale.mu", "transpose.mu"}
    ran = {Path(e["inputs"][0]).name: e["argv"] for e in log_lines(log)}
    for name, e in by_file.items():
        argv = shlex.split(e["command"])
        assert argv[1:] == ran[name][1:]  # the exact command ninja ran
        assert "-I/opt/extra" in argv and "-DFOO=1" in argv
        assert "-MD" in argv and e["output"].endswith(".o")


# 5. --launcher

def test_launcher_prefixes_every_compile(ported, tmp_path):
    calls = tmp_path / "launcher.log"
    launcher = tmp_path / "fake-ccache"
    launcher.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexec "$@"\n')
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    proc = build(ported, "--launcher", str(launcher), "--shared", "libops.so")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ninja_file = (ported / ".musa-port-build" / "build.ninja").read_text()
    cmds = [ln.strip() for ln in ninja_file.splitlines() if ln.strip().startswith("cmd = ")]
    compile_cmds = [c for c in cmds if " -c " in c]
    assert len(compile_cmds) == 4 and all(c.startswith(f"cmd = {launcher} ") for c in compile_cmds)
    assert not any(c.startswith(f"cmd = {launcher} ") for c in cmds if "-shared" in c)
    recorded = calls.read_text().splitlines()
    assert len(recorded) == 4 and all(str(FAKE_MCC) in line for line in recorded)


# 6. no mcc

def test_missing_mcc_is_one_line_listing_the_places_searched(ported, tmp_path):
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("MUSA_HOME", "MUSA_PATH")}
    env["PATH"] = str(tmp_path)  # no mcc anywhere on PATH
    proc = subprocess.run([sys.executable, "-m", "musa_porting", "build", str(ported)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: mcc not found; looked in:")
    assert "PATH" in lines[0] and "/usr/local/musa/bin/mcc" in lines[0]
    env["MUSA_HOME"] = str(tmp_path / "musa")
    proc = subprocess.run([sys.executable, "-m", "musa_porting", "build", str(ported)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "$MUSA_HOME/bin/mcc" in proc.stderr


def test_mcc_found_through_musa_home(ported, tmp_path):
    home = tmp_path / "musa"
    (home / "bin").mkdir(parents=True)
    os.symlink(FAKE_MCC, home / "bin" / "mcc")
    import subprocess

    env = dict(os.environ, MUSA_HOME=str(home))
    proc = subprocess.run([sys.executable, "-m", "musa_porting", "build", str(ported), "--cxx",
                           str(FAKE_MCC), "--shared", "x.so", "--report-json",
                           str(tmp_path / "b.json")], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    link = json.loads((tmp_path / "b.json").read_text())["link"]["command"]
    assert f"-L{home.resolve()}/lib" in link or f"-L{home}/lib" in link


def test_port_then_build_in_one_step(tmp_path):
    shutil.copytree(BUILD_CASE, tmp_path / "bc")
    proc = run_cli(tmp_path / "bc", "-q", "--build", "--build-args",
                   f"--mcc {FAKE_MCC} --cxx {FAKE_MCC} --arch mp_31")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "musa-port build: ok" in proc.stdout


@pytest.mark.parametrize("args, says", [
    ('--arch mp_31 "libops.so', "quot"),  # an unbalanced quote (issue 28 item 14)
    ("--no-such-option", "--no-such-option"),
    ("-O", "-O"),  # an option without its value
])
def test_build_args_are_checked_before_anything_is_ported(tmp_path, args, says):
    """A --build-args value the build cannot read is one error line, exit 2, before the
    port: it was found after the output was written (exit 3 for a quote)."""
    shutil.copytree(BUILD_CASE, tmp_path / "bc")
    proc = run_cli(tmp_path / "bc", "-q", "--build", "--build-args", args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "--build-args" in proc.stderr and says in proc.stderr
    assert not (tmp_path / "bc_musa").exists()


def test_relative_include_dirs_work_from_the_callers_folder(ported, tmp_path, monkeypatch):
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "extra.h").write_text("#define EXTRA 1\n")
    src = ported / "src" / "scale.mu"
    src.write_text('#include "extra.h"\n' + src.read_text())
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "musa_porting", "build", str(ported), "--mcc",
                           str(FAKE_MCC), "--cxx", str(FAKE_MCC), "-I", "extra",
                           "--report-json", str(tmp_path / "b.json")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [scale] = [f for f in json.loads((tmp_path / "b.json").read_text())["files"]
               if f["file"] == "src/scale.mu"]
    assert f"-I{tmp_path / 'extra'}" in scale["command"]


def test_hints_for_clang_and_nvcc_diagnostics():
    from musa_porting.compile.diagnostics import parse

    out = ("k.mu:3:5: error: double precision is not supported when compiling for mp_21\n"
           "k.mu:9:1: warning: unused variable 'x' [-Wunused-variable]\n"
           "k.mu:12:3: error: invalid inline assembly: PTX is not supported when compiling for mp_22\n"
           "2 errors generated when compiling for mp_21.\n"
           'x.cu(7): error: identifier "cudaFooBar" is undefined\n'
           "mcc: error: unsupported MUSA gpu architecture: mp_99\n")
    ds = parse(out)
    got = [(d.file, d.line, d.column, d.severity, d.hint_id) for d in ds]
    assert got == [("k.mu", 3, 5, "error", "MP3003"), ("k.mu", 9, 1, "warning", None),
                   ("k.mu", 12, 3, "error", "MP3004"), ("x.cu", 7, None, "error", "MP3002"),
                   (None, None, None, "error", None)]
    assert '{"cudaFooBar": "musaFooBar"}' in ds[3].hint


def test_summary_table_lists_every_file_with_status(ported):
    proc = build(ported, "--arch", "mp_21", "--keep-going")
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip()
            for line in proc.stdout.splitlines()
            if line.startswith("| src/")}
    assert rows == {"src/host.cpp": "ok", "src/saxpy.mu": "ok", "src/scale.mu": "ok",
                    "src/transpose.mu": "failed"}


def test_generated_files_replace_garbage_and_leave_no_temp_files(tmp_path):
    from musa_porting.compile.ninja import write_if_changed

    target = tmp_path / "build.ninja"
    target.write_bytes(b"\xff\xfe not utf-8")  # e.g. a file clobbered by another tool
    write_if_changed(target, "rule cc\n")
    assert target.read_text() == "rule cc\n"
    before = target.stat().st_mtime_ns
    time.sleep(0.01)
    write_if_changed(target, "rule cc\n")
    assert target.stat().st_mtime_ns == before  # unchanged: not rewritten
    assert [p.name for p in tmp_path.iterdir()] == ["build.ninja"]
