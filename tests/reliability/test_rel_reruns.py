"""Re-runs rewrite exactly what changed: after each kind of change, the re-run's output
equals a clean port of the new state, byte for byte, and the user's own files in the
output stay. Issue 18 "re-runs", issue 19's mtime-restored edit."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import make_tree
from conftest import run_cli as cli
from relhelp import same_port, state

from musa_porting.rules import default_mapping_dir


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path / "s", {
        "a.cu": '#include "k.cuh"\ncudaStream_t s;\n',
        "k.cuh": "#pragma once\ncudaEvent_t e;\n",
        "sub/b.cpp": "int Accumulate(int cu) { return cu; }\n",
        "sub/deep/c.h": "cudaError_t err;\n",
        "data.bin": b"\x00\x01\x02",
    })


def _change(tree: Path, how: str, tmp_path: Path) -> list[str]:
    """Apply one change; returns extra CLI arguments for both runs."""
    rules = tmp_path / "rules.json"
    if how == "edit":
        (tree / "k.cuh").write_text("#pragma once\ncudaFree(0);\n")
    elif how == "delete":
        (tree / "sub/b.cpp").unlink()
    elif how == "rename":
        (tree / "k.cuh").rename(tree / "k2.cuh")
        (tree / "a.cu").write_text('#include "k2.cuh"\ncudaStream_t s;\n')
    elif how == "rename-folder":
        (tree / "sub").rename(tree / "moved")
    elif how == "rule-file":
        rules.write_text('{"Accumulate": "Accum"}')
        return ["--rule", str(rules)]
    elif how == "tables":
        table = tmp_path / "tables/runtime.json"
        data = json.loads(table.read_text())
        data["version"] = str(data.get("version", "")) + "-next"
        entries = data["entries"]
        entries["cudaStream_t"] = "musaStreamNext_t"
        table.write_text(json.dumps(data))
        return ["--mapping-dir", str(tmp_path / "tables")]
    return ["--rule", str(rules)] if rules.exists() else []


@pytest.mark.parametrize("how", ["edit", "delete", "rename", "rename-folder", "rule-file", "tables"])
def test_each_rerun_equals_a_clean_port_and_keeps_user_files(tree, tmp_path, how):
    args: list[str] = []
    if how == "tables":
        shutil.copytree(default_mapping_dir(), tmp_path / "tables")
        args = ["--mapping-dir", str(tmp_path / "tables")]
    out = tmp_path / "s_musa"
    assert cli(tree, "-q", *args).returncode == 0
    (out / "USER_NOTES.txt").write_text("mine\n")
    (out / "sub/mine.cpp").write_text("mine\n")
    args = _change(tree, how, tmp_path) or args
    proc = cli(tree, "-q", *args)
    assert proc.returncode == 0, proc.stderr
    ref = tmp_path / "ref"
    assert cli(tree, "-o", ref, "-q", *args).returncode == 0
    got = state(out)
    assert got.pop(b"USER_NOTES.txt")[0] == "file" and got.pop(b"sub/mine.cpp")[0] == "file"
    if how == "rename-folder":
        got.pop(b"sub")  # kept: it holds the user's file
    same_port(got, state(ref))
    if how == "tables":
        assert "musaStreamNext_t" in (out / "a.mu").read_text()


@pytest.mark.parametrize("restore", ["touch -r", "cp -p"])
def test_an_edit_that_restores_size_and_mtime_is_ported(tree, tmp_path, restore):
    assert cli(tree, "-q").returncode == 0
    k = tree / "k.cuh"
    st = k.stat()
    if restore == "cp -p":
        other = tmp_path / "other.cuh"
        other.write_text("#pragma once\ncudaError_t e;\n")  # same size
        os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
        shutil.copy2(other, k)
    else:
        k.write_text("#pragma once\ncudaError_t e;\n")
        os.utime(k, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (k.stat().st_size, k.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert cli(tree, "-q").returncode == 0
    assert (tmp_path / "s_musa/k.muh").read_text() == "#pragma once\nmusaError_t e;\n"


def test_paranoid_compares_content_when_every_timestamp_matches(tree, tmp_path):
    """A file system whose timestamps are coarser than two edits (the same tick) is
    simulated by writing the new ctime into the manifest."""
    out = tmp_path / "s_musa"
    for paranoid in ([], ["--paranoid"]):
        if out.exists():
            shutil.rmtree(out)
        assert cli(tree, "-q", *paranoid).returncode == 0
        k = tree / "k.cuh"
        st = k.stat()
        k.write_text("#pragma once\ncudaError_t e;\n")
        os.utime(k, ns=(st.st_atime_ns, st.st_mtime_ns))
        manifest = json.loads((out / ".musa-port-manifest.json").read_text())
        manifest["files"]["k.muh"]["src_ctime_ns"] = k.stat().st_ctime_ns
        (out / ".musa-port-manifest.json").write_text(json.dumps(manifest))
        assert cli(tree, "-q", *paranoid).returncode == 0
        ported = (out / "k.muh").read_text()
        assert ("musaError_t" in ported) == bool(paranoid)
        k.write_text("#pragma once\ncudaEvent_t e;\n")


def test_a_no_change_rerun_writes_nothing(tree, tmp_path):
    assert cli(tree, "-q").returncode == 0
    out = tmp_path / "s_musa"
    before = state(out, with_mtime=True)
    assert cli(tree, "-q").returncode == 0
    assert state(out, with_mtime=True) == before


@pytest.mark.parametrize("manifest", ['{broken', '{"version": 999, "files": {}}'])
def test_an_unusable_manifest_is_named_as_the_cause(tree, tmp_path, manifest):
    """A corrupt manifest, or one of another musa-port version, makes every output look
    like the user's (unchanged ones are taken over; a changed one stops the run): the
    error says why, not only which output it stopped at."""
    from relhelp import one_error

    out = tmp_path / "s_musa"
    assert cli(tree, "-q").returncode == 0
    (out / ".musa-port-manifest.json").write_text(manifest)
    (tree / "a.cu").write_text("cudaEvent_t changed;\n")  # its output must be replaced
    err = one_error(cli(tree, "-q"))
    assert "manifest" in err and ("unreadable" in err or "another version" in err), err
