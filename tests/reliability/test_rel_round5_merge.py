"""Round 5 of the hostile tester (issue 47): the merge, the adoption of a fork
(``--base-from``) and the bases, attacked. Each test failed before its fix."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tracemalloc
import zlib

import pytest
from conftest import make_tree
from relhelp import state
from round4 import run_main

HAS_GIT = shutil.which("git") is not None


def git(cwd, *args) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)

KERNEL = "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n"


# -- item 4: --base-from the output folder itself ------------------------------------------

@pytest.mark.parametrize("base", ["fork", "fork/csrc", "."])
def test_a_base_that_is_the_output_or_holds_it_is_refused(tmp_path, monkeypatch, base):
    """``--base-from fork`` with ``-o fork``: every hand edit would look like
    musa-port's own bytes and be replaced. OUT itself, a folder inside it and one that
    holds it are refused, before anything is written."""
    new = make_tree(tmp_path / "new", {"csrc/k.cu": KERNEL + "int added;\n"})
    fork = make_tree(tmp_path / "fork", {"csrc/k.mu": KERNEL.replace("cuda", "musa") +
                                         "// hand fix\n"})
    monkeypatch.chdir(tmp_path)
    before = state(fork, with_mtime=True)
    line = run_main([new, "-o", "fork", "--base-from", base, "-q"]).one_error()
    assert "--base-from" in line and "output folder" in line, line
    assert state(fork, with_mtime=True) == before


# -- item 7: --base-from REF with a link that leaves its folder ---------------------------------

@pytest.mark.skipif(not HAS_GIT, reason="no git")
def test_a_base_ref_with_a_link_out_of_its_folder_is_read(tmp_path):
    """SRC is ``repo/csrc``, whose ``common.h`` links to ``../include/common.h`` (real
    trees do): ``git archive`` of ``v1:csrc/`` holds a link leaving the archive. It is
    kept as the port keeps such a link in a folder SRC, and the upgrade goes on (the
    fork, ``repo/csrc_musa``, has the link as the port makes it)."""
    repo = make_tree(tmp_path / "repo", {"csrc/k.cu": KERNEL, "include/common.h": "#pragma once\n"})
    os.symlink("../include/common.h", repo / "csrc/common.h")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v1")
    git(repo, "tag", "v1")
    fork = make_tree(repo / "csrc_musa", {"k.mu": "// hand fix\n" + KERNEL.replace("cuda", "musa")})
    os.symlink("../include/common.h", fork / "common.h")
    (repo / "csrc/k.cu").write_text(KERNEL + "int added;\n")
    git(repo, "commit", "-qam", "v2")
    run = run_main([repo / "csrc", "-o", fork, "--base-from", "v1", "-q"])
    assert run.code == 0, run.err
    assert (fork / "k.mu").read_text() == "// hand fix\n" + KERNEL.replace("cuda", "musa") + "int added;\n"
    assert os.readlink(fork / "common.h") == "../include/common.h"


# -- item 10: the sizes in a base pointer ---------------------------------------------------

def _edited_and_changed(tmp_path):
    """A port whose output the user edited and whose source then changed: the re-run
    needs the output's base (the pointer in its manifest record)."""
    src = make_tree(tmp_path / "s", {"k.cu": "cudaStream_t s;\nint a;\n"})
    out = tmp_path / "s_musa"
    assert run_main([src, "-q"]).code == 0
    (out / "k.mu").write_text("musaStream_t s; // hand fix\nint a;\n")
    (src / "k.cu").write_text("cudaStream_t s;\nint a;\nint b;\n")
    return src, out


def test_a_base_pointer_with_a_huge_length_is_no_base(tmp_path):
    """A 14-digit length (it was a MemoryError): no base, so no merge: the new port is
    written and the user's file kept."""
    src, out = _edited_and_changed(tmp_path)
    manifest = out / ".musa-port-manifest.json"
    data = json.loads(manifest.read_text())
    sha, pack, offset, _ = data["files"]["k.mu"]["base"].split(":")
    data["files"]["k.mu"]["base"] = f"{sha}:{pack}:{offset}:99999999999999"
    manifest.write_text(json.dumps(data))
    run = run_main([src, "-q"])
    assert run.code == 0, run.err
    assert (out / "k.mu").read_text() == "musaStream_t s;\nint a;\nint b;\n"
    assert "not merged" in run.err and "kept" in run.err


