"""Round 5 of the hostile tester (issue 47): the merge, the adoption of a fork
(``--base-from``) and the bases, attacked. Each test failed before its fix."""

from __future__ import annotations

import os
import shutil
import subprocess

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
