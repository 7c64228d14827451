"""Round 5 of the hostile tester (issue 47): the merge, the adoption of a fork
(``--base-from``) and the bases, attacked. Each test failed before its fix."""

from __future__ import annotations

import pytest
from conftest import make_tree
from relhelp import state
from round4 import run_main

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
