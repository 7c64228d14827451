"""A hostile output folder: a tampered manifest or journal, links planted where a run or
its reports write, names too long for the file system. Nothing outside the output may
be deleted, replaced or written, and nothing may be read through a link or a device.
Issue 24 items 1, 2, 8 and 12; issue 28 items 1, 12, 15 and 17."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import make_tree
from conftest import run_cli as cli
from relhelp import memory_capped, one_error, state, temps

MANIFEST = ".musa-port-manifest.json"
JOURNAL = ".musa-port-journal"
TEMP = ".0123456789abcdef.musa-port-tmp"  # a name like a run's temp files


@pytest.fixture
def world(tmp_path) -> Path:
    """tmp/src ported into tmp/src_musa, and tmp/victim beside it: a file, a link, an
    empty folder and a file named like musa-port's temp files."""
    make_tree(tmp_path / "src", {"a.cu": "cudaStream_t s;\n", "notes.txt": "n\n"})
    victim = make_tree(tmp_path / "victim", {"file.txt": "precious\n", TEMP: "also precious\n"})
    os.symlink("file.txt", victim / "link")
    (victim / "empty").mkdir()
    assert cli(tmp_path / "src", "-q").returncode == 0
    return tmp_path


def _tamper_manifest(out: Path, keys: list[str], dirs: list[str] = ()) -> None:
    """Add records for ``keys`` that match what is there now (size and mtime), as a
    run that wrote them would have."""
    path = out / MANIFEST
    data = json.loads(path.read_text())
    model = dict(next(iter(data["files"].values())))
    for key in keys:
        target = key if key.startswith("/") else os.path.normpath(os.path.join(out, key))
        st = os.lstat(target)
        kind = "symlink" if os.path.islink(target) else "copied"
        data["files"][key] = {**model, "src": "gone.txt", "kind": kind, "out_size": st.st_size,
                              "out_mtime_ns": st.st_mtime_ns}
    data["dirs"] = [*data["dirs"], *dirs]
    path.write_text(json.dumps(data))


def _up_to_root(out: Path) -> str:
    return "../" * (len(out.parts) + 10)  # more '..' than there are folders: stops at /


@pytest.mark.parametrize("how", ["relative", "deep", "absolute"])
def test_a_tampered_manifest_deletes_nothing_outside_the_output(world, how):
    out, victim = world / "src_musa", world / "victim"
    where = {"relative": "../victim/", "deep": _up_to_root(out) + str(victim)[1:] + "/",
             "absolute": f"{victim}/"}[how]
    _tamper_manifest(out, [where + "file.txt", where + "link", where + TEMP],
                     [where + "empty", where.rstrip("/")])
    before = state(victim, with_mtime=True)
    proc = cli(world / "src")
    assert proc.returncode == 0, proc.stderr
    assert state(victim, with_mtime=True) == before
    assert "Traceback" not in proc.stderr
    assert f"{where}file.txt" in proc.stderr and "warning" in proc.stderr  # named, ignored
    assert (out / "a.mu").read_text() == "musaStream_t s;\n"
    assert temps(out) == []


def test_a_manifest_key_through_a_link_in_the_output_deletes_nothing(world):
    out, victim = world / "src_musa", world / "victim"
    os.symlink("../victim", out / "via")
    _tamper_manifest(out, ["via/file.txt", "via/link"], ["via/empty"])
    before = state(victim, with_mtime=True)
    proc = cli(world / "src", "--force")
    assert proc.returncode == 0, proc.stderr
    assert state(victim, with_mtime=True) == before


def _journal(out: Path, **fields) -> None:
    (out / JOURNAL).write_text(json.dumps({"version": 2, **fields}))


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_a_tampered_journal_deletes_nothing_outside_the_output(world, how):
    out, victim = world / "src_musa", world / "victim"
    where = "../victim" if how == "relative" else str(victim)
    _journal(out, stage_dirs=[where, f"{where}/empty"], created=[f"{where}/empty", where],
             manifest=f"{where}/{TEMP}")
    before = state(victim, with_mtime=True)
    proc = cli(world / "src")
    assert proc.returncode == 0, proc.stderr
    assert state(victim, with_mtime=True) == before
    assert where in proc.stderr and "warning" in proc.stderr
    assert not (out / JOURNAL).exists()
    assert temps(out) == []


def test_a_journal_in_the_first_format_deletes_nothing_outside(world):
    out, victim = world / "src_musa", world / "victim"
    (victim / "x.musa-port-tmp").write_text("precious\n")
    (out / JOURNAL).write_text(f"../victim/x.musa-port-tmp\n{victim}/x.musa-port-tmp\n")
    before = state(victim, with_mtime=True)
    proc = cli(world / "src", "-q")
    assert proc.returncode == 0, proc.stderr
    assert state(victim, with_mtime=True) == before


