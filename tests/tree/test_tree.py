"""Tree porting: paths, ignores, copies, modes, symlinks, re-runs, atomicity, bad input."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import make_tree, run_cli, snapshot

from musa_porting import PortOptions, port_tree
from musa_porting.write.manifest import MANIFEST_NAME


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path / "csrc", {
        "a.cu": '#include "k.cuh"\n#include <cuda_runtime.h>\nvoid f() { cudaMalloc(&p, 4); }\n',
        "k.cuh": "#pragma once\ncudaStream_t s;\n",
        "sub/b.cpp": "int Accumulate(int cu) { return cu; }\n",
        "Makefile": "all:\n\tnvcc a.cu -lcudart\n",
        "data.bin": b"\x00\x01cudaMalloc\xff",
    })


def port(src, **kw):
    return port_tree(PortOptions(src=str(src), **kw))


# -- paths ----------------------------------------------------------------------------

def test_output_is_sibling_and_trailing_slash_changes_nothing(tree):
    r1 = port(str(tree) + "/")
    assert r1.output == str(tree) + "_musa"
    assert (tree.parent / "csrc_musa" / "a.mu").is_file()
    assert not (tree.parent / "_musa").exists()


def test_output_option(tree, tmp_path):
    r = port(tree, output=str(tmp_path / "elsewhere"))
    assert (tmp_path / "elsewhere" / "a.mu").is_file() and r.output == str(tmp_path / "elsewhere")


@pytest.mark.parametrize("case", ["missing", "out_in_src", "src_in_out", "same"])
def test_bad_paths_one_line_error_exit_2_nothing_written(tree, tmp_path, case):
    before = snapshot(tmp_path)
    args = {
        "missing": [tmp_path / "nope"],
        "out_in_src": [tree, "--output", tree / "out"],
        "src_in_out": [tree, "--output", tmp_path],
        "same": [tree, "--output", tree],
    }[case]
    proc = run_cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert snapshot(tmp_path) == before


# -- what is ported, copied, ignored ----------------------------------------------------

def test_sources_rewritten_others_copied_byte_for_byte(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    assert (out / "a.mu").read_text() == (
        '#include "k.muh"\n#include <musa_runtime.h>\nvoid f() { musaMalloc(&p, 4); }\n')
    assert (out / "k.muh").read_text() == "#pragma once\nmusaStream_t s;\n"
    assert (out / "sub/b.cpp").read_text() == "int Accumulate(int cu) { return cu; }\n"
    assert (out / "Makefile").read_text() == "all:\n\tmcc a.mu -lmusart\n"  # a build file
    assert (out / "data.bin").read_bytes() == (tree / "data.bin").read_bytes()
    assert not (out / ".Makefile").exists()
    port(tree, output=str(tree.parent / "copied"), build_files=False)
    assert (tree.parent / "copied/Makefile").read_bytes() == (tree / "Makefile").read_bytes()


def test_source_file_with_nul_bytes_is_copied_verbatim(tree):
    (tree / "weird.h").write_bytes(b"cudaMalloc\x00cudaFree")
    r = port(tree)
    assert (tree.parent / "csrc_musa/weird.h").read_bytes() == b"cudaMalloc\x00cudaFree"
    assert any(f.rel == "weird.h" and f.kind == "copied" for f in r.files)


def test_crlf_bom_and_non_utf8_round_trip(tree):
    data = b"\xef\xbb\xbf#include <cuda.h>\r\n// caf\xe9\r\ncudaFree(p);\r\n"
    (tree / "x.cu").write_bytes(data)
    port(tree)
    assert (tree.parent / "csrc_musa/x.mu").read_bytes() == (
        b"\xef\xbb\xbf#include <musa.h>\r\n// caf\xe9\r\nmusaFree(p);\r\n")


def test_file_modes_are_kept(tree):
    script = tree / "gen.sh"
    script.write_text("#!/bin/sh\necho cudaMalloc\n")
    script.chmod(0o755)
    (tree / "a.cu").chmod(0o640)
    port(tree)
    out = tree.parent / "csrc_musa"
    assert (out / "gen.sh").stat().st_mode & 0o777 == 0o755
    assert (out / "a.mu").stat().st_mode & 0o777 == 0o640


def test_ignore_bare_name_at_any_depth_comma_and_repeatable(tree):
    make_tree(tree, {"mlu/x.cu": "x", "deep/er/mlu/y.cu": "y", "npu/z.h": "z", "parrots.cpp": "p",
                     "keep/mluish.cu": "k"})
    r = port(tree, ignore=["mlu,npu", "parrots.cpp"])
    out = tree.parent / "csrc_musa"
    assert not (out / "mlu").exists() and not (out / "deep/er/mlu").exists()
    assert not (out / "npu").exists() and not (out / "parrots.cpp").exists()
    assert (out / "keep/mluish.mu").exists()
    assert r.ignored == {"mlu": "mlu", "deep/er/mlu": "mlu", "npu": "npu", "parrots.cpp": "parrots.cpp"}


def test_ignore_anchored_path(tree):
    make_tree(tree, {"common/mlu/x.cu": "x", "other/common/mlu/y.cu": "y"})
    port(tree, ignore=["common/mlu"])
    out = tree.parent / "csrc_musa"
    assert not (out / "common/mlu").exists() and (out / "other/common/mlu/y.mu").exists()


def test_a_rename_collision_keeps_the_second_file_under_its_own_name(tree):
    # .cu and .cuh both renamed to .mu (a caller's extension map): two inputs, one output.
    # It stopped the run (issue 44): now the first keeps the name, the other its own.
    (tree / "a.cuh").write_text("// header\n")
    r = port(tree, renames={".cu": ".mu", ".cuh": ".mu"})
    out = tree.parent / "csrc_musa"
    assert (out / "a.mu").read_text().endswith("cudaMalloc(&p, 4); }\n".replace("cuda", "musa"))
    assert (out / "a.cuh").read_text() == "// header\n"
    [(f, d)] = [(f, d) for f in r.files for d in f.diagnostics if d.id == "MP0001"]
    assert f.rel == f.out_rel == "a.cuh" and "a.cu has that name" in d.message


def test_include_dirs_and_unresolved_includes(tree):
    make_tree(tree, {
        "common/cuda/helper.cuh": "// helper\n",
        "ops/op.cu": '#include "helper.cuh"\n#include <cub/cub.cuh>\n#include "decode_jpegs_cuda.h"\n',
    })
    port(tree, include_dirs=[str(tree / "common/cuda")])
    text = (tree.parent / "csrc_musa/ops/op.mu").read_text()
    assert text == '#include "helper.muh"\n#include <cub/cub.cuh>\n#include "decode_jpegs_cuda.h"\n'


def test_in_tree_includes_are_not_touched_by_broad_user_rules(tree, tmp_path):
    make_tree(tree, {"lib/cuda/util.cuh": "//\n", "use.cu": '#include "lib/cuda/util.cuh"\n'})
    rules = tmp_path / "r.json"
    rules.write_text('{"/cuda/": "/musa/"}')
    port(tree, rule_files=[str(rules)], rename_paths=False)  # the folder keeps its name
    assert (tree.parent / "csrc_musa/use.mu").read_text() == '#include "lib/cuda/util.muh"\n'


# -- symlinks -----------------------------------------------------------------------------

def test_symlinks_reproduced_never_followed_and_loops_do_not_hang(tree, tmp_path):
    outside = tmp_path / "outside.h"
    outside.write_text("cudaMalloc\n")
    os.symlink("k.cuh", tree / "alias.cuh")
    os.symlink("sub", tree / "sub_link")
    os.symlink(".", tree / "loop")
    os.symlink("self", tree / "self")
    os.symlink("../outside.h", tree / "out_link.h")
    os.symlink(str(tree / "a.cu"), tree / "abs_link.cu")
    os.symlink("missing.cu", tree / "dangling.cu")
    port(tree)
    out = tree.parent / "csrc_musa"
    assert os.readlink(out / "alias.muh") == "k.muh"
    assert os.readlink(out / "sub_link") == "sub"
    assert os.readlink(out / "loop") == "."
    assert os.readlink(out / "self") == "self"
    assert (out / "out_link.h").resolve() == outside.resolve()
    assert os.readlink(out / "abs_link.mu") == str(out / "a.mu")
    assert os.readlink(out / "dangling.mu") == "missing.cu"
    assert outside.read_text() == "cudaMalloc\n"


# -- incremental re-runs --------------------------------------------------------------------

def test_second_run_rewrites_nothing_and_keeps_mtimes(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    first = snapshot(out)
    time.sleep(0.01)
    r = port(tree)
    assert r.written == 0
    assert snapshot(out) == first


def test_changed_input_rewrites_only_its_output(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    first = snapshot(out)
    time.sleep(0.01)
    (tree / "k.cuh").write_text("#pragma once\ncudaEvent_t e;\n")
    r = port(tree)
    second = snapshot(out)
    assert r.written == 1
    assert second["k.muh"][1] == b"#pragma once\nmusaEvent_t e;\n"
    changed = {k for k in first if first[k] != second.get(k)}
    assert changed == {"k.muh", MANIFEST_NAME}


def test_same_bytes_after_input_touch_keeps_output_mtime(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    before = (out / "a.mu").stat().st_mtime_ns
    time.sleep(0.01)
    os.utime(tree / "a.cu")  # new mtime, same content
    r = port(tree)
    assert (out / "a.mu").stat().st_mtime_ns == before and r.written == 0


def test_stale_outputs_removed_foreign_files_kept(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    (out / "mine.txt").write_text("the user's own file")
    (tree / "sub/b.cpp").unlink()
    (tree / "sub").rmdir()
    r = port(tree)
    assert not (out / "sub").exists()
    assert r.removed == ["sub/b.cpp"]
    assert (out / "mine.txt").read_text() == "the user's own file"


def test_edited_stale_output_is_kept_with_a_warning(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    (out / "k.muh").write_text("hand edited")
    (tree / "k.cuh").unlink()
    r = port(tree)
    assert (out / "k.muh").read_text() == "hand edited"
    assert any("k.muh" in w and "left in place" in w for w in r.warnings)


def test_output_edited_by_hand_is_kept_by_a_re_run(tree):
    """Issue 37 item 4 (was: restored without a word); tests/merge has the rest."""
    port(tree)
    out = tree.parent / "csrc_musa"
    (out / "a.mu").write_text("oops")
    port(tree)
    assert (out / "a.mu").read_text() == "oops"


def test_changed_rules_re_port(tree, tmp_path):
    port(tree)
    rules = tmp_path / "r.json"
    rules.write_text('{"Accumulate": "Accum"}')
    port(tree, rule_files=[str(rules)])
    assert "Accum(" in (tree.parent / "csrc_musa/sub/b.cpp").read_text()


# -- atomicity and bad input ---------------------------------------------------------------

def test_interrupted_run_leaves_old_or_new_and_next_run_completes(tree, monkeypatch):
    port(tree)
    out = tree.parent / "csrc_musa"
    for name in ("a.cu", "k.cuh", "sub/b.cpp"):
        p = tree / name
        p.write_text(p.read_text() + "// cudaFree\n")
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(a, b, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_replace(a, b, **kw)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(KeyboardInterrupt):
        port(tree)
    monkeypatch.setattr(os, "replace", real_replace)
    for name in ("a.mu", "k.muh", "sub/b.cpp"):
        text = (out / name).read_text()
        assert text.count("\n") >= 1 and text.endswith("\n")  # old or new, never partial
    port(tree)
    for name in ("a.mu", "k.muh", "sub/b.cpp"):
        assert (out / name).read_text().endswith("// musaFree\n")
    leftovers = [p for p in out.rglob("*") if "musa-port-tmp" in p.name or "journal" in p.name]
    assert leftovers == []


def make_unreadable(monkeypatch, suffix: str) -> None:
    """As root every file is readable: refuse to open files ending in ``suffix``."""
    import builtins

    real_open = builtins.open

    def guarded_open(path, *a, **kw):
        if str(path).endswith(suffix):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(builtins, "open", guarded_open)
    real_os_open = os.open

    def guarded_os_open(path, *a, **kw):
        if isinstance(path, str) and path.endswith(suffix) and not a[0] & os.O_CREAT:
            raise PermissionError(13, "Permission denied", path)
        return real_os_open(path, *a, **kw)

    monkeypatch.setattr(os, "open", guarded_os_open)


def test_an_unreadable_file_is_a_finding_and_nothing_is_written_for_it(tree, monkeypatch):
    # It stopped the run with nothing written (issue 44: one input never does).
    make_unreadable(monkeypatch, "k.cuh")
    r = port(tree)
    out = tree.parent / "csrc_musa"
    assert not (out / "k.muh").exists() and (out / "a.mu").is_file()
    [(f, d)] = [(f, d) for f in r.files for d in f.diagnostics if d.id == "MP0004"]
    assert (f.rel, f.kind, d.level) == ("k.cuh", "not-ported", "error")
    assert d.message == "k.cuh: not ported: cannot read: Permission denied; nothing is written at k.muh"


def test_source_tree_is_never_modified(tree):
    os.symlink("k.cuh", tree / "alias.cuh")
    before = snapshot(tree)
    port(tree)
    port(tree)
    assert snapshot(tree) == before


def test_default_header_rules_match_whole_include_targets_only(tree):
    (tree / "h.cpp").write_text(
        '#include <cuda.h>\n#include "cuda_runtime.h"\n#include "vendor/cuda.h"\n'
        '#include <ATen/cuda/CUDAContext.h>\n// see cuda.h\n')
    port(tree)
    assert (tree.parent / "csrc_musa/h.cpp").read_text() == (
        '#include <musa.h>\n#include "musa_runtime.h"\n#include "vendor/cuda.h"\n'
        '#include <torch_musa/csrc/aten/musa/MUSAContext.h>\n// see cuda.h\n')


def test_jobs_1_and_4_give_identical_trees_and_reports(tmp_path):
    import json
    import shutil

    from conftest import MMCV_IGNORES, MMCV_LIKE, MMCV_RULES_JSON, run_cli

    # Enough files that --jobs 4 really uses a pool (see porter._MIN_PARALLEL_FILES).
    src = tmp_path / "src"
    for i in range(12):
        shutil.copytree(MMCV_LIKE, src / f"copy{i}", symlinks=True)
    outs, reports = [], []
    for jobs in (1, 4):
        out, rep = tmp_path / f"out{jobs}", tmp_path / f"r{jobs}.json"
        run_cli(src, "-o", out, "--jobs", jobs, "--ignore", ",".join(MMCV_IGNORES),
                "--rule", MMCV_RULES_JSON, "--report-json", rep, check=0)
        snap = snapshot(out)
        outs.append({k: v[:3] for k, v in snap.items() if k != MANIFEST_NAME})
        data = json.loads(rep.read_text())
        del data["run"]
        data["output"] = None
        reports.append(data)
    assert outs[0] == outs[1]
    assert reports[0] == reports[1]
    assert reports[0]["totals"]["files_scanned"] >= 64


def test_a_re_run_with_an_unreadable_input_keeps_its_last_output(tree, monkeypatch):
    # It stopped the run, the output as it was (issue 44: the rest is ported now).
    port(tree)
    out = tree.parent / "csrc_musa"
    before = snapshot(out)
    (tree / "a.cu").write_text("cudaFree(p);\n")  # changes a.mu
    (tree / "sub/b.cpp").write_text("int x;\n")
    make_unreadable(monkeypatch, "sub/b.cpp")
    r = port(tree, jobs=1)
    after = snapshot(out)
    assert after["sub/b.cpp"] == before["sub/b.cpp"] and after["a.mu"][1] == b"musaFree(p);\n"
    assert [f.rel for f in r.files for d in f.diagnostics if d.id == "MP0004"] == ["sub/b.cpp"]


def test_small_files_share_their_manifest_entries(tmp_path):
    """A 100,000-file tree stays within its memory budget (test_rel_inputs, slow) because
    records of files that use the same few CUDA names and define none share one symbol
    entry and one count per value: a new field of the symbol index (``uses``, ``exported``)
    once made every record keep its own."""
    from musa_porting.write.manifest import load_manifest

    src = make_tree(tmp_path / "many", {f"d/f{i}.cu": "cudaStream_t s;\n" for i in range(20)})
    run_cli(src, "-q")
    records = list(load_manifest(str(tmp_path / "many_musa")).files.values())
    assert len(records) == 20
    assert len({id(r.symbols) for r in records}) == 1
    assert len({id(r.by_rule) for r in records}) == 1
