"""Hostile input: encodings and contents, tree shapes, sizes and paths. Every byte the
rules do not touch is kept; what cannot be ported is reported, never a traceback.
Issue 18 "encodings", "tree shapes", "paths"; issue 19's UTF-16/NUL, FIFO, 50 MB and
``--output ""`` items."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest
from conftest import ROOT, make_tree
from conftest import run_cli as cli
from relhelp import measured, one_error, state, temps

MMCV_LIKE = ROOT / "fixtures/mmcv_like"

CUDA = b"cudaMalloc(&p, 4);"
MUSA = b"musaMalloc(&p, 4);"

# name -> (input bytes, expected output name, expected output bytes)
CONTENTS = {
    "latin1": (b"// caf\xe9 na\xefve cudaMalloc\n" + CUDA + b"\n", "latin1.mu",
               b"// caf\xe9 na\xefve musaMalloc\n" + MUSA + b"\n"),
    "gbk": ("// 分配显存 cudaMalloc 失败\n".encode("gbk") + CUDA + b"\n", "gbk.mu",
            "// 分配显存 musaMalloc 失败\n".encode("gbk") + MUSA + b"\n"),
    "crlf": (CUDA + b"\r\n// cudaMalloc\r\n", "crlf.mu", MUSA + b"\r\n// musaMalloc\r\n"),
    "bom": (b"\xef\xbb\xbf" + CUDA + b"\n", "bom.mu", b"\xef\xbb\xbf" + MUSA + b"\n"),
    "empty": (b"", "empty.mu", b""),
    "one_mb_line": (b"int x = 0; " * 50_000 + CUDA + b" int y; " * 40_000 + b"\n", "one_mb_line.mu",
                    b"int x = 0; " * 50_000 + MUSA + b" int y; " * 40_000 + b"\n"),
    # Not text: copied unchanged under its own name, and reported (MP1006).
    "nul": (CUDA + b"\0\0binary\n", "nul.cu", CUDA + b"\0\0binary\n"),
    "utf16": ((CUDA.decode() + "\n").encode("utf-16"), "utf16.cu",
              (CUDA.decode() + "\n").encode("utf-16")),
    "utf16be_no_bom": ((CUDA.decode() + "\n").encode("utf-16-be"), "utf16be_no_bom.cu",
                       (CUDA.decode() + "\n").encode("utf-16-be")),
}


def test_encodings_and_contents_keep_every_untouched_byte(tmp_path):
    src = make_tree(tmp_path / "enc", {f"{k}.cu": v[0] for k, v in CONTENTS.items()})
    report = tmp_path / "r.json"
    proc = cli(src, "--report-json", report)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "enc_musa"
    for name, (_, out_name, expected) in CONTENTS.items():
        assert (out / out_name).read_bytes() == expected, name
    data = json.loads(report.read_text())
    not_text = sorted(d["file"] for d in data["diagnostics"] if d["id"] == "MP1006")
    assert not_text == ["nul.cu", "utf16.cu", "utf16be_no_bom.cu"]
    assert data["totals"]["residuals"] >= 3
    assert "100.0% converted" not in proc.stdout
    again = cli(src, "-q")  # and a re-run keeps them
    assert again.returncode == 0 and "0 written" in again.stdout


@pytest.mark.slow
def test_a_50_mb_source_file_is_ported_in_bounded_memory(tmp_path):
    """Real kernel code (the mmcv-like fixture's .cu/.cuh files, repeated to 50 MB):
    about 150,000 replacements and 13,000 findings."""
    kernels = b"\n".join(p.read_bytes() for p in sorted(MMCV_LIKE.rglob("*.cu*")) if p.is_file())
    src = make_tree(tmp_path / "big", {"big.cu": (kernels * (50_000_000 // len(kernels) + 1))[:50_000_000]})
    m = measured(src, "-q")
    assert m["rc"] == 0
    assert m["peak_mb"] < 512, m
    manifest = tmp_path / "big_musa/.musa-port-manifest.json"
    assert manifest.stat().st_size < 1_000_000  # findings beyond 1,000 are counted only
    print(f"50 MB .cu: {m}")


def test_a_file_full_of_residuals_keeps_the_manifest_small_and_counts_right(tmp_path):
    src = make_tree(tmp_path / "r", {"r.cu": b"cudaFooBar(x);\n" * 200_000})
    report = tmp_path / "r.json"
    assert cli(src, "-q", "--report-json", report).returncode == 0
    assert (tmp_path / "r_musa/.musa-port-manifest.json").stat().st_size < 500_000
    data = json.loads(report.read_text())
    assert data["totals"]["residuals"] == 200_000
    again = cli(src, "-q")
    assert "200000 residuals" in again.stdout


def test_links_of_every_kind_are_reproduced_and_never_followed(tmp_path):
    src = make_tree(tmp_path / "l", {"sub/k.cuh": "cudaStream_t s;\n", "a.cu": "int a;\n"})
    os.symlink(".", src / "loop")              # a folder loop
    os.symlink("b", src / "a_link")            # a file loop
    os.symlink("a_link", src / "b")
    os.symlink("nowhere.h", src / "dangling")
    os.symlink("/etc", src / "outside")
    os.symlink("../..", src / "sub/up")          # leaves the tree
    os.symlink("sub", src / "linked_folder")
    os.symlink("sub/k.cuh", src / "k_link.cuh")
    t0 = time.monotonic()
    proc = cli(src, "-q", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - t0 < 60
    out = tmp_path / "l_musa"
    links = {p.name: os.readlink(p) for p in out.rglob("*") if p.is_symlink()}
    assert links == {"loop": ".", "a_link": "b", "b": "a_link", "dangling": "nowhere.h",
                     "outside": "/etc", "up": "../..", "linked_folder": "sub",
                     "k_link.muh": "sub/k.muh"}
    assert not (out / "linked_folder").resolve().is_relative_to(src)


def test_fifos_and_sockets_never_block_and_are_reported(tmp_path):
    src = make_tree(tmp_path / "f", {"a.cu": "cudaStream_t s;\n"})
    os.mkfifo(src / "pipe.cu")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(src / "sock"))
    try:
        proc = cli(src, "-q", timeout=60)
    finally:
        sock.close()
    assert proc.returncode == 0, proc.stderr
    assert f"{src / 'pipe.cu'}: warning: skipped: a FIFO" in proc.stderr
    assert f"{src / 'sock'}: warning: skipped: a socket" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "f_musa").iterdir()) == [
        ".musa-port", ".musa-port-manifest.json", "a.mu"]


def test_twenty_nested_levels(tmp_path):
    deep = "/".join(f"level{i}" for i in range(20))
    src = make_tree(tmp_path / "n", {f"{deep}/k.cuh": "cudaStream_t s;\n",
                                     "a.cu": f'#include "{deep}/k.cuh"\n'})
    assert cli(src, "-q").returncode == 0
    out = tmp_path / "n_musa"
    assert (out / deep / "k.muh").read_text() == "musaStream_t s;\n"
    assert (out / "a.mu").read_text() == f'#include "{deep}/k.muh"\n'


@pytest.mark.slow
def test_100000_small_files(tmp_path):
    src = tmp_path / "many"
    for i in range(100_000):
        d = src / f"d{i // 1000}"
        if i % 1000 == 0:
            d.mkdir(parents=True)
        ext = (".cu", ".h", ".txt", ".cpp")[i % 4]
        (d / f"f{i}{ext}").write_bytes(b"cudaStream_t s;\n" if ext != ".txt" else b"data\n")
    cold = measured(src, "-q")
    assert cold["rc"] == 0
    assert cold["peak_mb"] <= 400, cold
    again = measured(src, "-q")
    assert again["rc"] == 0
    print(f"100,000 files: cold {cold}, no-change re-run {again}")
    assert sum(1 for _ in (tmp_path / "many_musa").rglob("*.mu")) == 25_000
    assert temps(tmp_path / "many_musa") == []


# -- paths -----------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["out_in_src", "src_in_out", "same", "missing", "fifo",
                                  "out_is_file", "out_empty", "src_empty"])
def test_bad_paths_are_one_line_exit_2_and_write_nothing(tmp_path, case):
    src = make_tree(tmp_path / "p", {"a.cu": "cudaStream_t s;\n"})
    (tmp_path / "afile").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    args = {
        "out_in_src": [src, "--output", src / "out"],
        "src_in_out": [src, "--output", tmp_path],
        "same": [src, "--output", src],
        "missing": [tmp_path / "nope"],
        "fifo": [tmp_path / "fifo"],  # never opened: it would block
        "out_is_file": [src, "--output", tmp_path / "afile"],
        "out_empty": [src, "--output", ""],
        "src_empty": [""],
    }[case]
    before = state(tmp_path, with_mtime=True)
    line = one_error(cli(*args))
    if case == "out_empty":
        assert "--output" in line
    assert state(tmp_path, with_mtime=True) == before


def test_src_a_file_is_ported_to_stdout_and_writes_nothing(tmp_path):
    src = make_tree(tmp_path / "p", {"a.cu": "cudaStream_t s;\n"})
    before = state(tmp_path, with_mtime=True)
    proc = cli(src / "a.cu")
    assert proc.returncode == 0 and proc.stdout == "musaStream_t s;\n", proc.stderr
    assert state(tmp_path, with_mtime=True) == before


def test_an_output_under_a_missing_parent_is_created_and_removed_on_failure(tmp_path):
    src = make_tree(tmp_path / "p", {"a.cu": "cudaStream_t s;\n"})
    out = tmp_path / "x/y/out"
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}')
    one_error(cli(src, "-o", out, "--rule", bad))
    assert not (tmp_path / "x").exists()
    assert cli(src, "-o", out, "-q").returncode == 0 and (out / "a.mu").exists()


def test_reserved_names_in_src_are_skipped(tmp_path):
    src = make_tree(tmp_path / "r", {"a.cu": "int a;\n", ".musa-port-lock": "x",
                                     ".musa-port-journal": "y"})
    proc = cli(src, "-q")
    assert proc.returncode == 0
    assert "skipped (reserved name)" in proc.stderr
    assert not Path(tmp_path / "r_musa/.musa-port-journal").exists()
