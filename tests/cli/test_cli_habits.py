"""The habits people bring from ruff and uv: ``--check warning`` with a space, ``-V``,
``-v``, ``--output-format`` (text, json, sarif, github, grouped), and a version for
musa-converter too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import make_tree, musa_port_here, run_cli

# A dry run with no default tables: what these tests look at (options, formats, the
# hazards and names left a port finds without tables) needs none, and loading them is
# most of a run.
QUICK = ("-n", "--no-default-rules")


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository whose CUDA folder is below its root, with a warning-level hazard
    (MP2002), a residual (MP1002) and a project symbol (an MP1004 note)."""
    root = make_tree(tmp_path / "repo", {
        ".git/HEAD": "ref: refs/heads/main\n",
        "csrc/a.cu": "__device__ void f(float v) {\n  unsigned vote = __ballot_sync(0xffffffff, v > 0);\n}\n",
        "csrc/b.cu": "#define MY_CUDA_CHECK(x) x\ncudaFooBar(1);\n",
    })
    return root


def test_check_takes_its_level_after_a_space(repo):
    src = repo / "csrc"
    (src / "b.cu").write_text("int b;\n")
    code, _, err = musa_port_here(src, *QUICK, "-q", "--check", "warning")
    assert code == 1 and "--check=warning failed on 1 finding" in err
    code, _, err = musa_port_here("--check", "warning", src, *QUICK, "-q")
    assert code == 1, err
    code, _, err = musa_port_here(src, *QUICK, "-q", "--check", "error")
    assert code == 0, err
    # A bare --check still never takes SRC as its level.
    code, _, err = musa_port_here("--check", src, *QUICK, "-q")
    assert code == 0, err


def test_version_short_and_long():
    assert re.fullmatch(r"musa-port, version \d+\.\d+\.\d+\n", run_cli("-V", check=0).stdout)
    for flag in ("-V", "--version"):
        out = run_cli(flag, module="musa_porting.musa_converter", check=0).stdout
        assert re.fullmatch(r"musa-converter, version \d+\.\d+\.\d+\n", out)


def test_verbose_lists_notes_and_the_settings_file(repo):
    (repo / "pyproject.toml").write_text('[tool.musa-port]\nsuppress = ["MP2002"]\n'
                                         'no-default-rules = true\nvocab = ["vocab.json"]\n')
    (repo / "vocab.json").write_text('{"cuda": "musa"}')  # the tree's own names, with no tables
    code, out, err = musa_port_here(repo / "csrc", "-n")
    assert code == 0 and "MP1004" in out and "MY_MUSA_CHECK" not in out  # counted, not listed
    code, out, err = musa_port_here(repo / "csrc", "-n", "-v")
    assert code == 0
    assert f"settings from {repo / 'pyproject.toml'}" in err
    assert re.search(r"csrc/b\.cu:1:\d+: note: .*MY_MUSA_CHECK", out), out  # a dry run: the CUDA file
    code, _, err = musa_port_here(repo / "csrc", "-n", "-v", "-q")
    assert code == 2 and "contradict" in err


def test_output_formats(repo, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "vocab.json").write_text('{"cuda": "musa"}')  # the tree's own names, with no tables
    quick = (*QUICK, "--vocab", "vocab.json")
    code, out, err = musa_port_here("csrc", *quick, "--output-format", "json")
    report = json.loads(out)
    ids = sorted(d["id"] for d in report["diagnostics"])
    assert code == 0 and {"MP1002", "MP2002", "MP1004"} <= set(ids)
    assert err == ""  # a machine format is the whole output (issue 49.4)

    code, out, _ = musa_port_here("csrc", *quick, "--output-format", "sarif")
    assert json.loads(out)["version"] == "2.1.0"

    code, out, _ = musa_port_here("csrc", *quick, "--output-format", "github")
    lines = out.splitlines()
    assert "::warning file=csrc/a.cu,line=2,col=3,title=MP2002 warp-size-32::" in \
        next(ln for ln in lines if "MP2002" in ln)
    assert all(ln.startswith(("::warning ", "::error ")) for ln in lines)  # no notes unless -v
    code, out, _ = musa_port_here("csrc", *quick, "--output-format", "github", "-v")
    assert any(ln.startswith("::notice file=csrc/b.cu,line=1,") for ln in out.splitlines())

    code, out, _ = musa_port_here("csrc", *quick, "--output-format", "grouped")
    blocks = out.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["csrc/a.cu:", "csrc/b.cu:"]
    assert re.match(r"  2:1  MP1002 unknown-cuda-name \(warning, residual\): ", blocks[1].splitlines()[1])

    code, _, err = musa_port_here("csrc", *quick, "--output-format", "json", "--report-json", "-")
    assert code == 2 and "write to stdout" in err


def test_output_format_of_one_file(repo):
    code, out, err = musa_port_here(repo / "csrc/b.cu", "--output-format", "grouped")
    assert code == 0 and out.startswith("#define MY_CUDA_CHECK")  # stdout: the code alone
    assert err.splitlines()[0] == f"{repo / 'csrc/b.cu'}:"
    code, _, err = musa_port_here(repo / "csrc/b.cu", "--output-format", "sarif")
    assert code == 2 and "needs a folder" in err
