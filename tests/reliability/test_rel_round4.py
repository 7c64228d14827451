"""Round 4 of the hostile tester (issue 37): bad ignore patterns and launchers, build
and verify of an interrupted port, sources that are not text, CR-only line endings,
and a read-only output. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, make_tree
from relhelp import start, state, temps, tmpfs_fixture  # noqa: F401 (the tmpfs fixture)
from round4 import run_main

from musa_porting.errors import PortError

FAKE_MCC = ROOT / "fixtures/fake-mcc/mcc"


# -- item 11: a reversed range in an ignore pattern -----------------------------------------

BAD_RANGES = ["[z-a]", "x[9-0]y", "[a-\\]", "[--!]", "*.c[!z-a]"]


@pytest.mark.parametrize("pattern", BAD_RANGES)
def test_a_reversed_range_in_an_ignore_pattern_is_one_line(tmp_path, pattern):
    src = make_tree(tmp_path / "src", {"k.cu": "cudaStream_t s;\n"})
    line = run_main([src, "--ignore", pattern, "-q"]).one_error()
    assert repr(pattern) in line and "range" in line, line
    assert not (tmp_path / "src_musa").exists()


def test_a_reversed_range_in_the_settings_file_or_simple_porting(tmp_path):
    from musa_porting import SimplePorting

    src = make_tree(tmp_path / "src", {"k.cu": "cudaStream_t s;\n",
                                       ".musa-port.toml": 'ignore = ["[z-a]"]\n'})
    line = run_main([src, "-q"]).one_error()
    assert "'[z-a]'" in line and "range" in line, line
    assert str(src / ".musa-port.toml") in line, line  # the file to fix
    with pytest.raises(PortError, match=r"'x\[9-0\]y'.*range"):
        SimplePorting(cuda_dir_path=str(src), ignore_dir_paths=["x[9-0]y"]).run()
    assert not (tmp_path / "src_musa").exists()


def test_a_range_in_order_still_ignores(tmp_path):
    """The near miss: ranges that are right keep working (and [a-a], one character)."""
    src = make_tree(tmp_path / "src", {"k1.cu": "int a;\n", "k7.cu": "int b;\n", "ka.cu": "int c;\n"})
    assert run_main([src, "--ignore", "k[0-5].cu,k[a-a].cu", "-q"]).code == 0
    assert _listed(tmp_path / "src_musa") == [".musa-port-manifest.json", "k7.mu"]


# -- item 12: a bad quote in --launcher ------------------------------------------------------

@pytest.fixture
def ported(tmp_path) -> Path:
    shutil.copytree(ROOT / "fixtures/build_case", tmp_path / "bc")
    assert run_main([tmp_path / "bc", "-q"]).code == 0
    return tmp_path / "bc_musa"


@pytest.mark.parametrize("launcher", ['"x', "ccache \\", "ccache 'a"])
def test_a_bad_launcher_is_one_line_before_anything_is_written(ported, launcher):
    before = state(ported, with_mtime=True)
    line = run_main(["build", ported, "--mcc", FAKE_MCC, "--launcher", launcher]).one_error()
    assert f"--launcher {shlex.quote(launcher)}:" in line, line  # as the user typed it
    assert state(ported, with_mtime=True) == before  # no build folder, nothing written


def test_a_bad_launcher_in_build_args_stops_the_port_before_it_writes(tmp_path):
    src = tmp_path / "bc"
    shutil.copytree(ROOT / "fixtures/build_case", src)
    line = run_main([src, "-q", "--build", "--build-args", "--launcher '\"x'"]).one_error()
    assert "--launcher" in line and "--build-args" in line, line
    assert not (tmp_path / "bc_musa").exists()


def test_a_bad_launcher_through_the_library_is_a_port_error(ported):
    from musa_porting.compile.build import BuildOptions, build

    with pytest.raises(PortError, match="--launcher"):
        build(BuildOptions(out=str(ported), mcc=str(FAKE_MCC), cxx=str(FAKE_MCC), launcher='"x'))


# -- item 6: build and verify of an interrupted port ----------------------------------------

def _interrupted(tmp_path: Path) -> Path:
    """A port killed in its commit: its journal is left, OUT holds old and new files."""
    src = tmp_path / "bc"
    shutil.copytree(ROOT / "fixtures/build_case", src)
    assert run_main([src, "-q"]).code == 0
    for p in src.rglob("*.cu"):
        p.write_text(p.read_text() + "\nint touched_by_edit;\n")
    proc = start(src, "-q", env={"MUSA_PORT_FAULTS": "commit:2=kill"})
    proc.wait(timeout=120)
    out = tmp_path / "bc_musa"
    assert (out / ".musa-port-journal").exists()
    return out


def test_build_and_verify_of_an_interrupted_port_say_so(tmp_path):
    out = _interrupted(tmp_path)
    before = state(out, with_mtime=True)
    build = ["build", out, "--mcc", FAKE_MCC, "--cxx", FAKE_MCC]
    for args in (build, ["verify", out, "--nvcc", FAKE_MCC]):
        line = run_main(args).one_error()
        assert "interrupted" in line and "run the port again" in line, line
        assert str(tmp_path / "bc") in line  # the port to run: its SRC
        assert state(out, with_mtime=True) == before
    # Running the port again finishes it, and the build then runs.
    assert run_main([tmp_path / "bc", "-q"]).code == 0
    assert not (out / ".musa-port-journal").exists()
    run = run_main(build + ["-q"])
    assert run.code == 0, run.err


def test_a_build_while_a_port_holds_the_lock_says_a_port_is_running(ported):
    from musa_porting.write.lock import OutputLock

    (ported / ".musa-port-journal").write_text('{"version": 2, "stage_dirs": []}')
    with OutputLock(str(ported), 0):
        line = run_main(["build", ported, "--mcc", FAKE_MCC]).one_error()
    assert "a musa-port run is writing" in line, line


# -- item 3: a source that is not text keeps its name, and what names it follows -------------

def test_includes_and_links_follow_a_header_that_is_not_text(tmp_path, monkeypatch):
    src = make_tree(tmp_path / "src", {
        "b.cu": '#include "k.cuh"\n#include "t.cuh"\ncudaStream_t s;\n',
        "k.cuh": "int k; cudaStream_t x;\n".encode("utf-16"),  # MP1006: copied as k.cuh
        "n.cuh": b"int n;\0\n",  # NUL bytes: copied as n.cuh
        "t.cuh": "int t;\n",  # the near miss: text, renamed
        "sub/c.cu": '#include "../n.cuh"\n',
    })
    os.symlink("k.cuh", src / "l.cuh")
    os.symlink("t.cuh", src / "u.cuh")
    assert run_main([src, "-q"]).code == 0
    out = tmp_path / "src_musa"
    assert (out / "k.cuh").is_file() and (out / "n.cuh").is_file() and (out / "t.muh").is_file()
    assert (out / "b.mu").read_text() == '#include "k.cuh"\n#include "t.muh"\nmusaStream_t s;\n'
    assert (out / "sub/c.mu").read_text() == '#include "../n.cuh"\n'
    assert os.readlink(out / "l.muh") == "k.cuh" and (out / "l.muh").exists()
    assert os.readlink(out / "u.muh") == "t.muh"
    # A re-run with nothing changed reads no source to know it, and agrees; so does a diff.
    import musa_porting.tree.unported as unported

    monkeypatch.setattr(unported, "_file_not_text", lambda *a: pytest.fail("read again"))
    assert run_main([src, "-q"]).code == 0
    monkeypatch.undo()
    assert (out / "b.mu").read_text().startswith('#include "k.cuh"')
    diff = run_main([src, "-q", "--dry-run", "--diff"]).out.decode()
    assert '+#include "k.muh"' not in diff


def _listed(out):
    """OUT's top folder without musa-port's own folder (the bases of hand-edit merges)."""
    return sorted(n for n in os.listdir(out) if n != ".musa-port")


def test_a_header_that_becomes_text_is_renamed_and_its_includes_follow(tmp_path):
    src = make_tree(tmp_path / "src", {"b.cu": '#include "k.cuh"\n',
                                       "k.cuh": "int k;\n".encode("utf-16")})
    out = tmp_path / "src_musa"
    for text in (False, True, False):
        (src / "k.cuh").write_bytes(b"int k;\n" if text else "int k;\n".encode("utf-16"))
        assert run_main([src, "-q"]).code == 0
        header = "k.muh" if text else "k.cuh"
        assert (out / "b.mu").read_text() == f'#include "{header}"\n'
        assert _listed(out) == [".musa-port-manifest.json", "b.mu", header]


def test_one_file_that_is_not_text_keeps_its_name(tmp_path):
    make_tree(tmp_path, {"k.cuh": "int k;\n".encode("utf-16")})
    (tmp_path / "o").mkdir()
    assert run_main([tmp_path / "k.cuh", "-o", tmp_path / "o"]).code == 0
    assert os.listdir(tmp_path / "o") == ["k.cuh"]


# -- minor: CR-only line endings --------------------------------------------------------------

def test_a_file_with_cr_line_endings_follows_every_include(tmp_path):
    src = make_tree(tmp_path / "src", {
        "m.cu": b'#include "a.cuh"\r#include "b.cuh"\rcudaStream_t s;\rcudaFooBar(x);\r'
                b'cudaFooBaz(y); // musa-port: ignore[MP1002]\r',
        "a.cuh": "int a;\n", "b.cuh": "int b;\n",
        "p.py": b"import torch\rx = torch.cuda.is_available()\r",
    })
    run = run_main([src, "-q", "--report-json", tmp_path / "r.json"])
    assert run.code == 0, run.err
    out = tmp_path / "src_musa"
    assert (out / "m.mu").read_bytes() == \
        b'#include "a.muh"\r#include "b.muh"\rmusaStream_t s;\rcudaFooBar(x);\r' \
        b'cudaFooBaz(y); // musa-port: ignore[MP1002]\r'
    assert b"\n" not in (out / "p.py").read_bytes()
    assert b"torch.musa.is_available()" in (out / "p.py").read_bytes()
    found = [(d["source_file"], d["text"], d["line"])
             for d in json.loads((tmp_path / "r.json").read_text())["diagnostics"]]
    assert found == [("m.cu", "cudaFooBar", 4)]  # at its line; line 5's is suppressed


# -- minor: a read-only output -----------------------------------------------------------------

def test_a_read_only_output_re_runs_and_says_why_it_cannot_write(tmp_path, tmpfs):
    src = make_tree(tmp_path / "src", {"a.cu": "cudaStream_t s;\n", "b.cpp": "int b;\n"})
    out = tmpfs / "out"
    assert run_main([src, "-o", out, "-q"]).code == 0
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    before = state(out, with_mtime=True)
    for _ in range(2):  # nothing changed: nothing to write, every time
        run = run_main([src, "-o", out, "-q"])
        assert run.code == 0, run.err
    (src / "a.cu").write_text("cudaEvent_t e;\n")
    line = run_main([src, "-o", out, "-q"]).one_error()
    assert "Read-only file system" in line and "run again" not in line, line
    assert state(out, with_mtime=True) == before and temps(out) == []
