"""The merge of one output is git's (``git merge-file --diff3``): bytes in, bytes out,
markers labelled with what each side is; with no git on PATH there is no merge, and a
re-run keeps the user's file, writes the new port and lists the file as a conflict."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import make_tree

from musa_porting import PortOptions, port_tree
from musa_porting.merge.three_way import NoMerge, count_conflicts, merge

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@needs_git
def test_changes_that_do_not_overlap_are_both_kept_byte_for_byte():
    # CRLF lines, a BOM, a Latin-1 comment and no newline at the end: all kept.
    base = b"\xef\xbb\xbf// caf\xe9\r\nint a;\r\nint b;\r\nint c;\r\nint d;"
    ours = base.replace(b"int a;", b"int a;  // mine")
    theirs = base.replace(b"int d;", b"long d;")
    m = merge(base, ours, theirs)
    assert m.conflicts == 0
    assert m.data == b"\xef\xbb\xbf// caf\xe9\r\nint a;  // mine\r\nint b;\r\nint c;\r\nlong d;"


@needs_git
def test_overlapping_changes_get_diff3_markers_that_say_what_each_side_is():
    base = b"a\r\nb\r\nc\r\n"
    m = merge(base, b"a\r\nmine\r\nc\r\n", b"a\r\nnew\r\nc\r\n")
    assert m.conflicts == 1 == count_conflicts(m.data)
    assert m.data == (b"a\r\n<<<<<<< yours (the output as you edited it)\r\nmine\r\n"
                      b"||||||| base (musa-port's last port)\r\nb\r\n=======\r\nnew\r\n"
                      b">>>>>>> new port (musa-port)\r\nc\r\n")


@needs_git
def test_a_side_without_a_last_newline_still_ends_before_the_next_marker():
    m = merge(b"x\ny", b"x\nmine", b"x\nnew")
    lines = m.data.split(b"\n")
    assert b"mine" in lines and b"y" in lines and b"new" in lines
    assert [x[:7] for x in lines if x[:1] in b"<|=>" and x] == [
        b"<<<<<<<", b"|||||||", b"=======", b">>>>>>>"]


def test_without_git_there_is_no_merge(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NoMerge, match="git was not found"):
        merge(b"a\n", b"b\n", b"c\n")


def test_without_git_a_re_run_keeps_the_edited_file_and_lists_it(monkeypatch, tmp_path):
    src = make_tree(tmp_path / "csrc", {"a.cu": "#include <cuda_runtime.h>\n"
                                                "void f(float* p) { cudaFree(p); }\nint g();\n"})
    out = tmp_path / "csrc_musa"
    port_tree(PortOptions(src=str(src), jobs=1))
    mu = out / "a.mu"
    mine = mu.read_text().replace("int g();", "int g();  // mine")
    mu.write_text(mine)
    (tmp_path / "rules.json").write_text('{"cudaFree": "myFree"}')
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    r = port_tree(PortOptions(src=str(src), jobs=1, rule_files=[str(tmp_path / "rules.json")]))
    assert "myFree(p)" in mu.read_text() and "// mine" not in mu.read_text()
    assert r.conflicted == ["a.mu"] and not r.merged
    warning = next(w for w in r.warnings if "a.mu" in w and "not merged" in w)
    assert "git was not found" in warning
    kept = Path(re.search(r"kept as (\S+)", warning).group(1))
    assert kept.read_text() == mine and kept.is_relative_to(out / ".musa-port/kept")
