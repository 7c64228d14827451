"""Issue 44, point 1: one input that cannot be read or ported never stops the run. The
run ports everything else, leaves that input's output as the last run made it (or
writes none), says so in a finding naming the file, and exits 0 (``--check`` decides);
a re-run once the file is fixed ports it and touches nothing else."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from conftest import make_tree, musa_port_here

from musa_porting import PortOptions, port_tree
from musa_porting.write.manifest import MANIFEST_NAME, UNTRUSTED


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path / "csrc", {
        "a.cu": '#include "k.cuh"\nvoid f() { cudaMalloc(&p, 4); }\n',
        "k.cuh": "#pragma once\ncudaStream_t s;\n",
        "sub/b.cpp": "int b(cudaStream_t s);\n",
        "data.bin": b"\x00\x01cudaMalloc\xff",
    })


def port(src: Path, **kw):
    return port_tree(PortOptions(src=str(src), output=str(src.parent / "out"), **{"jobs": 1, **kw}))


def unreadable(monkeypatch, *suffixes: str) -> None:
    """As root every file is readable: refuse to open inputs ending in ``suffixes``."""
    import builtins

    real_open, real_os_open = builtins.open, os.open

    def refused(path) -> bool:
        return isinstance(path, str) and "/csrc/" in path and path.endswith(suffixes)

    def guarded_open(path, *a, **kw):
        if refused(str(path)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    def guarded_os_open(path, flags, *a, **kw):
        if refused(path) and not flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_os_open(path, flags, *a, **kw)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)


def inputs_found(result) -> list[tuple[str, str, str, str]]:
    """(input, kind of its outcome, ID, level) of the run's findings about inputs."""
    return sorted((f.rel, f.kind, d.id, d.level) for f in result.files for d in f.diagnostics
                  if d.id.startswith("MP00"))


def files_of(out: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()
            and not p.relative_to(out).as_posix().startswith(".musa-port/")}


def manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST_NAME).read_text())["files"]


def test_an_unreadable_file_is_a_finding_and_the_rest_is_ported(tree, monkeypatch):
    unreadable(monkeypatch, "k.cuh")
    result = port(tree)
    out = tree.parent / "out"
    assert (out / "a.mu").read_text() == '#include "k.muh"\nvoid f() { musaMalloc(&p, 4); }\n'
    assert (out / "sub/b.cpp").is_file() and (out / "data.bin").is_file()
    assert not (out / "k.muh").exists()
    assert "k.muh" not in manifest(out)  # the manifest says what OUT holds
    assert inputs_found(result) == [("k.cuh", "not-ported", "MP0004", "error")]
    [d] = [d for f in result.files if f.rel == "k.cuh" for d in f.diagnostics]
    assert "k.cuh" in d.message and "Permission denied" in d.message
    # Readable again: the re-run writes k.muh and nothing else.
    monkeypatch.undo()
    before = files_of(out)
    result = port(tree)
    after = files_of(out)
    assert after["k.muh"][0] == b"#pragma once\nmusaStream_t s;\n"
    assert {k: v for k, v in after.items() if k not in ("k.muh", MANIFEST_NAME)} == \
        {k: v for k, v in before.items() if k != MANIFEST_NAME}
    assert inputs_found(result) == []


def test_an_unreadable_file_keeps_the_output_of_the_last_run(tree, monkeypatch):
    port(tree)
    out = tree.parent / "out"
    kept = files_of(out)["sub/b.cpp"]
    (tree / "a.cu").write_text("void f() { cudaFree(p); }\n")
    (tree / "sub/b.cpp").write_text("int b(cudaEvent_t e);\n")  # changed: it must be read
    unreadable(monkeypatch, "sub/b.cpp")
    result = port(tree)
    assert (out / "a.mu").read_text() == "void f() { musaFree(p); }\n"
    assert files_of(out)["sub/b.cpp"] == kept  # bytes and mtime
    assert inputs_found(result) == [("sub/b.cpp", "not-ported", "MP0004", "warning")]
    assert result.not_ported == 1
    [d] = [d for f in result.files if f.rel == "sub/b.cpp" for d in f.diagnostics
           if d.id == "MP0004"]
    assert "last run" in d.message
    assert manifest(out)["sub/b.cpp"]["src_size"] == UNTRUSTED  # the next run ports it
    monkeypatch.undo()
    result = port(tree)
    assert (out / "sub/b.cpp").read_text() == "int b(musaEvent_t e);\n"
    assert inputs_found(result) == []


