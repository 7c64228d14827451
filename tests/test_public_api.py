"""The public surface stays where users reach it: every name the package exports, the
SimplePorting module and command, and every command form the documentation shows.

The README and the pages of docs/ are read, not copied: each synopsis line's options
must exist in that command's ``--help``, and each concrete command they show is run on
a fixture.
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, MMCV_LIKE, ROOT, run_cli

# The README and every page of the documentation site, as one text.
DOCS = "\n".join(p.read_text(encoding="utf-8")
                 for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])
FAKE_MCC = FIXTURES / "fake-mcc" / "mcc"


def test_every_exported_name_imports():
    import musa_porting

    assert set(musa_porting.__all__) >= {"PortError", "PortOptions", "PortResult", "port_tree",
                                         "SimplePorting", "port_text", "__version__"}
    for name in musa_porting.__all__:
        assert getattr(musa_porting, name) is not None, name
    # `from musa_porting import X` gives the same object as the module that defines it.
    for name, module in musa_porting._EXPORTS.items():
        defining = importlib.import_module(f"musa_porting.{module}")
        assert getattr(defining, name) is getattr(musa_porting, name), name
    with pytest.raises(AttributeError):
        musa_porting.no_such_name  # noqa: B018


def test_documented_modules_import():
    """Module paths the README, docs and pyproject name (entry points, ``python -m``)."""
    for mod in ("musa_porting.simple_porting", "musa_porting.cli", "musa_porting.tables.generate",
                "musa_porting.rules", "musa_porting.__main__"):
        importlib.import_module(mod)
    from musa_porting.cli import main
    from musa_porting.simple_porting import SimplePorting
    from musa_porting.simple_porting import main as sp_main

    assert callable(main) and callable(sp_main) and SimplePorting is not None
    entry = re.search(r'musa-port = "([\w.]+):(\w+)"', (ROOT / "pyproject.toml").read_text())
    assert entry is not None
    assert callable(getattr(importlib.import_module(entry.group(1)), entry.group(2)))


# -- the documentation's synopsis lines ----------------------------------------------------

def _code_lines() -> list[str]:
    """Lines of the documentation's code blocks, with backslash continuations joined."""
    lines = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", DOCS, re.S):
        lines += block.replace("\\\n", " ").splitlines()
    return lines


def _synopses() -> dict[str, set[str]]:
    """Command -> the options its synopsis lines in the documentation show. A synopsis starts
    with ``musa-port [build|verify|rules]`` and a ``[``, and goes on over indented lines."""
    out: dict[str, set[str]] = {}
    current = None
    for line in _code_lines():
        m = re.match(r"musa-port(?: (build|verify|rules)\b)?", line)
        if m and "[" in line:
            current = m.group(1) or "port"
        elif not (current and line.startswith(" ")):
            current = None
        if current is not None:
            out.setdefault(current, set()).update(re.findall(r"(?<![\w-])--[a-z][\w-]*", line))
    return out


def test_readme_synopsis_options_exist_in_help():
    synopses = _synopses()
    assert set(synopses) == {"port", "build", "verify", "rules"}, synopses.keys()
    for command, options in synopses.items():
        args = ["--help"] if command == "port" else [command, "--help"]
        help_text = run_cli(*args, check=0).stdout
        missing = sorted(o for o in options if o not in help_text)
        assert not missing, f"musa-port {command}: the docs show {missing}, --help lacks them"


# -- the documentation's concrete commands -------------------------------------------------

def _documented(command: str) -> str:
    """``command`` as the documentation writes it (inline or in a code block)."""
    flat = " ".join(DOCS.replace("\\\n", " ").split())
    assert command in flat, f"the documentation no longer shows: {command}"
    return command


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    """``./csrc`` (the buildable fixture) and ``fixtures/mmcv_like`` under one folder, and
    a fake MUSA home whose mcc is the fake one."""
    shutil.copytree(FIXTURES / "build_case", tmp_path / "csrc")
    shutil.copytree(MMCV_LIKE, tmp_path / "fixtures" / "mmcv_like", symlinks=True)
    shutil.copy(FIXTURES / "mmcv_rules.json", tmp_path / "fixtures")
    home = tmp_path / "musa_home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "mcc").symlink_to(FAKE_MCC)
    monkeypatch.setenv("MUSA_HOME", str(home))
    return tmp_path


def _run(line: str, cwd: Path, expect: int = 0) -> subprocess.CompletedProcess:
    argv = shlex.split(line)
    if argv[0] == "musa-port":
        argv = [sys.executable, "-m", "musa_porting", *argv[1:]]
    elif argv[:2] == ["python", "-m"]:
        argv = [sys.executable, *argv[1:]]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=os.environ.copy())
    assert proc.returncode == expect, f"{line}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_readme_port_commands(workspace):
    quick = _documented("musa-port fixtures/mmcv_like --ignore common/mlu,common/mps,parrots,"
                        "pytorch/mlu,pytorch/mps,pytorch/npu --rule fixtures/mmcv_rules.json")
    _run(quick, workspace)
    # Paths are renamed by default (issue 26): pytorch/cuda/roi_align_cuda.cu moves.
    assert (workspace / "fixtures/mmcv_like_musa/pytorch/musa/roi_align_musa.mu").is_file()
    _run(_documented("musa-port ./csrc"), workspace)
    assert (workspace / "csrc_musa/src/saxpy.mu").is_file()
    _run(_documented("musa-port SRC --reverse").replace("SRC", "csrc_musa"), workspace)
    assert (workspace / "csrc_musa_cuda/src/saxpy.cu").is_file()
    _run("python -m musa_porting ./csrc --dry-run --diff -q", workspace)


def test_readme_rules_commands(workspace):
    out = _run(_documented("musa-port rules cudaMalloc"), workspace).stdout
    assert "musaMalloc" in out
    assert "mublas" in _run(_documented("musa-port rules --list --family cublas"), workspace).stdout
    assert "runtime" in _run(_documented("musa-port rules --families"), workspace).stdout
    _run("musa-port rules --families --format json", workspace)


def test_readme_build_commands(workspace):
    _run("musa-port ./csrc -q", workspace)
    # The fake mcc links only its own objects: host files go through it too.
    cxx = f" --cxx {FAKE_MCC}"
    _run(_documented("musa-port build ./csrc_musa --arch mp_22 --shared libops.so") + cxx, workspace)
    assert (workspace / "csrc_musa/.musa-port-build/libops.so").is_file()
    line = _documented('musa-port SRC --build --build-args "--arch mp_21 --shared libops.so"')
    # transpose.mu is over mp_21's shared memory limit; mp_31 builds.
    _run(line.replace("SRC", "./csrc").replace('libops.so"', f'libops.so{cxx}"'), workspace, expect=1)
    _run(f'musa-port ./csrc --build --build-args "--arch mp_31 --shared libops.so{cxx}"', workspace)


def test_readme_simple_porting_command(workspace):
    line = _documented("python -m musa_porting.simple_porting --cuda-dir-path ./csrc "
                       "--ignore-dir-paths '[\"./csrc/mlu\"]' --mapping-rule '{\"_CUH\": \"_MUH\"}'")
    _run(line + " --drop-default-mapping", workspace)
    assert (workspace / "csrc_musa/include/common.muh").is_file()
    _run(line, workspace)
    assert "musa" in (workspace / "csrc_musa/src/saxpy.mu").read_text()


def test_readme_generator_and_verify_help(workspace):
    _run(_documented("python -m musa_porting.tables.generate") + " --help", workspace)
    _run("musa-port verify --help", workspace)
