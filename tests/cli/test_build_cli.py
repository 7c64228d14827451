"""Issue 15 through the command line: which files are build files, --arch,
--no-build-files, and the build findings in every report and in --check."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import ROOT, make_tree, run_cli, snapshot

SCHEMA = ROOT / "musa_porting" / "report" / "schemas" / "report.schema.json"


def test_build_files_are_chosen_by_name_and_by_first_line(tmp_path):
    src = make_tree(tmp_path / "src", {
        "CMakeLists.txt": "find_package(CUDA)\n",
        "cmake/gpu.cmake": "set(X ${CUDA_LIBRARIES})\n",
        "Makefile": "all:\n\tnvcc k.cu\n",
        "sub/GNUmakefile": "all:\n\tnvcc k.cu\n",
        "rules.mk": "NV := nvcc\n",
        "build.sh": "nvcc k.cu\n",
        "scripts/compile": "#!/usr/bin/env bash\nnvcc -c k.cu\n",
        "scripts/notes": "#!/bin/bash\necho hello\n",  # a script that does not call nvcc
        "scripts/tool.py": "#!/usr/bin/env python3\nprint('nvcc')\n",
        "README": "nvcc k.cu\n",
        "k.cu": "__global__ void k() {}\n",
    })
    run_cli(src, "-q", check=0)
    out = tmp_path / "src_musa"
    assert (out / "CMakeLists.txt").read_text().endswith("find_package(MUSA)\n")
    assert (out / "cmake/gpu.cmake").read_text() == "set(X ${MUSA_LIBRARIES})\n"
    for rel in ("Makefile", "sub/GNUmakefile"):
        assert (out / rel).read_text() == "all:\n\tmcc k.mu\n"
    assert (out / "rules.mk").read_text() == "NV := mcc\n"
    assert (out / "build.sh").read_text() == "mcc k.mu\n"
    assert (out / "scripts/compile").read_text() == "#!/usr/bin/env bash\nmcc -c k.mu\n"
    for rel in ("scripts/notes", "README"):
        assert (out / rel).read_bytes() == (src / rel).read_bytes()
    lang = {r["src"]: r.get("lang") for r in
            json.loads((out / ".musa-port-manifest.json").read_text())["files"].values()}
    # A Python script is ported as Python (its own kind), never as a shell script.
    assert (lang["CMakeLists.txt"], lang["Makefile"], lang["scripts/compile"],
            lang["scripts/tool.py"]) == ("cmake", "make", "shell", "python")

    run_cli(src, "-o", tmp_path / "copied", "--no-build-files", "-q", check=0)
    for rel in ("CMakeLists.txt", "Makefile", "build.sh", "scripts/compile"):
        assert (tmp_path / "copied" / rel).read_bytes() == (src / rel).read_bytes()


def test_arch_option_and_re_runs(tmp_path):
    src = make_tree(tmp_path / "src", {"Makefile": "all:\n\tnvcc -arch=sm_80 k.cu\n"})
    out = tmp_path / "src_musa" / "Makefile"
    run_cli(src, "--arch", "mp_21,31", "-q", check=0)
    assert out.read_text() == "all:\n\tmcc --offload-arch=mp_21 --offload-arch=mp_31 k.mu\n"
    mtime = out.stat().st_mtime_ns
    run_cli(src, "--arch", "mp_21", "--arch", "mp_31", "-q", check=0)
    assert out.stat().st_mtime_ns == mtime  # the same port: not rewritten
    run_cli(src, "-q", check=0)  # the default, mp_22: the arch is part of what was ported
    assert out.read_text() == "all:\n\tmcc --offload-arch=mp_22 k.mu\n"
    bad = run_cli(src, "--arch", "sm_80")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--arch: sm_80: expected one of mp_10, mp_21, mp_22, mp_31, mp_32" in bad.stderr


@pytest.fixture
def cmake_tree(tmp_path) -> Path:
    return make_tree(tmp_path / "src", {
        "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\n"
                          'message(STATUS "nvcc is ${CMAKE_CUDA_COMPILER}")\n'
                          "add_library(k k.cu)\n",
        "k.cu": "__global__ void k() {}\n",
    })


def test_build_findings_in_json_csv_sarif_and_check(cmake_tree, tmp_path):
    rep = tmp_path / "rep"
    rep.mkdir()
    proc = run_cli(cmake_tree, "--report-json", rep / "r.json", "--report-csv", rep / "r.csv",
                   "--sarif", rep / "r.sarif", "--check")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # MP3101 is an error
    where = f"{tmp_path / 'src_musa' / 'CMakeLists.txt'}:4:27: error: 'CMAKE_CUDA_COMPILER'"
    assert where in proc.stdout

    report = json.loads((rep / "r.json").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(report, json.loads(SCHEMA.read_text()))
    [d] = [d for d in report["diagnostics"] if d["id"] == "MP3101"]
    assert (d["file"], d["line"], d["source_line"], d["level"]) == ("CMakeLists.txt", 4, 2, "error")
    assert "MUSA_MCC_EXECUTABLE" in d["message"]
    assert report["checks"]["MP3104"]["level"] == "warning"
    rows = list(csv.DictReader(io.StringIO((rep / "r.csv").read_text())))
    assert {r["id"] for r in rows} == {"MP3101", "MP3107", "MP3108"}
    sarif = json.loads((rep / "r.sarif").read_text())
    rules = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert {f"MP310{i}" for i in range(1, 9)} <= set(rules)
    [res] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "MP3101"]
    assert res["level"] == "error" and rules[res["ruleIndex"]] == "MP3101"

    # Notes (MP3107, MP3108) never fail --check; the error does until suppressed.
    assert run_cli(cmake_tree, "--check", "--suppress", "MP3101").returncode == 0
    assert run_cli(cmake_tree, "--check", "--suppress", "cuda-build-setting").returncode == 0


def test_the_build_kinds_port_in_parallel_and_in_a_dry_run_diff(cmake_tree, tmp_path):
    before = snapshot(cmake_tree)
    dry = run_cli(cmake_tree, "--dry-run", "--diff", "-j", "2", check=0)
    assert "+project(p LANGUAGES CXX)" in dry.stdout
    assert "+musa_add_library(k k.mu)" in dry.stdout
    assert not (tmp_path / "src_musa").exists() and snapshot(cmake_tree) == before


def test_a_finding_on_line_100_prints_its_line_number(tmp_path):
    """The terminal summary printed ':100:' as rich's emoji (found on vLLM's CMakeLists)."""
    src = make_tree(tmp_path / "src", {"CMakeLists.txt": "\n" * 99 + 'set(LANG "CUDA")\n'})
    proc = run_cli(src, check=0)
    assert f"{tmp_path / 'src_musa' / 'CMakeLists.txt'}:100:11: warning:" in proc.stdout