@pytest.mark.parametrize("name", [MANIFEST, JOURNAL])
def test_a_manifest_or_journal_linked_to_a_device_is_not_read(world, name):
    out = world / "src_musa"
    (out / name).unlink(missing_ok=True)
    os.symlink("/dev/zero", out / name)
    proc = cli(world / "src", "-q", timeout=60, **memory_capped())
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    if proc.returncode == 2:
        assert name in one_error(proc)


def test_a_journal_that_is_a_fifo_does_not_hang_the_run(world):
    out = world / "src_musa"
    os.mkfifo(out / JOURNAL)
    proc = cli(world / "src", "-q", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not (out / JOURNAL).exists()


# -- reports ------------------------------------------------------------------------------

def test_a_link_planted_at_the_report_temp_name_is_not_written_through(tmp_path, monkeypatch):
    from musa_porting.report.output import write_text

    victim = make_tree(tmp_path / "victim", {"v.txt": "precious\n"})
    report = tmp_path / "r.json"
    os.symlink(victim / "v.txt", f"{report}.tmp{os.getpid()}")  # the name it used to write
    write_text(str(report), "{}\n")
    assert (victim / "v.txt").read_text() == "precious\n"
    assert report.read_text() == "{}\n"


def test_report_csv_with_a_file_name_that_is_not_utf8(tmp_path):
    src = make_tree(tmp_path / "src", {"ok.cu": "cudaStream_t s;\n"})
    (src / os.fsdecode(b"caf\xe9.cu")).write_text("cublasHandle_t h; cudaFoo_t f;\n")
    report = tmp_path / "r.csv"
    proc = cli(src, "-q", "--report-csv", report)
    assert proc.returncode == 0, proc.stderr
    text = report.read_text(encoding="utf-8")
    assert "caf" in text
    assert temps(tmp_path) == [] and sorted(os.listdir(tmp_path)) == ["r.csv", "src", "src_musa"]


@pytest.mark.parametrize("flag", ["--report-json", "--report-csv", "--sarif", "--diff"])
def test_a_report_path_that_cannot_be_written_stops_the_run_before_it_ports(tmp_path, flag):
    src = make_tree(tmp_path / "src", {"a.cu": "cudaStream_t s;\n"})
    for bad in (tmp_path / "missing/dir/r.json", "."):
        args = [f"--diff={bad}", "--write"] if flag == "--diff" else [flag, bad]
        proc = cli(src, *args, cwd=tmp_path)
        line = one_error(proc)
        assert str(bad) in line and "tmp" not in line.replace(str(tmp_path), "")
        assert not (tmp_path / "src_musa").exists()  # nothing was ported
        assert sorted(os.listdir(tmp_path)) == ["src"]  # and nothing left behind


def test_two_outputs_to_stdout_are_refused(tmp_path):
    src = make_tree(tmp_path / "src", {"a.cu": "cudaStream_t s;\n"})
    proc = cli(src, "--report-json", "-", "--sarif", "-")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--report-json" in proc.stderr and "--sarif" in proc.stderr
    assert not (tmp_path / "src_musa").exists()


# -- 24.12: names too long for the file system ----------------------------------------------

def test_a_renamed_path_too_long_for_the_file_system_is_found_before_anything_is_written(tmp_path):
    src = tmp_path / "src"
    long_name = "npp_" + "x" * (255 - len("npp_.cuh")) + ".cuh"
    assert len(long_name) == 255
    make_tree(src, {"a.cu": '#include "k.cuh"\ncudaStream_t s;\n', long_name: "int v;\n",
                    "k.cuh": "int k;\n"})
    assert cli(src, "-q").returncode == 0  # without renames: every name fits
    (src / "a.cu").write_text('#include "k.cuh"\ncudaEvent_t e;\n')
    proc = cli(src, "--rename-paths")
    assert "Traceback" not in proc.stderr
    out = tmp_path / "src_musa"
    if proc.returncode == 0:  # the name is kept, and the user is told why (a finding)
        assert f"{long_name}: not renamed to mtpp_" in proc.stdout and "MP0003" in proc.stdout
        assert (out / long_name.replace(".cuh", ".muh")).exists()
        assert (out / "a.mu").read_text() == '#include "k.muh"\nmusaEvent_t e;\n'
    else:
        one_error(proc)
        assert (out / "a.mu").read_text() == '#include "k.muh"\nmusaStream_t s;\n'
    assert temps(tmp_path) == []
    assert cli(src, "-q", "--rename-paths").returncode == proc.returncode  # and it converges
    assert temps(tmp_path) == []
