"""``build`` and ``verify`` under faults: a compiler that hangs, crashes or says nothing;
Ctrl-C, SIGTERM and SIGKILL while ninja runs; a bad --mcc; a folder musa-port did not
produce; and the MUSA include folder for host compiles. Issue 18 "build and verify
under faults", issue 19 item 11."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from conftest import ROOT
from conftest import run_cli as cli
from relhelp import descendants, kill_all, one_error, start, state, wait_gone

FAKE_MCC = ROOT / "fixtures/fake-mcc/mcc"
BUILD_CASE = ROOT / "fixtures/build_case"


@pytest.fixture
def ported(tmp_path) -> Path:
    shutil.copytree(BUILD_CASE, tmp_path / "bc")
    assert cli(tmp_path / "bc", "-q").returncode == 0
    return tmp_path / "bc_musa"


def script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def hanging_launcher(tmp_path: Path, ignore_term: bool = False) -> tuple[Path, Path]:
    """A launcher (compiler wrapper) that hangs on saxpy.mu (unless NO_HANG is set) and
    compiles the rest."""
    mark = tmp_path / "started"
    trap = "trap '' TERM\n" if ignore_term else ""
    body = (f'case "$NO_HANG $*" in " "*saxpy*) {trap}echo $$ > {mark}; sleep 600; exit 0;; esac\n'
            'exec "$@"\n')
    return script(tmp_path / "hang", body), mark


def build_args(out: Path, *extra) -> list:
    return ["build", out, "--mcc", FAKE_MCC, "--cxx", FAKE_MCC, *extra]


def wait_for(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_a_hanging_compile_times_out(ported, tmp_path):
    launcher, mark = hanging_launcher(tmp_path, ignore_term=True)
    report = tmp_path / "b.json"
    t0 = time.monotonic()
    proc = start(*build_args(ported, "--launcher", launcher, "--timeout", "2", "--keep-going",
                             "--report-json", report))
    wait_for(mark)
    pids = descendants(proc.pid)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert time.monotonic() - t0 < 60
    data = json.loads(report.read_text())
    saxpy = next(f for f in data["files"] if f["file"].endswith("saxpy.mu"))
    assert saxpy["status"] == "failed"
    assert sum(f["status"] == "ok" for f in data["files"]) == 3  # the others were built
    left = wait_gone(pids, 10)
    kill_all(left)
    assert left == set(), "the timed-out compile was left running"


def test_the_timeout_is_reported(ported, tmp_path):
    launcher, _ = hanging_launcher(tmp_path)
    proc = cli(*build_args(ported, "--launcher", launcher, "--timeout", "1", "--only", "*saxpy*"))
    assert proc.returncode == 1
    assert "timed out after 1 s (--timeout)" in proc.stdout, proc.stdout


@pytest.mark.parametrize("sig, code, ignore_term", [
    (signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)])
def test_a_signal_stops_ninja_and_every_compile(ported, tmp_path, sig, code, ignore_term):
    launcher, mark = hanging_launcher(tmp_path, ignore_term)
    proc = start(*build_args(ported, "--launcher", launcher, "-j", "2"))
    wait_for(mark)
    pids = descendants(proc.pid)
    assert len(pids) >= 3  # ninja, the launcher, its sleep
    proc.send_signal(sig)  # to musa-port alone, as `kill` does
    _, err = proc.communicate(timeout=60)
    err = err.decode(errors="replace")
    assert proc.returncode == code, err
    assert "Traceback" not in err and err.strip().count("\n") == 0 and err.startswith("error: "), err
    left = wait_gone(pids, 15)
    kill_all(left)
    assert left == set(), "ninja or a compile outlived musa-port"


def test_sigkill_of_musa_port_stops_ninja_and_the_next_build_resumes(ported, tmp_path):
    launcher, mark = hanging_launcher(tmp_path)
    proc = start(*build_args(ported, "--launcher", launcher, "-j", "1", "--keep-going"))
    wait_for(mark)
    pids = descendants(proc.pid)
    proc.kill()
    proc.wait()
    left = wait_gone(pids, 15)
    kill_all(left)
    assert left == set(), "ninja outlived a SIGKILLed musa-port"
    build_dir = ported / ".musa-port-build"
    built = {p.name for p in (build_dir / "obj").rglob("*.o")}
    log = tmp_path / "mcc.log"
    proc = cli(*build_args(ported, "--launcher", launcher),
               env={"FAKE_MCC_LOG": str(log), "NO_HANG": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    compiled = {Path(json.loads(x)["inputs"][0]).name + ".o"
                for x in log.read_text().splitlines()}
    assert compiled and not compiled & built  # what was built before is not built again
    assert [p for p in build_dir.iterdir() if "tmp" in p.name] == []
    again = cli(*build_args(ported, "--launcher", launcher), env={"NO_HANG": "1"})
    assert "up to date" in again.stdout


@pytest.mark.parametrize("body, said", [
    ('case "$*" in *scale*) kill -SEGV $$;; esac\nexec "$@"\n', "killed by SIGSEGV"),
    ('case "$*" in *scale*) exit 1;; esac\nexec "$@"\n', "exited with code 1 and printed nothing"),
])
def test_a_compiler_that_crashes_or_says_nothing(ported, tmp_path, body, said):
    launcher = script(tmp_path / "bad", body)
    proc = cli(*build_args(ported, "--launcher", launcher, "--keep-going"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert said in proc.stdout and "scale.mu" in proc.stdout, proc.stdout


def test_a_non_executable_mcc_is_one_line(ported, tmp_path):
    mcc = tmp_path / "mcc"
    mcc.write_text("#!/bin/sh\n")
    mcc.chmod(0o644)
    line = one_error(cli("build", ported, "--mcc", mcc))
    assert str(mcc) in line and "not an executable" in line


def test_a_folder_musa_port_did_not_produce(tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(BUILD_CASE, plain)
    before = state(plain)
    line = one_error(cli(*build_args(plain)))
    assert "--build-dir" in line and str(plain) in line
    assert state(plain) == before  # nothing written into it
    proc = cli(*build_args(plain, "--build-dir", tmp_path / "b", "--only", "*.cpp"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert state(plain) == before


def test_host_compiles_get_the_musa_include_folder(ported, tmp_path):
    home = tmp_path / "musa"
    (home / "bin").mkdir(parents=True)
    os.symlink(FAKE_MCC, home / "bin/mcc")
    report = tmp_path / "b.json"
    env = {"MUSA_HOME": str(home), "PATH": os.environ["PATH"]}

    def commands() -> dict[str, str]:
        proc = cli("build", ported, "--cxx", FAKE_MCC, "--report-json", report, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return {Path(f["file"]).name: f["command"] for f in json.loads(report.read_text())["files"]}

    assert f"-I{home / 'include'}" not in commands()["host.cpp"]  # no include folder: no flag
    (home / "include").mkdir()
    (home / "include/musa_runtime.h").write_text("#define MUSA_RUNTIME 1\n")
    cmds = commands()
    assert f"-I{home / 'include'}" in cmds["host.cpp"]
    assert f"-I{home / 'include'}" not in cmds["saxpy.mu"]  # mcc finds its own


def _fake_nvcc(tmp_path: Path) -> tuple[Path, Path]:
    mark = tmp_path / "nvcc-started"
    return script(tmp_path / "nvcc", f"echo $$ > {mark}\nsleep 600\n"), mark


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_verify_stops_cleanly_too(ported, tmp_path, sig, code):
    nvcc, mark = _fake_nvcc(tmp_path)
    proc = start("verify", ported, "--nvcc", nvcc, "-j", "2")
    wait_for(mark)
    pids = descendants(proc.pid)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    err = err.decode(errors="replace")
    assert proc.returncode == code and "Traceback" not in err and err.startswith("error: "), err
    left = wait_gone(pids, 15)
    kill_all(left)
    assert left == set()


def test_verify_has_a_timeout(ported, tmp_path):
    nvcc, _ = _fake_nvcc(tmp_path)
    t0 = time.monotonic()
    proc = cli("verify", ported, "--nvcc", nvcc, "--timeout", "1", "--only", "*saxpy*")
    assert proc.returncode == 1 and time.monotonic() - t0 < 60
    assert "timed out after 1 s" in proc.stdout, proc.stdout



def test_a_process_that_has_exited_is_not_waited_for_as_left_over():
    """A child that exited but is not reaped yet (ninja just killed) is a zombie: the
    stop must not count it as still running and spin until its deadline."""
    import subprocess
    import sys

    from musa_porting.compile.ninja import _session

    proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # exited, not reaped: a zombie in its own session
        with open(f"/proc/{proc.pid}/stat", "rb") as fh:
            if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                break
        time.sleep(0.01)
    try:
        assert _session(proc.pid) == []
    finally:
        proc.wait()