def test_a_base_that_inflates_past_any_output_is_not_inflated(tmp_path):
    """A small pack that inflates to 64 MB (the tester's: 1 MB to 1 GiB): refused once
    it passes the largest base a run keeps (8 MB), not decompressed whole before its
    hash is checked."""
    from musa_porting.merge.bases import BASE_DIR, base_bytes

    packs = tmp_path / BASE_DIR
    packs.mkdir(parents=True)
    z = zlib.compressobj(1)
    zeros = bytes(1 << 20)
    blob = b"".join(z.compress(zeros) for _ in range(64)) + z.flush()
    (packs / "bomb.pack").write_bytes(blob)
    pointer = f"{hashlib.sha256(b'x').hexdigest()}:bomb.pack:0:{len(blob)}"
    tracemalloc.start()
    try:
        assert base_bytes(str(tmp_path), pointer) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"{peak >> 20} MB held to read a base"


# -- item 14: a link the porter re-pointed ------------------------------------------------------

def test_a_link_the_porter_re_pointed_is_a_hand_edit(tmp_path):
    """A copied link aimed by hand at a MUSA header: the next run with nothing changed
    leaves it (it put it back: "1 written", no word); when the source's link changes
    too, the new link is written with a warning naming where the porter's pointed."""
    src = make_tree(tmp_path / "s", {"k.cu": "cudaStream_t s;\n", "include/real.h": "int a;\n"})
    os.symlink("../include/real.h", src / "k_link.h")
    out = tmp_path / "s_musa"
    assert run_main([src, "-q"]).code == 0
    assert os.readlink(out / "k_link.h") == "../include/real.h"
    os.remove(out / "k_link.h")
    os.symlink("/opt/musa/include/real_musa.h", out / "k_link.h")  # the porter's fix

    run = run_main([src, "-q"])
    assert run.code == 0, run.err
    assert os.readlink(out / "k_link.h") == "/opt/musa/include/real_musa.h"
    assert "0 written" in run.out.decode()

    os.remove(src / "k_link.h")
    os.symlink("include/real.h", src / "k_link.h")  # upstream re-points it too
    run = run_main([src, "-q"])
    assert run.code == 0, run.err
    assert os.readlink(out / "k_link.h") == "include/real.h"
    said = [ln for ln in run.err.splitlines() if "k_link.h" in ln and "warning" in ln]
    assert said and "/opt/musa/include/real_musa.h" in said[0], run.err

    # The near miss: a link nobody touched follows its source's as before, silently.
    os.remove(src / "k_link.h")
    os.symlink("../include/real.h", src / "k_link.h")
    run = run_main([src, "-q"])
    assert os.readlink(out / "k_link.h") == "../include/real.h"
    assert not [ln for ln in run.err.splitlines() if "k_link.h" in ln], run.err


# -- item 15: an edited output over the merge's limit ---------------------------------------

def test_an_edited_output_over_8_mb_is_said_too_large_to_merge(tmp_path):
    src, out = _edited_and_changed(tmp_path)
    with open(out / "k.mu", "a") as fh:  # the user's edit: 9 MB of generated text
        fh.write("// generated table line\n" * ((9 << 20) // 24 + 1))
    run = run_main([src, "-q"])
    assert run.code == 0, run.err
    said = [ln for ln in run.err.splitlines() if "k.mu" in ln and "not merged" in ln]
    assert said and "not text" not in said[0], run.err
    assert "too large" in said[0] and "8 MB" in said[0], said[0]


# -- item 16: an edited output left behind by a change of path naming ---------------------------

def test_an_edited_output_left_by_a_naming_change_names_its_input_and_new_output(tmp_path):
    """Ported with paths renamed, edited, re-ported with --keep-paths: the input is
    there and was ported fresh under its new name, without the edits. The warning
    says so and names both files (it said "its input is gone")."""
    src = make_tree(tmp_path / "s", {"csrc/cuda/gemm_cuda.cu": KERNEL})
    out = tmp_path / "s_musa"
    assert run_main([src, "-q"]).code == 0
    old = out / "csrc/musa/gemm_musa.mu"
    old.write_text(old.read_text() + "// hand fix\n")
    run = run_main([src, "-q", "--keep-paths"])
    assert run.code == 0, run.err
    new = out / "csrc/cuda/gemm_cuda.mu"
    assert new.is_file() and "// hand fix" in old.read_text()
    said = [ln for ln in run.err.splitlines() if str(old) in ln]
    assert said and "gone" not in said[0], run.err
    assert str(new) in said[0] and "csrc/cuda/gemm_cuda.cu" in said[0], said[0]