def test_the_command_exits_0_and_check_fails_on_a_file_not_ported(tree, monkeypatch):
    unreadable(monkeypatch, "k.cuh")
    out = tree.parent / "out"
    code, _, err = musa_port_here(tree, "-o", out, "-q")
    assert code == 0, err
    assert (out / "a.mu").is_file()
    code, stdout, err = musa_port_here(tree, "-o", out, "-q", "--check", "--output-format",
                                       "github")
    assert code == 1
    assert "MP0004" in stdout and "k.cuh" in stdout + err and "Traceback" not in err


def test_an_unreadable_file_in_a_forked_worker(tmp_path, monkeypatch):
    """Planned in --jobs workers (64 sources and more): the same, in input order."""
    src = make_tree(tmp_path / "csrc", {f"k{i:02}.cu": "cudaFree(0);\n" for i in range(70)})
    unreadable(monkeypatch, "k07.cu")
    result = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=2))
    assert inputs_found(result) == [("k07.cu", "not-ported", "MP0004", "error")]
    written = sorted(p.name for p in (tmp_path / "out").glob("*.mu"))
    assert written == [f"k{i:02}.mu" for i in range(70) if i != 7]


def test_a_copy_that_fails_half_way_leaves_no_temp_file(tree, monkeypatch):
    """The bytes of a copied file are read while its temp file is written: a read error
    there removes what was written, and the rest of the run goes on."""
    from musa_porting.tree import plan
    from musa_porting.write import stage
    from musa_porting.write.files import cannot_read, write_chunks

    def failing_copy(src, path, mode, expect=None, dir_fd=None):
        if not src.endswith("data.bin"):
            return real_copy(src, path, mode, expect, dir_fd)

        def chunks():
            yield b"\x00\x01half"
            raise cannot_read(OSError(errno.EIO, "Input/output error"), src)

        return write_chunks(path, chunks(), mode, dir_fd)

    real_copy = stage.copy_file
    monkeypatch.setattr(stage, "copy_file", failing_copy)
    monkeypatch.setattr(plan, "MAX_BASE", 0)  # copied as a large file is: read while staged
    result = port(tree)
    out = tree.parent / "out"
    assert not (out / "data.bin").exists() and (out / "a.mu").is_file()
    assert [p.name for p in out.rglob("*") if "musa-port-tmp" in p.name] == []
    assert inputs_found(result) == [("data.bin", "not-ported", "MP0004", "error")]


def unlistable(monkeypatch, folder: Path) -> None:
    """As root every folder can be listed: refuse to list ``folder``."""
    from musa_porting.tree import walk

    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(folder):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(walk.os, "scandir", scandir)


def test_a_folder_that_cannot_be_listed_is_a_finding_and_the_rest_is_ported(tree, monkeypatch):
    unlistable(monkeypatch, tree / "sub")
    result = port(tree)
    out = tree.parent / "out"
    assert sorted(files_of(out)) == [MANIFEST_NAME, "a.mu", "data.bin", "k.muh"]
    assert inputs_found(result) == [("sub", "folder", "MP0004", "error")]
    [d] = [d for f in result.files if f.rel == "sub" for d in f.diagnostics]
    assert "cannot list" in d.message and "Permission denied" in d.message
    assert result.not_ported == 0 and result.scanned == 3  # a.cu, k.cuh, data.bin


def test_a_folder_that_cannot_be_listed_keeps_the_outputs_of_the_last_run(tree, monkeypatch):
    port(tree)
    out = tree.parent / "out"
    kept = files_of(out)["sub/b.cpp"]
    (tree / "a.cu").write_text("void f() { cudaFree(p); }\n")
    unlistable(monkeypatch, tree / "sub")
    result = port(tree)
    assert (out / "a.mu").read_text() == "void f() { musaFree(p); }\n"
    assert files_of(out)["sub/b.cpp"] == kept  # not removed as stale: its input may be there
    assert manifest(out)["sub/b.cpp"]["src_size"] == UNTRUSTED
    assert inputs_found(result) == [("sub", "folder", "MP0004", "warning")]
    monkeypatch.undo()
    before = files_of(out)
    result = port(tree)
    assert inputs_found(result) == []
    assert files_of(out)["sub/b.cpp"] == before["sub/b.cpp"]  # ported again: the same bytes


def failing_porter(monkeypatch, marker: bytes) -> None:
    """The C++ porter raises on a file holding ``marker`` (a bug musa-port has)."""
    from musa_porting.tree import porters

    real = porters.PORTERS["cxx"]

    def port(data, ctx):
        if marker in data:
            raise RecursionError("maximum recursion depth exceeded")
        return real(data, ctx)

    monkeypatch.setitem(porters.PORTERS, "cxx", port)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_the_porter_fails_on_is_copied_unchanged_and_reported(tmp_path, monkeypatch, jobs):
    files = {f"k{i:02}.cu": "cudaFree(0);\n" for i in range(70 if jobs > 1 else 2)}
    files["bad.cuh"] = "// BOOM\ncudaStream_t s;\n"
    files["use.cu"] = '#include "bad.cuh"\n'
    src = make_tree(tmp_path / "csrc", files)
    failing_porter(monkeypatch, b"BOOM")
    out = tmp_path / "out"
    result = port_tree(PortOptions(src=str(src), output=str(out), jobs=jobs))
    # Its bytes, under the name the rest of the tree includes it by.
    assert (out / "bad.muh").read_bytes() == files["bad.cuh"].encode()
    assert (out / "use.mu").read_text() == '#include "bad.muh"\n'
    assert (out / "k01.mu").read_text() == "musaFree(0);\n"
    assert inputs_found(result) == [("bad.cuh", "not-ported", "MP0005", "error")]
    assert result.not_ported == 1 and result.copied == 0
    [d] = [d for f in result.files if f.rel == "bad.cuh" for d in f.diagnostics]
    assert "RecursionError" in d.message and "copied unchanged" in d.message
    assert manifest(out)["bad.muh"]["src_size"] == UNTRUSTED  # ported again next run
    monkeypatch.undo()  # a fixed musa-port
    result = port_tree(PortOptions(src=str(src), output=str(out), jobs=jobs))
    assert (out / "bad.muh").read_text() == "// BOOM\nmusaStream_t s;\n"
    assert inputs_found(result) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_the_symbol_index_fails_on_is_ported_and_reported(tree, monkeypatch, jobs):
    from musa_porting.tree import project_symbols

    if jobs > 1:  # enough sources that the index runs in forked workers
        make_tree(tree, {f"more/m{i:02}.cu": "cudaFree(0);\n" for i in range(70)})

    real = project_symbols.scan_lexer

    def scan(data, *a, **kw):
        if b"int b(" in data:
            raise ValueError("a bug")
        return real(data, *a, **kw)

    monkeypatch.setattr(project_symbols, "scan_lexer", scan)
    result = port(tree, jobs=jobs)
    out = tree.parent / "out"
    assert (out / "sub/b.cpp").read_text() == "int b(musaStream_t s);\n"
    assert inputs_found(result) == [("sub/b.cpp", "ported", "MP0005", "warning")]
    [d] = [d for f in result.files if f.rel == "sub/b.cpp" for d in f.diagnostics]
    assert "symbol index" in d.message and "ValueError: a bug" in d.message


def test_the_reports_carry_findings_about_inputs(tree, monkeypatch):
    """JSON (valid against its schema), SARIF and CSV name an input with no output, a
    folder and a twin, each where it is: the input, and the output path it is about."""
    from conftest import ROOT

    jsonschema = pytest.importorskip("jsonschema")
    (tree / "k.muh").write_text("// the MUSA version, by hand\n")  # k.cuh's twin
    unreadable(monkeypatch, "data.bin")
    unlistable(monkeypatch, tree / "sub")
    out, rep, sarif, csv = (tree.parent / n for n in ("out", "r.json", "r.sarif", "r.csv"))
    code, _, err = musa_port_here(tree, "-o", out, "-q", "--report-json", rep, "--sarif", sarif,
                                  "--report-csv", csv)
    assert code == 0, err
    report = json.loads(rep.read_text())
    schema = json.loads((ROOT / "musa_porting/report/schemas/report.schema.json").read_text())
    jsonschema.validate(report, schema)
    found = sorted((d["source_file"], d["file"], d["id"], d["level"])
                   for d in report["diagnostics"] if d["id"].startswith("MP00"))
    assert found == [("data.bin", "data.bin", "MP0004", "error"),
                     ("k.cuh", "k.muh", "MP0002", "warning"),
                     ("sub", "sub", "MP0004", "error")]
    kinds = {f["path"]: f["kind"] for f in report["files"]}
    assert kinds["data.bin"] == "not-ported" and kinds["sub"] == "folder"
    assert report["totals"]["not_ported"] == 1 and report["totals"]["files_scanned"] == 3
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"MP0002", "MP0004"}
    assert "MP0004" in csv.read_text() and "data.bin" in csv.read_text()
